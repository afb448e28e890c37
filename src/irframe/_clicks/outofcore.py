"""A click log out of core: buckets of whole queries, each checked, then aggregated in turn.

The log (parquet files, a glob, a directory, or any frame) is written once into hash
buckets of its query id by the out-of-core backend (:class:`irframe._backends.parquet.Parquet`:
the number of buckets from ``memory_limit``, the spill directory and its cleanup).  An
impression belongs to one query, so each bucket holds whole impressions and every
(query, document) pair's rows.  Each bucket is checked as the in-memory log is
(:func:`~irframe._clicks.prepare.cut_log`); the counts add up.  The estimators then run
their per-query aggregations bucket by bucket (:meth:`~irframe._clicks.prepare.ClickLog.map`)
and reduce the per-bucket tables: the same numbers as in memory.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator, Mapping
from typing import Any

import polars as pl

from irframe._clicks.prepare import ClickLog, check_positive_int, cut_log, read_log, warn_beyond
from irframe._input.frames import Origin, to_lazy
from irframe._input.logs import LogColumns, canonical_log, check_log, log_columns
from irframe.exceptions import InvalidParameterError

__all__ = ["bucketed_log", "open_log"]


def _parts(
    lf: pl.LazyFrame, placed: Any, cols: LogColumns, origin: Origin, cut: int | None
) -> list[ClickLog]:
    """Each non-empty bucket, checked and cut (the whole log when every bucket is empty:
    its check raises the empty log's error)."""
    parts = []
    for b in range(placed.n):
        found = placed.inputs(b)
        if found is None or not found[0].select(pl.len()).collect().item():
            continue
        parts.append(cut_log(canonical_log(found[0], cols), cols, origin, cut))
    return parts or [cut_log(canonical_log(lf, cols), cols, origin, cut)]


def _check_split_impressions(lf: pl.LazyFrame, cols: LogColumns, parts: list[ClickLog]) -> None:
    """An impression whose rows show several queries may fall in several buckets, where
    no bucket sees it whole: counted over the whole log (one streaming column), and then
    named by the whole log's check."""
    found = sum(p.n_impressions for p in parts)
    distinct = lf.select(pl.col(cols.impression).n_unique()).collect(engine="streaming").item()
    if found != distinct:
        check_log(canonical_log(lf, cols), cols)


@contextlib.contextmanager
def bucketed_log(
    log: Any,
    *,
    where: str,
    columns: Mapping[str, str],
    max_position: int | None,
    memory_limit: int | str | None,
    buckets: int | None,
    tmp_dir: str | os.PathLike[str] | None,
    extra: Mapping[str, str | None] | None = None,
) -> Iterator[ClickLog]:
    """The log as a :class:`ClickLog` whose ``parts`` are its query buckets (valid inside
    the ``with`` block: they read the spill files)."""
    from irframe._backends.parquet import Parquet, is_paths, parse_bytes  # (only out of core)

    check_positive_int(max_position, "max_position", where, allow_none=True)
    check_positive_int(buckets, "buckets", where, allow_none=True)
    limit = parse_bytes("4GB" if memory_limit is None else memory_limit, where)
    backend = Parquet(limit, buckets, tmp_dir=tmp_dir, where=where)
    lf, origin = (backend.run_input(log), Origin("polars")) if is_paths(log) else to_lazy(log, "log")
    cols = log_columns(lf.collect_schema(), **columns, extra=extra)
    with backend.session():
        placed = backend.colocate(lf, None, cols.query, cols.query)
        parts = _parts(lf, placed, cols, origin, max_position)
        if placed.n > 1:
            _check_split_impressions(lf, cols, parts)
        clog = ClickLog(
            pl.concat([p.rows for p in parts]),  # (the buckets' checked rows, lazily)
            cols,
            origin,
            sum(p.n_rows for p in parts),
            sum(p.n_impressions for p in parts),
            sum(p.n_impressions_without_clicks for p in parts),
            sum(p.n_rows_beyond_max_position for p in parts),
            tuple(p.rows for p in parts),
            placed.n,
        )
        warn_beyond(where, clog, max_position)
        yield clog


def _is_dask_frame(log: Any) -> bool:
    from irframe._backends.dask import is_dask_frame

    return is_dask_frame(log)


def _is_spark_frame(log: Any) -> bool:
    from irframe._backends.spark import is_spark_frame

    return is_spark_frame(log)


def _no_memory_limit(memory_limit: object, where: str, what: str) -> None:
    """A cluster's frame has no ``memory_limit``: its partitions are the buckets."""
    if memory_limit is not None:
        raise InvalidParameterError.for_value(
            "memory_limit", where, f"None for {what} (its partitions are the buckets; buckets= sets "
            "their number)", memory_limit,
        )  # fmt: skip


@contextlib.contextmanager
def open_log(
    log: Any,
    *,
    where: str,
    columns: Mapping[str, str],
    max_position: int | None,
    memory_limit: int | str | None = None,
    buckets: int | None = None,
    tmp_dir: str | os.PathLike[str] | None = None,
    extra: Mapping[str, str | None] | None = None,
) -> Iterator[ClickLog]:
    """The log in memory (:func:`~irframe._clicks.prepare.read_log`), out of core
    (:func:`bucketed_log`) when ``memory_limit`` or ``buckets`` is given, or on Dask
    (:func:`~irframe._clicks.ondask.dask_log`) for a dask frame, on Spark
    (:func:`~irframe._clicks.onspark.spark_log`) for a Spark frame."""
    if "dask" in sys.modules and _is_dask_frame(log):
        _no_memory_limit(memory_limit, where, "a dask frame")
        from irframe._clicks.ondask import dask_log  # (dask imported only for a dask frame)

        yield dask_log(
            log, where=where, columns=columns, max_position=max_position, buckets=buckets, extra=extra
        )
        return
    if "pyspark" in sys.modules and _is_spark_frame(log):
        _no_memory_limit(memory_limit, where, "a Spark frame")
        from irframe._clicks.onspark import spark_log  # (pyspark imported only for a Spark frame)

        with spark_log(
            log, where=where, columns=columns, max_position=max_position, buckets=buckets, extra=extra
        ) as clog:  # fmt: skip
            yield clog
        return
    if memory_limit is None and buckets is None:
        yield read_log(log, where=where, columns=columns, max_position=max_position, extra=extra)
        return
    with bucketed_log(
        log, where=where, columns=columns, max_position=max_position, memory_limit=memory_limit,
        buckets=buckets, tmp_dir=tmp_dir, extra=extra,
    ) as clog:  # fmt: skip
        yield clog
