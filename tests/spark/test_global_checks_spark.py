"""Spark runs the checks no partition can make alone, as ``irframe.evaluate`` in process.

Since the backends share one skeleton (:mod:`irframe._backends.skeleton`), the global
checks run on Spark too (when an action runs): qrels without any judged query, and a
``by`` column that splits the queries (a segment) passed as a system under
``missing="zero"``.  An empty run gives the in-process result (one row of null means).
"""

from __future__ import annotations

import os
import shutil
from typing import Any

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import irframe
from _support.partition_cases import CASES, MEASURES
from irframe.exceptions import EmptyInputError, InvalidParameterError

if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
    pytest.skip("Spark tests need Java 17: no `java` on PATH and JAVA_HOME is unset", allow_module_level=True)
pyspark = pytest.importorskip("pyspark", reason="Spark tests need pip install 'irframe[spark]'")

import irframe.spark  # noqa: E402 - after the skips

pytestmark = [
    pytest.mark.spark,
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
]


def _sdf(spark: Any, frame: pl.DataFrame) -> Any:
    return spark.createDataFrame(frame.to_arrow())


@pytest.mark.parametrize("per_query", [True, False])
def test_global_checks_raise_as_in_process(spark: Any, per_query: bool) -> None:
    from pyspark.errors import PythonException

    case = next(c for c in CASES if c.name == "segment-in-qrels")
    qrels = case.qrels.drop("segment")  # type: ignore[union-attr]
    with pytest.raises(InvalidParameterError, match="look like query attributes") as want:
        irframe.evaluate(case.run, MEASURES, qrels, by="segment", per_query=per_query)
    lazy = irframe.spark.evaluate(_sdf(spark, case.run), MEASURES, qrels, by="segment", per_query=per_query)
    with pytest.raises(PythonException) as got:  # Spark wraps irframe's error, message kept
        lazy.collect()
    assert str(want.value) in str(got.value)
    empty = CASES[0].qrels.head(0)  # type: ignore[union-attr]
    with pytest.raises(EmptyInputError) as want_empty:
        irframe.evaluate(CASES[0].run, MEASURES, empty, per_query=per_query)
    with pytest.raises(PythonException) as got_empty:
        irframe.spark.evaluate(_sdf(spark, CASES[0].run), MEASURES, empty, per_query=per_query).collect()
    assert str(want_empty.value) in str(got_empty.value)


def test_empty_run_gives_the_in_process_result(spark: Any) -> None:
    run = CASES[6].run  # grades on the run rows, no qrels
    empty = _sdf(spark, run).limit(0)
    for per_query in (True, False):
        got = pl.DataFrame(irframe.spark.evaluate(empty, MEASURES, per_query=per_query).toArrow())
        want = irframe.evaluate(run.head(0), MEASURES, per_query=per_query)
        assert_frame_equal(got, want)
