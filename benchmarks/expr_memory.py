"""Peak memory of irframe.expr on a lazy log against plain polars (issue 45, item 7).

    PYTHONPATH=src python benchmarks/expr_memory.py --rows 2e6 --rounds 3

The log (``synth.make``'s run with the qrels' grades joined on, shuffled, a ``score``
column) is written once to a parquet file.  Each pipeline then runs in a fresh process,
reading the file lazily, and reports its peak resident memory (``VmHWM``: ``ru_maxrss``
would keep the forking parent's) and time:

* ``plain``: the same pipeline in plain polars, no irframe: ``scan_parquet(log)
  .group_by(query).agg(P@10, RR, DCG@10 written by hand with sort_by)``;
* ``expr``: ``scan_parquet(log).group_by(query).agg(irframe.expr.measures(5 measures,
  score="score"))``;
* ``expr validated``: the same after ``.pipe(irframe.expr.validate, score="score")``
  (evaluate's checks on the log: duplicates, nulls, NaN, infinite grades).

Rounds are interleaved (each round runs every pipeline once, in a rotated order); the
reported numbers are medians, and the ratio is the median of per-round ratios against
``plain`` in the same round.  Target: ``expr validated`` <= 1.3x plain's peak memory.
Results: ``results/expr-memory-<timestamp>-<rows>.json`` and ``results/expr-memory-latest.md``.
The load average is recorded: the machine may be shared.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
sys.path.insert(0, str(HERE))

TARGET = 1.3
PIPELINES = ("plain", "expr", "expr validated")

CHILD = r"""
import resource, sys, time
import polars as pl
kind, path, engine = sys.argv[1], sys.argv[2], sys.argv[3]
Q, S = "query_id", "score"
t0 = time.perf_counter()
lf = pl.scan_parquet(path)
if kind == "plain":
    g = pl.col("relevance").fill_null(0.0).sort_by([S, "doc_id"], descending=[True, True])
    top = g.head(10)
    rel = (g >= 1).cast(pl.Float64)
    disc = 1.0 / (pl.int_range(1, pl.len() + 1).cast(pl.Float64) + 1.0).log(2)
    out = lf.group_by(Q).agg(
        (top >= 1).sum().truediv(10).alias("P@10"),
        (1.0 / (rel.arg_max() + 1)).alias("RR"),
        (top * disc.head(10)).sum().alias("DCG@10"),
    )
else:
    import irframe
    five = ["nDCG(gain=linear)@10", "P@10", "R@100", "RR", "AP"]
    if kind == "expr validated":
        lf = lf.pipe(irframe.expr.validate, score=S)
    out = lf.group_by(Q).agg(irframe.expr.measures(five, score=S))
df = out.collect(engine=engine)
took = time.perf_counter() - t0
hwm = [l for l in open("/proc/self/status") if l.startswith("VmHWM:")]
peak = int(hwm[0].split()[1]) * 1024 if hwm else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(df.height, took, peak)
"""


def write_log(rows: int) -> Path:
    """The graded log as a parquet file (cached beside synth's cache)."""
    import numpy as np
    import polars as pl

    import synth

    path = synth.CACHE / f"expr-memory-log-{rows:.0e}.parquet"
    if path.exists():
        return path
    run, qrels = synth.make(rows)
    log = pl.from_pandas(run).join(pl.from_pandas(qrels), on=["query_id", "doc_id"], how="left")
    order = np.random.default_rng(1).permutation(log.height)
    synth.CACHE.mkdir(parents=True, exist_ok=True)
    log[order].write_parquet(path)
    return path


def one(kind: str, path: Path, engine: str) -> dict[str, float]:
    """Run one pipeline in a fresh process: rows, seconds, peak bytes."""
    env = {**os.environ, "POLARS_MAX_THREADS": os.environ.get("POLARS_MAX_THREADS", "2")}
    out = subprocess.run(
        [sys.executable, "-c", CHILD, kind, str(path), engine],
        capture_output=True, text=True, check=True, env=env,
    )  # fmt: skip
    height, seconds, peak = out.stdout.split()
    return {"queries": int(height), "seconds": float(seconds), "peak_bytes": int(peak)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", default="2e6")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--engine", default="auto", choices=["auto", "in-memory", "streaming"])
    ap.add_argument("--no-save", action="store_true")
    args = ap.parse_args(argv)
    rows = int(float(args.rows))
    path = write_log(rows)
    load_before = os.getloadavg()
    runs: dict[str, list[dict[str, float]]] = {k: [] for k in PIPELINES}
    for r in range(args.rounds):
        order = PIPELINES[r % 3 :] + PIPELINES[: r % 3]
        for kind in order:
            runs[kind].append(one(kind, path, args.engine))
        last = {k: runs[k][-1] for k in PIPELINES}
        shown = [f"{k} {v['peak_bytes'] / 2**20:.0f} MiB {v['seconds']:.1f}s" for k, v in last.items()]
        print(f"  round {r + 1}/{args.rounds}: " + ", ".join(shown), flush=True)
    summary: dict[str, Any] = {}
    for kind in PIPELINES:
        ratios = [a["peak_bytes"] / b["peak_bytes"] for a, b in zip(runs[kind], runs["plain"], strict=True)]
        summary[kind] = {
            "peak_mib": statistics.median(x["peak_bytes"] for x in runs[kind]) / 2**20,
            "seconds": statistics.median(x["seconds"] for x in runs[kind]),
            "memory_ratio": statistics.median(ratios),
        }
    res = {
        "rows": rows, "rounds": args.rounds, "engine": args.engine, "load_avg_before": load_before,
        "load_avg_after": os.getloadavg(), "runs": runs, "summary": summary,
        "when": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }  # fmt: skip
    lines = [
        "# irframe.expr's peak memory against plain polars (benchmarks/expr_memory.py)",
        "",
        f"{rows:.0e} rows, engine {args.engine}, {args.rounds} rounds; load average before "
        f"{load_before[0]:.1f}, after {res['load_avg_after'][0]:.1f} (a shared 2-core machine).",
        "",
        "| pipeline | peak MiB | seconds | memory / plain | target |",
        "|---|---|---|---|---|",
    ]
    for kind, s in summary.items():
        target = (
            f"<= {TARGET}: {'met' if s['memory_ratio'] <= TARGET else 'NOT met'}" if kind != "plain" else ""
        )
        lines.append(
            f"| {kind} | {s['peak_mib']:.0f} | {s['seconds']:.1f} | {s['memory_ratio']:.2f}x | {target} |"
        )
    text = "\n".join(lines) + "\n"
    print(text)
    if not args.no_save:
        RESULTS.mkdir(exist_ok=True)
        stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        (RESULTS / f"expr-memory-{stamp}-{rows:.0e}.json").write_text(json.dumps(res, indent=1))
        (RESULTS / "expr-memory-latest.md").write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
