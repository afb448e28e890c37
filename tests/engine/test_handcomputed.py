"""Hand-computed cases: each expected number is derived in the comments beside it.

Every test runs on polars, polars lazy, pandas and pandas with pyarrow dtypes (the
``constructor`` fixture).  ``log2(3) = 1.5849625``, ``log2(4) = 2``, ``log2(5) = 2.3219281``,
``log2(6) = 2.5849625``.
"""

from __future__ import annotations

import math
from contextlib import AbstractContextManager, nullcontext
from typing import Any

import polars as pl
import pytest

import irframe
from _support.helpers import NamedConstructor, per_query_dict, to_polars
from irframe.exceptions import DuplicatesWarning, InvalidParameterError, MissingQueriesError

L3 = math.log2(3)


def per_query(
    constructor: NamedConstructor,
    run: dict[str, list[Any]],
    measures: list[str],
    qrels: dict[str, list[Any]] | None = None,
    **kw: Any,
) -> dict[str, dict[str, float | None]]:
    out = irframe.evaluate(
        constructor(run),
        measures,
        None if qrels is None else constructor(qrels),
        per_query=True,
        **kw,
    )
    assert isinstance(out, constructor.native_type)
    return per_query_dict(out, measures)


def summary(
    constructor: NamedConstructor,
    run: dict[str, list[Any]],
    measures: list[str],
    qrels: dict[str, list[Any]] | None = None,
    **kw: Any,
) -> dict[str, Any]:
    out = irframe.evaluate(constructor(run), measures, None if qrels is None else constructor(qrels), **kw)
    assert isinstance(out, constructor.native_type)
    df = to_polars(out)
    assert df.height == 1
    return df.row(0, named=True)


def approx(x: float) -> Any:
    return pytest.approx(x, abs=1e-9)


# --- binary measures: two relevant docs, first hit at rank 2 ----------------------------
RUN_6 = {
    "query_id": ["q1"] * 6,
    "doc_id": ["d3", "d1", "d4", "d5", "d6", "d2"],
    "score": [6.0, 5.0, 4.0, 3.0, 2.0, 1.0],  # ranks 1..6 in this order
}
QRELS_2REL = {"query_id": ["q1", "q1", "q1"], "doc_id": ["d1", "d2", "d4"], "relevance": [1, 1, 0]}


def test_binary_measures_worked_example(constructor: NamedConstructor) -> None:
    measures = ["R@5", "R", "P@5", "RR", "RR@1", "AP", "AP@5", "Rprec", "Success@1", "Success@2"]
    measures += ["NumRet", "NumRet@3", "NumRel", "NumRelRet", "NumRelRet@5", "Judged@5"]
    got = per_query(constructor, RUN_6, measures, QRELS_2REL)["q1"]
    # relevant: d1 (rank 2) and d2 (rank 6); R = 2; d4 (rank 3) judged non-relevant
    assert got["R@5"] == approx(0.5)  # 1 of 2 relevant in the top 5
    assert got["R"] == approx(1.0)  # both retrieved
    assert got["P@5"] == approx(0.2)  # 1 / 5
    assert got["RR"] == approx(0.5)  # first hit at rank 2
    assert got["RR@1"] == approx(0.0)  # no hit in the top 1
    assert got["AP"] == approx((1 / 2 + 2 / 6) / 2)  # P@2 = 1/2, P@6 = 2/6; / R=2 -> 0.41667
    assert got["AP@5"] == approx((1 / 2) / 2)  # only d1 within 5; still / R = 2 -> 0.25
    assert got["Rprec"] == approx(0.5)  # top R=2: d3, d1 -> 1/2
    assert got["Success@1"] == approx(0.0)
    assert got["Success@2"] == approx(1.0)
    assert got["NumRet"] == approx(6.0)
    assert got["NumRet@3"] == approx(3.0)
    assert got["NumRel"] == approx(2.0)
    assert got["NumRelRet"] == approx(2.0)
    assert got["NumRelRet@5"] == approx(1.0)
    assert got["Judged@5"] == approx(2 / 5)  # d1 and d4 judged among d3 d1 d4 d5 d6


# --- graded nDCG by hand ----------------------------------------------------------------
GRADED_RUN = {
    "query_id": ["q1"] * 5,
    "doc_id": ["a", "b", "c", "d", "e"],
    "rank": [1, 2, 3, 4, 5],
}
GRADED_QRELS = {
    # d is unjudged; f (grade 3) is never retrieved; g grade 0
    "query_id": ["q1"] * 6,
    "doc_id": ["a", "b", "c", "e", "f", "g"],
    "relevance": [3, 0, 2, 1, 3, 0],
}


def test_ndcg_graded_exp_and_linear(constructor: NamedConstructor) -> None:
    measures = ["nDCG@3", "nDCG(gain=linear)@3", "ndcg_cut_3", "nDCG", "nDCG(gain=linear)"]
    got = per_query(constructor, GRADED_RUN, measures, GRADED_QRELS)["q1"]
    # exp gains 2^g - 1: a=7 b=0 c=3 d=0 e=1 (f=7, unretrieved)
    # DCG@3  = 7/1 + 0/log2(3) + 3/log2(4) = 8.5
    # IDCG@3 = ideal gains 7, 7, 3, 1 cut at 3 = 7 + 7/log2(3) + 3/2 = 12.91651
    assert got["nDCG@3"] == approx(8.5 / (7 + 7 / L3 + 1.5))  # 0.658073
    assert got["nDCG@3"] == pytest.approx(0.6580725858, abs=1e-9)
    # linear gains: a=3 c=2 e=1 f=3
    # DCG@3 = 3 + 0 + 2/2 = 4 ; IDCG@3 = 3 + 3/log2(3) + 2/2 = 5.89279
    assert got["nDCG(gain=linear)@3"] == approx(4 / (3 + 3 / L3 + 1))  # 0.678796
    assert got["ndcg_cut_3"] == approx(got["nDCG(gain=linear)@3"])
    # whole ranking, exp: DCG = 8.5 + 0/log2(5) + 1/log2(6); IDCG = 7 + 7/log2(3) + 3/2 + 1/log2(5)
    assert got["nDCG"] == approx((8.5 + 1 / math.log2(6)) / (7 + 7 / L3 + 1.5 + 1 / math.log2(5)))
    # whole ranking, linear: DCG = 3 + 1 + 1/log2(6); IDCG = 3 + 3/log2(3) + 1 + 1/log2(5)
    assert got["nDCG(gain=linear)"] == approx(
        (3 + 1 + 1 / math.log2(6)) / (3 + 3 / L3 + 1 + 1 / math.log2(5))
    )  # 0.693742


def test_ndcg_zero_when_no_positive_gain(constructor: NamedConstructor) -> None:
    run = {"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [2.0, 1.0]}
    qrels = {"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "relevance": [0, -1]}
    got = per_query(constructor, run, ["nDCG@10", "nDCG(gain=linear)"], qrels)["q1"]
    assert got == {"nDCG@10": 0.0, "nDCG(gain=linear)": 0.0}  # IDCG = 0 -> 0, not NaN


# --- the trec_eval toy check (reference doc, verified on trec_eval) ---------------------
TOY_RUN = {"query_id": ["q1"] * 4, "doc_id": ["a", "b", "c", "d"], "score": [1.0, 1.0, 0.5, 0.4]}
TOY_QRELS = {"query_id": ["q1"] * 4, "doc_id": ["a", "b", "c", "d"], "relevance": [0, 1, 2, -1]}


def test_trec_eval_toy_check(constructor: NamedConstructor) -> None:
    measures = ["map", "bpref", "P_1", "ndcg", "ndcg_cut_2", "nDCG(gain=linear)@2"]
    got = per_query(constructor, TOY_RUN, measures, TOY_QRELS)["q1"]
    # a, b tie at 1.0 -> doc id descending: b before a; order b, a, c, d
    # map: relevant b (rank 1), c (rank 3): (1/1 + 2/3) / 2 = 0.8333
    assert got["map"] == approx((1 + 2 / 3) / 2)
    # bpref: R = 2, N = 1 (a); b: +1; a: nonrel=1; c: 1 - min(1,2)/min(1,2) = 0; d skipped
    assert got["bpref"] == approx(0.5)
    assert got["P_1"] == approx(1.0)
    # ndcg linear: DCG = 1/1 + 0 + 2/log2(4) + 0 = 2; IDCG = 2/1 + 1/log2(3) = 2.63093
    assert got["ndcg"] == approx(2 / (2 + 1 / L3))  # 0.7602
    assert round(got["ndcg"], 4) == 0.7602
    # ndcg_cut_2: DCG@2 = 1; IDCG@2 = 2.63093 -> 0.3801
    assert got["ndcg_cut_2"] == approx(1 / (2 + 1 / L3))
    assert round(got["ndcg_cut_2"], 4) == 0.3801
    assert got["nDCG(gain=linear)@2"] == approx(got["ndcg_cut_2"])


def test_relevance_threshold_does_not_change_ndcg(constructor: NamedConstructor) -> None:
    measures = ["AP(rel=2)", "RR(rel=2)", "P(rel=2)@1", "nDCG(gain=linear)", "nDCG"]
    got = per_query(constructor, TOY_RUN, measures, TOY_QRELS)["q1"]
    # with rel=2 only c (rank 3) is relevant: AP = (1/3)/1, RR = 1/3, P@1 = 0
    assert got["AP(rel=2)"] == approx(1 / 3)
    assert got["RR(rel=2)"] == approx(1 / 3)
    assert got["P(rel=2)@1"] == approx(0.0)
    # trec_eval -l2 leaves ndcg at 0.7602
    assert got["nDCG(gain=linear)"] == approx(2 / (2 + 1 / L3))
    # exp: DCG = 1 + 3/2 = 2.5 ; IDCG = 3 + 1/log2(3)
    assert got["nDCG"] == approx(2.5 / (3 + 1 / L3))


# --- ordering ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("docs", "relevant", "expected_rr"),
    [
        (["9", "10"], "10", 0.5),  # "9" > "10" bytewise: "9" ranks first
        (["10", "9"], "10", 0.5),  # input order does not matter
        (["B", "a"], "B", 0.5),  # lowercase sorts after uppercase: "a" first
        (["a", "b"], "a", 0.5),  # b > a: b first
        (["d10", "d9"], "d9", 1.0),
    ],
)
def test_ties_broken_by_doc_id_descending_bytewise(
    constructor: NamedConstructor, docs: list[str], relevant: str, expected_rr: float
) -> None:
    run = {"query_id": ["q1", "q1"], "doc_id": docs, "score": [1.0, 1.0]}
    qrels = {"query_id": ["q1"], "doc_id": [relevant], "relevance": [1]}
    assert per_query(constructor, run, ["RR"], qrels)["q1"]["RR"] == approx(expected_rr)


def test_int_doc_ids_tie_break_like_their_text(constructor: NamedConstructor) -> None:
    # trec_eval reads docnos as text: 9 and 10 tie -> "9" first, so 10 is at rank 2
    run = {"query_id": ["q1", "q1"], "doc_id": [10, 9], "score": [1.0, 1.0]}
    qrels = {"query_id": ["q1"], "doc_id": [10], "relevance": [1]}
    assert per_query(constructor, run, ["RR"], qrels)["q1"]["RR"] == approx(0.5)


def test_rank_column_beats_score(constructor: NamedConstructor) -> None:
    # issue 12 item 2: a rank and a score that disagree are no longer resolved silently in
    # favour of the rank (order="auto" raises, see tests/input/test_columns_and_order.py);
    # order="rank" keeps it
    run = {
        "query_id": ["q1", "q1", "q1"],
        "doc_id": ["a", "b", "c"],
        "rank": [1, 2, 3],
        "score": [0.1, 0.9, 0.5],  # would order b, c, a
    }
    qrels = {"query_id": ["q1"], "doc_id": ["a"], "relevance": [1]}
    got = per_query(constructor, run, ["RR", "P@1"], qrels, order="rank")["q1"]
    assert got == {"RR": 1.0, "P@1": 1.0}  # a is rank 1


def test_descending_score_order(constructor: NamedConstructor) -> None:
    run = {"query_id": ["q1"] * 3, "doc_id": ["a", "b", "c"], "score": [0.1, 0.9, 0.5]}
    qrels = {"query_id": ["q1"], "doc_id": ["a"], "relevance": [1]}
    # order b (0.9), c (0.5), a (0.1)
    assert per_query(constructor, run, ["RR"], qrels)["q1"]["RR"] == approx(1 / 3)


# --- short runs, empty relevance --------------------------------------------------------
def test_precision_divides_by_k_for_short_runs(constructor: NamedConstructor) -> None:
    run = {"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [2.0, 1.0]}
    qrels = {"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "relevance": [1, 1]}
    got = per_query(constructor, run, ["P@10", "Judged@10", "Success@10", "NumRet@10"], qrels)
    assert got["q1"]["P@10"] == approx(2 / 10)  # missing ranks count as non-relevant
    assert got["q1"]["Judged@10"] == approx(2 / 2)  # over min(k, retrieved), as ir_measures
    assert got["q1"]["Success@10"] == approx(1.0)
    assert got["q1"]["NumRet@10"] == approx(2.0)


def test_query_without_relevant_docs_scores_zero_and_counts(constructor: NamedConstructor) -> None:
    run = {"query_id": ["q1", "q2"], "doc_id": ["a", "b"], "score": [1.0, 1.0]}
    qrels = {"query_id": ["q1", "q2"], "doc_id": ["a", "b"], "relevance": [1, 0]}
    measures = ["AP", "nDCG@10", "RR", "R@10", "Rprec", "Bpref", "P@1", "Success@1"]
    got = per_query(constructor, run, measures, qrels)
    assert got["q2"] == dict.fromkeys(measures, 0.0)
    assert got["q1"] == dict.fromkeys(measures, 1.0)
    row = summary(constructor, run, measures, qrels)
    assert row["n_queries"] == 2
    for m in measures:
        assert row[m] == approx(0.5), m  # (1 + 0) / 2


# --- missing and run-only queries -------------------------------------------------------
# q1: one relevant doc at rank 2 -> AP 1/2; q2: one relevant at rank 3 -> AP 1/3;
# q3: judged, never retrieved.  map over 2 topics = 0.4167, over 3 topics = 0.2778.
MISS_RUN = {
    "query_id": ["q1", "q1", "q2", "q2", "q2"],
    "doc_id": ["x", "r1", "x", "y", "r2"],
    "score": [2.0, 1.0, 3.0, 2.0, 1.0],
}
MISS_QRELS = {
    "query_id": ["q1", "q2", "q3"],
    "doc_id": ["r1", "r2", "r3"],
    "relevance": [1, 1, 1],
}


def test_missing_zero_is_default(constructor: NamedConstructor) -> None:
    row = summary(constructor, MISS_RUN, ["map"], MISS_QRELS)
    assert row["map"] == approx((1 / 2 + 1 / 3 + 0) / 3)  # 0.2778, trec_eval -c
    assert round(row["map"], 4) == 0.2778
    assert (row["n_queries"], row["n_missing"], row["n_unjudged"]) == (3, 1, 0)
    got = per_query(constructor, MISS_RUN, ["map", "P@5", "nDCG@10", "NumRet"], MISS_QRELS)
    assert got["q3"] == {"map": 0.0, "P@5": 0.0, "nDCG@10": 0.0, "NumRet": 0.0}


def test_missing_query_keeps_its_num_rel(constructor: NamedConstructor) -> None:
    # trec_eval -c scores a missing topic against an empty ranking: num_rel stays R
    got = per_query(constructor, MISS_RUN, ["NumRel", "NumRelRet"], MISS_QRELS)
    assert got["q3"] == {"NumRel": 1.0, "NumRelRet": 0.0}


def test_missing_drop(constructor: NamedConstructor) -> None:
    row = summary(constructor, MISS_RUN, ["map"], MISS_QRELS, missing="drop")
    assert row["map"] == approx((1 / 2 + 1 / 3) / 2)  # 0.4167
    assert round(row["map"], 4) == 0.4167
    assert (row["n_queries"], row["n_missing"], row["n_unjudged"]) == (2, 1, 0)
    got = per_query(constructor, MISS_RUN, ["map"], MISS_QRELS, missing="drop")
    assert sorted(got) == ["q1", "q2"]


def test_missing_error_names_the_queries(constructor: NamedConstructor) -> None:
    with pytest.raises(MissingQueriesError, match="q3"):
        summary(constructor, MISS_RUN, ["map"], MISS_QRELS, missing="error")
    # no missing query: no error
    qrels = {k: v[:2] for k, v in MISS_QRELS.items()}
    row = summary(constructor, MISS_RUN, ["map"], qrels, missing="error")
    assert row["map"] == approx(5 / 12)


def test_run_only_queries_are_null_and_excluded(constructor: NamedConstructor) -> None:
    run = {
        "query_id": [*MISS_RUN["query_id"], "q4", "q4"],
        "doc_id": [*MISS_RUN["doc_id"], "a", "b"],
        "score": [*MISS_RUN["score"], 1.0, 0.5],
    }
    got = per_query(constructor, run, ["map", "P@1"], MISS_QRELS)
    assert sorted(got) == ["q1", "q2", "q3", "q4"]  # sorted by query id
    assert got["q4"] == {"map": None, "P@1": None}
    row = summary(constructor, run, ["map", "P@1"], MISS_QRELS)
    assert row["map"] == approx((1 / 2 + 1 / 3 + 0) / 3)  # q4 excluded
    assert (row["n_queries"], row["n_missing"], row["n_unjudged"]) == (3, 1, 1)


# --- grades -----------------------------------------------------------------------------
def test_fractional_grades_are_not_truncated(constructor: NamedConstructor) -> None:
    run = {"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [1.0, 2.0]}  # order b, a
    qrels = {"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "relevance": [1.5, 0.5]}
    measures = ["nDCG(gain=linear)", "nDCG", "P@2", "P(rel=0.5)@2", "RR(rel=1.5)"]
    got = per_query(constructor, run, measures, qrels)["q1"]
    # linear: DCG = 0.5 + 1.5/log2(3); IDCG = 1.5 + 0.5/log2(3)  (truncation would give 0.631)
    assert got["nDCG(gain=linear)"] == approx((0.5 + 1.5 / L3) / (1.5 + 0.5 / L3))  # 0.796708
    # exp: gains 2^1.5-1 = 1.828427, 2^0.5-1 = 0.414214
    ga, gb = 2**1.5 - 1, 2**0.5 - 1
    assert got["nDCG"] == approx((gb + ga / L3) / (ga + gb / L3))  # 0.750238
    assert got["P@2"] == approx(0.5)  # only a (1.5 >= 1)
    assert got["P(rel=0.5)@2"] == approx(1.0)  # both >= 0.5
    assert got["RR(rel=1.5)"] == approx(0.5)  # a at rank 2


def test_negative_grades_judged_not_relevant_gain_zero_skipped_by_bpref(
    constructor: NamedConstructor,
) -> None:
    run = {"query_id": ["q1"] * 3, "doc_id": ["a", "b", "c"], "rank": [1, 2, 3]}
    qrels = {"query_id": ["q1"] * 3, "doc_id": ["a", "b", "c"], "relevance": [-1, 1, 0]}
    measures = ["Judged@3", "P@1", "nDCG", "nDCG(gain=linear)", "Bpref", "NumRel"]
    got = per_query(constructor, run, measures, qrels)["q1"]
    assert got["Judged@3"] == approx(1.0)  # a, b, c all have a judgment
    assert got["P@1"] == approx(0.0)  # a (-1) is not relevant
    assert got["nDCG"] == approx(1 / L3)  # DCG = 0 + 1/log2(3); IDCG = 1
    assert got["nDCG(gain=linear)"] == approx(1 / L3)
    # bpref: R = 1, N = 1 (c); a skipped, b relevant with no non-relevant above -> 1
    assert got["Bpref"] == approx(1.0)
    assert got["NumRel"] == approx(1.0)


def test_custom_gains(constructor: NamedConstructor) -> None:
    run = {"query_id": ["q1"] * 3, "doc_id": ["a", "b", "c"], "rank": [1, 2, 3]}
    qrels = {"query_id": ["q1"] * 3, "doc_id": ["a", "b", "c"], "relevance": [1, 3, 2]}
    label = "nDCG(gains={0:0,1:1,2:3})@10"
    got = per_query(constructor, run, [label], qrels)["q1"][label]
    # gains: a (1) -> 1, b (3, not listed) -> linear 3, c (2) -> 3
    # DCG = 1 + 3/log2(3) + 3/2 ; IDCG = 3 + 3/log2(3) + 1/2
    assert got == approx((1 + 3 / L3 + 1.5) / (3 + 3 / L3 + 0.5))  # 0.814567


# --- golden set: grades on the run rows --------------------------------------------------
def test_golden_set_without_qrels(constructor: NamedConstructor) -> None:
    run = {
        "query_id": ["q1", "q1", "q1", "q2", "q2"],
        "doc_id": ["a", "b", "c", "d", "e"],
        "score": [3.0, 2.0, 1.0, 2.0, 1.0],
        "relevance": [0, None, 2, 1, 1],  # b unjudged
    }
    measures = ["nDCG@2", "Judged@3", "AP", "RR"]
    got = per_query(constructor, run, measures)
    # q1: order a(0), b(-), c(2). exp gain of c = 3.
    # DCG@2 = 0 ; IDCG@2 from the grades present (2, 0) = 3 -> 0
    assert got["q1"]["nDCG@2"] == approx(0.0)
    assert got["q1"]["Judged@3"] == approx(2 / 3)  # a and c judged
    assert got["q1"]["AP"] == approx(1 / 3)  # c at rank 3, R = 1
    assert got["q1"]["RR"] == approx(1 / 3)
    # q2: d, e both relevant at ranks 1, 2
    # q2 retrieved 2 docs, both judged: Judged@3 over min(3, 2) = 2 (ir_measures)
    assert got["q2"] == {"nDCG@2": 1.0, "Judged@3": approx(2 / 2), "AP": 1.0, "RR": 1.0}


def test_golden_set_query_without_any_grade_is_unjudged(constructor: NamedConstructor) -> None:
    run = {
        "query_id": ["q1", "q1", "q2"],
        "doc_id": ["a", "b", "c"],
        "score": [1.0, 0.5, 1.0],
        "relevance": [1, None, None],  # q2 has no judgment at all
    }
    got = per_query(constructor, run, ["RR", "Judged@2"])
    assert got == {"q1": {"RR": 1.0, "Judged@2": 0.5}, "q2": {"RR": None, "Judged@2": None}}
    row = summary(constructor, run, ["RR", "Judged@2"])
    assert (row["RR"], row["n_queries"], row["n_missing"], row["n_unjudged"]) == (1.0, 1, 0, 1)


# --- partitions -------------------------------------------------------------------------
def test_by_system(constructor: NamedConstructor) -> None:
    run = {
        "system": ["A", "A", "B", "B"],
        "query_id": ["q1", "q1", "q1", "q1"],
        "doc_id": ["r", "x", "r", "x"],
        "score": [2.0, 1.0, 1.0, 2.0],
    }
    qrels = {"query_id": ["q1", "q2"], "doc_id": ["r", "s"], "relevance": [1, 1]}
    out = to_polars(
        irframe.evaluate(constructor(run), ["AP"], constructor(qrels), by=["system"], per_query=True)
    )
    assert out.columns == ["system", "query_id", "AP"]
    # A: q1 r at rank 1 -> 1; B: r at rank 2 -> 1/2; q2 missing in both -> 0
    assert out.rows() == [("A", "q1", 1.0), ("A", "q2", 0.0), ("B", "q1", 0.5), ("B", "q2", 0.0)]
    means = to_polars(irframe.evaluate(constructor(run), ["AP"], constructor(qrels), by="system"))
    means = means.sort("system")
    assert means.get_column("system").to_list() == ["A", "B"]
    assert means.get_column("AP").to_list() == [approx(0.5), approx(0.25)]
    assert means.get_column("n_queries").to_list() == [2, 2]
    assert means.get_column("n_missing").to_list() == [1, 1]


def test_by_system_with_disjoint_query_sets(constructor: NamedConstructor) -> None:
    """A by-column absent from the qrels that splits the queries (each query has one value)
    is ambiguous: systems that answered disjoint query sets, or a segment? missing='zero'
    refuses to guess; putting the column in the qrels says which it is.
    Here A answered only q1 and B only q2."""
    run = {
        "system": ["A", "A", "B", "B"],
        "query_id": ["q1", "q1", "q2", "q2"],
        "doc_id": ["r", "x", "x", "s"],
        "score": [2.0, 1.0, 2.0, 1.0],
    }
    qrels = {"query_id": ["q1", "q2"], "doc_id": ["r", "s"], "relevance": [1, 1]}
    with pytest.raises(InvalidParameterError, match="system"):  # lazy: raised at collect
        to_polars(irframe.evaluate(constructor(run), ["AP"], constructor(qrels), by=["system"]))
    # systems: every system is judged on every query -> the qrels carry the system column
    per_system = {
        "system": ["A", "A", "B", "B"],
        "query_id": ["q1", "q2", "q1", "q2"],
        "doc_id": ["r", "s", "r", "s"],
        "relevance": [1, 1, 1, 1],
    }
    out = to_polars(
        irframe.evaluate(constructor(run), ["AP"], constructor(per_system), by=["system"], per_query=True)
    )
    # A: q1 -> 1, q2 missing -> 0 ; B: q1 missing -> 0, q2 s at rank 2 -> 1/2
    assert out.rows() == [("A", "q1", 1.0), ("A", "q2", 0.0), ("B", "q1", 0.0), ("B", "q2", 0.5)]
    # segments: missing='drop' evaluates each segment on the queries it has
    dropped = to_polars(
        irframe.evaluate(constructor(run), ["AP"], constructor(qrels), by=["system"], missing="drop")
    )
    assert dropped.select("system", "AP", "n_queries").rows() == [("A", 1.0, 1), ("B", 0.5, 1)]


# --- ids, output shape, purity ----------------------------------------------------------
def test_int_and_str_query_ids_join(constructor: NamedConstructor) -> None:
    run = {"query_id": [1, 1, 2], "doc_id": [10, 11, 10], "score": [2.0, 1.0, 1.0]}
    qrels = {"query_id": ["1", "2"], "doc_id": ["11", "10"], "relevance": [1, 1]}
    got = per_query(constructor, run, ["RR"], qrels)
    assert got == {"1": {"RR": 0.5}, "2": {"RR": 1.0}}


def test_output_columns_types_and_order(constructor: NamedConstructor) -> None:
    measures = ["ndcg_cut_10", "P@5", "MAP", "nDCG(gain=linear)@3"]
    run = {**MISS_RUN, "query_id": ["q2", "q2", "q1", "q1", "q1"]}
    out = irframe.evaluate(constructor(run), measures, constructor(MISS_QRELS), per_query=True)
    assert isinstance(out, constructor.native_type)
    df = to_polars(out)
    assert df.columns == ["query_id", *measures]  # labels exactly as passed
    for m in measures:
        assert df.schema[m] == pl.Float64, m
    assert df.get_column("query_id").to_list() == ["q1", "q2", "q3"]  # sorted
    agg = to_polars(irframe.evaluate(constructor(run), measures, constructor(MISS_QRELS)))
    assert agg.height == 1
    assert agg.columns[: len(measures)] == measures
    assert {"n_queries", "n_missing", "n_unjudged"} <= set(agg.columns)
    for m in measures:
        assert agg.schema[m] == pl.Float64, m


def test_lazy_stays_lazy() -> None:
    run = pl.LazyFrame(TOY_RUN)
    qrels = pl.LazyFrame(TOY_QRELS)
    assert isinstance(irframe.evaluate(run, ["map"], qrels), pl.LazyFrame)
    assert isinstance(irframe.evaluate(run, ["map"], qrels, per_query=True), pl.LazyFrame)
    assert isinstance(run.ir.evaluate(["map"], qrels), pl.LazyFrame)
    assert isinstance(run.ir.ndcg(k=10, qrels=qrels), pl.LazyFrame)


def test_input_frames_not_modified(constructor: NamedConstructor) -> None:
    run_in, qrels_in = constructor(TOY_RUN), constructor(TOY_QRELS)
    run_before = to_polars(constructor(TOY_RUN))
    qrels_before = to_polars(constructor(TOY_QRELS))
    cols_before = list(to_polars(run_in).columns)
    irframe.evaluate(run_in, ["map", "nDCG@2"], qrels_in, per_query=True)
    irframe.evaluate(run_in, ["map"], qrels_in, by=None)
    assert list(to_polars(run_in).columns) == cols_before
    assert to_polars(run_in).equals(run_before)
    assert to_polars(qrels_in).equals(qrels_before)
    if not constructor.name.startswith("polars"):
        assert list(run_in.columns) == ["query_id", "doc_id", "score"]
        assert run_in.index.tolist() == [0, 1, 2, 3]


def test_namespace_shortcuts(constructor: NamedConstructor) -> None:
    run, qrels = constructor(RUN_6), constructor(QRELS_2REL)
    cases = [
        (run.ir.ndcg(k=10, qrels=qrels), "nDCG@10"),
        (run.ir.precision(k=5, qrels=qrels), "P@5"),
        (run.ir.recall(k=5, qrels=qrels), "R@5"),
        (run.ir.mrr(qrels=qrels), "RR"),
        (run.ir.ap(qrels=qrels), "AP"),
    ]
    expected = {"P@5": 0.2, "R@5": 0.5, "RR": 0.5, "AP": (1 / 2 + 2 / 6) / 2}
    # nDCG@10 (exp, binary): DCG = 1/log2(3) + 1/log2(7); IDCG = 1 + 1/log2(3)
    expected["nDCG@10"] = (1 / L3 + 1 / math.log2(7)) / (1 + 1 / L3)
    for out, label in cases:
        assert isinstance(out, constructor.native_type), label
        df = to_polars(out)
        assert df.columns == ["query_id", label]
        assert df.row(0) == ("q1", approx(expected[label])), label
    same = to_polars(run.ir.evaluate(["AP"], qrels, per_query=True))
    assert same.row(0) == ("q1", approx(expected["AP"]))


def _dropped(constructor: NamedConstructor, match: str) -> AbstractContextManager[object]:
    """duplicates="first" says what it dropped in a warning (a LazyFrame run is not read
    before it is collected: no count)."""
    return nullcontext() if "lazy" in constructor.name else pytest.warns(DuplicatesWarning, match=match)


def test_duplicates_first_keeps_best_ranked(constructor: NamedConstructor) -> None:
    run = {"query_id": ["q1", "q1", "q1"], "doc_id": ["a", "b", "a"], "score": [0.1, 0.5, 0.9]}
    qrels = {"query_id": ["q1"], "doc_id": ["a"], "relevance": [1]}
    with _dropped(constructor, "dropped 1 of 3 run rows"):  # a's row at 0.1
        got = per_query(constructor, run, ["RR", "NumRet"], qrels, duplicates="first")["q1"]
    # kept: a at 0.9 -> order a, b
    assert got == {"RR": 1.0, "NumRet": 2.0}
    ranked = {**run, "rank": [3, 2, 1]}
    del ranked["score"]
    with _dropped(constructor, "dropped 1 of 3 run rows"):
        got = per_query(constructor, ranked, ["RR"], qrels, duplicates="first")["q1"]
    assert got == {"RR": 1.0}  # a kept at rank 1


# --- more input shapes ------------------------------------------------------------------
def test_signed_zero_scores_tie(constructor: NamedConstructor) -> None:
    # -0.0 == 0.0 for trec_eval's comparison: a tie, broken by doc id descending -> b, a
    run = {"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [0.0, -0.0]}
    qrels = {"query_id": ["q1"], "doc_id": ["a"], "relevance": [1]}
    assert per_query(constructor, run, ["RR"], qrels)["q1"]["RR"] == approx(0.5)
    run["score"] = [-0.0, 0.0]
    assert per_query(constructor, run, ["RR"], qrels)["q1"]["RR"] == approx(0.5)


def test_int_scores_and_extra_columns(constructor: NamedConstructor) -> None:
    run = {
        "query_id": ["q1", "q1", "q1"],
        "Q0": ["Q0", "Q0", "Q0"],
        "doc_id": ["a", "b", "c"],
        "score": [1, 1, 3],  # int scores: c, then the tie b, a
        "run_id": ["x", "x", "x"],
    }
    qrels = {"query_id": ["q1"], "iteration": [0], "doc_id": ["a"], "relevance": [1]}
    assert per_query(constructor, run, ["RR"], qrels)["q1"]["RR"] == approx(1 / 3)


def test_same_measure_two_spellings(constructor: NamedConstructor) -> None:
    got = per_query(constructor, TOY_RUN, ["MAP", "AP", "map"], TOY_QRELS)["q1"]
    assert got == {"MAP": approx(5 / 6), "AP": approx(5 / 6), "map": approx(5 / 6)}


def test_by_query_attribute_present_in_qrels(constructor: NamedConstructor) -> None:
    # a by-column also in the qrels places a missing query in its own group
    run = {"query_id": ["q1", "q2"], "cat": ["A", "B"], "doc_id": ["a", "b"], "score": [1.0, 1.0]}
    qrels = {
        "query_id": ["q1", "q2", "q3"],
        "cat": ["A", "B", "B"],
        "doc_id": ["a", "b", "c"],
        "relevance": [1, 1, 1],
    }
    out = to_polars(irframe.evaluate(constructor(run), ["AP"], constructor(qrels), by="cat"))
    out = out.sort("cat")
    # A: q1 -> 1 ; B: q2 -> 1, q3 missing -> 0 : mean 0.5
    assert out.select("cat", "AP", "n_queries", "n_missing").rows() == [
        ("A", 1.0, 1, 0),
        ("B", 0.5, 2, 1),
    ]


def test_pandas_with_non_default_index() -> None:
    pd = pytest.importorskip("pandas")
    run = pd.DataFrame(RUN_6, index=[10, 3, 7, 1, 99, 5])
    qrels = pd.DataFrame(QRELS_2REL, index=["x", "y", "z"])
    out = irframe.evaluate(run, ["RR", "AP@5"], qrels, per_query=True)
    assert isinstance(out, pd.DataFrame)
    assert out.to_dict("records") == [{"query_id": "q1", "RR": 0.5, "AP@5": 0.25}]
    assert run.index.tolist() == [10, 3, 7, 1, 99, 5]


def test_measure_objects_and_single_string(constructor: NamedConstructor) -> None:
    from irframe.measures import AP, P, nDCG

    run, qrels = constructor(TOY_RUN), constructor(TOY_QRELS)
    out = to_polars(irframe.evaluate(run, [nDCG(gain="linear") @ 2, P(rel=2) @ 1, AP], qrels))
    # Measure objects are labelled by their canonical form
    assert out.columns[:3] == ["nDCG(gain=linear)@2", "P(rel=2)@1", "AP"]
    assert out.row(0)[:3] == (approx(1 / (2 + 1 / L3)), 0.0, approx(5 / 6))
    single = to_polars(irframe.evaluate(run, "ndcg_cut_2", qrels, per_query=True))
    assert single.columns == ["query_id", "ndcg_cut_2"]


def test_no_judged_query_left_gives_null_means(constructor: NamedConstructor) -> None:
    run = {"query_id": ["q9"], "doc_id": ["a"], "score": [1.0]}
    qrels = {"query_id": ["q1"], "doc_id": ["a"], "relevance": [1]}
    row = summary(constructor, run, ["AP"], qrels, missing="drop")
    # q1 dropped, q9 unjudged: nothing to average -> null (not NaN), 0 queries
    assert (row["AP"], row["n_queries"], row["n_missing"], row["n_unjudged"]) == (None, 0, 1, 1)
    row = summary(constructor, run, ["AP"], qrels)  # missing="zero": q1 scores 0 and counts
    assert (row["AP"], row["n_queries"], row["n_missing"], row["n_unjudged"]) == (0.0, 1, 1, 1)


def test_namespace_shortcuts_with_parameters(constructor: NamedConstructor) -> None:
    run, qrels = constructor(TOY_RUN), constructor(TOY_QRELS)
    cases = [
        (run.ir.ndcg(k=2, qrels=qrels, gain="linear"), "nDCG(gain=linear)@2", 1 / (2 + 1 / L3)),
        # gains {1:1, 2:3}: DCG@2 = 1 (b) ; IDCG@2 = 3 + 1/log2(3)
        (run.ir.ndcg(k=2, qrels=qrels, gain={1: 1, 2: 3}), "nDCG(gains={1:1,2:3})@2", 1 / (3 + 1 / L3)),
        (run.ir.precision(k=1, qrels=qrels, rel=2), "P(rel=2)@1", 0.0),
        (run.ir.mrr(k=2, qrels=qrels), "RR@2", 1.0),
        (run.ir.ap(k=3, qrels=qrels), "AP@3", 5 / 6),
        (run.ir.recall(qrels=qrels, rel=2), "R(rel=2)", 1.0),
        (run.ir.rprec(qrels=qrels), "Rprec", 0.5),  # top 2: b, a -> 1/2
        (run.ir.bpref(qrels=qrels), "Bpref", 0.5),
        (run.ir.success(k=1, qrels=qrels), "Success@1", 1.0),
        (run.ir.judged(k=4, qrels=qrels), "Judged@4", 1.0),
    ]
    for out, label, value in cases:
        df = to_polars(out)
        assert df.columns == ["query_id", label]
        assert df.row(0) == ("q1", approx(value)), label
    agg = to_polars(run.ir.ap(k=3, qrels=qrels, per_query=False))
    assert agg.row(0, named=True)["AP@3"] == approx(5 / 6)
    assert agg.row(0, named=True)["n_queries"] == 1


@pytest.mark.parametrize("backend", ["pandas", "pandas-pyarrow"])
def test_pandas_output_keeps_the_dtype_backend(backend: str) -> None:
    pd = pytest.importorskip("pandas")
    ctor = NamedConstructor(backend)
    run = {"query_id": ["q1", "q1", "q9"], "doc_id": ["a", "b", "a"], "score": [1.0, 0.5, 1.0]}
    qrels = {"query_id": ["q1"], "doc_id": ["a"], "relevance": [1]}
    out = irframe.evaluate(ctor(run), ["AP"], ctor(qrels), per_query=True)
    assert isinstance(out.index, pd.RangeIndex)
    assert out["query_id"].tolist() == ["q1", "q9"]
    if backend == "pandas-pyarrow":
        assert isinstance(out["AP"].dtype, pd.ArrowDtype)
        assert out["AP"].isna().tolist() == [False, True]  # q9 unjudged: <NA>
    else:
        assert out["AP"].dtype == "float64"
        assert out["AP"].isna().tolist() == [False, True]  # q9 unjudged: NaN


def test_qrels_take_precedence_over_grades_on_the_run(constructor: NamedConstructor) -> None:
    # the run carries stale grades (a relevant); the qrels say b is the relevant one
    run = {"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [1.0, 0.5], "relevance": [1, 0]}
    qrels = {"query_id": ["q1"], "doc_id": ["b"], "relevance": [1]}
    assert per_query(constructor, run, ["RR"], qrels)["q1"]["RR"] == approx(0.5)


def test_golden_set_by_system(constructor: NamedConstructor) -> None:
    run = {
        "system": ["A", "A", "B", "B"],
        "query_id": ["q1", "q1", "q1", "q1"],
        "doc_id": ["a", "b", "a", "b"],
        "score": [2.0, 1.0, 1.0, 2.0],
        "relevance": [0, 2, 0, 2],
    }
    out = to_polars(irframe.evaluate(constructor(run), ["nDCG@2", "RR"], by="system"))
    out = out.sort("system")
    # A: b (gain 3) at rank 2 -> nDCG = (3/log2(3)) / 3, RR = 1/2 ; B: b first -> 1, 1
    assert out.select("system", "nDCG@2", "RR").rows() == [
        ("A", approx(1 / L3), approx(0.5)),
        ("B", approx(1.0), approx(1.0)),
    ]


@pytest.mark.parametrize("order", ["ranked", "reversed"])
def test_rr_when_every_retrieved_doc_is_relevant(constructor: NamedConstructor, order: str) -> None:
    # regression: a boolean arg_max over an all-True group returned the last index
    two = {"query_id": ["q2", "q2"], "doc_id": ["a", "b"], "score": [0.25, 0.0]}
    got2 = per_query(
        constructor,
        two if order == "ranked" else {k: v[::-1] for k, v in two.items()},
        ["RR"],
        {"query_id": ["q2", "q2"], "doc_id": ["a", "b"], "relevance": [1, 1]},
    )
    assert got2 == {"q2": {"RR": 1.0}}
    run = {"query_id": ["q1", "q1", "q1"], "doc_id": ["a", "b", "c"], "score": [0.25, 0.1, 0.0]}
    if order == "reversed":
        run = {k: v[::-1] for k, v in run.items()}
    qrels = {"query_id": ["q1"] * 3, "doc_id": ["a", "b", "c"], "relevance": [1, 1, 2]}
    got = per_query(constructor, run, ["RR", "RR@2", "RR(rel=2)", "AP", "Success@1"], qrels)
    # RR: a at rank 1 -> 1 ; RR(rel=2): c at rank 3 -> 1/3 ; AP = (1/1 + 2/2 + 3/3) / 3 = 1
    assert got["q1"] == {
        "RR": 1.0,
        "RR@2": 1.0,
        "RR(rel=2)": approx(1 / 3),
        "AP": approx(1.0),
        "Success@1": 1.0,
    }


def test_by_run_partition_and_query_attribute_together(constructor: NamedConstructor) -> None:
    # system: only in the run (partition); cat: also in the qrels (query attribute)
    run = {
        "system": ["A", "A", "B", "B"],
        "cat": ["x", "y", "x", "y"],
        "query_id": ["q1", "q2", "q1", "q2"],
        "doc_id": ["a", "b", "z", "b"],
        "score": [1.0, 1.0, 1.0, 1.0],
    }
    qrels = {
        "query_id": ["q1", "q2", "q3"],
        "cat": ["x", "y", "y"],
        "doc_id": ["a", "b", "c"],
        "relevance": [1, 1, 1],
    }
    per_q = to_polars(
        irframe.evaluate(constructor(run), ["AP"], constructor(qrels), by=["system", "cat"], per_query=True)
    )
    # q3 (cat y) is missing from both systems: zero-filled once per system, in cat y only
    assert per_q.rows() == [
        ("A", "x", "q1", 1.0),
        ("A", "y", "q2", 1.0),
        ("A", "y", "q3", 0.0),
        ("B", "x", "q1", 0.0),  # B retrieved z, not a
        ("B", "y", "q2", 1.0),
        ("B", "y", "q3", 0.0),
    ]
    means = to_polars(
        irframe.evaluate(constructor(run), ["AP"], constructor(qrels), by=["system", "cat"])
    ).sort("system", "cat")
    assert means.select("system", "cat", "AP", "n_queries", "n_missing").rows() == [
        ("A", "x", 1.0, 1, 0),
        ("A", "y", 0.5, 2, 1),
        ("B", "x", 0.0, 1, 0),
        ("B", "y", 0.5, 2, 1),
    ]


def test_int_keys_keep_their_dtype_and_sort_numerically(constructor: NamedConstructor) -> None:
    run = {
        "system": [2, 10, 2, 10],
        "query_id": [10, 10, 2, 2],
        "doc_id": ["a", "a", "b", "b"],
        "score": [1.0, 1.0, 1.0, 1.0],
    }
    qrels = {"query_id": [10, 2], "doc_id": ["a", "b"], "relevance": [1, 1]}
    out = to_polars(
        irframe.evaluate(constructor(run), ["RR"], constructor(qrels), by="system", per_query=True)
    )
    assert out.schema["system"].is_integer()
    assert out.schema["query_id"].is_integer()
    # 2 < 10 numerically (as text "10" < "2")
    assert out.select("system", "query_id").rows() == [(2, 2), (2, 10), (10, 2), (10, 10)]


def test_duplicates_first_in_the_golden_set(constructor: NamedConstructor) -> None:
    run = {
        "query_id": ["q1", "q1", "q1"],
        "doc_id": ["a", "b", "a"],
        "score": [0.1, 0.5, 0.9],
        "relevance": [0, 0, 1],
    }
    # the kept row is a at 0.9 with its grade 1 -> a ranks first
    with _dropped(constructor, "dropped 1 of 3 run rows"):
        assert per_query(constructor, run, ["RR"], duplicates="first") == {"q1": {"RR": 1.0}}


def test_segment_next_to_system_is_still_caught(constructor: NamedConstructor) -> None:
    """by=["system", "segment"] with the segment only on the run: every query has several
    systems but one segment, so zero-filling would put every missing query in every
    segment. The check runs column by column."""
    run = {
        "system": ["A", "A", "B", "B"],
        "segment": ["nav", "info", "nav", "info"],
        "query_id": ["q1", "q2", "q1", "q2"],
        "doc_id": ["r", "s", "x", "s"],
        "score": [1.0, 1.0, 1.0, 1.0],
    }
    qrels = {"query_id": ["q1", "q2", "q3"], "doc_id": ["r", "s", "t"], "relevance": [1, 1, 1]}
    with pytest.raises(InvalidParameterError, match="'segment'"):
        to_polars(irframe.evaluate(constructor(run), ["AP"], constructor(qrels), by=["system", "segment"]))
    # with the segment in the qrels, each segment gets its own queries, and q3 (judged,
    # in no run) is a missing query of segment nav for both systems
    seg_qrels = {**qrels, "segment": ["nav", "info", "nav"]}
    out = to_polars(
        irframe.evaluate(constructor(run), ["AP"], constructor(seg_qrels), by=["system", "segment"])
    )
    rows = out.select("system", "segment", "AP", "n_queries", "n_missing").rows()
    # A: nav {q1: 1, q3 missing: 0} -> 0.5; info {q2: 1}; B: nav {q1: x not relevant -> 0, q3: 0}
    assert rows == [
        ("A", "info", 1.0, 1, 0),
        ("A", "nav", 0.5, 2, 1),
        ("B", "info", 1.0, 1, 0),
        ("B", "nav", 0.0, 2, 1),
    ]
