"""Every executor of the strategy table, forced in turn, equals the plain-Python oracle.

Small in-memory frames take the small executor, so the keyed, presorted and general
executors are forced here (each alone before the general one), on the same random data
as the property tests: ties, unjudged and negative grades, missing and run-only
queries, systems, runs already in ranking order.  Each case also checks which executor
ran, so that a condition that never holds cannot pass unnoticed.
"""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import irframe
from _support.datagen import golden_run, measure_lists, run_and_qrels
from _support.helpers import assert_close_dicts, examples, only_executor, per_query_dict
from _support.oracle import oracle_evaluate
from irframe._engine import strategy
from irframe._engine.compiler import compile_all
from irframe.measures import parse_measures

TOL = 1e-9
SETTINGS = settings(max_examples=examples(25), deadline=None)
EXECUTORS = [s.name for s in strategy.STRATEGIES]


def _lists_per_row(labels: list[str]) -> bool:
    """A ranking kernel reads list-valued judgments: only the general plan takes qrels then."""
    comp, _ = compile_all(parse_measures(labels), inline_rn=False)
    return comp.rn_lists


def _ordered(run: dict[str, list[Any]], key: str, sign: int) -> dict[str, list[Any]]:
    """The run in ranking order within each query (score descending, ties doc id descending)."""
    rows = sorted(zip(*run.values(), strict=True), key=lambda r: str(r[1]), reverse=True)
    names = list(run)
    rows.sort(key=lambda r: (r[0], sign * r[names.index(key)]))
    return {n: [r[i] for r in rows] for i, n in enumerate(names)}


def test_the_table_names_every_executor_once() -> None:
    assert EXECUTORS == ["small", "keyed", "presorted", "general"]
    assert all(s.when for s in strategy.STRATEGIES)


@pytest.mark.parametrize("name", EXECUTORS)
@SETTINGS
@given(data=run_and_qrels(), labels=measure_lists(), ordered=st.booleans(), lazy_qrels=st.booleans())
def test_each_executor_equals_the_oracle(
    name: str,
    data: tuple[dict[str, list[Any]], dict[str, list[Any]]],
    labels: list[str],
    ordered: bool,
    lazy_qrels: bool,
) -> None:
    run, qrels = data
    if ordered or name == "presorted":
        run = _ordered(run, "score", -1)
    qrels_frame: Any = pl.LazyFrame(qrels, strict=False) if lazy_qrels else pl.DataFrame(qrels, strict=False)
    with only_executor(name) as ran:
        got = irframe.evaluate(pl.DataFrame(run, strict=False), labels, qrels_frame, per_query=True)
    assert ran, "no executor ran"
    if name != "keyed":  # (the keyed path also hands over on a hash collision, tested in test_keyed)
        assert ran == [name if name == "general" or not _lists_per_row(labels) else "general"]
    assert_close_dicts(per_query_dict(got, labels), oracle_evaluate(run, qrels, labels), tol=TOL)


@pytest.mark.parametrize("name", EXECUTORS)
@SETTINGS
@given(data=golden_run(), labels=measure_lists())
def test_each_executor_with_grades_on_the_rows(
    name: str, data: dict[str, list[Any]], labels: list[str]
) -> None:
    run = _ordered(data, "score", -1) if name == "presorted" else data
    with only_executor(name) as ran:
        got = irframe.evaluate(pl.DataFrame(run, strict=False), labels, per_query=True)
    assert ran
    grades = {"query_id": run["query_id"], "doc_id": run["doc_id"], "relevance": run["relevance"]}
    judged = {
        k: [v for v, g in zip(grades[k], grades["relevance"], strict=True) if g is not None] for k in grades
    }
    expected = oracle_evaluate({k: run[k] for k in ("query_id", "doc_id", "score")}, judged, labels)
    assert_close_dicts(per_query_dict(got, labels), _judged_only(expected, judged), tol=TOL)


def _judged_only(expected: dict[str, dict[str, float | None]], judged: dict[str, list[Any]]) -> Any:
    """Without qrels, a query none of whose rows has a grade is not judged (null values)."""
    graded = set(judged["query_id"])
    return {q: v if q in graded else dict.fromkeys(v) for q, v in expected.items()}


def test_presorted_falls_back_when_a_query_is_split() -> None:
    # q1's rows are in order but not contiguous: the presorted executor hands over
    run = pl.DataFrame({"query_id": ["q1", "q2", "q1"], "doc_id": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
    qrels = pl.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["c", "b"], "relevance": [1, 1]})
    with only_executor("presorted") as ran:
        got = irframe.evaluate(run, ["RR"], qrels, per_query=True)
    assert ran == ["general"]
    assert got["RR"].to_list() == [0.5, 1.0]  # q1: c at rank 2; q2: b at rank 1


def test_small_executor_counts_duplicates_in_its_group_by() -> None:
    run = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "a"], "score": [2.0, 1.0]})
    with only_executor("small") as ran, pytest.raises(irframe.IrFrameError, match="1 duplicate"):
        irframe.evaluate(run, ["RR"], pl.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "relevance": [1]}))
    assert ran == ["small"]


def test_small_executor_divides_by_a_broadcast_count_exactly() -> None:
    """Two systems and one judged query: the cross join gives a one-value R column, which
    polars would divide by as x * (1/R); AP must be sum / R as on the general path."""
    run = pl.DataFrame({
        "system": ["a"] * 4 + ["b"] * 4, "query_id": ["q"] * 8, "doc_id": list("wxyz") * 2,
        "score": [4.0, 3.0, 2.0, 1.0, 1.0, 2.0, 3.0, 4.0],
    })  # fmt: skip
    qrels = pl.DataFrame({"query_id": ["q"] * 6, "doc_id": list("wyzuvt"), "relevance": [1] * 6})
    with only_executor("small"):
        small = irframe.evaluate(run, ["AP"], qrels, by="system", per_query=True)
    with only_executor("general"):
        general = irframe.evaluate(run, ["AP"], qrels, by="system", per_query=True)
    assert small["AP"].to_list() == general["AP"].to_list()
    # a: hits at ranks 1, 3, 4 -> (1 + 2/3 + 3/4) / 6, summed in rank order
    assert small["AP"][0] == (1 + 2 / 3 + 3 / 4) / 6


def test_small_executor_with_partition_values_divides_exactly() -> None:
    """A bucket (or a backend's partition) of one system's rows for one judged query, with
    every system expected (``partition_values``): the cross join gives one-value columns,
    which polars' in-memory engine divides by as x * (1/R).  Bpref must be (1 - 1/4) / 5
    = 0.15 exactly, as on the general path (the lazy small plan gave 0.15000000000000002)."""
    from irframe._engine.buckets import collect_in_memory
    from irframe._input.options import Options

    run = pl.DataFrame({"system": ["a"] * 5, "query_id": ["q"] * 5, "doc_id": list("vwxyz"),
                        "score": [5.0, 4.0, 3.0, 2.0, 1.0]})  # fmt: skip
    # judged relevant: w and five unretrieved (R = 5); judged non-relevant: v and four more (N = 4)
    qrels = pl.DataFrame({"query_id": ["q"] * 10, "doc_id": list("wABCDE") + list("vFGH"),
                          "relevance": [1] * 6 + [0] * 4})  # fmt: skip
    qrels = qrels.filter(pl.col("doc_id") != "E")  # R = 5: w, A, B, C, D
    systems = pl.LazyFrame({"system": ["b", "c", "a"]})
    got = {}
    opts, n = Options.build(by="system"), run.height
    for name in ("small", "general"):
        with only_executor(name) as ran:
            _, table = collect_in_memory(
                run.lazy(), ["Bpref"], qrels, opts, n_rows=n, partition_values=systems, allow_empty=True
            )
        assert ran == [name]
        got[name] = dict(table.select("system", "Bpref").iter_rows())
    assert got["small"] == got["general"] == {"a": (1 - 1 / 4) / 5, "b": 0.0, "c": 0.0}
    assert got["small"]["a"] == 0.15


@pytest.mark.parametrize("duplicates", ["error", "first"])
@pytest.mark.parametrize("by", [None, "system"])
def test_small_executor_runs_one_polars_query(by: str | None, duplicates: str) -> None:
    """The small plan is one lazy query, collected once; the checks and the natural order
    read its table without another polars query (each costs ~0.1-0.3 ms on a small input).
    ``duplicates="first"`` too: that nothing was dropped is read off the table's row counts
    (it was a second query, a group_by over the run)."""
    from test_compile_cost import counted_queries

    run = pl.DataFrame({"system": ["a", "a", "b"], "query_id": ["q2", "q10", "q2"], "doc_id": ["x", "y", "x"],
                        "score": [2.0, 1.0, 1.0]})  # fmt: skip
    if by is None:
        run = run.filter(pl.col("system") == "a").drop("system")
    qrels = pl.DataFrame({"query_id": ["q2", "q10", "q3"], "doc_id": ["x", "z", "w"], "relevance": [1, 1, 2]})
    irframe.evaluate(run, ["nDCG@10", "AP"], qrels, per_query=True, by=by)  # (measures parsed and compiled)
    with only_executor("small") as ran, counted_queries() as calls:
        got = irframe.evaluate(
            run, ["nDCG@10", "AP"], qrels, per_query=True, by=by, missing="drop", duplicates=duplicates
        )
    assert ran == ["small"]
    assert calls[0] == 1
    # q2: x (relevant) first; q10: y unjudged, z never retrieved -> 0; q3 missing, dropped
    rows = [("a", "q2", 1.0, 1.0), ("a", "q10", 0.0, 0.0), ("b", "q2", 1.0, 1.0)]
    assert got.rows() == (rows if by else [r[1:] for r in rows[:2]])


def _queries_and_executor(run: pl.DataFrame, qrels: pl.DataFrame, duplicates: str) -> tuple[int, str, Any]:
    from test_compile_cost import counted_queries

    seen: list[str] = []
    real = strategy.build_plan

    def spy(*args: Any, **kwargs: Any) -> Any:
        plan = real(*args, **kwargs)
        seen.append(plan.executor)
        return plan

    with pytest.MonkeyPatch.context() as mp, counted_queries() as calls:
        mp.setattr(strategy, "SMALL_ROWS", 0)  # (a small input stands for a large one)
        mp.setattr("irframe._engine.entry.build_plan", spy)
        got = irframe.evaluate(run, ["AP", "P@2"], qrels, per_query=True, duplicates=duplicates)
    return calls[0], seen[0], got


def test_duplicates_first_without_repeats_takes_the_fast_executor_for_one_more_query() -> None:
    """``duplicates="first"`` above SMALL_ROWS counts the repeats once, up front (one query):
    a run without any is evaluated as with ``duplicates="error"`` (the keyed executor, no
    sort and dedupe: it was the general plan, ~3x slower at 1e6 rows, and a second count),
    with the same values and no warning."""
    run = pl.DataFrame({"query_id": ["q1"] * 3 + ["q2"] * 2, "doc_id": ["a", "b", "c", "a", "d"],
                        "score": [3.0, 2.0, 1.0, 2.0, 1.0]})  # fmt: skip
    qrels = pl.DataFrame({"query_id": ["q1", "q2", "q2"], "doc_id": ["b", "d", "x"], "relevance": [1, 1, 1]})
    irframe.evaluate(run, ["AP", "P@2"], qrels)  # (measures parsed and compiled)
    n_error, ex_error, want = _queries_and_executor(run, qrels, "error")
    n_first, ex_first, got = _queries_and_executor(run, qrels, "first")  # (warnings are errors here)
    assert ex_error == ex_first == "keyed"
    assert n_first == n_error + 1
    # hand: q1 b at rank 2 of R=1 -> AP 1/2, P@2 1/2; q2 d at rank 2 of R=2 -> AP (1/2)/2, P@2 1/2
    assert got.rows() == want.rows() == [("q1", 0.5, 0.5), ("q2", 0.25, 0.5)]


def test_duplicates_first_with_repeats_counts_them_once() -> None:
    """With repeats the general plan dedupes, and the warning's count is the one taken up front."""
    run = pl.DataFrame({"query_id": ["q1"] * 4 + ["q2"] * 2, "doc_id": ["a", "b", "b", "c", "a", "d"],
                        "score": [4.0, 3.0, 2.5, 1.0, 2.0, 1.0]})  # fmt: skip
    qrels = pl.DataFrame({"query_id": ["q1", "q2", "q2"], "doc_id": ["c", "d", "x"], "relevance": [1, 1, 1]})
    counted: list[Any] = []
    real = strategy.count_repeats

    def spy(*args: Any) -> Any:
        counted.append(real(*args))
        return counted[-1]

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(strategy, "count_repeats", spy)
        mp.setattr("irframe._engine.repeats.count_repeats", spy)
        with pytest.warns(irframe.exceptions.DuplicatesWarning) as warned:
            _, executor, got = _queries_and_executor(run, qrels, "first")
    assert executor == "general"
    assert len(counted) == 1
    assert counted[0].dropped == 1
    assert "dropped 1 of 6 run rows" in str(warned[0].message)
    # hand: q1 ranks a, b, c (the second b dropped): c at rank 3 of R=1 -> AP 1/3, P@2 0
    assert got.rows() == [("q1", 1 / 3, 0.0), ("q2", 0.25, 0.5)]


def test_small_executor_keeps_its_sort_for_an_aggregation_polars_thinks_order_free() -> None:
    """Polars 2.1's order-observation pass dropped the small plan's sort for RBP(rel=1) alone
    (a hypothesis example of test_properties): the ranks were read in input order."""
    run = pl.DataFrame({"query_id": ["q1"] * 6 + ["q2"], "doc_id": ["a", "b", "B", "c", "d", "9", "a"],
                        "rank": [1, 2, 3, 4, 6, 5, 1]})  # fmt: skip
    qrels = pl.DataFrame({"query_id": ["q1"] * 5 + ["q2"], "doc_id": ["a", "b", "B", "c", "d", "a"],
                          "relevance": [-2, -2, -2, -2, 1, -2]})  # fmt: skip
    with only_executor("small") as ran:
        got = irframe.evaluate(run, ["RBP(rel=1)"], qrels, per_query=True)
    assert ran == ["small"]
    # hand: d, the one relevant document, at rank 6: (1 - p) p^5 with p = 0.8 (it gave rank 5's 0.08192)
    assert got["RBP(rel=1)"].to_list() == pytest.approx([0.2 * 0.8**5, 0.0], abs=1e-15)
