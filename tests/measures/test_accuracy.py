"""ir_measures' Accuracy (issue 45): hand-computed, ir_measures' pinned cases, ir_measures per query.

Accuracy is the share of (relevant, non-relevant) pairs of the retrieved top k in ranking
order.  The pinned cases of ir_measures' own test (``tests/test_accuracy.py``, read from
``../shared/data/peers/cases/ir_measures.json``; skipped without it) and ir_measures itself
(the ``oracles`` extra) on generated runs are the references; irframe's rules where
ir_measures reports nothing (no relevant document in the top k: 0; only relevant ones: 1.0)
are written out here.
"""

from __future__ import annotations

import json
import random
from typing import Any

import polars as pl
import pytest

import irframe
from _support.helpers import PEERS_DIR, per_query_dict

TOL = 1e-12


def test_hand_computed() -> None:
    # ranking a, x (unjudged), c, b, d; grades a 2, b 0, c 1, d -1, e 1 (never retrieved)
    run = pl.DataFrame(
        {"query_id": ["q"] * 5, "doc_id": ["a", "x", "c", "b", "d"], "score": [5.0, 4, 3, 2, 1]}
    )
    qrels = pl.DataFrame({"query_id": ["q"] * 5, "doc_id": [*"abcde"], "relevance": [2, 0, 1, -1, 1]})
    got = irframe.evaluate(run, ["Accuracy", "Accuracy(rel=2)", "Accuracy@3", "Accuracy@1"], qrels)
    row = got.row(0, named=True)
    # relevant a (rank 1), c (rank 3); non-relevant x, b, d (unjudged and negative count as non-relevant):
    # a is above all 3, c above b and d: 5 of 2 * 3 pairs in order (e was never retrieved: no pair)
    assert row["Accuracy"] == pytest.approx(5 / 6, abs=TOL)
    # rel=2: a alone, above x, c, b, d: 4 of 4
    assert row["Accuracy(rel=2)"] == 1.0
    # top 3 (a, x, c): a above x, c below x: 1 of 2
    assert row["Accuracy@3"] == pytest.approx(1 / 2, abs=TOL)
    # top 1 (a): relevant only, no pair: every pair in order (ir_measures divides by zero here)
    assert row["Accuracy@1"] == 1.0


def test_a_query_without_a_relevant_document_retrieved_is_zero() -> None:
    run = pl.DataFrame(
        {"query_id": ["q1", "q1", "q2", "q2"], "doc_id": ["a", "b", "c", "d"], "score": [2.0, 1] * 2}
    )
    qrels = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "z", "d"], "relevance": [0, 1, 1]})
    got = per_query_dict(irframe.evaluate(run, ["Accuracy"], qrels, per_query=True), ["Accuracy"])
    # q1: the relevant z was never retrieved (ir_measures: no value); q2: d below c: 0 of 1
    assert got == {"q1": {"Accuracy": 0.0}, "q2": {"Accuracy": 0.0}}


def _trec_frames(qrels: str, run: str) -> tuple[pl.DataFrame, pl.DataFrame]:
    q = [line.split() for line in qrels.strip().splitlines() if line.strip()]
    r = [line.split() for line in run.strip().splitlines() if line.strip()]
    qf = pl.DataFrame(
        {"query_id": [x[0] for x in q], "doc_id": [x[2] for x in q], "relevance": [int(x[3]) for x in q]}
    )
    rf = pl.DataFrame(
        {"query_id": [x[0] for x in r], "doc_id": [x[2] for x in r], "score": [float(x[4]) for x in r]}
    )
    return rf, qf


def _ir_measures_cases() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    path = PEERS_DIR / "cases" / "ir_measures.json"
    if not path.is_file():
        pytest.skip(f"ir_measures' pinned cases not found at {path} (set IRFRAME_SHARED_DIR)")
    cases = json.loads(path.read_text())
    return cases["data"], [c for c in cases["cases"] if c["measure"].startswith("Accuracy")]


def test_ir_measures_pinned_accuracy_cases() -> None:
    """Every Accuracy case ir_measures' tests pin (per query and the mean) on its own data."""
    data, cases = _ir_measures_cases()
    assert cases
    for case in cases:
        d = data[case["data"]]
        if not d["run"].strip() or not d["qrels"].strip():  # the empty-input cases: nothing to evaluate
            continue
        run, qrels = _trec_frames(d["qrels"], d["run"])
        measure = case["measure"].replace("()", "")
        got = per_query_dict(irframe.evaluate(run, [measure], qrels, per_query=True), [measure])
        if case["query"] is None:
            reported = [q for q, v in got.items() if _reported(run, qrels, q, measure)]
            mean = sum(got[q][measure] for q in reported) / len(reported)
            assert mean == pytest.approx(case["expected"], abs=case["tol"]), case
        elif case["query"] == "*":
            expected = dict(case["expected"])
            assert {q: got[q][measure] for q in expected} == pytest.approx(expected, abs=case["tol"])
        else:
            assert got[case["query"]][measure] == pytest.approx(case["expected"], abs=case["tol"]), case


def _reported(run: pl.DataFrame, qrels: pl.DataFrame, query: str, measure: str) -> bool:
    """Whether ir_measures reports ``query``: a relevant document of it was retrieved."""
    rel = 2 if "rel=2" in measure else 1
    relevant = set(qrels.filter((pl.col("query_id") == query) & (pl.col("relevance") >= rel))["doc_id"])
    return bool(relevant & set(run.filter(pl.col("query_id") == query)["doc_id"]))


@pytest.mark.oracle
@pytest.mark.parametrize("seed", range(3))
def test_equal_to_ir_measures_per_query(seed: int) -> None:
    """ir_measures' accuracy provider on generated runs (distinct scores: no tie to break),
    rel 1 and 2, with and without a cutoff; where it reports nothing, irframe's 0."""
    ir_measures = pytest.importorskip("ir_measures", reason="pip install ir-measures (the oracles extra)")
    rng = random.Random(seed)
    run_rows, qrels_rows = [], []
    for q in range(30):
        docs = [f"d{i}" for i in range(rng.randint(1, 12))]
        scores = rng.sample(range(1000), len(docs))
        run_rows += [(f"q{q}", d, float(s)) for d, s in zip(docs, scores, strict=True)]
        pool = [*docs, "u1", "u2"]
        qrels_rows += [
            (f"q{q}", d, rng.choice([-1, 0, 0, 1, 2])) for d in rng.sample(pool, rng.randint(1, len(pool)))
        ]
    run = pl.DataFrame(run_rows, schema=["query_id", "doc_id", "score"], orient="row")
    qrels = pl.DataFrame(qrels_rows, schema=["query_id", "doc_id", "relevance"], orient="row")
    for spec, theirs in [
        ("Accuracy", ir_measures.Accuracy),
        ("Accuracy(rel=2)@5", ir_measures.Accuracy(rel=2) @ 5),
    ]:
        got = per_query_dict(irframe.evaluate(run, [spec], qrels, per_query=True), [spec])
        qd = {q: {d: g for qq, d, g in qrels_rows if qq == q} for q, *_ in qrels_rows}
        rd: dict[str, dict[str, float]] = {}
        for q, d, s in run_rows:
            rd.setdefault(q, {})[d] = s
        expected: dict[str, float] = {}
        for (
            q,
            docs,
        ) in rd.items():  # one query at a time: ir_measures divides by zero on a top k of relevant only
            try:
                expected |= {m.query_id: m.value for m in ir_measures.iter_calc([theirs], qd, {q: docs})}
            except ZeroDivisionError:
                assert got[q][spec] == 1.0, q
        assert expected, spec
        for q, value in got.items():
            if q in expected:
                assert value[spec] == pytest.approx(expected[q], abs=TOL), (spec, q)
            elif q in qd:
                assert value[spec] in (0.0, 1.0), (spec, q)  # nothing reported: no relevant, or relevant only
