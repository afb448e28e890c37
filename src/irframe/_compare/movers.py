"""The queries that moved most between a baseline and each system, with their top documents.

The top documents follow the one ranking rule of :func:`irframe._input.columns.ranking_order`
(rank ascending or score descending, ties by doc id descending in byte order).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar, overload

import polars as pl

from irframe._compare.pairing import (
    _BASE,
    _DELTA,
    _QKEY,
    _SYS,
    _VAL,
    MeasureLike,
    _per_query_long,
    _resolve_baseline,
    _resolve_columns,
    check_shared_queries,
    pair_values,
)
from irframe._engine.plan import at_depth, best_ranked
from irframe._input.columns import RunColumns, natural_order, resolve_run
from irframe._input.frames import Origin, from_lazy, to_lazy
from irframe._input.options import Missing, Options
from irframe._input.runs import Stack, stack_runs
from irframe.exceptions import ColumnNotFoundError, InvalidParameterError, closest
from irframe.functions import ColumnOptions, options_of, with_column_options
from irframe.measures import parse_measures

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = ["DOC_FIELDS", "MovedOptions", "moved", "moved_frame", "top_documents"]

#: The fields of a listed document: its id (text) and its grade (null: unjudged).
DOC_FIELDS = ("doc_id", "grade")


def _top_docs(
    stack: Stack,
    keys: pl.DataFrame,
    grades: pl.LazyFrame | None,
    *,
    query_col: str,
    k: int,
    opts: Options,
) -> pl.DataFrame | None:
    """The first ``k`` documents per (system, query) in ``keys`` of the ranking that was
    scored, each system's by its own order source (:meth:`Stack.columns_of`); a list of
    ``{doc_id, grade}`` structs (``grade`` null: unjudged).  None when a system has no
    document or ordering column."""
    groups: dict[RunColumns, list[str]] = {}  # the systems ranked alike (one group, mostly)
    for system in keys.get_column(_SYS).unique(maintain_order=True).to_list():
        cols = _ranking_columns(stack.columns_of(system), query_col, opts)
        if cols is None:
            return None
        groups.setdefault(cols, []).append(system)
    ranked = [
        _ranked_head(stack.lf.filter(pl.col(_SYS).is_in(systems)), keys, cols, k=k, opts=opts)
        for cols, systems in groups.items()
    ]
    doc_col = opts.doc_col
    empty = pl.LazyFrame(schema={_SYS: pl.String, _QKEY: pl.String, doc_col: pl.String})
    rows = pl.concat(ranked) if ranked else empty  # (no keys: no rows)
    if grades is not None:
        rows = rows.join(grades, on=[_QKEY, doc_col], how="left", maintain_order="left")
    else:
        rows = rows.with_columns(pl.lit(None, dtype=pl.Int64).alias("__ir_grade"))
    doc = pl.struct(pl.col(doc_col).alias(DOC_FIELDS[0]), pl.col("__ir_grade").alias(DOC_FIELDS[1]))
    return rows.group_by([_SYS, _QKEY], maintain_order=True).agg(doc.alias("__ir_docs")).collect()


def _ranking_columns(schema: pl.Schema, query_col: str, opts: Options) -> RunColumns | None:
    """The roles of one run's columns for ranking (``opts.order`` read by
    :func:`~irframe._input.columns.resolve_run`), or None without ids or an order column."""
    has_order = (opts.rank_col is not None and opts.rank_col in schema) or opts.score_col in schema
    if opts.doc_col not in schema or query_col not in schema or not has_order:
        return None
    return resolve_run(
        schema, query_col=query_col, doc_col=opts.doc_col, rank_col=opts.rank_col, score_col=opts.score_col,
        relevance_col=None, by=(_SYS,), need_relevance=False, order_rule=opts.order,
    )  # fmt: skip


def _ranked_head(
    run: pl.LazyFrame, keys: pl.DataFrame, cols: RunColumns, *, k: int, opts: Options
) -> pl.LazyFrame:
    """The first ``k`` rows per (system, query) in ``keys`` of the ranking that was scored:
    :meth:`RunColumns.ranking`'s order after ``duplicates="first"`` (each document at its
    best-ranked row) and ``depth`` (the rows below it were not scored), as the engine does
    (:func:`~irframe._engine.plan.at_depth`, :func:`~irframe._engine.plan.best_ranked`)."""
    order, desc = cols.ranking()
    rows = (
        run.select(_SYS, cols.query, cols.doc, cols.order_col)
        .with_columns(pl.col(cols.query).cast(pl.String).alias(_QKEY))
        .join(keys.lazy(), on=[_SYS, _QKEY], how="semi")
    )
    rows = at_depth(rows, cols, opts)
    if opts.duplicates == "first":
        rows = best_ranked(rows, cols)
    return (
        rows.with_columns(pl.col(cols.doc).cast(pl.String))
        .sort([_SYS, _QKEY, *order], descending=[False, False, *desc])
        .group_by([_SYS, _QKEY], maintain_order=True)
        .head(k)
        .select(_SYS, _QKEY, cols.doc)
    )


FrameT = TypeVar("FrameT")


class MovedOptions(ColumnOptions, total=False):
    """The keyword options of :func:`moved` and :func:`moved_frame` (their one list, with
    the defaults, is their implementation's), for the type checkers (the overloads,
    ``df.ir.moved``): the keyword-only parameters (a test keeps them equal), then the column
    options of :func:`irframe.evaluate`."""

    baseline: str | None
    system: str | Sequence[str] | None
    n: int | None
    queries: Any
    text_col: str
    docs_top: int
    system_col: str
    missing: Missing


@with_column_options
def _moved(
    runs: Any,
    qrels: Any = None,
    measure: MeasureLike = "nDCG@10",
    *,
    baseline: str | None = None,
    system: str | Sequence[str] | None = None,
    n: int | None = 20,
    queries: Any = None,
    text_col: str = "text",
    docs_top: int = 3,
    system_col: str = "system",
    missing: Missing = "zero",
    **column_kwargs: Unpack[ColumnOptions],
) -> tuple[pl.DataFrame, Origin]:
    """:func:`moved` as a polars DataFrame, with the origin of the runs: the one list of
    its keyword options (:func:`moved` and :func:`moved_frame` forward them and show them:
    :func:`irframe.functions.options_of`)."""
    where = "moved"
    label = _check_moved_args(measure, n, docs_top)
    stacked = stack_runs(runs, system_col, where, at_least=2)
    opts = _resolve_columns(stacked, qrels, Options.build(where, missing=missing, **column_kwargs), where)
    base_name = _resolve_baseline(baseline, stacked.systems, where)
    others = _listed_systems(system, [s for s in stacked.systems if s != base_name])
    pairs = [(s, base_name) for s in others]
    check_shared_queries(stacked.lf, qrels, pairs, where=where, opts=opts)
    long, query_col = _per_query_long(
        stacked,
        qrels=qrels,
        labels=[label],
        measures=[label],
        by=[],
        missing=missing,
        system_col=system_col,
        opts=opts,
    )
    out = _largest_moves(long, stacked, base_name, others, query_col=query_col, n=n)
    if queries is not None:
        out = _with_texts(out, queries, query_col, text_col)
    if docs_top > 0 and out.height:
        out = _with_top_docs(
            out,
            stacked,
            qrels,
            base_name,
            query_col=query_col,
            docs_top=docs_top,
            opts=opts,
        )
    out = out.drop(_QKEY)
    if system_col != "system" and system_col not in out.columns:
        out = out.rename({"system": system_col})
    return out, stacked.origin


@overload
def moved(
    runs: Mapping[str, FrameT], qrels: Any = ..., measure: MeasureLike = ..., **kwargs: Unpack[MovedOptions]
) -> FrameT: ...
@overload
def moved(
    runs: FrameT, qrels: Any = ..., measure: MeasureLike = ..., **kwargs: Unpack[MovedOptions]
) -> FrameT: ...
@options_of(_moved)
def moved(
    runs: Any, qrels: Any = None, measure: MeasureLike = "nDCG@10", **options: Unpack[MovedOptions]
) -> Any:
    """The queries that moved most between the baseline and each system, to read what changed.

    Parameters
    ----------
    runs : dict of name -> frame, or one stacked frame
        As for :func:`compare`.
    qrels : frame, optional
        Judgments (else grades are read from the runs).
    measure : str or Measure, default "nDCG@10"
        The one measure whose per-query change is listed.
    baseline : str, optional
        Default the first system.
    system : str or list of str, optional
        Which systems to list (default every non-baseline system).
    n : int or None, default 20
        Queries per system, largest absolute change first (``None``: all paired queries).
    queries : frame, optional
        Query texts: the query id column (same name as in the run) and ``text_col``.
    text_col : str, default "text"
        Column of ``queries`` holding the text.
    docs_top : int, default 3
        How many top-ranked documents of each system to list (0: none). Order: the rank
        column if present, else score descending with doc id descending on ties (as
        trec_eval).
    system_col, missing
        As for :func:`compare`.
    **options
        :func:`irframe.evaluate`'s column names and reading rules, as for :func:`compare`.

    Returns
    -------
    Frame of the caller's type
        ``system``, the query id, [``text_col``], ``baseline_value``, ``value``,
        ``delta`` (value - baseline_value), [``baseline_docs``, ``system_docs``]; sorted
        by system (input order), then ``|delta|`` descending, then query id.  Each
        ``*_docs`` cell is a list (the top ``docs_top`` in ranking order) of structs
        ``{doc_id, grade}``: the doc id as text and its grade, null when the document is
        unjudged (``m.explode("system_docs").unnest("system_docs")`` gives one row per
        document).  The reports show them as ``x (?), a (2)``.

    Examples
    --------
    >>> import polars as pl
    >>> qrels = pl.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["a", "b"], "relevance": [2, 1]})
    >>> runs = {
    ...     "bm25": pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["x", "a", "b"],
    ...                           "score": [2.0, 1.0, 1.0]}),
    ...     "new": pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "x", "b"],
    ...                          "score": [2.0, 1.0, 1.0]}),
    ... }
    >>> queries = pl.DataFrame({"query_id": ["q1", "q2"], "text": ["cheap flights", "weather"]})
    >>> m = moved(runs, qrels, "RR", queries=queries, docs_top=2)
    >>> m.select("query_id", "text", "baseline_value", "value", "delta").rows()
    [('q1', 'cheap flights', 0.5, 1.0, 0.5), ('q2', 'weather', 1.0, 1.0, 0.0)]
    >>> m.item(0, "baseline_docs").to_list()
    [{'doc_id': 'x', 'grade': None}, {'doc_id': 'a', 'grade': 2}]
    >>> m.explode("system_docs").unnest("system_docs").select("query_id", "doc_id", "grade").rows()[:2]
    [('q1', 'a', 2), ('q1', 'x', None)]
    """
    out, origin = _moved(runs, qrels, measure, **options)
    return from_lazy(out, origin)


@options_of(_moved)
def moved_frame(
    runs: Any, qrels: Any = None, measure: MeasureLike = "nDCG@10", **options: Unpack[MovedOptions]
) -> pl.DataFrame:
    """:func:`moved` as a polars DataFrame, whatever the runs' frame type (for plots).

    Same parameters and rows as :func:`moved`.

    Examples
    --------
    >>> import pandas as pd
    >>> qrels = pd.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "relevance": [1]})
    >>> runs = {"old": pd.DataFrame({"query_id": ["q1"], "doc_id": ["x"], "rank": [1]}),
    ...         "new": pd.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "rank": [1]})}
    >>> moved_frame(runs, qrels, "P@1", docs_top=0).rows()
    [('new', 'q1', 0.0, 1.0, 1.0)]
    """
    return _moved(runs, qrels, measure, **options)[0]


def _check_moved_args(measure: MeasureLike, n: object, docs_top: object) -> str:
    """The one measure's label, after checking ``n`` and ``docs_top``."""
    where = "moved"
    parsed = parse_measures(measure)
    if len(parsed) != 1:
        msg = f"moved lists one measure at a time; got {[label for label, _ in parsed]}."
        raise InvalidParameterError(msg)
    if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 1):
        err = InvalidParameterError.for_value("n", where, "an int >= 1 or None", n)
        raise err
    if isinstance(docs_top, bool) or not isinstance(docs_top, int) or docs_top < 0:
        err = InvalidParameterError.for_value("docs_top", where, "an int >= 0", docs_top)
        raise err
    return parsed[0][0]


def _listed_systems(system: str | Sequence[str] | None, others: list[str]) -> list[str]:
    """The non-baseline systems to list: all, or the ones asked (each must exist)."""
    if system is None:
        return others
    wanted = [system] if isinstance(system, str) else list(system)
    for s in wanted:
        if s not in others:
            near = closest(str(s), others)
            msg = f"The system {s!r} of moved is not one of {others}."
            if near:
                msg += f"\nHint: did you mean system={near[0]!r}?"
            raise InvalidParameterError(msg)
    return [s for s in others if s in wanted]


def _largest_moves(
    long: pl.DataFrame, stacked: Stack, base_name: str, others: list[str], *, query_col: str, n: int | None
) -> pl.DataFrame:
    """Paired rows of the listed systems, largest |delta| first: system, query, values, delta."""
    sys_rank = {s: i for i, s in enumerate(stacked.systems)}
    ties = natural_order(long.schema, [query_col])  # (ties: queries in natural order)
    pairs = (
        pair_values(long, [(s, base_name) for s in others], [query_col])
        .with_columns(
            pl.col(_SYS).replace_strict(sys_rank, return_dtype=pl.Int64).alias("__ir_si"),
            pl.col(_DELTA).abs().alias("__ir_abs"),
            pl.col(query_col).cast(pl.String).alias(_QKEY),
        )
        .sort(["__ir_si", "__ir_abs", *ties], descending=[False, True, *[False] * len(ties)])
    )
    if n is not None:
        pairs = pairs.group_by(_SYS, maintain_order=True).head(n)
    return pairs.select(
        pl.col(_SYS).alias("system"),
        query_col,
        pl.col(_BASE).alias("baseline_value"),
        pl.col(_VAL).alias("value"),
        pl.col(_DELTA).alias("delta"),
        _QKEY,
    )


def _with_texts(out: pl.DataFrame, queries: Any, query_col: str, text_col: str) -> pl.DataFrame:
    """Add the query texts of ``queries`` after the query id column."""
    qlf, _ = to_lazy(queries, role="queries")
    qschema = qlf.collect_schema()
    for col, role in ((query_col, "query_id"), (text_col, "text")):
        if col not in qschema:
            raise ColumnNotFoundError.from_missing(
                role=role,
                missing=col,
                available=list(qschema),
                frame="queries",
                parameter="query_col" if role == "query_id" else "text_col",
            )
    texts = (
        qlf.select(pl.col(query_col).cast(pl.String).alias(_QKEY), pl.col(text_col))
        .unique(_QKEY, keep="first", maintain_order=True)
        .collect()
    )
    out = out.join(texts, on=_QKEY, how="left", maintain_order="left")
    return out.select("system", query_col, text_col, "baseline_value", "value", "delta", _QKEY)


def _with_top_docs(
    out: pl.DataFrame,
    stacked: Stack,
    qrels: Any,
    base_name: str,
    *,
    query_col: str,
    docs_top: int,
    opts: Options,
) -> pl.DataFrame:
    """Add ``baseline_docs`` and ``system_docs``: the top documents of both sides, with grades."""
    doc_col = opts.doc_col
    grades = _grades(stacked.lf, qrels, query_col, doc_col, opts)
    keys = pl.concat(
        [
            out.select(pl.col("system").alias(_SYS), _QKEY),
            out.select(pl.lit(base_name, dtype=pl.String).alias(_SYS), _QKEY),
        ]
    ).unique()
    top = _top_docs(
        stacked,
        keys,
        grades,
        query_col=query_col,
        k=docs_top,
        opts=opts,
    )
    if top is None:
        return out
    base_top = top.filter(pl.col(_SYS) == base_name).select(_QKEY, pl.col("__ir_docs").alias("baseline_docs"))
    sys_top = top.select(pl.col(_SYS).alias("system"), _QKEY, pl.col("__ir_docs").alias("system_docs"))
    return out.join(base_top, on=_QKEY, how="left", maintain_order="left").join(
        sys_top, on=["system", _QKEY], how="left", maintain_order="left"
    )


def top_documents(
    runs: Mapping[str, pl.LazyFrame],
    qrels: Any,
    query_ids: Sequence[str],
    *,
    k: int,
    opts: Options,
    where: str = "moved",
) -> pl.DataFrame | None:
    """The top ``k`` documents of each run for ``query_ids``, with their grades, as :func:`moved`
    lists them: the query id (as text) in ``query_col`` and one column ``<name>_docs`` per run
    (lists of ``{doc_id, grade}`` structs).

    The runs are stacked by :func:`~irframe._input.runs.stack_runs` (``where``: the verb, for
    its messages); each is ranked by its own rank or score column (a run with ranks beside
    one with only scores: see :func:`_top_docs`); without qrels, a document's grade is read
    from the runs that carry one.  A query a run lacks has null documents.  None when a run
    has no document or ordering column.

    Examples
    --------
    >>> qrels = pl.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "relevance": [2]})
    >>> run = pl.LazyFrame({"query_id": ["q1", "q1"], "doc_id": ["x", "a"], "score": [2.0, 1.0]})
    >>> top_documents({"old": run}, qrels, ["q1", "q2"], k=2, opts=Options()).rows()
    [('q1', [{'doc_id': 'x', 'grade': None}, {'doc_id': 'a', 'grade': 2}]), ('q2', None)]
    """
    query_col = opts.query_col
    stack = stack_runs(runs, None, where)
    out = pl.DataFrame({query_col: list(query_ids)}, schema={query_col: pl.String})
    keys = pl.DataFrame(
        {_SYS: [s for s in stack.systems for _ in query_ids], _QKEY: list(query_ids) * len(stack.systems)},
        schema={_SYS: pl.String, _QKEY: pl.String},
    )
    grades = _grades(stack.lf, qrels, query_col, opts.doc_col, opts)
    top = _top_docs(stack, keys, grades, query_col=query_col, k=k, opts=opts)
    if top is None:
        return None
    for name in stack.systems:
        docs = top.filter(pl.col(_SYS) == name).select(
            pl.col(_QKEY).alias(query_col), pl.col("__ir_docs").alias(f"{name}_docs")
        )
        out = out.join(docs, on=query_col, how="left", maintain_order="left")
    return out


def _grades(
    run: pl.LazyFrame,
    qrels: Any,
    query_col: str,
    doc_col: str,
    opts: Options,
) -> pl.LazyFrame | None:
    """(query, doc, __ir_grade) as strings/numbers, from the qrels or the run's grades."""
    rel_col = opts.relevance_col
    if qrels is None:
        schema = run.collect_schema()
        if rel_col not in schema:
            return None
        src, qc, dc, rc = run, query_col, doc_col, rel_col
    else:
        src, _ = to_lazy(qrels, role="qrels")
        qc, dc, rc = opts.qrels_columns
        schema = src.collect_schema()
        if any(c not in schema for c in (qc, dc, rc)):
            return None
    grade = pl.col(rc)
    grade = grade.cast(pl.Int64) if schema[rc].is_integer() or schema[rc] == pl.Boolean else grade
    return (
        src.select(
            pl.col(qc).cast(pl.String).alias(_QKEY),
            pl.col(dc).cast(pl.String).alias(doc_col),
            grade.alias("__ir_grade"),
        )
        .drop_nulls("__ir_grade")
        .unique([_QKEY, doc_col], keep="first")
    )
