"""Compat against ir_measures' compat provider (Clarke et al.'s reference), per query.

ir_measures ranks tied scores by doc id ascending (irframe: descending, as trec_eval) and its
ideal ranking orders equal grades by the run's score, so the generated runs have distinct
positive scores; the hand-computed case shows the definition on four documents.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import irframe
from _support.helpers import PEERS_DIR, per_query_dict
from _support.oracle import rank_docs
from irframe.io import read_trec_qrels, read_trec_run

TOL = 1e-9
MEASURES = ["Compat", "Compat(p=0.8)", "Compat(p=0.5,normalize=False)", "Compat(p=0.99)"]


def test_hand_computed() -> None:
    # run a, b, c, e; qrels a: 1, c: 2 (m = 2, ideal c, a); p = 0.5, depth 4, weights 1, 1/2, 1/4, 1/8
    # overlaps at depth 1..4: 0, 1 (a), 2, 2 -> sum 1/2 * 1/2 + 1/4 * 2/3 + 1/8 * 2/4 = 23/48
    # the ideal with itself: 1 + 1/2 + 1/4 * 2/3 + 1/8 * 2/4 = 83/48; the weights sum to 15/8
    run = pl.DataFrame({"query_id": ["q"] * 4, "doc_id": ["a", "b", "c", "e"], "score": [4.0, 3.0, 2.0, 1.0]})
    qrels = pl.DataFrame({"query_id": ["q", "q", "q"], "doc_id": ["a", "c", "b"], "relevance": [1, 2, 0]})
    out = irframe.evaluate(run, ["Compat(p=0.5)", "Compat(p=0.5,normalize=False)"], qrels)
    assert out["Compat(p=0.5)"].item() == pytest.approx(23 / 83, abs=1e-15)
    assert out["Compat(p=0.5,normalize=False)"].item() == pytest.approx(23 / 90, abs=1e-15)


def _ir_measures(run: dict[str, list[Any]], qrels: dict[str, list[Any]], label: str) -> dict[str, float]:
    irm = pytest.importorskip(
        "ir_measures", reason="the Compat cross-check needs pip install ir-measures (oracle)"
    )
    measure = irm.parse_measure(label)
    rows = zip(run["query_id"], run["doc_id"], run["score"], strict=True)
    run_t = [irm.ScoredDoc(str(q), str(d), float(s)) for q, d, s in rows]
    qrels_t = [irm.Qrel(str(q), str(d), int(g)) for q, d, g in zip(*qrels.values(), strict=True)]
    return {m.query_id: m.value for m in irm.compat.iter_calc([measure], qrels_t, run_t)}


def check(run: dict[str, list[Any]], qrels: dict[str, list[Any]], where: str) -> None:
    got = per_query_dict(
        irframe.evaluate(pl.DataFrame(run), MEASURES, pl.DataFrame(qrels), per_query=True), MEASURES
    )
    judged, retrieved = set(qrels["query_id"]), set(run["query_id"])
    for label in MEASURES:
        want = _ir_measures(run, qrels, label)
        for q, vals in got.items():
            if q not in judged:
                assert vals[label] is None, (where, q)  # a run-only query has no value
            elif q not in retrieved:
                assert vals[label] == want.get(q, 0.0) == 0.0, (where, q)  # absent from the run: 0
            else:
                assert abs(vals[label] - want[q]) <= TOL, (where, label, q, vals[label], want[q])


def generated(seed: int) -> tuple[dict[str, list[Any]], dict[str, list[Any]]]:
    rng = random.Random(seed)
    run: dict[str, list[Any]] = {"query_id": [], "doc_id": [], "score": []}
    qrels: dict[str, list[Any]] = {"query_id": [], "doc_id": [], "relevance": []}
    plans = [("q_mixed", [-1, 0, 1, 2, 3]), ("q_none", [0, -1]), ("q_all", [1, 2]), ("q_flat", [1])]
    for q, grades in plans:
        docs = [f"d{i}" for i in range(rng.randint(1, 30))]
        run["query_id"] += [q] * len(docs)
        run["doc_id"] += docs
        run["score"] += [1.0 + s / 10 for s in rng.sample(range(1000), len(docs))]  # distinct, positive
        judged = [d for d in docs if rng.random() < 0.7] + [f"never{i}" for i in range(rng.randint(0, 40))]
        qrels["query_id"] += [q] * len(judged)
        qrels["doc_id"] += judged
        qrels["relevance"] += [rng.choice(grades) for _ in judged]
    run["query_id"] += ["q_run_only"]
    run["doc_id"] += ["a"]
    run["score"] += [1.0]
    qrels["query_id"] += ["q_missing"]
    qrels["doc_id"] += ["a"]
    qrels["relevance"] += [1]
    return run, qrels


@pytest.mark.oracle
@pytest.mark.parametrize("seed", range(8))
def test_generated_per_query(seed: int) -> None:
    run, qrels = generated(seed)
    check(run, qrels, f"seed {seed}")


@pytest.mark.oracle
def test_ir_measures_compat_files() -> None:
    run_path, qrels_path = (
        PEERS_DIR / "ir_measures" / "compat.run",
        PEERS_DIR / "ir_measures" / "compat.qrels",
    )
    if not run_path.is_file():
        pytest.skip(f"ir_measures' compat test files not found under {PEERS_DIR}")
    run = read_trec_run(run_path).select("query_id", "doc_id", "score").to_dict(as_series=False)
    qrels = read_trec_qrels(qrels_path).select("query_id", "doc_id", "relevance").to_dict(as_series=False)
    check(run, qrels, "compat files")


def in_ranking_order_scores(run: dict[str, list[Any]]) -> dict[str, list[Any]]:
    """The run with each score replaced by a distinct positive one in irframe's ranking order
    (ties by doc id descending): ir_measures then ranks, and orders the ideal, the same way."""
    rows: dict[str, list[dict[str, Any]]] = {}
    for q, d, s in zip(run["query_id"], run["doc_id"], run["score"], strict=True):
        rows.setdefault(q, []).append({"doc_id": d, "score": s})
    out: dict[str, list[Any]] = {"query_id": [], "doc_id": [], "score": []}
    for q, docs in rows.items():
        ranking = rank_docs(docs)
        out["query_id"] += [q] * len(ranking)
        out["doc_id"] += ranking
        out["score"] += [float(len(ranking) - i) for i in range(len(ranking))]
    return out


@pytest.mark.oracle
@pytest.mark.parametrize(
    ("run_name", "qrels_name"),
    [
        ("results.test", "qrels.test"),
        ("results.test", "qrels.rel_level"),
        ("results-302.test", "qrels-302.test"),
    ],
)
def test_trec_eval_test_files(trec_eval_test_dir: Path, run_name: str, qrels_name: str) -> None:
    run = (
        read_trec_run(trec_eval_test_dir / run_name)
        .select("query_id", "doc_id", "score")
        .to_dict(as_series=False)
    )
    qrels = read_trec_qrels(trec_eval_test_dir / qrels_name).select("query_id", "doc_id", "relevance")
    check(in_ranking_order_scores(run), qrels.to_dict(as_series=False), f"{run_name} {qrels_name}")
