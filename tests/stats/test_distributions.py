"""The distribution functions written once in ``irframe._distributions`` (stats, power, the
online experiments and the answer layer call them), checked against ``scipy.stats`` over grids
to 1e-12 relative, and the binomial tail against exact integer arithmetic."""

from __future__ import annotations

import math

import numpy as np
import pytest

import irframe.stats
from irframe import _distributions as D

ss = pytest.importorskip("scipy.stats", reason="needs pip install scipy (the test extra)")

REL = 1e-12
Z = [*np.linspace(-8.0, 8.0, 81).tolist(), -37.0, -20.0, -12.0, 12.0, 20.0, 37.0]
P = [1e-300, 1e-100, 1e-20, 1e-10, 1e-5, 1e-3, 0.02425, 0.02426, *np.linspace(0.01, 0.99, 49).tolist(),
     0.97575, 0.97576, 1 - 1e-3, 1 - 1e-5, 1 - 1e-10, 1 - 1e-15]  # fmt: skip
DF = [1, 2, 3, 4.5, 7, 10, 29, 30, 31, 61, 100, 499, 1000, 10_000]
T = [0.0, 1e-3, 0.1, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 6.0, 8.0, 15.0, 25.0, 100.0, -0.5, -2.0, -10.0]


def _close(ours: float, ref: float, rel: float = REL) -> bool:
    return ours == pytest.approx(ref, rel=rel, abs=1e-300)


def test_the_library_calls_the_one_module() -> None:
    from irframe._golden import power
    from irframe.answers import _ppi
    from irframe.online import _experiment, _stats

    assert irframe.stats.student_t_sf is D.student_t_sf  # (irframe.stats re-exports its public name)
    assert power.t_critical is D.t_critical
    assert _stats.student_t_sf is D.student_t_sf
    assert _stats.chi2_sf is D.chi2_sf
    assert _experiment.t_quantile is D.t_quantile
    assert _ppi.norm_ppf is D.norm_ppf


def test_normal_matches_scipy() -> None:
    bad = [
        z for z in Z if not (_close(D.norm_sf(z), ss.norm.sf(z)) and _close(D.norm_cdf(z), ss.norm.cdf(z)))
    ]
    assert not bad
    arr = np.asarray(Z)
    assert D.norm_cdf_array(arr).tolist() == [D.norm_cdf(z) for z in Z]  # one rule, element by element
    assert not [p for p in P if not _close(D.norm_ppf(p), float(ss.norm.ppf(p)))]
    assert (D.norm_ppf(0.0), D.norm_ppf(1.0), math.isnan(D.norm_ppf(1.5))) == (-math.inf, math.inf, True)


def test_student_t_matches_scipy() -> None:
    bad = [(t, df) for t in T for df in DF if not _close(D.student_t_sf(t, df), float(ss.t.sf(t, df)))]
    assert not bad
    # beyond df = 1e4 the continued fraction loses digits as df grows (the docstring's bounds)
    for df, rel in ((1e5, 3e-12), (1e6, 5e-11)):
        assert all(_close(D.student_t_sf(t, df), float(ss.t.sf(t, df)), rel) for t in T)
    assert math.isnan(D.student_t_sf(1.0, 0))
    assert D.student_t_sf(math.inf, 3) == 0.0


def test_student_t_quantiles_match_scipy() -> None:
    alphas = [0.2, 0.1, 0.05, 0.01, 0.001, 1e-6]
    bad = [
        (a, df) for a in alphas for df in DF if not _close(D.t_critical(a, df), float(ss.t.isf(a / 2, df)))
    ]
    assert not bad
    for level in (0.9, 0.95, 0.99):
        assert _close(D.t_quantile(level, 12), float(ss.t.ppf(0.5 + level / 2, 12)))
        assert _close(D.t_quantile(level, math.inf), float(ss.norm.ppf(0.5 + level / 2)))
    assert math.isnan(D.t_quantile(0.95, 0))
    assert math.isnan(D.t_quantile(0.95, math.nan))


def test_chi2_sf_matches_scipy() -> None:
    xs = [1e-6, 0.01, 0.1, 0.5, 1.0, 2.0, 3.84, 5.0, 10.0, 20.0, 50.0, 100.0, 300.0]
    dfs = [1, 2, 3, 4, 5, 9, 10, 30, 100]
    assert not [(x, k) for x in xs for k in dfs if not _close(D.chi2_sf(x, k), float(ss.chi2.sf(x, k)))]
    assert D.chi2_sf(0.0, 3) == 1.0
    assert math.isnan(D.chi2_sf(1.0, 0))


def _exact_binomial(k: int, n: int) -> float:
    """2 P(X <= min(k, n - k)) for X ~ Binomial(n, 1/2), capped at 1, in exact integers."""
    m = min(k, n - k)
    if 2 * m == n:
        return 1.0
    term = total = 1
    for i in range(1, m + 1):  # C(n, i) from C(n, i - 1)
        term = term * (n - i + 1) // i
        total += term
    return min(1.0, 2 * total / 2**n)  # (int / int: correctly rounded)


def test_binomial_two_sided_matches_exact_integers_and_scipy() -> None:
    cases = [
        (k, n)
        for n in (1, 2, 5, 10, 11, 50, 100, 101, 1000)
        for k in sorted({0, 1, n // 3, n // 2, n - 1, n})
    ]
    for k, n in cases:
        assert _close(D.binomial_two_sided(k, n), _exact_binomial(k, n)), (k, n)
        assert _close(D.binomial_two_sided(k, n), float(ss.binomtest(k, n).pvalue)), (k, n)
    # a p-value near 1e-200 adds up thousands of logs: ~1e-11 of its own size
    for k, n in ((3433, 10_300), (4120, 10_300), (5000, 10_300)):
        assert _close(D.binomial_two_sided(k, n), _exact_binomial(k, n), 1e-11), (k, n)
    assert math.isnan(D.binomial_two_sided(0, 0))
