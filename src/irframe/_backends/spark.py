"""Spark backend: evaluate a ``pyspark.sql.DataFrame`` with ``mapInArrow``.

The run's rows and the qrels' rows are stacked into one frame (a role column tells them
apart, the qrels columns are renamed so nothing collides), ``repartition(n, key)`` on
the query id as a string sends a query's rows and its judgments to the same partition
(Spark's own hash of the same key on both sides), and ``mapInArrow`` evaluates each
partition with :func:`irframe.partition.evaluate_partition` -- the engine runs once per
partition, never once per query.  A judged query the run never returned is produced
exactly once, in the partition its id hashes to.  Means are aggregated by Spark's own
``groupBy`` from sums and counts.

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

from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, cast

import polars as pl
import pyarrow as pa

from irframe import _engine as engine
from irframe._backends.partition import IN_RUN, JUDGED, evaluate_partition, output_schema
from irframe._engine.aggregate import GM_FLOOR, aggregates_of
from irframe._input.options import DEFAULT_RANK, ColumnsArg, Duplicates, Missing, Options, Order, Ties
from irframe._input.queries import KEY as ATTR_KEY
from irframe._input.queries import query_attributes
from irframe._input.weights import refuse as refuse_weights
from irframe.exceptions import IrFrameError
from irframe.measures import Family, Measure
from irframe.measures.user import ensure_registered, user_families

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

MeasureLike = str | Measure

__all__ = ["evaluate", "evaluate_options", "is_spark_frame"]

ROLE = "__irframe_role"  # 0: run row, 1: qrels row
KEY = "__irframe_key"  # the query id as a string: the partitioning key
QPREFIX = "__irframe_q_"  # qrels columns, renamed in the stacked frame


def is_spark_frame(obj: object) -> bool:
    """True for a ``pyspark.sql.DataFrame`` (without importing pyspark)."""
    import sys

    sql = sys.modules.get("pyspark.sql")
    return sql is not None and isinstance(obj, sql.DataFrame)


def _plain(t: pa.DataType) -> pa.DataType:
    """Spark's Arrow types: ``string``/``binary`` rather than the large variants."""
    if pa.types.is_large_string(t):
        return pa.string()
    if pa.types.is_large_binary(t):
        return pa.binary()
    return t


def _arrow_schema(spark_schema: Any) -> pa.Schema:
    from pyspark.sql.pandas.types import to_arrow_schema

    return to_arrow_schema(spark_schema)


def _evaluate_partitions(
    batches: Iterator[pa.RecordBatch],
    *,
    stacked_schema: pa.Schema,
    run_cols: list[str],
    qrels_cols: list[str] | None,
    measures: Any,
    opts: Options,
    values: pa.Table | None,
    schema: pa.Schema,
    families: tuple[Family, ...] = (),
) -> Iterator[pa.RecordBatch]:
    """``mapInArrow``'s function: one partition's stacked rows in, per-query rows out."""
    ensure_registered(families)  # user-defined measures, in the Python worker
    table = pa.Table.from_batches(list(batches), schema=stacked_schema)
    df = pl.DataFrame(table)
    run = df.filter(pl.col(ROLE) == 0).select(run_cols)
    qrels = None
    if qrels_cols is not None:
        qrels = (
            df.filter(pl.col(ROLE) == 1)
            .select([QPREFIX + c for c in qrels_cols])
            .rename({QPREFIX + c: c for c in qrels_cols})
        )
    parts = None if values is None else pl.DataFrame(values)
    out = evaluate_partition(run, measures, qrels, partition_values=parts, options=opts)
    yield from out.select(schema.names).cast(schema).to_batches()


def _default_parallelism(spark: Any) -> int:
    try:
        return int(spark.sparkContext.defaultParallelism)
    except Exception:  # Spark Connect has no SparkContext
        return int(spark.conf.get("spark.sql.shuffle.partitions", "200"))


def evaluate(
    run: DataFrame,
    measures: MeasureLike | Iterable[MeasureLike],
    qrels: Any = None,
    *,
    by: str | Sequence[str] | None = None,
    per_query: bool = False,
    missing: Missing = "zero",
    num_partitions: int | None = None,
    query_col: str = "query_id",
    doc_col: str = "doc_id",
    rank_col: str | None = DEFAULT_RANK,
    score_col: str = "score",
    relevance_col: str = "relevance",
    qrels_query_col: str | None = None,
    qrels_doc_col: str | None = None,
    qrels_relevance_col: str | None = None,
    qrels_subtopic_col: str = "subtopic",
    duplicates: Duplicates = "error",
    columns: ColumnsArg = None,
    order: Order = "auto",
    depth: int | None = None,
    ties: Ties = "docid",
    weights: str | None = None,
    queries: Any = None,
) -> DataFrame:
    """Evaluate a Spark DataFrame run; a (lazy) Spark DataFrame comes back.

    ``irframe.evaluate(spark_df, ...)`` calls this too.

    Parameters
    ----------
    run : pyspark.sql.DataFrame
        Long format, as for :func:`irframe.evaluate`.
    measures, by, per_query, missing, query_col, doc_col, rank_col, score_col, \
relevance_col, qrels_query_col, qrels_doc_col, qrels_relevance_col, \
qrels_subtopic_col, duplicates, columns, order, depth, ties, weights
        As for :func:`irframe.evaluate` (``ties`` other than ``"docid"`` raises: in process only).
        As for :func:`irframe.evaluate` (``weights``: refused here, not supported yet).
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
        the driver; the check that a ``by`` column not in the qrels is not a query
        attribute is not done here.
    """
    opts = Options.build(
        "irframe.spark.evaluate", by=by, missing=missing, query_col=query_col, doc_col=doc_col,
        rank_col=rank_col, score_col=score_col, relevance_col=relevance_col,
        qrels_query_col=qrels_query_col, qrels_doc_col=qrels_doc_col,
        qrels_relevance_col=qrels_relevance_col, duplicates=duplicates, columns=columns, order=order,
        depth=depth, ties=ties, weights=weights,
        qrels_subtopic_col=qrels_subtopic_col,
    )  # fmt: skip
    out = evaluate_options(
        run, measures, qrels, opts, per_query, num_partitions=num_partitions, queries=queries
    )
    return cast("DataFrame", out)


def _pl_schema(frame: Any) -> pl.Schema:
    return pl.DataFrame(_arrow_schema(frame.schema).empty_table()).schema


def _to_spark(spark: Any, frame: pl.DataFrame) -> Any:
    """A small polars frame as a Spark DataFrame (Spark's plain Arrow types)."""
    table = frame.to_arrow()
    return spark.createDataFrame(table.cast(pa.schema([f.with_type(_plain(f.type)) for f in table.schema])))


def _joined(frame: Any, key: str, table: pl.DataFrame) -> Any:
    """A small attribute table broadcast-joined onto ``frame`` by query id (the table's id
    cast to ``frame``'s id type first, as :func:`irframe._input.queries.join_attributes` does)."""
    from pyspark.sql import functions as F

    dtype = _pl_schema(frame)[key]
    right = _to_spark(frame.sparkSession, table.with_columns(pl.col(ATTR_KEY).cast(dtype, strict=False)))
    on = frame[f"`{key}`"] == right[ATTR_KEY]
    return frame.join(F.broadcast(right), on, "left").drop(right[ATTR_KEY])


def _with_attributes(run: Any, qrels: Any, queries: Any, opts: Options) -> tuple[Any, Any]:
    """The ``by`` columns the run lacks joined on from ``queries`` or the qrels."""
    if is_spark_frame(queries):
        queries = pl.DataFrame(queries.toArrow())  # small: one row per query

    def qrels_rows(cols: list[str]) -> pl.DataFrame:
        return pl.DataFrame(qrels.select(*(f"`{c}`" for c in cols)).distinct().toArrow())

    qnames = None if qrels is None else list(_pl_schema(qrels))
    rows = None if qrels is None else qrels_rows
    attrs = query_attributes(list(_pl_schema(run)), qnames, queries, opts, qrels_rows=rows)
    return (run, qrels) if attrs is None else attrs.attach(run, qrels, opts, _joined)


def _stack(run: Any, qrels: Any, plan: engine.Plan, opts: Options) -> tuple[Any, list[str], list[str] | None]:
    """Run and qrels rows in one frame (a role column, qrels columns renamed), keyed by query."""
    from pyspark.sql import functions as F

    cols = plan.cols
    run_cols = list(dict.fromkeys([*cols.keys, cols.doc, cols.order_col]))
    if cols.relevance is not None:
        run_cols.append(cols.relevance)
    stacked = run.select(
        *run_cols, F.lit(0).cast("int").alias(ROLE), F.col(cols.query).cast("string").alias(KEY)
    )
    if qrels is None:
        return stacked, run_cols, None
    qq, qd, qr = opts.qrels_columns
    qrels_schema = _pl_schema(qrels)
    qrels_cols = list(dict.fromkeys([*(c for c in cols.by if c in qrels_schema), qq, qd, qr]))
    q = qrels.select(
        *(F.col(c).alias(QPREFIX + c) for c in qrels_cols),
        F.lit(1).cast("int").alias(ROLE),
        F.col(qq).cast("string").alias(KEY),
    )
    return stacked.unionByName(q, allowMissingColumns=True), run_cols, qrels_cols


def evaluate_options(
    run: Any,
    measures: Any,
    qrels: Any,
    opts: Options,
    per_query: bool,
    *,
    num_partitions: int | None = None,
    queries: Any = None,
) -> Any:
    """:func:`evaluate` with validated options (the backend registry calls this)."""
    refuse_weights(opts, "Spark")  # (before pyspark is imported: refused where it is absent too)
    from pyspark.sql.pandas.types import from_arrow_schema

    if not is_spark_frame(run):
        msg = f"The run must be a pyspark.sql.DataFrame for irframe.spark.evaluate; got {type(run)!r}."
        raise IrFrameError(msg)
    spark = run.sparkSession
    if qrels is not None and not is_spark_frame(qrels):
        from irframe._input.frames import to_lazy

        qrels = _to_spark(spark, to_lazy(qrels, "qrels")[0].collect())
    run_schema = _pl_schema(run)
    qrels_schema = None if qrels is None else _pl_schema(qrels)
    opts = opts.detect(list(run_schema), qrels_schema=None if qrels_schema is None else list(qrels_schema))
    if opts.by:  # query attributes: validated now, broadcast-joined before the repartition
        run, qrels = _with_attributes(run, qrels, queries, opts)
        run_schema = _pl_schema(run)
        qrels_schema = None if qrels is None else _pl_schema(qrels)
    # validate measures, parameters and columns on the schemas (no Spark job runs)
    empty_qrels = None if qrels_schema is None else pl.LazyFrame(schema=qrels_schema)
    plan = engine.build(pl.LazyFrame(schema=run_schema), measures, empty_qrels, opts, allow_empty=True)
    schema = output_schema(run_schema, measures, qrels_schema, options=opts)
    schema = pa.schema([f.with_type(_plain(f.type)) for f in schema])
    stacked, run_cols, qrels_cols = _stack(run, qrels, plan, opts)
    values = None
    if plan.partitions and qrels is not None:
        # every system, so that a partition lacking one still fills in its missing queries
        values = run.select(*plan.partitions).distinct().toArrow()
    n = num_partitions or _default_parallelism(spark)
    stacked_schema = _arrow_schema(stacked.schema)
    families = user_families(measures)

    def fn(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        return _evaluate_partitions(
            batches, stacked_schema=stacked_schema, run_cols=run_cols, qrels_cols=qrels_cols,
            measures=measures, opts=opts, values=values, schema=schema, families=families,
        )  # fmt: skip

    per_part = stacked.repartition(n, KEY).mapInArrow(fn, from_arrow_schema(schema))
    if per_query:
        if opts.missing == "drop":
            per_part = per_part.filter(per_part[IN_RUN])
        return _natural_order(per_part.select(*plan.keys, *plan.labels), plan.keys)
    return _means(per_part, plan, opts.missing)


def _natural_order(frame: Any, keys: Sequence[str]) -> Any:
    """Order the per-query rows as :func:`irframe._input.columns.natural_order` does (q2 before q10)."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import StringType

    order: list[Any] = []
    for k in keys:
        c = F.col(f"`{k}`")
        if isinstance(frame.schema[k].dataType, StringType):
            digits = F.regexp_replace(F.regexp_extract(c, r"^\D*(\d+)", 1), "^0+", "")
            order += [F.regexp_extract(c, r"^(\D*)", 1), F.length(digits), digits, c]
        else:
            order.append(c)
    return frame.orderBy(*(o.asc_nulls_last() for o in order))


def _means(per_part: Any, plan: engine.Plan, missing: str) -> Any:
    """The rules of :mod:`irframe._engine.aggregate`, in Spark SQL: partial sums per group
    (logs for geometric means), then the finished values and the query counts."""
    from pyspark.sql import functions as F

    by_cols, labels, aggs_of = list(plan.cols.by), list(plan.labels), aggregates_of(plan.measures)
    judged, in_run = F.col(JUDGED), F.col(IN_RUN)
    counted = (judged & in_run) if missing == "drop" else judged

    def part(m: str) -> Any:
        x = F.col(f"`{m}`")
        return F.log(F.greatest(x, F.lit(GM_FLOOR))) if aggs_of[m] == "gmean" else x

    def finish(m: str, n_q: Any) -> Any:
        total = F.col(f"`{m}`")
        how = aggs_of[m]
        value = total if how == "sum" else F.exp(total / n_q) if how == "gmean" else total / n_q
        return F.when(n_q > 0, value).alias(m)

    aggs = [
        *(F.sum(F.when(counted, part(m))).alias(m) for m in labels),
        F.sum(counted.cast("long")).alias("n_queries"),
        F.sum((judged & ~in_run).cast("long")).alias("n_missing"),
        F.sum((~judged & in_run).cast("long")).alias("n_unjudged"),
    ]
    grouped = per_part.groupBy(*by_cols).agg(*aggs)
    n_q = F.coalesce(F.col("n_queries"), F.lit(0).cast("long"))
    means = grouped.select(
        *by_cols,
        *(finish(m, n_q) for m in labels),
        *(
            F.coalesce(F.col(c), F.lit(0).cast("long")).alias(c)
            for c in ("n_queries", "n_missing", "n_unjudged")
        ),
    )
    if by_cols:
        means = means.orderBy(*(F.col(b).asc_nulls_last() for b in by_cols))
    return means
