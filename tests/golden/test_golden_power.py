"""power: the paired t-test against statsmodels, the randomization test simulated, the frame, errors."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import polars as pl
import pytest

import irframe
from _support.helpers import NamedConstructor, to_polars
from irframe._distributions import t_critical
from irframe._golden.power import (
    _standardized_mde,
    detectable_effect,
    power_sentence,
    queries_needed,
    t_test_power,
)
from irframe.exceptions import ColumnNotFoundError, InvalidDataError, InvalidParameterError


def _ttest_power() -> Any:
    sp = pytest.importorskip("statsmodels.stats.power", reason="needs pip install statsmodels (oracle)")
    return sp.TTestPower()


def _nct_power(es: float, n: int, alpha: float) -> float:
    ss = pytest.importorskip("scipy.stats", reason="needs pip install scipy (oracle)")
    crit = float(ss.t.ppf(1 - alpha / 2, n - 1))
    nc = es * math.sqrt(n)
    return float(ss.nct.sf(crit, n - 1, nc) + ss.nct.cdf(-crit, n - 1, nc))


# --- against statsmodels -------------------------------------------------------------------------
@pytest.mark.oracle
def test_power_matches_statsmodels() -> None:
    tp = _ttest_power()
    for alpha in (0.05, 0.01, 0.1):
        for es in (0.0, 0.05, 0.2, 0.5, 1.0, 2.5):
            for n in (3, 5, 10, 30, 100, 1000, 50_000):
                want = float(tp.power(effect_size=es, nobs=n, alpha=alpha, alternative="two-sided"))
                if math.isnan(want):  # statsmodels gives up far in the tail: scipy's nct itself
                    want = _nct_power(es, n, alpha)
                if math.isnan(want):  # (so does scipy at times): the normal approximation, large n
                    crit, nc = t_critical(alpha, n - 1), es * math.sqrt(n)
                    want = 0.5 * math.erfc((crit - nc) / math.sqrt(2)) + 0.5 * math.erfc(
                        (crit + nc) / math.sqrt(2)
                    )
                    assert t_test_power(es, n, alpha) == pytest.approx(want, abs=1e-4), (alpha, es, n)
                    continue
                assert t_test_power(es, n, alpha) == pytest.approx(want, abs=1e-8), (alpha, es, n)
    # n = 2 (one degree of freedom) is the hardest for the quadrature: within 2e-7
    assert t_test_power(0.3, 2) == pytest.approx(float(tp.power(0.3, 2, 0.05)), abs=2e-7)


@pytest.mark.oracle
def test_detectable_effect_and_queries_needed_match_statsmodels() -> None:
    tp = _ttest_power()
    rng = np.random.default_rng(0)
    for n in (6, 15, 40, 120):
        d = rng.normal(0.02, 0.12, n)
        sd = float(d.std(ddof=1))
        for alpha, target in ((0.05, 0.8), (0.01, 0.9), (0.1, 0.5)):
            mde = detectable_effect(d, alpha=alpha, power=target)
            # statsmodels' own power at our MDE is the target (its solver stops at ~1e-7 from it)
            assert float(np.ravel(tp.power(mde / sd, n, alpha))[0]) == pytest.approx(target, abs=1e-9)
            es = float(np.ravel(tp.solve_power(nobs=n, alpha=alpha, power=target))[0])
            assert mde == pytest.approx(es * sd, rel=1e-4)
            for effect in (0.01, 0.04, 0.1):
                n_real = float(
                    np.ravel(tp.solve_power(effect_size=effect / sd, alpha=alpha, power=target))[0]
                )
                assert queries_needed(d, effect, alpha=alpha, power=target) == max(2, math.ceil(n_real))


def test_one_system_variance_assumption() -> None:
    x = np.array([0.9, 0.4, 0.7, 0.3, 0.8, 0.5, 0.6, 0.2, 0.55, 0.65])
    sd = float(x.std(ddof=1))
    k = _standardized_mde(10, 0.05, 0.8)
    assert detectable_effect(x, paired=False) == pytest.approx(k * sd * math.sqrt(2))
    assert detectable_effect(x, paired=False, correlation=0.5) == pytest.approx(k * sd)
    assert detectable_effect(x, paired=False, correlation=0.75) == pytest.approx(k * sd * math.sqrt(0.5))


# --- the randomization test, simulated ------------------------------------------------------------
def _randomization_rejections(
    deltas: np.ndarray, alpha: float, n_signs: int, rng: np.random.Generator
) -> float:
    """Share of the simulated sets (rows of ``deltas``) the sign-flip test rejects (Monte Carlo p)."""
    signs = rng.integers(0, 2, size=(n_signs, deltas.shape[1])) * 2 - 1
    observed = np.abs(deltas.sum(axis=1))
    flipped = np.abs(deltas @ signs.T)  # sets x sign vectors
    p = (np.count_nonzero(flipped >= observed[:, None] - 1e-12, axis=1) + 1) / (n_signs + 1)
    return float(np.mean(p < alpha))


@pytest.mark.parametrize(("n", "sd"), [(20, 0.1), (50, 0.2)])
def test_randomization_test_detects_the_mde_at_the_stated_power(n: int, sd: float) -> None:
    rng = np.random.default_rng(n)
    mde = _standardized_mde(n, 0.05, 0.8) * sd
    sims = 2000
    deltas = rng.normal(mde, sd, size=(sims, n))
    rate = _randomization_rejections(deltas, 0.05, 2000, rng)
    se = math.sqrt(0.8 * 0.2 / sims)
    # the t-test's power is the approximation: the randomization test is within ~2 points of it
    assert abs(rate - 0.8) < 4 * se + 0.02, rate
    # and the t-test itself rejects at the stated rate (the formula, checked by simulation)
    t = deltas.mean(axis=1) / (deltas.std(axis=1, ddof=1) / math.sqrt(n))
    assert abs(float(np.mean(np.abs(t) > t_critical(0.05, n - 1))) - 0.8) < 4 * se


def test_randomization_test_on_golden_set_deltas() -> None:
    """Bounded, tied deltas (the golden set's hybrid - bm25 nDCG@10), resampled and shifted to the MDE."""
    from irframe.datasets import golden

    g = golden()
    per_q = irframe.evaluate(g.runs, ["nDCG@10"], g.qrels, by="system", per_query=True)
    wide = per_q.pivot(on="system", index="query_id", values="nDCG@10")
    d = (wide["hybrid"] - wide["bm25"]).to_numpy()
    n = d.size
    mde = detectable_effect(d)
    rng = np.random.default_rng(7)
    centred = d - d.mean()
    sims = 1500
    deltas = rng.choice(centred, size=(sims, n), replace=True) + mde
    rate = _randomization_rejections(deltas, 0.05, 2000, rng)
    # resampled deltas of a 40-query set: within 6 points of the t-test's 80%
    assert abs(rate - 0.8) < 0.06, rate


# --- the frame -------------------------------------------------------------------------------------
def _per_query(values: list[float | None], queries: list[str] | None = None) -> dict[str, list[Any]]:
    return {"query_id": queries or [f"q{i}" for i in range(len(values))], "nDCG@10": values, "RR": values}


def test_paired_frame(constructor: NamedConstructor) -> None:
    base = [0.9, 0.4, 0.7, 0.3, 0.8, 0.5, 0.6, 0.2, None, 0.1]
    new = [1.0, 0.4, 0.75, 0.4, 0.8, 0.55, 0.7, 0.15, 0.3]  # q9 missing, q8 null in base
    r = irframe.power({"base": constructor(_per_query(base)), "new": constructor(_per_query(new))},
                      ["nDCG@10", "RR"], effect=0.05)  # fmt: skip
    assert isinstance(r, constructor.native_type)
    r = to_polars(r)
    d = np.array(new[:8]) - np.array(base[:8])
    row = r.row(0, named=True)
    assert row["design"] == "paired deltas"
    assert (row["n_queries"], row["n_left_out"]) == (8, 2)
    assert row["mean"] == pytest.approx(d.mean())
    assert row["sd"] == row["sd_delta"] == pytest.approx(d.std(ddof=1))
    assert row["correlation"] is None
    assert row["mde"] == pytest.approx(detectable_effect(d))
    assert row["n_needed"] == queries_needed(d, 0.05)
    assert row["power_at_effect"] == pytest.approx(t_test_power(0.05 / d.std(ddof=1), 8))
    assert row["summary"] == power_sentence("nDCG@10", 8, row["mde"])
    assert r["measure"].to_list() == ["nDCG@10", "RR"]


def test_one_system_frame_and_hypothetical_size() -> None:
    x = [0.9, 0.4, 0.7, 0.3, 0.8, 0.5, 0.6, 0.2]
    r = irframe.power(pl.DataFrame(_per_query(x)), "nDCG@10", correlation=0.6, n_queries=40)
    row = r.row(0, named=True)
    sd = float(np.std(x, ddof=1))
    assert row["design"] == "one system"
    assert row["correlation"] == 0.6
    assert row["sd_delta"] == pytest.approx(sd * math.sqrt(2 * 0.4))
    assert row["n_for_mde"] == 40
    assert row["mde"] == pytest.approx(_standardized_mde(40, 0.05, 0.8) * sd * math.sqrt(0.8))
    assert row["summary"].startswith("with 40 queries, changes of ")
    assert row["effect"] is None
    assert row["n_needed"] is None


def test_evaluate_output_of_one_system_with_its_system_column() -> None:
    from irframe.datasets import golden

    g = golden()
    per_q = irframe.evaluate(g.runs, ["nDCG@10"], g.qrels, by="system", per_query=True)
    r = irframe.power(per_q.filter(pl.col("system") == "bm25"), "nDCG@10")
    assert r["n_queries"][0] == 40
    with pytest.raises(InvalidDataError, match="holds 3 systems in 'system'"):
        irframe.power(per_q, "nDCG@10")


def test_no_variance_gives_a_note() -> None:
    base = _per_query([0.5, 0.6, 0.7])
    r = irframe.power({"a": pl.DataFrame(base), "b": pl.DataFrame(base)}, "nDCG@10", effect=0.1)
    row = r.row(0, named=True)
    assert row["mde"] is None
    assert row["n_needed"] is None
    assert row["note"] == "no variance in the per-query values: no power analysis"
    assert "no variance" in row["summary"]


@pytest.mark.parametrize(
    ("kwargs", "error", "text"),
    [
        (
            {"alpha": 0},
            InvalidParameterError,
            "'alpha' parameter of power must be a float in the open interval",
        ),
        ({"power": 1.0}, InvalidParameterError, "'power' parameter"),
        ({"power": 0.04}, InvalidParameterError, "must exceed alpha"),
        ({"effect": 0}, InvalidParameterError, "'effect' parameter"),
        ({"effect": float("nan")}, InvalidParameterError, "'effect' parameter"),
        ({"n_queries": 1}, InvalidParameterError, "'n_queries' parameter"),
        ({"correlation": 1.0}, InvalidParameterError, "'correlation' parameter"),
        ({"measure": "AP"}, ColumnNotFoundError, "no AP column 'AP'"),
        ({"measure": []}, InvalidParameterError, "'measure' parameter"),
        ({"query_col": "qid"}, ColumnNotFoundError, "no query_id column 'qid'"),
    ],
)
def test_bad_parameters(kwargs: dict[str, Any], error: type[Exception], text: str) -> None:
    args = {"measure": "nDCG@10", **kwargs}
    with pytest.raises(error) as info:
        irframe.power(pl.DataFrame(_per_query([0.1, 0.5, 0.9])), **args)
    assert text in str(info.value)


def test_bad_input() -> None:
    one = pl.DataFrame(_per_query([0.1, 0.5, 0.9]))
    with pytest.raises(InvalidParameterError, match="must hold two systems"):
        irframe.power({"a": one, "b": one, "c": one}, "nDCG@10")
    with pytest.raises(InvalidParameterError, match="'correlation' parameter of power is for one system"):
        irframe.power({"a": one, "b": one}, "nDCG@10", correlation=0.5)
    with pytest.raises(InvalidDataError, match="at least 2 queries with a value"):
        irframe.power(pl.DataFrame(_per_query([0.5, None])), "nDCG@10")
    with pytest.raises(InvalidDataError, match="repeated query ids"):
        irframe.power(pl.concat([one, one]), "nDCG@10")
    with pytest.raises(InvalidDataError, match="at least 2 queries"):
        detectable_effect([0.1])
