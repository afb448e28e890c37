"""A click log on Spark: the log repartitioned into buckets of whole queries, each aggregated in a task.

A ``pyspark.sql.DataFrame`` log is repartitioned by the Spark backend's rule
(:class:`irframe._backends.spark.Spark`'s ``colocate``: ``repartition(n, query id as a
string)``, so a query's rows, hence its impressions, share a partition).  A first job checks
each partition as the in-memory log is (:func:`~irframe._clicks.prepare.cut_log`) and
returns its counts; every per-query aggregation of an estimator
(:meth:`~irframe._clicks.prepare.ClickLog.map`) is then one ``mapInArrow`` job whose tasks
run the aggregation with polars on their partition and send its small table back to the
driver (as Arrow IPC bytes, so that any table shape fits one Spark schema), where the
tables are reduced as the out-of-core buckets are.  The same numbers as in memory; the
result is a pandas frame (Spark's local frame type).  An input error raised in a task
(an :class:`~irframe.exceptions.IrFrameError`) is raised again on the driver as it is.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import polars as pl

from irframe._backends.spark import Spark, default_parallelism
from irframe._backends.spark import run_tasks as _run
from irframe._clicks.prepare import COUNTS, ClickLog, check_positive_int, cut_log, cut_rows, warn_beyond
from irframe._input.frames import Origin
from irframe._input.logs import LogColumns, canonical_log, check_log, log_columns

__all__ = ["spark_log"]


def _check_whole(log: Any, cols: LogColumns, schema: pl.Schema, totals: dict[str, int]) -> None:
    """The whole log's errors that no partition sees: an empty log, and an impression whose
    rows show several queries (split between partitions: counted, then named by the check
    of the whole log, collected)."""
    from pyspark.sql import functions as F

    if not totals["n_rows"]:
        check_log(canonical_log(pl.LazyFrame(schema=schema), cols), cols)
    distinct = log.select(F.countDistinct(F.col(f"`{cols.impression}`"))).collect()[0][0]
    if totals["n_impressions"] != distinct:
        check_log(canonical_log(pl.DataFrame(log.toArrow()).lazy(), cols), cols)


@contextlib.contextmanager
def spark_log(
    log: Any,
    *,
    where: str,
    columns: Mapping[str, str],
    max_position: int | None,
    buckets: int | None,
    extra: Mapping[str, str | None] | None = None,
) -> Iterator[ClickLog]:
    """The Spark log as a :class:`ClickLog` whose ``map`` runs a job over its query buckets
    (the repartitioned log is cached inside the ``with`` block)."""
    check_positive_int(max_position, "max_position", where, allow_none=True)
    check_positive_int(buckets, "buckets", where, allow_none=True)
    n = buckets or default_parallelism(log.sparkSession)
    backend = Spark(n)
    schema = backend.schema(backend.run_input(log))
    cols = log_columns(schema, **columns, extra=extra)
    placed = backend.colocate(log, None, cols.query, cols.query).stacked.persist()
    try:
        yield _click_log(log, placed, cols, schema, where=where, max_position=max_position, n=n)
    finally:
        placed.unpersist()


def _click_log(
    log: Any,
    placed: Any,
    cols: LogColumns,
    schema: pl.Schema,
    *,
    where: str,
    max_position: int | None,
    n: int,
) -> ClickLog:
    """The checked, counted log whose ``map`` runs ``fn`` on each partition of ``placed``."""

    def counts(rows: pl.DataFrame) -> pl.DataFrame:
        clog = cut_log(canonical_log(rows.lazy(), cols), cols, Origin("pandas"), max_position)
        return pl.DataFrame({k: [getattr(clog, k)] for k in COUNTS})

    found = _run(placed, counts)
    totals = {k: sum(int(c[k][0]) for c in found) for k in COUNTS}
    _check_whole(log, cols, schema, totals)

    def mapper(fn: Callable[[pl.LazyFrame], pl.LazyFrame]) -> list[pl.DataFrame]:
        return _run(
            placed, lambda rows: fn(cut_rows(canonical_log(rows.lazy(), cols), max_position)).collect()
        )

    clog = ClickLog.on_cluster(cols, totals, n, mapper)
    warn_beyond(where, clog, max_position)
    return clog
