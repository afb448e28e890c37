"""Judgments from a separate qrels frame, the judged queries a run never returned, validation.

:func:`attach` joins the qrels onto the run once: each row's grade, and each query's
constants over its judgments (R, N, the ideal DCG at every cutoff asked ... computed by
the families' own definitions, :class:`~irframe.expr._compile.JudgmentsCtx`) in one
struct column, which ``irframe.expr.measures(..., judgments=...)`` reads.  The qrels are
checked by ``irframe.evaluate``'s own checks (an evaluation of an empty run against
them), which also gives :func:`missing_queries` its values; :func:`validate` runs
``evaluate``'s checks on a run.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, TypeVar

import polars as pl

from irframe import kernels as K
from irframe._engine.plan import ids_compare_as_is
from irframe._input.frames import from_lazy, to_lazy
from irframe.exceptions import ColumnNotFoundError, InvalidDataError, InvalidParameterError
from irframe.expr._compile import JUDGED, JudgmentsCtx, attached_constants, check_computable
from irframe.expr._guards import lacking_constants_error
from irframe.measures import Measure, parse_measures

__all__ = ["attach", "missing_queries", "validate"]

FrameT = TypeVar("FrameT")
MeasureLike = str | Measure
_ORDER = "__ir_order"  # the order column of the empty run whose evaluation checks the qrels
_TEXT = "__ir_text_"  # join keys compared as text (run and qrels ids of different dtypes)


def _need(schema: pl.Schema, cols: dict[str, str], frame: str) -> None:
    """Every ``role -> column`` of ``cols`` is in ``schema``, else ColumnNotFoundError."""
    for parameter, col in cols.items():
        if col not in schema:
            raise ColumnNotFoundError.from_missing(
                role=parameter, missing=col, available=schema.names(), frame=frame, parameter=parameter
            )


def _qrels_columns(query: str, doc: str, qq: str | None, qd: str | None, qr: str) -> tuple[str, str, str]:
    return qq or query, qd or doc, qr


def _judged_values(
    qrels: pl.LazyFrame, schema: pl.Schema, measures: Sequence[tuple[str, Measure]],
    cols: tuple[str, str, str],
) -> pl.DataFrame:  # fmt: skip
    """``evaluate(per_query=True)`` of an empty run against the qrels: every judged query's
    values when the run returns nothing for it (``missing="zero"``), after evaluate's
    checks of the qrels (duplicates, null ids or grades, infinite grades, exp-gain overflow)."""
    from irframe.functions import evaluate

    qq, qd, qr = cols
    empty = pl.DataFrame(schema={qq: schema[qq], qd: schema[qd], _ORDER: pl.Int64})
    return evaluate(
        empty, [m for _, m in measures], qrels.collect(), per_query=True, query_col=qq, doc_col=qd,
        rank_col=_ORDER, order="rank", qrels_relevance_col=qr,
    ).rename({str(m): label for label, m in measures if str(m) != label})  # fmt: skip


def _on(run: pl.Schema, other: pl.Schema, pairs: Sequence[tuple[str, str]]) -> list[tuple[pl.Expr, pl.Expr]]:
    """Join keys: the columns themselves, or both as text (as evaluate compares such ids)."""
    out = []
    for rc, oc in pairs:
        if ids_compare_as_is(run[rc], other[oc]):
            out.append((pl.col(rc), pl.col(oc)))
        else:
            out.append((pl.col(rc).cast(pl.String), pl.col(oc).cast(pl.String)))
    return out


def _join(left: pl.LazyFrame, right: pl.LazyFrame, pairs: Sequence[tuple[str, str]]) -> pl.LazyFrame:
    """``left`` with ``right``'s other columns, matched on ``pairs`` (left, right), in left's order."""
    on = _on(left.collect_schema(), right.collect_schema(), pairs)
    names = [f"{_TEXT}{i}" for i in range(len(on))]
    left = left.with_columns(lk.alias(n) for (lk, _), n in zip(on, names, strict=True))
    right = right.with_columns(rk.alias(n) for (_, rk), n in zip(on, names, strict=True))
    right = right.drop([oc for _, oc in pairs])
    return left.join(right, on=names, how="left", maintain_order="left").drop(names)


def attach(
    run: FrameT,
    qrels: Any,
    measures: MeasureLike | Iterable[MeasureLike],
    *,
    query: str = "query_id",
    doc: str = "doc_id",
    grade: str = "relevance",
    judgments: str = "judgments",
    qrels_query: str | None = None,
    qrels_doc: str | None = None,
    qrels_relevance: str = "relevance",
) -> FrameT:
    """The run's rows with the judgments of a separate qrels frame, joined once.

    Adds two columns: ``grade``, each row's grade (null: not judged), and ``judgments``,
    a struct of its query's constants over every judgment, retrieved or not (the
    relevant count R at each threshold, the judged non-relevant count, the ideal DCG at
    each cutoff and gain ...), for ``measures``.  Then
    ``irframe.expr.measures(measures, judgments=judgments, ...)`` gives
    ``evaluate(run, measures, qrels, per_query=True)``'s values for every run query; the
    judged queries the run never returned are :func:`missing_queries`.

    Parameters
    ----------
    run : polars.DataFrame, polars.LazyFrame or pandas.DataFrame
        The run (or log); returned as the same type, rows in their order.
    qrels : frame
        The judgments (query, document, grade); checked as ``evaluate`` checks them.
    measures : str, Measure or a list of them
        The measures the constants are for (the same, or fewer, are then asked of
        :func:`irframe.expr.measures`).  Measures reading every judged grade inside their
        ranking kernel (G, nDCGRel, Rndcg, user kernels reading ``q.judged``) carry the
        query's grades as a list on every row.
    query, doc : str
        The run's id columns.
    grade, judgments : str
        The names of the two columns added (the run must not have them).
    qrels_query, qrels_doc, qrels_relevance : str, optional
        The qrels' columns, when named otherwise than the run's.

    Examples
    --------
    >>> import polars as pl, irframe
    >>> run = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["b", "z", "y"],
    ...                       "relevance": [1, 1, 1]})
    >>> joined = irframe.expr.attach(run, qrels, ["R@1", "RR"])
    >>> joined.columns
    ['query_id', 'doc_id', 'score', 'relevance', 'judgments']
    >>> joined.group_by("query_id").agg(
    ...     irframe.expr.measures(["R@1", "RR"], score="score", judgments="judgments")
    ... ).unnest("measures")
    shape: (1, 3)
    ┌──────────┬─────┬─────┐
    │ query_id ┆ R@1 ┆ RR  │
    │ ---      ┆ --- ┆ --- │
    │ str      ┆ f64 ┆ f64 │
    ╞══════════╪═════╪═════╡
    │ q1       ┆ 0.0 ┆ 0.5 │
    └──────────┴─────┴─────┘
    """
    lf, origin = to_lazy(run, "run")
    qlf, _ = to_lazy(qrels, "qrels")
    rs, qs = lf.collect_schema(), qlf.collect_schema()
    cols = _qrels_columns(query, doc, qrels_query, qrels_doc, qrels_relevance)
    _need(rs, {"query": query, "doc": doc}, "run")
    _need(qs, {"qrels_query": cols[0], "qrels_doc": cols[1], "qrels_relevance": cols[2]}, "qrels")
    for name, col in (("grade", grade), ("judgments", judgments)):
        if col in rs:
            msg = (
                f"The run already has a column {col!r}, which attach adds. Hint: pass {name}='...' "
                "with a new name (and the same to irframe.expr.measures), or drop the column."
            )
            raise InvalidParameterError(msg)
    pairs = parse_measures(measures)
    check_computable(pairs)
    # evaluate's checks of the qrels; the exp-gain measures for its overflow check
    checked = [(label, m) for label, m in pairs if m.params.get("gain") == "exp"]
    _judged_values(qlf, qs, checked or [("NumRel", Measure("NumRel"))], cols)
    graded = qlf.select(
        pl.col(cols[0]), pl.col(cols[1]), pl.col(cols[2]).cast(pl.Float64).fill_nan(None).alias(K.REL)
    )
    out = _join(lf, graded.rename({K.REL: grade}), [(query, cols[0]), (doc, cols[1])])
    out = _join(out, _constants(graded, pairs, cols[0], judgments), [(query, cols[0])])
    if origin.kind != "polars-lazy":  # (the streaming engine is slower here: decisions.md, expr-list-agg)
        return from_lazy(out.collect(engine="in-memory"), origin)  # type: ignore[no-any-return]
    return out  # type: ignore[return-value]


def _constants(
    graded: pl.LazyFrame, pairs: Sequence[tuple[str, Measure]], qq: str, name: str
) -> pl.LazyFrame:
    """Per judged query, the struct ``name`` of the constants the measures read."""
    ctx = JudgmentsCtx()
    for _, m in pairs:
        ctx.value(m)
    table = graded.group_by(qq).agg(pl.lit(True).alias(JUDGED), **ctx.aggs)
    if ctx.post:
        table = table.with_columns(**ctx.post)
    return table.select(pl.col(qq), pl.struct([JUDGED, *ctx.attached]).alias(name))


def missing_queries(
    run: FrameT,
    qrels: Any,
    measures: MeasureLike | Iterable[MeasureLike],
    *,
    query: str = "query_id",
    doc: str = "doc_id",
    qrels_query: str | None = None,
    qrels_doc: str | None = None,
    qrels_relevance: str = "relevance",
) -> FrameT:
    """The judged queries the run never returned, with their values (``missing="zero"``).

    One row per such query: the query id and the struct column ``"measures"``, as
    ``run.group_by(query).agg(irframe.expr.measures(...))`` gives for the others, so
    ``pl.concat([table, missing], how="diagonal")`` is ``evaluate(run, measures, qrels,
    per_query=True)``'s query set.  The values are ``evaluate``'s for a query absent
    from the run (0 for most measures; NumRel and IDCG keep theirs).  The query id has
    the run's dtype (qrels ids ``"7"`` against run ids ``7`` are converted); qrels ids the
    run's dtype cannot hold as they are (``"q7"`` against integers, a value outside an
    Enum's categories) are refused, naming them.

    Examples
    --------
    >>> import polars as pl, irframe
    >>> run = pl.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "score": [1.0]})
    >>> qrels = pl.DataFrame({"query_id": ["q1", "q2", "q2"], "doc_id": ["a", "b", "c"],
    ...                       "relevance": [1, 1, 0]})
    >>> irframe.expr.missing_queries(run, qrels, ["RR", "NumRel"]).unnest("measures")
    shape: (1, 3)
    ┌──────────┬─────┬────────┐
    │ query_id ┆ RR  ┆ NumRel │
    │ ---      ┆ --- ┆ ---    │
    │ str      ┆ f64 ┆ f64    │
    ╞══════════╪═════╪════════╡
    │ q2       ┆ 0.0 ┆ 1.0    │
    └──────────┴─────┴────────┘
    """
    lf, origin = to_lazy(run, "run")
    qlf, _ = to_lazy(qrels, "qrels")
    rs, qs = lf.collect_schema(), qlf.collect_schema()
    cols = _qrels_columns(query, doc, qrels_query, qrels_doc, qrels_relevance)
    _need(rs, {"query": query, "doc": doc}, "run")
    _need(qs, {"qrels_query": cols[0], "qrels_doc": cols[1], "qrels_relevance": cols[2]}, "qrels")
    pairs = parse_measures(measures)
    values = _as_run_ids(_judged_values(qlf, qs, pairs, cols), cols[0], (qs[cols[0]], rs[query]), query)
    labels = [label for label, _ in pairs]
    table = values.lazy().select(pl.col(cols[0]).alias(query), pl.struct(labels).alias("measures"))
    ((rk, tk),) = _on(rs, table.collect_schema(), [(query, query)])
    seen = lf.select(rk.alias(query)).unique()
    out = table.with_columns(tk).join(seen, on=query, how="anti", maintain_order="left")
    out = out.with_columns(pl.col(query).cast(rs[query]))  # (the ids checked by _as_run_ids)
    return from_lazy(out, origin)  # type: ignore[no-any-return]


def _as_run_ids(
    values: pl.DataFrame, qq: str, dtypes: tuple[pl.DataType, pl.DataType], query: str
) -> pl.DataFrame:
    """The judged queries' ids in the run's dtype, so that ``pl.concat`` with the run's own
    table works; ids that dtype cannot hold as they are are refused, naming them."""
    ids = values.get_column(qq)
    qrels_dtype, dtype = dtypes
    if ids.dtype == dtype:
        return values
    try:
        converted = ids.cast(dtype, strict=True)
        same = (converted.cast(pl.String) == ids.cast(pl.String)).fill_null(value=True).all()
    except (pl.exceptions.PolarsError, ValueError, TypeError):
        same = False
    if not same:
        shown = ", ".join(repr(v) for v in ids.head(3).to_list())
        msg = (
            f"The qrels' query ids ({shown}, dtype {qrels_dtype}) cannot all be held by the run's "
            f"query column {query!r} (dtype {dtype}), so the missing queries could not be stacked "
            f"with the run's table. Hint: give both the same dtype first, e.g. "
            f"pl.col({query!r}).cast(pl.String) on the run and the qrels."
        )
        raise InvalidDataError(msg)
    return values.with_columns(converted)


def validate(
    frame: FrameT,
    measures: MeasureLike | Iterable[MeasureLike] | None = None,
    *,
    query: str = "query_id",
    doc: str = "doc_id",
    rank: str | None = None,
    score: str | None = None,
    grade: str = "relevance",
    by: str | Sequence[str] | None = None,
    judgments: str | None = None,
) -> FrameT:
    """Check what ``irframe.expr`` expressions cannot check row by row; return ``frame``.

    ``evaluate``'s own checks, by evaluating the frame: a document twice in a query (per
    ``by`` group), a null or NaN ``rank``/``score``, null ids, infinite grades, with both
    ``rank`` and ``score`` a score that rises along the ranks, and with ``measures`` an
    exp gain that overflows.  With ``judgments`` (a frame from :func:`attach`), also that
    it holds the constants ``measures`` read.  Raises what ``evaluate`` raises
    (:class:`~irframe.exceptions.DuplicateRowsError`, ``InvalidDataError`` ...); a lazy
    frame is read once for it, by polars' streaming engine (its memory stays below that of
    the aggregation that follows).  Use it as ``frame.pipe(irframe.expr.validate, score="score")``.

    Examples
    --------
    >>> import polars as pl, irframe
    >>> run = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "a"], "score": [2.0, 1.0],
    ...                     "relevance": [1, 1]})
    >>> irframe.expr.validate(run, score="score")
    Traceback (most recent call last):
    ...
    irframe.exceptions.DuplicateRowsError: The run has 1 duplicate (query_id, doc_id) rows in 1 queries, ...
    """
    from irframe.functions import evaluate

    if rank is None and score is None:
        msg = "validate needs the column ordering the documents: rank='...' or score='...' (or both)."
        raise InvalidParameterError(msg)
    asked = ["NumRet"] if measures is None else measures
    order = "auto" if rank is not None and score is not None else "rank" if rank is not None else "score"
    result = evaluate(
        frame, asked, per_query=True, query_col=query, doc_col=doc, rank_col=rank,
        score_col=score or "score", relevance_col=grade, order=order, by=by,  # type: ignore[arg-type]
    )  # fmt: skip
    if isinstance(result, pl.LazyFrame):
        result.collect(engine="streaming")
    if judgments is not None:
        _check_attached(frame, asked, judgments)
    return frame


def _check_attached(frame: Any, measures: MeasureLike | Iterable[MeasureLike], judgments: str) -> None:
    lf, _ = to_lazy(frame, "run")
    schema = lf.collect_schema()
    _need(schema, {"judgments": judgments}, "run")
    dtype = schema[judgments]
    have = {f.name for f in dtype.fields} if isinstance(dtype, pl.Struct) else set()
    pairs = parse_measures(measures)
    lacking = [k for k in attached_constants(pairs) if k not in have]
    if lacking:
        raise lacking_constants_error(judgments, lacking, [label for label, _ in pairs])
