"""A user-defined measure on Spark's Python workers (the definition travels with the task)."""

from __future__ import annotations

import os
import shutil
from typing import Any

import polars as pl
import pytest

import irframe
from _support.helpers import per_query_dict
from irframe.measures import unregister

if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
    pytest.skip("Spark tests need Java 17: no `java` on PATH and JAVA_HOME is unset", allow_module_level=True)
pyspark = pytest.importorskip("pyspark", reason="Spark tests need pip install 'irframe[spark]'")

import irframe.spark  # noqa: E402 - after the skips
from _support.user_measure_cases import EXPECTED, QRELS, RUN  # noqa: E402

pytestmark = [
    pytest.mark.spark,
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
]


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
