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
from partition_cases import (
    CASES,
    MEASURES,
    Case,
    assert_same_means,
    assert_same_per_query,
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
