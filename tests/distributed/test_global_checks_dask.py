"""Dask runs the checks no partition can make alone, as ``irframe.evaluate`` in process.

Since the backends share one skeleton (:mod:`irframe._backends.skeleton`), the global
checks run on Dask too (on ``compute()``): qrels without any judged query, and a ``by``
column that splits the queries (a segment) passed as a system under ``missing="zero"``.
"""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest

import irframe
from _support.partition_cases import CASES, MEASURES
from irframe.exceptions import EmptyInputError, InvalidParameterError

dd = pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")

import irframe.dask  # noqa: E402 - after the importorskip


def _ddf(frame: pl.DataFrame) -> Any:
    return dd.from_pandas(
        frame.sample(fraction=1.0, shuffle=True, seed=4).to_pandas(), npartitions=3, sort=False
    )


@pytest.mark.parametrize("per_query", [True, False])
def test_global_checks_raise_as_in_process(client: Any, per_query: bool) -> None:
    case = next(c for c in CASES if c.name == "segment-in-qrels")
    qrels = case.qrels.drop("segment")  # type: ignore[union-attr]
    with pytest.raises(InvalidParameterError, match="look like query attributes") as want:
        irframe.evaluate(case.run, MEASURES, qrels, by="segment", per_query=per_query)
    lazy = irframe.dask.evaluate(
        _ddf(case.run), MEASURES, qrels, by="segment", per_query=per_query, npartitions=5
    )
    with pytest.raises(InvalidParameterError) as got:
        lazy.compute()
    assert str(got.value) == str(want.value)
    empty = CASES[0].qrels.head(0)  # type: ignore[union-attr]
    with pytest.raises(EmptyInputError) as want_empty:
        irframe.evaluate(CASES[0].run, MEASURES, empty, per_query=per_query)
    with pytest.raises(EmptyInputError) as got_empty:
        irframe.evaluate(_ddf(CASES[0].run), MEASURES, empty, per_query=per_query).compute()
    assert str(got_empty.value) == str(want_empty.value)
