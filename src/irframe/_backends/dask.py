"""Dask backend: ``irframe.evaluate`` on a ``dask.dataframe.DataFrame``.

The run is shuffled (task-based) so that each query's rows sit in one partition, then
every partition is evaluated by :func:`irframe.partition.evaluate_partition` through
``map_partitions`` -- the engine runs once per partition, never once per query.

Placement is explicit: a query goes to bucket ``hash(query id as string) % n``
(:func:`irframe.outofcore.bucket_expr`), and ``set_index(bucket, divisions=0..n)`` puts
bucket ``b`` into partition ``b``.  The qrels get the same buckets: a dask frame is
shuffled the same way (the join happens on the cluster); a pandas or polars frame is
split into its buckets on the client and each partition receives only its own
judgments.  So a judged query the run never returned is produced exactly once, in its
bucket, even when that partition of the run is empty.

Means are sums and counts per partition (:func:`irframe.partition.partial_sums`) added
up in one final task (:func:`irframe.partition.combine_partials`).

Importing this module registers ``.ir`` on dask DataFrames (``import irframe`` does it
too when ``dask.dataframe`` was imported first).  Install with ``pip install
"irframe[dask]"``.

Examples
--------
>>> import pandas as pd, dask.dataframe as dd, irframe, irframe.dask
>>> run = dd.from_pandas(pd.DataFrame({
...     "query_id": ["q1", "q1", "q2", "q2"], "doc_id": ["a", "b", "c", "d"],
...     "score": [2.0, 1.0, 2.0, 1.0], "relevance": [0, 1, 1, 0]}), npartitions=2)
>>> irframe.evaluate(run, ["RR", "P@1"]).compute()
     RR  P@1  n_queries  n_missing  n_unjudged
0  0.75  0.5          2          0           0
>>> run.ir.evaluate(["RR"], per_query=True).compute()  # in natural query order
  query_id   RR
0       q1  0.5
1       q2  1.0
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import polars as pl
import pyarrow as pa

from irframe import _engine as engine
from irframe._backends.parquet import bucket_expr
from irframe._backends.partition import (
    IN_RUN,
    combine_partials,
    evaluate_partition,
    output_schema,
    partial_sums,
)
from irframe._engine.aggregate import aggregates_of, check_not_empty, counts_of
from irframe._input import weights
from irframe._input.columns import natural_order
from irframe._input.options import DEFAULT_RANK, ColumnsArg, Duplicates, Missing, Options, Order, Ties
from irframe._input.queries import KEY, join_attributes, query_attributes
from irframe.exceptions import IrFrameError
from irframe.measures import Family, Measure
from irframe.measures.user import ensure_registered, user_families

if TYPE_CHECKING:
    import dask.dataframe as dd
    import pandas as pd

__all__ = ["evaluate", "evaluate_options", "is_dask_frame", "register"]

MeasureLike = str | Measure

BUCKET = "__irframe_bucket"


def is_dask_frame(obj: object) -> bool:
    """True for a ``dask.dataframe.DataFrame`` (without importing dask)."""
    mod = sys.modules.get("dask.dataframe")
    return mod is not None and isinstance(obj, mod.DataFrame)


def _dask_dataframe() -> Any:
    """``dask.dataframe`` (imported on first use; typed Any: dask is partly annotated)."""
    import dask.dataframe

    return dask.dataframe


def register() -> None:
    """Register the ``.ir`` accessor on ``dask.dataframe.DataFrame`` (idempotent)."""
    from irframe._namespaces import IrNamespace

    dd = _dask_dataframe()

    if not hasattr(dd.DataFrame, "ir"):
        dd.extensions.register_dataframe_accessor("ir")(IrNamespace)


def _to_polars(pdf: pd.DataFrame, schema: pl.Schema) -> pl.DataFrame:
    """A pandas partition as polars (the bucket index dropped; empty ones typed)."""
    if len(pdf) == 0:
        return pl.DataFrame(schema=schema)
    return pl.from_pandas(pdf.reset_index(drop=True))


def _with_bucket(pdf: pd.DataFrame, query: str, n: int) -> pd.DataFrame:
    bucket = pl.from_pandas(pdf[[query]]).select(bucket_expr(query, n)).to_series()
    return pdf.assign(**{BUCKET: bucket.cast(pl.Int64).to_numpy()})


def _bucketed(frame: Any, query: str, n: int) -> Any:
    """``frame`` shuffled (task-based) so that partition ``b`` holds bucket ``b``."""
    import numpy as np

    meta = frame._meta.assign(**{BUCKET: np.int64(0)})
    with_bucket = frame.map_partitions(_with_bucket, query, n, meta=meta)
    return with_bucket.set_index(BUCKET, divisions=list(range(n + 1)), shuffle_method="tasks")


def _local_buckets(qrels: pl.DataFrame, query: str, n: int, meta: pd.DataFrame) -> Any:
    """Local qrels split into ``n`` buckets on the client: partition ``b`` = bucket ``b``."""
    dd = _dask_dataframe()

    split = qrels.with_columns(bucket_expr(query, n).cast(pl.Int64).alias(BUCKET)).partition_by(
        BUCKET, as_dict=True, include_key=True
    )
    pieces = []
    for b in range(n):
        part = split.get((b,))
        pdf = meta if part is None else part.to_pandas()
        pieces.append(pdf.set_index(BUCKET) if BUCKET in pdf.columns else pdf)
    return dd.from_map(_identity, pieces, divisions=list(range(n + 1)), meta=pieces[0].iloc[:0])


def _identity(x: Any) -> Any:
    return x


def _evaluate_part(
    run: pd.DataFrame,
    qrels: pd.DataFrame | None,
    values: pd.DataFrame | None,
    *,
    measures: Any,
    opts: Options,
    run_schema: pl.Schema,
    qrels_schema: pl.Schema | None,
    schema: pa.Schema,
    families: tuple[Family, ...] = (),
) -> pd.DataFrame:
    """One partition: pandas in, the fixed per-query schema (with flags) out."""
    ensure_registered(families)  # user-defined measures, in a worker process
    q = None if qrels is None or qrels_schema is None else _to_polars(qrels, qrels_schema)
    parts = None if values is None else pl.from_pandas(values.reset_index(drop=True))
    table = evaluate_partition(_to_polars(run, run_schema), measures, q, partition_values=parts, options=opts)
    return table.select(schema.names).cast(schema).to_pandas()


def _public(
    pdf: pd.DataFrame, columns: list[str], drop: bool, weighted: tuple[str, str, pl.DataFrame] | None = None
) -> pd.DataFrame:
    """The public per-query columns (with the weights column, ``weighted``: (query column,
    weights column, weights table))."""
    if drop:
        pdf = pdf[pdf[IN_RUN]]
    if weighted is None:
        return pdf[columns]
    query, name, table = weighted
    w = weights.attach(pl.from_pandas(pdf[[query]].reset_index(drop=True)), query, table)
    return pdf[columns].assign(**{name: w.get_column(weights.WEIGHT).to_numpy()})


def _partials(  # noqa: PLR0917 - called by map_partitions with positional arguments
    pdf: pd.DataFrame, schema: pa.Schema, labels: list[str], by: list[str], missing: str,
    aggregates: dict[str, str], weighted: tuple[str, pl.DataFrame] | None = None,
) -> pd.DataFrame:  # fmt: skip
    """One partition's partial sums (weighted: (query column, weights table))."""
    df = pl.DataFrame(pa.Table.from_pandas(pdf, schema=schema, preserve_index=False))
    if weighted is not None:
        df = weights.attach(df, *weighted)
    return partial_sums(df, labels, by, missing, aggregates=aggregates).to_pandas()


def _combine(
    pdf: pd.DataFrame,
    labels: list[str],
    by: list[str],
    missing: str,
    aggregates: dict[str, str],
    *,
    has_qrels: bool,
    check: bool = True,
) -> pd.DataFrame:
    partials = pl.from_pandas(pdf.reset_index(drop=True))
    means = combine_partials(partials, labels, by, aggregates=aggregates)
    if check:
        n_run, n_judged = counts_of(partials, missing)
        check_not_empty(n_run, n_judged if has_qrels else None)
    return means.to_pandas()


def evaluate(
    run: dd.DataFrame,
    measures: MeasureLike | Iterable[MeasureLike],
    qrels: Any = None,
    *,
    by: str | Sequence[str] | None = None,
    per_query: bool = False,
    missing: Missing = "zero",
    npartitions: int | None = None,
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
) -> dd.DataFrame:
    """Evaluate a dask DataFrame run; a lazy dask DataFrame comes back.

    ``irframe.evaluate(ddf, ...)`` and ``ddf.ir.evaluate(...)`` call this.

    Parameters
    ----------
    run : dask.dataframe.DataFrame
        Long format, as for :func:`irframe.evaluate`; a query's rows may be spread over
        any partitions.
    measures, by, per_query, missing, query_col, doc_col, rank_col, score_col, \
relevance_col, qrels_query_col, qrels_doc_col, qrels_relevance_col, \
qrels_subtopic_col, duplicates, columns, order, depth, ties, weights
        As for :func:`irframe.evaluate` (``ties`` other than ``"docid"`` raises: in process only).
        As for :func:`irframe.evaluate` (``weights``: the weights table is built on the
        client, from a queries table or the qrels computed for it, and sent to every
        partition, whose weighted partial sums add up to the in-process means).
    qrels : dask, pandas or polars DataFrame, optional
        A dask frame is shuffled onto the run's partitions; a local frame is split by
        bucket on the client and sent to the partitions (each gets its own judgments).
    npartitions : int, optional
        Partitions after the shuffle (default: the run's). More partitions than queries
        is fine: the extra ones are empty.
    queries : dask, pandas or polars DataFrame, optional
        Query attributes keyed by query id, as for :func:`irframe.evaluate`: a ``by``
        column the run lacks is taken from it (else from the qrels), checked for one value
        per query when ``evaluate`` is called (a dask frame is computed: it is small), and
        joined onto the run's partitions (and the qrels) before the shuffle.

    Returns
    -------
    dask.dataframe.DataFrame
        ``per_query=True``: the key columns and one float64 column per measure, one row
        per (by-group, query) in one partition, in the natural order of the query ids
        (``q2`` before ``q10``) as on every backend.
        ``per_query=False``: one partition with the means and query counts of
        :func:`irframe.evaluate`.  Values equal :func:`irframe.evaluate`'s exactly per
        query.  Input errors surface on ``compute()``, except those of query attributes
        (``queries``, or a ``by`` column only the qrels carry), checked when ``evaluate``
        is called; the check that a ``by`` column not in the qrels is not a query
        attribute is not done here.
    """
    opts = Options.build(
        "irframe.dask.evaluate", by=by, missing=missing, query_col=query_col, doc_col=doc_col,
        rank_col=rank_col, score_col=score_col, relevance_col=relevance_col,
        qrels_query_col=qrels_query_col, qrels_doc_col=qrels_doc_col,
        qrels_relevance_col=qrels_relevance_col, duplicates=duplicates, columns=columns, order=order,
        depth=depth, ties=ties, weights=weights,
        qrels_subtopic_col=qrels_subtopic_col,
    )  # fmt: skip
    return evaluate_options(  # type: ignore[no-any-return]
        run, measures, qrels, opts, per_query, npartitions=npartitions, queries=queries
    )


def _schema(frame: Any) -> pl.Schema:
    """A dask frame's polars schema (from its non-empty meta)."""
    return pl.from_pandas(frame._meta_nonempty.reset_index(drop=True)).schema


def _schemas(run: Any, qrels: Any) -> tuple[pl.Schema, pl.DataFrame | None, pl.Schema | None]:
    """The run's and qrels' polars schemas; a local qrels frame collected."""
    run_schema = _schema(run)
    if is_dask_frame(qrels):
        return run_schema, None, _schema(qrels)
    if qrels is not None:
        from irframe._input.frames import to_lazy

        local_qrels = to_lazy(qrels, "qrels")[0].collect()
        return run_schema, local_qrels, local_qrels.schema
    return run_schema, None, None


def _attribute_columns(pdf: pd.DataFrame, key: str, table: pl.DataFrame, dtype: pl.DataType) -> pd.DataFrame:
    """One pandas partition with the attribute columns of its queries (a polars join, the
    in-process rule; Arrow-backed columns, so that an integer attribute with nulls stays
    an integer)."""
    ids = pl.DataFrame(schema={key: dtype})
    if len(pdf):
        ids = pl.from_pandas(pdf[[key]].reset_index(drop=True)).cast({key: dtype})
    joined = join_attributes(ids.lazy(), key, table).collect()
    new = {
        c: joined.get_column(c).to_pandas(use_pyarrow_extension_array=True).set_axis(pdf.index)
        for c in table.columns
        if c != KEY
    }
    return pdf.assign(**new)


def _joined(frame: Any, key: str, table: pl.DataFrame, dtype: pl.DataType) -> Any:
    """A dask frame with the attribute table joined on (the small table goes to every task)."""
    meta = _attribute_columns(frame._meta, key, table, dtype)
    return frame.map_partitions(_attribute_columns, key, table, dtype, meta=meta)


def _with_attributes(
    run: Any, qrels: Any, local_qrels: pl.DataFrame | None, queries: Any, opts: Options, *,
    run_schema: pl.Schema, qrels_schema: pl.Schema | None,
) -> tuple[Any, Any, pl.DataFrame | None]:  # fmt: skip
    """The ``by`` columns the run lacks joined on from ``queries`` or the qrels (the run,
    the dask qrels, the local qrels)."""
    if is_dask_frame(queries):
        queries = queries.compute()  # small: one row per query
    qq = opts.qrels_columns[0]

    def qrels_rows(cols: list[str]) -> pl.DataFrame:
        if local_qrels is not None:
            return local_qrels.select(cols)
        return pl.from_pandas(qrels[cols].drop_duplicates().compute().reset_index(drop=True))

    qnames = None if qrels_schema is None else list(qrels_schema)
    rows = None if qrels_schema is None else qrels_rows
    attrs = query_attributes(list(run_schema), qnames, queries, opts, qrels_rows=rows)
    if attrs is None:
        return run, qrels, local_qrels
    run = _joined(run, opts.query_col, attrs.for_run(), run_schema[opts.query_col])
    to_qrels = attrs.for_qrels()
    if to_qrels is not None and local_qrels is not None:
        local_qrels = join_attributes(local_qrels.lazy(), qq, to_qrels).collect()
    elif to_qrels is not None and qrels_schema is not None:
        qrels = _joined(qrels, qq, to_qrels, qrels_schema[qq])
    return run, qrels, local_qrels


def evaluate_options(
    run: Any,
    measures: Any,
    qrels: Any,
    opts: Options,
    per_query: bool,
    *,
    npartitions: int | None = None,
    queries: Any = None,
) -> Any:
    """:func:`evaluate` with validated options (the backend registry calls this)."""
    from dask.delayed import delayed

    dd = _dask_dataframe()
    register()
    if not isinstance(run, dd.DataFrame):
        msg = f"The run must be a dask.dataframe.DataFrame for irframe.dask.evaluate; got {type(run)!r}."
        raise IrFrameError(msg)
    run_schema, local_qrels, qrels_schema = _schemas(run, qrels)
    opts = opts.detect(list(run_schema), qrels_schema=None if qrels_schema is None else list(qrels_schema))
    if opts.by:  # query attributes: validated now, joined onto the partitions before the shuffle
        run, qrels, local_qrels = _with_attributes(
            run, qrels, local_qrels, queries, opts, run_schema=run_schema, qrels_schema=qrels_schema
        )
        run_schema = _schema(run)
        qrels_schema = _schema(qrels) if is_dask_frame(qrels) else None
        qrels_schema = local_qrels.schema if local_qrels is not None else qrels_schema
    # validate measures, parameters and columns on the schemas (no data is touched)
    empty_qrels = None if qrels_schema is None else pl.LazyFrame(schema=qrels_schema)
    plan = engine.build(pl.LazyFrame(schema=run_schema), measures, empty_qrels, opts, allow_empty=True)
    schema = output_schema(run_schema, measures, qrels_schema, options=opts)
    n = npartitions or run.npartitions
    qq = opts.qrels_columns[0]
    run_b = _bucketed(run, plan.cols.query, n)
    qrels_b = None
    if is_dask_frame(qrels):
        qrels_b = _bucketed(qrels, qq, n)
    elif local_qrels is not None:
        meta = local_qrels.head(0).with_columns(pl.lit(0, pl.Int64).alias(BUCKET)).to_pandas()
        qrels_b = _local_buckets(local_qrels, qq, n, meta)
    values = None
    partitions = list(plan.partitions)
    if partitions and qrels_schema is not None:
        # every system's values, so that a partition lacking a system still fills in
        # that system's missing queries (one small task, passed to every partition)
        values = delayed(_concat_unique)(run[partitions].drop_duplicates().to_delayed())
    meta = schema.empty_table().to_pandas()
    fn_kwargs = {
        "measures": measures, "opts": opts, "run_schema": run_schema,
        "qrels_schema": qrels_schema, "schema": schema, "families": user_families(measures),
    }  # fmt: skip
    per_part = run_b.map_partitions(
        _evaluate_part, qrels_b, values, meta=meta, clear_divisions=True, **fn_kwargs
    )
    keys, labels = list(plan.keys), list(plan.labels)
    table = None if opts.weights is None else _weights(run, qrels, local_qrels, queries, opts)
    if per_query:
        cols = [*keys, *labels]
        public_meta = meta[cols] if table is None else meta[cols].assign(**{str(opts.weights): 0.0})
        weighted = None if table is None else (plan.cols.query, str(opts.weights), table)
        public = per_part.map_partitions(_public, cols, opts.missing == "drop", weighted, meta=public_meta)
        # one row per query is small: one partition in the natural order of every backend
        return public.repartition(npartitions=1).map_partitions(_sorted, keys, meta=public_meta)
    by_cols, aggs, missing = list(plan.cols.by), aggregates_of(plan.measures), opts.missing
    w = None if table is None else (plan.cols.query, table)
    part_meta = _partials(meta, schema, labels, by_cols, missing, aggs, w)
    partials = per_part.map_partitions(_partials, schema, labels, by_cols, missing, aggs, w, meta=part_meta)
    has_qrels = qrels_schema is not None
    means_meta = _combine(part_meta, labels, by_cols, missing, aggs, has_qrels=has_qrels, check=False)
    return partials.repartition(npartitions=1).map_partitions(
        _combine, labels, by_cols, missing, aggs, has_qrels=has_qrels, meta=means_meta
    )


def _weights(
    run: Any, qrels: Any, local_qrels: pl.DataFrame | None, queries: Any, opts: Options
) -> pl.DataFrame:
    """The weights table (:func:`irframe._input.weights.weights_for`), built on the client
    from the distinct query ids (and weights) of the dask frames."""
    if is_dask_frame(queries):
        queries = queries.compute()

    def stub(frame: Any, key: str) -> pl.DataFrame:
        names = list(frame.columns)
        wanted = [key, *([opts.weights] if opts.weights in names and key in names else [])]
        got = (
            pl.from_pandas(frame[wanted].drop_duplicates().compute().reset_index(drop=True))
            if key in names
            else pl.DataFrame()
        )
        return got.with_columns(pl.lit(None).alias(c) for c in names if c not in got.columns)

    run_stub = stub(run, opts.query_col)
    qrels_stub = (
        local_qrels if local_qrels is not None or qrels is None else stub(qrels, opts.qrels_columns[0])
    )
    return weights.weights_for(run_stub.lazy(), qrels_stub, queries, opts, "irframe.dask.evaluate")


def _sorted(pdf: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """The per-query rows in natural key order (as :func:`irframe.evaluate` returns them)."""
    df = pl.from_pandas(pdf.reset_index(drop=True))
    return df.sort(natural_order(df.schema, keys), nulls_last=True).to_pandas()


def _concat_unique(frames: list[pd.DataFrame]) -> pd.DataFrame:
    import pandas as pd

    return pd.concat(frames, ignore_index=True).drop_duplicates(ignore_index=True)


with contextlib.suppress(ImportError):  # dask is an optional extra
    register()
