"""irframe.online out of core (memory_limit=/buckets=): hash buckets, the same numbers as in memory."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from _support.online_logs import ab_log, interleaved_log
from irframe import online
from irframe.exceptions import InvalidDataError, InvalidParameterError

METRICS = ["CTR@3", "Abandonment", "ClicksPerQuery", "RRFirstClick", "TimeToFirstClick", "SATClick@30",
           "PositionCTR"]  # fmt: skip
SESSIONS = ["Reformulation", "SuccessfulSession", "CTR@3"]
FLOATS = ("value", "se", "ci_low", "ci_high", "numerator", "denominator")


@pytest.fixture(scope="module")
def log() -> pl.DataFrame:
    return ab_log(90, seed=12, lift=0.2)


def _equal(got: pl.DataFrame, ref: pl.DataFrame, floats: tuple[str, ...]) -> None:
    assert got.drop(floats).equals(ref.drop(floats))
    for col in floats:
        assert got[col].to_list() == pytest.approx(ref[col].to_list(), rel=1e-12, abs=1e-15, nan_ok=True), col


@pytest.mark.parametrize("metrics", [METRICS, SESSIONS], ids=["impression-buckets", "session-buckets"])
def test_metrics_out_of_core_equal_in_memory(log: pl.DataFrame, metrics: list[str], tmp_path: Path) -> None:
    ref = online.metrics(log, metrics, by="device")
    got = online.metrics(log, metrics, by="device", buckets=4, tmp_dir=tmp_path)
    _equal(got, ref, FLOATS)
    assert not list(tmp_path.iterdir())  # (the spill directory is removed)


def test_compare_out_of_core_from_parquet_files(log: pl.DataFrame, tmp_path: Path) -> None:
    """Parquet files (a directory) out of core under a memory limit: a polars frame, the same table."""
    for i, part in enumerate(log.partition_by("device")):
        part.write_parquet(tmp_path / f"part-{i}.parquet")
    ref = online.compare(log, [*METRICS, "Reformulation"], control="A")
    got = online.compare(str(tmp_path), [*METRICS, "Reformulation"], control="A", memory_limit="1GB")
    assert isinstance(got, pl.DataFrame)
    floats = ("control_value", "treatment_value", "diff", "lift", "lift_ci_low", "statistic", "df", "p_value",
              "p_adjusted", "srm_p_value", "diff_ci_low", "diff_ci_high", "lift_ci_high")  # fmt: skip
    _equal(got, ref, floats)


def test_an_impression_split_over_session_buckets_is_refused_naming_it(log: pl.DataFrame) -> None:
    """Impression 7's rows in two sessions land in two buckets, each consistent: the whole log's
    count finds it and its check names it."""
    row = pl.int_range(pl.len()).over("impression_id") == 0
    bad = log.with_columns(
        pl.when((pl.col("impression_id") == 7) & row).then(pl.lit("s-elsewhere")).otherwise("session_id")
        .alias("session_id")
    )  # fmt: skip
    with pytest.raises(InvalidDataError, match=r"impression 7 has different values of 'session_id'"):
        online.metrics(bad, "Reformulation", buckets=8)
    with pytest.raises(InvalidDataError, match=r"impression 7 has different values of 'session_id'"):
        online.metrics(bad, "Reformulation")


def test_a_problem_in_a_bucket_is_named(log: pl.DataFrame) -> None:
    dup = log.with_columns(
        pl.when(pl.col("impression_id") == 5).then(1).otherwise("position").alias("position")
    )
    with pytest.raises(ValueError, match="twice in impression 5"):
        online.compare(dup, "CTR", control="A", buckets=3)


@pytest.mark.parametrize("method", ["team_draft", "balanced", "probabilistic"])
def test_interleaving_out_of_core_equals_in_memory(method: str, tmp_path: Path) -> None:
    log, runs = interleaved_log(method)
    ref = online.interleaving(log, runs=runs, method=method)
    got = online.interleaving(log, runs=runs, method=method, buckets=5, tmp_dir=tmp_path)
    assert got.counts == ref.counts
    _equal(got.outcomes, ref.outcomes, tuple(c for c in ref.outcomes.columns if c.startswith("credit_")))
    _equal(
        got.pairs, ref.pairs, ("delta", "delta_ci_low", "delta_ci_high", "share_a", "p_value", "p_adjusted")
    )
    assert ref.outcomes.height == 40


def test_interleaving_out_of_core_names_an_impression_of_two_queries() -> None:
    log, runs = interleaved_log("team_draft")
    row = pl.int_range(pl.len()).over("impression_id") == 0
    bad = log.with_columns(
        pl.when((pl.col("impression_id") == 4) & row)
        .then(pl.lit("q-other"))
        .otherwise("query_id")
        .alias("query_id")
    )
    with pytest.raises(InvalidDataError, match=r"impression 4 has rows of 2 queries"):
        online.interleaving(bad, runs=runs, buckets=6)


def test_interleave_and_power_curve_refuse_memory_limit_saying_why() -> None:
    runs = {"A": pl.DataFrame({"query_id": ["q"], "doc_id": ["a"], "rank": [1]})}
    runs["B"] = runs["A"]
    with pytest.raises(InvalidParameterError, match=r"memory_limit='1GB' is not available: the served lists"):
        online.interleave(runs, memory_limit="1GB")  # type: ignore[arg-type]
    qrels = pl.DataFrame({"query_id": ["q"], "doc_id": ["a"], "relevance": [1]})
    with pytest.raises(InvalidParameterError, match=r"not available: a simulation reads no log"):
        online.power_curve(runs, qrels, memory_limit="1GB")  # type: ignore[arg-type]


def test_memory_limit_on_a_dask_log_is_refused(log: pl.DataFrame) -> None:
    dd = pytest.importorskip("dask.dataframe", reason="dask (the dask extra)")
    with pytest.raises(InvalidParameterError, match=r"memory_limit.*dask"):
        online.metrics(dd.from_pandas(log.to_pandas(), npartitions=2), "CTR", memory_limit="1GB")
