"""DCG and IDCG by hand, and nDCG as their ratio.

One query: ranking a(3) b(unjudged) c(1) d(0) e(2); judged but not retrieved: f(1).
``log2(2) = 1``, ``log2(3) = 1.5849625007``, ``log2(4) = 2``, ``log2(5) = 2.3219280949``,
``log2(6) = 2.5849625007``.
"""

from __future__ import annotations

import math

import polars as pl
import pytest

import irframe
from _support.helpers import NamedConstructor, per_query_dict
from irframe.measures import parse_measure

RUN = {"query_id": ["q"] * 5, "doc_id": list("abcde"), "score": [5.0, 4.0, 3.0, 2.0, 1.0]}
QRELS = {"query_id": ["q"] * 5, "doc_id": list("acdef"), "relevance": [3, 1, 0, 2, 1]}

EXPECTED = {
    # exp gain 2^g - 1: a 7, b 0, c 1, d 0, e 3
    "DCG@3": 7 / 1 + 0 / math.log2(3) + 1 / 2,  # 7.5
    "DCG": 7 + 1 / 2 + 3 / math.log2(6),  # 8.6605584217
    # linear gain g: a 3, c 1, e 2
    "DCG(gain=linear)@3": 3 + 1 / 2,  # 3.5
    "DCG(gain=linear)": 3 + 1 / 2 + 2 / math.log2(6),  # 4.2737056145
    # ideal: the judged grades 3, 2, 1, 1 (0 gains nothing), in that order
    "IDCG(gain=linear)": 3 + 2 / math.log2(3) + 1 / 2 + 1 / math.log2(5),  # 5.1925360652
    "IDCG(gain=linear)@2": 3 + 2 / math.log2(3),  # 4.2618595071
    "IDCG@2": 7 + 3 / math.log2(3),  # exp gains 7, 3, 1, 1
    # judged_only drops b: a(3) c(1) d(0) e(2) ranked 1..4
    "DCG(gain=linear,judged_only=True)@3": 3 + 1 / math.log2(3) + 0 / 2,  # 3.6309297536
    "DCG(gain=linear,judged_only=True)": 3 + 1 / math.log2(3) + 2 / math.log2(5),
}


def test_dcg_by_hand(constructor: NamedConstructor) -> None:
    labels = [*EXPECTED, "nDCG@3", "nDCG(gain=linear)"]
    out = irframe.evaluate(constructor(RUN), labels, constructor(QRELS), per_query=True)
    got = per_query_dict(out, labels)
    for label, value in EXPECTED.items():
        assert got["q"][label] == pytest.approx(value, abs=1e-12), label
    # nDCG is DCG / IDCG at the same cutoff and gain
    assert got["q"]["nDCG@3"] == pytest.approx(7.5 / (7 + 3 / math.log2(3) + 1 / 2), abs=1e-12)
    assert got["q"]["nDCG(gain=linear)"] == pytest.approx(
        EXPECTED["DCG(gain=linear)"] / EXPECTED["IDCG(gain=linear)"], abs=1e-12
    )


def test_idcg_of_a_query_missing_from_the_run_is_kept() -> None:
    """IDCG is a property of the judgments (trec_eval prints the real ideal_dcg under -c)."""
    qrels = {"query_id": ["q", "r"], "doc_id": ["a", "x"], "relevance": [1, 2]}
    labels = ["IDCG(gain=linear)", "DCG"]
    out = irframe.evaluate(pl.DataFrame(RUN), labels, pl.DataFrame(qrels), per_query=True)
    got = per_query_dict(out, ["IDCG(gain=linear)", "DCG"])
    assert got["r"] == {"IDCG(gain=linear)": 2.0, "DCG": 0.0}


def test_trec_names_and_canonical_strings() -> None:
    assert parse_measure("dcg") == parse_measure("DCG(gain=linear)")
    assert parse_measure("ideal_dcg") == parse_measure("IDCG(gain=linear)")
    assert str(parse_measure("DCG(judged_only=False)@10")) == "DCG@10"
    assert str(parse_measure("DCG(judged_only=true)@10")) == "DCG(judged_only=True)@10"
    assert irframe.measures.to_trec_name(parse_measure("DCG(gain=linear)")) == "dcg"
    assert irframe.measures.to_trec_name(parse_measure("DCG(gain=linear,judged_only=True)")) is None
