"""irframe.answers.support_scores: the support paper's worked example, hand-computed cases
with unjudged and several citations, the grades, the policies and the errors."""

from __future__ import annotations

import polars as pl
import pytest

from _support.helpers import CONSTRUCTORS, to_polars
from irframe.answers import support_scores
from irframe.exceptions import ColumnNotFoundError, DuplicateRowsError, InvalidDataError


def test_support_paper_worked_example() -> None:
    # Thakur et al. 2025 (arXiv 2504.15205): a partially supported sentence, a fully supported
    # one and an uncited one: wP = (0.5 + 1) / 2 = 0.75, wR = (0.5 + 1) / 3 = 0.5
    citations = pl.DataFrame({"query_id": ["q1", "q1"], "sentence_id": ["s1", "s2"], "citation_rank": [1, 1],
                              "doc_id": ["d1", "d2"], "support": ["partial", "full"]})  # fmt: skip
    sentences = pl.DataFrame({"query_id": ["q1"] * 3, "sentence_id": ["s1", "s2", "s3"]})
    got = to_polars(support_scores(citations, sentences)).row(0, named=True)
    assert got["wP_first"] == 0.75
    assert got["wR_first"] == 0.5
    assert got["wP_all"] == 0.75
    assert got["wR_all"] == 0.5
    assert got["hP"] == 1 / 2
    assert got["hR"] == 1 / 3
    assert (got["n_sentences"], got["n_uncited"], got["n_citations"], got["n_unjudged"]) == (3, 1, 2, 0)
    # without the sentences frame the uncited sentence is unknown: recall = precision
    alone = to_polars(support_scores(citations)).row(0, named=True)
    assert alone["wR_first"] == 0.75
    assert alone["n_uncited"] == 0


CASE = {  # system a, query q1: four sentences, s4 uncited
    "system": ["a"] * 6 + ["b"],
    "query_id": ["q1"] * 7,
    "sentence_id": ["s1", "s1", "s2", "s2", "s3", "s3", "s1"],
    "citation_rank": [2, 1, 1, 2, 1, 2, 1],
    "doc_id": ["d1", "d2", "d3", "d4", "d5", "d6", "d1"],
    "support": ["full", "partial", None, "none", "full", "full", "none"],
}
SENTENCES = {"system": ["a"] * 4 + ["b"] * 2, "query_id": ["q1"] * 6,
             "sentence_id": ["s1", "s2", "s3", "s4", "s1", "s2"]}  # fmt: skip


def test_first_and_all_citations_with_unjudged() -> None:
    got = {
        r["system"]: r
        for r in to_polars(
            support_scores(pl.DataFrame(CASE), pl.DataFrame(SENTENCES), per_query=True)
        ).iter_rows(named=True)
    }
    a = got["a"]
    # first citations: s1 -> rank 1 = partial (0.5); s2 -> rank 1 unjudged; s3 -> full (1); s4 uncited
    assert a["wP_first"] == (0.5 + 1.0) / 2  # s1, s3 judged first
    assert a["wR_first"] == (0.5 + 1.0) / 3  # 4 sentences minus s2 (first unjudged)
    # all: s1 mean(1, 0.5) = 0.75; s2 mean(none) = 0 (the unjudged left out); s3 mean(1, 1) = 1
    assert a["wP_all"] == pytest.approx((0.75 + 0.0 + 1.0) / 3)
    assert a["wR_all"] == pytest.approx((0.75 + 0.0 + 1.0) / 4)
    assert a["hP"] == 1 / 2
    assert a["hR"] == 1 / 3
    assert (a["n_sentences"], a["n_uncited"], a["n_citations"], a["n_unjudged"]) == (4, 1, 6, 1)
    b = got["b"]  # s1 cited, not supported; s2 uncited
    assert (b["wP_first"], b["wR_first"], b["hP"], b["n_uncited"]) == (0.0, 0.0, 0.0, 1)
    means = {
        r["system"]: r
        for r in to_polars(support_scores(pl.DataFrame(CASE), pl.DataFrame(SENTENCES))).iter_rows(named=True)
    }
    assert means["a"]["wP_first"] == a["wP_first"]
    assert means["a"]["n_queries"] == 1


def test_grades_equal_labels_and_frame_types() -> None:
    grades = {**CASE, "support": [2, 1, None, 0, 2, 2, 0]}
    for name in ("polars", "pandas", "polars-lazy"):
        ctor = CONSTRUCTORS[name]
        by_grade = to_polars(support_scores(ctor(grades), ctor(SENTENCES), per_query=True))
        by_label = to_polars(support_scores(pl.DataFrame(CASE), pl.DataFrame(SENTENCES), per_query=True))
        assert by_grade.equals(by_label)


def test_empty_policy() -> None:
    unjudged = pl.DataFrame(
        {**{k: v[:1] for k, v in CASE.items()}, "support": [None]}, schema_overrides={"support": pl.String}
    )
    zero = to_polars(support_scores(unjudged)).row(0, named=True)
    assert zero["wP_first"] == 0.0
    assert zero["n_unjudged"] == 1
    null = to_polars(support_scores(unjudged, empty="null")).row(0, named=True)
    assert null["wP_first"] is None
    assert null["wR_first"] is None


def test_errors() -> None:
    bad = pl.DataFrame({**CASE, "support": ["full", "partial", None, "none", "ful", "full", "none"]})
    with pytest.raises(InvalidDataError, match=r"'ful' at row 4 .*sentence_id 's3'.*did you mean 'full'"):
        support_scores(bad)
    with pytest.raises(InvalidDataError, match=r"unknown label.*5.0 at row"):
        support_scores(pl.DataFrame({**CASE, "support": [2, 1, None, 0, 5, 2, 0]}))
    dup = pl.DataFrame({**CASE, "citation_rank": [1, 1, 1, 2, 1, 2, 1]})
    with pytest.raises(DuplicateRowsError, match="sentence_id 's1', citation_rank 1"):
        support_scores(dup)
    with pytest.raises(
        InvalidDataError, match=r"not in the sentences frame.*system 'a', query_id 'q1', sentence_id 's3'"
    ):
        support_scores(pl.DataFrame(CASE), pl.DataFrame(SENTENCES)[[0, 1, 4, 5]])
    with pytest.raises(
        ColumnNotFoundError, match=r"did you mean columns=\{'citation_rank': 'citaton_rank'\}"
    ):
        support_scores(pl.DataFrame(CASE).rename({"citation_rank": "citaton_rank"}))
    renamed = support_scores(
        pl.DataFrame(CASE).rename({"citation_rank": "citaton_rank"}),
        columns={"citation_rank": "citaton_rank"},
    )
    assert to_polars(renamed).equals(to_polars(support_scores(pl.DataFrame(CASE))))
    with pytest.raises(InvalidDataError, match="null 'citation_rank'"):
        support_scores(pl.DataFrame({**CASE, "citation_rank": [1, None, 1, 2, 1, 2, 1]}))
