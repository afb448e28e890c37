"""A dask log: the row-level passes of :mod:`irframe.online._tables` run in dask, from the same code.

Each partition goes through the same polars steps as an in-memory log (the caller's rows to
the canonical log, then the per-impression table, or the per-unit position sums); dask first
shuffles the rows so that an impression (a session, when a metric reads sessions) lies in one
partition.  The small per-impression table comes back to the process and the rest (units,
moments, tests) is the in-memory code.  The position sums per unit are additive: each
partition's are summed again in the process.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import polars as pl

from irframe.online._log import OnlineLog

__all__ = ["dask_rows", "per_partition"]


def per_partition(olog: OnlineLog, step: Callable[[pl.LazyFrame], pl.LazyFrame], on: str) -> pl.DataFrame:
    """``step`` on each partition of the dask log after shuffling it on the caller's column ``on``
    (every row with one value of it in one partition); the outputs stacked, as polars."""
    ddf = olog.dask

    def run(pdf: Any) -> Any:
        out = step(olog.prepare(pl.from_pandas(pdf).lazy())).collect()
        return out.to_pandas(use_pyarrow_extension_array=True)

    meta = run(ddf._meta)
    out = ddf.shuffle(on=on).map_partitions(run, meta=meta).compute()
    return pl.from_pandas(out)


def dask_rows(olog: OnlineLog) -> pl.LazyFrame:
    """The whole canonical log as a LazyFrame computed only if collected (an error message
    that shows an offending impression's rows)."""
    schema = olog.lf.collect_schema()
    return pl.defer(lambda: olog.prepare(pl.from_pandas(olog.dask.compute()).lazy()).collect(), schema=schema)
