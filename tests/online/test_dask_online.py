"""irframe.online on a dask log: the same numbers as in process (every metric family)."""

from __future__ import annotations

from collections.abc import Iterator

import polars as pl
import pytest

from _support.online_logs import ab_log, interleaved_log
from irframe import online

dd = pytest.importorskip("dask.dataframe", reason="dask (the dask extra) runs the online metrics on dask")

METRICS = ["CTR@3", "Abandonment", "ClicksPerQuery", "RRFirstClick", "TimeToFirstClick", "SATClick@30",
           "Reformulation", "SuccessfulSession", "PositionCTR"]  # fmt: skip


@pytest.fixture(scope="module")
def log() -> pl.DataFrame:
    return ab_log(80, seed=9, lift=0.2)


@pytest.fixture(autouse=True)
def _synchronous() -> Iterator[None]:
    """Dask's synchronous scheduler: the same graph and partitions, in this process."""
    import dask

    with dask.config.set(scheduler="synchronous"):
        yield None


def _dask(log: pl.DataFrame) -> object:
    return dd.from_pandas(log.to_pandas(), npartitions=4)


def test_metrics_on_dask_equal_in_process(log: pl.DataFrame) -> None:
    ref = online.metrics(log, METRICS, by="arm")
    got = online.metrics(_dask(log), METRICS, by="arm")
    assert type(got).__module__.startswith("dask")
    got = pl.from_pandas(got.compute())
    assert (
        got.select("arm", "metric", "position", "n_units").rows()
        == ref.select("arm", "metric", "position", "n_units").rows()
    )
    for col in ("value", "se", "ci_low", "ci_high", "numerator", "denominator"):
        assert got[col].to_list() == pytest.approx(ref[col].to_list(), rel=1e-12, abs=1e-15), col


def test_compare_on_dask_equal_in_process(log: pl.DataFrame) -> None:
    ref = online.compare(log, ["CTR@3", "Reformulation", "PositionCTR"], control="A")
    got = pl.from_pandas(
        online.compare(_dask(log), ["CTR@3", "Reformulation", "PositionCTR"], control="A").compute()
    )
    for col in ("diff", "lift", "p_value", "p_adjusted", "srm_p_value"):
        assert got[col].to_list() == pytest.approx(ref[col].to_list(), rel=1e-12, abs=1e-15), col


def test_a_bad_dask_log_names_the_impression(log: pl.DataFrame) -> None:
    bad = log.with_columns(
        pl.when(pl.col("impression_id") == 5).then(0).otherwise(pl.col("position")).alias("position")
    )
    with pytest.raises(ValueError, match="position 0 in impression 5"):
        online.metrics(_dask(bad), "CTR")


@pytest.mark.parametrize("method", ["team_draft", "probabilistic"])
def test_interleaving_on_dask_equals_in_process(method: str) -> None:
    log, runs = interleaved_log(method)
    ref = online.interleaving(log, runs=runs, method=method)
    got = online.interleaving(_dask(log), runs=runs, method=method)
    assert got.counts == ref.counts
    assert type(got.outcomes).__module__.startswith("pandas")  # (a small result: pandas, as irframe.clicks)
    outcomes, pairs = pl.from_pandas(got.outcomes), pl.from_pandas(got.pairs)
    assert outcomes.columns == ref.outcomes.columns
    for got_f, ref_f in ((outcomes, ref.outcomes), (pairs, ref.pairs)):
        for col in ref_f.columns:
            if ref_f[col].dtype.is_float():
                assert got_f[col].to_list() == pytest.approx(ref_f[col].to_list(), rel=1e-12, nan_ok=True), (
                    col
                )
            else:
                assert got_f[col].to_list() == ref_f[col].to_list(), col


def test_interleaving_on_dask_names_an_impression_of_two_queries() -> None:
    log, runs = interleaved_log("team_draft")
    row = pl.int_range(pl.len()).over("impression_id") == 0
    q = pl.when((pl.col("impression_id") == 4) & row).then(pl.lit("q-other")).otherwise("query_id")
    with pytest.raises(ValueError, match=r"impression 4 has rows of 2 queries"):
        online.interleaving(_dask(log.with_columns(q.alias("query_id"))), runs=runs)
