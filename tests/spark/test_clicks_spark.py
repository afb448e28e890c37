"""irframe.clicks on a Spark frame (``local[2]``): the same numbers as the in-memory log.

The oracle is the in-memory result on the same rows (itself checked against PyClick, the
ultr-bias-toolkit port, the obp port and hand computations in tests/clicks): the log is
shuffled first, so the repartition by query has work to do.  Run with
``python -m pytest -m spark tests/spark`` (needs pyspark and Java 17).
"""

from __future__ import annotations

import os
import shutil
import warnings
from typing import Any

import pandas as pd
import polars as pl
import pytest

import irframe
import irframe.clicks as ic
from _support.click_sessions import slate_log
from irframe.exceptions import ClickLogWarning, DuplicateRowsError, InvalidDataError, InvalidParameterError

if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
    pytest.skip(
        "Spark tests need Java 17: no `java` on PATH and JAVA_HOME is unset",
        allow_module_level=True,
    )
pyspark = pytest.importorskip("pyspark", reason="Spark tests need pip install 'irframe[spark]'")

pytestmark = [
    pytest.mark.spark,
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
]


@pytest.fixture(scope="module")
def data() -> irframe.datasets.ClickData:
    return irframe.datasets.click_log()


def _sdf(spark: Any, frame: pl.DataFrame) -> Any:
    return spark.createDataFrame(frame.sample(fraction=1.0, shuffle=True, seed=1).to_arrow())


def _close(got: Any, want: pl.DataFrame) -> None:
    assert isinstance(got, pd.DataFrame)
    g = pl.from_pandas(got)
    floats = [c for c in want.columns if want[c].dtype.is_float()]
    assert g.columns == want.columns
    assert g.drop(floats).equals(want.drop(floats))
    for c in floats:
        assert (g[c].is_null() == want[c].is_null()).all(), c
        assert ((g[c] - want[c]).abs().max() or 0.0) <= 1e-12, c


@pytest.mark.parametrize("model", ic.MODELS)
def test_click_model_on_spark_equals_in_memory(spark: Any, data: Any, model: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ClickLogWarning)  # (EM convergence: the same either way)
        got = ic.click_model(_sdf(spark, data.log), model, iterations=5, buckets=3)  # type: ignore[arg-type]
        want = ic.click_model(data.log, model, iterations=5)  # type: ignore[arg-type]
    assert got.summary.pop("n_buckets") == 3
    # (EM's last change to 1e-12: PBM/UBM add the buckets' statistics in bucket order)
    assert got.summary.pop("last_change", 0.0) == pytest.approx(
        want.summary.pop("last_change", 0.0), abs=1e-12
    )
    assert got.summary == want.summary
    _close(got.judgments, want.judgments)
    if want.positions is not None:
        _close(got.positions, want.positions)
    assert got.continuation == pytest.approx(want.continuation, abs=1e-12)


@pytest.mark.parametrize("method", ic.METHODS)
def test_position_bias_on_spark_equals_in_memory(spark: Any, data: Any, method: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ClickLogWarning)
        got = ic.position_bias(_sdf(spark, data.log), method, n_bootstrap=30, buckets=4)  # type: ignore[arg-type]
        want = ic.position_bias(data.log, method, n_bootstrap=30)  # type: ignore[arg-type]
    _close(got, want)


@pytest.mark.parametrize("per_query", [False, True])
def test_counterfactual_on_spark_equals_in_memory(spark: Any, data: Any, per_query: bool) -> None:
    kw: dict[str, Any] = {"propensities": data.theta, "clip": 5.0, "per_query": per_query, "n_bootstrap": 50}
    got = ic.counterfactual(_sdf(spark, data.log), data.runs, ["DCG@5", "Clicks@3"], buckets=3, **kw)
    _close(got, ic.counterfactual(data.log, data.runs, ["DCG@5", "Clicks@3"], **kw))


@pytest.mark.parametrize("estimator", ic.ESTIMATORS[1:])
def test_slate_estimators_on_spark_equal_in_memory(spark: Any, estimator: str) -> None:
    log = slate_log(3, n=300, n_queries=11)
    got = ic.counterfactual(_sdf(spark, log), estimator=estimator, n_bootstrap=50, buckets=3)  # type: ignore[arg-type]
    _close(got, ic.counterfactual(log, estimator=estimator, n_bootstrap=50))  # type: ignore[arg-type]


def test_spark_errors_as_in_memory(spark: Any, data: Any) -> None:
    """A task's input error comes back as in memory (type and message); an impression split
    between partitions, and an empty log, are named by the whole log's check."""
    dup = pl.concat([data.log, data.log.head(1)])
    with pytest.raises(DuplicateRowsError) as want:
        ic.click_model(dup, "cm")
    with pytest.raises(DuplicateRowsError) as got:
        ic.click_model(_sdf(spark, dup), "cm", buckets=4)
    assert str(got.value) == str(want.value)
    two = pl.DataFrame(
        {"impression_id": [1, 1, 2], "query_id": ["q1", "q7", "q1"], "doc_id": ["a", "b", "a"],
         "position": [1, 2, 1], "clicked": [1, 0, 0]}
    )  # fmt: skip
    with pytest.raises(InvalidDataError) as want_split:
        ic.click_model(two, "cm")
    with pytest.raises(InvalidDataError) as got_split:
        ic.click_model(_sdf(spark, two), "cm", buckets=16)
    assert str(got_split.value) == str(want_split.value)
    with pytest.raises(InvalidDataError) as want_empty:
        ic.click_model(two.clear(), "cm")
    with pytest.raises(InvalidDataError) as got_empty:
        ic.click_model(spark.createDataFrame(two.clear().to_arrow()), "cm")
    assert str(got_empty.value) == str(want_empty.value)
    with pytest.raises(InvalidParameterError, match="'memory_limit' parameter of position_bias"):
        ic.position_bias(_sdf(spark, data.log), "pivot", memory_limit="1GB")
    with pytest.warns(ClickLogWarning, match="beyond max_position=3"):
        got_cut = ic.click_model(_sdf(spark, data.log), "sdbn", max_position=3, buckets=2)
    with pytest.warns(ClickLogWarning, match="beyond max_position=3"):
        want_cut = ic.click_model(data.log, "sdbn", max_position=3)
    _close(got_cut.judgments, want_cut.judgments)
    assert got_cut.summary["n_rows_beyond_max_position"] == want_cut.summary["n_rows_beyond_max_position"]
