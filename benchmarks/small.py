"""Small inputs: a golden set of a few thousand rows, where fixed costs decide (issue 36).

    python benchmarks/small.py                       # 1e3, 4e3, 1e4 rows, 7 rounds
    python benchmarks/small.py --rows 1e3 --rounds 9
    python benchmarks/small.py --no-save
    python benchmarks/small.py --golden-only --no-save   # compare and check on the golden set

How it measures
---------------
Every contender runs in this one process on the same cached data as ``run.py``
(``synth.make``: 100 documents per query), after a warm-up call.  A round calls each
contender ``--calls`` times in a row (order rotated per round) and keeps the median
call; ratios are taken within each round, then the median over rounds is reported.
Before timing, every measuring contender's per-query values are checked against
irframe-pandas's (to 1e-9).  The golden-set cases time one ``compare`` of the bundled
set's three systems (default resamples), one ``check`` against a snapshot and one against
a run (and, opt-in, with ``holes`` and ``weights``), and the statistics alone on the same
per-query deltas (the floor they set: the randomization test with 10,000 sign vectors,
exact up to 16 non-zero deltas, and a 10,000-resample bootstrap CI per comparison).

Targets (issue 44): polars in, 5 measures, at 1e3 and 1e4 rows <= 1.5x the lean plan (``lean.py``,
the floor: exact, checked equal to ``evaluate`` here too); pandas in <= 5x pytrec_eval at 1e3 and
<= 1.0x at 1e4, faster than ir_measures at every size; the 47 classic measures at 1e3 <= 2x the 5;
``tune_fusion`` of the golden set's three runs (wsum, min-max, step 0.1) <= 0.5x
``ranx.optimize_fusion``'s time on the same grid, with the same best weights (checked first);
compare and check on the 40-query golden set <= 0.3 s each (issue 36).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import contenders as C
import synth

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results" / "small"  # (beside run.py's result files, not among them)
NAMES = [
    "irframe-pandas", "irframe-polars", "irframe-pandas-47", "irframe-polars-47", "pytrec_eval",
    "ir_measures", "lean-polars", "lean-pandas",
]  # fmt: skip
TARGETS: list[tuple[str, float, str, str, float]] = [
    # (label, rows, contender, against, at most)
    ("polars in, 5 measures / lean plan", 1e3, "irframe-polars", "lean-polars", 1.5),
    ("polars in, 5 measures / lean plan", 1e4, "irframe-polars", "lean-polars", 1.5),
    ("pandas in, 5 measures / pytrec_eval", 1e3, "irframe-pandas", "pytrec_eval", 5.0),
    ("pandas in, 5 measures / pytrec_eval", 1e4, "irframe-pandas", "pytrec_eval", 1.0),
    ("pandas in, 5 measures / ir_measures", 1e3, "irframe-pandas", "ir_measures", 1.0),
    ("pandas in, 5 measures / ir_measures", 4e3, "irframe-pandas", "ir_measures", 1.0),
    ("pandas in, 5 measures / ir_measures", 1e4, "irframe-pandas", "ir_measures", 1.0),
    ("47 measures / 5 (polars in)", 1e3, "irframe-polars-47", "irframe-polars", 2.0),
    ("(no target) lean plan, pandas in / pytrec_eval", 1e3, "lean-pandas", "pytrec_eval", float("inf")),
]
TUNE_TARGET = 0.5  # tune_fusion / ranx.optimize_fusion on the golden set


def _contender(name: str) -> tuple[Callable[[Any, Any], Any], Callable[[Any], Any], Any]:
    if name == "irframe-pandas-47":
        c = C.CONTENDERS["irframe-polars-47"]
        return (lambda r, q: (r, q)), c.call, c.normalize
    if name.startswith("lean-"):  # the floor: lean.py's plan, its output read as irframe's
        import lean

        if name == "lean-polars":
            return C._prep_polars, lambda s: (lean.lean(*s), {}), C._irframe_cols
        return (lambda r, q: (r, q)), lambda s: (lean.lean_pandas(*s), {}), C._irframe_cols
    c = C.CONTENDERS[name]
    return c.prepare, c.call, c.normalize


GOLDEN_MEASURES = ["nDCG@10", "RR", "R@10"]


def _golden_cases() -> dict[str, Callable[[], Any]]:
    """compare of the golden set's three systems, check against a snapshot and against a run
    (in process), and the floor their statistics set: the paired tests and bootstrap CIs
    alone on the same per-query deltas (6 comparisons for compare, 3 for check)."""
    import polars as pl

    import irframe
    from irframe.datasets import golden

    g = golden()
    runs = {s: g.runs.filter(system=s).drop("system") for s in ("bm25", "dense", "hybrid")}
    snap = irframe.snapshot(runs["bm25"], g.qrels, GOLDEN_MEASURES)
    traffic = g.queries.select("query_id", traffic=(pl.int_range(pl.len()) * 37 % 11 + 1))
    compare_deltas = _golden_deltas(g, [("dense", "bm25"), ("hybrid", "bm25")])
    check_deltas = _golden_deltas(g, [("hybrid", "bm25")])
    return {
        "compare-golden-3-systems": lambda: irframe.compare(runs, g.qrels, GOLDEN_MEASURES),
        "check-golden-vs-snapshot": lambda: irframe.check(runs["hybrid"], g.qrels, baseline=snap),
        "check-golden-vs-run": lambda: irframe.check(runs["hybrid"], g.qrels, baseline=runs["bm25"]),
        # the opt-in options of issue 32: holes (one more evaluation), weights
        "compare-golden-holes": lambda: irframe.compare(runs, g.qrels, GOLDEN_MEASURES, holes=True),
        "check-golden-vs-run-holes": lambda: irframe.check(
            runs["hybrid"], g.qrels, baseline=runs["bm25"], holes="report"
        ),
        "check-golden-vs-run-weighted": lambda: irframe.check(
            runs["hybrid"], g.qrels, baseline=runs["bm25"], queries=traffic, weights="traffic"
        ),
        "stats-floor-of-compare": lambda: _statistics(compare_deltas),
        "stats-floor-of-check": lambda: _statistics(check_deltas),
        **_tune_cases(g),
    }


def _tune_cases(g: Any) -> dict[str, Callable[[], Any]]:
    """tune_fusion and ranx.optimize_fusion on the same grid (the golden set's three runs, wsum,
    min-max, weights in steps of 0.1), their best weights checked equal first."""
    import ranx

    import irframe

    systems = ("bm25", "dense", "hybrid")
    qrels = ranx.Qrels.from_dict(_nested(g.qrels, "relevance"))
    runs = [ranx.Run.from_dict(_nested(g.runs.filter(system=s), "score"), name=s) for s in systems]

    def ours() -> Any:
        return irframe.tune_fusion(g.runs, g.qrels, "nDCG@10", method="wsum", norm="minmax")

    def theirs() -> Any:
        return ranx.optimize_fusion(
            qrels, runs, norm="min-max", method="wsum", metric="ndcg@10", step=0.1, show_progress=False
        )

    mine, peer = ours().best["weights"], [float(w) for w in theirs()["weights"]]
    if [mine[s] for s in systems] != peer:
        msg = f"tune_fusion's best weights {mine} differ from ranx.optimize_fusion's {peer}"
        raise AssertionError(msg)
    return {"tune-fusion-golden-3-runs": ours, "ranx-optimize-fusion-golden-3-runs": theirs}


def _nested(frame: Any, value: str) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for q, d, v in frame.select("query_id", "doc_id", value).iter_rows():
        out.setdefault(str(q), {})[str(d)] = float(v)
    return out


def _golden_deltas(g: Any, pairs: list[tuple[str, str]]) -> list[Any]:
    """Per-query deltas (system - baseline, ties under 1e-12 at 0) of every pair and measure."""
    import numpy as np
    import polars as pl

    import irframe

    pq = irframe.evaluate(g.runs, GOLDEN_MEASURES, g.qrels, by="system", per_query=True)
    out = []
    for system, base in pairs:
        a, b = (pq.filter(pl.col("system") == s).sort("query_id") for s in (system, base))
        for m in GOLDEN_MEASURES:
            d = a[m].to_numpy() - b[m].to_numpy()
            out.append(np.where(np.abs(d) <= 1e-12, 0.0, d))
    return out


def _statistics(deltas: list[Any]) -> None:
    """compare's and check's statistics of each comparison, with their default resamples."""
    from irframe.stats import bootstrap_ci, paired_test

    for d in deltas:
        paired_test(d, test="randomization", n_permutations=10_000, n_bootstrap=10_000, seed=0)
        bootstrap_ci(d, n_bootstrap=10_000, seed=0)


def _bound(call: Callable[[Any], Any], state: Any) -> Callable[[], Any]:
    return lambda: call(state)


CLOCK: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.process_time}
_SETTINGS = {"clock": "wall"}  # --clock cpu: the process's CPU time (every thread), steadier under load


def _median_call(fn: Callable[[], Any], calls: int) -> float:
    clock = CLOCK[_SETTINGS["clock"]]
    times = []
    for _ in range(calls):
        t0 = clock()
        fn()
        times.append(clock() - t0)
    return statistics.median(times)


def _agree(rows: int, states: dict[str, Any], normals: dict[str, Any]) -> dict[str, float]:
    """Max |difference| per contender against irframe-pandas, on the common queries."""
    ref = normals["irframe-pandas"](_contender("irframe-pandas")[1](states["irframe-pandas"])[0])
    out = {}
    for name, norm in normals.items():
        if norm is None or name == "irframe-pandas":
            continue
        got = norm(_contender(name)[1](states[name])[0])
        common = ref.index.intersection(got.index)
        cols = [c for c in got.columns if c in ref.columns]
        diff = (ref.loc[common, cols] - got.loc[common, cols]).abs().to_numpy().max()
        if not diff <= 1e-9:
            msg = f"{name} disagrees with irframe-pandas at {rows:g} rows: max |diff| {diff}"
            raise AssertionError(msg)
        out[name] = float(diff)
    return out


def bench_size(rows: float, rounds: int, calls: int) -> dict[str, Any]:
    run, qrels = synth.make(int(rows))
    states, fns, normals = {}, {}, {}
    for name in NAMES:
        prepare, call, normalize = _contender(name)
        states[name] = prepare(run, qrels)
        fns[name] = _bound(call, states[name])
        normals[name] = normalize
        fns[name]()  # warm-up
    agreement = _agree(int(rows), states, normals)
    per_round: dict[str, list[float]] = {n: [] for n in NAMES}
    for r in range(rounds):
        order = NAMES[r % len(NAMES) :] + NAMES[: r % len(NAMES)]
        for name in order:
            per_round[name].append(_median_call(fns[name], calls))
    return {"rows": int(rows), "calls": calls, "times": per_round, "agreement": agreement}


def bench_golden(rounds: int) -> dict[str, list[float]]:
    cases = _golden_cases()
    for fn in cases.values():
        fn()
    out: dict[str, list[float]] = {n: [] for n in cases}
    for _ in range(rounds):
        for name, fn in cases.items():
            out[name].append(_median_call(fn, 3))
    return out


def _ratio(size: dict[str, Any], a: str, b: str) -> float:
    ta, tb = size["times"][a], size["times"][b]
    return statistics.median(x / y for x, y in zip(ta, tb, strict=True))


def report(result: dict[str, Any]) -> str:
    lines = ["| rows | " + " | ".join(NAMES) + " |", "|---|" + "---|" * len(NAMES)]
    for size in result["sizes"]:
        cells = [f"{statistics.median(size['times'][n]) * 1e3:.2f} ms" for n in NAMES]
        lines.append(f"| {size['rows']:,} | " + " | ".join(cells) + " |")
    lines += ["", "| target | rows | ratio (median of rounds) | at most | met |", "|---|---|---|---|---|"]
    by_rows = {s["rows"]: s for s in result["sizes"]}
    for label, rows, a, b, most in TARGETS:
        if int(rows) in by_rows:
            x = _ratio(by_rows[int(rows)], a, b)
            met = "-" if most == float("inf") else ("yes" if x <= most else "NO")
            lines.append(f"| {label} | {int(rows):,} | {x:.2f}x | {most}x | {met} |")
    golden = result.get("golden", {})
    if "tune-fusion-golden-3-runs" in golden:
        x = statistics.median(
            a / b
            for a, b in zip(
                golden["tune-fusion-golden-3-runs"], golden["ranx-optimize-fusion-golden-3-runs"], strict=True
            )
        )
        ok = "yes" if x <= TUNE_TARGET else "NO"
        lines.append(f"| tune_fusion / ranx.optimize_fusion (same best weights) | 40 queries | {x:.2f}x | "
                     f"{TUNE_TARGET}x | {ok} |")  # fmt: skip
    for name, times in golden.items():
        t = statistics.median(times)
        if name.startswith(("stats-floor", "tune-", "ranx-")):  # (no 0.3 s target)
            lines.append(f"| {name} | 40 queries | {t:.3f} s | - | - |")
            continue
        lines.append(f"| {name} | 40 queries | {t:.3f} s | 0.3 s | {'yes' if t <= 0.3 else 'NO'} |")
    if "load" in result:
        before, after = (", ".join(f"{x:.1f}" for x in result["load"][k]) for k in ("before", "after"))
        lines += ["", f"Load average (1, 5, 15 min) before: {before}; after: {after}."]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rows", default="1e3,4e3,1e4")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--calls", type=int, default=15, help="calls per contender per round (median kept)")
    parser.add_argument("--no-golden", action="store_true", help="skip the compare/check cases")
    parser.add_argument("--golden-only", action="store_true", help="only the compare/check cases")
    parser.add_argument("--no-save", action="store_true")
    parser.add_argument("--json", metavar="PATH", help="also write the raw result there (versus.py reads it)")
    parser.add_argument(
        "--clock", choices=sorted(CLOCK), default="wall",
        help="wall time, or the process's CPU time (all threads: the work done; steadier under load)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    _SETTINGS["clock"] = args.clock
    warnings.simplefilter("ignore")
    rows = [] if args.golden_only else [float(r) for r in args.rows.split(",")]
    load_before = os.getloadavg()
    sizes = [bench_size(r, args.rounds, args.calls) for r in rows]
    result: dict[str, Any] = {
        "when": datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ"),
        "machine": {"python": sys.version.split()[0], "platform": platform.platform()},
        "sizes": sizes,
        "clock": args.clock,
    }
    if not args.no_golden:
        result["golden"] = bench_golden(args.rounds)
    result["load"] = {"before": load_before, "after": os.getloadavg()}
    text = report(result)
    print(text)
    if args.json:
        Path(args.json).write_text(json.dumps(result))
    if not args.no_save:
        RESULTS.mkdir(parents=True, exist_ok=True)
        (RESULTS / f"{result['when']}-small.json").write_text(json.dumps(result, indent=1))
        (RESULTS / "latest.md").write_text(f"# Small inputs ({result['when']})\n\n{text}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
