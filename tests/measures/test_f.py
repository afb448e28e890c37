"""F(beta)@k by hand: the weighted harmonic mean of P@k and R@k."""

from __future__ import annotations

import pytest

import irframe
from _support.helpers import NamedConstructor, per_query_dict
from irframe.exceptions import InvalidParameterError
from irframe.measures import parse_measure

# ranking a(1) b(0) c(2) d(unjudged) e(1); judged relevant, not retrieved: f(1)
RUN = {"query_id": ["q"] * 5, "doc_id": list("abcde"), "score": [5.0, 4.0, 3.0, 2.0, 1.0]}
QRELS = {"query_id": ["q"] * 5, "doc_id": list("abcef"), "relevance": [1, 0, 2, 1, 1]}

EXPECTED = {
    # rel=1: R = 4 (a, c, e, f)
    "F@2": 2 * (1 / 2) * (1 / 4) / (1 / 2 + 1 / 4),  # P = 1/2, R = 1/4: 1/3
    "F@5": 2 * (3 / 5) * (3 / 4) / (3 / 5 + 3 / 4),  # P = 3/5, R = 3/4: 2/3
    "F1@5": 2 / 3,  # the alias
    "F(beta=2)@5": 5 * (3 / 5) * (3 / 4) / (4 * 3 / 5 + 3 / 4),  # 5/7
    "F(beta=0)@5": 3 / 5,  # beta = 0 is precision
    # rel=2: R = 1 (c)
    "F(rel=2)@2": 0.0,  # P = 0 and R = 0
    "F(rel=2)@3": 2 * (1 / 3) * 1 / (1 / 3 + 1),  # 1/2
    # judged_only: a b c e; the top 4 holds a, c, e: P = 3/4, R = 3/4
    "F(judged_only=True)@4": 3 / 4,
}


def test_f_by_hand(constructor: NamedConstructor) -> None:
    labels = list(EXPECTED)
    out = irframe.evaluate(constructor(RUN), labels, constructor(QRELS), per_query=True)
    got = per_query_dict(out, labels)
    for label, value in EXPECTED.items():
        assert got["q"][label] == pytest.approx(value, abs=1e-12), label
    assert got["q"]["F@5"] == pytest.approx(2 / 3, abs=1e-12)
    assert got["q"]["F(beta=2)@5"] == pytest.approx(5 / 7, abs=1e-12)


def test_f_needs_a_cutoff_and_a_sane_beta() -> None:
    assert str(parse_measure("F1@10")) == "F@10"
    with pytest.raises(InvalidParameterError, match="cutoff"):
        parse_measure("F")
    with pytest.raises(InvalidParameterError, match="beta"):
        parse_measure("F(beta=-1)@10")
