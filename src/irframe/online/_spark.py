"""An online log on Spark: repartitioned into buckets, each aggregated in a task, the sums added.

A ``pyspark.sql.DataFrame`` log is repartitioned by the Spark backend's rule
(:class:`irframe._backends.spark.Spark`'s ``colocate``: ``repartition(n, key as a string)``)
on the column that keeps what a verb reads whole (as the out-of-core buckets,
:mod:`irframe.online._outofcore`: the impression, the session or the query).  Each
partition then runs in its task exactly what a bucket runs in process (the caller's rows to
the canonical log, the checks, the per-unit sums or the credit), and sends its small tables
back to the driver (Arrow IPC, :func:`irframe._backends.spark.run_tasks`), where they are
added as the buckets' are.  An input error raised in a task is raised on the driver as it
is; an impression split over partitions (rows that disagree on the key) is found by the
distinct impressions of the whole log and named by the check of the whole log, collected.
The result is a pandas frame (Spark's local frame type), with the same numbers as in memory.
"""

from __future__ import annotations

import dataclasses
import io
import json
from collections.abc import Callable, Mapping
from typing import Any

import polars as pl

from irframe._input.frames import Origin
from irframe.online._log import OnlineLog, read_online_log

__all__ = ["is_spark", "pack", "spark_distinct", "spark_online_log", "spark_rows", "spark_tasks", "unpack"]


def is_spark(log: Any) -> bool:
    """Whether ``log`` is a Spark DataFrame (without importing pyspark)."""
    from irframe._backends.spark import is_spark_frame

    return is_spark_frame(log)


def spark_online_log(log: Any, *, key: str, buckets: int | None, **read: Any) -> OnlineLog:
    """The log's names and checks of the schema, read on an empty frame of its schema; its
    ``spark`` is the log, ``bucket_key`` the role repartitioned on."""
    from irframe._backends.spark import Spark, default_parallelism

    backend = Spark(buckets or default_parallelism(log.sparkSession))
    schema = backend.schema(backend.run_input(log))
    olog = read_online_log(pl.LazyFrame(schema=schema), **read)
    return dataclasses.replace(olog, origin=Origin("pandas"), spark=(log, backend), bucket_key=key)


def spark_tasks(olog: OnlineLog, task: Callable[[OnlineLog], pl.DataFrame]) -> list[pl.DataFrame]:
    """``task`` on each partition of the log repartitioned on ``olog.bucket_key`` (as a log of
    its own, read by the streaming engine): its tables, one per non-empty partition."""
    from irframe._backends.spark import run_tasks

    log, backend = olog.spark
    col = olog.names[olog.bucket_key]
    placed = backend.colocate(log, None, col, col).stacked
    local = dataclasses.replace(olog, spark=None, raw=None)  # (what the tasks receive: no Spark frame)

    def run(rows: pl.DataFrame) -> pl.DataFrame:
        lf = local.prepare(rows.lazy())
        return task(dataclasses.replace(local, lf=lf, origin=Origin("polars-lazy")))

    return run_tasks(placed, run)


def spark_distinct(olog: OnlineLog) -> int:
    """The whole Spark log's distinct impressions."""
    from pyspark.sql import functions as F

    log = olog.spark[0]
    return int(log.select(F.countDistinct(F.col(f"`{olog.names['impression_id']}`"))).collect()[0][0])


def spark_rows(olog: OnlineLog) -> pl.LazyFrame:
    """The whole Spark log, collected and canonical (to name an offending impression)."""
    return olog.prepare(pl.DataFrame(olog.spark[0].toArrow()).lazy())


def _bytes(frame: pl.DataFrame | None) -> bytes | None:
    if frame is None:
        return None
    buffer = io.BytesIO()
    frame.write_ipc(buffer)
    return buffer.getvalue()


def pack(frames: Mapping[str, pl.DataFrame | None], counts: Mapping[str, int]) -> pl.DataFrame:
    """Several tables and counts as one row (a task's one output table)."""
    row: dict[str, Any] = {name: [_bytes(f)] for name, f in frames.items()}
    return pl.DataFrame(
        row | {"_counts": [json.dumps(dict(counts))]}, schema_overrides=dict.fromkeys(row, pl.Binary)
    )


def unpack(row: pl.DataFrame) -> tuple[dict[str, pl.DataFrame | None], dict[str, int]]:
    """:func:`pack`'s tables and counts."""
    frames = {
        c: None if row[c][0] is None else pl.read_ipc(io.BytesIO(row[c][0]))
        for c in row.columns
        if c != "_counts"
    }
    return frames, {k: int(v) for k, v in json.loads(row["_counts"][0]).items()}
