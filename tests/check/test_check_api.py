"""irframe.check / irframe.snapshot on the bundled golden set, checked against evaluate and compare.

Expected values come from outside the check: per-query values from ``irframe.evaluate``
(tested against trec_eval elsewhere), p-values from ``irframe.compare``, and hand-made
degradations whose effect is known (a query whose documents are replaced by unjudged
ones scores 0).
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

import irframe
from irframe.datasets import golden
from irframe.exceptions import JudgmentsChangedError
from irframe.testing import assert_no_regression

G = golden()
MEASURES = ["nDCG@10", "RR", "R@100"]
DEGRADED = ["q03", "q07", "q12", "q15", "q20", "q22", "q26", "q30", "q33", "q38"]


def run_of(system: str) -> pl.DataFrame:
    return G.runs.filter(pl.col("system") == system).drop("system")


def degraded(run: pl.DataFrame, queries: list[str]) -> pl.DataFrame:
    """The same run with the documents of ``queries`` replaced by unjudged ones."""
    junk = pl.format("junk-{}", pl.col("doc_id"))
    return run.with_columns(
        pl.when(pl.col("query_id").is_in(queries)).then(junk).otherwise(pl.col("doc_id")).alias("doc_id")
    )


def per_query(run: pl.DataFrame, qrels: pl.DataFrame, measure: str) -> dict[str, float]:
    pq = irframe.evaluate(run, [measure], qrels, per_query=True)
    return dict(pq.select("query_id", measure).iter_rows())


def test_degraded_run_fails_and_names_the_degraded_queries() -> None:
    hybrid = run_of("hybrid")
    result = irframe.check(degraded(hybrid, DEGRADED), G.qrels, baseline=hybrid, measures=MEASURES)
    assert not result.passed
    assert result.exit_code == 1
    assert "nDCG@10" in result.regressions["measure"].to_list()
    # the queries that moved are exactly the degraded ones that scored above 0, each losing it all
    before = per_query(hybrid, G.qrels, "nDCG@10")
    want = {q: -before[q] for q in DEGRADED if before[q] > 0}
    moved = result.moved
    assert dict(moved.select("query_id", "delta").iter_rows()) == pytest.approx(want)
    assert moved["value"].to_list() == [0.0] * len(want)
    report = result.report()
    assert report.startswith("FAIL: ")
    for q in want:
        assert q in report
    # the overall delta is the mean over the 40 queries of those losses
    row = result.comparisons.filter((pl.col("group") == "all") & (pl.col("measure") == "nDCG@10"))
    assert row["delta"][0] == pytest.approx(sum(want.values()) / 40)
    assert row["losses"][0] == len(want)
    assert row["ties"][0] == 40 - len(want)


def test_identical_run_passes() -> None:
    hybrid = run_of("hybrid")
    result = irframe.check(hybrid, G.qrels, baseline=hybrid)
    assert result.passed
    assert result.exit_code == 0
    assert result.regressions.height == 0
    assert result.comparisons["delta"].to_list() == [0.0, 0.0, 0.0]
    assert result.moved.height == 0
    assert result.report().startswith(
        "PASS: no regression on 3 measures (nDCG@10, RR, R@100) over 40 queries."
    )


@pytest.mark.parametrize(("candidate", "passed"), [("hybrid", True), ("dense", False)])
def test_snapshot_and_run_baselines_agree(candidate: str, passed: bool, tmp_path: Path) -> None:
    bm25 = run_of("bm25")
    path = tmp_path / "bm25.snapshot.json"
    irframe.snapshot(bm25, G.qrels, MEASURES, path=path)
    from_run = irframe.check(run_of(candidate), G.qrels, baseline=bm25, measures=MEASURES)
    from_file = irframe.check(run_of(candidate), G.qrels, baseline=path, measures=MEASURES)
    from_object = irframe.check(run_of(candidate), G.qrels, baseline=irframe.read_snapshot(path))
    assert from_run.passed is from_file.passed is from_object.passed is passed
    assert from_file.baseline_kind == "snapshot"
    for other in (from_file, from_object):
        assert other.comparisons.drop("note").equals(from_run.comparisons.drop("note"))
        assert other.moved.select("query_id", "delta").equals(from_run.moved.select("query_id", "delta"))


def test_statistics_match_irframe_compare() -> None:
    """Overall deltas, CIs, p-values and W/T/L are those of irframe.compare on the same pair."""
    runs = G.runs.filter(pl.col("system").is_in(["bm25", "dense"]))
    table = irframe.compare(runs, G.qrels, MEASURES, baseline="bm25", correction="none")
    result = irframe.check(run_of("dense"), G.qrels, baseline=run_of("bm25"), measures=MEASURES)
    mine = result.comparisons.filter(pl.col("group") == "all")
    cols = ["measure", "delta", "ci_low", "ci_high", "p_value", "wins", "ties", "losses", "n_queries"]
    assert mine["measure"].to_list() == table["measure"].to_list() == MEASURES
    for col in cols[1:]:
        assert mine[col].to_list() == pytest.approx(table[col].to_list()), col


def _changed_qrels() -> pl.DataFrame:
    """q03 regraded, q05 removed, q41 added."""
    q = G.qrels
    regraded = q.with_columns(
        pl.when((pl.col("query_id") == "q03") & (pl.col("relevance") == 3))
        .then(1)
        .otherwise(pl.col("relevance"))
        .alias("relevance")
    )
    added = pl.DataFrame({"query_id": ["q41"], "doc_id": ["kb001"], "relevance": [2]})
    return pl.concat([regraded.filter(pl.col("query_id") != "q05"), added])


def test_changed_judgments_are_refused_and_named() -> None:
    snap = irframe.snapshot(run_of("bm25"), G.qrels, MEASURES)
    with pytest.raises(JudgmentsChangedError) as info:
        irframe.check(run_of("hybrid"), _changed_qrels(), baseline=snap)
    msg = str(info.value)
    assert "1 added (q41)" in msg
    assert "1 removed (q05)" in msg
    assert "1 regraded (q03)" in msg
    assert "allow_changed_qrels" in msg


def test_changed_judgments_allowed_compare_the_unchanged_queries() -> None:
    new_qrels = _changed_qrels()
    snap = irframe.snapshot(run_of("bm25"), G.qrels, MEASURES)
    result = irframe.check(run_of("hybrid"), new_qrels, baseline=snap, allow_changed_qrels=True)
    assert result.left_out == ["q03", "q05", "q41"]
    assert any("3 queries left out" in n for n in result.notes)
    assert "3 queries left out" in result.report()
    # expected: bm25 on the old judgments vs hybrid on the new, over the 38 unchanged queries
    old = per_query(run_of("bm25"), G.qrels, "nDCG@10")
    new = per_query(run_of("hybrid"), new_qrels, "nDCG@10")
    kept = [q for q in old if q not in ("q03", "q05", "q41")]
    assert len(kept) == 38
    row = result.comparisons.filter((pl.col("group") == "all") & (pl.col("measure") == "nDCG@10"))
    assert row["n_queries"][0] == 38
    assert row["delta"][0] == pytest.approx(sum(new[q] - old[q] for q in kept) / 38)


def test_a_run_baseline_is_evaluated_again_on_changed_judgments() -> None:
    new_qrels = _changed_qrels()
    result = irframe.check(run_of("hybrid"), new_qrels, baseline=run_of("bm25"))
    assert result.left_out == []
    old = per_query(run_of("bm25"), new_qrels, "nDCG@10")
    new = per_query(run_of("hybrid"), new_qrels, "nDCG@10")
    judged = [q for q in new if new[q] is not None and old[q] is not None]
    row = result.comparisons.filter((pl.col("group") == "all") & (pl.col("measure") == "nDCG@10"))
    assert row["n_queries"][0] == len(judged)
    assert row["delta"][0] == pytest.approx(sum(new[q] - old[q] for q in judged) / len(judged))


def _segment_deltas(candidate: str, baseline: str) -> dict[tuple[str, str], float]:
    """(group, measure) -> mean delta, from evaluate's per-query values and the queries table."""
    seg = dict(G.queries.select("query_id", "segment").iter_rows())
    out: dict[tuple[str, str], float] = {}
    for m in MEASURES:
        a, b = per_query(run_of(candidate), G.qrels, m), per_query(run_of(baseline), G.qrels, m)
        deltas = {q: a[q] - b[q] for q in a}
        out[("all", m)] = sum(deltas.values()) / len(deltas)
        for s in set(seg.values()):
            ds = [d for q, d in deltas.items() if seg[q] == s]
            out[(f"segment={s}", m)] = sum(ds) / len(ds)
    return out


@pytest.mark.parametrize("max_drop", [0.0, 0.05, 0.1, 0.5])
def test_any_drop_fails_on_every_row_beyond_max_drop(max_drop: float) -> None:
    result = irframe.check(
        run_of("hybrid"), G.qrels, baseline=run_of("bm25"), queries=G.queries, by="segment",
        fail_on="any-drop", max_drop=max_drop,
    )  # fmt: skip
    want = {k for k, d in _segment_deltas("hybrid", "bm25").items() if d < -max_drop - 1e-12}
    got = set(result.regressions.select("group", "measure").iter_rows())
    assert got == want
    assert result.passed is (not want)


def test_significant_mode_needs_the_corrected_p_value() -> None:
    # hybrid loses on long-tail queries, but not significantly: passes by default
    result = irframe.check(
        run_of("hybrid"), G.qrels, baseline=run_of("bm25"), queries=G.queries, by="segment"
    )
    assert result.passed
    rows = result.comparisons
    drops = rows.filter(pl.col("delta") < 0)
    assert drops.height > 0
    assert (drops["p_adjusted"] >= 0.05).all()
    # with no correction and a lax alpha, the same drops stay below significance only if p >= alpha
    lax = irframe.check(
        run_of("hybrid"), G.qrels, baseline=run_of("bm25"), queries=G.queries, by="segment",
        correction="none", alpha=0.5,
    )  # fmt: skip
    expected = lax.comparisons.filter((pl.col("delta") < 0) & (pl.col("p_value") < 0.5))
    assert set(lax.regressions.select("group", "measure").iter_rows()) == set(
        expected.select("group", "measure").iter_rows()
    )


def test_markdown_and_dict() -> None:
    result = irframe.check(run_of("dense"), G.qrels, baseline=run_of("bm25"), queries=G.queries)
    md = result.to_markdown()
    assert md.startswith("### ❌ irframe check: FAIL: 1 regression: R@100 ")
    assert "| all | R@100 | 0.8438 | 0.6646 | -0.1792▼ |" in md
    assert "<details><summary>Queries that moved most on R@100" in md
    assert "| q02 | track my order |" in md
    d = result.to_dict()
    assert d["passed"] is False
    assert [r["measure"] for r in d["comparisons"] if r["regression"]] == ["R@100"]
    assert d["moved"][0]["query_id"] in {r["query_id"] for r in d["moved"]}


def test_pandas_in_pandas_out() -> None:
    pd = pytest.importorskip("pandas")
    result = irframe.check(
        run_of("dense").to_pandas(), G.qrels.to_pandas(), baseline=run_of("bm25").to_pandas()
    )
    assert isinstance(result.regressions, pd.DataFrame)
    assert result.regressions["measure"].tolist() == ["R@100"]


def test_assert_no_regression() -> None:
    assert_no_regression(run_of("hybrid"), G.qrels, baseline=run_of("bm25"))
    with pytest.raises(AssertionError) as info:
        assert_no_regression(run_of("dense"), G.qrels, baseline=run_of("bm25"), measures=["R@100"])
    text = str(info.value)
    assert text.startswith("FAIL: 1 regression: R@100 -0.1792")
    assert "Queries that moved most on R@100" in text


def test_bad_parameters_name_themselves() -> None:
    hybrid = run_of("hybrid")
    with pytest.raises(irframe.IrFrameError, match="'fail_on' parameter of check"):
        irframe.check(hybrid, G.qrels, baseline=hybrid, fail_on="sometimes")  # type: ignore[arg-type]
    with pytest.raises(irframe.IrFrameError, match="'max_drop' parameter of check"):
        irframe.check(hybrid, G.qrels, baseline=hybrid, max_drop=-1)
    with pytest.raises(irframe.IrFrameError, match="holds 3 systems"):
        irframe.check(G.runs, G.qrels, baseline=hybrid)
    with pytest.raises(irframe.IrFrameError, match="did you mean query_col"):
        irframe.check(hybrid, G.qrels, baseline=hybrid, querycol="qid")
    snap = irframe.snapshot(hybrid, G.qrels, ["RR"])
    with pytest.raises(irframe.IrFrameError, match="has no values for nDCG@10"):
        irframe.check(hybrid, G.qrels, baseline=snap, measures="nDCG@10")
