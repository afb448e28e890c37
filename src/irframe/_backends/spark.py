"""Spark backend: evaluate a ``pyspark.sql.DataFrame`` with ``mapInArrow``.

The steps are :mod:`irframe._backends.skeleton`'s; this module supplies Spark's
primitives.  The run's rows and the qrels' rows are stacked into one frame (a role
column tells them apart, the qrels columns are renamed so nothing collides),
``repartition(n, key)`` on the query id as a string sends a query's rows and its
judgments to the same partition (Spark's own hash of the same key on both sides), and
``mapInArrow`` evaluates each partition with
:func:`irframe.partition.evaluate_partition` -- the engine runs once per partition,
never once per query.  A judged query the run never returned is produced exactly once,
in the partition its id hashes to.  The partitions' sums and counts (or per-query rows)
then go to one task (``repartition(1)``), which adds them up into the means (or sorts
the rows in natural order) by the rules every backend shares.

Requirements: ``pip install "irframe[spark]"`` (pyspark >= 4.0) and **Java 17** (Spark 4
runs on Java 17 or 21; ``java -version`` must find it, or set ``JAVA_HOME``).  The Python
workers must import irframe: in local mode set ``PYSPARK_PYTHON`` to the interpreter that
has it (``sys.executable``) before the session starts.

Examples
--------
>>> from pyspark.sql import SparkSession  # doctest: +SKIP
>>> import irframe.spark
>>> spark = SparkSession.builder.master("local[2]").getOrCreate()  # doctest: +SKIP
>>> run, qrels = spark.read.parquet("run.parquet"), spark.read.parquet("qrels.parquet")  # doctest: +SKIP
>>> irframe.spark.evaluate(run, ["nDCG@10", "AP"], qrels).show()  # doctest: +SKIP
"""

from __future__ import annotations

import io
import pickle
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl
import pyarrow as pa

from irframe._backends import skeleton
from irframe._input.frames import to_lazy
from irframe._input.options import Options
from irframe._input.queries import KEY as ATTR_KEY
from irframe.exceptions import IrFrameError
from irframe.progress import Progress

__all__ = ["default_parallelism", "evaluate_options", "ipc_bytes", "is_spark_frame", "run_tasks"]

ROLE = "__irframe_role"  # 0: run row, 1: qrels row
KEY = "__irframe_key"  # the query id as a string: the partitioning key
QPREFIX = "__irframe_q_"  # qrels columns, renamed in the stacked frame


def is_spark_frame(obj: object) -> bool:
    """True for a ``pyspark.sql.DataFrame`` (without importing pyspark)."""
    import sys

    sql = sys.modules.get("pyspark.sql")
    return sql is not None and isinstance(obj, sql.DataFrame)


_OUT = pa.schema([("error", pa.bool_()), ("table", pa.binary())])
Task = Callable[[pl.DataFrame], pl.DataFrame]


def ipc_bytes(frame: pl.DataFrame) -> bytes:
    """``frame`` as Arrow IPC bytes (a table of any shape in one binary Spark column)."""
    buffer = io.BytesIO()
    frame.write_ipc(buffer)
    return buffer.getvalue()


def run_tasks(placed: Any, task: Task) -> list[pl.DataFrame]:
    """``task`` on every non-empty partition of the repartitioned frame ``placed`` (one
    ``mapInArrow`` job; the partition's rows without the role and key columns); its tables
    (any shapes: sent back as Arrow IPC bytes), in partition order.  An
    :class:`IrFrameError` raised in a task is raised here as it is."""
    from pyspark.sql.pandas.types import from_arrow_schema, to_arrow_schema

    schema = to_arrow_schema(placed.schema)

    def per_partition(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        rows = pl.DataFrame(pa.Table.from_batches(list(batches), schema=schema)).drop(ROLE, KEY)
        if rows.height == 0:
            return
        try:
            out, error = ipc_bytes(task(rows)), False
        except IrFrameError as exc:
            out, error = pickle.dumps(exc), True
        yield pa.RecordBatch.from_pydict({"error": [error], "table": [out]}, schema=_OUT)

    got = placed.mapInArrow(per_partition, from_arrow_schema(_OUT)).toArrow()
    for error, payload in zip(got["error"].to_pylist(), got["table"].to_pylist(), strict=True):
        if error:
            raise pickle.loads(payload)  # (our own task's exception, just pickled)
    return [pl.read_ipc(io.BytesIO(payload)) for payload in got["table"].to_pylist()]


def evaluate_options(
    run: Any,
    measures: Any,
    qrels: Any,
    opts: Options,
    per_query: bool,
    *,
    num_partitions: int | None = None,
    queries: Any = None,
    progress: Progress = None,
) -> Any:
    """:func:`evaluate` with validated options (the backend registry calls this)."""
    return skeleton.evaluate(
        Spark(num_partitions), run, measures, qrels, opts, per_query=per_query, queries=queries,
        progress=progress,
    )  # fmt: skip


def _plain(schema: pa.Schema | pl.Schema) -> pa.Schema:
    """Spark's Arrow types: ``string``/``binary`` rather than the large variants."""
    if isinstance(schema, pl.Schema):
        schema = pl.DataFrame(schema=schema).to_arrow().schema

    def plain(t: pa.DataType) -> pa.DataType:
        if pa.types.is_large_string(t):
            return pa.string()
        if pa.types.is_large_binary(t):
            return pa.binary()
        return t

    return pa.schema([f.with_type(plain(f.type)) for f in schema])


def _arrow_schema(spark_schema: Any) -> pa.Schema:
    from pyspark.sql.pandas.types import to_arrow_schema

    return to_arrow_schema(spark_schema)


def _spark_schema(schema: pa.Schema) -> Any:
    from pyspark.sql.pandas.types import from_arrow_schema

    return from_arrow_schema(schema)


def _pl_schema(frame: Any) -> pl.Schema:
    return pl.DataFrame(_arrow_schema(frame.schema).empty_table()).schema


def _to_spark(spark: Any, frame: pl.DataFrame) -> Any:
    """A small polars frame as a Spark DataFrame (Spark's plain Arrow types)."""
    table = frame.to_arrow()
    return spark.createDataFrame(table.cast(_plain(table.schema)))


def default_parallelism(spark: Any) -> int:
    """The session's default parallelism (Spark Connect: its shuffle partitions)."""
    try:
        return int(spark.sparkContext.defaultParallelism)
    except Exception:  # Spark Connect has no SparkContext
        return int(spark.conf.get("spark.sql.shuffle.partitions", "200"))


@dataclass(frozen=True)
class _Placed:
    """Run and qrels rows in one frame, repartitioned by query."""

    run: Any
    stacked: Any
    run_cols: list[str]
    qrels_cols: list[str] | None


class Spark(skeleton.Primitives):
    """Spark's primitives: a stacked ``repartition``, ``mapInArrow``, one final task."""

    label = "Spark"

    def __init__(self, num_partitions: int | None = None) -> None:
        self.num_partitions = num_partitions
        self.spark: Any = None

    def is_native(self, obj: object) -> bool:
        return is_spark_frame(obj)

    def run_input(self, run: Any) -> Any:
        if not is_spark_frame(run):
            msg = f"The run must be a pyspark.sql.DataFrame for irframe.spark.evaluate; got {type(run)!r}."
            raise IrFrameError(msg)
        self.spark = run.sparkSession
        return run

    def qrels_input(self, qrels: Any) -> Any:
        """A local frame becomes a Spark DataFrame."""
        return qrels if is_spark_frame(qrels) else _to_spark(self.spark, to_lazy(qrels, "qrels")[0].collect())

    def schema(self, frame: Any) -> pl.Schema:
        return _pl_schema(frame)

    def rows(self, frame: Any, columns: Sequence[str]) -> pl.DataFrame:
        return pl.DataFrame(frame.select(*(f"`{c}`" for c in columns)).distinct().toArrow())

    def select(self, frame: Any, columns: Sequence[str]) -> Any:
        return frame.select(*(f"`{c}`" for c in columns))

    def join(self, frame: Any, key: str, table: pl.DataFrame) -> Any:
        """A broadcast join (the table's id cast to ``frame``'s id type first, as
        :func:`irframe._input.queries.join_attributes` does)."""
        from pyspark.sql import functions as F

        dtype = _pl_schema(frame)[key]
        right = _to_spark(frame.sparkSession, table.with_columns(pl.col(ATTR_KEY).cast(dtype, strict=False)))
        on = frame[f"`{key}`"] == right[ATTR_KEY]
        return frame.join(F.broadcast(right), on, "left").drop(right[ATTR_KEY])

    def colocate(self, run: Any, qrels: Any, query: str, qrels_query: str) -> _Placed:
        from pyspark.sql import functions as F

        run_cols = list(run.columns)
        stacked = run.select(
            *run_cols, F.lit(0).cast("int").alias(ROLE), F.col(query).cast("string").alias(KEY)
        )
        qrels_cols = None
        if qrels is not None:
            qrels_cols = list(qrels.columns)
            q = qrels.select(
                *(F.col(c).alias(QPREFIX + c) for c in qrels_cols),
                F.lit(1).cast("int").alias(ROLE),
                F.col(qrels_query).cast("string").alias(KEY),
            )
            stacked = stacked.unionByName(q, allowMissingColumns=True)
        n = self.num_partitions or default_parallelism(self.spark)
        return _Placed(run, stacked.repartition(n, KEY), run_cols, qrels_cols)

    def values(self, placed: _Placed, columns: list[str]) -> Any:
        """Collected on the driver (one row per system), sent with every task."""
        return placed.run.select(*columns).distinct().toArrow()

    def map(self, placed: _Placed, fn: skeleton.PartitionFn, values: Any, schema: pl.Schema) -> Any:
        stacked_schema, out_schema = _arrow_schema(placed.stacked.schema), _plain(schema)
        run_cols, qrels_cols = placed.run_cols, placed.qrels_cols

        def per_partition(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
            df = pl.DataFrame(pa.Table.from_batches(list(batches), schema=stacked_schema))
            run = df.filter(pl.col(ROLE) == 0).select(run_cols)
            qrels = None
            if qrels_cols is not None:
                renamed = {QPREFIX + c: c for c in qrels_cols}
                qrels = df.filter(pl.col(ROLE) == 1).select(list(renamed)).rename(renamed)
            parts = None if values is None else pl.DataFrame(values)
            yield from fn(run, qrels, parts).to_arrow().cast(out_schema).to_batches()

        return placed.stacked.mapInArrow(per_partition, _spark_schema(out_schema))

    def gather(self, mapped: Any, finish: skeleton.Finish, schema: pl.Schema) -> Any:
        """One task: the outputs are small (sums, or one row per query).  The columns go in
        by position (Spark would read a measure named ``RBP(p=0.8)`` as a struct field)."""
        names = list(mapped.columns)
        plain = mapped.toDF(*(f"_{i}" for i in range(len(names))))
        parts_schema, out_schema = _arrow_schema(plain.schema), _plain(schema)

        def final(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
            table = pa.Table.from_batches(list(batches), schema=parts_schema).rename_columns(names)
            yield from finish(pl.DataFrame(table).lazy()).collect().to_arrow().cast(out_schema).to_batches()

        return plain.repartition(1).mapInArrow(final, _spark_schema(out_schema))
