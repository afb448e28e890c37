"""Dask backend: ``irframe.evaluate`` on a ``dask.dataframe.DataFrame``.

The steps are :mod:`irframe._backends.skeleton`'s; this module supplies Dask's
primitives.  The run is shuffled (task-based) so that each query's rows sit in one
partition, then every partition is evaluated by
:func:`irframe.partition.evaluate_partition` through ``map_partitions`` -- the engine
runs once per partition, never once per query.

Placement is explicit: a query goes to bucket ``hash(query id as string) % n``
(:func:`irframe.outofcore.bucket_expr`), and ``set_index(bucket, divisions=0..n)`` puts
bucket ``b`` into partition ``b``.  The qrels get the same buckets: a dask frame is
shuffled the same way (the join happens on the cluster); a pandas or polars frame is
split into its buckets on the client and each partition receives only its own
judgments.  So a judged query the run never returned is produced exactly once, in its
bucket, even when that partition of the run is empty.

Means are sums and counts per partition (:func:`irframe.partition.partial_sums`) added
up in one final task (:func:`irframe.partition.combine_partials`); the per-query rows
are sorted in that one task too.

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
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import polars as pl
import pyarrow as pa

from irframe._backends import skeleton
from irframe._backends.parquet import bucket_expr
from irframe._input.frames import to_lazy
from irframe._input.options import Options
from irframe._input.queries import KEY, join_attributes
from irframe.exceptions import IrFrameError
from irframe.progress import Progress

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["evaluate_options", "is_dask_frame", "register"]


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


def evaluate_options(
    run: Any,
    measures: Any,
    qrels: Any,
    opts: Options,
    per_query: bool,
    *,
    npartitions: int | None = None,
    queries: Any = None,
    progress: Progress = None,
) -> Any:
    """:func:`evaluate` with validated options (the backend registry calls this)."""
    return skeleton.evaluate(
        Dask(npartitions), run, measures, qrels, opts, per_query=per_query, queries=queries, progress=progress
    )


def _schema(frame: Any) -> pl.Schema:
    """A dask frame's polars schema (from its non-empty meta)."""
    return pl.from_pandas(frame._meta_nonempty.reset_index(drop=True)).schema


@dataclass(frozen=True)
class _Placed:
    """The run and the qrels in their buckets (partition ``b`` holds bucket ``b``)."""

    run: Any
    run_buckets: Any
    qrels_buckets: Any
    run_schema: pl.Schema
    qrels_schema: pl.Schema | None


class Dask(skeleton.Primitives):
    """Dask's primitives: shuffles, ``map_partitions``, one final task."""

    label = "Dask"

    def __init__(self, npartitions: int | None = None) -> None:
        self.npartitions = npartitions

    def is_native(self, obj: object) -> bool:
        return is_dask_frame(obj)

    def run_input(self, run: Any) -> Any:
        register()
        if not is_dask_frame(run):
            msg = f"The run must be a dask.dataframe.DataFrame for irframe.dask.evaluate; got {type(run)!r}."
            raise IrFrameError(msg)
        return run

    def qrels_input(self, qrels: Any) -> Any:
        """A dask frame stays on the cluster; a local one is collected (split on the client)."""
        return qrels if is_dask_frame(qrels) else to_lazy(qrels, "qrels")[0].collect()

    def schema(self, frame: Any) -> pl.Schema:
        return _schema(frame)

    def rows(self, frame: Any, columns: Sequence[str]) -> pl.DataFrame:
        return pl.from_pandas(frame[list(columns)].drop_duplicates().compute().reset_index(drop=True))

    def select(self, frame: Any, columns: Sequence[str]) -> Any:
        return frame[list(columns)]

    def join(self, frame: Any, key: str, table: pl.DataFrame) -> Any:
        """The small table goes to every task (a polars join per partition)."""
        dtype = _schema(frame)[key]
        meta = _attribute_columns(frame._meta, key, table, dtype)
        return frame.map_partitions(_attribute_columns, key, table, dtype, meta=meta)

    def colocate(self, run: Any, qrels: Any, query: str, qrels_query: str) -> _Placed:
        n = self.npartitions or run.npartitions
        qrels_b = qrels_schema = None
        if is_dask_frame(qrels):
            qrels_b, qrels_schema = _bucketed(qrels, qrels_query, n), _schema(qrels)
        elif qrels is not None:
            qrels_b, qrels_schema = _local_buckets(qrels, qrels_query, n), qrels.schema
        return _Placed(run, _bucketed(run, query, n), qrels_b, _schema(run), qrels_schema)

    def values(self, placed: _Placed, columns: list[str]) -> Any:
        """One small task, passed to every partition."""
        from dask.delayed import delayed

        return delayed(_concat_unique)(placed.run[columns].drop_duplicates().to_delayed())

    def map(self, placed: _Placed, fn: skeleton.PartitionFn, values: Any, schema: pl.Schema) -> Any:
        import pandas as pd

        arrow = _arrow(schema)
        meta = arrow.empty_table().to_pandas(types_mapper=pd.ArrowDtype)
        return placed.run_buckets.map_partitions(
            _evaluate_part, placed.qrels_buckets, values, fn=fn, schema=arrow,
            run_schema=placed.run_schema, qrels_schema=placed.qrels_schema, meta=meta,
            clear_divisions=True,
        )  # fmt: skip

    def gather(self, mapped: Any, finish: skeleton.Finish, schema: pl.Schema) -> Any:
        """One partition: the outputs are small (sums, or one row per query)."""
        meta = pl.DataFrame(schema=schema).to_pandas()
        return mapped.repartition(npartitions=1).map_partitions(_finish, finish, meta=meta)


def _arrow(schema: pl.Schema) -> pa.Schema:
    return pl.DataFrame(schema=schema).to_arrow().schema


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


def _local_buckets(qrels: pl.DataFrame, query: str, n: int) -> Any:
    """Local qrels split into ``n`` buckets on the client: partition ``b`` = bucket ``b``."""
    dd = _dask_dataframe()

    meta = qrels.head(0).with_columns(pl.lit(0, pl.Int64).alias(BUCKET)).to_pandas()
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
    fn: skeleton.PartitionFn,
    schema: pa.Schema,
    run_schema: pl.Schema,
    qrels_schema: pl.Schema | None,
) -> pd.DataFrame:
    """One partition: pandas in, the skeleton's output as Arrow-backed pandas (exact types)."""
    import pandas as pd

    q = None if qrels is None or qrels_schema is None else _to_polars(qrels, qrels_schema)
    parts = None if values is None else pl.from_pandas(values.reset_index(drop=True))
    out = fn(_to_polars(run, run_schema), q, parts)
    return out.to_arrow().cast(schema).to_pandas(types_mapper=pd.ArrowDtype)


def _finish(pdf: pd.DataFrame, finish: skeleton.Finish) -> pd.DataFrame:
    """The final task: every partition's output -> the result."""
    parts = pl.DataFrame(pa.Table.from_pandas(pdf, preserve_index=False))
    return finish(parts.lazy()).collect().to_pandas()


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


def _concat_unique(frames: list[pd.DataFrame]) -> pd.DataFrame:
    import pandas as pd

    return pd.concat(frames, ignore_index=True).drop_duplicates(ignore_index=True)


with contextlib.suppress(ImportError):  # dask is an optional extra
    register()
