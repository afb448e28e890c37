"""irframe.answers.grounding on hand-built cases written out: ranks after the chunk
roll-up and the ranking order's ties, relevance, never-retrieved citations, sentences,
several systems, and the errors."""

from __future__ import annotations

import polars as pl
import pytest

from _support.helpers import CONSTRUCTORS, to_polars
from irframe.answers import grounding
from irframe.exceptions import ColumnNotFoundError, InvalidDataError, InvalidParameterError

# chunks of a RAG retriever, rolled up to documents (the RAG guide's rule): by score
# q1: faq#3 .91, faq#1 .88, policy#2 .80, blog#1 .80 (tie), faq#7 .75, ship#1 .60
#   -> documents in order: faq (1), then the tie policy/blog by doc id descending: policy (2),
#      blog (3), ship (4)
RUN = {
    "query_id": ["q1"] * 6 + ["q2"] * 3,
    "doc_id": ["faq", "faq", "policy", "blog", "faq", "ship", "ship", "returns", "faq"],
    "score": [0.91, 0.88, 0.80, 0.80, 0.75, 0.60, 0.95, 0.93, 0.70],
}
QRELS = {
    "query_id": ["q1", "q1", "q1", "q2", "q2"],
    "doc_id": ["policy", "ship", "blog", "returns", "warranty"],
    "relevance": [2, 1, 0, 1, 2],
}
CITATIONS = {
    "query_id": ["q1", "q1", "q1", "q1", "q2"],
    "sentence_id": ["s1", "s1", "s2", "s3", "s1"],
    "citation_rank": [1, 2, 1, 1, 1],
    "doc_id": ["blog", "policy", "blog", "wiki", "warranty"],
}
SENTENCES = {"query_id": ["q1"] * 4 + ["q2"] * 2, "sentence_id": ["s1", "s2", "s3", "s4", "s1", "s2"]}


def _per_query(g: object, key: str = "query_id") -> dict[object, dict[str, object]]:
    return {r[key]: r for r in to_polars(g).iter_rows(named=True)}


def test_hand_built_case_at_k2() -> None:
    g = grounding(
        pl.DataFrame(CITATIONS), pl.DataFrame(RUN), pl.DataFrame(QRELS), pl.DataFrame(SENTENCES), k=2
    )
    got = _per_query(g.per_query)
    q1 = got["q1"]
    # cited q1: blog (rank 3), policy (rank 2), wiki (never retrieved) -> C = 3
    assert q1["CitedRetrieved@2"] == 1 / 3  # policy only in the top 2
    assert q1["CitedRelevant"] == 1 / 3  # policy (2) relevant; blog judged 0; wiki unjudged
    assert q1["n_cited_unjudged"] == 1
    # relevant in the top 2: faq (unjudged, no), policy (yes) -> 1; cited: policy -> 1/1
    assert q1["RelevantCited@2"] == 1.0
    assert q1["n_relevant_retrieved"] == 1
    assert q1["MeanCitedRank"] == (3 + 2) / 2  # wiki left out
    assert q1["UncitedSentences"] == 1 / 4
    assert q1["n_sentences"] == 4
    assert (q1["n_cited"], q1["n_never_retrieved"]) == (3, 1)
    q2 = got["q2"]  # warranty: relevant but never retrieved; q2's top 2: ship, returns (relevant)
    assert q2["CitedRetrieved@2"] == 0.0
    assert q2["CitedRelevant"] == 1.0
    assert q2["RelevantCited@2"] == 0.0
    assert q2["MeanCitedRank"] is None
    assert q2["UncitedSentences"] == 1 / 2
    never = to_polars(g.never_retrieved)
    assert never.select("query_id", "sentence_id", "doc_id").rows() == [
        ("q1", "s3", "wiki"),
        ("q2", "s1", "warranty"),
    ]
    means = to_polars(g.means).row(0, named=True)
    assert means["CitedRetrieved@2"] == pytest.approx((1 / 3 + 0.0) / 2)
    assert means["MeanCitedRank"] == 2.5  # q2 has none: left out of the mean
    assert (means["n_queries"], means["n_cited"], means["n_never_retrieved"]) == (2, 4, 2)


def test_whole_run_and_rank_column() -> None:
    g = grounding(pl.DataFrame(CITATIONS), pl.DataFrame(RUN), pl.DataFrame(QRELS))
    q1 = _per_query(g.per_query)["q1"]
    assert q1["CitedRetrieved"] == 2 / 3
    # relevant retrieved anywhere in q1: policy, ship -> 2; cited: policy -> 1/2
    assert q1["RelevantCited"] == 1 / 2
    assert q1["UncitedSentences"] is None
    # a rank column wins over the score (order="auto"): blog first now
    ranked = pl.DataFrame(RUN).with_columns(pl.Series("rank", [5, 6, 2, 1, 7, 8, 1, 2, 3]))
    q1r = _per_query(grounding(pl.DataFrame(CITATIONS), ranked, k=1).per_query)["q1"]
    assert q1r["CitedRetrieved@1"] == 1 / 3
    assert q1r["MeanCitedRank"] == (1 + 2) / 2
    assert q1r["CitedRelevant"] is None  # no qrels


def test_several_systems_one_run_each_and_one_run_for_all() -> None:
    cit = pl.DataFrame(CITATIONS)
    llama = cit.with_columns(pl.lit("llama").alias("system"), pl.lit("faq").alias("doc_id"))
    two = pl.concat([cit.with_columns(pl.lit("gpt").alias("system")), llama])
    # one run (no system column) fed both: llama cites only faq, rank 1 in q1 and 3 in q2
    rows = to_polars(grounding(two, pl.DataFrame(RUN), k=1).per_query)
    assert rows.select("system", "query_id").rows() == [
        ("gpt", "q1"),
        ("gpt", "q2"),
        ("llama", "q1"),
        ("llama", "q2"),
    ]
    assert rows["CitedRetrieved@1"].to_list() == [0.0, 0.0, 1.0, 0.0]
    assert rows["MeanCitedRank"].to_list() == [2.5, None, 1.0, 3.0]
    runs = pl.concat([pl.DataFrame(RUN).with_columns(pl.lit("gpt").alias("system")),
                      pl.DataFrame(RUN).with_columns(pl.lit("llama").alias("system"),
                                                     -pl.col("score"))])  # fmt: skip
    own = to_polars(grounding(two, runs, k=1).per_query)
    # llama's run reversed: q1 ship -0.60, then faq at its best chunk (-0.75) -> rank 2; q2: faq rank 1
    assert own["MeanCitedRank"].to_list()[2:] == [2.0, 1.0]
    # the same runs as a dict (stacked by the library's one stacker), pandas in -> pandas out
    as_dict = {name: runs.filter(pl.col("system") == name).drop("system") for name in ("gpt", "llama")}
    assert to_polars(grounding(two, as_dict, k=1).per_query).equals(own)
    pd_runs = {name: frame.to_pandas() for name, frame in as_dict.items()}
    assert to_polars(grounding(two.to_pandas(), pd_runs, k=1).per_query).equals(own)
    with pytest.raises(InvalidDataError, match=r"the run does not hold: 'llama'"):
        grounding(two, runs.filter(pl.col("system") == "gpt"))
    with pytest.raises(InvalidDataError, match="citations have no system column"):
        grounding(cit, runs)
    one = to_polars(grounding(cit, {"gpt": as_dict["gpt"]}, k=1).per_query)
    assert one.equals(to_polars(grounding(cit, as_dict["gpt"], k=1).per_query))


@pytest.mark.parametrize("ctor", ["polars", "polars-lazy", "pandas", "pandas-pyarrow"])
def test_frame_types(ctor: str) -> None:
    make = CONSTRUCTORS[ctor]
    g = grounding(make(CITATIONS), make(RUN), make(QRELS), make(SENTENCES), k=2)
    assert type(g.per_query) is type(make(CITATIONS))
    assert type(g.never_retrieved) is type(make(CITATIONS))
    want = grounding(
        pl.DataFrame(CITATIONS), pl.DataFrame(RUN), pl.DataFrame(QRELS), pl.DataFrame(SENTENCES), k=2
    )
    assert to_polars(g.per_query).equals(to_polars(want.per_query))


def test_errors_and_empty_policy() -> None:
    cit, run = pl.DataFrame(CITATIONS), pl.DataFrame(RUN)
    with pytest.raises(InvalidParameterError, match="'k' parameter of grounding"):
        grounding(cit, run, k=0)
    with pytest.raises(InvalidDataError, match=r"cannot be ranked.*row 2"):
        grounding(
            cit,
            run.with_columns(
                pl.when(pl.int_range(pl.len()) == 2).then(None).otherwise("score").alias("score")
            ),
        )
    with pytest.raises(ColumnNotFoundError, match=r"did you mean columns=\{'doc': 'docid'\}"):
        grounding(cit.rename({"doc_id": "docid"}), run)
    followed = grounding(cit.rename({"doc_id": "docid"}), run, columns={"doc": "docid"})
    assert to_polars(followed.per_query).equals(to_polars(grounding(cit, run).per_query))
    renamed = grounding(
        cit, run.rename({"query_id": "qid", "doc_id": "docno"}), run_columns={"query": "qid", "doc": "docno"}
    )
    assert to_polars(renamed.per_query).equals(to_polars(grounding(cit, run).per_query))
    with pytest.raises(InvalidDataError, match=r"not in the sentences frame.*sentence_id 's3'"):
        grounding(cit, run, sentences=pl.DataFrame(SENTENCES).filter(pl.col("sentence_id") != "s3"))
    # an answer with sentences and no citation: its ratios are null (empty="null") or 0
    extra = pl.DataFrame({"query_id": ["q3"], "sentence_id": ["s1"]})
    sen = pl.concat([pl.DataFrame(SENTENCES), extra])
    q3 = _per_query(grounding(cit, run, sentences=sen).per_query)["q3"]
    assert q3["CitedRetrieved"] is None
    assert q3["UncitedSentences"] == 1.0
    assert q3["n_cited"] == 0
    q3z = _per_query(grounding(cit, run, sentences=sen, empty="zero").per_query)["q3"]
    assert q3z["CitedRetrieved"] == 0.0
    assert "never retrieved: 2" in grounding(cit, run).to_text()


def test_queries_nobody_answered_change_nothing() -> None:
    more = pl.concat(
        [
            pl.DataFrame(RUN),
            pl.DataFrame({"query_id": ["q9"] * 2, "doc_id": ["blog", "x"], "score": [9.0, 8.0]}),
        ]
    )
    g = grounding(pl.DataFrame(CITATIONS), more, pl.DataFrame(QRELS), k=2)
    want = grounding(pl.DataFrame(CITATIONS), pl.DataFrame(RUN), pl.DataFrame(QRELS), k=2)
    assert to_polars(g.per_query).equals(to_polars(want.per_query))
    assert to_polars(g.per_query)["query_id"].to_list() == ["q1", "q2"]
