"""Spark: ``irframe.spark.evaluate`` on a ``pyspark.sql.DataFrame``.

Install with ``pip install "irframe[spark]"`` (Java 17).

The implementation is :mod:`irframe._backends.spark`: ``repartition`` by query, then
``mapInArrow`` with :func:`irframe.partition.evaluate_partition`; the partitions' sums
(or per-query rows) are finished in one task, by the rules every backend shares.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from irframe._backends.spark import is_spark_frame
from irframe.functions import EvaluateOptions, MeasureLike, evaluate_as, with_evaluate_options

if TYPE_CHECKING:
    from pyspark.sql import DataFrame
    from typing_extensions import Unpack

__all__ = ["evaluate", "is_spark_frame"]


@with_evaluate_options
def evaluate(
    run: DataFrame,
    measures: MeasureLike | Iterable[MeasureLike],
    qrels: Any = None,
    *,
    num_partitions: int | None = None,
    **options: Unpack[EvaluateOptions],
) -> DataFrame:
    """Evaluate a Spark DataFrame run; a (lazy) Spark DataFrame comes back.

    ``irframe.evaluate(spark_df, ...)`` calls this too.

    Parameters
    ----------
    run : pyspark.sql.DataFrame
        Long format, as for :func:`irframe.evaluate`.
    measures
        As for :func:`irframe.evaluate`.
    qrels : Spark, pandas or polars DataFrame, optional
        A local frame is turned into a Spark DataFrame first.
    num_partitions : int, optional
        Partitions of the evaluation (``repartition(n, query)``); default: the
        session's default parallelism. More partitions than queries is fine.
    queries : Spark, pandas or polars DataFrame, optional
        Query attributes keyed by query id, as for :func:`irframe.evaluate`: a ``by``
        column the run lacks is taken from it (else from the qrels), checked for one value
        per query when ``evaluate`` is called (a Spark frame is collected: it is small),
        and broadcast-joined onto the run (and the qrels) before the repartition.
    **options
        Every other keyword option of :func:`irframe.evaluate` (``by``, ``per_query``,
        ``missing``, the column names, ``duplicates``, ``columns``, ``order``, ``depth``,
        ``weights``), with its default. ``ties`` and the diversity measures give the in-process
        values (each partition composes them). ``weights``: the weights table is built on the
        driver, from a queries table or the qrels' distinct (query, weight) rows, and sent with
        every task, whose weighted partial sums add up to the in-process means.

    Returns
    -------
    pyspark.sql.DataFrame
        ``per_query=True``: key columns and one double column per measure, one row per
        (by-group, query), in natural query order (q2 before q10) as on every
        backend. ``per_query=False``: the means and the query
        counts of :func:`irframe.evaluate`, by ``by`` when given (sorted). Values equal
        :func:`irframe.evaluate`'s exactly per query (means up to summation order).
        Input errors are raised on the executors when an action runs (Spark wraps them
        in ``PythonException`` with irframe's message), except those of query attributes
        (``queries``, or a ``by`` column only the qrels carry), raised by ``evaluate`` on
        the driver.
    """
    # pyspark may be missing where mypy runs (DataFrame is Any then): an assignment
    # types the same with and without it, a ``type: ignore`` would not
    result: DataFrame = evaluate_as(
        "irframe.spark.evaluate", run, measures, qrels, options, backend="spark",
        num_partitions=num_partitions,
    )  # fmt: skip
    return result
