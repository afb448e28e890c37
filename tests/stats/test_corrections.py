"""Multiple-testing corrections against values computed by hand."""

from __future__ import annotations

import numpy as np
import pytest

from irframe.exceptions import InvalidDataError, InvalidParameterError
from irframe.stats import adjust_p_values

P = [0.01, 0.04, 0.03, 0.005, 0.20]


def test_bonferroni_by_hand() -> None:
    # m = 5: p * 5, capped at 1
    np.testing.assert_allclose(adjust_p_values(P, "bonferroni"), [0.05, 0.20, 0.15, 0.025, 1.0])


def test_holm_by_hand() -> None:
    # sorted: 0.005 (x5=0.025), 0.01 (x4=0.04), 0.03 (x3=0.09),
    # 0.04 (x2=0.08 -> running max 0.09), 0.20 (x1)
    np.testing.assert_allclose(adjust_p_values(P, "holm"), [0.04, 0.09, 0.09, 0.025, 0.20])


def test_bh_by_hand() -> None:
    # sorted p, rank i, p*m/i: 0.005*5/1=0.025, 0.01*5/2=0.025, 0.03*5/3=0.05,
    # 0.04*5/4=0.05, 0.20*5/5=0.20; running min from the top keeps them
    np.testing.assert_allclose(adjust_p_values(P, "bh"), [0.025, 0.05, 0.05, 0.025, 0.20])
    # step-up monotonicity: 0.04*3/2=0.06 > 0.045*3/3=0.045 -> both 0.045
    np.testing.assert_allclose(adjust_p_values([0.01, 0.04, 0.045], "fdr_bh"), [0.03, 0.045, 0.045])


def test_caps_nan_and_none() -> None:
    np.testing.assert_allclose(adjust_p_values([0.5, 0.9], "holm"), [1.0, 1.0])
    np.testing.assert_allclose(adjust_p_values([0.6, 0.9], "bh"), [0.9, 0.9])
    out = adjust_p_values([0.01, np.nan, 0.02], "bonferroni")  # family of 2, NaN left out
    np.testing.assert_allclose(out, [0.02, np.nan, 0.04])
    np.testing.assert_allclose(adjust_p_values(P, "none"), P)
    assert adjust_p_values([], "holm").size == 0


def test_ties_keep_input_order() -> None:
    np.testing.assert_allclose(adjust_p_values([0.02, 0.01, 0.02], "holm"), [0.04, 0.03, 0.04])


def test_matches_scipy_false_discovery_control() -> None:
    ss = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(0)
    p = rng.uniform(0, 0.2, 40)
    np.testing.assert_allclose(adjust_p_values(p, "bh"), ss.false_discovery_control(p), rtol=1e-12)


def test_bad_input() -> None:
    with pytest.raises(InvalidParameterError, match="'correction' parameter"):
        adjust_p_values([0.1], "sidak")
    with pytest.raises(InvalidDataError, match=r"\[0, 1\]"):
        adjust_p_values([1.5], "holm")
