"""Weighted queries in compare and check: each pair's weight, the weighted means.

The weights table is :func:`irframe._input.weights.weights_for`'s (queries table, else the
qrels; never a run).  It is joined onto compare's long and paired tables by query id as
:data:`W`; :func:`irframe._compare.table.compare_one` then weighs every statistic (the
weighted forms of :mod:`irframe.stats`: the mean delta ``sum(w d) / sum(w)``, the
randomization test on the signs of ``w d``, the t-test on the linearization standard
error, the bootstrap resampling queries with their weights).  Wins, ties and losses
still count queries.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import polars as pl

from irframe._compare.pairing import _MEAS, _SYS, _VAL
from irframe._input.options import Options
from irframe._input.weights import WEIGHT, attach, weights_for
from irframe.exceptions import InvalidParameterError

__all__ = ["W", "check_weights_name", "resolve", "system_means", "with_weights"]

W = "__ir_weight"  # a paired row's weight (Float64)


def check_weights_name(weights: object, by: Sequence[str], where: str) -> str | None:
    """``weights`` checked: None or a column name that is not a ``by`` column.

    Examples
    --------
    >>> check_weights_name("traffic", ["segment"], "compare")
    'traffic'
    >>> check_weights_name("segment", ["segment"], "compare")
    Traceback (most recent call last):
    ...
    irframe.exceptions.InvalidParameterError: The 'weights' parameter of compare names the by column ...
    """
    if weights is None:
        return None
    if not isinstance(weights, str) or not weights:
        raise InvalidParameterError.for_value(
            "weights", where, "a column name (a non-empty str) or None", weights
        )
    if weights in by:
        msg = (
            f"The 'weights' parameter of {where} names the by column {weights!r}: a column cannot "
            "both group the queries and weight them. Hint: drop it from by=."
        )
        raise InvalidParameterError(msg)
    return weights


def resolve(
    runs: pl.LazyFrame, qrels: Any, queries: Any, opts: Options, *, weights: str | None, where: str
) -> pl.DataFrame | None:
    """The weights table of ``weights`` for these runs (their columns are checked: a run never
    carries the weights) and judgments; None without weights."""
    if weights is None:
        return None
    return weights_for(runs, qrels, queries, dataclasses.replace(opts, weights=weights), where)


def with_weights(frame: pl.DataFrame, query_col: str, table: pl.DataFrame | None) -> pl.DataFrame:
    """``frame`` with each row's query weight as :data:`W` (unchanged without a table)."""
    if table is None:
        return frame
    joined: pl.DataFrame = attach(frame, query_col, table)
    return joined.rename({WEIGHT: W})


def system_means(long: pl.DataFrame, by: Sequence[str], query_col: str, table: pl.DataFrame) -> pl.DataFrame:
    """The weighted mean of each measure (and group) of every system over its non-null queries.

    Examples
    --------
    >>> from irframe._input.queries import KEY
    >>> long = pl.DataFrame({_SYS: ["a", "a"], "query_id": ["q1", "q2"], _MEAS: ["RR"] * 2, _VAL: [1.0, 0.0]})
    >>> system_means(long, [], "query_id", pl.DataFrame({KEY: ["q1", "q2"], WEIGHT: [3.0, 1.0]})).rows()
    [('a', 'RR', 0.75)]
    """
    rows = with_weights(long.filter(pl.col(_VAL).is_not_null()), query_col, table)
    return (
        rows.group_by([_SYS, *by, _MEAS], maintain_order=True)
        .agg(((pl.col(_VAL) * pl.col(W)).sum() / pl.col(W).sum()).alias("mean"))
        .rename({_SYS: "system", _MEAS: "measure"})
    )
