"""Simulations where the truth is known: the power curve finds the better ranker, an A/A
interleaving rejects at alpha, and the A/B test's false positive rate is alpha with the
right unit and inflated with impressions as units."""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl
import pytest

from irframe import online
from irframe.exceptions import SampleRatioMismatchWarning

QRELS = pl.DataFrame({
    "query_id": [f"q{i}" for i in range(20) for _ in range(4)],
    "doc_id": [f"d{j}" for _ in range(20) for j in range(4)],
    "relevance": [2, 1, 0, 0] * 20,
})  # fmt: skip


def _run(order: list[int]) -> pl.DataFrame:
    return pl.DataFrame({
        "query_id": [f"q{i}" for i in range(20) for _ in order],
        "doc_id": [f"d{j}" for _ in range(20) for j in order],
        "rank": list(range(1, len(order) + 1)) * 20,
    })  # fmt: skip


def test_the_better_ranker_is_found_and_interleaving_needs_fewer_impressions() -> None:
    good, bad = _run([0, 1, 2, 3]), _run([2, 3, 1, 0])
    # (ClicksPerQuery would call the bad ranker better here: its users, unsatisfied, click on)
    curve = online.power_curve(
        {"good": good, "bad": bad}, QRELS, impressions=[20, 100, 400], n_simulations=30,
        click_model="navigational", ab_metric="RRFirstClick", truth_impressions=20_000, seed=1,
    )  # fmt: skip
    il = curve.filter(pl.col("method") == "interleaving")
    ab = curve.filter(pl.col("method") == "ab")
    assert il["winner"].to_list() == ["good"] * 3
    assert ab["winner"].to_list() == ["good"] * 3
    assert il["power"][-1] == 1.0
    assert il["power"].to_list() == sorted(il["power"].to_list())
    assert (il["power"] >= ab["power"]).all()  # interleaving is the more sensitive


@pytest.mark.deep
def test_a_and_a_rejects_at_alpha() -> None:
    same = _run([0, 1, 2, 3])
    curve = online.power_curve({"A": same, "B": same}, QRELS, impressions=[200], n_simulations=400,
                               truth_impressions=20_000, seed=2)  # fmt: skip
    assert curve["winner"].to_list() == ["none", "none"]
    assert curve["power"].to_list() == [0.0, 0.0]
    # identical rankers: team draft still splits the clicks at random, so both tests reject at about
    # alpha (the sign test is discrete: at most alpha)
    il, ab = curve["rejected"].to_list()
    sd = np.sqrt(0.05 * 0.95 / 400)
    assert il < 0.05 + 3 * sd
    assert abs(ab - 0.05) < 4 * sd


def _aa_log(rng: np.random.Generator, n_users: int = 200) -> pl.DataFrame:
    """Users with their own click propensity (clicks correlate within a user), 1-15 impressions
    each, split at random into two identical arms."""
    per_user = rng.integers(1, 16, size=n_users)
    taste = rng.beta(1, 3, size=n_users)
    user = np.repeat(np.arange(n_users), per_user)
    clicked = (rng.random(user.size) < taste[user]).astype(np.int64)
    arm = np.where(rng.random(n_users) < 0.5, "A", "B")[user]
    n = user.size
    return pl.DataFrame({"impression_id": np.arange(n), "query_id": "q", "doc_id": "d", "position": 1,
                         "clicked": clicked, "user_id": user, "arm": arm})  # fmt: skip


@pytest.mark.deep
def test_ab_false_positive_rate_with_the_right_and_the_wrong_unit() -> None:
    rng = np.random.default_rng(11)
    right = wrong = 0
    n_sim = 300
    warnings.simplefilter("ignore", SampleRatioMismatchWarning)  # impressions per arm are not balanced
    for _ in range(n_sim):
        log = _aa_log(rng)
        right += online.compare(log, "CTR", control="A")["p_value"][0] < 0.05
        wrong += (
            online.compare(log.with_columns(imp=pl.col("impression_id")), "CTR", control="A", unit="imp")[
                "p_value"
            ][0]
            < 0.05
        )
    bound = 0.05 + 3 * np.sqrt(0.05 * 0.95 / n_sim)
    assert right / n_sim < bound
    assert wrong / n_sim > bound  # impressions as independent units: the variance is understated
