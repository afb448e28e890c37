"""Ids of two date/time dtypes are refused, never silently unmatched (issue 35, class 6)."""

from __future__ import annotations

import datetime as dt

import polars as pl
import pytest

import irframe
from irframe.exceptions import InvalidDataError

DAY = dt.date(2026, 1, 1)
RUN = pl.DataFrame({"query_id": [DAY, DAY], "doc_id": ["a", "b"], "score": [2.0, 1.0]})
QRELS = pl.DataFrame({"query_id": [DAY], "doc_id": ["b"], "relevance": [1]})


@pytest.mark.parametrize(
    ("run_ids", "qrels_ids"),
    [
        (pl.col("query_id"), pl.col("query_id").cast(pl.Datetime)),  # a date against a time
        (
            pl.col("query_id").cast(pl.Datetime).dt.replace_time_zone("UTC"),
            pl.col("query_id").cast(pl.Datetime),
        ),  # two time zones
        (pl.col("query_id").cast(pl.Datetime("ms")), pl.col("query_id").cast(pl.Datetime("us"))),  # units
    ],
)
def test_two_temporal_dtypes_are_refused_naming_both(run_ids: pl.Expr, qrels_ids: pl.Expr) -> None:
    run, qrels = RUN.with_columns(run_ids), QRELS.with_columns(qrels_ids)
    with pytest.raises(InvalidDataError, match=r"run's id column 'query_id' is .* and the qrels' is"):
        irframe.evaluate(run, ["RR"], qrels)


@pytest.mark.parametrize(
    "ids", [pl.col("query_id"), pl.col("query_id").cast(pl.Datetime).dt.replace_time_zone("Europe/Paris")]
)
def test_one_temporal_dtype_matches(ids: pl.Expr) -> None:
    got = irframe.evaluate(RUN.with_columns(ids), ["RR"], QRELS.with_columns(ids), per_query=True)
    assert got["RR"].to_list() == [0.5]  # b is judged relevant, at rank 2
