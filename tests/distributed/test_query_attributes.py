"""``queries=`` on the Dask and out-of-core backends: the in-process result, the same errors.

The in-process evaluation (``irframe.evaluate`` on polars frames) is the reference; the
small case is also checked against its hand-computed means.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pytest

import irframe
from _support.query_attribute_cases import (
    BAD_QUERIES,
    BY,
    QUERIES,
    SMALL_QRELS,
    SMALL_QUERIES,
    SMALL_RUN,
    G,
    assert_hand_means,
    assert_same_as_in_process,
)
from irframe.exceptions import ColumnNotFoundError, InvalidDataError

dd = pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")

BACKENDS = ["dask", "parquet"]


class Backend:
    """Turns polars inputs into one backend's native inputs and its results back."""

    def __init__(self, name: str, tmp_path: Path) -> None:
        self.name, self.tmp_path = name, tmp_path

    def run(self, frame: pl.DataFrame) -> Any:
        if self.name == "dask":  # partitions that split queries
            pdf = frame.sample(fraction=1.0, shuffle=True, seed=3).to_pandas()
            return dd.from_pandas(pdf, npartitions=3, sort=False)
        path = self.tmp_path / f"run-{len(list(self.tmp_path.iterdir()))}.parquet"
        frame.write_parquet(path)
        return str(path)

    def options(self) -> dict[str, Any]:
        return {"npartitions": 4} if self.name == "dask" else {"buckets": 3}

    def evaluate(self, run: pl.DataFrame, *args: Any, **kwargs: Any) -> pl.DataFrame:
        result = irframe.evaluate(self.run(run), *args, **kwargs, **self.options())
        return pl.from_pandas(result.compute()) if self.name == "dask" else result


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    if request.param == "dask":
        request.getfixturevalue("client")
    return Backend(request.param, tmp_path)


def test_small_case_by_hand_and_in_process(backend: Backend) -> None:
    # the qrels lack "segment": it is joined onto them too, so q4 (judged, not in the
    # run) counts as missing in "tail"
    got = backend.evaluate(SMALL_RUN, ["RR"], SMALL_QRELS, by="segment", queries=SMALL_QUERIES)
    assert_hand_means(got)
    want = irframe.evaluate(SMALL_RUN, ["RR"], SMALL_QRELS, by="segment", queries=SMALL_QUERIES)
    assert_same_as_in_process(got, want, per_query=False)
    # an integer attribute keeps its type; per query as in process
    kw: dict[str, Any] = {"by": "tier", "queries": SMALL_QUERIES.to_pandas(), "per_query": True}
    got = backend.evaluate(SMALL_RUN, ["RR", "P@2"], SMALL_QRELS, **kw)
    assert_same_as_in_process(
        got, irframe.evaluate(SMALL_RUN, ["RR", "P@2"], SMALL_QRELS, **kw), per_query=True
    )


@pytest.mark.parametrize("per_query", [True, False])
def test_golden_set_equals_in_process(backend: Backend, per_query: bool) -> None:
    qrels: Any = G.qrels
    queries: Any = QUERIES
    if backend.name == "dask":  # the qrels and the queries table as dask frames
        qrels = dd.from_pandas(G.qrels.to_pandas(), npartitions=2)
        queries = dd.from_pandas(QUERIES.to_pandas(), npartitions=2)
    measures = ["nDCG@10", "RR", "AP"]
    got = backend.evaluate(G.runs, measures, qrels, by=BY, queries=queries, per_query=per_query)
    want = irframe.evaluate(G.runs, measures, G.qrels, by=BY, queries=QUERIES, per_query=per_query)
    assert_same_as_in_process(got, want, per_query=per_query)


def test_attribute_carried_by_the_qrels_only(backend: Backend) -> None:
    qrels = G.qrels.join(QUERIES, on="query_id")  # the run lacks "segment"
    got = backend.evaluate(G.runs, ["RR"], qrels, by=BY)
    assert_same_as_in_process(got, irframe.evaluate(G.runs, ["RR"], qrels, by=BY), per_query=False)
    assert got.height == 9


def test_queries_without_a_missing_by_column_are_unused(backend: Backend) -> None:
    bm25 = G.runs.filter(pl.col("system") == "bm25").drop("system")
    for run, by in ((G.runs, "system"), (bm25, None)):
        got = backend.evaluate(run, ["RR"], G.qrels, by=by, queries=BAD_QUERIES)
        assert_same_as_in_process(got, irframe.evaluate(run, ["RR"], G.qrels, by=by), per_query=False)


def test_errors_name_the_query_and_the_column(backend: Backend) -> None:
    with pytest.raises(InvalidDataError) as info:
        backend.evaluate(G.runs, ["RR"], G.qrels, by=BY, queries=BAD_QUERIES)
    assert "query 'q01' has several values in the queries table" in str(info.value)
    with pytest.raises(ColumnNotFoundError) as info2:
        backend.evaluate(G.runs, ["RR"], G.qrels, by=["system", "segmnt"], queries=QUERIES)
    assert "The by column 'segmnt'" in str(info2.value)
    assert "did you mean 'segment'" in str(info2.value)
    bad_qrels = pl.concat([G.qrels.join(QUERIES, on="query_id"), BAD_QUERIES.tail(1).with_columns(
        doc_id=pl.lit("d-x"), relevance=pl.lit(0))], how="diagonal_relaxed")  # fmt: skip
    with pytest.raises(InvalidDataError, match="query 'q01' has several values in the qrels"):
        backend.evaluate(G.runs, ["RR"], bad_qrels, by=BY)
    with pytest.raises(ColumnNotFoundError, match="'query_id'"):  # a queries table needs its key
        backend.evaluate(G.runs, ["RR"], G.qrels, by="system", queries=QUERIES.rename({"query_id": "id"}))
