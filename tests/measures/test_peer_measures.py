"""Issue 12 item 3: ir_measures objects keep their meaning; ranx spellings are explained."""

from __future__ import annotations

import polars as pl
import pytest

import irframe
from irframe.exceptions import InvalidParameterError, UnknownMeasureError
from irframe.measures import parse_measure

# one query, grades 0, 2, 1 at ranks 1..3; ideal order 2, 1, 0
RUN = pl.DataFrame(
    {"query_id": ["q"] * 3, "doc_id": ["a", "b", "c"], "rank": [1, 2, 3], "relevance": [0, 2, 1]}
)
LOG2_3, LOG2_4 = 1.584962500721156, 2.0
# linear gain (trec_eval, ir_measures): (2/log2(3) + 1/log2(4)) / (2 + 1/log2(3))
LINEAR = (2 / LOG2_3 + 1 / LOG2_4) / (2 + 1 / LOG2_3)
# exponential gain (irframe's default): (3/log2(3) + 1/log2(4)) / (3 + 1/log2(3))
EXP = (3 / LOG2_3 + 1 / LOG2_4) / (3 + 1 / LOG2_3)


def test_ir_measures_objects_keep_their_meaning() -> None:
    im = pytest.importorskip("ir_measures")
    got = irframe.evaluate(
        RUN, [im.nDCG @ 3, im.nDCG(dcg="exp-log2") @ 3, im.P(rel=2) @ 2, im.RR], per_query=True
    )
    assert got.columns == ["query_id", "nDCG(gain=linear)@3", "nDCG@3", "P(rel=2)@2", "RR"]
    assert got["nDCG(gain=linear)@3"][0] == pytest.approx(LINEAR, abs=1e-12)
    assert got["nDCG@3"][0] == pytest.approx(EXP, abs=1e-12)
    assert got["P(rel=2)@2"][0] == 0.5
    assert got["RR"][0] == 0.5
    # the same number as ir_measures itself
    qrels = [im.Qrel("q", d, r) for d, r in zip("abc", [0, 2, 1], strict=True)]
    run = [im.ScoredDoc("q", d, s) for d, s in zip("abc", [3.0, 2.0, 1.0], strict=True)]
    assert im.calc_aggregate([im.nDCG @ 3], qrels, run)[im.nDCG @ 3] == pytest.approx(LINEAR, abs=1e-9)
    one = irframe.evaluate(RUN, im.nDCG @ 3)  # a single object, not in a list
    assert one.columns[0] == "nDCG(gain=linear)@3"


@pytest.mark.parametrize(
    ("text", "meaning"),
    [
        ("ndcg@10", "nDCG(gain=linear)@10"),
        ("ndcg_burges@10", "nDCG@10"),
        ("hits@10", "NumRelRet@10"),
        ("hit_rate@5", "Success@5"),
        ("mrr@10", "RR@10"),
        ("map@100", "AP@100"),
        ("f1@10", "F1@10"),
        ("recall@5", "R@5"),
        ("precision@5", "P@5"),
    ],
)
def test_ranx_spellings_map_to_the_same_meaning(text: str, meaning: str) -> None:
    with pytest.raises(UnknownMeasureError) as info:
        parse_measure(text)
    msg = str(info.value)
    assert f"is irframe's {meaning!r}" in msg
    if text == "hits@10":
        assert "Hit@10" not in msg  # Hit is Success: a different meaning
    if text == "ndcg@10":
        assert "'nDCG@10'" not in msg


def test_double_cutoff_does_not_suggest_itself() -> None:
    with pytest.raises(UnknownMeasureError) as info:
        parse_measure("nDCG@10@10")
    assert "Did you mean 'nDCG@10'?" in str(info.value)
    assert str(info.value).count("nDCG@10@10") == 1


def test_repeated_parameter_is_an_error() -> None:
    with pytest.raises(InvalidParameterError, match="given twice"):
        parse_measure("AP(rel=1,rel=2)")
