"""compare and moved evaluate a rank-only run next to a score-only run, each by its own order.

Stacked (``stack_runs``), the column one run lacks is null in its rows; each run must still
be ranked by its own column through ``ranking_order``: rank ascending, score descending,
ties by doc id descending in byte order (trec_eval's ``strcmp(docno2, docno1)``).

By hand.  Qrels: q1 d2 -> 2, d3 -> 1, d1 -> 0; q2 d4 -> 1.

- ``RANKED`` q1: d1 (rank 1), d3 (2), d2 (3): first relevant at 2, RR = 1/2;
  DCG@3 = 0 + 1/log2(3) + 2/log2(4) = 1.630930, IDCG@3 = 2 + 1/log2(3) = 2.630930,
  nDCG@3 = 0.619906.  q2: d4 (1), d5 (2): RR = 1, nDCG@3 = 1.
- ``SCORED`` q1: d1 and d2 tied at 2.0, "d2" > "d1": d2, d1, then d3 (1.0): RR = 1;
  DCG@3 = 2 + 0 + 1/log2(4) = 2.5, nDCG@3 = 2.5 / 2.630930 = 0.950234.  (Ranked d1 first,
  the tie broken the other way, RR would be 1/2.)  q2: d5 (0.9), d4 (0.8): RR = 1/2,
  nDCG@3 = 1/log2(3) = 0.630930.
"""

from __future__ import annotations

import math

import pandas as pd
import polars as pl
import pytest

import irframe
from irframe._compare import system_means

QRELS = pl.DataFrame({
    "query_id": ["q1", "q1", "q1", "q2"], "doc_id": ["d2", "d3", "d1", "d4"], "relevance": [2, 1, 0, 1],
})  # fmt: skip
RANKED = pl.DataFrame({"query_id": ["q1", "q1", "q1", "q2", "q2"], "doc_id": ["d1", "d3", "d2", "d4", "d5"],
                       "rank": [1, 2, 3, 1, 2]})  # fmt: skip
SCORED = pl.DataFrame({"query_id": ["q1", "q1", "q1", "q2", "q2"], "doc_id": ["d1", "d2", "d3", "d5", "d4"],
                       "score": [2.0, 2.0, 1.0, 0.9, 0.8]})  # fmt: skip

_IDCG_Q1 = 2 + 1 / math.log2(3)
BY_HAND = {  # (system, measure) -> {query: value}
    ("ranked", "RR"): {"q1": 0.5, "q2": 1.0},
    ("ranked", "ndcg_cut_3"): {"q1": (1 / math.log2(3) + 2 / math.log2(4)) / _IDCG_Q1, "q2": 1.0},
    ("scored", "RR"): {"q1": 1.0, "q2": 0.5},
    ("scored", "ndcg_cut_3"): {"q1": (2 + 1 / math.log2(4)) / _IDCG_Q1, "q2": 1 / math.log2(3)},
}
MEASURES = ["RR", "ndcg_cut_3"]


def test_the_hand_values_are_what_evaluate_gives_each_run_alone() -> None:
    assert BY_HAND[("ranked", "ndcg_cut_3")]["q1"] == pytest.approx(0.619906, abs=1e-6)
    assert BY_HAND[("scored", "ndcg_cut_3")]["q1"] == pytest.approx(0.950234, abs=1e-6)
    for name, run in (("ranked", RANKED), ("scored", SCORED)):
        alone = irframe.evaluate(run, MEASURES, QRELS, per_query=True)
        assert isinstance(alone, pl.DataFrame)
        for m in MEASURES:
            got = dict(alone.select("query_id", m).iter_rows())
            assert got == pytest.approx(BY_HAND[(name, m)], abs=1e-12), (name, m)


def _as(kind: str, frame: pl.DataFrame) -> object:
    return {"polars": frame, "lazy": frame.lazy(), "pandas": frame.to_pandas()}[kind]


@pytest.mark.parametrize("kind", ["polars", "lazy", "pandas"])
@pytest.mark.parametrize("baseline", ["ranked", "scored"])
def test_compare_means_follow_each_runs_own_order(kind: str, baseline: str) -> None:
    runs = {"ranked": _as(kind, RANKED), "scored": _as(kind, SCORED)}
    out = irframe.compare(runs, _as(kind, QRELS), MEASURES, baseline=baseline, test="t")
    if isinstance(out, pl.LazyFrame):
        out = out.collect()
    df = pl.from_pandas(out) if isinstance(out, pd.DataFrame) else out
    assert isinstance(df, pl.DataFrame)
    other = "scored" if baseline == "ranked" else "ranked"
    assert df.height == len(MEASURES)
    for row in df.iter_rows(named=True):
        assert (row["system"], row["baseline"]) == (other, baseline)
        m = row["measure"]
        mean = sum(BY_HAND[(other, m)].values()) / 2
        base_mean = sum(BY_HAND[(baseline, m)].values()) / 2
        assert row["mean"] == pytest.approx(mean, abs=1e-12), m
        assert row["baseline_mean"] == pytest.approx(base_mean, abs=1e-12), m
        assert row["delta"] == pytest.approx(mean - base_mean, abs=1e-12), m
        assert row["n_queries"] == 2


@pytest.mark.parametrize("kind", ["polars", "lazy", "pandas"])
@pytest.mark.parametrize("measure", MEASURES)
def test_moved_per_query_values_follow_each_runs_own_order(kind: str, measure: str) -> None:
    runs = {"scored": _as(kind, SCORED), "ranked": _as(kind, RANKED)}
    out = irframe.moved(runs, _as(kind, QRELS), measure, docs_top=0)
    if isinstance(out, pl.LazyFrame):
        out = out.collect()
    df = pl.from_pandas(out) if isinstance(out, pd.DataFrame) else out
    assert isinstance(df, pl.DataFrame)
    assert set(df["query_id"]) == {"q1", "q2"}
    for row in df.iter_rows(named=True):
        q = row["query_id"]
        assert row["system"] == "ranked"
        assert row["baseline_value"] == pytest.approx(BY_HAND[("scored", measure)][q], abs=1e-12)
        assert row["value"] == pytest.approx(BY_HAND[("ranked", measure)][q], abs=1e-12)


def test_moved_lists_each_runs_documents_in_its_own_order() -> None:
    out = irframe.moved({"ranked": RANKED, "scored": SCORED}, QRELS, "RR", docs_top=3)
    rows = {r["query_id"]: r for r in out.iter_rows(named=True)}
    assert [d["doc_id"] for d in rows["q1"]["baseline_docs"]] == ["d1", "d3", "d2"]
    assert [d["doc_id"] for d in rows["q1"]["system_docs"]] == ["d2", "d1", "d3"]


def test_a_null_rank_in_a_run_that_has_ranks_is_still_refused() -> None:
    holed = RANKED.with_columns(rank=pl.Series([1, None, 3, 1, 2]))
    with pytest.raises(irframe.exceptions.InvalidDataError, match="null or NaN rank"):
        irframe.compare({"ranked": holed, "scored": SCORED}, QRELS, MEASURES)


def test_system_means_follow_each_runs_own_order() -> None:
    """The means plotted by ``irframe.plotting`` (one system at a time, in input order)."""
    runs = {"scored": SCORED, "ranked": RANKED, "scored_too": SCORED}
    out = system_means(runs, QRELS, MEASURES)
    assert out["system"].to_list() == ["scored", "ranked", "scored_too"]
    for row in out.iter_rows(named=True):
        own = "ranked" if row["system"] == "ranked" else "scored"
        for m in MEASURES:
            assert row[m] == pytest.approx(sum(BY_HAND[(own, m)].values()) / 2, abs=1e-12), (row["system"], m)


# SCORED's rankings by hand (ties by doc id descending), as ranks: q1 d2, d1, d3; q2 d5, d4.
SCORED_AS_RANKS = pl.DataFrame({
    "query_id": ["q1", "q1", "q1", "q2", "q2"], "doc_id": ["d2", "d1", "d3", "d5", "d4"],
    "rank": [1, 2, 3, 1, 2],
})  # fmt: skip


def test_compare_holes_follow_each_runs_own_order() -> None:
    """The judgment holes (d5 in q2, unjudged) and the delta bounds: as with the score run's
    ranking written out as ranks by hand."""
    got = irframe.compare({"ranked": RANKED, "scored": SCORED}, QRELS, MEASURES, holes=True, holes_depth=1)
    want = irframe.compare({"ranked": RANKED, "scored": SCORED_AS_RANKS}, QRELS, MEASURES, holes=True,
                           holes_depth=1)  # fmt: skip
    holes = [c for c in want.columns if c not in {"p_value", "p_adjusted", "ci_low", "ci_high"}]
    assert got.select(holes).rows() == want.select(holes).rows()
    assert any("hole" in c for c in holes)
    report = irframe.compare_report({"ranked": RANKED, "scored": SCORED}, QRELS, MEASURES, holes=True,
                                    holes_depth=1)  # fmt: skip
    table = report.holes
    assert isinstance(table, pl.DataFrame)
    unjudged = {(r["system"], r["query_id"]): r["unjudged"] for r in table.iter_rows(named=True)}
    assert unjudged == {
        ("ranked", "q1"): [],
        ("ranked", "q2"): [],
        ("scored", "q1"): [],
        ("scored", "q2"): ["d5"],
    }


def test_check_holes_follow_each_runs_own_order() -> None:
    got = irframe.check(SCORED, QRELS, baseline=RANKED, measures=["RR"], holes="report", holes_depth=1)
    want = irframe.check(
        SCORED_AS_RANKS, QRELS, baseline=RANKED, measures=["RR"], holes="report", holes_depth=1
    )
    assert got.holes.rows() == want.holes.rows()
    assert "d5" in str(got.holes.rows())
