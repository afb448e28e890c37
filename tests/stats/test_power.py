"""Simulations: a true effect is found at the expected rate, no effect at about alpha."""

from __future__ import annotations

import math

import numpy as np
import pytest

from irframe.stats import paired_test

N_QUERIES = 50
N_SIM = 400
ALPHA = 0.05


def _rate(test: str, shift: float, seed: int) -> float:
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(N_SIM):
        base = rng.uniform(0.2, 0.8, N_QUERIES)
        system = base + shift + rng.normal(0.0, 0.15, N_QUERIES)
        p = paired_test(system, base, test=test, n_permutations=1000, seed=rng).p_value
        hits += p < ALPHA
    return hits / N_SIM


@pytest.mark.parametrize("test", ["t", "randomization", "wilcoxon"])
def test_null_false_positive_rate_is_about_alpha(test: str) -> None:
    rate = _rate(test, 0.0, seed=1)
    se = math.sqrt(ALPHA * (1 - ALPHA) / N_SIM)
    assert abs(rate - ALPHA) < 4 * se


@pytest.mark.parametrize("test", ["t", "randomization", "wilcoxon"])
def test_known_effect_detected_at_expected_power(test: str) -> None:
    ss = pytest.importorskip("scipy.stats")
    shift, sd = 0.06, 0.15
    df = N_QUERIES - 1
    crit = ss.t.ppf(1 - ALPHA / 2, df)
    nc = shift / sd * math.sqrt(N_QUERIES)
    power = float(ss.nct.sf(crit, df, nc) + ss.nct.cdf(-crit, df, nc))  # about 0.88
    rate = _rate(test, shift, seed=2)
    se = math.sqrt(power * (1 - power) / N_SIM)
    # randomization and Wilcoxon are within a few points of the t-test under normal noise
    assert abs(rate - power) < 4 * se + (0 if test == "t" else 0.04)
