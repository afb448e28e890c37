"""One partition function for every backend: Arrow in, Arrow out, a fixed schema.

Per-query measures are decomposable: if each query's rows (and its judgments) sit in
one partition, evaluating partitions independently and concatenating gives exactly the
single-machine per-query table; means are then sums over counts.  Out-of-core, Dask and
Spark evaluation are built on these three functions:

- :func:`evaluate_partition` evaluates one partition (a ``pyarrow.Table`` or a frame);
- :func:`partial_sums` reduces per-query rows to per-group sums and counts;
- :func:`combine_partials` adds partial sums up and divides.

Examples
--------
>>> import polars as pl
>>> from irframe.partition import evaluate_partition, partial_sums, combine_partials
>>> run = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"],
...                     "score": [2.0, 1.0, 1.0]})
>>> qrels = pl.DataFrame({"query_id": ["q1", "q2", "q3"], "doc_id": ["b", "c", "z"],
...                       "relevance": [1, 1, 1]})
>>> parts = [evaluate_partition(run.filter(pl.col("query_id") == q), ["RR"],
...                             qrels.filter(pl.col("query_id") == q)) for q in ["q1", "q2"]]
>>> [p.num_rows for p in parts]
[1, 1]
>>> combine_partials(pl.concat([partial_sums(pl.from_arrow(p), ["RR"]) for p in parts]),
...                  ["RR"]).item(0, "RR")
0.75
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import polars as pl
import pyarrow as pa

from irframe import _engine
from irframe._frames import to_lazy
from irframe.functions import build
from irframe.measures import Measure, parse_measures

__all__ = [
    "FLAGS",
    "combine_partials",
    "evaluate_partition",
    "output_schema",
    "partial_sums",
]

IN_RUN = "in_run"
JUDGED = "judged"
FLAGS = (IN_RUN, JUDGED)


def _as_lazy(frame: Any) -> pl.LazyFrame:
    if isinstance(frame, pa.Table | pa.RecordBatch):
        return pl.from_arrow(frame).lazy()  # type: ignore[union-attr]
    return to_lazy(frame)[0]


def _plan(run: Any, measures: Any, qrels: Any, kwargs: dict[str, Any]) -> _engine.Plan:
    qrels_lf = None if qrels is None else _as_lazy(qrels)
    parts = kwargs.pop("partition_values", None)
    parts_lf = None if parts is None else _as_lazy(parts)
    return build(_as_lazy(run), measures, qrels_lf, partition_values=parts_lf, allow_empty=True, **kwargs)


def _select(plan: _engine.Plan, table: pl.LazyFrame | pl.DataFrame) -> Any:
    return table.select(
        *plan.keys,
        *plan.labels,
        pl.col(_engine.IN_RUN).alias(IN_RUN),
        pl.col(_engine.JUDGED).alias(JUDGED),
    )


def evaluate_partition(
    run: Any,
    measures: str | Measure | Iterable[str | Measure],
    qrels: Any = None,
    **kwargs: Any,
) -> pa.Table:
    """Evaluate one partition holding whole queries; return per-query rows as Arrow.

    Parameters
    ----------
    run : pyarrow.Table, pandas or polars frame
        The partition's rows. Every query must be entirely inside one partition.
    measures, qrels
        As for :func:`irframe.evaluate`. ``qrels`` should hold the judgments of this
        partition's queries (co-partitioned), or all of them when ``missing="drop"``.
    **kwargs
        ``by``, ``missing``, column names... as for :func:`irframe.evaluate`, and
        ``partition_values``: every value of the run-partitioning ``by`` columns (the
        systems) so that a system absent from this partition still gets its missing
        queries.

    Returns
    -------
    pyarrow.Table
        The schema of :func:`output_schema`: key columns, one float64 column per measure,
        and the booleans ``in_run`` and ``judged``. Empty partitions give empty tables.
    """
    kwargs.pop("per_query", None)
    plan = _plan(run, measures, qrels, {"detect_order": True, **kwargs})
    plan, df = _engine.collect(plan)
    return _select(plan, df).to_arrow()


def output_schema(
    run_schema: pa.Schema | pl.Schema | dict[str, Any],
    measures: str | Measure | Iterable[str | Measure],
    qrels_schema: pa.Schema | pl.Schema | dict[str, Any] | None = None,
    **kwargs: Any,
) -> pa.Schema:
    """The Arrow schema :func:`evaluate_partition` returns for inputs of these schemas.

    Examples
    --------
    >>> import pyarrow as pa
    >>> output_schema(pa.schema([("query_id", pa.string()), ("doc_id", pa.string()),
    ...                          ("score", pa.float64()), ("relevance", pa.int64())]), ["P@5"])
    query_id: large_string
    P@5: double
    in_run: bool
    judged: bool
    """

    def empty(schema: Any) -> pl.DataFrame:
        if isinstance(schema, pa.Schema):
            return pl.from_arrow(schema.empty_table())  # type: ignore[return-value]
        return pl.DataFrame(schema=dict(schema))

    qrels = None if qrels_schema is None else empty(qrels_schema)
    kwargs.pop("per_query", None)
    plan = _plan(empty(run_schema), measures, qrels, kwargs)
    return _select(plan, plan.frame).collect().to_arrow().schema


def partial_sums(
    per_query: pl.DataFrame | pl.LazyFrame,
    labels: Sequence[str],
    by: Sequence[str] = (),
    missing: str = "zero",
) -> Any:
    """Per-group sums and counts of per-query rows (with the ``in_run``/``judged`` flags).

    Partial sums from several partitions are concatenated and finished by
    :func:`combine_partials`; this is how means are aggregated on any backend.
    """
    counted = pl.col(JUDGED) & pl.col(IN_RUN) if missing == "drop" else pl.col(JUDGED)
    aggs = [
        *(pl.col(m).filter(counted).sum().alias(m) for m in labels),
        counted.sum().cast(pl.Int64).alias("n_queries"),
        (pl.col(JUDGED) & ~pl.col(IN_RUN)).sum().cast(pl.Int64).alias("n_missing"),
        (~pl.col(JUDGED) & pl.col(IN_RUN)).sum().cast(pl.Int64).alias("n_unjudged"),
    ]
    if by:
        return per_query.group_by(list(by)).agg(aggs)
    return per_query.select(aggs)


def combine_partials(
    partials: pl.DataFrame | pl.LazyFrame, labels: Sequence[str], by: Sequence[str] = ()
) -> Any:
    """Add partial sums up per group and divide by the query counts: the means."""
    counts = ["n_queries", "n_missing", "n_unjudged"]
    summed = [pl.col(c).sum() for c in (*labels, *counts)]
    if by:
        lf = partials.group_by(list(by)).agg(summed).sort(list(by), nulls_last=True)
    else:
        lf = partials.select(summed)
    n = pl.col("n_queries")
    # a group without counted queries has no mean (null, as irframe.evaluate gives)
    return lf.with_columns(pl.when(n > 0).then(pl.col(m) / n).alias(m) for m in labels)


def labels_of(measures: str | Measure | Iterable[str | Measure]) -> list[str]:
    """The output column names for these measures (the caller's spellings)."""
    return [label for label, _ in parse_measures(measures)]
