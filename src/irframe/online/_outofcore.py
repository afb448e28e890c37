"""An online log out of core: hash buckets written once, each aggregated in turn, the sums added.

``memory_limit=`` (or ``buckets=``) sends the log (a frame, a LazyFrame scan, or parquet files,
a glob, a directory) through the out-of-core backend (:class:`irframe._backends.parquet.Parquet`:
the number of buckets from ``memory_limit``, the spill directory and its cleanup), as
:mod:`irframe._clicks.outofcore` does: one streaming pass writes it into buckets of a key
column, and the verbs then run their per-impression steps bucket by bucket.  The key keeps
what a step reads whole in one bucket:

* the impression (``metrics``/``compare`` without session metrics): every impression's rows
  in one bucket; the per-unit sums of the buckets are added (a unit's impressions may lie in
  several buckets: its sums are additive);
* the session (``Reformulation``, ``SuccessfulSession``): every session whole (its next query);
* the query (``interleaving``): every query's impressions whole (``per="query"`` sums them).

An impression whose rows disagree on the key (two sessions, two queries) may fall in several
buckets, where no bucket sees it whole: :func:`split_impressions` counts the distinct
impressions over the whole log (one streaming column) against the buckets' sum, and the caller
then runs the whole log's check, which names it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from collections.abc import Iterator
from typing import Any

import polars as pl

from irframe._input.frames import Origin
from irframe._input.logs import IMPRESSION
from irframe.exceptions import InvalidParameterError
from irframe.online._log import OnlineLog, read_online_log
from irframe.online._spark import is_spark, spark_distinct, spark_online_log, spark_rows

__all__ = [
    "bucket_log",
    "check_out_of_core",
    "in_memory_only",
    "online_log",
    "split_impressions",
    "whole_rows",
]


def check_out_of_core(log: Any, memory_limit: Any, buckets: Any, where: str) -> bool:
    """Whether the call runs out of core; refuses ``memory_limit``/``buckets`` for a dask log
    (its partitions are the buckets)."""
    from irframe._backends.dask import is_dask_frame

    if (memory_limit is not None or buckets is not None) and is_dask_frame(log):
        name = "memory_limit" if memory_limit is not None else "buckets"
        raise InvalidParameterError.for_value(
            name, where, "None for a dask log (dask's partitions are its buckets)", memory_limit or buckets
        )
    if memory_limit is not None and is_spark(log):
        raise InvalidParameterError.for_value(
            "memory_limit", where, "None for a Spark log (its partitions are the buckets; buckets= sets "
            "their number)", memory_limit,
        )  # fmt: skip
    return memory_limit is not None or buckets is not None


def in_memory_only(memory_limit: object, where: str, why: str) -> None:
    """Refuse ``memory_limit=`` for a verb that has no out-of-core path, saying ``why``."""
    if memory_limit is not None:
        msg = f"{where}: memory_limit={memory_limit!r} is not available: {why} Hint: drop memory_limit=."
        raise InvalidParameterError(msg)


@contextlib.contextmanager
def online_log(
    log: Any,
    *,
    key: str,
    memory_limit: int | str | None,
    buckets: int | None,
    tmp_dir: str | os.PathLike[str] | None,
    **read: Any,
) -> Iterator[OnlineLog]:
    """The log read by :func:`read_online_log` (``read``: its keywords); out of core, its
    ``buckets`` are the canonical rows of each non-empty bucket of the ``key`` role's column
    (valid inside the ``with`` block: they read the spill files)."""
    where = read["where"]
    if is_spark(log):
        check_out_of_core(log, memory_limit, None, where)
        yield spark_online_log(log, key=key, buckets=buckets, **read)
        return
    if not check_out_of_core(log, memory_limit, buckets, where):
        yield read_online_log(log, **read)
        return
    from irframe._backends.parquet import Parquet, is_paths, parse_bytes  # (only out of core)

    if buckets is not None and (isinstance(buckets, bool) or not isinstance(buckets, int) or buckets < 1):
        raise InvalidParameterError.for_value("buckets", where, "a positive int", buckets)
    limit = parse_bytes("4GB" if memory_limit is None else memory_limit, where)
    backend = Parquet(limit, buckets, tmp_dir=tmp_dir)
    raw = backend.run_input(log) if is_paths(log) else None
    olog = read_online_log(log if raw is None else raw, **read)
    raw = olog.raw if raw is None else raw
    assert raw is not None  # (read_online_log keeps the caller's rows)
    with backend.session():
        placed = backend.colocate(raw, None, olog.names[key], olog.names[key])
        parts = []
        for b in range(placed.n):
            found = placed.inputs(b)
            if found is not None:
                parts.append(olog.prepare(found[0]))
        origin = Origin("polars") if is_paths(log) else olog.origin
        yield dataclasses.replace(olog, origin=origin, buckets=tuple(parts) or (olog.lf,), bucket_key=key)


def whole_rows(olog: OnlineLog) -> pl.LazyFrame:
    """The whole log's canonical rows (a Spark log's collected: to name an offending impression)."""
    return olog.lf if olog.spark is None else spark_rows(olog)


def bucket_log(olog: OnlineLog, lf: pl.LazyFrame) -> OnlineLog:
    """One bucket as a log of its own (read by polars' streaming engine)."""
    return dataclasses.replace(olog, lf=lf, origin=Origin("polars-lazy"), buckets=None)


def split_impressions(olog: OnlineLog, found: int) -> bool:
    """Whether the buckets' impressions (``found``, summed) are fewer than the whole log's
    distinct impressions: then one was split over buckets (its rows disagree on the key)."""
    if olog.spark is not None:
        return found != spark_distinct(olog)
    distinct = olog.lf.select(pl.col(IMPRESSION).n_unique()).collect(engine="streaming").item()
    return bool(found != distinct)
