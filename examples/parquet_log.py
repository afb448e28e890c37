"""A search log in parquet files, evaluated bucket by bucket with ``irframe.evaluate_parquet``.

Writes a synthetic log (default 200,000 rows over 4 daily files: query, position, clicked, device)
into a temporary directory, then evaluates it with bounded memory, by day and device, and checks
the result against an in-memory ``irframe.evaluate`` on the same files.

Run: ``python examples/parquet_log.py [--rows 200000] [--dir DIR]``. Larger ``--rows`` (1e8)
is how the benchmark's out-of-core numbers were taken.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np
import polars as pl

import irframe

DEPTH = 10  # results shown per impression


def write_log(directory: Path, rows: int, days: int = 4, seed: int = 1) -> list[Path]:
    """One parquet file per day; each impression (query_id) shows DEPTH results."""
    rng = np.random.default_rng(seed)
    per_day = rows // days // DEPTH
    paths = []
    for day in range(days):
        n = per_day * DEPTH
        position = np.tile(np.arange(1, DEPTH + 1), per_day)
        click_p = 0.5 / position  # users click the top more often
        frame = pl.DataFrame(
            {
                "query_id": np.repeat(np.arange(per_day) + day * per_day, DEPTH).astype(str),
                "doc_id": rng.integers(0, 50_000, size=n).astype(str),
                "position": position,
                "clicked": (rng.random(n) < click_p).astype(np.int8),
                "device": np.repeat(rng.choice(["mobile", "desktop"], size=per_day), DEPTH),
                "day": day,
            }
        )
        path = directory / f"day={day}.parquet"
        frame.write_parquet(path)
        paths.append(path)
    return paths


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=float, default=200_000)
    parser.add_argument("--dir", type=Path, default=None)
    args = parser.parse_args(argv)
    directory = args.dir or Path(tempfile.mkdtemp())
    paths = write_log(directory, int(args.rows))
    print(f"wrote {len(paths)} files, {sum(p.stat().st_size for p in paths) / 1e6:.1f} MB, in {directory}")

    measures = ["RR", "Success@1", "nDCG@10"]
    kwargs = {"rank_col": "position", "relevance_col": "clicked", "by": ["day", "device"]}
    # a duplicated doc id in one impression would be refused: keep its best position
    result = irframe.evaluate_parquet(
        str(directory / "*.parquet"), measures, memory_limit="1GB", duplicates="first", **kwargs
    )
    print(result.sort("day", "device"))

    in_memory = irframe.evaluate(pl.scan_parquet(paths), measures, duplicates="first", **kwargs).collect()
    a, b = result.sort("day", "device"), in_memory.sort("day", "device")
    for m in measures:
        assert np.allclose(a[m].to_numpy(), b[m].to_numpy(), rtol=0, atol=1e-12), m
    print("out-of-core == in-memory on every measure")
    return 0


if __name__ == "__main__":
    sys.exit(main())
