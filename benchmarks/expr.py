"""irframe.expr against irframe.evaluate, side by side (issue 31's targets).

    PYTHONPATH=src python benchmarks/expr.py --rows 1e6
    PYTHONPATH=src python benchmarks/expr.py --rows 1e7 --rounds 5

Cases (each a pair timed in the same rounds; the ratio is expr's time over the other's):

* ``unsorted``: ``df.group_by(query).agg(irframe.expr.measures(5 measures, score=...))`` against
  ``irframe.evaluate(df, 5 measures, per_query=True)``, grades on the rows (the qrels'
  grades left-joined onto the run once, untimed), rows shuffled.  Target <= 1.3x.
* ``ordered``: the same on a log already in rank order (a ``rank`` column, no score),
  ``rank=...``.  Target <= 1.0x.
* ``features``: 5 measures and 2 of the user's aggregations (mean latency, click-through
  rate) in one ``agg`` against ``evaluate(per_query=True)`` + ``group_by`` + ``join``.
  Target <= 1.0x.
* ``47 / 5``: the 47 classic trec measures (``contenders.CLASSIC_47``) in one
  ``measures(...)`` against the 5 measures, both expressions.  Target <= 2x.
* ``qrels attached`` (no target): ``attach`` + ``group_by().agg(measures(...))`` against
  ``evaluate(run, measures, qrels, per_query=True)`` (run queries only: missing="drop").

How it measures: one process holds the frames; round r calls every timed function once,
in an order rotated per round, after ``gc.collect()``; per-case ratios are computed within
each round and the median over rounds is reported, with the median times.  Before the
rounds, untimed, every expression result is checked against ``evaluate``'s per query
(to 1e-12).  Results: ``results/expr-<timestamp>-<rows>.json`` and ``results/expr-latest.md``
(the newest result per size).
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import statistics
import sys
import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
sys.path.insert(0, str(HERE))

import numpy as np  # noqa: E402
import polars as pl  # noqa: E402

import contenders as C  # noqa: E402
import irframe  # noqa: E402
import synth  # noqa: E402

TARGETS = {"unsorted": 1.3, "ordered": 1.0, "features": 1.0, "47 / 5": 2.0}
TOL = 1e-12
Q, D = "query_id", "doc_id"


def load(rows: int) -> dict[str, pl.DataFrame]:
    """The benchmark data as polars frames: grades on the rows, ordered log, qrels."""
    run, qrels = synth.make(rows)
    runo, _ = synth.make(rows, ordered=True)
    q = pl.from_pandas(qrels)
    graded = pl.from_pandas(run).join(q, on=[Q, D], how="left")
    rng = np.random.default_rng(0)
    graded = graded.with_columns(
        pl.Series("latency_ms", rng.gamma(2.0, 20.0, graded.height)),
        pl.Series("clicked", (rng.random(graded.height) < 0.1).astype(np.int8)),
    )
    ordered = pl.from_pandas(runo).join(q, on=[Q, D], how="left", maintain_order="left").drop("score")
    return {"graded": graded, "ordered": ordered, "run": pl.from_pandas(run), "qrels": q}


def functions(f: dict[str, pl.DataFrame]) -> dict[str, Callable[[], pl.DataFrame]]:
    """Every timed call, by name."""
    five, many = C.MEASURES, C.CLASSIC_47
    g, o, run, qrels = f["graded"], f["ordered"], f["run"], f["qrels"]
    user = [pl.col("latency_ms").mean().alias("latency_ms"), pl.col("clicked").mean().alias("ctr")]

    def features_evaluate() -> pl.DataFrame:
        per_query = irframe.evaluate(g, five, per_query=True)
        return per_query.join(g.group_by(Q).agg(user), on=Q, how="left")

    def attached() -> pl.DataFrame:
        joined = irframe.expr.attach(run, qrels, five)
        return joined.group_by(Q).agg(irframe.expr.measures(five, score="score", judgments="judgments"))

    return {
        "evaluate": lambda: irframe.evaluate(g, five, per_query=True),
        "expr": lambda: g.group_by(Q).agg(irframe.expr.measures(five, score="score")),
        "evaluate ordered": lambda: irframe.evaluate(o, five, per_query=True),
        "expr ordered": lambda: o.group_by(Q).agg(irframe.expr.measures(five, rank="rank")),
        "evaluate + group_by + join": features_evaluate,
        "expr features": lambda: g.group_by(Q).agg(irframe.expr.measures(five, score="score"), *user),
        "expr 47": lambda: g.group_by(Q).agg(irframe.expr.measures(many, score="score")),
        "evaluate 47": lambda: irframe.evaluate(g, many, per_query=True),
        "evaluate qrels": lambda: irframe.evaluate(run, five, qrels, per_query=True, missing="drop"),
        "expr qrels attached": attached,
    }


CASES = {  # case -> (expr's function, the one it is compared with)
    "unsorted": ("expr", "evaluate"),
    "ordered": ("expr ordered", "evaluate ordered"),
    "features": ("expr features", "evaluate + group_by + join"),
    "47 / 5": ("expr 47", "expr"),
    "evaluate 47 / 5 (reference)": ("evaluate 47", "evaluate"),
    "qrels attached": ("expr qrels attached", "evaluate qrels"),
}


def check_agreement(fns: dict[str, Callable[[], pl.DataFrame]]) -> dict[str, float]:
    """Max |expr - evaluate| per case over every query and measure (nulls must match)."""
    pairs = {
        "unsorted": ("expr", "evaluate", C.KEYS),
        "ordered": ("expr ordered", "evaluate ordered", C.KEYS),
        "47": ("expr 47", "evaluate 47", None),
        "qrels attached": ("expr qrels attached", "evaluate qrels", C.KEYS),
    }
    out = {}
    for case, (e, r, _) in pairs.items():
        got = fns[e]().unnest("measures")
        ref = fns[r]()
        labels = [c for c in ref.columns if c != Q]
        joined = ref.join(got, on=Q, how="inner", suffix="__expr")
        if joined.height != ref.height or got.height != ref.height:
            msg = f"{case}: query sets differ ({got.height} against {ref.height})"
            raise AssertionError(msg)
        worst = 0.0
        for label in labels:
            a, b = joined[label], joined[label + "__expr"]
            if not (a.is_null() == b.is_null()).all():
                msg = f"{case}: {label} nulls differ"
                raise AssertionError(msg)
            worst = max(worst, float((a - b).abs().max() or 0.0))
        if worst > TOL:
            msg = f"{case}: max |diff| {worst} > {TOL}"
            raise AssertionError(msg)
        out[case] = worst
    return out


def run_rounds(fns: dict[str, Callable[[], Any]], rounds: int) -> dict[str, list[float]]:
    names = list(fns)
    times: dict[str, list[float]] = {n: [] for n in names}
    for r in range(rounds):
        order = names[r % len(names) :] + names[: r % len(names)]
        for n in order:
            gc.collect()
            t0 = time.perf_counter()
            fns[n]()
            times[n].append(time.perf_counter() - t0)
        print(f"  round {r + 1}/{rounds} done", flush=True)
    return times


def summarize(times: dict[str, list[float]]) -> dict[str, dict[str, float]]:
    out = {}
    for case, (e, r) in CASES.items():
        ratios = [a / b for a, b in zip(times[e], times[r], strict=True)]
        out[case] = {
            "expr": e, "vs": r, "ratio": statistics.median(ratios),
            "expr_s": statistics.median(times[e]), "vs_s": statistics.median(times[r]),
            "ratios": ratios,
        }  # fmt: skip
    return out


def machine() -> dict[str, Any]:
    import os

    return {
        "python": platform.python_version(),
        "polars": pl.__version__,
        "cpus": os.cpu_count(),
        "load_avg_before": os.getloadavg(),
        "platform": platform.platform(),
    }


def table(results: list[dict[str, Any]]) -> str:
    lines = [
        "# irframe.expr against irframe.evaluate (benchmarks/expr.py)",
        "",
        "Medians of interleaved rounds; the ratio is the median of per-round ratios "
        "(expr's time / the other's). The machine is shared (2 cores): see `load_avg_before`.",
        "",
        "| rows | case | expr | vs | expr s | vs s | ratio | target |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for res in results:
        for case, s in res["cases"].items():
            t = TARGETS.get(case)
            verdict = "" if t is None else f"<= {t:g}: {'met' if s['ratio'] <= t else 'NOT met'}"
            lines.append(
                f"| {res['rows']:.0e} | {case} | {s['expr']} | {s['vs']} | {s['expr_s']:.3f} | "
                f"{s['vs_s']:.3f} | {s['ratio']:.2f}x | {verdict} |"
            )
    return "\n".join(lines) + "\n"


def latest() -> list[dict[str, Any]]:
    newest: dict[int, dict[str, Any]] = {}
    for path in sorted(RESULTS.glob("expr-*.json")):
        res = json.loads(path.read_text())
        newest[res["rows"]] = res
    return [newest[k] for k in sorted(newest)]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", default="1e6", help="comma-separated sizes, e.g. 1e6,1e7")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--no-save", action="store_true")
    args = ap.parse_args(argv)
    for rows in (int(float(r)) for r in args.rows.split(",")):
        print(f"== rows={rows:,}", flush=True)
        info = machine()
        frames = load(rows)
        fns = functions(frames)
        agreement = check_agreement(fns)  # (also the warm-up call of each)
        print(f"  agreement (max |diff|): {agreement}", flush=True)
        times = run_rounds(fns, args.rounds)
        cases = summarize(times)
        for case, s in cases.items():
            print(f"  {case:30s} {s['expr_s']:.3f}s / {s['vs_s']:.3f}s = {s['ratio']:.2f}x", flush=True)
        res = {
            "rows": rows, "rounds": args.rounds, "queries": frames["graded"][Q].n_unique(),
            "machine": info, "agreement": agreement, "times": times, "cases": cases,
            "when": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        }  # fmt: skip
        if not args.no_save:
            RESULTS.mkdir(exist_ok=True)
            stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
            (RESULTS / f"expr-{stamp}-{rows:.0e}.json").write_text(json.dumps(res, indent=1))
    if not args.no_save:
        (RESULTS / "expr-latest.md").write_text(table(latest()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
