"""A user-defined measure on Dask worker processes (the definition travels with the task)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import polars as pl
import pytest

import irframe
from helpers import per_query_dict
from irframe.measures import unregister

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

import irframe.dask  # noqa: E402 - after the importorskip

RUN = pl.DataFrame({
    "query_id": ["q1"] * 5 + ["q2"] * 2,
    "doc_id": ["a", "b", "c", "d", "e", "x", "y"],
    "score": [5.0, 4.0, 3.0, 2.0, 1.0, 2.0, 1.0],
})  # fmt: skip
QRELS = pl.DataFrame({
    "query_id": ["q1"] * 5 + ["q2"] * 2 + ["q3"],
    "doc_id": ["a", "c", "d", "e", "f", "x", "y", "z"],
    "relevance": [1, 2, 0, -1, 3, 0, 1, 2],
})  # fmt: skip
# hand counts: Hits@10 relevant retrieved; Missed judged relevant not retrieved
EXPECTED = {
    "Hits@10": {"q1": 2.0, "q2": 1.0, "q3": 0.0},
    "Hits(rel=2)@5": {"q1": 1.0, "q2": 0.0, "q3": 0.0},
    "Missed": {"q1": 1.0, "q2": 0.0, "q3": 1.0},
}


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address="127.0.0.1:0",
        ) as cluster,
        distributed.Client(cluster) as c,
    ):
        yield c


def test_user_measure_on_dask_workers(client: Any) -> None:
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
