"""PositionCTR's cluster bootstrap: units resampled, one draw set shared by the positions."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from _support.online_logs import ab_log
from irframe import online
from irframe.online._stats import ratio_bootstrap, ratio_bootstrap_columns


def test_the_shared_draws_are_the_definition() -> None:
    """Plain numpy, written out: B resamples of the n units' indices from the seed's generator,
    each position's ratio of the resampled sums; and each column equals the scalar bootstrap."""
    rng = np.random.default_rng(0)
    x = rng.integers(0, 4, size=(7, 3)).astype(np.float64)
    y = x + rng.integers(1, 3, size=(7, 3))
    got = ratio_bootstrap_columns(x, y, 50, 11)
    idx = np.random.default_rng(11).integers(0, 7, size=(50, 7))
    want = np.stack([x[idx, j].sum(axis=1) / y[idx, j].sum(axis=1) for j in range(3)], axis=1)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    for j in range(3):
        np.testing.assert_allclose(got[:, j], ratio_bootstrap(x[:, j], y[:, j], 50, 11), rtol=1e-12)


@pytest.fixture(scope="module")
def log() -> pl.DataFrame:
    return ab_log(400, seed=2)


def test_bootstrap_agrees_with_delta_per_position(log: pl.DataFrame) -> None:
    delta = online.metrics(log, "PositionCTR", by="arm")
    boot = online.metrics(log, "PositionCTR", by="arm", variance="bootstrap", n_bootstrap=2000, seed=3)
    assert boot.select("arm", "position", "value").equals(delta.select("arm", "position", "value"))
    # the bootstrap se's Monte Carlo error is about se / sqrt(2 B) = 1.6%; 10% is ~6 of those
    assert boot["se"].to_list() == pytest.approx(delta["se"].to_list(), rel=0.10)
    # the percentile interval and the t interval agree to a fraction of their width
    width = (delta["ci_high"] - delta["ci_low"]).to_numpy()
    assert np.abs(boot["ci_low"].to_numpy() - delta["ci_low"].to_numpy()).max() < 0.15 * width.max()


def test_bootstrap_is_reproducible_from_the_seed(log: pl.DataFrame) -> None:
    one = online.metrics(log, ["PositionCTR", "CTR@1"], variance="bootstrap", n_bootstrap=200, seed=5)
    assert one.equals(
        online.metrics(log, ["PositionCTR", "CTR@1"], variance="bootstrap", n_bootstrap=200, seed=5)
    )
    other = online.metrics(log, ["PositionCTR", "CTR@1"], variance="bootstrap", n_bootstrap=200, seed=6)
    assert one["se"].to_list() != other["se"].to_list()
    # one draw set: CTR@1 (top click per impression) and PositionCTR at 1 (clicks at 1) are the same
    # sums on this log, so their bootstrap draws, and intervals, coincide
    ctr1 = one.filter(pl.col("metric") == "CTR@1")
    pos1 = one.filter((pl.col("metric") == "PositionCTR") & (pl.col("position") == 1))
    assert ctr1["se"][0] == pytest.approx(pos1["se"][0], rel=1e-12)


def test_a_position_an_arm_never_showed_has_no_interval(log: pl.DataFrame) -> None:
    cut = log.filter(~((pl.col("arm") == "B") & (pl.col("position") == 5)))
    out = online.metrics(cut, "PositionCTR", by="arm", variance="bootstrap", n_bootstrap=100)
    row = out.filter((pl.col("arm") == "B") & (pl.col("position") == 5))
    assert row["n_units"][0] > 0
    assert np.isnan(row["value"][0])
    assert row["se"][0] is None or np.isnan(row["se"][0])
