"""RBP's forms: trec_eval's (unchanged), binary with rel, raw grades, and the residual.

Issue 33, bug 1: an ir_measures ``RBP(rel=r)`` became irframe's graded RBP; both objects came
back as one ``RBP`` column.  The trec_eval form is checked against trec_eval in
``test_trec_eval_all.py``; the binary form against cwl-eval in ``test_cwl_families.py``, and
here through ir_measures itself; ranx's rbp in ``test_ranx_hints.py``.
"""

from __future__ import annotations

import polars as pl
import pytest

import irframe

RUN = pl.DataFrame({"query_id": ["q"] * 3, "doc_id": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
QRELS = pl.DataFrame({"query_id": ["q"] * 3, "doc_id": ["a", "b", "c"], "relevance": [1, 2, 0]})


def test_the_four_readings_of_grades_1_2_0() -> None:
    labels = ["RBP", "RBP(rel=1)", "RBP(rel=2)", "RBP(gain=linear)", "RBP(rel=2,gain=linear)"]
    got = irframe.evaluate(RUN, labels, QRELS).row(0, named=True)
    p = 0.8
    assert got["RBP"] == pytest.approx((1 - p) * (1 / 2 + 2 / 2 * p))  # trec_eval: grades / top grade 2
    assert got["RBP(rel=1)"] == pytest.approx((1 - p) * (1 + p))  # 0.36, ir_measures' RBP(rel=1)
    assert got["RBP(rel=2)"] == pytest.approx((1 - p) * p)  # 0.16
    assert got["RBP(gain=linear)"] == pytest.approx((1 - p) * (1 + 2 * p))  # 0.52, ranx
    assert got["RBP(rel=2,gain=linear)"] == pytest.approx((1 - p) * 2 * p)  # ranx's rbp.8-l2
    assert got["RBP"] == pytest.approx(0.26)


def test_residual() -> None:
    # ranking a (judged), x (unjudged), b (judged); p = 0.5: the tail p^3 plus (1 - p) p^1 for x
    run = pl.DataFrame({"query_id": ["q"] * 3, "doc_id": ["a", "x", "b"], "score": [3.0, 2.0, 1.0]})
    got = irframe.evaluate(run, ["RBP(p=0.5,rel=1,residual=True)", "RBPResid(p=0.5)"], QRELS).row(
        0, named=True
    )
    assert got["RBP(p=0.5,rel=1,residual=True)"] == pytest.approx(0.5**3 + 0.5 * 0.5)
    assert got["RBPResid(p=0.5)"] == pytest.approx(0.5**3 + 0.5 * 0.5)  # trec_eval's: the same here
    # every document judged: cwl-eval still counts the unseen tail, trec_eval's rbp_resid is 0
    got = irframe.evaluate(RUN, ["RBP(p=0.5,residual=True)", "RBPResid(p=0.5)"], QRELS).row(0, named=True)
    assert got["RBP(p=0.5,residual=True)"] == pytest.approx(0.5**3)
    assert got["RBPResid(p=0.5)"] == 0.0


@pytest.mark.oracle
def test_ir_measures_objects_keep_their_meaning() -> None:
    irm = pytest.importorskip("ir_measures", reason="needs pip install ir-measures (oracle)")
    pytest.importorskip("cwl", reason="ir_measures computes RBP(rel=r) with cwl-eval: pip install cwl-eval")
    objs = [irm.RBP(rel=1), irm.RBP(rel=2), irm.RBP(p=0.9, rel=1)]
    out = irframe.evaluate(RUN, objs, QRELS, per_query=True)
    assert [c for c in out.columns if c.startswith("RBP")] == ["RBP(rel=1)", "RBP(rel=2)", "RBP(p=0.9,rel=1)"]
    run_t = [irm.ScoredDoc(q, d, s) for q, d, s in RUN.iter_rows()]
    qrels_t = [irm.Qrel(q, d, g) for q, d, g in QRELS.iter_rows()]
    for obj in objs:
        (want,) = [m.value for m in irm.cwl_eval.iter_calc([obj], qrels_t, run_t)]
        assert out[str(irframe.measures.parse_measure(obj))].item() == pytest.approx(want, abs=1e-12), obj
