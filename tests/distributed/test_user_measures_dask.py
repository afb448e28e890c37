"""A user-defined measure on Dask worker processes (the definition travels with the task)."""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest

import irframe
from _support.helpers import per_query_dict
from irframe.measures import unregister

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

import irframe.dask  # noqa: E402 - after the importorskip
from _support.user_measure_cases import EXPECTED, QRELS, RUN  # noqa: E402


def test_user_measure_on_dask_workers(cluster: Any) -> None:
    # lambdas: the worker processes cannot import them, so they travel by value
    irframe.define_measure("Hits", lambda q: (q.grades >= q.params["rel"]).sum(), params={"rel": 1})
    irframe.define_measure("Missed", lambda q: (q.judged >= 1).sum() - (q.grades >= 1).sum(), aggregate="sum")
    try:
        ddf = dd.from_pandas(RUN.to_pandas(), npartitions=2, sort=False)
        out = irframe.evaluate(ddf, list(EXPECTED), QRELS, per_query=True).compute()
        got = per_query_dict(pl.from_pandas(out), list(EXPECTED))
        for label, per_q in EXPECTED.items():
            assert {q: got[q][label] for q in per_q} == per_q, label
        means = irframe.evaluate(ddf, list(EXPECTED), QRELS).compute()
        assert float(means["Missed"].iloc[0]) == 2.0  # aggregate="sum"
    finally:
        unregister("Hits")
        unregister("Missed")
