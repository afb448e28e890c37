"""A click log on Dask: the log shuffled into buckets of whole queries, each aggregated in a task.

A ``dask.dataframe.DataFrame`` log is shuffled by the Dask backend's rule
(:class:`irframe._backends.dask.Dask`'s ``colocate``: partition ``b`` holds the queries of hash
bucket ``b``).  Each partition is made canonical and checked in its task
(:func:`~irframe._clicks.prepare.cut_log`) and kept on the cluster (``persist``); every
per-query aggregation of an estimator (:meth:`~irframe._clicks.prepare.ClickLog.map`) is
then one task per partition, whose small tables are gathered and reduced on the client as
the out-of-core buckets are.  The same numbers as in memory; the result is a pandas frame
(a dask partition's type).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import polars as pl

from irframe._backends.dask import Dask
from irframe._clicks.prepare import COUNTS, ClickLog, check_positive_int, cut_log, warn_beyond
from irframe._input.frames import Origin
from irframe._input.logs import LogColumns, canonical_log, check_log, log_columns

__all__ = ["dask_log"]


def _checked(pdf: Any, cols: LogColumns, max_position: int | None) -> tuple[pl.DataFrame, dict[str, int]]:
    """One partition's canonical, checked and cut rows (eager) and its counts."""
    if len(pdf) == 0:
        return pl.DataFrame(), dict.fromkeys(COUNTS, 0)
    frame = pl.from_pandas(pdf.reset_index(drop=True))
    clog = cut_log(canonical_log(frame.lazy(), cols), cols, Origin("pandas"), max_position)
    return clog.rows.collect(), {k: getattr(clog, k) for k in COUNTS}


def _apply(
    part: tuple[pl.DataFrame, dict[str, int]], fn: Callable[[pl.LazyFrame], pl.LazyFrame]
) -> pl.DataFrame:
    return fn(part[0].lazy()).collect()


def dask_log(
    log: Any,
    *,
    where: str,
    columns: Mapping[str, str],
    max_position: int | None,
    buckets: int | None,
    extra: Mapping[str, str | None] | None = None,
) -> ClickLog:
    """The Dask log as a :class:`ClickLog` whose ``map`` runs a task per query bucket."""
    from dask.base import compute, persist
    from dask.delayed import delayed

    check_positive_int(max_position, "max_position", where, allow_none=True)
    check_positive_int(buckets, "buckets", where, allow_none=True)
    backend = Dask(buckets)
    schema = backend.schema(log)
    cols = log_columns(schema, **columns, extra=extra)
    placed = backend.colocate(backend.run_input(log), None, cols.query, cols.query)
    tasks = [delayed(_checked)(p, cols, max_position) for p in placed.run_buckets.to_delayed()]
    parts = list(persist(*tasks))  # type: ignore[no-untyped-call]
    counts = [c for _, c in compute(*parts)]  # type: ignore[no-untyped-call]
    totals = {k: sum(c[k] for c in counts) for k in COUNTS}
    if not totals["n_rows"]:  # (the empty log's error, as in memory)
        check_log(canonical_log(pl.LazyFrame(schema=schema), cols), cols)
    distinct = int(log[cols.impression].nunique().compute())
    if totals["n_impressions"] != distinct:  # an impression of several queries, split between tasks
        check_log(canonical_log(pl.from_pandas(log.compute()).lazy(), cols), cols)
    live = [p for p, c in zip(parts, counts, strict=True) if c["n_rows"]]

    def mapper(fn: Callable[[pl.LazyFrame], pl.LazyFrame]) -> list[pl.DataFrame]:
        return list(compute(*[delayed(_apply)(p, fn) for p in live]))  # type: ignore[no-untyped-call]

    clog = ClickLog.on_cluster(cols, totals, len(parts), mapper)
    warn_beyond(where, clog, max_position)
    return clog
