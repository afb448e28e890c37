"""counterfactual: IPS by hand and unbiased on simulated logs (the naive estimate is not); the
slate estimators against the plain-Python port of obp 0.4.1's (tests/_support/click_oracles.py)."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest

import irframe.clicks as ic
from _support.click_oracles import obp_slate_value
from _support.click_sessions import simulated_log, slate_log
from irframe.exceptions import (
    ColumnNotFoundError,
    InvalidDataError,
    InvalidParameterError,
    UnknownMeasureError,
)

THETA = (1.0, 0.6, 0.4, 0.3, 0.22, 0.17)
LOG = pl.DataFrame(
    {
        "impression_id": [1, 1, 1, 2, 2, 2, 3, 3, 3],
        "query_id": ["q"] * 6 + ["r"] * 3,
        "doc_id": ["a", "b", "c", "b", "a", "c", "x", "y", "z"],
        "position": [1, 2, 3, 1, 2, 3, 1, 2, 3],
        "clicked": [0, 1, 1, 1, 0, 0, 0, 0, 1],
    }
)
RUN = pl.DataFrame({"query_id": ["q", "q", "q", "r"], "doc_id": ["c", "a", "b", "z"], "rank": [1, 2, 3, 1]})
PROP = {1: 1.0, 2: 0.5, 3: 0.25}


def test_ips_by_hand() -> None:
    out = ic.counterfactual(LOG, RUN, ["Clicks@2", "DCG@3"], propensities=PROP, n_bootstrap=0)
    got = dict(zip(out["measure"], out["value"], strict=True))
    # q, impression 1: b (pos 2, new rank 3), c (pos 3, new rank 1); impression 2: b (pos 1, rank 3)
    # r, impression 3: z (pos 3, new rank 1)
    clicks_q = ((0 + 1 / 0.25) + 0) / 2
    clicks_r = 1 / 0.25
    assert got["Clicks@2"] == pytest.approx((clicks_q + clicks_r) / 2)
    dcg_q = ((1 / 0.5) / 2.0 + (1 / 0.25) / 1.0 + (1 / 1.0) / 2.0) / 2
    assert got["DCG@3"] == pytest.approx((dcg_q + 4.0) / 2)
    assert out["n_queries"].to_list() == [2, 2]
    assert out["n_impressions"].to_list() == [3, 3]
    # weights 1/0.5, 1/0.25, 1/1, 1/0.25 -> (11)^2 / (4 + 16 + 1 + 16)
    assert out["ess"][0] == pytest.approx(121 / 37)


def test_clipping_and_per_query_by_hand() -> None:
    out = ic.counterfactual(LOG, RUN, ["Clicks@1"], propensities=PROP, clip=2.0, per_query=True)
    assert out.select("query_id", "n_impressions", "in_run", "Clicks@1").rows() == [
        ("q", 2, True, (2.0 + 0) / 2),  # c at position 3: min(1/0.25, 2)
        ("r", 1, True, 2.0),
    ]


def test_a_query_the_run_lacks_counts_zero() -> None:
    out = ic.counterfactual(
        LOG, RUN.filter(pl.col("query_id") == "q"), ["Clicks@3"], propensities=PROP, n_bootstrap=0
    )
    assert out["n_missing"][0] == 1
    assert out["value"][0] == pytest.approx((((1 / 0.5) + (1 / 0.25) + 1.0) / 2 + 0.0) / 2)


def test_several_systems_compared_with_the_first() -> None:
    runs = {"base": RUN, "flipped": RUN.with_columns(rank=pl.col("rank").reverse().over("query_id"))}
    out = ic.counterfactual(LOG, runs, ["DCG@3"], propensities=PROP, n_bootstrap=200)
    assert out["system"].to_list() == ["base", "flipped"]
    assert out["delta"][1] == pytest.approx(out["value"][1] - out["value"][0])
    assert out["baseline"].to_list() == [None, "base"]
    assert 0 <= out["p_adjusted"][1] <= 1


def _truth(run: pl.DataFrame, truth: dict[tuple[str, str], float], k: int, queries: list[str]) -> float:
    per = []
    for q in queries:
        ranked = run.filter(pl.col("query_id") == q)
        per.append(
            sum(truth[q, d] / math.log2(r + 1) for d, r in ranked.select("doc_id", "rank").rows() if r <= k)
        )
    return float(np.mean(per))


def _new_ranking(truth: dict[tuple[str, str], float], seed: int) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    rows = [(q, d, rel + rng.normal(0, 0.1)) for (q, d), rel in truth.items()]
    run = pl.DataFrame(rows, schema=["query_id", "doc_id", "score"], orient="row")
    return run.with_columns(
        rank=pl.col("score").rank("ordinal", descending=True).over("query_id").cast(pl.Int64)
    )


@pytest.mark.parametrize("seeds", [range(3)])
def test_ips_is_unbiased_and_naive_is_not(seeds: range) -> None:
    estimates, naive, truths = [], [], []
    for seed in seeds:
        log, truth = simulated_log(seed, n_docs=6, n_queries=20, n_impressions=2000)
        run = _new_ranking(truth, seed)
        queries = log["query_id"].unique().to_list()
        truths.append(_truth(run, truth, 6, queries))
        theta = dict(enumerate(THETA, start=1))
        out = ic.counterfactual(log, run, ["DCG@6"], propensities=theta, n_bootstrap=0)
        estimates.append(out["value"][0])
        flat = ic.counterfactual(log, run, ["DCG@6"], propensities=dict.fromkeys(theta, 1.0), n_bootstrap=0)
        naive.append(flat["value"][0])
    err = np.array(estimates) - np.array(truths)
    assert abs(err.mean()) < 0.05 * np.mean(truths), (estimates, truths)
    assert np.all(np.array(naive) < 0.8 * np.array(truths))  # unweighted clicks: position bias left in


def test_errors_name_the_fix() -> None:
    with pytest.raises(InvalidDataError, match=r"position\(s\) \[3\].*position_bias"):
        ic.counterfactual(LOG, RUN, ["DCG@3"], propensities={1: 1.0, 2: 0.5})
    with pytest.raises(InvalidDataError, match=r"theta\) of position 2 is 0\.0"):
        ic.counterfactual(LOG, RUN, ["DCG@3"], propensities={1: 1.0, 2: 0.0, 3: 0.2})
    with pytest.raises(UnknownMeasureError, match="did you mean 'DCG@10'"):
        ic.counterfactual(LOG, RUN, ["nDCG@10"], propensities=PROP)
    with pytest.raises(InvalidParameterError, match="needs the new ranking"):
        ic.counterfactual(LOG, RUN, ["DCG@3"])
    with pytest.raises(InvalidParameterError, match="did you mean 'sips'"):
        ic.counterfactual(LOG, estimator="sipps")  # type: ignore[arg-type]


@pytest.mark.parametrize("estimator", ["sips", "iips", "rips", "snsips", "sniips", "snrips"])
def test_slate_estimators_equal_obp(estimator: str) -> None:
    log = slate_log(1)
    kind = {"sips": "", "iips": "_item_position", "rips": "_cascade"}[estimator.removeprefix("sn")]
    expected = obp_slate_value(
        log["impression_id"].to_list(), log["clicked"].cast(pl.Float64).to_list(),
        (log["position"] - 1).to_list(), log[f"pscore{kind}"].to_list(),
        log[f"evaluation_policy_pscore{kind}"].to_list(), estimator,
    )  # fmt: skip
    out = ic.counterfactual(log, estimator=estimator, n_bootstrap=100)  # type: ignore[arg-type]
    assert abs(out["value"][0] - expected) <= 1e-12
    assert out["ci_low"][0] <= out["value"][0] <= out["ci_high"][0]
    assert out["n_impressions"][0] == 200


def test_slate_propensities_checked() -> None:
    log = slate_log(2, n=5).with_columns(
        pl.when(pl.col("impression_id") == 3).then(0.0).otherwise(pl.col("pscore")).alias("pscore")
    )
    with pytest.raises(InvalidDataError, match=r"'pscore' has 0\.0 at impression 3"):
        ic.counterfactual(log, estimator="sips")
    bad = slate_log(2, n=5).with_columns(pl.col("pscore_item_position").alias("pscore"))
    with pytest.raises(InvalidDataError, match="estimator='iips' or 'rips'"):
        ic.counterfactual(bad, estimator="sips")
    renamed = slate_log(2, n=5).rename({"pscore_cascade": "logged"})
    with pytest.raises(ColumnNotFoundError, match=r"did you mean pscore_col="):
        ic.counterfactual(renamed, estimator="rips")
    out = ic.counterfactual(renamed, estimator="rips", pscore_col="logged", n_bootstrap=0)
    assert (
        out["value"][0] == ic.counterfactual(slate_log(2, n=5), estimator="rips", n_bootstrap=0)["value"][0]
    )
