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
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import polars as pl

from irframe._clicks.prepare import ClickLog, check_positive_int, cut_log, cut_rows, read_log, warn_beyond
from irframe._input.frames import Origin, to_lazy
from irframe._input.logs import LogColumns, canonical_log, check_log, log_columns
from irframe.exceptions import InvalidParameterError

__all__ = ["bucketed_log", "open_log"]


def _buckets(lf: pl.LazyFrame, placed: Any, cols: LogColumns) -> list[pl.LazyFrame]:
    """Each non-empty bucket as a canonical lazy frame (its row count: the files' metadata);
    an empty log raises its error here."""
    parts = []
    for b in range(placed.n):
        found = placed.inputs(b)
        if found is None or not found[0].select(pl.len()).collect().item():
            continue
        parts.append(canonical_log(found[0], cols))
    if not parts:
        check_log(canonical_log(lf, cols), cols)
    return parts


def _check_split_impressions(lf: pl.LazyFrame, cols: LogColumns, found: int) -> None:
    """An impression whose rows show several queries may fall in several buckets, where
    no bucket sees it whole: counted over the whole log (one streaming column), and then
    named by the whole log's check."""
    distinct = lf.select(pl.col(cols.impression).n_unique()).collect(engine="streaming").item()
    if found != distinct:
        check_log(canonical_log(lf, cols), cols)


_COUNTS = ("n_rows", "n_impressions", "n_impressions_without_clicks", "n_rows_beyond_max_position")
Aggregation = Callable[[pl.LazyFrame], pl.LazyFrame]


@dataclass
class _Buckets:
    """The mapper of a bucketed log: each aggregation reads each bucket once (into memory:
    a bucket is sized to fit), the first one also checks and counts it there."""

    lf: pl.LazyFrame
    parts: list[pl.LazyFrame]
    where: str
    max_position: int | None
    clog: ClickLog | None = None
    checked: bool = False

    def __call__(self, fn: Aggregation) -> list[pl.DataFrame]:
        clog = self.clog
        if clog is None:  # (set by bucketed_log before any map)
            msg = "the bucketed log's mapper has no log"
            raise RuntimeError(msg)
        tables, checked = [], []
        for part in self.parts:
            rows = part.collect().lazy()  # the bucket, read once for this aggregation
            if not self.checked:  # the first aggregation: the bucket checked as the in-memory log is
                checked.append(cut_log(rows, clog.cols, clog.origin, self.max_position))
                tables.append(fn(checked[-1].rows).collect())
            else:
                tables.append(fn(cut_rows(rows, self.max_position)).collect())
        if not self.checked:
            self.checked = True
            for name in _COUNTS:
                setattr(clog, name, sum(getattr(p, name) for p in checked))
            if len(self.parts) > 1:
                _check_split_impressions(self.lf, clog.cols, clog.n_impressions)
            warn_beyond(self.where, clog, self.max_position, stacklevel=7)
        return tables


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
    """The log as a :class:`ClickLog` whose ``mapper`` runs an aggregation bucket by bucket
    (valid inside the ``with`` block: it reads the spill files); its counts are filled in
    by its first aggregation, which checks each bucket."""
    from irframe._backends.parquet import Parquet, is_paths, parse_bytes  # (only out of core)

    check_positive_int(max_position, "max_position", where, allow_none=True)
    check_positive_int(buckets, "buckets", where, allow_none=True)
    limit = parse_bytes("4GB" if memory_limit is None else memory_limit, where)
    backend = Parquet(limit, buckets, tmp_dir=tmp_dir, where=where)
    lf, origin = (backend.run_input(log), Origin("polars")) if is_paths(log) else to_lazy(log, "log")
    cols = log_columns(lf.collect_schema(), **columns, extra=extra)
    with backend.session():
        placed = backend.colocate(lf, None, cols.query, cols.query)
        parts = _buckets(lf, placed, cols)
        mapper = _Buckets(lf, parts, where, max_position)
        rows = pl.concat([cut_rows(p, max_position) for p in parts])  # (lazily: the buckets' rows)
        mapper.clog = ClickLog(rows, cols, origin, 0, 0, 0, 0, n_buckets=placed.n, mapper=mapper)
        yield mapper.clog


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
