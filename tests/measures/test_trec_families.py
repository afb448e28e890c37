"""trec_eval's families beyond the classic ones: spellings, defaults and hand-computed values.

The values below are worked out by hand from the definitions in trec_eval 10.0
(``m_iprec_at_recall.c``, ``m_gm_map.c``, ``m_rbp.c``, ``m_unjudged.c``, ``m_set_F.c``);
every family is also checked against the plain-Python oracle in
``tests/engine/test_registry_invariants.py`` and against the binary in
``tests/engine/test_trec_eval_all.py``.
"""

from __future__ import annotations

import math

import polars as pl
import pytest

import irframe
from irframe.measures import Measure, parse_measure, to_trec_name

# q1 ranks a(1) x(unjudged) b(0) c(2); judged also d(1), not retrieved. q2 is absent from the run.
RUN = pl.DataFrame({"query_id": ["q1"] * 4, "doc_id": ["a", "x", "b", "c"], "score": [4.0, 3.0, 2.0, 1.0]})
QRELS = pl.DataFrame(
    {"query_id": ["q1"] * 4 + ["q2"], "doc_id": ["a", "b", "c", "d", "a"], "relevance": [1, 0, 2, 1, 1]}
)


def _per_query(measures: list[str]) -> dict[str, dict[str, float]]:
    out = irframe.evaluate(RUN, measures, QRELS, per_query=True, missing="zero")
    return {r["query_id"]: r for r in out.iter_rows(named=True)}


@pytest.mark.parametrize(
    ("text", "canonical", "trec"),
    [
        ("IPrec@0.1", "IPrec@0.1", "iprec_at_recall_0.10"),
        ("iprec_at_recall_0.50", "IPrec@0.5", "iprec_at_recall_0.50"),
        ("IPrec(recall=0.3)", "IPrec@0.3", "iprec_at_recall_0.30"),
        ("11pt_avg", "IPrecAvg", "11pt_avg"),
        ("rbp", "RBP(p=0.9)", "rbp"),
        ("RBP", "RBP", None),
        ("rbp_resid", "RBPResid(p=0.9)", "rbp_resid"),
        ("set_relative_P", "SetP(relative=True)", "set_relative_P"),
        ("Rprec_mult_0.20", "RprecMult(mult=0.2)", "Rprec_mult_0.20"),
        ("unj_5", "Unjudged@5", "unj_5"),
        ("gm_map", "GMAP", "gm_map"),
        ("num_q", "NumQ", "num_q"),
    ],
)
def test_spellings(text: str, canonical: str, trec: str | None) -> None:
    m = parse_measure(text)
    assert str(m) == canonical
    assert to_trec_name(m) == trec
    assert parse_measure(canonical) == m


def test_iprec_at_value_is_the_recall_level() -> None:
    assert Measure("IPrec") @ 0.1 == parse_measure("IPrec@0.1")  # type: ignore[operator]
    assert parse_measure("IPrec@0.1").params["recall"] == 0.1
    assert parse_measure("RBP").params["p"] == 0.8  # ir_measures' default; trec_eval's rbp is p=0.9


def test_hand_values() -> None:
    got = _per_query(["IPrec@0.5", "IPrec@1", "unj_5", "set_F", "rbp", "rbp_resid", "RprecMult", "num_q"])
    q1 = got["q1"]
    # R = 3 (a, c, d), relevant at ranks 1 and 4: precision 1, 1/2, 1/3, 1/2.
    # recall 0.5: c = lround(1.5) = 2 -> from rank 4: 2/4; recall 1: c = 3 > 2 found -> 0
    assert q1["IPrec@0.5"] == 0.5
    assert q1["IPrec@1"] == 0.0
    assert q1["unj_5"] == 1 / 5  # x, divided by k even though 4 were retrieved
    p, r = 2 / 4, 2 / 3
    assert q1["set_F"] == pytest.approx(2 * p * r / (p + r), abs=1e-12)
    # top grade 2 > 1: gains a 1/2, c 2/2; p = 0.9
    assert q1["rbp"] == pytest.approx(0.1 * (0.5 + 1.0 * 0.9**3), abs=1e-12)
    assert q1["rbp_resid"] == pytest.approx(0.9**4 + 0.1 * 0.9, abs=1e-12)
    assert q1["RprecMult"] == pytest.approx(1 / 3, abs=1e-12)  # c = (long)(3 + 0.9) = 3: a only
    for label in ("IPrec@0.5", "unj_5", "rbp", "rbp_resid", "set_F"):
        assert got["q2"][label] == 0.0, label  # absent from the run (trec_eval -c)


def test_geometric_and_summed_aggregates() -> None:
    out = irframe.evaluate(RUN, ["GMAP", "AP", "num_q", "utility"], QRELS, missing="zero").row(0, named=True)
    ap1 = (1 / 1 + 2 / 4) / 3
    assert out["AP"] == pytest.approx(ap1 / 2, abs=1e-12)
    assert out["GMAP"] == pytest.approx(math.exp((math.log(ap1) + math.log(1e-5)) / 2), abs=1e-12)
    assert out["num_q"] == 2
    assert out["utility"] == pytest.approx((2 * 2 - 4 + 0) / 2, abs=1e-12)  # a mean, not a sum
