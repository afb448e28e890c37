"""Cost of ``compare(pairs="all")`` over many systems (issue 35, class 7).

    python benchmarks/compare_all.py                      # 200 systems x 40 queries x 1 measure
    python benchmarks/compare_all.py --systems 50 --save  # also write results/compare_all.json

Seeded synthetic data: 40 queries with 30 candidate documents each (8 judged relevant,
grades 1-3), every system a random ranking of 20 of them.  One call of
``irframe.compare(runs, qrels, "nDCG@10", pairs="all")`` with the default settings
(randomization test, 10,000 sign vectors, 10,000 bootstrap resamples, seed 0) is timed
after the runs and qrels are built, in wall and CPU seconds (the CPU time is the steadier
number on a shared machine); with ``--check FILE`` the p-values and CI bounds are
compared with a table saved earlier by ``--dump FILE`` (same data, another irframe).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

import numpy as np
import polars as pl

import irframe

HERE = Path(__file__).resolve().parent


def make(n_systems: int, n_queries: int, seed: int = 7) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Stacked runs (``system`` column) and graded qrels."""
    rng = np.random.default_rng(seed)
    pool, depth = 30, 20
    qrels = pl.DataFrame(
        {
            "query_id": np.repeat([f"q{q}" for q in range(n_queries)], 8),
            "doc_id": [f"d{d}" for _ in range(n_queries) for d in rng.choice(pool, 8, replace=False)],
            "relevance": rng.integers(1, 4, size=8 * n_queries),
        }
    )
    rows = n_systems * n_queries * depth
    docs = np.concatenate([rng.permutation(pool)[:depth] for _ in range(n_systems * n_queries)])
    runs = pl.DataFrame(
        {
            "system": np.repeat([f"s{s:03d}" for s in range(n_systems)], n_queries * depth),
            "query_id": np.tile(np.repeat([f"q{q}" for q in range(n_queries)], depth), n_systems),
            "doc_id": [f"d{d}" for d in docs],
            "rank": np.tile(np.arange(1, depth + 1), n_systems * n_queries),
        }
    )
    assert runs.height == rows
    return runs, qrels


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--systems", type=int, default=200)
    ap.add_argument("--queries", type=int, default=40)
    ap.add_argument("--measure", default="nDCG@10")
    ap.add_argument("--dump", type=Path, help="write the table (p-values, CIs) to this parquet file")
    ap.add_argument("--check", type=Path, help="compare the table with one written by --dump")
    ap.add_argument("--save", action="store_true", help="write results/compare_all.json")
    args = ap.parse_args()
    runs, qrels = make(args.systems, args.queries)
    start, cpu = time.perf_counter(), time.process_time()
    table = irframe.compare(runs, qrels, args.measure, pairs="all")
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    print(f"{args.systems} systems x {args.queries} queries x 1 measure: {table.height} comparisons "
          f"in {seconds:.1f} s wall, {cpu:.1f} s CPU ({1e3 * cpu / table.height:.2f} ms CPU each; "
          f"load average {os.getloadavg()[0]:.1f})")  # fmt: skip
    if args.dump:
        table.write_parquet(args.dump)
    if args.check:
        old = pl.read_parquet(args.check)
        cols = ["system", "baseline", "p_value", "p_adjusted", "ci_low", "ci_high", "effect_size"]
        same = old.select(cols).equals(table.select(cols))
        print(f"identical to {args.check}: {same}")
    if args.save:
        out = HERE / "results" / "compare_all.json"
        out.parent.mkdir(exist_ok=True)
        record = {"systems": args.systems, "queries": args.queries, "measure": args.measure,
                  "comparisons": table.height, "seconds": round(seconds, 2), "cpu_seconds": round(cpu, 2),
                  "irframe": irframe.__version__, "python": platform.python_version()}  # fmt: skip
        out.write_text(json.dumps(record, indent=2) + "\n")


if __name__ == "__main__":
    main()
