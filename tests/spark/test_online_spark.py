"""irframe.online on a Spark frame (``local[2]``): the same numbers as the in-memory log.

The oracle is the in-memory result on the same rows (itself checked against tea-tasting, a
hand computation and mpkato/interleaving in tests/online): the log is shuffled first, so the
repartition has work to do.  Run with ``python -m pytest -m spark tests/spark`` (needs
pyspark and Java 17).
"""

from __future__ import annotations

import os
import shutil
from typing import Any

import pandas as pd
import polars as pl
import pytest

from _support.online_logs import ab_log, interleaved_log
from irframe import online
from irframe.exceptions import InvalidDataError, InvalidParameterError

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

METRICS = ["CTR@3", "Abandonment", "ClicksPerQuery", "RRFirstClick", "TimeToFirstClick", "SATClick@30",
           "PositionCTR"]  # fmt: skip


@pytest.fixture(scope="module")
def log() -> pl.DataFrame:
    return ab_log(80, seed=9, lift=0.2)


def _sdf(spark: Any, frame: pl.DataFrame) -> Any:
    return spark.createDataFrame(frame.sample(fraction=1.0, shuffle=True, seed=1).to_arrow())


def _close(got: Any, want: pl.DataFrame) -> None:
    assert isinstance(got, pd.DataFrame)
    g = pl.from_pandas(got)
    floats = [c for c in want.columns if want[c].dtype.is_float()]
    assert g.columns == want.columns
    assert g.drop(floats).equals(want.drop(floats))
    for c in floats:
        assert g[c].to_list() == pytest.approx(want[c].to_list(), rel=1e-12, abs=1e-15, nan_ok=True), c


@pytest.mark.parametrize("metrics", [METRICS, ["Reformulation", "SuccessfulSession"]], ids=["imp", "session"])
def test_metrics_on_spark_equal_in_memory(spark: Any, log: pl.DataFrame, metrics: list[str]) -> None:
    _close(
        online.metrics(_sdf(spark, log), metrics, by="arm", buckets=3), online.metrics(log, metrics, by="arm")
    )


def test_compare_on_spark_equals_in_memory(spark: Any, log: pl.DataFrame) -> None:
    metrics = [*METRICS, "Reformulation"]
    _close(online.compare(_sdf(spark, log), metrics, control="A"), online.compare(log, metrics, control="A"))


@pytest.mark.parametrize("method", ["team_draft", "balanced", "probabilistic"])
def test_interleaving_on_spark_equals_in_memory(spark: Any, method: str) -> None:
    il, runs = interleaved_log(method)
    got = online.interleaving(_sdf(spark, il), runs=runs, method=method, buckets=3)
    want = online.interleaving(il, runs=runs, method=method)
    assert got.counts == want.counts
    _close(got.outcomes, want.outcomes)
    _close(got.pairs, want.pairs)


def test_errors_on_spark_name_the_impression(spark: Any, log: pl.DataFrame) -> None:
    dup = log.with_columns(
        pl.when(pl.col("impression_id") == 5).then(1).otherwise("position").alias("position")
    )
    with pytest.raises(ValueError, match="twice in impression 5"):
        online.metrics(_sdf(spark, dup), "CTR")
    row = pl.int_range(pl.len()).over("impression_id") == 0
    session = pl.when((pl.col("impression_id") == 7) & row).then(pl.lit("s-x")).otherwise("session_id")
    with pytest.raises(InvalidDataError, match=r"impression 7 has different values of 'session_id'"):
        online.metrics(_sdf(spark, log.with_columns(session.alias("session_id"))), "Reformulation", buckets=8)
    with pytest.raises(InvalidParameterError, match="memory_limit"):
        online.metrics(_sdf(spark, log), "CTR", memory_limit="1GB")
