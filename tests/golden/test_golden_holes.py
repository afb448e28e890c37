"""Judgment holes in compare and check: counts and delta bounds computed by hand on a small
case, the bounds against evaluate on qrels whose holes were judged by hand, and the gate's
three modes on a regression that only unjudged documents produce."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

import irframe
from irframe.cli import main
from irframe.exceptions import InvalidParameterError
from irframe.io import write_trec_qrels, write_trec_run

# q1 judges a (relevant) and b (not); q2 judges c (relevant).
QRELS = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"], "relevance": [1, 0, 1]})
# The baseline ranks only judged documents in q1 and one hole (d) in q2; the candidate puts
# a hole first in each query (x, y) and the relevant document second.
BASE = pl.DataFrame(
    {"query_id": ["q1", "q1", "q2", "q2"], "doc_id": ["a", "b", "c", "d"], "rank": [1, 2, 1, 2]}
)
CAND = pl.DataFrame(
    {"query_id": ["q1", "q1", "q2", "q2"], "doc_id": ["x", "a", "y", "c"], "rank": [1, 2, 1, 2]}
)


def _compare(**kwargs: object) -> pl.DataFrame:
    runs = {"base": BASE, "cand": CAND}
    return irframe.compare(runs, QRELS, ["P@1", "RR", "R@2"], holes=True, holes_depth=2, test="t", **kwargs)


def test_hole_counts_and_bounds_by_hand() -> None:
    """Holes: the candidate's x (q1) and y (q2), the baseline's d (q2): 2, 1 and 3 to judge.

    P@1: deltas -1, -1. Judged relevant, the candidate's holes make each delta 0; the
    baseline's (d) changes nothing at rank 1: each query's range [-1, 0], the mean's [-1, 0].
    RR: deltas -1/2, -1/2; the candidate's hole relevant at rank 1 gives it RR 1: [-1/2, 0].
    R@2: deltas 0, 0. q1: x relevant -> the candidate finds 2 of 2, the baseline 1 of 2:
    +1/2; q2: y relevant -> +1/2, d relevant -> the candidate 1 of 2, the baseline 2 of 2:
    -1/2. Ranges [0, 1/2] and [-1/2, 1/2]: the mean's [-1/4, 1/2].
    """
    t = _compare()
    cols = ["measure", "delta", "n_holes", "n_holes_baseline", "n_to_judge", "delta_low", "delta_high"]
    assert t.select(cols).rows() == [
        ("P@1", -1.0, 2, 1, 3, -1.0, 0.0),
        ("RR", -0.5, 2, 1, 3, -0.5, 0.0),
        ("R@2", 0.0, 2, 1, 3, -0.25, 0.5),
    ]


def test_the_high_bound_is_evaluate_on_the_candidates_holes_judged_by_hand() -> None:
    """The candidate's holes (x, y) added to the qrels as relevant: evaluate's deltas are the
    per-query highs; the baseline's (d) added: R@2's low in q2."""
    judged = pl.concat(
        [QRELS, pl.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["x", "y"], "relevance": [1, 1]})]
    )
    measures = ["P@1", "RR", "R@2"]
    cand, base = (irframe.evaluate(r, measures, judged) for r in (CAND, BASE))
    t = _compare()
    for m in measures:
        assert t.filter(pl.col("measure") == m)["delta_high"][0] == pytest.approx(cand[m][0] - base[m][0])
    with_d = pl.concat([QRELS, pl.DataFrame({"query_id": ["q2"], "doc_id": ["d"], "relevance": [1]})])
    per_q = [irframe.evaluate(r, "R@2", with_d, per_query=True)["R@2"][1] for r in (CAND, BASE)]
    assert per_q[0] - per_q[1] == -0.5  # q2's low, as the docstring above computes it


def test_the_holes_table_lists_each_systems_unjudged_documents() -> None:
    report = irframe.compare_report({"base": BASE, "cand": CAND}, QRELS, ["P@1"], holes=True, holes_depth=2)
    assert report.holes.select("system", "query_id", "n_unjudged", "unjudged", "unjudged_at").rows() == [
        ("base", "q1", 0, [], []),
        ("base", "q2", 1, ["d"], [2]),
        ("cand", "q1", 1, ["x"], [1]),
        ("cand", "q2", 1, ["y"], [1]),
    ]
    assert irframe.compare_report({"base": BASE, "cand": CAND}, QRELS, ["P@1"]).holes is None


def test_the_grade_of_a_hole_is_the_qrels_highest_by_default() -> None:
    """nDCG@1 (gain 2^g - 1) with q1's a graded 2, q2's c graded 1; current deltas -1, -1.

    Default grade 2, the candidate's holes relevant: q1, x (3) is as good as a (3): 0; q2,
    y (3) is first for the candidate (1) and raises the ideal above the baseline's c (1):
    1 - 1/3.  High: (0 + 2/3) / 2 = 1/3.  At grade 1: q1, x gives 1 of an ideal 3, the
    baseline 1: 1/3 - 1; q2, y (1) ties c (1): 0.  High: (-2/3 + 0) / 2."""
    graded = QRELS.with_columns(
        pl.when(pl.col("doc_id") == "a").then(2).otherwise("relevance").alias("relevance")
    )
    runs = {"base": BASE, "cand": CAND}
    high = irframe.compare(runs, graded, "nDCG@1", holes=True, holes_depth=2, test="t")["delta_high"][0]
    low_grade = irframe.compare(runs, graded, "nDCG@1", holes=True, holes_depth=2, holes_grade=1, test="t")
    assert high == pytest.approx((0 + 2 / 3) / 2)
    assert low_grade["delta_high"][0] == pytest.approx((-2 / 3 + 0) / 2)


def test_holes_options_are_checked() -> None:
    runs = {"base": BASE, "cand": CAND}
    with pytest.raises(InvalidParameterError, match="'holes_depth' parameter of compare"):
        irframe.compare(runs, QRELS, "P@1", holes=True, holes_depth=0)
    with pytest.raises(InvalidParameterError, match="'holes_grade' parameter of compare"):
        irframe.compare(runs, QRELS, "P@1", holes=True, holes_grade=-1)
    with pytest.raises(InvalidParameterError, match="'holes' parameter of compare must be a bool"):
        irframe.compare(runs, QRELS, "P@1", holes="yes")
    with pytest.raises(InvalidParameterError, match="'holes' parameter of check must be one of"):
        irframe.check(CAND, QRELS, baseline=BASE, measures="P@1", holes="warn")
    with pytest.raises(InvalidParameterError, match="need the qrels"):
        irframe.compare({"base": BASE.with_columns(relevance=1), "cand": CAND.with_columns(relevance=1)},
                        None, "P@1", holes=True)  # fmt: skip


# --- the gate -----------------------------------------------------------------------------
QUERIES = [f"q{i}" for i in range(1, 7)]
GATE_QRELS = pl.DataFrame({"query_id": QUERIES, "doc_id": ["rel"] * 6, "relevance": [1] * 6})
# the baseline ranks the relevant document first; the candidate an unjudged one, then it
GATE_BASE = pl.DataFrame(
    {"query_id": QUERIES * 2, "doc_id": ["rel"] * 6 + ["zzz"] * 6, "rank": [1] * 6 + [2] * 6}
)
GATE_CAND = GATE_BASE.with_columns(pl.col("rank").replace({1: 2, 2: 1}))


def test_a_drop_only_unjudged_documents_make_is_possibly_a_hole() -> None:
    """P@1 drops by 1 on all 6 queries: p = 2/64 (exact), a regression.  Judged relevant, the
    candidate's hole at rank 1 (the baseline's at rank 2: the same 6 documents) would give
    P@1 = 1 again: delta_high = 0, no drop."""
    kwargs = {"measures": "P@1", "n_moved": 0}
    ignore = irframe.check(GATE_CAND, GATE_QRELS, baseline=GATE_BASE, **kwargs)
    report = irframe.check(GATE_CAND, GATE_QRELS, baseline=GATE_BASE, holes="report", **kwargs)
    fail = irframe.check(GATE_CAND, GATE_QRELS, baseline=GATE_BASE, holes="fail", **kwargs)
    assert (ignore.passed, report.passed, fail.passed) == (False, True, False)
    row = report.comparisons.row(0, named=True)
    assert (row["p_value"], row["delta"], row["delta_low"], row["delta_high"]) == (0.03125, -1.0, -1.0, 0.0)
    assert (row["n_holes"], row["n_holes_baseline"], row["n_to_judge"], row["status"]) == (
        6,
        6,
        6,
        "possible hole",
    )
    note = (
        "P@1 -1.0000 is possibly a judgment hole (judged, it could be -1.0000 to +0.0000): judge 6 "
        "documents first (`irframe pool QRELS BASELINE CANDIDATE --depth 10 -o to_judge.tsv`)."
    )
    assert f"Note: {note}" in report.report()
    assert report.report().startswith("PASS: ")
    assert fail.report().startswith(
        "FAIL: 1 regression: P@1 -1.0000, p_adj 0.031 (possibly a judgment hole)."
    )
    assert f"Note: {note}" in fail.report()
    assert "possibly a judgment hole" not in ignore.report()
    assert fail.to_dict()["holes"]["notes"] == [note]
    assert "holes" not in ignore.to_dict()
    assert "n_holes" not in ignore.comparisons.columns


def test_a_drop_on_judged_documents_is_no_hole() -> None:
    """The candidate's first document judged non-relevant: nothing to judge, it still fails."""
    qrels = pl.concat(
        [GATE_QRELS, GATE_QRELS.with_columns(doc_id=pl.lit("zzz"), relevance=pl.lit(0, pl.Int64))]
    )
    result = irframe.check(GATE_CAND, qrels, baseline=GATE_BASE, measures="P@1", holes="report", n_moved=0)
    assert not result.passed
    row = result.comparisons.row(0, named=True)
    assert (row["n_to_judge"], row["delta_low"], row["delta_high"], row["possible_hole"]) == (
        0,
        -1.0,
        -1.0,
        False,
    )


def test_a_snapshot_baseline_fills_the_candidates_holes_only() -> None:
    snap = irframe.snapshot(GATE_BASE, GATE_QRELS, ["P@1"])
    result = irframe.check(GATE_CAND, GATE_QRELS, baseline=snap, holes="report", n_moved=0)
    assert result.passed
    row = result.comparisons.row(0, named=True)
    assert (row["n_holes"], row["n_holes_baseline"], row["delta_high"]) == (6, 0, 0.0)
    assert result.pool_command == "irframe pool QRELS CANDIDATE --depth 10 -o to_judge.tsv"
    assert result.holes["system"].unique().to_list() == ["candidate"]


def test_cli_holes_fail_exits_1_and_report_passes_with_the_files_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    qrels, base, cand = tmp_path / "qrels.txt", tmp_path / "base.run", tmp_path / "cand.run"
    write_trec_qrels(GATE_QRELS, qrels)
    for frame, path in ((GATE_BASE, base), (GATE_CAND, cand)):
        write_trec_run(frame.with_columns(score=1.0 / pl.col("rank")), path)
    args = [
        "check",
        str(qrels),
        str(cand),
        "--baseline",
        str(base),
        "-m",
        "P@1",
        "--moved",
        "0",
        "--no-config",
    ]
    assert main(args) == 1
    assert "judgment hole" not in capsys.readouterr().out
    assert main([*args, "--holes", "fail"]) == 1
    assert "possibly a judgment hole" in capsys.readouterr().out
    assert main([*args, "--holes", "report", "--holes-depth", "1"]) == 0
    out = capsys.readouterr().out
    assert f"(`irframe pool {qrels} {base} {cand} --depth 1 -o to_judge.tsv`)" in out


def test_the_demo_ends_with_the_next_step_of_the_loop(capsys: pytest.CaptureFixture[str]) -> None:
    from irframe.datasets import golden

    assert main(["demo"]) == 0
    step = capsys.readouterr().out.split("The next step of the loop")[1]
    g = golden()
    p = irframe.pool(g.runs.filter(pl.col("system") == "hybrid"), g.qrels, depth=10)
    assert f"{p.to_judge.height} pairs to judge, most useful first; the first 5:" in step
    rows = [line.split()[:2] for line in step.strip().splitlines()[-5:]]
    assert rows == [list(r) for r in p.to_judge.head(5).select("query_id", "doc_id").rows()]
