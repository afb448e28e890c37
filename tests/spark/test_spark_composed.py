"""Spark: ``ties=``, the diversity measures and ``weights=`` give the in-process values, per
query and in the means, to 1e-12 (the cases: ``tests/_support/composed_cases.py``): every task
composes its partition's evaluation as the in-process backend does
(:mod:`irframe._engine.compose`).  Run with ``python -m pytest -m spark tests/spark`` (needs
pyspark and Java 17)."""

from __future__ import annotations

import os
import shutil
from typing import Any

import polars as pl
import pytest

import irframe
from _support.composed_cases import DIVERSITY, TIES, WEIGHTED, Asked, assert_same

if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
    pytest.skip("Spark tests need Java 17: no `java` on PATH and JAVA_HOME is unset", allow_module_level=True)
pyspark = pytest.importorskip("pyspark", reason="Spark tests need pip install 'irframe[spark]'")

import irframe.spark  # noqa: E402 - after the skips

pytestmark = [
    pytest.mark.spark,
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
]

# every tie mode, diversity alone (by system, by a segment) and with other measures, weighted
CASES = [TIES[0], TIES[7], TIES[20], DIVERSITY[2], DIVERSITY[6], DIVERSITY[-1], *WEIGHTED]


def _sdf(spark: Any, frame: pl.DataFrame) -> Any:
    return spark.createDataFrame(frame.to_arrow())


def _evaluate(spark: Any, asked: Asked, per_query: bool, *, spark_qrels: bool) -> pl.DataFrame:
    c = asked.case
    qrels = c.qrels if c.qrels is None or not spark_qrels else _sdf(spark, c.qrels)
    got = irframe.spark.evaluate(
        _sdf(spark, c.run), asked.measures, qrels, per_query=per_query, num_partitions=3, **c.kwargs
    )
    return pl.DataFrame(got.toArrow())


@pytest.mark.parametrize("asked", CASES, ids=repr)
def test_per_query_equals_in_process(spark: Any, asked: Asked) -> None:
    assert_same(_evaluate(spark, asked, True, spark_qrels=False), asked, True)


@pytest.mark.parametrize("asked", CASES, ids=repr)
def test_means_equal_in_process(spark: Any, asked: Asked) -> None:
    assert_same(_evaluate(spark, asked, False, spark_qrels=True), asked, False)
