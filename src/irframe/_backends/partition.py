"""The partition function of every backend (public as :mod:`irframe.partition`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import polars as pl
import pyarrow as pa

from irframe import _engine as engine
from irframe._engine import aggregate as _aggregate
from irframe._engine import compose
from irframe._input.frames import to_lazy
from irframe._input.options import Options
from irframe.measures import Measure

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


def _options(kwargs: dict[str, Any]) -> tuple[Options, pl.LazyFrame | None]:
    """The options, given whole (``options=``) or as keywords, and the partition values."""
    kwargs = dict(kwargs)
    kwargs.pop("per_query", None)
    parts = kwargs.pop("partition_values", None)
    opts = kwargs.pop("options", None)
    if opts is None:
        opts = Options.build("evaluate_partition", **kwargs)
    elif kwargs:
        msg = f"evaluate_partition takes options= or keyword options, not both (got {sorted(kwargs)})."
        raise TypeError(msg)
    return opts, None if parts is None else to_lazy(parts, "partition_values")[0]


def _plan(run: Any, measures: Any, qrels: Any, kwargs: dict[str, Any]) -> engine.Plan:
    """The plan for one partition (not collected: its schema is the output's)."""
    opts, parts = _options(kwargs)
    run_lf = to_lazy(run, "run")[0]
    qrels_lf = None if qrels is None else to_lazy(qrels, "qrels")[0]
    return compose.plan(run_lf, measures, qrels_lf, opts, partition_values=parts)


def output_columns(plan: engine.Plan, table: pl.LazyFrame | pl.DataFrame) -> Any:
    """The columns of :func:`evaluate_partition`'s output, from the engine's table."""
    return table.select(
        *plan.keys,
        *plan.labels,
        pl.col(engine.IN_RUN).alias(IN_RUN),
        pl.col(engine.JUDGED).alias(JUDGED),
    )


def evaluate_partition(
    run: Any,
    measures: str | Measure | Iterable[str | Measure],
    qrels: Any = None,
    **kwargs: Any,
) -> pa.Table:
    """Evaluate one partition holding whole queries; return per-query rows as Arrow.

    The evaluation is composed as in process (:mod:`irframe._engine.compose`): ``ties=``
    and the diversity measures (subtopic qrels, co-partitioned) give the in-process values.

    Parameters
    ----------
    run : pyarrow.Table, pandas or polars frame
        The partition's rows. Every query must be entirely inside one partition.
    measures, qrels
        As for :func:`irframe.evaluate`. ``qrels`` should hold the judgments of this
        partition's queries (co-partitioned), or all of them when ``missing="drop"``.
    **kwargs
        ``by``, ``missing``, column names... as for :func:`irframe.evaluate` (or one
        ``options=`` value, :class:`irframe._input.options.Options`), and
        ``partition_values``: every value of the run-partitioning ``by`` columns (the
        systems) so that a system absent from this partition still gets its missing
        queries.

    Returns
    -------
    pyarrow.Table
        The schema of :func:`output_schema`: key columns, one float64 column per measure,
        and the booleans ``in_run`` and ``judged``. Empty partitions give empty tables.
    """
    opts, parts = _options(kwargs)
    plan, df = compose.evaluate_part(run, measures, qrels, opts, partition_values=parts)
    return output_columns(plan, df).to_arrow()


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
    plan = _plan(empty(run_schema), measures, qrels, kwargs)
    return output_columns(plan, plan.frame).collect().to_arrow().schema


def partial_sums(
    per_query: pl.DataFrame | pl.LazyFrame,
    labels: Sequence[str],
    by: Sequence[str] = (),
    missing: str = "zero",
    *,
    aggregates: Mapping[str, str] | None = None,
) -> Any:
    """Per-group sums and counts of per-query rows (with the ``in_run``/``judged`` flags).

    Partial sums from several partitions are concatenated and finished by
    :func:`combine_partials`; this is how means are aggregated on any backend.
    ``aggregates``: label -> ``"mean"`` (default), ``"gmean"`` or ``"sum"``.
    """
    return _aggregate.partial_sums(per_query, labels, by, missing, flags=FLAGS, aggregates=aggregates)


def combine_partials(
    partials: pl.DataFrame | pl.LazyFrame,
    labels: Sequence[str],
    by: Sequence[str] = (),
    *,
    aggregates: Mapping[str, str] | None = None,
) -> Any:
    """Add partial sums up per group and divide by the query counts: the means."""
    return _aggregate.combine_partials(partials, labels, by, aggregates=aggregates)
