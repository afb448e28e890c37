"""compare() and moved() on bad input: disjoint systems, bad parameters, no internal names in messages."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import polars as pl
import pytest

from irframe._compare import compare, compare_report, moved, system_means
from irframe.exceptions import IrFrameError
from irframe.stats import MAX_RESAMPLES, bootstrap_ci, paired_test, randomization_test

QRELS = pl.DataFrame({"query_id": ["q1", "q2", "q3", "q4"], "doc_id": ["r"] * 4, "relevance": [1] * 4})


def run(queries: list[str], at: int = 1) -> pl.DataFrame:
    """The relevant doc 'r' at rank ``at`` (filler 'f' at the other of ranks 1-2) for each query."""
    rows = [(q, d, k) for q in queries for d, k in (("r", at), ("f", 3 - at))]
    return pl.DataFrame(rows, schema=["query_id", "doc_id", "rank"], orient="row")


A = run(["q1", "q2", "q3", "q4"])
B = run(["q1", "q2", "q3", "q4"], at=2)
FIRST_HALF = run(["q1", "q2"])
SECOND_HALF = run(["q3", "q4"], at=2)


# --- systems that share no judged query ------------------------------------------------
@pytest.mark.parametrize("missing", ["zero", "drop", "error"])
def test_disjoint_systems_raise_naming_the_systems_and_the_query_column(missing: str) -> None:
    with pytest.raises(IrFrameError) as info:
        compare({"left": FIRST_HALF, "right": SECOND_HALF}, QRELS, ["RR"], missing=missing)  # type: ignore[arg-type]
    text = str(info.value)
    assert "'left'" in text
    assert "'right'" in text
    assert "share no judged query" in text
    assert "'query_id'" in text
    assert "__ir" not in text


def test_disjoint_stacked_systems_use_the_callers_column_names() -> None:
    stacked = pl.concat(
        [FIRST_HALF.with_columns(engine=pl.lit("old")), SECOND_HALF.with_columns(engine=pl.lit("new"))]
    ).rename({"query_id": "qid"})
    with pytest.raises(IrFrameError, match="'qid'") as info:
        compare(stacked, QRELS.rename({"query_id": "qid"}), ["RR"], system_col="engine", query_col="qid")
    assert "'old'" in str(info.value)
    assert "'new'" in str(info.value)


def test_overlap_only_on_unjudged_queries_is_no_overlap() -> None:
    # both answer q9, which has no judgments; the judged queries are disjoint
    left = pl.concat([FIRST_HALF, run(["q9"])])
    right = pl.concat([SECOND_HALF, run(["q9"])])
    with pytest.raises(IrFrameError, match="share no judged query"):
        compare({"left": left, "right": right}, QRELS, ["RR"], missing="drop")


def test_one_disjoint_system_among_three_is_named() -> None:
    runs = {"a": A, "b": B, "c": run(["q7"])}
    with pytest.raises(IrFrameError, match="'a' and 'c'"):
        compare(runs, QRELS, ["RR"])
    with pytest.raises(IrFrameError, match="'a' and 'c'"):
        moved(runs, QRELS, "RR")
    # without 'c' the two others still compare: 4 paired queries
    assert compare({"a": A, "b": B}, QRELS, ["RR"]).item(0, "n_queries") == 4


def test_partial_overlap_is_fine() -> None:
    t = compare({"a": A, "half": FIRST_HALF}, QRELS, ["RR"], missing="drop")
    assert t.item(0, "n_queries") == 2


def test_system_means_of_disjoint_systems_are_each_runs_own() -> None:
    # one system at a time: RR 1 on q1, q2 and 0 on the missing q3, q4 -> 0.5; the other 1/2 * 2 / 4
    means = system_means({"left": FIRST_HALF, "right": SECOND_HALF}, QRELS, ["RR"])
    assert means.select("system", "RR").rows() == [("left", 0.5), ("right", 0.25)]


# --- parameters -------------------------------------------------------------------------
RUNS = {"a": A, "b": B}


@pytest.mark.parametrize("seed", [-1, True, 1.5, "0"])
def test_bad_seeds_are_refused_naming_seed(seed: object) -> None:
    with pytest.raises(IrFrameError, match="'seed' parameter of compare"):
        compare(RUNS, QRELS, ["RR"], seed=seed)  # type: ignore[arg-type]


def test_numpy_int_seed_is_an_int_seed() -> None:
    assert compare(RUNS, QRELS, ["RR"], seed=np.int64(5)).equals(compare(RUNS, QRELS, ["RR"], seed=5))


@pytest.mark.parametrize("name", ["n_bootstrap", "n_permutations"])
@pytest.mark.parametrize("value", [10**8, MAX_RESAMPLES + 1])
def test_huge_resample_counts_are_refused_before_any_work(name: str, value: int) -> None:
    with pytest.raises(IrFrameError, match=f"'{name}' parameter of compare") as info:
        compare(RUNS, QRELS, ["RR"], **{name: value})
    assert "1_000_000" in str(info.value)


@pytest.mark.parametrize("name", ["n_bootstrap", "n_permutations"])
@pytest.mark.parametrize("value", [0, -5, 2.5, True])
def test_small_or_non_int_resample_counts_are_refused(name: str, value: object) -> None:
    with pytest.raises(IrFrameError, match=f"'{name}' parameter of compare"):
        compare(RUNS, QRELS, ["RR"], **{name: value})


def test_stats_functions_check_seed_and_counts_up_front() -> None:
    with pytest.raises(IrFrameError, match="'seed' parameter of bootstrap_ci"):
        bootstrap_ci([0.1], seed=-1)  # one pair: no resampling, still a bad seed
    with pytest.raises(IrFrameError, match="'seed' parameter of randomization_test"):
        randomization_test([0.1, 0.2], seed=-3)
    with pytest.raises(IrFrameError, match="'n_bootstrap' parameter of bootstrap_ci"):
        bootstrap_ci([0.1, 0.2], n_bootstrap=10**8)
    with pytest.raises(IrFrameError, match="'n_permutations' parameter of paired_test"):
        paired_test([0.1, 0.2], test="t", n_permutations=10**9)
    with pytest.raises(IrFrameError, match="'seed' parameter of paired_test"):
        paired_test([0.1, 0.2], test="wilcoxon", seed=-1)
    # the bound itself is accepted (exact enumeration here: no resampling happens)
    assert randomization_test([0.1, 0.2, 0.3], n_permutations=MAX_RESAMPLES).p_value == 0.25


@pytest.mark.parametrize("by", [123, ["kind", 1], {"kind": 1}, 4.5])
def test_by_of_the_wrong_type_is_refused_naming_by(by: object) -> None:
    with pytest.raises(IrFrameError, match="'by' parameter of compare"):
        compare(RUNS, QRELS, ["RR"], by=by)  # type: ignore[arg-type]


def test_by_the_system_column_is_refused() -> None:
    with pytest.raises(IrFrameError, match="names the system column 'system'"):
        compare(RUNS, QRELS, ["RR"], by="system")


# --- no internal name in any message ----------------------------------------------------
def _stacked(**extra: Any) -> pl.DataFrame:
    return pl.concat([A.with_columns(system=pl.lit("a")), B.with_columns(system=pl.lit("b"))]).with_columns(
        **extra
    )


ERROR_CASES: dict[str, Callable[[], object]] = {
    "disjoint zero": lambda: compare({"l": FIRST_HALF, "r": SECOND_HALF}, QRELS, ["RR"]),
    "disjoint drop": lambda: compare({"l": FIRST_HALF, "r": SECOND_HALF}, QRELS, ["RR"], missing="drop"),
    "disjoint moved": lambda: moved({"l": FIRST_HALF, "r": SECOND_HALF}, QRELS, "RR"),
    "by column missing": lambda: compare(RUNS, QRELS, ["RR"], by="nope"),
    "by column missing, stacked": lambda: compare(_stacked(), QRELS, ["RR"], by="nope"),
    "by the system": lambda: compare(RUNS, QRELS, ["RR"], by="system"),
    "by 123": lambda: compare(RUNS, QRELS, ["RR"], by=123),  # type: ignore[arg-type]
    "query column missing": lambda: compare(RUNS, QRELS, ["RR"], query_col="qid"),
    "doc column missing": lambda: compare(RUNS, QRELS, ["RR"], doc_col="docno"),
    "no qrels, no grades": lambda: compare(RUNS, None, ["RR"]),
    "duplicate rows": lambda: compare({"a": pl.concat([A, A]), "b": B}, QRELS, ["RR"]),
    "missing='error'": lambda: compare({"a": A, "half": FIRST_HALF}, QRELS, ["RR"], missing="error"),
    "null query ids": lambda: compare(
        {"a": A.with_columns(query_id=pl.lit(None, pl.String)), "b": B}, QRELS, ["RR"]
    ),
    "varying by-column": lambda: compare(
        {k: v.with_columns(kind=pl.col("rank").cast(pl.String)) for k, v in RUNS.items()},
        QRELS,
        ["RR"],
        by="kind",
    ),
    "unknown measure": lambda: compare(RUNS, QRELS, ["RRR"]),
    "bad baseline": lambda: compare(RUNS, QRELS, ["RR"], baseline="c"),
    "bad seed": lambda: compare(RUNS, QRELS, ["RR"], seed=-1),
    "huge n_bootstrap": lambda: compare(RUNS, QRELS, ["RR"], n_bootstrap=10**8),
    "one system": lambda: compare({"a": A}, QRELS, ["RR"]),
    "stacked without system column": lambda: compare(A, QRELS, ["RR"]),
    "report, doc column missing": lambda: compare_report(_stacked(), QRELS, ["RR"], doc_col="docno"),
    "moved query column missing": lambda: moved(RUNS, QRELS, "RR", query_col="qid"),
    "moved duplicate rows": lambda: moved({"a": pl.concat([A, A]), "b": B}, QRELS, "RR"),
    "moved bad system": lambda: moved(RUNS, QRELS, "RR", system="c"),
    "moved queries without text": lambda: moved(
        RUNS, QRELS, "RR", queries=pl.DataFrame({"query_id": ["q1"]})
    ),
    "system_means doc column missing": lambda: system_means(RUNS, QRELS, ["RR"], doc_col="docno"),
}


@pytest.mark.parametrize("case", list(ERROR_CASES))
def test_no_internal_column_name_in_any_message(case: str) -> None:
    with pytest.raises(IrFrameError) as info:
        ERROR_CASES[case]()
    assert "__ir" not in str(info.value), str(info.value)
