"""Spark: ``weights=`` (issue 32 item 7) gives the in-process weighted means.

The weights table is built on the driver (from a queries table, local or Spark, or the
qrels' distinct (query, weight) rows) and sent with every task; each partition's
weighted partial sums add up to the in-process means.  Run with ``python -m pytest -m
spark tests/spark`` (needs pyspark and Java 17).
"""

from __future__ import annotations

import os
import shutil
from typing import Any

import polars as pl
import pytest

import irframe
from _support.partition_cases import MEASURES, WEIGHTED, Case, assert_same_means, assert_same_per_query

if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
    pytest.skip("Spark tests need Java 17: no `java` on PATH and JAVA_HOME is unset", allow_module_level=True)
pyspark = pytest.importorskip("pyspark", reason="Spark tests need pip install 'irframe[spark]'")

import irframe.spark  # noqa: E402 - after the skips

pytestmark = [
    pytest.mark.spark,
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
]

# q1: RR 1/2, P@1 0; q2: RR 1, P@1 1; q3: RR 0; q4: judged, not in the run (0)
RUN = pl.DataFrame({
    "query_id": ["q1", "q1", "q2", "q2", "q3"], "doc_id": ["a", "b", "c", "d", "e"], "rank": [1, 2, 1, 2, 1],
})  # fmt: skip
QRELS = pl.DataFrame(
    {"query_id": ["q1", "q2", "q3", "q4"], "doc_id": ["b", "c", "z", "y"], "relevance": [1, 2, 1, 1]}
)
TRAFFIC = pl.DataFrame({"query_id": ["q1", "q2", "q3", "q4"], "traffic": [3, 1, 2, 4]})


def _sdf(spark: Any, frame: pl.DataFrame) -> Any:
    return spark.createDataFrame(frame.to_arrow())


def _local(result: Any) -> pl.DataFrame:
    return pl.DataFrame(result.toArrow())


@pytest.mark.parametrize("case", WEIGHTED, ids=repr)
def test_weighted_means_of_the_partition_cases_equal_in_process(spark: Any, case: Case) -> None:
    qrels = None if case.qrels is None else _sdf(spark, case.qrels)  # qrels as Spark
    means = irframe.evaluate(_sdf(spark, case.run), MEASURES, qrels, num_partitions=5, **case.kwargs)
    assert_same_means(_local(means), case)


@pytest.mark.parametrize("case", WEIGHTED[2:4], ids=repr)  # (by system: a system lacking queries)
def test_weighted_per_query_rows_equal_in_process(spark: Any, case: Case) -> None:
    per_query = irframe.spark.evaluate(
        _sdf(spark, case.run), MEASURES, case.qrels, per_query=True, num_partitions=3, **case.kwargs
    )
    assert_same_per_query(_local(per_query), case)  # with the weights column


def test_weighted_means_by_hand(spark: Any) -> None:
    want = {"RR": 0.25, "P@1": 0.1, "n_queries": 4, "sum_weights": 10.0}  # (3 * .5 + 1) / 10, 1 / 10
    sources = [
        (QRELS, TRAFFIC),  # local frames
        (_sdf(spark, QRELS), _sdf(spark, TRAFFIC)),  # Spark frames
        (_sdf(spark, QRELS.join(TRAFFIC, on="query_id")), None),  # the weights in the qrels
    ]
    for qrels, queries in sources:
        got = irframe.evaluate(
            _sdf(spark, RUN), ["RR", "P@1"], qrels, weights="traffic", queries=queries, num_partitions=3
        )
        assert _local(got).select(list(want)).row(0, named=True) == want
    with pytest.raises(irframe.exceptions.InvalidDataError, match=r"1 queries of the qrels have no weight"):
        irframe.evaluate(_sdf(spark, RUN), ["RR"], QRELS, weights="traffic", queries=TRAFFIC.head(3))
