"""Every irframe measure the unknown-measure error names for a ranx metric parses and gives
ranx's own value, per query (issue 33, bug 2: ``precision`` got the hint 'P', which irframe
then refused for want of a cutoff; ranx means the whole ranking).

ranx (``pip install ranx``) is the oracle.  Data: generated queries (no relevant document, all
relevant, unjudged retrieved documents, relevant ones never retrieved, grades 0-3, distinct
scores: ranx and trec_eval break ties differently) and ranx's own test run and qrels.  ranx
refuses queries missing from the run or from the qrels, so the cases have none.
"""

from __future__ import annotations

import math
import random
import re
from typing import Any

import polars as pl
import pytest

import irframe
from _support.helpers import PEERS_DIR
from irframe.exceptions import UnknownMeasureError
from irframe.io import read_trec_qrels, read_trec_run
from irframe.measures import parse_measure
from irframe.measures._ranx import RANX, ranx_meaning

ranx = pytest.importorskip("ranx", reason="the ranx cross-checks need pip install ranx (oracle)")

pytestmark = [
    pytest.mark.oracle,
    # ranx's numba kernels warn about their own uint64 -> int64 casts
    pytest.mark.filterwarnings("ignore::numba.core.errors.NumbaTypeSafetyWarning"),
]
TOL = 1e-9

_LEVELS = ("", "-l2")  # ranx's relevance level suffix
SPELLINGS = [
    f"{name}{cut}{level}"
    for name in RANX
    if name != "r_precision"  # not a ranx metric (ranx spells it r-precision); kept as a hint
    for cut in ("", "@1", "@3", "@10")
    for level in (_LEVELS if not name.startswith(("ndcg", "dcg")) else ("",))
] + ["rbp.80", "rbp.95", "rbp.5-l2", "rbp@9"]


def hint(spelling: str) -> str:
    """The irframe measure the error tells a ranx user to write; a ranx name that is also a
    trec_eval name (ndcg, map, bpref) parses as it is, to the same measure."""
    try:
        parsed = parse_measure(spelling)
    except UnknownMeasureError as err:
        message = str(err)
    else:
        assert str(parsed) == ranx_meaning(spelling), spelling
        return str(parsed)
    found = re.search(r"write '([^']+)'", message)
    assert found, f"no hint for {spelling!r}: {message}"
    return found[1]


def test_every_ranx_name_gets_a_hint_that_parses() -> None:
    for spelling in SPELLINGS:
        parse_measure(hint(spelling))  # raises if the hint is refused


def generated(seed: int) -> tuple[dict[str, list[Any]], dict[str, list[Any]]]:
    rng = random.Random(seed)
    run: dict[str, list[Any]] = {"query_id": [], "doc_id": [], "score": []}
    qrels: dict[str, list[Any]] = {"query_id": [], "doc_id": [], "relevance": []}
    plans = [("q_mixed", [0, 1, 2, 3]), ("q_none", [0]), ("q_all", [2, 3]), ("q_one", [0, 0, 0, 1])]
    for q, grades in plans:
        docs = [f"d{i}" for i in range(rng.randint(1, 25))]
        scores = rng.sample(range(1000), len(docs))  # distinct
        run["query_id"] += [q] * len(docs)
        run["doc_id"] += docs
        run["score"] += [s / 7 for s in scores]
        judged = [d for d in docs if rng.random() < 0.7] + ["never"]  # the rest unjudged
        qrels["query_id"] += [q] * len(judged)
        qrels["doc_id"] += judged
        qrels["relevance"] += [rng.choice(grades) for _ in judged]
    return run, qrels


def ranx_values(
    run: dict[str, list[Any]], qrels: dict[str, list[Any]], metrics: list[str]
) -> dict[str, dict[str, float]]:
    qrels_d: dict[str, dict[str, int]] = {}
    for q, d, g in zip(qrels["query_id"], qrels["doc_id"], qrels["relevance"], strict=True):
        qrels_d.setdefault(q, {})[d] = int(g)
    run_d: dict[str, dict[str, float]] = {}
    for q, d, s in zip(run["query_id"], run["doc_id"], run["score"], strict=True):
        run_d.setdefault(q, {})[d] = float(s)
    r = ranx.Run(run_d)
    ranx.evaluate(ranx.Qrels(qrels_d), r, metrics, return_mean=False)
    return {m: {q: float(v) for q, v in r.scores[m].items()} for m in metrics}


def check(run: dict[str, list[Any]], qrels: dict[str, list[Any]], where: str) -> None:
    want = ranx_values(run, qrels, SPELLINGS)
    labels = [hint(s) for s in SPELLINGS]
    out = irframe.evaluate(
        pl.DataFrame(run), list(dict.fromkeys(labels)), pl.DataFrame(qrels), per_query=True
    )
    rows = {r["query_id"]: r for r in out.iter_rows(named=True)}
    for spelling, label in zip(SPELLINGS, labels, strict=True):
        for q, v in want[spelling].items():
            got = rows[q][label]
            if math.isnan(v):  # ranx's bpref divides by min(R, N): 0 without a judged non-relevant
                assert spelling.startswith("bpref"), (where, spelling, q)
                continue
            assert abs(got - v) <= TOL, (where, spelling, label, q, got, v)


@pytest.mark.parametrize("seed", range(5))
def test_hints_compute_ranx_values(seed: int) -> None:
    run, qrels = generated(seed)
    check(run, qrels, f"seed {seed}")


def test_on_ranx_test_data() -> None:
    run_path, qrels_path = PEERS_DIR / "ranx" / "run.trec", PEERS_DIR / "ranx" / "qrels.trec"
    if not run_path.is_file():
        pytest.skip(f"ranx's test data not found under {PEERS_DIR}")
    run = read_trec_run(run_path).select("query_id", "doc_id", "score").to_dict(as_series=False)
    qrels = read_trec_qrels(qrels_path).select("query_id", "doc_id", "relevance").to_dict(as_series=False)
    check(run, qrels, "ranx test data")


@pytest.mark.parametrize(
    ("spelling", "meaning"),
    [
        ("precision", "SetP"),
        ("f1", "SetF"),
        ("hit_rate", "Success"),
        ("recall", "R"),
        ("precision@5", "P@5"),
        ("bpref@10", "Bpref"),  # ranx ignores bpref's k
        ("hits@5-l2", "NumRelRet(rel=2)@5"),
        ("rbp.80", "RBP(rel=1,gain=linear)"),
    ],
)
def test_the_hints(spelling: str, meaning: str) -> None:
    assert hint(spelling) == meaning
    assert str(parse_measure(meaning)) == meaning  # the hint is irframe's canonical spelling
