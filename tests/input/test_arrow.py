"""Issue 12 item 6: pyarrow Tables in and out; any Arrow C stream in, polars out."""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest

import irframe

pa = pytest.importorskip("pyarrow")

RUN = {"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"], "score": [2.0, 1.0, 1.0]}
QRELS = {"query_id": ["q1", "q2"], "doc_id": ["b", "c"], "relevance": [1, 1]}
# RR by hand: q1 -> b at rank 2 -> 0.5; q2 -> c at rank 1 -> 1.0


class Stream:
    """A minimal producer of the Arrow C stream interface (like a duckdb relation)."""

    def __init__(self, table: Any) -> None:
        self._table = table

    def __arrow_c_stream__(self, requested_schema: object = None) -> object:
        return self._table.__arrow_c_stream__(requested_schema)


def test_pyarrow_table_in_pyarrow_table_out() -> None:
    got = irframe.evaluate(pa.table(RUN), ["RR"], pa.table(QRELS), per_query=True)
    assert isinstance(got, pa.Table)
    assert got.column("RR").to_pylist() == [0.5, 1.0]
    means = irframe.evaluate(pa.table(RUN), ["RR"], pa.table(QRELS))
    assert isinstance(means, pa.Table)
    assert means.column("RR").to_pylist() == [0.75]


def test_arrow_c_stream_in_polars_out() -> None:
    got = irframe.evaluate(Stream(pa.table(RUN)), ["RR"], Stream(pa.table(QRELS)), per_query=True)
    assert isinstance(got, pl.DataFrame)
    assert got["RR"].to_list() == [0.5, 1.0]


def test_compare_keeps_the_arrow_type() -> None:
    runs = {"a": pa.table(RUN), "b": pa.table({**RUN, "score": [1.0, 2.0, 1.0]})}
    t = irframe.compare(runs, pa.table(QRELS), ["RR"], n_permutations=100)
    assert isinstance(t, pa.Table)
    assert t.column("mean").to_pylist() == [1.0]


def test_other_objects_are_refused_with_the_accepted_types() -> None:
    with pytest.raises(irframe.IrFrameError, match="__arrow_c_stream__"):
        irframe.evaluate([1, 2, 3], ["RR"])
