"""Where irframe's time goes: the engine's stages re-timed one by one with plain polars.

    python benchmarks/profile_stages.py --rows 1e6 [--repeats 5] [--ordered]

First, plain-polars stages on the same cached data as ``run.py`` (from polars frames), each
timed as a separate ``collect()`` (cumulative where noted, ``join + ...``): what the work
costs in polars itself.  Then irframe's own stages, timed by wrapping the functions named
in :data:`STAGES` (the current layout's names, else 0.1's), for pandas and polars input:
where a call's time goes.  A guide for optimization, not a contender.
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import time
import warnings
from collections.abc import Callable
from typing import Any

import polars as pl

import contenders as C
import synth

Q, D, S, REL, RANK = C.Q, C.D, C.S, C.REL, C.RANK


def stages(run: pl.DataFrame, qrels: pl.DataFrame, ordered: bool) -> dict[str, Callable[[], Any]]:
    order = [RANK, D] if ordered else [S, D]
    desc = [False, True] if ordered else [True, True]
    r = run.lazy().select(Q, D, order[0])
    q = qrels.lazy().select(Q, D, pl.col(REL).cast(pl.Float64))
    joined = r.join(q, on=[Q, D], how="left")
    ranked = joined.group_by(Q).agg(pl.col(REL).sort_by(order, descending=desc))
    diag = joined.group_by(Q).agg(
        n=pl.len(),
        ndup=pl.len() - pl.col(D).n_unique(),
        nnull=pl.col(D).null_count(),
        nbad=pl.col(order[0]).is_null().sum(),
    )
    qstats = q.group_by(Q).agg(
        n=pl.len(),
        ndup=pl.len() - pl.col(D).n_unique(),
        R=(pl.col(REL) > 0).sum(),
        idcg=(
            pl.col(REL).clip(0).sort(descending=True).head(10)
            / (pl.int_range(pl.len().clip(upper_bound=10)) + 2).log(2)
        ).sum(),
    )
    exploded = ranked.with_row_index("gid").explode(REL)
    kernels = (
        exploded.with_columns(rank=pl.int_range(1, pl.len() + 1).over("gid"))
        .group_by("gid", maintain_order=True)
        .agg(
            p10=(pl.col(REL) > 0).head(10).sum(),
            r100=(pl.col(REL) > 0).head(100).sum(),
            dcg=(pl.col(REL).clip(0).head(10) / (pl.int_range(1, pl.len() + 1).head(10) + 1).log(2)).sum(),
            ap=((pl.col(REL) > 0).cum_sum() / pl.int_range(1, pl.len() + 1)).filter(pl.col(REL) > 0).sum(),
        )
    )
    return {
        "pl.from_pandas (not in irframe-polars)": None,  # filled by main
        "join (run x qrels, left)": joined.collect,
        "global sort (query, score desc, doc desc)": lambda: joined.sort(
            [Q, *order], descending=[False, *desc]
        ).collect(),
        "join + group_by(query) list sort_by": ranked.collect,
        "join + group_by(query) diagnostics (n_unique doc ...)": diag.collect,
        "diagnostics without n_unique(doc)": lambda: (
            joined.group_by(Q)
            .agg(n=pl.len(), nnull=pl.col(D).null_count(), nbad=pl.col(order[0]).is_null().sum())
            .collect()
        ),
        "qrels group_by (R, idcg, n_unique doc)": qstats.collect,
        "join + ranked + explode + group_by(gid) kernels": kernels.collect,
        "run.is_duplicated([query, doc]) (alt. dup check)": lambda: run.select(
            pl.struct(Q, D).is_duplicated().any()
        ).item(),
        "polars-handwritten (one group_by, global sort)": lambda: C.polars_reference(run, qrels),
        "irframe.evaluate (polars in)": lambda: C._irframe_call((run, qrels)),
    }


# irframe's own stages, by dotted name: the current layout first, then 0.1's (434b73f), so
# that the same script times both sides of a change.  A stage the code lacks is skipped.
_E, _OLD = "irframe._engine", "irframe.engine"
STAGES: list[tuple[str, list[str]]] = [
    ("boundary: frames in (to_lazy / run_input)", [f"{_E}:run_input", f"{_OLD}:run_input"]),
    ("measures parsed", [f"{_E}.entry:parse_measures", f"{_OLD}._entry:parse_measures"]),
    ("plan built (the executor runs)", [f"{_E}.entry:build_plan", f"{_OLD}._entry:build_plan"]),
    (
        "collected (lazy plan + probes)",
        [f"{_E}.checks:_collect_with_probes", f"{_OLD}._checks:_collect_with_probes"],
    ),
    ("input checks", [f"{_E}.checks:check", f"{_OLD}._checks:check"]),
    ("per-query table (natural order)", [f"{_E}:per_query_table", f"{_OLD}:per_query_table"]),
    ("boundary: frame out (from_lazy)", ["irframe._backends.local:from_lazy", "irframe._local:from_lazy"]),
]


def _owner(path: str) -> tuple[Any, str] | None:
    module, _, attr = path.partition(":")
    try:
        mod = importlib.import_module(module)
    except ImportError:
        return None
    return (mod, attr) if hasattr(mod, attr) else None


def evaluate_phases(run: Any, qrels: Any, repeats: int) -> dict[str, float]:
    """Median time per call of each of irframe's stages (by wrapping them), and the total.

    A wrapped function is replaced where it is looked up (its module), so a stage called
    through a name imported elsewhere is wrapped there too when the table names it.
    """
    import irframe

    totals: dict[str, list[float]] = {}
    originals: list[tuple[Any, str, Any]] = []
    for label, paths in STAGES:
        for path in paths:
            found = _owner(path)
            if found is None:
                continue
            owner, attr = found
            fn = getattr(owner, attr)
            originals.append((owner, attr, fn))
            setattr(owner, attr, _timed(fn, totals.setdefault(label, [])))
            break
    try:
        irframe.evaluate(run, C.MEASURES, qrels, per_query=True, missing="drop")  # (warm)
        for v in totals.values():
            v.clear()
        for _ in range(repeats):
            t = time.perf_counter()
            irframe.evaluate(run, C.MEASURES, qrels, per_query=True, missing="drop")
            totals.setdefault("total (irframe.evaluate)", []).append(time.perf_counter() - t)
    finally:
        for owner, attr, fn in originals:
            setattr(owner, attr, fn)
    return {k: sum(v) / repeats for k, v in totals.items() if v}


def _timed(fn: Callable[..., Any], into: list[float]) -> Callable[..., Any]:
    def timed(*a: Any, **k: Any) -> Any:
        t = time.perf_counter()
        try:
            return fn(*a, **k)
        finally:
            into.append(time.perf_counter() - t)

    return timed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", default="1e6")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--ordered", action="store_true")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    rows = int(float(args.rows))
    run_pd, qrels_pd = synth.make(rows, ordered=args.ordered)
    t0 = time.perf_counter()
    run, qrels = pl.from_pandas(run_pd), pl.from_pandas(qrels_pd)
    conv = time.perf_counter() - t0
    st = stages(run, qrels, args.ordered)
    print(
        f"rows={len(run):,} ordered={args.ordered}; median of {args.repeats} (ms); "
        f"polars {pl.__version__}, threads {pl.thread_pool_size()}"
    )
    print(f"  {'pl.from_pandas run+qrels (not in irframe-polars)':<55} {conv * 1e3:9.3f}")
    for name, fn in st.items():
        if fn is None:
            continue
        fn()  # warm
        ts = []
        for _ in range(args.repeats):
            t = time.perf_counter()
            fn()
            ts.append(time.perf_counter() - t)
        print(f"  {name:<55} {statistics.median(ts) * 1e3:9.3f}  (min {min(ts) * 1e3:.3f})", flush=True)
    for label, frame_run, frame_qrels in (("pandas in", run_pd, qrels_pd), ("polars in", run, qrels)):
        print(f"irframe.evaluate stages, {label} (ms per call, mean of {args.repeats}):")
        for k, v in evaluate_phases(frame_run, frame_qrels, args.repeats).items():
            print(f"  {k:<55} {v * 1e3:9.3f}")
    # polars 2 removed LazyFrame.profile(); compare the two engines on the engine's core step
    print("collect engines on join + group_by(query) list sort_by (median ms):")
    order = [RANK, D] if args.ordered else [S, D]
    lf = (
        run.lazy()
        .join(qrels.lazy(), on=[Q, D], how="left")
        .group_by(Q)
        .agg(pl.col(REL).sort_by(order, descending=[not args.ordered, True]))
    )
    for engine in ("auto", "in-memory", "streaming"):
        ts = []
        for _ in range(args.repeats):
            t = time.perf_counter()
            lf.collect(engine=engine)
            ts.append(time.perf_counter() - t)
        print(f"  engine={engine:<48} {statistics.median(ts) * 1e3:9.3f}")


if __name__ == "__main__":
    main()
