"""judged_only=True against ir_measures' judged_only (pytrec_eval's -J) and by hand.

ir_measures (through pytrec_eval) leaves out queries missing from the run, so only the
run's queries are compared.
"""

from __future__ import annotations

import random
from typing import Any

import polars as pl
import pytest

import irframe
from _support.helpers import NamedConstructor, per_query_dict
from irframe.measures import parse_measure

PAIRS = [
    ("nDCG(gain=linear,judged_only=True)@10", "nDCG(judged_only=True)@10"),
    ("nDCG(gain=linear,judged_only=True)", "nDCG(judged_only=True)"),
    ("P(judged_only=True)@5", "P(judged_only=True)@5"),
    ("AP(judged_only=True)", "AP(judged_only=True)"),
    ("RR(judged_only=True)", "RR(judged_only=True)"),
    ("R(judged_only=True)@10", "R(judged_only=True)@10"),
]


def _case(seed: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    rng = random.Random(seed)
    run: dict[str, list[Any]] = {"query_id": [], "doc_id": [], "score": []}
    qrels: dict[str, list[Any]] = {"query_id": [], "doc_id": [], "relevance": []}
    for q in range(10):
        docs = [f"d{i}" for i in range(40)]
        for d in rng.sample(docs, 15):
            qrels["query_id"].append(f"q{q}")
            qrels["doc_id"].append(d)
            qrels["relevance"].append(rng.choice([-1, 0, 0, 1, 2, 3]))
        for d in rng.sample(docs, rng.randint(1, 30)):
            run["query_id"].append(f"q{q}")
            run["doc_id"].append(d)
            run["score"].append(float(rng.randint(0, 9)))
    return pl.DataFrame(run), pl.DataFrame(qrels)


def test_judged_only_matches_ir_measures() -> None:
    ir_measures = pytest.importorskip("ir_measures")
    for seed in (1, 2, 3):
        run, qrels = _case(seed)
        measures = [ir_measures.parse_measure(theirs) for _, theirs in PAIRS]
        expected: dict[tuple[str, str], float] = {
            (str(m.measure), m.query_id): m.value
            for m in ir_measures.iter_calc(measures, qrels.to_pandas(), run.to_pandas())
        }
        labels = [ours for ours, _ in PAIRS]
        got = per_query_dict(irframe.evaluate(run, labels, qrels, per_query=True), labels)
        assert len(expected) == len(PAIRS) * 10
        for ours, theirs in PAIRS:
            name = str(ir_measures.parse_measure(theirs))
            for q in got:
                assert got[q][ours] == pytest.approx(expected[name, q], abs=1e-9), (seed, ours, q)
        # and it differs from the plain measure on these data
        base = ["nDCG(gain=linear)@10"]
        plain = per_query_dict(irframe.evaluate(run, base, qrels, per_query=True), base)
        assert any(abs(plain[q][base[0]] - got[q][PAIRS[0][0]]) > 1e-6 for q in got)  # type: ignore[operator]


def test_judged_only_by_hand(constructor: NamedConstructor) -> None:
    # ranking: a(unjudged) b(1) c(-1) d(0) e(2) -> judged only: b(1) d(0) e(2)
    run = {"query_id": ["q"] * 5, "doc_id": list("abcde"), "score": [5.0, 4.0, 3.0, 2.0, 1.0]}
    qrels = {"query_id": ["q"] * 4, "doc_id": list("bcde"), "relevance": [1, -1, 0, 2]}
    expected = {
        "P(judged_only=True)@2": 1 / 2,  # b d
        "P@2": 1 / 2,  # a b
        "RR(judged_only=True)": 1.0,  # b first
        "RR": 1 / 2,
        "AP(judged_only=True)": (1 / 1 + 2 / 3) / 2,  # relevant at 1 and 3, R = 2
        "AP": (1 / 2 + 2 / 5) / 2,
        "NumRet(judged_only=True)": 3.0,
        "NumRet(judged_only=True)@2": 2.0,
        "Success(judged_only=True)@1": 1.0,
        "Success@1": 0.0,
    }
    labels = list(expected)
    out = irframe.evaluate(constructor(run), labels, constructor(qrels), per_query=True)
    got = per_query_dict(out, labels)
    for label, value in expected.items():
        assert got["q"][label] == pytest.approx(value, abs=1e-12), label


def test_judged_only_spelling() -> None:
    assert str(parse_measure("P(judged_only=True)@5")) == "P(judged_only=True)@5"
    assert parse_measure("P(judged_only=False)@5") == parse_measure("P@5")
    spelled = parse_measure("nDCG(judged_only=True,gain=linear)@10")
    assert str(spelled) == "nDCG(gain=linear,judged_only=True)@10"
    with pytest.raises(irframe.exceptions.InvalidParameterError, match="judged_only"):
        parse_measure("P(judged_only=maybe)@5")
    with pytest.raises(irframe.exceptions.UnknownMeasureError, match="judged_only"):
        parse_measure("NumRel(judged_only=True)")  # does not depend on the ranking
