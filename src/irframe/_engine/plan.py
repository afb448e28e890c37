"""The plan: prepare once (join, order), ONE ``group_by(keys).agg`` for every measure.

Data flow, all in one lazy polars plan::

    run ─┐
         ├─ left join on (query, doc) ─ group_by(keys): grades in ranking order
    qrels┘                                                     │
    qrels ─ group_by(query).agg(R, N, ideal DCG ...) ──────────┴─ full join on query
                                                           → kernels → measures per query

What happens to the edge cases is decided here, once:

- a qrels query absent from the run (``missing``): ``"zero"`` scores it 0 and counts it
  (trec_eval ``-c``); ``"drop"`` leaves it out; ``"error"`` raises.  Either way it is
  counted in ``n_missing``.
- a run query with no judgments: not judged, so its measures are null; it is excluded
  from the means and counted in ``n_unjudged``.
- a judged query with no relevant document: every measure is 0 and it counts.
- an empty run is normal: every judged query is missing from it (see
  :func:`~irframe._engine.aggregate.check_not_empty` for the one empty input refused).
- ``by`` columns that the qrels also carry are query attributes (join keys); the others
  partition the run (systems), and missing queries are filled in per partition.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import polars as pl

from irframe import kernels as K
from irframe._engine.background import Background, Pending
from irframe._engine.compiler import N_ROWS, PREFIX, Compiler, compile_all
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
    surplus_rows,
)  # fmt: skip
from irframe._input.columns import RunColumns
from irframe._input.options import Missing, Options
from irframe.measures import Measure

USE_KEYED = True  # the keyed fast path for in-memory input (off: the general plan only)

__all__ = [
    "DISAGREE", "GID", "IN_RUN", "JUDGED", "MAX_GRADE", "N_BAD", "N_INF", "N_NULLDOC", "Q_N", "Q_NULL",
    "Plan", "build_plan", "exp_gain_labels", "ids_compare_as_is",
]  # fmt: skip

N_BAD = PREFIX + "nbad"
N_NULLDOC = PREFIX + "nnulldoc"
N_INF = PREFIX + "ninf"
Q_N = PREFIX + "qn"
Q_NULL = PREFIX + "qnull"
IN_RUN = PREFIX + "in_run"
RANKED = PREFIX + "ranked"
GID = PREFIX + "gid"
JUDGED = PREFIX + "judged"
DISAGREE = PREFIX + "disagree"  # order="auto", rank and score: the score rises along the ranks
MAX_GRADE = PREFIX + "maxgrade"  # per query, only when an exp-gain measure is asked


@dataclass(frozen=True)
class Plan:
    """A lazy per-query table with diagnostics, and what is needed to finish it."""

    frame: pl.LazyFrame
    cols: RunColumns
    measures: tuple[tuple[str, Measure], ...]
    allow_empty: bool
    dup_probe: pl.LazyFrame | None  # 1x1: rows minus distinct (keys, doc) hashes
    qrels_probe: pl.LazyFrame | None  # the same for the qrels (None: proven distinct)
    qrels_rows: pl.LazyFrame | None  # the prepared qrels (query, doc, grade) ...
    qrels_keys: tuple[str, ...]  # ... and their per-query keys, for the duplicate check
    n_segments: int | None  # presorted plan: runs of equal keys found by the order check
    slow: Callable[[], Plan] | None  # the general plan, if the presorted one must be redone
    partitions: tuple[str, ...]  # by-columns that partition the run (systems)
    missing: Missing
    run: pl.LazyFrame
    qrels_query: str
    read: tuple[tuple[str, ...], tuple[str, ...]]  # the run's and the qrels' columns the plan reads
    grade_col: str  # where the grades come from: the qrels' relevance column, or the run's
    exp_gain: tuple[str, ...]  # labels of the measures using the exp gain (2^grade - 1)

    @property
    def keys(self) -> tuple[str, ...]:
        return self.cols.keys

    @property
    def labels(self) -> tuple[str, ...]:
        """The output column names, the caller's spellings of the measures."""
        return tuple(label for label, _ in self.measures)

    @property
    def has_qrels(self) -> bool:
        return self.qrels_rows is not None


@dataclass(frozen=True)
class _Inputs:
    """The run rows (ids of one dtype, grade column ``K.REL`` without qrels) and qrels."""

    rows: pl.LazyFrame
    qrels: pl.LazyFrame | None  # renamed to the run's id columns, grade in ``K.REL``
    qkeys: list[str]  # the qrels' per-query keys: query attributes, then the query
    qrels_by: list[str]  # by-columns the qrels carry (query attributes)
    schema: pl.Schema  # the run's schema (selected columns)
    qrels_query: str
    qrels_read: tuple[str, ...]  # the qrels' columns read (their own names)


def ids_compare_as_is(run_dtype: pl.DataType, qrels_dtype: pl.DataType) -> bool:
    """Whether run and qrels ids of these dtypes are compared as they are; otherwise both
    are compared as strings.  Equal dtypes stay, except categoricals and enums (their
    codes are not comparable between two frames)."""
    return run_dtype == qrels_dtype and run_dtype != pl.Categorical and not isinstance(run_dtype, pl.Enum)


def _harmonize_ids(
    run: pl.LazyFrame, qrels: pl.LazyFrame, pairs: Sequence[tuple[str, str]]
) -> tuple[pl.LazyFrame, pl.LazyFrame]:
    """Give run and qrels id columns one dtype (:func:`ids_compare_as_is`, else str)."""
    rs, qs = run.collect_schema(), qrels.collect_schema()
    for rc, qc in pairs:
        if ids_compare_as_is(rs[rc], qs[qc]):
            continue
        run = run.with_columns(pl.col(rc).cast(pl.String))
        qrels = qrels.with_columns(pl.col(qc).cast(pl.String))
    return run, qrels


def _prepare(
    run: pl.LazyFrame, cols: RunColumns, qrels: pl.LazyFrame | None, qrels_cols: tuple[str, str, str] | None
) -> _Inputs:
    """Only the columns needed, ids of one dtype, integer doc ids as strings (tie order)."""
    select = [*cols.keys, cols.doc, cols.order_col]
    if cols.check_score is not None:
        select.append(cols.check_score)
    if cols.relevance is not None:
        select.append(cols.relevance)
    rows = run.select(list(dict.fromkeys(select)))
    schema = rows.collect_schema()
    q: pl.LazyFrame | None = None
    qrels_by: list[str] = []
    qq = cols.query
    qrels_read: list[str] = []
    if qrels is not None and qrels_cols is not None:
        qq, qd, qr = qrels_cols
        qrels_by = [b for b in cols.by if b in qrels.collect_schema()]
        qrels_read = list(dict.fromkeys([*qrels_by, qq, qd, qr]))
        q = (
            qrels.select(qrels_read)
            .rename({qq: cols.query, qd: cols.doc})
            .with_columns(pl.col(qr).cast(pl.Float64).fill_nan(None).alias(K.REL))
        )
        rows, q = _harmonize_ids(rows, q, [(c, c) for c in (*qrels_by, cols.query, cols.doc)])
    else:
        # a NaN grade is no grade (pandas reads missing values as NaN): not judged
        rows = rows.with_columns(pl.col(str(cols.relevance)).cast(pl.Float64).fill_nan(None).alias(K.REL))
    if schema[cols.doc].is_integer():
        # the ranking rule breaks ties by the doc id as a string ("9" ranks above "10")
        rows = rows.with_columns(pl.col(cols.doc).cast(pl.String))
        if q is not None:
            q = q.with_columns(pl.col(cols.doc).cast(pl.String))
    return _Inputs(rows, q, [*qrels_by, cols.query], qrels_by, schema, qq, tuple(qrels_read))


def _join_grades(inp: _Inputs, cols: RunColumns, opts: Options, presorted: bool) -> pl.LazyFrame:
    """The grades joined onto the run rows once; ``duplicates="first"`` dedupes here."""
    rows = inp.rows
    if inp.qrels is not None:
        rows = rows.join(
            inp.qrels.select([*inp.qkeys, cols.doc, K.REL]),
            on=[*inp.qkeys, cols.doc],
            how="left",
            maintain_order="left" if presorted else "none",
        )
    if opts.duplicates == "first":
        # keep the best-ranked row of a repeated document: order first, then dedupe
        by_order, desc = cols.ranking()
        rows = rows.sort(by_order, descending=desc, nulls_last=True).unique(
            subset=[*cols.keys, cols.doc], keep="first", maintain_order=True
        )
    return rows


def _qrels_stats(inp: _Inputs, cols: RunColumns, comp: Compiler, exp_gain: bool) -> pl.LazyFrame | None:
    """Per judged query: counts for the input checks and the measures' denominators."""
    return None if inp.qrels is None else _judged_table(inp.qrels, inp.qkeys, cols, comp, exp_gain)


def _judged_table(
    qrels: pl.LazyFrame, qkeys: Sequence[str], cols: RunColumns, comp: Compiler, exp_gain: bool,
    *, with_post: bool = False,
) -> pl.LazyFrame:  # fmt: skip
    """:func:`_qrels_stats` of these qrels; ``with_post``: also the measures' per-query
    columns computed from this table's columns alone (e.g. IDCG@k from the sorted gains),
    which :func:`build_plan` then does not compute again."""
    rel = pl.col(K.REL)
    aggs = {
        Q_N: pl.len(),
        Q_NULL: rel.null_count() + rel.is_infinite().sum() + pl.col(cols.doc).null_count(),
        JUDGED: pl.lit(True),
        **({MAX_GRADE: rel.max()} if exp_gain else {}),
        **comp.dens,
    }
    table = qrels.group_by(qkeys).agg(**aggs)
    if not with_post:
        return table
    names = {*qkeys, *aggs}
    own = {k: e for k, e in comp.post.items() if set(e.meta.root_names()) <= names}
    return table.with_columns(**own) if own else table


def _diagnostics(inp: _Inputs, cols: RunColumns) -> dict[str, pl.Expr]:
    """Per run query: rows, and the rows that cannot be ranked or identified."""
    order_col = pl.col(cols.order_col)
    bad = order_col.is_null().sum()
    if inp.schema[cols.order_col].is_float():
        bad = bad + order_col.is_nan().sum()
    return {N_ROWS: pl.len(), N_BAD: bad, N_NULLDOC: pl.col(cols.doc).null_count()}


def _judged_in_run(comp: Compiler, exp_gain: bool) -> dict[str, pl.Expr]:
    """Without qrels, per run query from its own grades (``K.REL``, null: not judged):
    whether it is judged, the measures' denominators, the infinite grades (an error) and,
    for exp gains, the largest grade.  The keyed path and a presorted run compute them
    in the group_by over each query's ordered rows, so their kernels read the judgments
    there too (compiled ``inline_rn``); the general plan's explode carries them."""
    rel = pl.col(K.REL)
    out = {JUDGED: rel.is_not_null().any(), **comp.dens, N_INF: rel.is_infinite().sum()}
    return {**out, MAX_GRADE: rel.max()} if exp_gain else out


def exp_gain_labels(measures: Sequence[tuple[str, Measure]]) -> tuple[str, ...]:
    """The measures whose gain is ``2^grade - 1``, which overflows for large grades."""
    return tuple(label for label, m in measures if m.params.get("gain") == "exp")


def _group_run(
    rows: pl.LazyFrame, inp: _Inputs, cols: RunColumns, comp: Compiler, *, qstats: pl.LazyFrame | None,
    presorted: bool, exp_gain: bool,
) -> pl.LazyFrame:  # fmt: skip
    """ONE group_by over the run: ranked grades (or, presorted, the kernels themselves)."""
    keys = list(cols.keys)
    diag = _diagnostics(inp, cols)
    if cols.check_score is not None:
        # a score that rises from one rank to a later one.  Sorted by rank, then score
        # descending within tied ranks, a rise between neighbours is exactly that (within a
        # tie group the scores fall).  Never presorted (build_plan): a neighbour-only check
        # of rows in rank order misses a rise hidden by a tie group's doc-id order.
        # NaN and null scores do not count as a rise.
        score = pl.col(cols.check_score).cast(pl.Float64).fill_nan(None)
        diag[DISAGREE] = (
            score.sort_by([pl.col(cols.order_col), score], descending=[False, True]).diff() > 0
        ).any()
    in_run_dens = _judged_in_run(comp, exp_gain) if inp.qrels is None else {}
    if presorted:
        if qstats is not None and comp.rn:
            rows = rows.join(
                qstats.select([*inp.qkeys, *sorted(comp.rn)]), on=inp.qkeys, how="left", maintain_order="left"
            )
        # Materialise the ordered rows: the lazy optimiser may drop a join's
        # maintain_order when the consumer is a group_by, but a DataFrame's row order is
        # kept within groups (and presorted input is in memory anyway).
        rows = rows.collect(engine="in-memory").lazy()
        per_q = rows.group_by(keys, maintain_order=True).agg(**diag, **in_run_dens, **comp.ranked)
    else:
        by_order, desc = cols.ranking()
        per_q = rows.group_by(keys).agg(
            pl.col(K.REL).sort_by(by_order, descending=desc).alias(RANKED), **diag, **in_run_dens
        )
    return per_q.with_columns(pl.lit(True).alias(IN_RUN))


def _keyed(inp: _Inputs, cols: RunColumns, comp: Compiler, exp_gain: bool) -> _Keyed | None:
    """The keyed fast path's ordered rows (``None``: the general plan must run).

    The inputs come back in memory (the later steps do not read them again), with the
    qrels' per-query table.  That table's group_by runs in the background, on polars'
    threads, while the rows are put in order (much of which is single-threaded numpy;
    see :mod:`~irframe._engine.background`).  Not for list-valued judgments read by
    ranking kernels from the qrels (copied onto every row, they would cost rows x
    judgments).  Without qrels (grades on the run's rows) there is no join and no qrels
    table: the group_by over the ordered rows computes the judgments' columns too.
    """
    frames = [inp.rows] if inp.qrels is None else [inp.rows, inp.qrels]
    # one chunk each: gathers from a chunked column (a file read in batches) are ~5x slower
    run, *rest = (f.rechunk() for f in pl.collect_all(frames))
    qrels = rest[0] if rest else None
    if not can_key(run, qrels, cols, inp.qkeys):
        return None
    with Background() as bg:
        judged = None
        if qrels is not None:
            judged = bg.start(_judged_table(qrels.lazy(), inp.qkeys, cols, comp, exp_gain, with_post=True))
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
        return None  # duplicates or a collision: the general plan's checks decide
    if cols.check_score is not None and scores_rise(run, cols, keyed) is not False:
        return None  # (a score rising along the ranks: the general plan reports it)
    return keyed


def _true(answer: Pending) -> bool:
    """A background 1x1 Boolean query's answer."""
    return bool(answer.result().item())


@dataclass(frozen=True)
class _Keyed:
    inp: _Inputs  # in memory
    keyed: Keyed
    judged: pl.DataFrame | None  # the qrels' per-query table (None: no qrels)

    @property
    def computed(self) -> frozenset[str]:
        """The per-query columns the qrels' table already holds (its ``post`` columns too)."""
        return frozenset() if self.judged is None else frozenset(self.judged.columns)


def _group_keyed(
    keyed: Keyed, inp: _Inputs, comp: Compiler, qstats: pl.DataFrame | None, exp_gain: bool
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
    # (the lazy engine: ~4 of 29 ms less than the eager group_by at 1e6 rows)
    grouped = rows.lazy().group_by(KGID, maintain_order=True)
    in_run = _judged_in_run(comp, exp_gain) if qstats is None else {}
    per_q = grouped.agg(pl.len().alias(N_ROWS), **in_run, **comp.ranked).collect()
    zero = pl.lit(0, dtype=pl.UInt32)
    return (
        groups.hstack(per_q.drop(KGID).get_columns())
        .with_columns(zero.alias(N_BAD), zero.alias(N_NULLDOC), pl.lit(True).alias(IN_RUN))
        .lazy()
    )


def _per_query(
    inp: _Inputs, cols: RunColumns, comp: Compiler, opts: Options, *, presorted: bool, fast: _Keyed | None,
    exp_gain: bool,
) -> tuple[pl.LazyFrame, pl.LazyFrame | None]:  # fmt: skip
    """The run's per-query table (keyed path or general plan) and the qrels' one."""
    if fast is not None:
        judged = None if fast.judged is None else fast.judged.lazy()
        return _group_keyed(fast.keyed, inp, comp, fast.judged, exp_gain), judged
    qstats = _qrels_stats(inp, cols, comp, exp_gain)
    rows = _join_grades(inp, cols, opts, presorted)
    per_q = _group_run(rows, inp, cols, comp, qstats=qstats, presorted=presorted, exp_gain=exp_gain)
    return per_q, qstats


def _with_expected(
    per_q: pl.LazyFrame, qstats: pl.LazyFrame | None, cols: RunColumns, *, partitions: tuple[str, ...],
    partition_values: pl.LazyFrame | None,
) -> pl.LazyFrame:  # fmt: skip
    """Join the judged queries in (full join: the missing queries appear here)."""
    if qstats is None:
        return per_q
    expected = qstats
    if partitions:
        # every partition (system) is expected to answer every judged query; the
        # partition values come from the run unless given (a bucket of a larger run)
        if partition_values is None:
            partition_values = per_q.select(list(partitions)).unique()
        expected = partition_values.select(list(partitions)).join(qstats, how="cross")
    return per_q.join(expected, on=list(cols.keys), how="full", coalesce=True)


def _run_kernels(table: pl.LazyFrame, comp: Compiler, presorted: bool) -> pl.LazyFrame:
    """The ranking kernels over each query's ordered grades, grouped by an integer id."""
    if presorted:
        return table
    if not comp.ranked:
        return table.drop(RANKED)
    # list columns (cumulative sums over the judgments) skip the explode, which would copy
    # them onto every ranked row; only the ones a ranking kernel reads go through
    aside = [c for c in comp.lists if c in comp.dens and c not in comp.rn]
    others = [c for c in table.collect_schema() if c != RANKED and c not in aside]
    table = table.with_row_index(GID)
    out = (
        table.drop(aside)
        .explode(RANKED)
        .rename({RANKED: K.REL})
        .group_by(GID, maintain_order=True)
        .agg(pl.col(others).first(), **comp.ranked)
    )
    if aside:
        out = out.join(table.select(GID, *aside), on=GID, how="left", maintain_order="left")
    return out.drop(GID)


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
) -> Plan:
    """Build the lazy plan that computes every measure of every query.

    1. the run's needed columns, left-joined once with the grades;
    2. ONE ``group_by(keys)``: each query's grades sorted into ranking order (a short
       per-group sort, much cheaper than a global sort on string keys), plus input
       diagnostics (and, without qrels, the denominators);
    3. the per-query denominators from the qrels, joined per query (full join: missing
       queries appear here);
    4. the ranked grades exploded in place and aggregated by an integer group id: every
       kernel runs on ordered rows with the query's R and N at hand.

    With ``detect_order`` (in-memory input), a run whose rows are already in ranking
    order within each query (the usual shape of a search log) is detected with one cheap
    pass and not re-sorted.  In-memory input takes the keyed path first
    (:mod:`~irframe._engine.keyed`, with qrels or with grades on the run's rows), which
    keeps such an order too; both run the kernels in the group_by of step 2.
    """
    inp = _prepare(run, cols, qrels, qrels_cols)
    eager = detect_order and opts.duplicates == "error"
    keyed = USE_KEYED and eager
    comp, finals = compile_all(measures, inline_rn=keyed and qrels is None)  # (see _judged_in_run)
    exp_gain = exp_gain_labels(measures)
    fast = _keyed(inp, cols, comp, bool(exp_gain)) if keyed and (qrels is None or not comp.rn_lists) else None
    # (a rank and a score to check against each other: the sorted plan's check is exact)
    n_segments = (
        _ordered_segments(inp.rows, cols) if eager and fast is None and not cols.check_score else None
    )
    presorted = n_segments is not None
    inline = qrels is None and (fast is not None or presorted)  # (compiled again on a fallback)
    if comp.inline_rn != inline:
        comp, finals = compile_all(measures, inline_rn=inline)
    if presorted and comp.rn_lists and qrels is not None:
        # the judged grades as a list on every run row would cost rows x judgments
        again = {"partition_values": partition_values, "allow_empty": allow_empty}
        return build_plan(run, cols, measures, qrels, qrels_cols, opts=opts, **again)  # type: ignore[arg-type]
    if fast is not None:
        inp = fast.inp
    per_q, qstats = _per_query(inp, cols, comp, opts, presorted=presorted, fast=fast, exp_gain=bool(exp_gain))
    done = presorted or fast is not None  # the kernels ran in the group_by
    partitions = tuple(b for b in cols.by if b not in inp.qrels_by)
    table = _with_expected(
        per_q, qstats, cols, partitions=partitions, partition_values=partition_values
    ).with_columns(
        pl.col(IN_RUN).fill_null(False),
        pl.col(JUDGED).fill_null(False),
        pl.col([N_ROWS, *comp.scalar(comp.dens), *(comp.scalar(comp.ranked) if done else ())]).fill_null(0),
    )
    table = _run_kernels(table, comp, done)
    # (the keyed path's qrels table holds the per-query columns computed from it alone)
    post = {k: e for k, e in comp.post.items() if fast is None or k not in fast.computed}
    if post:
        table = table.with_columns(**post)
    table = table.with_columns(
        pl.when(pl.col(JUDGED)).then(expr).otherwise(None).alias(label) for label, expr in finals.items()
    )
    probes = _dup_probes(run, inp, cols, check_run=opts.duplicates == "error" and fast is None, keyed=fast)

    def slow() -> Plan:
        again = {"opts": opts, "partition_values": partition_values, "allow_empty": allow_empty}
        return build_plan(run, cols, measures, qrels, qrels_cols, **again)  # type: ignore[arg-type]

    return Plan(
        frame=table,
        cols=cols,
        measures=tuple(measures),
        allow_empty=allow_empty,
        dup_probe=probes[0],
        qrels_probe=probes[1],
        qrels_rows=inp.qrels,
        qrels_keys=tuple(inp.qkeys),
        n_segments=n_segments,
        slow=slow if presorted else None,
        partitions=partitions,
        missing=opts.missing,
        run=run,
        qrels_query=inp.qrels_query,
        read=(tuple(inp.schema.names()), inp.qrels_read),
        grade_col=qrels_cols[2] if qrels_cols is not None else str(cols.relevance),
        exp_gain=exp_gain,
    )


def _dup_probes(
    run: pl.LazyFrame, inp: _Inputs, cols: RunColumns, *, check_run: bool, keyed: _Keyed | None
) -> tuple[pl.LazyFrame | None, pl.LazyFrame | None]:  # fmt: skip
    """The duplicate probes of the run and the qrels (the keyed path proved both distinct)."""
    run_probe = run.select(dup_probe([*cols.keys, cols.doc])) if check_run else None
    if inp.qrels is None or keyed is not None:
        return run_probe, None
    return run_probe, inp.qrels.select(dup_probe([*inp.qkeys, cols.doc]))


def _ordered_segments(rows: pl.LazyFrame, cols: RunColumns) -> int | None:
    """If each query's rows already follow ranking order, the number of runs of equal keys.

    One vectorised pass comparing each row with the previous one. Whether the runs are
    whole queries (keys contiguous) is verified after the group_by by ``collect``.
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


def dup_probe(cols: Sequence[str]) -> pl.Expr:
    """Rows minus distinct row hashes of ``cols`` (:func:`~irframe._engine.keyed.surplus_rows`)."""
    return surplus_rows(combined_hash(cols))
