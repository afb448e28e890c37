"""The reports show the ranking that was scored: after ``duplicates="first"`` (each document at
its best-ranked chunk) and ``depth`` (the rows below it were not scored), in ``moved()``, the
comparison's HTML page and the gate's text, markdown and HTML reports.

The RAG guide's recipe, by hand: the new system retrieves chunks doc036#1, doc036#2, doc036#3,
doc173#1, doc060#1 (scores 0.9 ... 0.5) for q1; rolled up to documents and deduplicated, the
ranking scored is doc036, doc173, doc060 (not doc036 three times).  The baseline ranks doc060,
doc173, doc036 (one chunk each).  doc036 is the relevant one: RR 1 for new, 1/3 for old.
"""

from __future__ import annotations

import re
import warnings

import polars as pl
import pytest

import irframe

QRELS = pl.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["doc036", "doc500"], "relevance": [1, 1]})


def _run(chunks: list[tuple[str, str, float]]) -> pl.DataFrame:
    rows = pl.DataFrame(chunks, schema=["query_id", "chunk_id", "score"], orient="row")
    return rows.with_columns(pl.col("chunk_id").str.split("#").list.first().alias("doc_id"))


NEW = _run([
    ("q1", "doc036#1", 0.9), ("q1", "doc036#2", 0.8), ("q1", "doc036#3", 0.7),
    ("q1", "doc173#1", 0.6), ("q1", "doc060#1", 0.5),
    ("q2", "doc500#1", 0.9), ("q2", "doc501#1", 0.8),
])  # fmt: skip
OLD = _run([
    ("q1", "doc060#1", 0.9), ("q1", "doc173#1", 0.8), ("q1", "doc036#1", 0.7),
    ("q2", "doc500#1", 0.9), ("q2", "doc501#1", 0.8),
])  # fmt: skip
SCORED = ["doc036", "doc173", "doc060"]


@pytest.fixture(autouse=True)
def _expected_repeats() -> None:
    warnings.filterwarnings("ignore", category=irframe.exceptions.DuplicatesWarning)


def _docs(cell: list[dict[str, object]]) -> list[object]:
    return [d["doc_id"] for d in cell]


def test_moved_lists_the_scored_ranking() -> None:
    m = irframe.moved({"old": OLD, "new": NEW}, QRELS, "RR", duplicates="first", docs_top=3)
    row = m.filter(pl.col("query_id") == "q1").row(0, named=True)
    assert row["delta"] == pytest.approx(1 - 1 / 3)
    assert _docs(row["system_docs"]) == SCORED
    assert _docs(row["baseline_docs"]) == ["doc060", "doc173", "doc036"]


def test_moved_lists_no_document_below_the_depth() -> None:
    m = irframe.moved({"old": OLD, "new": NEW}, QRELS, "RR", duplicates="first", depth=2, docs_top=3)
    row = m.filter(pl.col("query_id") == "q1").row(0, named=True)
    assert _docs(row["system_docs"]) == SCORED[:2]  # doc060 was not scored
    assert row["delta"] == pytest.approx(1 - 0)  # old's doc036 is at 3, below the depth: RR 0


def _listed(text: str) -> list[list[str]]:
    """Every list of documents a report shows: an HTML ``<ol class="docs">``, or a text or
    markdown cell ``doc036 (1), doc173 (?), ...``."""
    cells = re.findall(r'<ol class="docs">(.*?)</ol>', text, flags=re.S)
    cells += re.findall(r"doc\d{3} \([^)]*\)(?:, doc\d{3} \([^)]*\))*", text)
    return [re.findall(r"doc\d{3}", cell) for cell in cells]


def _shows_the_scored_ranking(text: str) -> None:
    lists = _listed(text)
    assert SCORED in lists, lists
    assert ["doc060", "doc173", "doc036"] in lists  # the baseline's
    assert all(len(set(docs)) == len(docs) for docs in lists), lists


def test_the_comparison_page_lists_the_scored_ranking() -> None:
    report = irframe.compare_report(
        {"old": OLD, "new": NEW}, QRELS, ["RR"], duplicates="first", test="t", n_bootstrap=200
    )
    page = report.html_page()
    _shows_the_scored_ranking(page)


def test_the_gate_reports_list_the_scored_ranking() -> None:
    result = irframe.check(
        NEW, QRELS, OLD, ["RR"], duplicates="first", test="t", max_drop=0.5, n_bootstrap=200
    )
    for text in (result.report(), result.to_markdown(), result.html_page()):
        _shows_the_scored_ranking(text)
