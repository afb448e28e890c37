"""irframe.online against polars' own floor on an impression log (in memory; out of core with --parquet).

The floor is the unavoidable work: polars' ``group_by(arm, user_id)`` sums of the clicked column and
the row count, on the same frame.  irframe's time includes reading and checking the log
(``_input/logs.check_log``), the per-impression step, the per-unit sums, the moments and the test.
Rounds are interleaved (floor, irframe, floor, irframe...); the ratio is the median of the
per-round ratios.  The log: ``rows / 10`` impressions of 10 results, ``rows / 50`` users in two
arms, clicks with a position-decaying probability.  In memory it is measured twice: as written
(sorted by impression and position: irframe proves the log's checks row by row, the fast path)
and shuffled (the general path: the checks per impression, ``n_unique`` of the positions); then both
again as ``.lazy()`` frames (a LazyFrame is read by the streaming engine, its proof a pass of its own;
the floor then runs on the streaming engine too).

    python benchmarks/online.py --rows 1e7 --repeats 5
    python benchmarks/online.py --rows 1e8 --parquet /tmp/log1e8 --repeats 1   # out of core (scan)
    python benchmarks/online.py --rows 1e8 --parquet /tmp/log1e8 --repeats 1 --memory-limit 2GB  # buckets
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from irframe import online

RESULTS = Path(__file__).parent / "results"
METRIC_SETS = {"sums": ["ClicksPerQuery"], "impression": ["CTR@3", "ClicksPerQuery", "RRFirstClick"]}


def make_log(rows: int, seed: int = 0) -> pl.DataFrame:
    """A seeded impression log of ``rows`` rows (10 per impression)."""
    rng = np.random.default_rng(seed)
    n_imp = rows // 10
    n_users = max(rows // 50, 2)
    user = rng.integers(0, n_users, size=n_imp)
    position = np.tile(np.arange(1, 11, dtype=np.int8), n_imp)
    p = 0.4 / position
    return pl.DataFrame({
        "impression_id": np.repeat(np.arange(n_imp, dtype=np.int64), 10),
        "query_id": np.repeat(rng.integers(0, 100_000, size=n_imp), 10),
        "doc_id": rng.integers(0, 1_000_000, size=n_imp * 10),
        "position": position,
        "clicked": (rng.random(n_imp * 10) < p).astype(np.int8),
        "user_id": np.repeat(user, 10),
        "arm": np.repeat(np.where(user % 2 == 0, "A", "B"), 10),
    })  # fmt: skip


def floor(log: Any) -> pl.DataFrame:
    """polars' own per-unit sums of the same columns."""
    if isinstance(log, pl.DataFrame):
        return log.lazy().group_by("arm", "user_id").agg(pl.col("clicked").sum(), pl.len()).collect()
    # a scan: the streaming engine, as irframe reads a lazy log
    return log.group_by("arm", "user_id").agg(pl.col("clicked").sum(), pl.len()).collect(engine="streaming")


def ours(log: Any, metrics: list[str], memory_limit: str | None = None) -> pl.DataFrame:
    out = online.compare(log, metrics, control="A", memory_limit=memory_limit)
    return out.collect() if isinstance(out, pl.LazyFrame) else out


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def run(log: Any, rows: int, repeats: int, label: str, memory_limit: str | None = None) -> dict[str, Any]:
    result: dict[str, Any] = {"rows": rows, "input": label, "load_before": _load(), "sets": {}}
    result["memory_limit"] = memory_limit
    for name, metrics in METRIC_SETS.items():
        ratios, t_floor, t_ours = [], [], []
        for _ in range(repeats):
            t0 = time.perf_counter()
            floor(log)
            t1 = time.perf_counter()
            ours(log, metrics, memory_limit)
            t2 = time.perf_counter()
            t_floor.append(t1 - t0)
            t_ours.append(t2 - t1)
            ratios.append((t2 - t1) / (t1 - t0))
        result["sets"][name] = {
            "metrics": metrics, "floor_s": t_floor, "irframe_s": t_ours,
            "median_ratio": statistics.median(ratios),
        }  # fmt: skip
        print(f"{label} {rows:.0e} {name:10s} floor {statistics.median(t_floor):.2f} s  irframe "
              f"{statistics.median(t_ours):.2f} s  ratio {statistics.median(ratios):.2f}")  # fmt: skip
    result["load_after"] = _load()
    return result


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=float, default=1e6)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--parquet", metavar="DIR", help="parquet parts here, scanned (out of core)")
    p.add_argument("--memory-limit", metavar="SIZE", help="with --parquet: irframe's buckets (memory_limit=)")
    p.add_argument("--sorted-only", action="store_true", help="in memory: skip the shuffled log")
    args = p.parse_args()
    rows = int(args.rows)
    if args.parquet:
        d = Path(args.parquet)
        d.mkdir(parents=True, exist_ok=True)
        parts = max(rows // 10_000_000, 1)
        for i in range(parts):
            if not (d / f"part-{i:03d}.parquet").exists():
                make_log(rows // parts, seed=i).with_columns(
                    pl.col("impression_id") + i * (rows // parts // 10), pl.col("user_id") + 0
                ).write_parquet(d / f"part-{i:03d}.parquet")
        log: Any = pl.scan_parquet(d / "*.parquet")
        label = "parquet-buckets" if args.memory_limit else "parquet-scan"
        _save(run(log, rows, args.repeats, label, args.memory_limit), args.rows)
        return
    log = make_log(rows)
    _save(run(log, rows, args.repeats, "in-memory"), args.rows)
    shuffled = None if args.sorted_only else log.sample(fraction=1.0, shuffle=True, seed=1)
    if shuffled is not None:
        _save(run(shuffled, rows, args.repeats, "in-memory-shuffled"), args.rows)
    _save(run(log.lazy(), rows, args.repeats, "in-memory-lazy"), args.rows)
    if shuffled is not None:
        _save(run(shuffled.lazy(), rows, args.repeats, "in-memory-lazy-shuffled"), args.rows)


def _save(result: dict[str, Any], rows: float) -> None:
    result["when"] = datetime.now(UTC).isoformat(timespec="seconds")
    result["versions"] = {"polars": pl.__version__, "cpus": os.cpu_count()}
    # the process's peak so far (the log, the floor's and irframe's passes; Linux: KiB)
    result["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    RESULTS.mkdir(exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    path = RESULTS / f"{stamp}-online-{rows:.0e}-{result['input']}.json"
    path.write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
