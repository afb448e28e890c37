"""The diversity evaluator: intent-aware measures on subtopic qrels, beside the main plan.

One seam (:func:`split` before the main plan, :func:`attach` after it): the diversity
measures (kind ``"diversity"``, :mod:`irframe.measures.diversity`) are taken out of the
measure list; the main plan evaluates the others, and makes the per-query table with its
flags (``in_run``, ``judged``) and its input checks (duplicates, missing queries, the
ranking column...) as for any call; the diversity values are then joined onto that
table by the query keys.  So missing queries, unjudged queries, ``by=`` (systems and
query attributes), the means and ``n_queries``/``n_missing``/``n_unjudged`` follow the
main engine's rules (:mod:`~irframe._engine.plan`, :mod:`~irframe._engine.aggregate`):
a judged query missing from the run scores 0 (``missing="zero"``), a run query without
judgments is null and left out.  With only diversity measures, the main plan evaluates
``NumRet`` for its flags and checks (the column is not shown) over the qrels with one row
per (query, document): no measure reads those grades.

The two readings that are not guessed:

- A diversity measure without a subtopic column in the qrels raises
  :class:`~irframe.exceptions.ColumnNotFoundError` naming ``read_trec_qrels(...,
  subtopics=True)`` and ``qrels_subtopic_col``; without qrels it raises too.
- The other measures read the qrels as trec_eval does (query, doc, relevance: trec_eval
  ignores the second field).  Subtopic qrels that judge a document for several subtopics
  hold several rows per (query, document), which trec_eval refuses as duplicates: so
  does irframe, with :class:`~irframe.exceptions.DuplicateRowsError` naming the two ways
  out (evaluate the diversity measures apart from ad hoc qrels, or collapse the subtopics
  explicitly, e.g. to the largest grade, ndeval's "relevant to any subtopic").  When
  every (query, document) occurs once, they are evaluated with the diversity measures.

The computation is vectorised polars over (query, subtopic, rank) rows: one join of the
ranked run with the relevant judgments, a rank within each (query, subtopic), one
``group_by`` per variant of the measures (``rel``, ``judged_only``).  The greedy ideal
ranking is a loop over rank positions (up to the largest cutoff asked, or nNRBP's depth,
and never past the most judged documents of a query), each step vectorised with numpy
over every query at once: O(depth x judgments).  The run is read whole, in memory (a
lazy run is collected when the result is, through ``map_batches``); on a partitioned
backend, one partition of whole queries at a time (:mod:`irframe._engine.compose`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import polars as pl

from irframe._engine.plan import JUDGED, Plan, at_depth, ids_compare_as_is
from irframe._input.columns import RunColumns
from irframe._input.frames import to_lazy
from irframe._input.options import Options

if TYPE_CHECKING:
    import numpy as np
from irframe.exceptions import (
    ColumnNotFoundError,
    DuplicateRowsError,
    InvalidDataError,
    InvalidParameterError,
)
from irframe.measures import Measure, parse_measures
from irframe.measures._parse import Parsed
from irframe.measures.diversity import GAIN, KERNELS, RANK, SEEN, SUB_REL, is_diversity

__all__ = ["Split", "attach", "ideal_gains", "split"]

FLAGS_ONLY = "NumRet"  # what the main plan computes when only diversity measures are asked
_SUB = "__div_sub"
_REL = "__div_rel"
_A = "__div_a"
_DOC = "__div_doc"
_Q = "__div_q"
TIE = 1e-12  # see irframe.measures.diversity: relative closeness of tied ideal gains


@dataclass(frozen=True)
class Split:
    """The measures and qrels for the main plan, and the diversity measures set apart."""

    main: Parsed  # what the main plan evaluates (FLAGS_ONLY alone: none asked)
    qrels: Any  # the qrels the main plan reads
    measures: tuple[tuple[str, Measure], ...]  # every measure asked, in the caller's order
    diversity: tuple[tuple[str, Measure], ...]
    subtopics: pl.LazyFrame | None  # the caller's qrels (with their subtopic column)


def split(measures: Any, qrels: Any, opts: Options, run_names: Sequence[str]) -> Split | None:
    """Set the diversity measures apart (None: there are none, nothing changes)."""
    parsed = parse_measures(measures)
    div = tuple((label, m) for label, m in parsed if is_diversity(m))
    if not div:
        return None
    main = Parsed((label, m) for label, m in parsed if not is_diversity(m))
    labels = [label for label, _ in main]
    if qrels is None:
        msg = (
            f"The diversity measures {[label for label, _ in div]} need subtopic qrels (query, "
            "subtopic, doc, relevance). Hint: pass qrels=read_trec_qrels(path, subtopics=True)."
        )
        raise InvalidParameterError(msg)
    lf = to_lazy(qrels, "qrels")[0]
    opts = opts.detect(list(run_names), qrels_schema=lf.collect_schema().names())
    qq, qd, _ = opts.qrels_columns
    names = lf.collect_schema().names()
    sub = opts.qrels_subtopic_col
    if sub not in names:
        msg = (
            f"{div[0][0]} is a diversity measure: it reads the qrels' subtopic column {sub!r}, which "
            f"the qrels lack (their columns: {names}). Hint: read the qrels with "
            "irframe.read_trec_qrels(path, subtopics=True) (the second field as 'subtopic'), or name "
            "the column: qrels_subtopic_col='...'."
        )
        raise ColumnNotFoundError(msg)
    pair = [*(b for b in opts.by if b in names), qq, qd]
    if labels:
        _check_one_row_per_doc(lf, pair, [label for label, _ in div], labels)
        main_qrels: Any = qrels
    else:
        main = parse_measures(FLAGS_ONLY)
        main_qrels = lf.unique(subset=pair, keep="first", maintain_order=True)
    return Split(main, main_qrels, tuple(parsed), div, lf)


def _check_one_row_per_doc(lf: pl.LazyFrame, pair: list[str], div: list[str], other: list[str]) -> None:
    repeated = lf.group_by(pair).len().filter(pl.col("len") > 1).head(3).collect()
    if repeated.height:
        shown = ", ".join(str(r) for r in repeated.select(pair).rows())
        msg = (
            f"The qrels judge a document for several subtopics ({shown}): the diversity measures "
            f"{div} read them so, but {other} read one grade per (query, document), as trec_eval "
            "does, and would see duplicate judgments. Hint: evaluate the diversity measures in a "
            "call of their own, and the others with ad hoc qrels; or collapse the subtopics "
            "explicitly, e.g. qrels.group_by([query, doc]).agg(pl.col(relevance).max()) (relevant "
            "to any subtopic, ndeval's reading)."
        )
        raise DuplicateRowsError(msg)


def attach(
    plan: Plan, table: pl.LazyFrame, parts: Split, run: pl.LazyFrame, opts: Options
) -> tuple[Plan, pl.LazyFrame]:
    """The main plan's per-query table with the diversity measures' columns joined on.

    Computed when ``table`` is collected, after the main plan's input checks.
    """
    schema = table.collect_schema()
    opts = opts.detect(run.collect_schema().names(), qrels_schema=parts.subtopics.collect_schema().names())  # type: ignore[union-attr]
    labels = [label for label, _ in parts.diversity]

    def add(df: pl.DataFrame) -> pl.DataFrame:
        values = _values(run, parts.subtopics, plan, opts, parts.diversity)  # type: ignore[arg-type]
        keys = list(plan.keys)
        values = values.with_columns(pl.col(k).cast(df.schema[k]) for k in keys)
        out = df.drop([c for c in labels if c in df.columns]).join(
            values, on=keys, how="left", nulls_equal=True
        )
        judged = pl.col(JUDGED)
        return out.with_columns(pl.when(judged).then(pl.col(c).fill_null(0.0)).alias(c) for c in labels)

    out_schema = pl.Schema([*schema.items(), *((label, pl.Float64) for label in labels)])
    frame = table.map_batches(
        add, schema=out_schema, predicate_pushdown=False, projection_pushdown=False, slice_pushdown=False
    )
    return replace(plan, measures=parts.measures), frame


# --- inputs -----------------------------------------------------------------------------
@dataclass(frozen=True)
class _Prepared:
    run: pl.DataFrame  # keys, doc (str), rank (1-based), in ranking order
    qrels: pl.DataFrame  # qkeys, subtopic, doc (str), grade (f64)
    keys: list[str]
    qkeys: list[str]


def _prepare(run: pl.LazyFrame, qrels: pl.LazyFrame, plan: Plan, opts: Options) -> _Prepared:
    cols: RunColumns = plan.cols
    run = at_depth(run, cols, opts)  # (the main plan's cut: trec_eval's -M)
    keys, qkeys = list(cols.keys), list(plan.qrels_keys)
    qq, qd, qr = opts.qrels_columns
    sub = opts.qrels_subtopic_col
    q = qrels.select(
        *qkeys[:-1], pl.col(qq).alias(cols.query), pl.col(sub).alias(_SUB), pl.col(qd).alias(cols.doc),
        pl.col(qr).cast(pl.Float64).alias(_REL),
    ).collect()  # fmt: skip
    by_order, desc = cols.ranking()
    r = run.select(*keys, cols.doc, *(e for e in by_order if e.meta.output_name() != cols.doc)).collect()
    rs, qs = r.schema, q.schema
    for c in (*qkeys, cols.doc):
        if not ids_compare_as_is(rs[c], qs[c]) or rs[c].is_integer():
            r = r.with_columns(pl.col(c).cast(pl.String))
            q = q.with_columns(pl.col(c).cast(pl.String))
    _check_qrels(q, qkeys, cols.doc, opts)
    r = r.sort([*keys, *by_order], descending=[False] * len(keys) + desc, nulls_last=True)
    if opts.duplicates == "first":
        r = r.unique(subset=[*keys, cols.doc], keep="first", maintain_order=True)
    return _Prepared(r.select(*keys, cols.doc), q, keys, qkeys)


def _check_qrels(q: pl.DataFrame, qkeys: list[str], doc: str, opts: Options) -> None:
    """Subtopic judgments: no null id or subtopic, finite grades, one row per (query,
    subtopic, doc) (ndeval would add a repeated judgment up twice)."""
    ids = [*qkeys, _SUB, doc]
    bad = q.filter(pl.any_horizontal(pl.col(ids).is_null()) | ~pl.col(_REL).is_finite().fill_null(False))
    if bad.height:
        msg = (
            f"The subtopic qrels have {bad.height} row(s) with a null query, subtopic "
            f"({opts.qrels_subtopic_col!r}) or document, or a grade that is null, NaN or infinite, "
            f"e.g. {bad.row(0)}. Hint: drop or fix them before evaluating."
        )
        raise InvalidDataError(msg)
    dup = q.group_by(ids).len().filter(pl.col("len") > 1)
    if dup.height:
        msg = (
            f"The subtopic qrels judge {dup.height} (query, subtopic, document) more than once, e.g. "
            f"{dup.select(ids).row(0)}. Hint: keep one judgment each, e.g. "
            "qrels.unique([query, subtopic, doc])."
        )
        raise DuplicateRowsError(msg)


# --- the computation ------------------------------------------------------------------------
def _values(
    run: pl.LazyFrame, qrels: pl.LazyFrame, plan: Plan, opts: Options, measures: Sequence[tuple[str, Measure]]
) -> pl.DataFrame:  # fmt: skip
    """Per (keys) of the run whose query is judged: one Float64 column per measure."""
    p = _prepare(run, qrels, plan, opts)
    out = p.run.select(p.keys).unique(maintain_order=True)
    out = out.join(p.qrels.select(p.qkeys).unique(), on=p.qkeys, how="semi")
    for (rel, judged_only), group in _by(
        measures, lambda m: (m.params["rel"], bool(m.params.get("judged_only", False)))
    ):
        relevant = p.qrels.filter(pl.col(_REL) >= rel)
        a = relevant.group_by(p.qkeys).agg(pl.col(_SUB).n_unique().alias(_A))
        rows = _novelty_rows(p, relevant, judged_only)
        runs = rows.group_by(p.keys).agg(KERNELS[m.family].run(m).alias(f"{label}:run") for label, m in group)
        ideals = _ideals(relevant, p, group, a)
        block = out.join(a, on=p.qkeys, how="left").join(runs, on=p.keys, how="left")
        if ideals is not None:
            block = block.join(ideals, on=p.qkeys, how="left")
        names = set(block.columns)
        finals = []
        for label, m in group:
            k = KERNELS[m.family]
            run_v = pl.col(f"{label}:run").fill_null(0.0)
            ideal_v = pl.col(f"{label}:ideal").fill_null(0.0) if f"{label}:ideal" in names else pl.lit(0.0)
            a_v = pl.col(_A).fill_null(0)
            finals.append(pl.when(a_v > 0).then(k.final(m, run_v, ideal_v, a_v)).otherwise(0.0).alias(label))
        out = out.join(block.select(*p.keys, *finals), on=p.keys, how="left", nulls_equal=True)
    return out


def _by(measures: Iterable[tuple[str, Measure]], key: Any) -> list[tuple[Any, list[tuple[str, Measure]]]]:
    groups: dict[Any, list[tuple[str, Measure]]] = {}
    for label, m in measures:
        groups.setdefault(key(m), []).append((label, m))
    return list(groups.items())


def _novelty_rows(p: _Prepared, relevant: pl.DataFrame, judged_only: bool) -> pl.DataFrame:
    """One row per (keys, subtopic, rank) where the ranked document is relevant to the
    subtopic: its rank, the relevant documents of the subtopic above it, and the
    subtopic's relevant documents in the qrels."""
    doc = p.run.columns[len(p.keys)]
    ranked = p.run
    if judged_only:  # judged: a judgment >= 0 for some subtopic (a negative grade: not judged)
        judged = p.qrels.filter(pl.col(_REL) >= 0).select(*p.qkeys, doc).unique()
        ranked = ranked.join(judged, on=[*p.qkeys, doc], how="semi", maintain_order="left")
    ranked = ranked.with_columns(pl.int_range(1, pl.len() + 1, dtype=pl.Int64).over(p.keys).alias(RANK))
    sub_rel = relevant.group_by([*p.qkeys, _SUB]).len(SUB_REL)
    rows = ranked.join(relevant.select(*p.qkeys, _SUB, doc), on=[*p.qkeys, doc], how="inner")
    return rows.with_columns(
        (pl.col(RANK).rank("ordinal").over([*p.keys, _SUB]) - 1).cast(pl.Int64).alias(SEEN)
    ).join(sub_rel, on=[*p.qkeys, _SUB], how="left")


def _ideals(
    relevant: pl.DataFrame, p: _Prepared, group: list[tuple[str, Measure]], a: pl.DataFrame
) -> pl.DataFrame | None:
    """Per judged query, the ideal-ranking aggregates of the measures that need one."""
    needs = [(label, m, ideal) for label, m in group if (ideal := KERNELS[m.family].ideal) is not None]
    if not needs:
        return None
    a_max = int(a.select(pl.col(_A).max().fill_null(0)).item())
    out: pl.DataFrame | None = None
    for alpha, members in _by(((label, m) for label, m, _ in needs), lambda m: float(m.params["alpha"])):
        depths = [KERNELS[m.family].depth(m, a_max) for _, m in members]
        depth = None if any(d is None for d in depths) else max(d for d in depths if d is not None)
        gains = ideal_gains(relevant, p.qkeys, p.run.columns[len(p.keys)], alpha, depth)
        exprs = {label: ideal for label, _, ideal in needs}
        aggs = gains.group_by(p.qkeys).agg(exprs[label](m).alias(f"{label}:ideal") for label, m in members)
        out = aggs if out is None else out.join(aggs, on=p.qkeys, how="full", coalesce=True)
    return out


def ideal_gains(
    relevant: pl.DataFrame, qkeys: Sequence[str], doc: str, alpha: float, depth: int | None
) -> pl.DataFrame:
    """ndeval's greedy ideal ranking: per query, the novelty gain of each ideal rank.

    ``relevant``: rows (qkeys, subtopic ``__div_sub``, doc) of relevant judgments.  At
    each rank the unranked document with the largest gain given the ones above it comes
    next; a tie (within :data:`TIE`, relative) goes to the larger doc id.  Ranks stop at
    ``depth`` (None: none), and where no document gains any more.  Returns (qkeys,
    ``RANK``, ``GAIN``) rows.  A loop over ranks, each vectorised over every query.

    Examples
    --------
    >>> rel = pl.DataFrame({"q": ["q1"] * 4, "__div_sub": ["1", "1", "2", "3"],
    ...                     "d": ["a", "b", "b", "c"]})
    >>> ideal_gains(rel, ["q"], "d", 0.5, None).rows()
    [('q1', 1, 2.0), ('q1', 2, 1.0), ('q1', 3, 0.5)]
    """
    import numpy as np  # (here: the command line's start spares its import)

    qkeys = list(qkeys)
    docs = (
        relevant.select(*qkeys, doc).unique()
        .sort([*qkeys, doc], descending=[False] * len(qkeys) + [True])  # the larger doc id first
        .with_row_index(_DOC)
    )  # fmt: skip
    queries = docs.select(qkeys).unique(maintain_order=True).with_row_index(_Q)
    docs = docs.join(queries, on=qkeys, how="left", maintain_order="left")
    subs = relevant.select(*qkeys, _SUB).unique().with_row_index("__div_subix")
    inc = relevant.join(docs, on=[*qkeys, doc]).join(subs, on=[*qkeys, _SUB])
    inc_doc = inc.get_column(_DOC).to_numpy().astype(np.int64)
    inc_sub = inc.get_column("__div_subix").to_numpy().astype(np.int64)
    doc_q = docs.get_column(_Q).to_numpy().astype(np.int64)
    n_docs = len(doc_q)
    if n_docs == 0:
        return _gain_frame(queries, qkeys, [], [], [])
    starts = np.flatnonzero(np.r_[True, doc_q[1:] != doc_q[:-1]])
    steps = int(np.max(np.diff(np.r_[starts, n_docs])))
    steps = steps if depth is None else min(depth, steps)
    seen = np.zeros(subs.height, dtype=np.int64)
    taken = np.zeros(n_docs, dtype=bool)
    positions = np.arange(n_docs)
    out_q, out_rank, out_gain = [], [], []
    for rank in range(1, steps + 1):
        score = np.bincount(inc_doc, weights=(1.0 - alpha) ** seen[inc_sub], minlength=n_docs)
        score[taken] = -1.0
        best = np.maximum.reduceat(score, starts)
        active = best > 0
        if not active.any():
            break
        near = score >= best[doc_q] * (1.0 - TIE)
        pick = np.minimum.reduceat(np.where(near, positions, n_docs), starts)[active]
        now = np.zeros(n_docs, dtype=bool)
        now[pick] = True
        taken |= now
        seen += np.bincount(inc_sub[now[inc_doc]], minlength=len(seen))
        out_q.append(np.flatnonzero(active))
        out_rank.append(np.full(len(pick), rank))
        out_gain.append(score[pick])
    return _gain_frame(queries, qkeys, out_q, out_rank, out_gain)


def _cat(parts: list[Any], dtype: type[np.generic]) -> np.ndarray[Any, Any]:
    import numpy as np

    return np.concatenate(parts).astype(dtype) if parts else np.zeros(0, dtype=dtype)


def _gain_frame(
    queries: pl.DataFrame, qkeys: list[str], qs: list[Any], ranks: list[Any], gains: list[Any]
) -> pl.DataFrame:
    import numpy as np

    frame = pl.DataFrame({
        _Q: pl.Series(_cat(qs, np.uint32), dtype=pl.UInt32),
        RANK: pl.Series(_cat(ranks, np.int64)),
        GAIN: pl.Series(_cat(gains, np.float64)),
    })  # fmt: skip
    return frame.join(queries, on=_Q, how="left", maintain_order="left").select(*qkeys, RANK, GAIN)
