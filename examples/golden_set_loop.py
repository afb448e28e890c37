"""The golden-set loop on the bundled golden set: accept a baseline, check a candidate, read what moved.

Run: ``python examples/golden_set_loop.py [--out DIR] [--candidate hybrid] [--gate]``. The gate
fails when the candidate regresses: mean nDCG@10 down by more than 0.01, or more than 3 queries
down by more than 0.2. ``hybrid`` is better on average yet fails the second rule (4 of its queries
fell by more than 0.2): the case the gate is for. With ``--gate`` a failure exits 1, as a CI step would.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import polars as pl

import irframe
from irframe.datasets import golden

MEASURES = ["nDCG@10", "RR", "R@20"]
MEAN_TOLERANCE = 0.01
QUERY_MARGIN, MAX_WORSE = 0.2, 3


def system(runs: pl.DataFrame, name: str) -> pl.DataFrame:
    return runs.filter(pl.col("system") == name).drop("system")


def accept(run: pl.DataFrame, qrels: pl.DataFrame, path: Path) -> None:
    """Write the accepted per-query numbers (commit this file next to the golden set)."""
    irframe.evaluate(run, MEASURES, qrels, per_query=True).write_parquet(path)


def check(run: pl.DataFrame, qrels: pl.DataFrame, path: Path) -> tuple[bool, pl.DataFrame]:
    """Compare a candidate with the accepted numbers; return (passed, per-query deltas)."""
    now = irframe.evaluate(run, MEASURES, qrels, per_query=True)
    before = pl.read_parquet(path)
    delta = now.join(before, on="query_id", how="full", suffix="_before", coalesce=True).select(
        "query_id", (pl.col("nDCG@10").fill_null(0) - pl.col("nDCG@10_before").fill_null(0)).alias("delta")
    )
    mean_delta = delta["delta"].mean()
    worse = delta.filter(pl.col("delta") < -QUERY_MARGIN).height
    passed = float(mean_delta or 0.0) >= -MEAN_TOLERANCE and worse <= MAX_WORSE
    print(f"mean nDCG@10 delta {mean_delta:+.4f}; {worse} queries worse by more than {QUERY_MARGIN}")
    return passed, delta


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--out", type=Path, default=None, help="where the snapshot goes (default: a temp dir)"
    )
    parser.add_argument("--candidate", default="hybrid", choices=["dense", "hybrid"])
    parser.add_argument("--gate", action="store_true", help="exit 1 when the candidate fails the gate")
    args = parser.parse_args(argv)
    out = args.out or Path(tempfile.mkdtemp())
    g = golden()
    snapshot = out / "golden-accepted.parquet"

    accept(system(g.runs, "bm25"), g.qrels, snapshot)
    print(f"accepted bm25 -> {snapshot}")
    candidate = system(g.runs, args.candidate)
    passed, _ = check(candidate, g.qrels, snapshot)

    runs = {"bm25": system(g.runs, "bm25"), args.candidate: candidate}
    moved = irframe.moved(runs, g.qrels, "nDCG@10", n=5, queries=g.queries.select("query_id", "text"))
    with pl.Config(tbl_rows=10, fmt_str_lengths=40, tbl_width_chars=160):
        print(moved.select("query_id", "text", "baseline_value", "value", "delta", "system_docs"))
    report = irframe.compare_report(runs, g.qrels, MEASURES, n_permutations=2000, n_bootstrap=2000)
    print(report.to_text(details=False))
    print("PASS" if passed else "FAIL: the candidate regresses on the golden set")
    return 1 if args.gate and not passed else 0


if __name__ == "__main__":
    sys.exit(main())
