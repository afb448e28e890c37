"""Dask: ``irframe.evaluate(ddf, ...)`` on a 2-worker LocalCluster equals the single machine."""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest

import irframe
from _support.partition_cases import (
    CASES,
    MEASURES,
    Case,
    assert_same_means,
    assert_same_per_query,
)
from irframe.exceptions import ColumnNotFoundError, MissingQueriesError, UnknownMeasureError

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

import irframe.dask  # noqa: E402 - after the importorskip


def _ddf(frame: pl.DataFrame, npartitions: int = 3) -> Any:
    """A dask frame whose partitions split queries (rows shuffled first)."""
    pdf = frame.sample(fraction=1.0, shuffle=True, seed=1).to_pandas()
    return dd.from_pandas(pdf, npartitions=npartitions, sort=False)


PER_QUERY = [(c, None) for c in CASES] + [(CASES[0], 64), (CASES[2], 48)]  # 64: more
# partitions than queries, most of them empty; irframe.dask.evaluate's own order= and columns=:
PER_QUERY += [(c, 4) for c in CASES if "order" in c.kwargs or "columns" in c.kwargs]


@pytest.mark.parametrize(("case", "npartitions"), PER_QUERY, ids=repr)
def test_per_query_equals_single_machine(client: Any, case: Case, npartitions: int | None) -> None:
    run = _ddf(case.run)
    if npartitions is None:  # irframe.evaluate dispatches to irframe.dask.evaluate
        result = irframe.evaluate(run, MEASURES, case.qrels, per_query=True, **case.kwargs)
    else:
        result = irframe.dask.evaluate(
            run, MEASURES, case.qrels, per_query=True, npartitions=npartitions, **case.kwargs
        )
    assert isinstance(result, dd.DataFrame)
    assert_same_per_query(pl.from_pandas(result.compute()), case)


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_means_equal_single_machine(client: Any, case: Case) -> None:
    result = irframe.evaluate(_ddf(case.run), MEASURES, case.qrels, **case.kwargs)
    assert isinstance(result, dd.DataFrame)
    assert result.npartitions == 1
    assert_same_means(pl.from_pandas(result.compute()), case)


@pytest.mark.parametrize("case", [c for c in CASES if c.qrels is not None], ids=repr)
def test_dask_qrels_joined_on_the_cluster(client: Any, case: Case) -> None:
    qrels = _ddf(case.qrels, npartitions=2)  # type: ignore[arg-type]
    per_query = irframe.dask.evaluate(
        _ddf(case.run), MEASURES, qrels, per_query=True, npartitions=5, **case.kwargs
    )
    assert_same_per_query(pl.from_pandas(per_query.compute()), case)
    means = irframe.dask.evaluate(_ddf(case.run), MEASURES, qrels, npartitions=5, **case.kwargs)
    assert_same_means(pl.from_pandas(means.compute()), case)


def test_pandas_qrels_and_accessor(cluster: Any) -> None:
    case = CASES[2]  # by=system, a system lacking queries
    run = _ddf(case.run)
    qrels = case.qrels.to_pandas()  # type: ignore[union-attr]
    got = run.ir.evaluate(MEASURES, qrels, per_query=True, by="system").compute()
    assert_same_per_query(pl.from_pandas(got), case)
    ndcg = run.ir.ndcg(10, qrels, by="system").compute()  # shortcuts forward too
    want = irframe.ndcg(case.run, 10, case.qrels, by="system")
    assert pl.from_pandas(ndcg).sort("system", "query_id").equals(want.sort("system", "query_id"))


def test_empty_input_partitions(client: Any) -> None:
    case = CASES[0]
    pdf = case.run.sort("query_id").to_pandas()
    run = dd.from_pandas(pdf, npartitions=4, sort=False)
    run = run[run["query_id"] < "q2"]  # the later input partitions are empty
    got = irframe.dask.evaluate(run, MEASURES, case.qrels, per_query=True, npartitions=6)
    want = irframe.evaluate(case.run.filter(pl.col("query_id") < "q2"), MEASURES, case.qrels, per_query=True)
    keys = ["query_id"]
    assert pl.from_pandas(got.compute()).sort(keys).equals(want.sort(keys))


def test_errors(cluster: Any) -> None:
    case = CASES[0]
    with pytest.raises(UnknownMeasureError):  # at call time: schema-only checks
        irframe.evaluate(_ddf(case.run), ["nDCG@10", "Frobnicate"], case.qrels)
    with pytest.raises(ColumnNotFoundError):
        irframe.evaluate(_ddf(case.run), MEASURES, case.qrels, doc_col="docno")
    lazy = irframe.evaluate(_ddf(case.run), MEASURES, case.qrels, missing="error")
    with pytest.raises(MissingQueriesError):  # data checks: on compute
        lazy.compute()
