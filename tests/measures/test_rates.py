"""FallOut, AUROC and APRet: hand-computed, torchmetrics' pinned cases, scikit-learn per query.

The torchmetrics cases (inputs and the reference functions' values of torchmetrics' own
retrieval tests) are read from ``../shared/data/peers/cases/torchmetrics.json`` and skip
without it; their relevance is on the run rows (no qrels).  scikit-learn's ``roc_auc_score``
and ``average_precision_score`` per query are the oracle on generated runs with qrels.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

import irframe
from _support.helpers import PEERS_DIR, per_query_dict
from _support.oracle import rank_docs
from irframe.io import read_trec_qrels, read_trec_run

TOL = 1e-9


def test_hand_computed() -> None:
    # ranking a, x (unjudged), c, b, d; qrels a: 0, b: 0, c: 1, d: -1, e: 0 (never retrieved)
    run = pl.DataFrame(
        {"query_id": ["q"] * 5, "doc_id": ["a", "x", "c", "b", "d"], "score": [5.0, 4, 3, 2, 1]}
    )
    qrels = pl.DataFrame(
        {"query_id": ["q"] * 5, "doc_id": ["a", "b", "c", "d", "e"], "relevance": [0, 0, 1, -1, 0]}
    )
    labels = ["FallOut@2", "FallOut@4", "FallOut", "AUROC", "AUROC@3", "APRet@2", "APRet", "AP"]
    got = irframe.evaluate(run, labels, qrels).row(0, named=True)
    # judged non-relevant: a, b, e (d's negative grade is neither); in the top 2: a; top 4: a, b
    assert got["FallOut@2"] == pytest.approx(1 / 3)
    assert got["FallOut@4"] == pytest.approx(2 / 3)
    assert got["FallOut"] == pytest.approx(2 / 3)
    # one relevant (c, rank 3) against a, x, b, d: above b and d -> 2 / 4; top 3: above none of a, x
    assert got["AUROC"] == pytest.approx(2 / 4)
    assert got["AUROC@3"] == 0.0
    # APRet: P@3 = 1/3 over the one relevant retrieved; none in the top 2; AP divides by R = 1 too
    assert got["APRet@2"] == 0.0
    assert got["APRet"] == pytest.approx(1 / 3)
    assert got["AP"] == pytest.approx(1 / 3)


def test_aprets_denominator_is_the_relevant_retrieved() -> None:
    # relevant at ranks 1 and 3, two more never retrieved: AP@3 = (1 + 2/3) / 4, APRet@3 = (1 + 2/3) / 2
    run = pl.DataFrame({"query_id": ["q"] * 3, "doc_id": ["a", "b", "c"], "score": [3.0, 2, 1]})
    qrels = pl.DataFrame(
        {"query_id": ["q"] * 5, "doc_id": ["a", "b", "c", "d", "e"], "relevance": [1, 0, 2, 1, 1]}
    )
    got = irframe.evaluate(run, ["AP@3", "APRet@3", "RetrievalMAP@3"], qrels).row(0, named=True)
    assert got["AP@3"] == pytest.approx((1 + 2 / 3) / 4)
    assert got["APRet@3"] == got["RetrievalMAP@3"] == pytest.approx((1 + 2 / 3) / 2)


# --- torchmetrics' pinned cases ----------------------------------------------------------------
CASES = PEERS_DIR / "cases" / "torchmetrics.json"
TORCHMETRICS = {"RetrievalMAP": "APRet", "RetrievalFallOut": "FallOut", "RetrievalAUROC": "AUROC"}


def _torchmetrics_cases() -> list[Any]:
    if not CASES.is_file():
        return [
            pytest.param(None, marks=pytest.mark.skip(reason=f"torchmetrics' cases not found at {CASES}"))
        ]
    data = json.loads(CASES.read_text(encoding="utf-8"))
    cases = [c for c in data["cases"] if c["metric"] in TORCHMETRICS]
    return [
        pytest.param((c, data["inputs"][c["input"]]), id=f"{c['metric']}@{c['k']}-{c['input']}")
        for c in cases
    ]


@pytest.mark.parametrize("case", _torchmetrics_cases())
def test_torchmetrics_pinned_cases(case: tuple[dict[str, Any], dict[str, Any]]) -> None:
    pinned, inputs = case
    n = len(inputs["indexes"])
    run = pl.DataFrame({
        "query_id": [str(q) for q in inputs["indexes"]],
        "doc_id": [f"d{i}" for i in range(n)],
        "score": inputs["preds"],
        "relevance": [int(t) for t in inputs["target"]],
    })  # fmt: skip
    label = TORCHMETRICS[pinned["metric"]] + (f"@{pinned['k']}" if pinned["k"] else "")
    got = per_query_dict(irframe.evaluate(run, [label], per_query=True), [label])
    assert pinned["per_query"], "a case without queries tests nothing"
    for q, value in pinned["per_query"].items():
        assert got[q][label] == pytest.approx(value, abs=pinned["tol"]), (label, q)


# --- scikit-learn per query ----------------------------------------------------------------
def generated(seed: int, *, ties: bool) -> tuple[dict[str, list[Any]], dict[str, list[Any]]]:
    rng = random.Random(seed)
    run: dict[str, list[Any]] = {"query_id": [], "doc_id": [], "score": []}
    qrels: dict[str, list[Any]] = {"query_id": [], "doc_id": [], "relevance": []}
    plans = [("q_mixed", [-1, 0, 0, 1, 2]), ("q_none", [0]), ("q_all", [1, 3]), ("q_rare", [0, 0, 0, 0, 1])]
    for q, grades in plans:
        docs = [f"d{i}" for i in range(rng.randint(1, 30))]
        run["query_id"] += [q] * len(docs)
        run["doc_id"] += docs
        run["score"] += [float(rng.randint(0, 3)) if ties else rng.random() for _ in docs]
        judged = [d for d in docs if rng.random() < 0.8] + ["never"]
        qrels["query_id"] += [q] * len(judged)
        qrels["doc_id"] += judged
        qrels["relevance"] += [rng.choice(grades) for _ in judged]
    qrels["query_id"].append("q_missing")
    qrels["doc_id"].append("z")
    qrels["relevance"].append(1)
    return run, qrels


def sklearn_values(
    run: dict[str, list[Any]], qrels: dict[str, list[Any]], k: int | None, *, by_rank: bool
) -> dict[str, dict[str, float]]:
    """Per query, scikit-learn's AUROC and AP of the top k retrieved (relevant: grade >= 1;
    unjudged: not relevant); ``by_rank``: score each document by its place in irframe's
    ranking order, so that tied scores count as trec_eval breaks them."""
    metrics = pytest.importorskip("sklearn.metrics", reason="needs pip install scikit-learn (oracle)")
    judged: dict[str, dict[str, float]] = {}
    for q, d, g in zip(qrels["query_id"], qrels["doc_id"], qrels["relevance"], strict=True):
        judged.setdefault(q, {})[d] = g
    rows: dict[str, list[dict[str, Any]]] = {}
    for q, d, s in zip(run["query_id"], run["doc_id"], run["score"], strict=True):
        rows.setdefault(q, []).append({"query_id": q, "doc_id": d, "score": s})
    out: dict[str, dict[str, float]] = {}
    for q, grades in judged.items():
        if q not in rows:
            out[q] = {"AUROC": 0.0, "APRet": 0.0}  # absent from the run
            continue
        ranking = rank_docs(rows[q])[:k]
        score_of = {r["doc_id"]: r["score"] for r in rows[q]}
        y = np.array([grades.get(d, -1) >= 1 for d in ranking], dtype=int)
        s = -np.arange(len(ranking), dtype=float) if by_rank else np.array([score_of[d] for d in ranking])
        both = 0 < y.sum() < len(y)
        out[q] = {
            "AUROC": float(metrics.roc_auc_score(y, s)) if both else 0.0,
            "APRet": float(metrics.average_precision_score(y, s)) if y.any() else 0.0,
        }
    return out


@pytest.mark.oracle
@pytest.mark.parametrize("k", [None, 1, 5, 12])
@pytest.mark.parametrize("seed", range(4))
def test_scikit_learn_per_query(seed: int, k: int | None) -> None:
    run, qrels = generated(seed, ties=False)
    labels = [f"AUROC@{k}" if k else "AUROC", f"APRet@{k}" if k else "APRet"]
    got = per_query_dict(
        irframe.evaluate(pl.DataFrame(run), labels, pl.DataFrame(qrels), per_query=True), labels
    )
    for q, want in sklearn_values(run, qrels, k, by_rank=False).items():
        for family, label in zip(("AUROC", "APRet"), labels, strict=True):
            assert abs(got[q][label] - want[family]) <= TOL, (seed, q, label, got[q][label], want[family])


@pytest.mark.oracle
@pytest.mark.parametrize("seed", range(4))
def test_tied_scores_in_trec_evals_order(seed: int) -> None:
    """With tied scores irframe counts the pairs in its ranking order (ties by doc id descending);
    scikit-learn on the scores gives a tied (relevant, other) pair half credit instead."""
    run, qrels = generated(seed, ties=True)
    got = per_query_dict(
        irframe.evaluate(pl.DataFrame(run), ["AUROC"], pl.DataFrame(qrels), per_query=True), ["AUROC"]
    )
    for q, want in sklearn_values(run, qrels, None, by_rank=True).items():
        assert abs(got[q]["AUROC"] - want["AUROC"]) <= TOL, (seed, q)


@pytest.mark.oracle
@pytest.mark.parametrize("k", [None, 10, 100])
@pytest.mark.parametrize("qrels_name", ["qrels.test", "qrels.rel_level"])
def test_trec_eval_test_files(trec_eval_test_dir: Path, qrels_name: str, k: int | None) -> None:
    """scikit-learn on trec_eval's test run (tied scores in irframe's order: scored by rank)."""
    run = read_trec_run(trec_eval_test_dir / "results.test").select("query_id", "doc_id", "score")
    qrels = read_trec_qrels(trec_eval_test_dir / qrels_name).select("query_id", "doc_id", "relevance")
    run_d, qrels_d = run.to_dict(as_series=False), qrels.to_dict(as_series=False)
    labels = [f"AUROC@{k}" if k else "AUROC", f"APRet@{k}" if k else "APRet"]
    got = per_query_dict(irframe.evaluate(run, labels, qrels, per_query=True), labels)
    want = sklearn_values(run_d, qrels_d, k, by_rank=True)
    assert want, "no query compared"
    for q, values in want.items():
        for family, label in zip(("AUROC", "APRet"), labels, strict=True):
            assert abs(got[q][label] - values[family]) <= TOL, (qrels_name, q, label)
