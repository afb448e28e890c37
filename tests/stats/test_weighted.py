"""Weighted paired tests: statsmodels' weighted t (WLS, HC1), a brute-force sign-flip oracle,
simulations under the null, and the unweighted tests when every weight is the same."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from irframe.exceptions import InvalidDataError, InvalidParameterError
from irframe.stats import (
    bootstrap_ci,
    bootstrap_test,
    cohens_dz,
    paired_t_test,
    paired_test,
    randomization_test,
    wilcoxon_test,
)


def _case(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """IR-like deltas (ties and zeros) and heavy-tailed traffic weights."""
    jitter = rng.normal(0, 0.02, n) * (rng.random(n) < 0.5)
    d = rng.choice([-0.5, -0.25, 0.0, 0.1, 0.25, 1 / 3, 0.5], n) + jitter
    w = rng.pareto(1.5, n) + 0.1
    return d, w


def test_weighted_mean_by_hand() -> None:
    # (3 * 0.1 + 0.2 + 0.1 + 0) / 6 = 0.1; t = 0.1 / sqrt(4/3 * (0.1**2 + 0.1**2) / 36) = 3.6742
    r = paired_t_test([0.1, 0.2, 0.1, 0.0], weights=[3, 1, 1, 1])
    assert r.statistic == pytest.approx(0.1 / math.sqrt(4 / 3 * 0.02 / 36), rel=1e-12)
    assert bootstrap_ci([0.1, 0.2, 0.1, 0.0], weights=[3, 1, 1, 1]).estimate == pytest.approx(0.1)
    assert randomization_test([0.1, 0.2, 0.1, 0.0], weights=[3, 1, 1, 1]).statistic == pytest.approx(0.1)


@pytest.mark.parametrize("n", [3, 5, 12, 40, 300])
def test_weighted_t_matches_statsmodels_wls_hc1(n: int) -> None:
    """The statistic is statsmodels' weighted mean over its HC1 standard error; the p-value
    is scipy's t on Kish's effective degrees of freedom (statsmodels' own use_t p-value,
    on n - 1, agrees when the weights are equal)."""
    sm = pytest.importorskip("statsmodels.api", reason="needs pip install statsmodels (oracle)")
    ss = pytest.importorskip("scipy.stats", reason="needs pip install scipy (oracle)")
    rng = np.random.default_rng(n)
    for _ in range(10):
        d, w = _case(rng, n)
        fit = sm.WLS(d, np.ones(n), weights=w).fit(cov_type="HC1", use_t=True)
        r = paired_t_test(d, weights=w)
        t = float(fit.tvalues[0])
        assert r.statistic == pytest.approx(t, rel=1e-9)
        n_eff = w.sum() ** 2 / (w**2).sum()
        assert r.p_value == pytest.approx(2 * ss.t.sf(abs(t), n_eff - 1), rel=1e-8, abs=1e-15)
        assert r.n == n
    d, _ = _case(rng, n)
    w = np.r_[np.full(n - 1, 2.0), 2.0 + 1e-9]  # (almost) equal weights: statsmodels' n - 1
    fit = sm.WLS(d, np.ones(n), weights=w).fit(cov_type="HC1", use_t=True)
    assert paired_t_test(d, weights=w).p_value == pytest.approx(float(fit.pvalues[0]), rel=1e-6)


def test_equal_weights_give_the_unweighted_tests() -> None:
    rng = np.random.default_rng(1)
    for n in (2, 7, 16, 30):
        d, _ = _case(rng, n)
        w = np.full(n, 2.5)
        for test in ("t", "randomization", "bootstrap"):
            a = paired_test(d, test=test, weights=w, n_permutations=2000, n_bootstrap=2000)
            b = paired_test(d, test=test, n_permutations=2000, n_bootstrap=2000)
            assert a.p_value == pytest.approx(b.p_value, rel=1e-9), test
            assert a.statistic == pytest.approx(b.statistic, rel=1e-9), test
        wa, wb = bootstrap_ci(d, weights=w, method="bca"), bootstrap_ci(d, method="bca")
        assert (wa.low, wa.high) == pytest.approx((wb.low, wb.high), rel=1e-9, abs=1e-12)
        assert cohens_dz(d, weights=w) == pytest.approx(cohens_dz(d), rel=1e-9, nan_ok=True)


def _brute_force_p(d: np.ndarray, w: np.ndarray) -> float:
    """Every sign vector of the weighted deltas, in plain Python."""
    obs = abs(sum(wi * di for wi, di in zip(w, d, strict=True)))
    hits = total = 0
    for signs in itertools.product((1, -1), repeat=len(d)):
        t = abs(sum(s * wi * di for s, wi, di in zip(signs, w, d, strict=True)))
        hits += t >= obs - 1e-12
        total += 1
    return hits / total


def test_weighted_randomization_is_exact_against_brute_force() -> None:
    rng = np.random.default_rng(2)
    for n in (3, 6, 10):
        for _ in range(5):
            d, w = _case(rng, n)
            d = np.where(d == 0, 0.05, d)  # (zeros drop out of both; keep all n)
            assert randomization_test(d, weights=w).p_value == pytest.approx(_brute_force_p(d, w), abs=1e-12)


def test_zero_weights_leave_queries_out() -> None:
    d, w = [0.3, -0.2, 0.1, 0.4], [1.0, 0.0, 2.0, 1.0]
    for test in ("t", "randomization", "bootstrap"):
        a = paired_test(d, test=test, weights=w)
        b = paired_test([0.3, 0.1, 0.4], test=test, weights=[1.0, 2.0, 1.0])
        assert (a.p_value, a.statistic, a.n) == (b.p_value, b.statistic, 3)


def test_weighted_tests_hold_their_level_under_the_null() -> None:
    """Symmetric deltas (no effect), unequal weights: each test rejects about 5% of the time."""
    rng = np.random.default_rng(3)
    n, sims = 12, 1500
    rejected = {"t": 0, "randomization": 0}
    for _ in range(sims):
        d = rng.normal(0, 0.2, n) * rng.choice([-1, 1], n)
        w = rng.pareto(1.5, n) + 0.1
        for test in rejected:
            rejected[test] += paired_test(d, test=test, weights=w).p_value < 0.05
    se = math.sqrt(0.05 * 0.95 / sims)
    assert abs(rejected["randomization"] / sims - 0.05) < 4 * se  # exact: within sampling error
    # the t approximation (Kish's df) is a little liberal with such skewed weights: 6.5% here
    # (on n - 1 degrees of freedom it was 19%)
    assert rejected["t"] / sims < 0.09


def test_weighted_bootstrap_standard_error_is_the_linearization_one() -> None:
    """For many queries the bootstrap's spread of the weighted mean is the sandwich se."""
    rng = np.random.default_rng(4)
    n = 400
    d, w = _case(rng, n)
    mean = float((w * d).sum() / w.sum())
    se = math.sqrt(n / (n - 1) * float((w**2 * (d - mean) ** 2).sum())) / float(w.sum())
    ci = bootstrap_ci(d, weights=w, n_bootstrap=20_000, seed=1)
    assert (ci.high - ci.low) / (2 * 1.96) == pytest.approx(se, rel=0.05)


def test_bad_weights_are_refused() -> None:
    with pytest.raises(InvalidDataError, match="one weight per query"):
        paired_t_test([0.1, 0.2], weights=[1.0])
    with pytest.raises(InvalidDataError, match="negative, NaN or infinite"):
        randomization_test([0.1, 0.2], weights=[1.0, -1.0])
    with pytest.raises(InvalidDataError, match="every weight is 0"):
        bootstrap_ci([0.1, 0.2], weights=[0.0, 0.0])
    with pytest.raises(InvalidParameterError, match="no standard weighted form"):
        wilcoxon_test([0.1, 0.2], weights=[1.0, 1.0])
    with pytest.raises(InvalidParameterError, match="no standard weighted form"):
        paired_test([0.1, 0.2], test="wilcoxon", weights=[1.0, 1.0])
    assert bootstrap_test([0.1, 0.2, 0.3], weights=[1, 2, 3], n_bootstrap=99).n == 3
