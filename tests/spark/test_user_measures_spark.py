"""A user-defined measure on Spark's Python workers (the definition travels with the task)."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator
from typing import Any

import polars as pl
import pytest

import irframe
from helpers import per_query_dict
from irframe.measures import unregister

if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
    pytest.skip("Spark tests need Java 17: no `java` on PATH and JAVA_HOME is unset", allow_module_level=True)
pyspark = pytest.importorskip("pyspark", reason="Spark tests need pip install 'irframe[spark]'")

import irframe.spark  # noqa: E402 - after the skips

pytestmark = [
    pytest.mark.spark,
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
]

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
EXPECTED = {  # hand counts, as in tests/measures/test_user_measures.py
    "Hits@10": {"q1": 2.0, "q2": 1.0, "q3": 0.0},
    "Hits(rel=2)@5": {"q1": 1.0, "q2": 0.0, "q3": 0.0},
    "Missed": {"q1": 1.0, "q2": 0.0, "q3": 1.0},
}


@pytest.fixture(scope="module")
def spark() -> Iterator[Any]:
    from pyspark.sql import SparkSession

    os.environ["PYSPARK_PYTHON"] = sys.executable
    session = (
        SparkSession.builder.master("local[2]")
        .appName("irframe-user-measures")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def test_user_measure_on_spark_workers(spark: Any) -> None:
    irframe.define_measure("Hits", lambda q: (q.grades >= q.params["rel"]).sum(), params={"rel": 1})
    irframe.define_measure("Missed", lambda q: (q.judged >= 1).sum() - (q.grades >= 1).sum(), aggregate="sum")
    try:
        sdf = spark.createDataFrame(RUN.to_arrow())
        out = pl.DataFrame(irframe.evaluate(sdf, list(EXPECTED), QRELS, per_query=True).toArrow())
        got = per_query_dict(out, list(EXPECTED))
        for label, per_q in EXPECTED.items():
            assert {q: got[q][label] for q in per_q} == per_q, label
        means = pl.DataFrame(irframe.evaluate(sdf, list(EXPECTED), QRELS).toArrow())
        assert means["Missed"].to_list() == [2.0]
    finally:
        unregister("Hits")
        unregister("Missed")
