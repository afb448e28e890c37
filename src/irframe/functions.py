"""The typed public API: ``evaluate`` and its one-measure shortcuts.

Every ``.ir`` namespace method forwards to a function here.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from typing import Any, Literal, TypeVar

import polars as pl

from irframe import _engine
from irframe._columns import DEFAULT_RANK, resolve_qrels, resolve_run
from irframe._frames import from_lazy, to_lazy
from irframe.exceptions import InvalidParameterError
from irframe.measures import Measure, parse_measures

__all__ = [
    "ap",
    "bpref",
    "evaluate",
    "judged",
    "mrr",
    "ndcg",
    "precision",
    "recall",
    "rprec",
    "success",
]

FrameT = TypeVar("FrameT")
MeasureLike = str | Measure
Missing = Literal["zero", "drop", "error"]
Duplicates = Literal["error", "first"]


def _choice(name: str, value: object, allowed: Sequence[str], where: str) -> None:
    if value not in allowed:
        expected = "one of " + ", ".join(repr(a) for a in allowed)
        raise InvalidParameterError.for_value(name, where, expected, value)


def _as_list(by: str | Sequence[str] | None) -> list[str]:
    if by is None:
        return []
    if isinstance(by, str):
        return [by]
    return list(by)


def evaluate(
    run: FrameT,
    measures: MeasureLike | Iterable[MeasureLike],
    qrels: Any = None,
    *,
    by: str | Sequence[str] | None = None,
    per_query: bool = False,
    missing: Missing = "zero",
    query_col: str = "query_id",
    doc_col: str = "doc_id",
    rank_col: str | None = DEFAULT_RANK,
    score_col: str = "score",
    relevance_col: str = "relevance",
    qrels_query_col: str | None = None,
    qrels_doc_col: str | None = None,
    qrels_relevance_col: str | None = None,
    duplicates: Duplicates = "error",
) -> FrameT:
    """Evaluate a ranked run, per query or as means, in the caller's frame type.

    Parameters
    ----------
    run : pandas.DataFrame, polars.DataFrame or polars.LazyFrame
        Long format: one row per (query, document) with a ``rank`` (ascending) or a
        ``score`` (descending, ties broken by doc id descending like trec_eval) column.
    measures : str, Measure or a list of them
        ``"nDCG@10"``, ``"P(rel=2)@5"``, ``"RR"``, ``"AP"``, trec_eval names such as
        ``"ndcg_cut_10"``... The output columns are named by these strings.
    qrels : frame, optional
        Judgments (query, document, relevance). Without it, grades are read from the run's
        ``relevance`` column (the golden-set case; null means not judged).
    by : str or list of str, optional
        Columns to evaluate separately: stacked systems, segments... A by-column also
        found in ``qrels`` is a query attribute; the others partition the run.
    per_query : bool, default False
        One row per (by-group, query) instead of the means.
    missing : {"zero", "drop", "error"}, default "zero"
        Judged queries absent from the run: score 0 and count them (trec_eval ``-c``),
        leave them out (trec_eval's default), or raise.
    query_col, doc_col, rank_col, score_col, relevance_col : str
        Column names in the run. ``rank_col`` is used when present, else ``score_col``.
    qrels_query_col, qrels_doc_col, qrels_relevance_col : str, optional
        Column names in the qrels when they differ from the run's.
    duplicates : {"error", "first"}, default "error"
        A document twice in one query's ranking: raise (like trec_eval) or keep the
        best-ranked row.

    Returns
    -------
    Same type as ``run``
        ``per_query=True``: the key columns and one Float64 column per measure; judged
        queries missing from the run are 0 (``missing="zero"``); run queries with no
        judgment have null values. ``per_query=False``: the mean of each measure over the
        judged queries, and ``n_queries``, ``n_missing`` (judged queries not in the run)
        and ``n_unjudged`` (run queries without judgments, excluded).

    Raises
    ------
    IrFrameError
        Subclasses name the column, query or parameter at fault and hint at the fix.

    Examples
    --------
    >>> import polars as pl, irframe
    >>> run = pl.DataFrame({
    ...     "query_id": ["q1", "q1", "q1", "q2", "q2"],
    ...     "doc_id": ["a", "b", "c", "a", "d"],
    ...     "rank": [1, 2, 3, 1, 2],
    ...     "relevance": [0, 3, 1, 2, 0],
    ... })
    >>> irframe.evaluate(run, ["nDCG@3", "RR", "P@2"], per_query=True)
    shape: (2, 4)
    ┌──────────┬──────────┬─────┬─────┐
    │ query_id ┆ nDCG@3   ┆ RR  ┆ P@2 │
    │ ---      ┆ ---      ┆ --- ┆ --- │
    │ str      ┆ f64      ┆ f64 ┆ f64 │
    ╞══════════╪══════════╪═════╪═════╡
    │ q1       ┆ 0.644287 ┆ 0.5 ┆ 0.5 │
    │ q2       ┆ 1.0      ┆ 1.0 ┆ 0.5 │
    └──────────┴──────────┴─────┴─────┘
    >>> irframe.evaluate(run, ["nDCG@3", "RR"])
    shape: (1, 5)
    ┌──────────┬──────┬───────────┬───────────┬────────────┐
    │ nDCG@3   ┆ RR   ┆ n_queries ┆ n_missing ┆ n_unjudged │
    │ ---      ┆ ---  ┆ ---       ┆ ---       ┆ ---        │
    │ f64      ┆ f64  ┆ i64       ┆ i64       ┆ i64        │
    ╞══════════╪══════╪═══════════╪═══════════╪════════════╡
    │ 0.822143 ┆ 0.75 ┆ 2         ┆ 0         ┆ 0          │
    └──────────┴──────┴───────────┴───────────┴────────────┘
    """
    backend = _backend(run)
    if backend is not None:  # a dask or Spark frame: the partitioned engine
        return backend(  # type: ignore[no-any-return]
            run, measures, qrels, by=by, per_query=per_query, missing=missing,
            query_col=query_col, doc_col=doc_col, rank_col=rank_col, score_col=score_col,
            relevance_col=relevance_col, qrels_query_col=qrels_query_col,
            qrels_doc_col=qrels_doc_col, qrels_relevance_col=qrels_relevance_col,
            duplicates=duplicates,
        )  # fmt: skip
    run_lf, origin = to_lazy(run, "run")
    plan = build(
        run_lf,
        measures,
        qrels,
        by=by,
        per_query=per_query,
        missing=missing,
        query_col=query_col,
        doc_col=doc_col,
        rank_col=rank_col,
        score_col=score_col,
        relevance_col=relevance_col,
        qrels_query_col=qrels_query_col,
        qrels_doc_col=qrels_doc_col,
        qrels_relevance_col=qrels_relevance_col,
        duplicates=duplicates,
        detect_order=origin.kind != "polars-lazy",
    )
    if origin.kind == "polars-lazy":
        table = _engine.checked(plan)
    else:
        plan, collected = _engine.collect(plan)
        table = collected.lazy()
    result = _engine.per_query_table(plan, table) if per_query else _engine.summarize(plan, table)
    return from_lazy(result, origin)  # type: ignore[no-any-return]


def _backend(run: object) -> Any:
    """``irframe.dask.evaluate`` / ``irframe.spark.evaluate`` for a dask or Spark frame.

    Looked up in ``sys.modules``: dask and pyspark are never imported to test a type.
    """
    dd = sys.modules.get("dask.dataframe")
    if dd is not None and isinstance(run, dd.DataFrame):
        from irframe import dask

        return dask.evaluate
    sql = sys.modules.get("pyspark.sql")
    if sql is not None and isinstance(run, sql.DataFrame):
        from irframe import spark

        return spark.evaluate
    return None


def build(
    run_lf: pl.LazyFrame,
    measures: MeasureLike | Iterable[MeasureLike],
    qrels: Any = None,
    *,
    by: str | Sequence[str] | None = None,
    per_query: bool = False,
    missing: Missing = "zero",
    query_col: str = "query_id",
    doc_col: str = "doc_id",
    rank_col: str | None = DEFAULT_RANK,
    score_col: str = "score",
    relevance_col: str = "relevance",
    qrels_query_col: str | None = None,
    qrels_doc_col: str | None = None,
    qrels_relevance_col: str | None = None,
    duplicates: Duplicates = "error",
    partition_values: pl.LazyFrame | None = None,
    allow_empty: bool = False,
    detect_order: bool = False,
) -> _engine.Plan:
    """Validate the parameters and columns, and build the engine's plan (no data is read)."""
    where = "evaluate"
    _choice("missing", missing, ("zero", "drop", "error"), where)
    _choice("duplicates", duplicates, ("error", "first"), where)
    if not isinstance(per_query, bool):
        raise InvalidParameterError.for_value("per_query", where, "a bool", per_query)
    parsed = parse_measures(measures)
    cols = resolve_run(
        run_lf.collect_schema(),
        query_col=query_col,
        doc_col=doc_col,
        rank_col=rank_col,
        score_col=score_col,
        relevance_col=relevance_col,
        by=_as_list(by),
        need_relevance=qrels is None,
    )
    qrels_lf: pl.LazyFrame | None = None
    qrels_cols = None
    if qrels is not None:
        qrels_lf, _ = to_lazy(qrels, "qrels")
        qrels_cols = resolve_qrels(
            qrels_lf.collect_schema(),
            query_col=qrels_query_col or query_col,
            doc_col=qrels_doc_col or doc_col,
            relevance_col=qrels_relevance_col or relevance_col,
        )
    return _engine.build_plan(
        run_lf,
        cols,
        parsed,
        qrels_lf,
        qrels_cols,
        missing=missing,
        duplicates=duplicates,
        partition_values=partition_values,
        allow_empty=allow_empty,
        detect_order=detect_order,
    )


def _one(run: FrameT, measure: Measure, per_query: bool, kwargs: dict[str, Any]) -> FrameT:
    """Evaluate one measure; its column is named by the measure's canonical string."""
    return evaluate(run, [measure], per_query=per_query, **kwargs)


def ndcg(
    run: FrameT,
    k: int | None = None,
    qrels: Any = None,
    *,
    gain: str | dict[float, float] = "exp",
    per_query: bool = True,
    **kwargs: Any,
) -> FrameT:
    """nDCG@k per query (``gain="exp"``: 2^rel - 1; ``"linear"``: trec_eval's ndcg_cut).

    Examples
    --------
    >>> import polars as pl, irframe
    >>> run = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "b", "c"],
    ...                     "score": [0.9, 0.8, 0.1], "relevance": [0, 3, 1]})
    >>> irframe.ndcg(run, k=3).item(0, "nDCG@3")  # (7/log2(3) + 1/log2(4)) / (7 + 1/log2(3))
    0.6442...
    """
    m = Measure("nDCG", k)
    m = m(gains=gain) if isinstance(gain, dict) else m(gain=gain)
    return _one(run, m, per_query, {"qrels": qrels, **kwargs})


def precision(
    run: FrameT, k: int, qrels: Any = None, *, rel: float = 1, per_query: bool = True, **kwargs: Any
) -> FrameT:
    """P@k per query: relevant documents in the top k divided by k.

    Examples
    --------
    >>> import polars as pl, irframe
    >>> run = pl.DataFrame({"query_id": ["q1"] * 2, "doc_id": ["a", "b"],
    ...                     "rank": [1, 2], "relevance": [1, 0]})
    >>> irframe.precision(run, k=4).item(0, "P@4")   # 1 relevant / 4, short runs count k
    0.25
    """
    return _one(run, Measure("P", k, rel=rel), per_query, {"qrels": qrels, **kwargs})


def recall(
    run: FrameT,
    k: int | None = None,
    qrels: Any = None,
    *,
    rel: float = 1,
    per_query: bool = True,
    **kwargs: Any,
) -> FrameT:
    """R@k per query: relevant documents in the top k over all judged relevant ones.

    Examples
    --------
    >>> import polars as pl, irframe
    >>> run = pl.DataFrame({"query_id": ["q1"] * 6, "doc_id": list("abcdef"),
    ...                     "rank": range(1, 7), "relevance": [0, 1, 0, 0, 0, 1]})
    >>> irframe.recall(run, k=5).item(0, "R@5")   # 2 relevant, one in the top 5
    0.5
    """
    return _one(run, Measure("R", k, rel=rel), per_query, {"qrels": qrels, **kwargs})


def mrr(
    run: FrameT,
    k: int | None = None,
    qrels: Any = None,
    *,
    rel: float = 1,
    per_query: bool = True,
    **kwargs: Any,
) -> FrameT:
    """Reciprocal rank of the first relevant document per query (its mean is MRR).

    Examples
    --------
    >>> import polars as pl, irframe
    >>> run = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": list("abc"),
    ...                     "rank": [1, 2, 3], "relevance": [0, 1, 1]})
    >>> irframe.mrr(run).item(0, "RR")   # first hit at rank 2
    0.5
    """
    return _one(run, Measure("RR", k, rel=rel), per_query, {"qrels": qrels, **kwargs})


def ap(
    run: FrameT,
    k: int | None = None,
    qrels: Any = None,
    *,
    rel: float = 1,
    per_query: bool = True,
    **kwargs: Any,
) -> FrameT:
    """Average precision per query (its mean is MAP).

    Examples
    --------
    >>> import polars as pl, irframe
    >>> run = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": list("abc"),
    ...                     "rank": [1, 2, 3], "relevance": [1, 0, 1]})
    >>> irframe.ap(run).item(0, "AP")   # (1/1 + 2/3) / 2
    0.8333...
    """
    return _one(run, Measure("AP", k, rel=rel), per_query, {"qrels": qrels, **kwargs})


def rprec(run: FrameT, qrels: Any = None, *, rel: float = 1, per_query: bool = True, **kwargs: Any) -> FrameT:
    """R-precision per query: relevant documents in the top R, over R.

    Examples
    --------
    >>> import polars as pl, irframe
    >>> run = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": list("abc"),
    ...                     "rank": [1, 2, 3], "relevance": [0, 1, 1]})
    >>> irframe.rprec(run).item(0, "Rprec")   # R = 2, one relevant in the top 2
    0.5
    """
    return _one(run, Measure("Rprec", rel=rel), per_query, {"qrels": qrels, **kwargs})


def bpref(run: FrameT, qrels: Any = None, *, rel: float = 1, per_query: bool = True, **kwargs: Any) -> FrameT:
    """Bpref per query (trec_eval's definition; unjudged documents are skipped).

    Examples
    --------
    >>> import polars as pl, irframe
    >>> run = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": list("abc"),
    ...                     "rank": [1, 2, 3], "relevance": [0, 1, None]})
    >>> irframe.bpref(run).item(0, "Bpref")   # 1 - min(1, R=1) / min(N=1, R=1)
    0.0
    """
    return _one(run, Measure("Bpref", rel=rel), per_query, {"qrels": qrels, **kwargs})


def success(
    run: FrameT, k: int, qrels: Any = None, *, rel: float = 1, per_query: bool = True, **kwargs: Any
) -> FrameT:
    """Success@k (hit rate) per query: 1 if a relevant document is in the top k.

    Examples
    --------
    >>> import polars as pl, irframe
    >>> run = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": list("abc"),
    ...                     "rank": [1, 2, 3], "relevance": [0, 0, 2]})
    >>> irframe.success(run, k=2).item(0, "Success@2")
    0.0
    """
    return _one(run, Measure("Success", k, rel=rel), per_query, {"qrels": qrels, **kwargs})


def judged(run: FrameT, k: int, qrels: Any = None, *, per_query: bool = True, **kwargs: Any) -> FrameT:
    """Judged@k per query: the fraction of the top k retrieved that has a judgment.

    Divided by min(k, number retrieved), as ir_measures does.

    Examples
    --------
    >>> import polars as pl, irframe
    >>> run = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": list("abc"),
    ...                     "rank": [1, 2, 3], "relevance": [0, None, 2]})
    >>> irframe.judged(run, k=2).item(0, "Judged@2")
    0.5
    """
    return _one(run, Measure("Judged", k), per_query, {"qrels": qrels, **kwargs})
