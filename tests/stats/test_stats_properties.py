"""Hypothesis properties of the paired tests and the corrections."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from _support.helpers import examples
from irframe.stats import adjust_p_values, paired_test, randomization_test

GRID = [0.0, 0.1, 0.25, 1 / 3, 0.5, 2 / 3, 0.75, 1.0]  # IR-like values: ties and zero deltas
pairs = st.integers(2, 40).flatmap(
    lambda n: st.tuples(
        st.lists(st.sampled_from(GRID), min_size=n, max_size=n),
        st.lists(st.sampled_from(GRID), min_size=n, max_size=n),
    )
)


@settings(max_examples=examples(60), deadline=None)
@given(pairs, st.sampled_from(["t", "wilcoxon", "randomization"]))
def test_p_in_unit_interval_and_symmetric_in_x_y(xy: tuple[list[float], list[float]], test: str) -> None:
    x, y = np.array(xy[0]), np.array(xy[1])
    a = paired_test(x, y, test=test, n_permutations=500)
    b = paired_test(y, x, test=test, n_permutations=500)
    assert 0 <= a.p_value <= 1  # the t-test gives 0 for constant non-zero deltas (t = inf)
    if test != "t":
        assert a.p_value > 0
    assert a.p_value == b.p_value


@settings(max_examples=examples(40), deadline=None)
@given(pairs)
def test_query_order_does_not_matter(xy: tuple[list[float], list[float]]) -> None:
    x, y = np.array(xy[0]), np.array(xy[1])
    perm = np.random.default_rng(0).permutation(x.size)
    for test in ("t", "wilcoxon"):
        p1 = paired_test(x, y, test=test).p_value
        p2 = paired_test(x[perm], y[perm], test=test).p_value
        assert abs(p1 - p2) < 1e-12
    if np.count_nonzero(x - y) <= 16:  # exact enumeration
        assert randomization_test(x, y).p_value == randomization_test(x[perm], y[perm]).p_value


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=30))
def test_corrections_bounds_and_order(p: list[float]) -> None:
    raw = np.array(p)
    bonf, holm, bh = (adjust_p_values(raw, m) for m in ("bonferroni", "holm", "bh"))
    for adj in (bonf, holm, bh):
        assert np.all(adj >= raw - 1e-15)
        assert np.all(adj <= 1)
        order = np.argsort(raw, kind="stable")
        assert np.all(np.diff(adj[order]) >= -1e-15)  # monotone in the raw p-values
    assert np.all(bh <= holm + 1e-15)
    assert np.all(holm <= bonf + 1e-15)
