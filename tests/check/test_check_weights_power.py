"""Weighted queries in compare and check (means by hand, evaluate's weighted means, the weighted
tests of irframe.stats), and the power line of check's report (against statsmodels)."""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest

import irframe
from irframe.datasets import golden
from irframe.exceptions import InvalidParameterError
from irframe.stats import bootstrap_ci, randomization_test

G = golden()
RUNS = {s: G.runs.filter(pl.col("system") == s).drop("system") for s in ("bm25", "dense", "hybrid")}
TRAFFIC = G.queries.select("query_id", traffic=(pl.int_range(pl.len()) * 37 % 11 + 1).cast(pl.Int64))

# P@1 per query: base 1, 0, 1; new 0, 1, 1 (deltas -1, +1, 0), weights 3, 1, 2
QRELS = pl.DataFrame({"query_id": ["q1", "q2", "q3"], "doc_id": ["a", "b", "c"], "relevance": [1, 1, 1]})
BASE = pl.DataFrame({"query_id": ["q1", "q2", "q3"], "doc_id": ["a", "x", "c"], "rank": [1, 1, 1]})
NEW = pl.DataFrame({"query_id": ["q1", "q2", "q3"], "doc_id": ["y", "b", "c"], "rank": [1, 1, 1]})
W = pl.DataFrame({"query_id": ["q1", "q2", "q3"], "w": [3.0, 1.0, 2.0]})


def test_weighted_compare_by_hand() -> None:
    t = irframe.compare({"base": BASE, "new": NEW}, QRELS, "P@1", weights="w", queries=W)
    row = t.row(0, named=True)
    # base: (3 + 0 + 2) / 6; new: (0 + 1 + 2) / 6; delta: (-3 + 1 + 0) / 6
    assert (row["baseline_mean"], row["mean"], row["delta"]) == pytest.approx((5 / 6, 3 / 6, -2 / 6))
    assert (row["wins"], row["ties"], row["losses"], row["n_queries"], row["sum_weights"]) == (
        1,
        1,
        1,
        3,
        6.0,
    )
    d, w = np.array([-1.0, 1.0, 0.0]), np.array([3.0, 1.0, 2.0])
    assert (
        row["p_value"] == randomization_test(d, weights=w).p_value == 1.0
    )  # all 4 flips of (-3, 1) reach |-3 + 1|
    ci = bootstrap_ci(d, weights=w)
    assert (row["ci_low"], row["ci_high"]) == (ci.low, ci.high)
    assert "sum_weights" not in irframe.compare({"base": BASE, "new": NEW}, QRELS, "P@1").columns


def test_weighted_compare_means_are_evaluates_weighted_means() -> None:
    t = irframe.compare(RUNS, G.qrels, ["nDCG@10", "RR"], weights="traffic", queries=TRAFFIC)
    for system in ("bm25", "dense"):
        means = irframe.evaluate(RUNS[system], ["nDCG@10", "RR"], G.qrels, weights="traffic", queries=TRAFFIC)
        rows = t.filter(pl.col("system") == "dense") if system == "dense" else t
        col = "mean" if system == "dense" else "baseline_mean"
        for m in ("nDCG@10", "RR"):
            assert rows.filter(pl.col("measure") == m)[col][0] == pytest.approx(means[m][0], rel=1e-12)


def test_weighted_check_is_weighted_compare() -> None:
    result = irframe.check(RUNS["dense"], G.qrels, baseline=RUNS["bm25"], queries=TRAFFIC, weights="traffic")
    want = irframe.compare(
        {"bm25": RUNS["bm25"], "dense": RUNS["dense"]}, G.qrels, list(result.measures), weights="traffic",
        queries=TRAFFIC,
    )  # fmt: skip
    cols = [
        "measure",
        "mean",
        "baseline_mean",
        "delta",
        "ci_low",
        "ci_high",
        "p_value",
        "p_adjusted",
        "sum_weights",
    ]
    assert result.comparisons.select(cols).equals(want.select(cols))
    assert "Note: Queries weighted by 'traffic'." in result.report()
    assert result.to_dict()["weights"] == "traffic"


def test_weights_refuse_wilcoxon_and_a_weighted_run() -> None:
    with pytest.raises(InvalidParameterError, match="no standard weighted form"):
        irframe.compare({"base": BASE, "new": NEW}, QRELS, "P@1", weights="w", queries=W, test="wilcoxon")
    with pytest.raises(InvalidParameterError, match="is a column of the run"):
        irframe.check(NEW.join(W, on="query_id"), QRELS, baseline=BASE, measures="P@1", weights="w")
    with pytest.raises(InvalidParameterError, match="cannot both group the queries and weight them"):
        irframe.check(NEW, QRELS, baseline=BASE, measures="P@1", weights="w", by="w", queries=W)


# --- the power line -------------------------------------------------------------------------
def _deltas(measure: str) -> np.ndarray:
    a, b = (
        irframe.evaluate(RUNS[s], measure, G.qrels, per_query=True).sort("query_id")
        for s in ("dense", "bm25")
    )
    d = a[measure].to_numpy() - b[measure].to_numpy()
    return np.where(np.abs(d) <= 1e-12, 0.0, d)


def test_the_power_line_is_statsmodels_mde_at_the_corrected_alpha() -> None:
    sp = pytest.importorskip("statsmodels.stats.power", reason="needs pip install statsmodels (oracle)")
    result = irframe.check(RUNS["dense"], G.qrels, baseline=RUNS["bm25"])  # 3 measures, Holm
    assert [line["measure"] for line in result.power] == list(result.measures)
    for line in result.power:
        d = _deltas(line["measure"])
        es = sp.TTestPower().solve_power(nobs=40, alpha=0.05 / 3, power=0.8, alternative="two-sided")
        assert line["alpha"] == pytest.approx(0.05 / 3)
        assert line["mde"] == pytest.approx(es * d.std(ddof=1), rel=1e-6)
        assert f"Power: {line['sentence']}." in result.report()
    first = result.power[0]
    assert first["sentence"] == (
        f"with 40 queries, drops of {first['mde']:.3g} nDCG@10 or more are detected 80% of the time "
        "(paired t, alpha 0.0167 = 0.05 / 3: Holm's first step)"
    )
    assert json.loads(json.dumps(result.to_dict()))["power"][0]["mde"] == pytest.approx(first["mde"])
    assert f"- Power: {first['sentence']}." in result.to_markdown()


def test_the_power_line_follows_the_correction_and_the_rule() -> None:
    none = irframe.check(RUNS["dense"], G.qrels, baseline=RUNS["bm25"], correction="none", measures="RR")
    assert none.power[0]["alpha"] == 0.05
    assert none.power[0]["sentence"].endswith("(paired t, alpha 0.05)")
    any_drop = irframe.check(RUNS["dense"], G.qrels, baseline=RUNS["bm25"], fail_on="any-drop")
    assert any_drop.power == []
    assert "Power:" not in any_drop.report()


def test_the_weighted_power_line_uses_the_weighted_standard_error() -> None:
    """Kish's effective number of queries, and the linearization se: MDE = the standardized
    MDE at n_eff times se * sqrt(n_eff)."""
    sp = pytest.importorskip("statsmodels.stats.power", reason="needs pip install statsmodels (oracle)")
    result = irframe.check(RUNS["dense"], G.qrels, baseline=RUNS["bm25"], measures="RR", queries=TRAFFIC,
                           weights="traffic")  # fmt: skip
    line = result.power[0]
    w = TRAFFIC.sort("query_id")["traffic"].to_numpy().astype(float)
    d = _deltas("RR")
    n_eff = w.sum() ** 2 / (w**2).sum()
    se = np.sqrt(40 / 39 * (w**2 * (d - np.average(d, weights=w)) ** 2).sum()) / w.sum()
    m = round(n_eff)
    es = sp.TTestPower().solve_power(nobs=m, alpha=0.05, power=0.8, alternative="two-sided")
    assert line["n_effective"] == pytest.approx(n_eff)
    assert line["mde"] == pytest.approx(es * se * np.sqrt(m), rel=1e-6)
    assert f"with 40 queries (weighted: {n_eff:.1f} effective)" in line["sentence"]
