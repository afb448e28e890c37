"""The listed top documents follow each run's own order source once the runs are stacked.

A run with only a rank column and a run with only scores, stacked (``stack_runs``: the
column one run lacks is null in its rows), must each still be ranked by its own column:
the rank run by rank ascending, the score run by score descending, ties by doc id
descending in byte order (``ranking_order``), never the score run by its null ranks.

By hand (k = 3):

- ``RANKED`` q1: d10 (rank 1), d1 (2), d4 (3), d9 (4) -> d10, d1, d4;
  q2: e1 and e2 both rank 1, tie by doc id descending -> e2, e1.
- ``SCORED`` q1: d1 (0.9), then d9 and d10 tied at 0.5, "d9" > "d10" in byte order -> d1, d9, d10;
  q2: e1 (1.0), e2 (0.0) -> e1, e2.
"""

from __future__ import annotations

import polars as pl

import irframe
from irframe._compare import top_documents
from irframe._input.options import Options

QRELS = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["d1", "d9", "e1"], "relevance": [1, 2, 1]})
IDS = ["d1", "d9", "d10", "d4", "e1", "e2"]
QUERIES = ["q1"] * 4 + ["q2"] * 2
RANKED = pl.DataFrame({"query_id": QUERIES, "doc_id": IDS, "rank": [2, 4, 1, 3, 1, 1]})
SCORED = pl.DataFrame({"query_id": QUERIES, "doc_id": IDS, "score": [0.9, 0.5, 0.5, 0.1, 1.0, 0.0]})

BY_HAND = {
    ("ranked", "q1"): [("d10", None), ("d1", 1), ("d4", None)],
    ("ranked", "q2"): [("e2", None), ("e1", 1)],
    ("scored", "q1"): [("d1", 1), ("d9", 2), ("d10", None)],
    ("scored", "q2"): [("e1", 1), ("e2", None)],
}


def _pairs(cell: list[dict[str, object]]) -> list[tuple[object, object]]:
    return [(d["doc_id"], d["grade"]) for d in cell]


def test_top_documents_rank_each_run_by_its_own_column() -> None:
    runs = {"ranked": RANKED.lazy(), "scored": SCORED.lazy()}
    docs = top_documents(runs, QRELS, ["q1", "q2"], k=3, opts=Options())
    assert docs is not None
    for row in docs.iter_rows(named=True):
        for name in runs:
            assert _pairs(row[f"{name}_docs"]) == BY_HAND[(name, row["query_id"])], (name, row)


def test_top_documents_without_qrels_read_the_grades_any_run_carries() -> None:
    graded = {
        "ranked": RANKED.with_columns(relevance=pl.Series([1, 2, 0, 0, 1, 0])).lazy(),
        "scored": SCORED.lazy(),  # no grades of its own: a (query, doc) grade is the judgment's
    }
    docs = top_documents(graded, None, ["q1"], k=3, opts=Options())
    assert docs is not None
    row = docs.row(0, named=True)
    assert _pairs(row["ranked_docs"]) == [("d10", 0), ("d1", 1), ("d4", 0)]
    assert _pairs(row["scored_docs"]) == [("d1", 1), ("d9", 2), ("d10", 0)]


def test_check_lists_a_rank_baseline_and_a_score_candidate_in_their_own_orders() -> None:
    result = irframe.check(SCORED, QRELS, baseline=RANKED, measures=["RR"], docs_top=3)
    rows = {r["query_id"]: r for r in result.moved.iter_rows(named=True)}
    assert set(rows) == {"q1", "q2"}
    for q, row in rows.items():
        assert _pairs(row["baseline_docs"]) == BY_HAND[("ranked", q)]
        assert _pairs(row["candidate_docs"]) == BY_HAND[("scored", q)]
    for text in (result.report(), result.to_markdown()):
        assert "d10 (?), d1 (1), d4 (?)" in text
        assert "d1 (1), d9 (2), d10 (?)" in text


def test_the_comparison_pages_moved_queries_tie_in_natural_order() -> None:
    """Two queries that moved by the same amount are listed q9 before q10 (the natural order,
    as ``moved()`` lists them), on the comparison page as in ``moved()``."""
    qrels = pl.DataFrame({"query_id": ["q10", "q9", "q2"], "doc_id": ["a", "a", "a"], "relevance": [1, 1, 1]})
    old = pl.DataFrame({"query_id": ["q10", "q9", "q2"], "doc_id": ["x", "x", "a"], "rank": [1, 1, 1]})
    new = pl.DataFrame({"query_id": ["q10", "q9", "q2"], "doc_id": ["a", "a", "a"], "rank": [1, 1, 1]})
    runs = {"old": old, "new": new}
    assert irframe.moved(runs, qrels, "RR", docs_top=0)["query_id"].to_list() == ["q9", "q10", "q2"]
    report = irframe.compare_report(runs, qrels, ["RR"], n_permutations=100, n_bootstrap=100)
    ((_, listed, _),) = report._moved(10, 0).systems
    assert listed.get_column("__ir_q").to_list() == ["q9", "q10"]  # (q2 did not move)
