"""Aggregation over queries, written once for every backend.

Per query first, aggregate second: the engine makes the per-query table (with the
``in_run``/``judged`` flags); the means are sums and counts (:func:`partial_sums`),
added up across partitions and finished by :func:`combine_partials`.  In one process
:func:`summarize` is the same two steps.  The rules:

- a query counts when it is judged (and, with ``missing="drop"``, also in the run);
- ``n_missing``: judged queries absent from the run; ``n_unjudged``: run queries
  without judgments (excluded);
- a group without counted queries has null means;
- a family aggregates by its declared ``aggregate``: ``mean``; ``gmean`` (geometric
  mean with trec_eval's floor of 1e-5 per query); ``sum``;
- weighted queries (per-query rows with a :data:`~irframe._input.weights.WEIGHT`
  column: ``evaluate(..., weights=...)``): every aggregate is weighted, the weights of
  the counted queries summed too (``sum_weights``), so partitions add up as before:
  ``mean`` is ``sum(w x) / sum(w)``, ``gmean`` ``exp(sum(w log x) / sum(w))``, ``sum``
  ``sum(w x)`` (``num_q`` becomes the total weight); a group whose counted queries
  weigh 0 in all has null means.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import polars as pl

from irframe._input.columns import natural_order
from irframe._input.frames import PolarsFrame as Frame
from irframe._input.weights import SUM_WEIGHTS, WEIGHT
from irframe.exceptions import EmptyInputError
from irframe.measures import Measure

__all__ = [
    "COUNTS",
    "GM_FLOOR",
    "aggregates_of",
    "check_not_empty",
    "combine_partials",
    "counted",
    "partial_sums",
    "summarize_table",
]

COUNTS = ("n_queries", "n_missing", "n_unjudged")
GM_FLOOR = 1e-5  # trec_eval's MIN_GEO_MEAN


def aggregates_of(measures: Sequence[tuple[str, Measure]]) -> dict[str, str]:
    """Label -> how its family aggregates over queries."""
    return {label: m.definition.aggregate for label, m in measures}


def counted(in_run: str, judged: str, missing: str) -> pl.Expr:
    """Whether a per-query row counts in the means."""
    return pl.col(judged) & pl.col(in_run) if missing == "drop" else pl.col(judged)


def _partial(label: str, how: str, mask: pl.Expr, weighted: bool) -> pl.Expr:
    """A group's sum of the counted values (times their weights), in sorted order: a float
    sum depends on the order and on how polars sums (one column, a group of a group_by),
    and a system's mean must not change in the last bit with the rows or the other
    systems beside it."""
    col = pl.col(label)
    if how == "gmean":
        col = col.clip(lower_bound=GM_FLOOR).log()
    if weighted:
        col = col * pl.col(WEIGHT)
    return col.filter(mask).sort().sum().alias(label)


def _names(frame: pl.DataFrame | pl.LazyFrame) -> list[str]:
    return frame.collect_schema().names()


def partial_sums(
    per_query: pl.DataFrame | pl.LazyFrame,
    labels: Sequence[str],
    by: Sequence[str] = (),
    missing: str = "zero",
    *,
    flags: tuple[str, str] = ("in_run", "judged"),
    aggregates: Mapping[str, str] | None = None,
) -> Any:
    """Per-group sums (of logs, for geometric means) and query counts of per-query rows
    (weighted sums and the sum of the weights when the rows have a weight column)."""
    in_run, judged = flags
    mask = counted(in_run, judged, missing)
    weighted = WEIGHT in _names(per_query)
    aggs = [
        *(_partial(m, (aggregates or {}).get(m, "mean"), mask, weighted) for m in labels),
        mask.sum().cast(pl.Int64).alias("n_queries"),
        (pl.col(judged) & ~pl.col(in_run)).sum().cast(pl.Int64).alias("n_missing"),
        (~pl.col(judged) & pl.col(in_run)).sum().cast(pl.Int64).alias("n_unjudged"),
    ]
    if weighted:
        aggs.append(pl.col(WEIGHT).filter(mask).sum().cast(pl.Float64).alias(SUM_WEIGHTS))
    if by:
        return per_query.group_by(list(by)).agg(aggs)
    return per_query.select(aggs)


def _finish(label: str, how: str, weighted: bool) -> pl.Expr:
    n = pl.col("n_queries")
    total = pl.col(label)
    mass = pl.col(SUM_WEIGHTS) if weighted else n
    if how == "sum":
        value = total.cast(pl.Float64)
    elif how == "gmean":
        value = (total / mass).exp()
    else:
        value = total / mass
    # a group without counted queries (or whose counted queries weigh 0) has no value
    return pl.when((n > 0) & (mass > 0)).then(value).alias(label)


def combine_partials(
    partials: pl.DataFrame | pl.LazyFrame,
    labels: Sequence[str],
    by: Sequence[str] = (),
    *,
    aggregates: Mapping[str, str] | None = None,
) -> Any:
    """Add partial sums up per group and finish them: the means (weighted ones when the
    partial sums have :data:`~irframe._input.weights.SUM_WEIGHTS`)."""
    weighted = SUM_WEIGHTS in _names(partials)
    summed = [pl.col(c).sum() for c in (*labels, *COUNTS, *([SUM_WEIGHTS] if weighted else []))]
    lf: Any
    if by:
        lf = partials.group_by(list(by)).agg(summed)
        lf = lf.sort(natural_order(lf.collect_schema(), by), nulls_last=True)  # (as the per-query rows)
    else:
        lf = partials.select(summed)
    if isinstance(lf, pl.DataFrame):
        lf = materialized(lf)
    return lf.with_columns(_finish(m, (aggregates or {}).get(m, "mean"), weighted) for m in labels)


def materialized(table: Frame) -> Frame:
    """An eager table whose every column holds its values (a lazy one as it is).

    A DataFrame may hold a column as one broadcast value (a one-row aggregate, a cross
    join with a one-row frame), and polars divides by such a column as by a scalar:
    ``x * (1/k)``, which is not ``x / k`` in floating point (0.5333.../6 gave
    0.08888888888888888 for 0.08888888888888889).  A table built from its Series has none.
    """
    if isinstance(table, pl.DataFrame):
        return pl.DataFrame(table.get_columns())
    return table


def summarize_table(
    table: pl.LazyFrame | pl.DataFrame,
    measures: Sequence[tuple[str, Measure]],
    by: Sequence[str],
    missing: str,
    flags: tuple[str, str],
) -> pl.LazyFrame | pl.DataFrame:
    """Means over counted queries per by-group, with the counts of left-out queries."""
    labels = [label for label, _ in measures]
    aggregates = aggregates_of(measures)
    partial = partial_sums(table, labels, by, missing, flags=flags, aggregates=aggregates)
    return combine_partials(partial, labels, by, aggregates=aggregates)  # type: ignore[no-any-return]


def check_not_empty(n_run_queries: int, n_judged_queries: int | None) -> None:
    """The empty-input rule, for every backend.

    An empty run is normal (a filter that selected nothing): every judged query is
    missing from it (scored 0 under ``missing="zero"``, left out under ``"drop"``), and
    without qrels the per-query table is empty and the means are null with
    ``n_queries`` 0.  What is refused: qrels (``n_judged_queries`` not None) without
    any judged query while the run has queries, since every measure would be null.
    """
    if n_run_queries > 0 and n_judged_queries == 0:
        msg = (
            f"No query of the run is in the qrels: the qrels have no rows, and the run has "
            f"{n_run_queries} queries, so no measure could be computed. Hint: check the file "
            "or the filter that produced the qrels (an empty run with empty qrels gives "
            "n_queries 0)."
        )
        raise EmptyInputError(msg)


def counts_of(partials: pl.DataFrame, missing: str) -> tuple[int, int]:
    """(run queries, judged queries) from combined partial sums, for :func:`check_not_empty`."""
    n_queries, n_missing, n_unjudged = (int(partials.get_column(c).sum()) for c in COUNTS)
    judged_in_run = n_queries - (0 if missing == "drop" else n_missing)
    return judged_in_run + n_unjudged, n_queries + (n_missing if missing == "drop" else 0)
