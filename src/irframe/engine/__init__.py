"""The engine: one lazy polars plan per evaluation (see :mod:`irframe.engine._plan`).

- :mod:`~irframe.engine._compile`: measures -> per-query columns (the measures' ``Ctx``);
- :mod:`~irframe.engine._plan`: prepare once, one ``group_by`` for every measure;
- :mod:`~irframe.engine._checks`: input checks on the collected table;
- :mod:`~irframe.engine._aggregate`: means, partial sums, counts (every backend's);
- :mod:`~irframe.engine._buckets`: large in-memory runs, one bucket of queries at a time.
- :mod:`~irframe.engine._keyed`: the fast path for in-memory input (u64 keys, one sort);
- :mod:`~irframe.engine._background`: polars queries run beside it, each fetched once.
"""

from __future__ import annotations

import polars as pl

from irframe._columns import natural_order
from irframe.engine._aggregate import summarize_table
from irframe.engine._buckets import RunInput, bucket_count, collect_in_memory, run_input
from irframe.engine._checks import (
    attribute_like,
    check,
    checked,
    collect,
    partition_stats,
    partitions_error,
)
from irframe.engine._entry import build
from irframe.engine._plan import IN_RUN, JUDGED, Plan, build_plan

__all__ = [
    "IN_RUN",
    "JUDGED",
    "Plan",
    "RunInput",
    "attribute_like",
    "bucket_count",
    "build",
    "build_plan",
    "check",
    "checked",
    "collect",
    "collect_in_memory",
    "partition_stats",
    "partitions_error",
    "per_query_table",
    "run_input",
    "summarize",
]


def per_query_table(plan: Plan, table: pl.LazyFrame) -> pl.LazyFrame:
    """The public per-query table: keys and one Float64 column per measure, in natural key
    order (:func:`irframe._columns.natural_order`: ``q2`` before ``q10``).

    Missing queries are kept (as zeros) unless ``missing='drop'``; unjudged run queries
    are kept with null values so that they stay visible.
    """
    if plan.missing == "drop":
        table = table.filter(pl.col(IN_RUN))
    table = table.select(*plan.keys, *plan.labels)
    return table.sort(natural_order(table.collect_schema(), plan.keys), nulls_last=True)


def summarize(plan: Plan, table: pl.LazyFrame | pl.DataFrame) -> pl.LazyFrame:
    """Means over judged queries per by-group, with the counts of left-out queries."""
    return summarize_table(table.lazy(), plan.measures, plan.cols.by, plan.missing, (IN_RUN, JUDGED))
