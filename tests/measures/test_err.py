"""ERR@k (Chapelle et al. 2009) by hand and against ir_measures (gdeval.pl)."""

from __future__ import annotations

import random
import shutil
from typing import Any

import polars as pl
import pytest

import irframe
from _support.helpers import NamedConstructor, per_query_dict
from irframe.exceptions import InvalidParameterError
from irframe.measures import parse_measure

# ranking a(2) b(unjudged) c(4) d(1), judged and not retrieved: e(3)
RUN = {"query_id": ["q"] * 4, "doc_id": list("abcd"), "score": [4.0, 3.0, 2.0, 1.0]}
QRELS = {"query_id": ["q"] * 4, "doc_id": list("acde"), "relevance": [2, 4, 1, 3]}


def test_err_by_hand(constructor: NamedConstructor) -> None:
    # g_max = 4: R(2) = 3/16, R(unjudged) = 0, R(4) = 15/16, R(1) = 1/16
    r1, r3, r4 = 3 / 16, 15 / 16, 1 / 16
    err2 = r1 / 1  # rank 2 adds 0
    err3 = err2 + (1 - r1) * r3 / 3
    err4 = err3 + (1 - r1) * (1 - r3) * r4 / 4
    # g_max = 2: a grade of 4 counts as 2: R(2) = 3/4 and R(1) = 1/4
    s1, s3, s4 = 3 / 4, 3 / 4, 1 / 4
    err_g2 = s1 + (1 - s1) * s3 / 3 + (1 - s1) * (1 - s3) * s4 / 4
    expected = {"ERR@2": err2, "ERR@3": err3, "ERR@10": err4, "ERR": err4, "ERR(g_max=2)@4": err_g2}
    labels = list(expected)
    out = irframe.evaluate(constructor(RUN), labels, constructor(QRELS), per_query=True)
    got = per_query_dict(out, labels)
    for label, value in expected.items():
        assert got["q"][label] == pytest.approx(value, abs=1e-12), label


def test_err_parameters() -> None:
    assert parse_measure("ERR(gmax=4)@10") == parse_measure("ERR@10")
    assert str(parse_measure("ERR(g_max=3)@10")) == "ERR(g_max=3)@10"
    with pytest.raises(InvalidParameterError, match="g_max"):
        parse_measure("ERR(g_max=0)@10")


def _random_case(seed: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    rng = random.Random(seed)
    run: dict[str, list[Any]] = {"query_id": [], "doc_id": [], "score": []}
    qrels: dict[str, list[Any]] = {"query_id": [], "doc_id": [], "relevance": []}
    for q in range(1, 12):  # gdeval wants numeric topic ids and grades <= 4
        docs = [f"d{i}" for i in range(40)]
        for d in rng.sample(docs, 20):
            qrels["query_id"].append(str(q))
            qrels["doc_id"].append(d)
            qrels["relevance"].append(rng.choice([-2, 0, 0, 1, 1, 2, 3, 4]))
        for d in rng.sample(docs, rng.randint(1, 30)):
            run["query_id"].append(str(q))
            run["doc_id"].append(d)
            run["score"].append(float(rng.randint(0, 8)))  # ties: doc id descending breaks them
    return pl.DataFrame(run), pl.DataFrame(qrels)


@pytest.mark.parametrize("k", [1, 5, 20])
def test_err_matches_ir_measures(k: int) -> None:
    ir_measures = pytest.importorskip("ir_measures")
    if shutil.which("perl") is None:
        pytest.skip("ir_measures computes ERR with gdeval.pl, which needs perl")
    for seed in (1, 2):
        run, qrels = _random_case(seed)
        expected = {
            m.query_id: m.value
            for m in ir_measures.iter_calc(
                [ir_measures.ERR @ k],
                qrels.to_pandas(),
                run.to_pandas(),
            )
        }
        assert expected
        got = per_query_dict(irframe.evaluate(run, [f"ERR@{k}"], qrels, per_query=True), [f"ERR@{k}"])
        for q, value in expected.items():
            # gdeval prints 5 decimals (0.109375 -> 0.10938)
            assert got[q][f"ERR@{k}"] == pytest.approx(value, abs=5e-6 + 1e-9), (seed, q)
        # gdeval leaves out queries without a positive judgment; irframe scores them 0
        for q in set(got) - set(expected):
            assert got[q][f"ERR@{k}"] == 0.0
