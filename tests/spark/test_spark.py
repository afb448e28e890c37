"""Spark: ``irframe.spark.evaluate`` on ``local[2]`` equals the single machine.

Run with ``python -m pytest -m spark tests/spark`` (the default run deselects the
``spark`` marker; ``.ci/run`` has its own step). Needs pyspark and Java 17.
"""

from __future__ import annotations

import os
import shutil
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

if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
    pytest.skip(
        "Spark tests need Java 17: no `java` on PATH and JAVA_HOME is unset",
        allow_module_level=True,
    )
pyspark = pytest.importorskip("pyspark", reason="Spark tests need pip install 'irframe[spark]'")

import irframe.spark  # noqa: E402 - after the skips

pytestmark = [
    pytest.mark.spark,
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
]


def _sdf(spark: Any, frame: pl.DataFrame) -> Any:
    return spark.createDataFrame(frame.to_arrow())


def _local(result: Any) -> pl.DataFrame:
    return pl.DataFrame(result.toArrow())


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_per_query_equals_single_machine(spark: Any, case: Case) -> None:
    result = irframe.spark.evaluate(
        _sdf(spark, case.run), MEASURES, case.qrels, per_query=True, num_partitions=3, **case.kwargs
    )
    assert isinstance(result, pyspark.sql.DataFrame)
    assert_same_per_query(_local(result), case)


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_means_equal_single_machine(spark: Any, case: Case) -> None:
    qrels = None if case.qrels is None else _sdf(spark, case.qrels)  # qrels as Spark
    result = irframe.evaluate(_sdf(spark, case.run), MEASURES, qrels, **case.kwargs)  # dispatch
    assert isinstance(result, pyspark.sql.DataFrame)
    assert_same_means(_local(result), case)


def test_more_partitions_than_queries(spark: Any) -> None:
    case = CASES[2]  # by=system with a system lacking queries: most partitions are empty
    result = irframe.spark.evaluate(
        _sdf(spark, case.run),
        MEASURES,
        _sdf(spark, case.qrels),  # type: ignore[arg-type]
        per_query=True,
        num_partitions=48,
        **case.kwargs,
    )
    assert_same_per_query(_local(result), case)


def test_errors(spark: Any) -> None:
    from pyspark.errors import PythonException

    case = CASES[0]
    with pytest.raises(irframe.IrFrameError, match="Frobnicate"):  # schema checks: at once
        irframe.spark.evaluate(_sdf(spark, case.run), ["Frobnicate"], case.qrels)
    with pytest.raises(irframe.IrFrameError, match="doc_col"):
        irframe.spark.evaluate(_sdf(spark, case.run), MEASURES, case.qrels, doc_col="docno")
    lazy = irframe.spark.evaluate(_sdf(spark, case.run), MEASURES, case.qrels, missing="error")
    with pytest.raises(PythonException, match="missing from the run"):  # data checks: on action
        lazy.collect()


def test_queries_attribute_equals_in_process(spark: Any) -> None:
    # a Spark queries table, pandas qrels (lacking the attribute: it is joined onto them too)
    for per_query in (True, False):
        got = irframe.evaluate(
            _sdf(spark, G.runs), ["nDCG@10", "RR"], G.qrels.to_pandas(), by=BY,
            queries=_sdf(spark, QUERIES), per_query=per_query, num_partitions=3,
        )  # fmt: skip
        want = irframe.evaluate(
            G.runs, ["nDCG@10", "RR"], G.qrels, by=BY, queries=QUERIES, per_query=per_query
        )
        assert_same_as_in_process(_local(got), want, per_query=per_query)
    # hand-computed: a polars queries table, Spark qrels
    got = irframe.evaluate(
        _sdf(spark, SMALL_RUN), ["RR"], _sdf(spark, SMALL_QRELS), by="segment", queries=SMALL_QUERIES
    )
    assert_hand_means(_local(got))
    # the qrels carry the attribute, the run lacks it
    qrels = G.qrels.join(QUERIES, on="query_id")
    got = irframe.evaluate(_sdf(spark, G.runs), ["RR"], _sdf(spark, qrels), by=BY)
    assert_same_as_in_process(_local(got), irframe.evaluate(G.runs, ["RR"], qrels, by=BY), per_query=False)


def test_queries_errors_name_the_query_and_the_column(spark: Any) -> None:
    run = _sdf(spark, G.runs)
    with pytest.raises(irframe.exceptions.InvalidDataError) as info:  # raised at once, on the driver
        irframe.evaluate(run, ["RR"], G.qrels, by=BY, queries=_sdf(spark, BAD_QUERIES))
    assert "query 'q01' has several values in the queries table" in str(info.value)
    with pytest.raises(irframe.exceptions.ColumnNotFoundError) as info2:
        irframe.evaluate(run, ["RR"], G.qrels, by=["system", "segmnt"], queries=QUERIES)
    assert "The by column 'segmnt'" in str(info2.value)
    assert "did you mean 'segment'" in str(info2.value)
