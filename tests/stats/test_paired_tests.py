"""Paired tests and bootstrap intervals checked against scipy (a test-only dependency)."""

from __future__ import annotations

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
    student_t_sf,
    wilcoxon_test,
)

ss = pytest.importorskip("scipy.stats")


def _pair(rng: np.random.Generator, n: int, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """Per-query scores: continuous, or IR-like discrete values with ties and zero deltas."""
    if kind == "continuous":
        y = rng.uniform(0, 1, n)
        return y + rng.normal(0.03, 0.1, n), y
    grid = np.array([0.0, 0.25, 1 / 3, 0.5, 1.0])
    return rng.choice(grid, n), rng.choice(grid, n)


# --- t-test ----------------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 3, 5, 10, 30, 50, 200, 1000])
@pytest.mark.parametrize("kind", ["continuous", "discrete"])
def test_t_test_matches_scipy(n: int, kind: str) -> None:
    rng = np.random.default_rng(n)
    for _ in range(20):
        x, y = _pair(rng, n, kind)
        d = x - y
        if np.all(d == 0) or np.all(d == d[0]):
            continue
        ours = paired_t_test(x, y)
        ref = ss.ttest_rel(x, y)
        assert ours.statistic == pytest.approx(float(ref.statistic), rel=1e-10, abs=1e-12)
        assert ours.p_value == pytest.approx(float(ref.pvalue), rel=1e-10, abs=1e-12)


def test_student_t_sf_exact_for_cauchy() -> None:
    # df = 1 is the Cauchy distribution: sf(t) = 1/2 - atan(t)/pi (scipy loses digits at 1e-8)
    for t in [1e-8, 0.5, 3.0, 1e6]:
        assert student_t_sf(t, 1) == pytest.approx(0.5 - math.atan(t) / math.pi, rel=1e-13)


def test_t_test_degenerate_cases() -> None:
    r = paired_t_test([0.3], [0.1])
    assert math.isnan(r.p_value)
    assert r.note == "n < 2"
    r = paired_t_test([0.3, 0.4, 0.5], [0.3, 0.4, 0.5])
    assert r.p_value == 1.0
    assert r.note == "all deltas are zero"
    r = paired_t_test([0.5, 0.75, 1.0], [0.25, 0.5, 0.75])  # constant non-zero delta
    assert r.p_value == 0.0
    assert r.statistic == math.inf


# --- Wilcoxon --------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("n", "kind", "method"),
    [
        (5, "continuous", "exact"),
        (20, "continuous", "exact"),
        (50, "continuous", "exact"),
        (51, "continuous", "asymptotic"),
        (300, "continuous", "asymptotic"),
        (6, "discrete", None),  # ties/zeros, n <= 13: exact sign-flip enumeration
        (13, "discrete", None),
        (14, "discrete", "asymptotic"),
        (50, "discrete", "asymptotic"),
        (400, "discrete", "asymptotic"),
    ],
)
def test_wilcoxon_matches_scipy_defaults(n: int, kind: str, method: str | None) -> None:
    rng = np.random.default_rng(1000 + n)
    reps = 3 if (kind == "discrete" and 10 < n <= 13) else 25  # scipy's fallback is slow here
    checked = 0
    for _ in range(reps):
        x, y = _pair(rng, n, kind)
        d = x - y
        if np.count_nonzero(d) == 0:
            continue
        ours = wilcoxon_test(x, y)
        ref = ss.wilcoxon(x, y)  # zero_method='wilcox', correction=False, method='auto'
        assert ours.statistic == pytest.approx(float(ref.statistic), rel=1e-12)
        assert ours.p_value == pytest.approx(float(ref.pvalue), rel=1e-10, abs=1e-14)
        if method is not None:
            assert ours.method == method
        checked += 1
    assert checked >= min(reps, 10)


def test_wilcoxon_all_zero_is_p_one() -> None:
    assert wilcoxon_test(np.zeros(20), np.zeros(20)).p_value == 1.0


# --- randomization ---------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 3, 6, 9, 12])
@pytest.mark.parametrize("kind", ["continuous", "discrete"])
def test_randomization_exact_matches_scipy_permutation_test(n: int, kind: str) -> None:
    rng = np.random.default_rng(7 * n)
    for _ in range(10):
        x, y = _pair(rng, n, kind)
        d = x - y
        if not np.any(d):
            continue
        ours = randomization_test(x, y)
        ref = ss.permutation_test(
            (d,), np.mean, permutation_type="samples", n_resamples=np.inf, vectorized=True
        )
        assert ours.method == "exact"
        assert ours.statistic == pytest.approx(float(np.mean(d)))
        assert ours.p_value == pytest.approx(float(ref.pvalue), rel=1e-12)


def test_randomization_monte_carlo_close_to_exact() -> None:
    rng = np.random.default_rng(3)
    for _ in range(5):
        x, y = _pair(rng, 16, "continuous")
        exact = randomization_test(x, y, exact=True).p_value
        b = 20_000
        mc = randomization_test(x, y, exact=False, n_permutations=b, seed=11)
        assert mc.method == "monte-carlo"
        se = math.sqrt(max(exact * (1 - exact), 1e-4) / b)
        assert abs(mc.p_value - exact) < 5 * se + 1 / b


def test_randomization_monte_carlo_convention_and_seeds() -> None:
    x = np.arange(1.0, 31.0)
    r = randomization_test(x, exact=False, n_permutations=999)
    assert r.p_value == pytest.approx(1 / 1000)  # (0 + 1) / (B + 1): never zero
    rng = np.random.default_rng(0)
    x, y = _pair(rng, 40, "continuous")
    a = randomization_test(x, y, seed=5).p_value
    b = randomization_test(x, y, seed=5).p_value
    c = randomization_test(x, y, seed=6).p_value
    assert a == b
    assert a != c
    g1 = randomization_test(x, y, seed=np.random.default_rng(9)).p_value
    g2 = randomization_test(x, y, seed=np.random.default_rng(9)).p_value
    assert g1 == g2


def test_randomization_zero_deltas_do_not_change_exact_p() -> None:
    d = np.array([0.2, -0.1, 0.3, 0.25, 0.05])
    with_zeros = np.concatenate([d, np.zeros(20)])
    assert randomization_test(with_zeros).p_value == randomization_test(d).p_value
    assert randomization_test(with_zeros).statistic == pytest.approx(d.sum() / 25)


def test_randomization_chunks_do_not_change_the_result(monkeypatch: pytest.MonkeyPatch) -> None:
    import irframe._resample as draws

    rng = np.random.default_rng(1)
    x, y = _pair(rng, 60, "continuous")
    whole = randomization_test(x, y, n_permutations=5000, seed=3).p_value
    monkeypatch.setattr(draws, "CHUNK_ELEMENTS", 60 * 7)  # 7 permutations per chunk
    chunked = randomization_test(x, y, n_permutations=5000, seed=3).p_value
    assert abs(whole - chunked) < 0.03  # same distribution, different draws


def test_degenerate_randomization() -> None:
    r = randomization_test([0.5], [0.2])
    assert math.isnan(r.p_value)
    assert r.note == "n < 2"
    r = randomization_test([0.5, 0.1, 0.2], [0.5, 0.1, 0.2])
    assert r.p_value == 1.0


# --- bootstrap -------------------------------------------------------------------------
@pytest.mark.parametrize("method", ["percentile", "bca"])
@pytest.mark.parametrize("level", [0.9, 0.95])
def test_bootstrap_ci_matches_scipy(method: str, level: float) -> None:
    rng = np.random.default_rng(4)
    x, y = _pair(rng, 50, "continuous")
    d = x - y
    ours = bootstrap_ci(x, y, method=method, ci=level, seed=0)
    # one chunk of draws: the same index matrix as scipy's rng.integers(0, n, (B, n))
    ref = ss.bootstrap(
        (d,), np.mean, method=method, confidence_level=level, n_resamples=10_000,
        rng=np.random.default_rng(0),
    )  # fmt: skip
    assert ours.low == pytest.approx(float(ref.confidence_interval.low), rel=1e-9)
    assert ours.high == pytest.approx(float(ref.confidence_interval.high), rel=1e-9)
    assert ours.estimate == pytest.approx(float(d.mean()))


def test_bootstrap_ci_close_to_scipy_with_other_draws() -> None:
    rng = np.random.default_rng(8)
    x, y = _pair(rng, 300, "discrete")
    d = x - y
    ours = bootstrap_ci(x, y, seed=123)
    ref = ss.bootstrap((d,), np.mean, method="percentile", rng=np.random.default_rng(1))
    se = d.std(ddof=1) / math.sqrt(d.size)
    assert abs(ours.low - ref.confidence_interval.low) < 0.15 * se
    assert abs(ours.high - ref.confidence_interval.high) < 0.15 * se


def test_bootstrap_ci_reproducible_and_degenerate() -> None:
    rng = np.random.default_rng(2)
    x, y = _pair(rng, 30, "continuous")
    assert bootstrap_ci(x, y, seed=1) == bootstrap_ci(x, y, seed=1)
    r = bootstrap_ci([0.2], [0.1])
    assert math.isnan(r.low)
    assert math.isnan(r.high)
    r = bootstrap_ci([0.2, 0.3], [0.1, 0.2])
    assert r.low == pytest.approx(0.1)
    assert r.high == pytest.approx(0.1)


def test_bca_undefined_when_every_resample_is_on_one_side() -> None:
    # n = 2, deltas (0, 1): resampled means are 0, 0.5 or 1; estimate 0.5 -> fine
    assert not math.isnan(bootstrap_ci([0.0, 1.0], method="bca", n_bootstrap=200).low)

    # a Generator whose draws all pick query 0: every mean is below the estimate
    class Stuck(np.random.Generator):
        def integers(self, low, high=None, size=None, **kw):  # type: ignore[no-untyped-def, override]
            return np.zeros(size, dtype=np.int64)

    stuck = Stuck(np.random.PCG64(0))
    r = bootstrap_ci([0.0, 1.0, 2.0], method="bca", n_bootstrap=50, seed=stuck)
    assert math.isnan(r.low)
    assert math.isnan(r.high)


def test_bootstrap_test_p_value() -> None:
    rng = np.random.default_rng(2)
    y = rng.uniform(0, 1, 50)
    assert bootstrap_test(y + 0.2, y).p_value == pytest.approx(1 / 10_001)
    x, y = _pair(rng, 50, "continuous")
    boot = bootstrap_test(x, y).p_value
    t = paired_t_test(x, y).p_value
    assert abs(boot - t) < 0.05  # the bootstrap test approximates the t-test for n = 50


# --- effect size, dispatcher, validation -----------------------------------------------
def test_cohens_dz() -> None:
    d = np.array([0.1, 0.3, -0.1, 0.2])
    assert cohens_dz(d) == pytest.approx(d.mean() / d.std(ddof=1))
    assert math.isnan(cohens_dz([0.1]))
    assert math.isnan(cohens_dz([0.1, 0.1]))


@pytest.mark.parametrize("name", ["t", "ttest", "wilcoxon", "randomization", "permutation"])
def test_dispatcher_names(name: str) -> None:
    assert 0 < paired_test([0.5, 0.7, 0.9, 0.4], [0.4, 0.5, 0.8, 0.4], test=name).p_value <= 1


def test_validation_errors() -> None:
    with pytest.raises(InvalidDataError, match="same length"):
        paired_t_test([0.1, 0.2], [0.1])
    with pytest.raises(InvalidDataError, match="NaN"):
        randomization_test([0.1, float("nan")], [0.1, 0.2])
    with pytest.raises(InvalidParameterError, match="'test' parameter"):
        paired_test([0.1, 0.2], [0.1, 0.0], test="anova")
    with pytest.raises(InvalidParameterError, match="n_permutations"):
        randomization_test([0.1, 0.2], n_permutations=0)
    with pytest.raises(InvalidParameterError, match="'ci' parameter"):
        bootstrap_ci([0.1, 0.2], ci=95)
    with pytest.raises(InvalidParameterError, match="seed"):
        randomization_test([0.1, 0.2], seed="x")  # type: ignore[arg-type]
