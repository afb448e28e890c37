"""irframe.check is a decision on irframe.compare's table: one engine pass per run, the
options built once, the caller's frames evaluated as given, and a snapshot's values
entering compare's pairing as an evaluated run's do.

Expected values come from outside the gate: ``irframe.compare`` on the stacked runs (its
own evaluation of both runs in one pass), ``irframe.evaluate`` per query, and rankings
written out by hand.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import polars as pl
import pytest

import irframe
from irframe._compare import (
    LONG,
    Settings,
    compare_one,
    correct_family,
    group_pairs,
    long_values,
    pair_values,
)
from irframe._engine import compose as engine  # (every evaluation is composed there)
from irframe._input.options import Options
from irframe.datasets import golden

G = golden()
MEASURES = ["nDCG@10", "RR", "R@100"]
Q = "query_id"


def run_of(system: str) -> pl.DataFrame:
    return G.runs.filter(pl.col("system") == system).drop("system")


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Engine passes (in-memory input: ``collect_in_memory``; a lazy run: ``build``),
    ``Options.build`` calls and pandas conversions while the test runs."""
    counts: Counter[str] = Counter()

    def counted(name: str, real: Any) -> Any:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            counts[name] += 1
            return real(*args, **kwargs)

        return wrapper

    monkeypatch.setattr(engine, "build", counted("lazy", engine.build))
    monkeypatch.setattr(engine, "collect_in_memory", counted("in_memory", engine.collect_in_memory))
    monkeypatch.setattr(Options, "build", classmethod(counted("options", Options.build.__func__)))  # type: ignore[attr-defined]
    monkeypatch.setattr(pl, "from_pandas", counted("from_pandas", pl.from_pandas))
    return counts


def test_a_run_baseline_is_one_in_memory_pass_per_run(calls: Counter[str]) -> None:
    irframe.check(run_of("hybrid"), G.qrels, baseline=run_of("bm25"), queries=G.queries, by="segment")
    assert calls == {"in_memory": 2, "options": 1}


def test_a_snapshot_baseline_evaluates_the_candidate_only(calls: Counter[str]) -> None:
    snap = irframe.snapshot(run_of("bm25"), G.qrels, MEASURES)
    assert calls == {"in_memory": 1, "options": 1}
    calls.clear()
    irframe.check(run_of("hybrid"), G.qrels, baseline=snap)
    assert calls == {"in_memory": 1, "options": 1}


def test_lazy_runs_stay_lazy(calls: Counter[str]) -> None:
    result = irframe.check(run_of("dense").lazy(), G.qrels.lazy(), baseline=run_of("bm25").lazy())
    assert calls == {"lazy": 2, "options": 1}
    assert isinstance(result.comparisons, pl.LazyFrame)


def test_pandas_frames_are_converted_once(calls: Counter[str]) -> None:
    pytest.importorskip("pandas")
    runs = (run_of("dense").to_pandas(), G.qrels.to_pandas(), run_of("bm25").to_pandas())
    irframe.check(runs[0], runs[1], baseline=runs[2], queries=G.queries.to_pandas())
    assert calls == {"from_pandas": 4, "in_memory": 2, "options": 1}


def test_snapshot_values_enter_compare_like_an_evaluated_run() -> None:
    """compare's own steps on the long values of a snapshot (bm25) and an evaluated run
    (dense) give irframe.compare's table of the two runs, number for number."""
    snap = irframe.snapshot(run_of("bm25"), G.qrels, MEASURES)
    dense = irframe.evaluate(run_of("dense"), MEASURES, G.qrels, per_query=True)
    long = pl.concat(
        [long_values("bm25", snap.values, MEASURES, "query_id"), long_values("dense", dense, MEASURES, Q)]
    )
    settings = Settings(test="randomization", correction="holm", by=[], alpha=0.05, n_permutations=10_000,
                        n_bootstrap=10_000, ci=0.95, ci_method="percentile", seed=0,
                        missing="zero")  # fmt: skip
    pairs = pair_values(long, [("dense", "bm25")], [Q])
    groups = group_pairs(pairs, ["bm25", "dense"], MEASURES, [])
    records = [compare_one(row, [], settings) for row in groups.iter_rows(named=True)]
    correct_family(records, settings)
    want = irframe.compare(G.runs.filter(pl.col("system") != "hybrid"), G.qrels, MEASURES, baseline="bm25")
    cols = ["measure", "mean", "baseline_mean", "delta", "ci_low", "ci_high", "p_value", "p_adjusted"]
    cols += ["wins", "ties", "losses", "n_queries", "family_size"]
    assert pl.DataFrame(records).select(cols).equals(want.select(cols))
    assert groups[LONG.measure].to_list() == MEASURES


def test_check_table_is_compare_table_number_for_number() -> None:
    """The overall rows of check are compare's comparisons (the correction over the 3 rows)."""
    result = irframe.check(run_of("dense"), G.qrels, baseline=run_of("bm25"), measures=MEASURES)
    want = irframe.compare(G.runs.filter(pl.col("system") != "hybrid"), G.qrels, MEASURES, baseline="bm25")
    cols = ["measure", "delta", "ci_low", "ci_high", "p_value", "p_adjusted", "significant", "wins", "ties"]
    cols += ["losses", "n_queries"]
    assert result.comparisons.select(cols).equals(want.select(cols))
    for col in ("mean", "baseline_mean"):  # polars' mean (check's) vs numpy's (compare's): last bit
        assert result.comparisons[col].to_list() == pytest.approx(want[col].to_list(), rel=1e-15)


def test_a_rank_column_against_a_score_column() -> None:
    """Each run is ranked by its own column: a candidate with ranks (here the reverse of its
    scores) checked against a baseline with scores only."""
    qrels = pl.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["a", "b"], "relevance": [2, 1]})
    base = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "x", "b"], "score": [2.0, 1.0, 1.0]})
    cand = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "x", "b"], "rank": [2, 1, 1]})
    result = irframe.check(cand, qrels, baseline=base, measures="RR", docs_top=2)
    # q1: a (relevant) at rank 1 in the baseline, at rank 2 in the candidate; q2: b first in both
    row = result.comparisons.row(0, named=True)
    assert (row["baseline_mean"], row["mean"], row["delta"]) == (1.0, 0.75, -0.25)
    a, x = {"doc_id": "a", "grade": 2}, {"doc_id": "x", "grade": None}
    assert result.moved.select("query_id", "baseline", "value", "baseline_docs", "candidate_docs").rows() == [
        ("q1", 1.0, 0.5, [a, x], [x, a])
    ]
    assert "a (2), x (?)" in result.report()  # the report shows them as text


def test_runs_that_share_no_judged_query_are_refused_with_the_roles() -> None:
    early = run_of("bm25").filter(pl.col("query_id") <= "q20")
    late = run_of("dense").filter(pl.col("query_id") > "q20")
    with pytest.raises(irframe.IrFrameError, match="'baseline' and 'candidate' of check share no judged"):
        irframe.check(late, G.qrels, baseline=early, missing="drop")
    snap = irframe.snapshot(early, G.qrels, MEASURES, missing="drop")
    with pytest.raises(irframe.IrFrameError, match=r"'baseline' has 20 .* 'candidate' has 20"):
        irframe.check(late, G.qrels, baseline=snap)
