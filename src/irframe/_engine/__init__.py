"""The engine: one lazy polars plan per evaluation (see :mod:`irframe._engine.plan`).

- :mod:`~irframe._engine.compiler`: measures -> per-query columns (the measures' ``Ctx``);
- :mod:`~irframe._engine.plan`: the steps: prepare once, one ``group_by`` for every measure;
- :mod:`~irframe._engine.strategy`: which executor runs them, from one table of conditions;
- :mod:`~irframe._engine.checks`: input checks on the collected table;
- :mod:`~irframe._engine.aggregate`: means, partial sums, counts (every backend's);
- :mod:`~irframe._engine.buckets`: large in-memory runs, one bucket of queries at a time.
- :mod:`~irframe._engine.keyed`: the fast path for in-memory input (u64 keys, one sort);
- :mod:`~irframe._engine.background`: polars queries run beside it, each fetched once;
- :mod:`~irframe._engine.compose`: one evaluation composed (the plan, the tie-aware and
  diversity measures beside it, the weights), for every backend, ``check`` and ``compare``.
"""

from __future__ import annotations

import polars as pl

from irframe._engine.aggregate import summarize_table
from irframe._engine.buckets import RunInput, bucket_count, collect_in_memory, run_input
from irframe._engine.checks import (
    attribute_like,
    check,
    checked,
    collect,
    partition_stats,
    partitions_error,
)
from irframe._engine.entry import build
from irframe._engine.plan import IN_RUN, JUDGED, Plan
from irframe._engine.strategy import build_plan
from irframe._input.columns import natural_order, natural_sorted
from irframe._input.weights import WEIGHT

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
    "summary",
]


def per_query_table(plan: Plan, table: pl.LazyFrame | pl.DataFrame) -> pl.LazyFrame | pl.DataFrame:
    """The public per-query table: keys and one Float64 column per measure, in natural key
    order (:func:`irframe._input.columns.natural_order`: ``q2`` before ``q10``).

    Missing queries are kept (as zeros) unless ``missing='drop'``; unjudged run queries
    are kept with null values so that they stay visible.  Weighted rows keep their
    weight (:data:`~irframe._input.weights.WEIGHT`, last).
    """
    where = IN_RUN if plan.missing == "drop" else None
    cols = [*plan.keys, *plan.labels]
    if WEIGHT in table.collect_schema().names():
        cols.append(WEIGHT)
    if isinstance(table, pl.DataFrame):
        return natural_sorted(table, plan.keys, cols, where=where)
    table = table.select(cols) if where is None else table.filter(pl.col(where)).select(cols)
    return table.sort(natural_order(table.collect_schema(), plan.keys), nulls_last=True)


def summarize(plan: Plan, table: pl.LazyFrame | pl.DataFrame) -> pl.LazyFrame:
    """Means over judged queries per by-group, with the counts of left-out queries."""
    return summary(plan, table.lazy())  # type: ignore[return-value]


def summary(plan: Plan, table: pl.LazyFrame | pl.DataFrame) -> pl.LazyFrame | pl.DataFrame:
    """:func:`summarize`, eager for a table already computed (a small input pays no lazy
    query for its means)."""
    return summarize_table(table, plan.measures, plan.cols.by, plan.missing, (IN_RUN, JUDGED))
