"""Which executor computes the per-query table: one table of conditions, tried in order.

Every executor computes the same per-query table from the same compiled measures
(:mod:`~irframe._engine.compiler`) and the same steps of :mod:`~irframe._engine.plan`;
they differ only in how each query's rows are put in ranking order and where the
kernels run.  The first executor whose condition holds is tried; one that finds the
input does not fit after all (``None``) hands over to the next:

=========  ==========================================================  =========================
executor   runs when                                                   orders each query's rows
=========  ==========================================================  =========================
small      in memory, at most :data:`SMALL_ROWS` run rows, and no      one sort, eager steps
           ranking kernel reads list-valued judgments from qrels
keyed      in memory, ``duplicates="error"``, :data:`USE_KEYED`, the   u64 keys (numpy), kernels
           same list rule; ``None`` on a hash collision, a duplicate   in one group_by
           or a score that rises along the ranks (the next decides)
presorted  in memory, ``duplicates="error"``, no rank/score check,     not at all: kept
           the same list rule;
           ``None`` unless each query's rows are already in ranking
           order and contiguous
general    always (a LazyFrame stays lazy)                             a sort per group, kernels
                                                                       over the exploded lists
=========  ==========================================================  =========================

"In memory" is a run the caller gave as a frame (``detect_order``), not a LazyFrame.
Small inputs are where fixed costs dominate: a lazy query costs ~0.2-0.5 ms to plan and
run however few its rows, and the general plan runs a dozen of them, so the small
executor runs each step eagerly and counts duplicates in its own group_by.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

import polars as pl

from irframe import kernels as K
from irframe._engine.background import Background, Pending
from irframe._engine.compiler import N_ROWS, Compiler, compile_all
from irframe._engine.keyed import GID as KGID
from irframe._engine.keyed import (
    Keyed,
    can_key,
    combined_hash,
    distinct_query,
    join_grades,
    keyed_rows,
    query_and_row_hashes,
    scores_rise,
    segment_rows,
)
from irframe._engine.plan import (
    DISTINCT,
    IN_RUN,
    N_BAD,
    N_NULLDOC,
    Q_DISTINCT,
    Q_N,
    Inputs,
    Plan,
    at_depth,
    dup_probe,
    exp_gain_labels,
    finish,
    group_ordered,
    group_ranked,
    group_sorted,
    judged_in_run,
    judged_table,
    prepare,
)
from irframe._engine.plan import (
    join_grades as join_qrels,
)
from irframe._engine.repeats import Repeats, count_repeats
from irframe._input.columns import RunColumns
from irframe._input.options import Options
from irframe.measures import Measure

__all__ = ["SMALL_ROWS", "STRATEGIES", "USE_KEYED", "Strategy", "build_plan"]

USE_KEYED = True  # the keyed fast path for in-memory input (off: the next executors only)
# The small plan's sort is what puts each query's rows in ranking order for its group_by.
# Polars' order-observation pass (2.1) can judge an aggregation order-free and drop the sort:
# RBP(rel=1) alone on rows not given in rank order read the ranks in input order (0.082 for
# 0.066).  The pass is off for that one query.
_ORDER_KEPT = pl.QueryOptFlags(check_order_observe=False)
SMALL_ROWS = 20_000  # up to this many run rows, the small executor (0: never)


@dataclass(frozen=True)
class Job:
    """What every executor is given: the prepared inputs and the request."""

    inp: Inputs[pl.LazyFrame]
    cols: RunColumns
    measures: Sequence[tuple[str, Measure]]
    opts: Options
    in_memory: bool
    n_rows: int | None
    partition_values: pl.LazyFrame | None
    exp_gain: bool

    @property
    def has_qrels(self) -> bool:
        return self.inp.qrels is not None

    def compiled(self, *, inline_rn: bool) -> tuple[Compiler, dict[str, pl.Expr]]:
        """The measures compiled (memoised): ``inline_rn`` when the kernels run in the
        group_by over rows that carry their own grades (no qrels)."""
        return compile_all(self.measures, inline_rn=inline_rn)

    def lists_per_row(self, comp: Compiler) -> bool:
        """A ranking kernel reads list-valued judgments from the qrels: copied onto every
        run row they would cost rows x judgments, so only the general plan takes them."""
        return self.has_qrels and comp.rn_lists

    @property
    def partitions(self) -> tuple[str, ...]:
        """The by-columns that partition the run (systems): those the qrels lack."""
        return tuple(b for b in self.cols.by if b not in self.inp.qrels_by)


@dataclass(frozen=True)
class Executed:
    """An executor's result: the per-query table (lazy or computed) and how to check it."""

    name: str
    frame: pl.LazyFrame | pl.DataFrame
    inp: Inputs[pl.LazyFrame]  # the inputs as the checks read them
    check_run_probe: bool  # the run's duplicate probe is still to be collected
    check_qrels_probe: bool  # the qrels' duplicate probe is still to be collected
    table_probes: Mapping[str, tuple[str, str]]  # (rows, distinct) columns


@dataclass(frozen=True)
class Strategy:
    """One row of the table: an executor, its condition (in words and as code)."""

    name: str
    when: str
    applies: Callable[[Job], bool]
    run: Callable[[Job], Executed | None]


def build_plan(
    run: pl.LazyFrame,
    cols: RunColumns,
    measures: Sequence[tuple[str, Measure]],
    qrels: pl.LazyFrame | None,
    qrels_cols: tuple[str, str, str] | None,
    *,
    opts: Options,
    partition_values: pl.LazyFrame | None = None,
    allow_empty: bool = False,
    detect_order: bool = False,
    n_rows: int | None = None,
) -> Plan:
    """Build the plan that computes every measure of every query (see the module's table).

    With ``detect_order`` the run is in memory (``n_rows`` rows, when known): the small,
    keyed and presorted executors may take it.  With ``opts.depth`` every executor reads
    each query's first documents only (:func:`~irframe._engine.plan.at_depth`).
    """
    repeats = _repeats_up_front(run, cols, opts, detect_order, n_rows)
    if repeats is not None and not repeats.dropped:  # nothing to drop: as duplicates="error"
        opts = replace(opts, duplicates="error")  # (the keyed and presorted executors may run)
    run = at_depth(run, cols, opts)
    inp = prepare(run, cols, qrels, qrels_cols)
    job = Job(
        inp, cols, measures, opts, detect_order, n_rows, partition_values, bool(exp_gain_labels(measures))
    )
    done = next(out for s in STRATEGIES if s.applies(job) and (out := s.run(job)) is not None)
    probes = _dup_probes(run, done, cols)
    return Plan(
        frame=done.frame,
        executor=done.name,
        cols=cols,
        measures=tuple(measures),
        allow_empty=allow_empty,
        dup_probe=probes[0],
        qrels_probe=probes[1],
        table_probes=done.table_probes,
        qrels_rows=None if done.inp.qrels is None else done.inp.qrels,
        qrels_keys=tuple(inp.qkeys),
        partitions=job.partitions,
        missing=opts.missing,
        run=run,
        qrels_query=inp.qrels_query,
        read=(tuple(inp.schema.names()), inp.qrels_read),
        grade_col=qrels_cols[2] if qrels_cols is not None else str(cols.relevance),
        exp_gain=exp_gain_labels(measures),
        repeats=repeats,
    )


def _repeats_up_front(
    run: pl.LazyFrame, cols: RunColumns, opts: Options, in_memory: bool, n_rows: int | None
) -> Repeats | None:
    """``duplicates="first"`` on an in-memory run above :data:`SMALL_ROWS` rows: its repeated
    rows counted once, before anything else (one group_by).  A run without any is then
    evaluated as with ``duplicates="error"`` (the same rows: the fast executors, no sort
    and dedupe), and the count is the one the :class:`~irframe.exceptions.DuplicatesWarning`
    reports.  None: not counted here (the small executor dedupes inside its one query)."""
    if opts.duplicates != "first" or not in_memory or n_rows is None or n_rows <= SMALL_ROWS:
        return None
    return count_repeats(run, cols.keys, cols.doc)


def _dup_probes(run: pl.LazyFrame, done: Executed, cols: RunColumns) -> tuple[pl.LazyFrame | None, ...]:
    """The duplicate probes still to collect, of the run and of the qrels."""
    run_probe = run.select(dup_probe([*cols.keys, cols.doc])) if done.check_run_probe else None
    q = done.inp.qrels
    if q is None or not done.check_qrels_probe:
        return run_probe, None
    return run_probe, q.select(dup_probe([*done.inp.qkeys, cols.doc]))


# --- small: one lazy query, collected once -------------------------------------------------
def _small(job: Job) -> Executed | None:
    """The whole plan as ONE lazy query, collected once on the in-memory engine: the rows
    joined and sorted into ranking order, the diagnostics and the kernels in ONE group_by,
    duplicates counted there (distinct documents per query), the judged queries joined."""
    comp, finals = job.compiled(inline_rn=not job.has_qrels)
    if job.lists_per_row(comp):
        return None
    cols, inp = job.cols, job.inp
    qstats = None
    if inp.qrels is not None:
        qstats = judged_table(inp.qrels, inp.qkeys, cols, comp, job.exp_gain, distinct=True)
    rows = join_qrels(inp, cols, job.opts, keep_order=False)
    if qstats is not None and comp.rn:
        rows = rows.join(qstats.select([*inp.qkeys, *sorted(comp.rn)]), on=inp.qkeys, how="left")
    by_order, desc = cols.ranking()
    keys = list(cols.keys)
    rows = rows.sort([*keys, *by_order], descending=[False] * len(keys) + desc, nulls_last=True)
    per_q = group_sorted(rows, inp, cols, comp, exp_gain=job.exp_gain)
    table = finish(per_q, qstats, comp, finals, cols=cols, partitions=job.partitions,
                   partition_values=job.partition_values, kernels_ran=True)  # fmt: skip
    # the duplicate probes, from the table: rows beyond the distinct documents (a judged
    # query of several systems counts once per system: a probe only needs to be 0 or not)
    known = {"run": (N_ROWS, DISTINCT)} if job.opts.duplicates == "error" else {}
    if qstats is not None:
        known["qrels"] = (Q_N, Q_DISTINCT)
    return Executed(
        "small", table.collect(engine="in-memory", optimizations=_ORDER_KEPT), inp, False, False, known
    )


# --- keyed: u64 keys put the rows in order (numpy) ------------------------------------------
@dataclass(frozen=True)
class _Keyed:
    inp: Inputs[pl.LazyFrame]  # in memory
    keyed: Keyed
    judged: pl.DataFrame | None  # the qrels' per-query table (None: no qrels)

    @property
    def computed(self) -> frozenset[str]:
        """The per-query columns the qrels' table already holds (its ``post`` columns too)."""
        return frozenset() if self.judged is None else frozenset(self.judged.columns)


def _keyed_executor(job: Job) -> Executed | None:
    comp, finals = job.compiled(inline_rn=not job.has_qrels)
    if job.lists_per_row(comp):
        return None
    fast = _keyed(job.inp, job.cols, comp, job.exp_gain)
    if fast is None:
        return None
    per_q = _group_keyed(fast.keyed, fast.inp, comp, fast.judged, job.exp_gain)
    judged = None if fast.judged is None else fast.judged.lazy()
    # (the keyed path's qrels table holds the per-query columns computed from it alone)
    table = finish(
        per_q, judged, comp, finals, cols=job.cols, partitions=job.partitions,
        partition_values=job.partition_values, kernels_ran=True, computed=fast.computed,
    )  # fmt: skip
    return Executed("keyed", table, fast.inp, False, False, {})


def _keyed(inp: Inputs[pl.LazyFrame], cols: RunColumns, comp: Compiler, exp_gain: bool) -> _Keyed | None:
    """The keyed fast path's ordered rows (``None``: the next executor must run).

    The inputs come back in memory (the later steps do not read them again), with the
    qrels' per-query table.  That table's group_by runs in the background, on polars'
    threads, while the rows are put in order (much of which is single-threaded numpy;
    see :mod:`~irframe._engine.background`).  Without qrels (grades on the run's rows)
    there is no join and no qrels table: the group_by over the ordered rows computes the
    judgments' columns too.
    """
    frames = [inp.rows] if inp.qrels is None else [inp.rows, inp.qrels]
    # one chunk each: gathers from a chunked column (a file read in batches) are slower
    # (benchmarks/results/decisions.md, keyed-executor)
    run, *rest = (f.rechunk() for f in pl.collect_all(frames))
    qrels = rest[0] if rest else None
    if not can_key(run, qrels, cols, inp.qkeys):
        return None
    with Background() as bg:
        judged = None
        if qrels is not None:
            judged = bg.start(judged_table(qrels.lazy(), inp.qkeys, cols, comp, exp_gain, with_post=True))
        keyed = _ordered(run, qrels, cols, inp.qkeys, bg)
        if keyed is None:
            return None
        in_memory = replace(inp, rows=run.lazy(), qrels=None if qrels is None else qrels.lazy())
        return _Keyed(in_memory, keyed, None if judged is None else judged.result())


def _ordered(
    run: pl.DataFrame, qrels: pl.DataFrame | None, cols: RunColumns, qkeys: Sequence[str], bg: Background
) -> Keyed | None:  # fmt: skip
    """The run's grades in ranking order, by the keyed path (``None``: fall back).

    A run already in ranking order keeps its order (no sort).  The duplicate probe and
    the joined ids' check run in ``bg``, beside the join and the sort.  Without qrels,
    the grades are the run's own (``K.REL``).
    """
    keys = list(cols.keys)
    gk, key = query_and_row_hashes(run, keys, cols.doc)
    is_distinct = bg.start(distinct_query(key))
    checks: tuple[Pending, ...] = ()
    if qrels is None:
        grades = run.get_column(K.REL).fill_null(float("nan"))  # (NaN: not judged, as joined)
    else:
        if keys != list(qkeys):
            key = run.select(combined_hash([*qkeys, cols.doc])).to_series()  # by partitions: not in the qrels
        joined = join_grades(run, qrels, qkeys, cols.doc, key, bg=bg)
        grades, checks = joined.grades, joined.checks
    del key
    keyed = segment_rows(run, cols, grades) or keyed_rows(run, cols, grades, gk)
    if keyed is None or not all(_true(check) for check in (is_distinct, *checks)):
        return None  # duplicates or a collision: the next executor's checks decide
    if cols.check_score is not None and scores_rise(run, cols, keyed) is not False:
        return None  # (a score rising along the ranks: the next executor reports it)
    return keyed


def _true(answer: Pending) -> bool:
    """A background 1x1 Boolean query's answer."""
    return bool(answer.result().item())


def _group_keyed(
    keyed: Keyed, inp: Inputs[pl.LazyFrame], comp: Compiler, qstats: pl.DataFrame | None, exp_gain: bool
) -> pl.LazyFrame:  # fmt: skip
    """ONE group_by over the keyed rows (sorted GID): the diagnostics and the kernels
    (without qrels, ``qstats`` is None: the judgments' columns too, as in the general plan)."""
    rows, groups = keyed.rows, keyed.groups
    if qstats is not None and comp.rn:
        rn = groups.join(
            qstats.select([*inp.qkeys, *sorted(comp.rn)]), on=inp.qkeys, how="left", maintain_order="left"
        )
        gid = rows.get_column(KGID)
        rows = rows.with_columns(rn.get_column(c).gather(gid) for c in sorted(comp.rn))
    # (the lazy engine: faster than the eager group_by, decisions.md, keyed-executor)
    grouped = rows.lazy().group_by(KGID, maintain_order=True)
    in_run = judged_in_run(comp, exp_gain) if qstats is None else {}
    per_q = grouped.agg(pl.len().alias(N_ROWS), **in_run, **comp.ranked).collect()
    zero = pl.lit(0, dtype=pl.UInt32)
    return (
        groups.hstack(per_q.drop(KGID).get_columns())
        .with_columns(zero.alias(N_BAD), zero.alias(N_NULLDOC), pl.lit(True).alias(IN_RUN))
        .lazy()
    )


# --- presorted: rows already in ranking order are kept ---------------------------------------
def _presorted(job: Job) -> Executed | None:
    """Each query's rows already in ranking order and contiguous (a search log's usual
    shape): one pass detects it, the kernels run in ONE group_by, nothing is sorted."""
    comp, finals = job.compiled(inline_rn=not job.has_qrels)
    if job.lists_per_row(comp):
        return None
    segments = _ordered_segments(job.inp.rows, job.cols)
    if segments is None:
        return None
    qstats = None
    if job.inp.qrels is not None:
        qstats = judged_table(job.inp.qrels, job.inp.qkeys, job.cols, comp, job.exp_gain)
    rows = join_qrels(job.inp, job.cols, job.opts, keep_order=True).collect(engine="in-memory")
    per_q = group_ordered(rows, job.inp, job.cols, comp, qstats, exp_gain=job.exp_gain)
    if per_q.height != segments:
        return None  # runs of equal keys that are not whole queries: the input is not grouped
    table = finish(per_q.lazy(), qstats, comp, finals, cols=job.cols, partitions=job.partitions,
                   partition_values=job.partition_values, kernels_ran=True)  # fmt: skip
    return Executed("presorted", table, job.inp, True, True, {})


def _ordered_segments(rows: pl.LazyFrame, cols: RunColumns) -> int | None:
    """If each query's rows already follow ranking order, the number of runs of equal keys.

    One vectorised pass comparing each row with the previous one.  Whether the runs are
    whole queries (keys contiguous) is verified after the group_by (:func:`_presorted`).
    """
    same = pl.all_horizontal((pl.col(k) == pl.col(k).shift(1)).fill_null(False) for k in cols.keys)
    o, d = pl.col(cols.order_col), pl.col(cols.doc)
    worse = o < o.shift(1) if cols.order == "rank" else o > o.shift(1)
    out_of_order = same & (worse | ((o == o.shift(1)) & (d > d.shift(1))))
    res = rows.select(
        out_of_order.any().alias("bad"), (~same).sum().alias("segments"), pl.len().alias("n")
    ).collect()
    if res.item(0, "bad") or res.item(0, "n") == 0:
        return None
    return int(res.item(0, "segments"))


# --- general: lazy, a sort per group ---------------------------------------------------------
def _general(job: Job) -> Executed:
    """The lazy plan: join once, sort each query's grades in its group, explode, kernels."""
    comp, finals = job.compiled(inline_rn=False)
    qstats = None
    if job.inp.qrels is not None:
        qstats = judged_table(job.inp.qrels, job.inp.qkeys, job.cols, comp, job.exp_gain)
    rows = join_qrels(job.inp, job.cols, job.opts, keep_order=False)
    per_q = group_ranked(rows, job.inp, job.cols, comp, job.exp_gain)
    table = finish(per_q, qstats, comp, finals, cols=job.cols, partitions=job.partitions,
                   partition_values=job.partition_values, kernels_ran=False)  # fmt: skip
    return Executed("general", table, job.inp, job.opts.duplicates == "error", True, {})


def _small_applies(job: Job) -> bool:
    return job.in_memory and job.n_rows is not None and job.n_rows <= SMALL_ROWS


STRATEGIES: tuple[Strategy, ...] = (
    Strategy("small", f"in memory, at most SMALL_ROWS ({SMALL_ROWS:,}) rows", _small_applies, _small),
    Strategy("keyed", "in memory, duplicates='error', USE_KEYED",
             lambda j: USE_KEYED and j.in_memory and j.opts.duplicates == "error", _keyed_executor),
    Strategy("presorted", "in memory, duplicates='error', no rank/score check, rows already in order",
             lambda j: j.in_memory and j.opts.duplicates == "error" and not j.cols.check_score, _presorted),
    Strategy("general", "always", lambda j: True, _general),
)  # fmt: skip
