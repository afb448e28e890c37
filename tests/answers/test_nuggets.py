"""irframe.answers.nugget_scores: hand-computed cases, nuggetizer's scoring on generated
assignments (oracle), the policies for what is missing, and the errors."""

from __future__ import annotations

import random
import sys

import polars as pl
import pytest

from _support.helpers import CONSTRUCTORS, SHARED_DIR, to_polars
from irframe.answers import nugget_scores
from irframe.exceptions import (
    ColumnNotFoundError,
    DuplicateRowsError,
    InvalidDataError,
    MissingQueriesError,
)

NUGGETIZER = SHARED_DIR / "tools" / "nuggetizer"

NUGGETS = {
    "query_id": ["q1", "q1", "q1", "q1", "q2", "q2"],
    "nugget_id": ["n1", "n2", "n3", "n4", "n1", "n2"],
    "importance": ["vital", "vital", "okay", "okay", "okay", "okay"],
}
ASSIGNMENTS = {
    "system": ["a", "a", "a", "a", "a", "a", "b", "b"],
    "query_id": ["q1", "q1", "q1", "q1", "q2", "q2", "q1", "q1"],
    "nugget_id": ["n1", "n2", "n3", "n4", "n1", "n2", "n1", "n3"],
    "assignment": ["support", "partial_support", "not_support", "partial_support", "support",
                   "not_support", "partial_support", "support"],
}  # fmt: skip


def _rows(df: object) -> dict[tuple[str, ...], dict[str, object]]:
    out = to_polars(df)
    keys = [c for c in ("system", "query_id") if c in out.columns]
    return {tuple(r[k] for k in keys): r for r in out.iter_rows(named=True)}


def test_hand_computed_per_query() -> None:
    got = _rows(nugget_scores(pl.DataFrame(ASSIGNMENTS), pl.DataFrame(NUGGETS), per_query=True))
    # a/q1: vital n1 support (1), n2 partial (0.5); okay n3 not (0), n4 partial (0.5)
    a1 = got[("a", "q1")]
    assert a1["V_strict"] == 1 / 2
    assert a1["V"] == 1.5 / 2
    assert a1["A_strict"] == 1 / 4
    assert a1["A"] == 2.0 / 4
    assert a1["W"] == pytest.approx((1 * 1 + 1 * 0.5 + 0.5 * 0 + 0.5 * 0.5) / (1 + 1 + 0.5 + 0.5))
    assert (a1["n_nuggets"], a1["n_vital"], a1["n_unassigned"]) == (4, 2, 0)
    # a/q2: no vital nugget -> V = V_strict = 0 (nuggetizer); A over n1 support, n2 not
    a2 = got[("a", "q2")]
    assert (a2["V_strict"], a2["V"], a2["A_strict"], a2["A"], a2["W"]) == (0.0, 0.0, 0.5, 0.5, 0.5)
    # b/q1: n2 and n4 unassigned -> not_support, counted
    b1 = got[("b", "q1")]
    assert (b1["V_strict"], b1["V"], b1["A_strict"], b1["A"]) == (0.0, 0.25, 0.25, 1.5 / 4)
    assert b1["W"] == pytest.approx((0.5 + 0.5 * 1) / 3)
    assert b1["n_unassigned"] == 2
    # b never answered q2: missing="zero" scores it 0 on every nugget
    b2 = got[("b", "q2")]
    assert b2["missing"]
    assert b2["A"] == 0.0
    assert b2["n_unassigned"] == 2


def test_hand_computed_means_and_missing_policies() -> None:
    asg, nug = pl.DataFrame(ASSIGNMENTS), pl.DataFrame(NUGGETS)
    zero = _rows(nugget_scores(asg, nug))
    assert zero[("b",)]["A"] == pytest.approx((1.5 / 4 + 0.0) / 2)
    assert (zero[("b",)]["n_queries"], zero[("b",)]["n_missing"], zero[("b",)]["n_unassigned"]) == (2, 1, 4)
    assert zero[("a",)]["V"] == pytest.approx((0.75 + 0.0) / 2)
    assert zero[("a",)]["n_no_vital"] == 1
    drop = _rows(nugget_scores(asg, nug, missing="drop"))
    assert drop[("b",)]["A"] == 1.5 / 4
    assert drop[("b",)]["n_queries"] == 1
    assert drop[("b",)]["n_missing"] == 1
    with pytest.raises(MissingQueriesError, match=r"system 'b', query_id 'q2'.*missing='zero'"):
        nugget_scores(asg, nug, missing="error")
    null = _rows(nugget_scores(asg, nug, no_vital="null"))
    assert null[("a",)]["V"] == 0.75
    assert null[("a",)]["n_no_vital"] == 1


@pytest.mark.parametrize("ctor", ["polars", "polars-lazy", "pandas", "pandas-pyarrow"])
def test_frame_types_come_back(ctor: str) -> None:
    make = CONSTRUCTORS[ctor]
    out = nugget_scores(make(ASSIGNMENTS), make(NUGGETS), per_query=True)
    assert type(out).__module__.split(".")[0] == ("polars" if ctor.startswith("polars") else "pandas")
    assert to_polars(out).height == 4


def test_no_system_column_and_judges() -> None:
    one = {k: v[:6] for k, v in ASSIGNMENTS.items() if k != "system"}
    got = to_polars(nugget_scores(pl.DataFrame(one), pl.DataFrame(NUGGETS)))
    assert got.columns[0] == "V_strict"
    assert got["A"][0] == pytest.approx((0.5 + 0.5) / 2)
    judged = pl.concat([
        pl.DataFrame(one).with_columns(pl.lit("human").alias("judge")),
        pl.DataFrame(one).with_columns(pl.lit("llm").alias("judge"), pl.lit("support").alias("assignment")),
    ])  # fmt: skip
    by_judge = to_polars(nugget_scores(judged, pl.DataFrame(NUGGETS)))
    assert by_judge["judge"].to_list() == ["human", "llm"]
    assert by_judge["A"].to_list() == [0.5, 1.0]


def test_renamed_columns_and_preset() -> None:
    asg = pl.DataFrame(ASSIGNMENTS).rename({"system": "run_id", "query_id": "topic_id"})
    nug = pl.DataFrame(NUGGETS).rename({"query_id": "topic_id"})
    got = to_polars(nugget_scores(asg, nug, columns="trec_rag", per_query=True))
    assert got.columns[:2] == ["run_id", "topic_id"]
    assert got.height == 4
    with pytest.raises(ColumnNotFoundError, match=r"did you mean columns=\{'query': 'topic_id'\}"):
        nugget_scores(asg.rename({"run_id": "system"}), nug)
    fixed = nugget_scores(asg.rename({"run_id": "system"}), nug, columns={"query": "topic_id"})
    assert (
        to_polars(fixed)["A"].to_list()
        == to_polars(got.group_by("run_id").agg(pl.col("A").mean()).sort("run_id"))["A"].to_list()
    )


def test_errors_name_the_row() -> None:
    nug = pl.DataFrame(NUGGETS)
    bad = pl.DataFrame(ASSIGNMENTS).with_columns(pl.col("assignment").replace({"not_support": "nope"}))
    with pytest.raises(
        InvalidDataError, match=r"unknown label.*'nope' at row 2 .*system 'a', query_id 'q1', nugget_id 'n3'"
    ):
        nugget_scores(bad, nug)
    typo = pl.DataFrame(ASSIGNMENTS).with_columns(pl.col("assignment").replace({"not_support": "not_suport"}))
    with pytest.raises(InvalidDataError, match="did you mean 'not_support'"):
        nugget_scores(typo, nug)
    stray = pl.DataFrame(ASSIGNMENTS).with_columns(pl.col("nugget_id").replace({"n4": "n9"}))
    with pytest.raises(InvalidDataError, match=r"nugget_id 'n9'"):
        nugget_scores(stray, nug)
    twice = pl.concat(
        [
            pl.DataFrame(ASSIGNMENTS),
            pl.DataFrame(ASSIGNMENTS)[:1].with_columns(pl.lit("not_support").alias("assignment")),
        ]
    )
    with pytest.raises(DuplicateRowsError, match="with different values"):
        nugget_scores(twice, nug)
    with pytest.raises(InvalidDataError, match=r"unknown label.*'critical'"):
        nugget_scores(pl.DataFrame(ASSIGNMENTS), nug.with_columns(pl.lit("critical").alias("importance")))


def test_queries_without_nuggets_policy() -> None:
    extra = pl.DataFrame(
        {"system": ["a"], "query_id": ["q9"], "nugget_id": ["n1"], "assignment": ["support"]}
    )
    asg = pl.concat([pl.DataFrame(ASSIGNMENTS), extra])
    with pytest.raises(InvalidDataError, match=r"query_id 'q9'.*no_nuggets='drop'"):
        nugget_scores(asg, pl.DataFrame(NUGGETS))
    # the hint followed: the answer is left out and counted, the numbers are the ones without it
    got = _rows(nugget_scores(asg, pl.DataFrame(NUGGETS), no_nuggets="drop"))
    base = _rows(nugget_scores(pl.DataFrame(ASSIGNMENTS), pl.DataFrame(NUGGETS)))
    assert got[("a",)]["n_without_nuggets"] == 1
    assert got[("b",)]["n_without_nuggets"] == 0
    assert got[("a",)]["A"] == base[("a",)]["A"]


def _generated(seed: int) -> tuple[pl.DataFrame, pl.DataFrame, list[dict[str, object]]]:
    """Random nuggets and assignments, and the same as nuggetizer's records."""
    rng = random.Random(seed)
    nuggets, assigned, records = [], [], []
    for q in range(rng.randint(1, 12)):
        qn = [(f"n{i}", rng.choice(["vital", "okay"])) for i in range(rng.randint(1, 9))]
        nuggets += [(f"q{q}", n, imp) for n, imp in qn]
        labels = [rng.choice(["support", "partial_support", "not_support"]) for _ in qn]
        assigned += [("s", f"q{q}", n, lab) for (n, _), lab in zip(qn, labels, strict=True)]
        records.append({"qid": f"q{q}", "nuggets": [
            {"text": n, "importance": imp, "assignment": lab}
            for (n, imp), lab in zip(qn, labels, strict=True)
        ]})  # fmt: skip
    nug = pl.DataFrame(nuggets, schema=["query_id", "nugget_id", "importance"], orient="row")
    asg = pl.DataFrame(assigned, schema=["system", "query_id", "nugget_id", "assignment"], orient="row")
    return asg, nug, records


@pytest.mark.oracle
def test_equal_to_nuggetizer() -> None:
    if not NUGGETIZER.is_dir():
        pytest.skip(f"needs nuggetizer's scoring module in {NUGGETIZER} (../shared/tools/nuggetizer)")
    sys.path.insert(0, str(NUGGETIZER))
    try:
        from nuggetizer.core.metrics import calculate_global_metrics, calculate_nugget_scores
    finally:
        sys.path.remove(str(NUGGETIZER))
    names = {
        "V_strict": "strict_vital_score",
        "V": "vital_score",
        "A_strict": "strict_all_score",
        "A": "all_score",
    }
    for seed in range(40):
        asg, nug, records = _generated(seed)
        per_query = _rows(nugget_scores(asg, nug, per_query=True))
        for record in records:
            want = calculate_nugget_scores(str(record["qid"]), record["nuggets"])  # type: ignore[arg-type]
            for ours, theirs in names.items():
                assert per_query[("s", record["qid"])][ours] == pytest.approx(
                    getattr(want, theirs), abs=1e-12
                )
        means = to_polars(nugget_scores(asg, nug)).row(0, named=True)
        want_all = calculate_global_metrics(records)
        for ours, theirs in names.items():
            assert means[ours] == pytest.approx(want_all[theirs], abs=1e-12)
