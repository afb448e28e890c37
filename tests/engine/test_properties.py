"""Hypothesis properties: the engine equals the plain-Python oracle on random data.

Random runs have tied scores, doc ids whose string order differs from their numeric
order, negative and fractional grades, unjudged retrieved docs, relevant docs never
retrieved, queries only in the qrels and queries only in the run; the measures have
random cutoffs, thresholds and gains.  Each example also draws the frame type.
"""

from __future__ import annotations

import math
import random
from typing import Any

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import irframe
from _support.datagen import golden_run, measure_lists, run_and_qrels
from _support.helpers import (
    CONSTRUCTORS,
    assert_close_dicts,
    examples,
    native_type,
    per_query_dict,
    to_polars,
)
from _support.oracle import oracle_evaluate, oracle_mean
from irframe.measures import parse_measure

TOL = 1e-9
# IRFRAME_HYPOTHESIS_EXAMPLES=2000 pytest tests/engine/test_properties.py for a deep run
SETTINGS = settings(max_examples=examples(60), deadline=None)
FRAME_TYPES = st.sampled_from(list(CONSTRUCTORS))
GRADES = (-2, -1, 0, 0, 1, 1, 2, 3, 0.5, 1.5, 2.5)
NORMALIZED = {"P", "R", "RR", "AP", "nDCG", "Rprec", "Bpref", "Success", "Judged"}
SIGNED = {"Utility"}  # a*hits + b*misses + ...: negative when misses outweigh hits


def engine_per_query(
    kind: str, run: dict[str, list[Any]], qrels: dict[str, list[Any]] | None, labels: list[str], **kw: Any
) -> dict[str, dict[str, float | None]]:
    ctor = CONSTRUCTORS[kind]
    out = irframe.evaluate(ctor(run), labels, None if qrels is None else ctor(qrels), per_query=True, **kw)
    assert isinstance(out, native_type(kind))
    return per_query_dict(out, labels)


@SETTINGS
@given(
    data=run_and_qrels(grades=GRADES),
    labels=measure_lists(),
    missing=st.sampled_from(["zero", "drop"]),
    kind=FRAME_TYPES,
)
def test_engine_equals_oracle(
    data: tuple[dict[str, list[Any]], dict[str, list[Any]]],
    labels: list[str],
    missing: str,
    kind: str,
) -> None:
    run, qrels = data
    expected = oracle_evaluate(run, qrels, labels, missing=missing)
    got = engine_per_query(kind, run, qrels, labels, missing=missing)
    assert_close_dicts(got, expected, tol=TOL, context=f" ({kind}, missing={missing})")


@SETTINGS
@given(data=run_and_qrels(grades=GRADES, use_rank=True), labels=measure_lists(), kind=FRAME_TYPES)
def test_engine_equals_oracle_with_rank_column(
    data: tuple[dict[str, list[Any]], dict[str, list[Any]]], labels: list[str], kind: str
) -> None:
    run, qrels = data
    expected = oracle_evaluate(run, qrels, labels)
    got = engine_per_query(kind, run, qrels, labels)
    assert_close_dicts(got, expected, tol=TOL, context=f" ({kind}, rank column)")


@SETTINGS
@given(run=golden_run(grades=(None, *GRADES)), labels=measure_lists(), kind=FRAME_TYPES)
def test_engine_equals_oracle_golden_set(run: dict[str, list[Any]], labels: list[str], kind: str) -> None:
    """Grades on the run rows, no qrels: IDCG and R come from the grades present."""
    expected = oracle_evaluate(run, None, labels)
    got = engine_per_query(kind, run, None, labels)
    assert_close_dicts(got, expected, tol=TOL, context=f" ({kind}, golden set)")


@SETTINGS
@given(
    data=run_and_qrels(grades=GRADES),
    labels=measure_lists(),
    missing=st.sampled_from(["zero", "drop"]),
    kind=FRAME_TYPES,
)
def test_means_equal_oracle(
    data: tuple[dict[str, list[Any]], dict[str, list[Any]]],
    labels: list[str],
    missing: str,
    kind: str,
) -> None:
    run, qrels = data
    per_q = oracle_evaluate(run, qrels, labels, missing=missing)
    expected = oracle_mean(per_q)
    ctor = CONSTRUCTORS[kind]
    out = to_polars(irframe.evaluate(ctor(run), labels, ctor(qrels), missing=missing))
    assert out.height == 1
    row = out.row(0, named=True)
    assert row["n_queries"] == expected["n_queries"]
    run_q = {str(q) for q in run["query_id"]}
    qrels_q = {str(q) for q in qrels["query_id"]}
    assert row["n_missing"] == len(qrels_q - run_q)
    assert row["n_unjudged"] == len(run_q - qrels_q)
    for label in labels:
        assert row[label] == pytest.approx(expected[label], abs=TOL), label


@SETTINGS
@given(
    data=run_and_qrels(grades=GRADES),
    labels=measure_lists(),
    seed=st.integers(0, 2**32 - 1),
    kind=FRAME_TYPES,
)
def test_invariant_to_row_order(
    data: tuple[dict[str, list[Any]], dict[str, list[Any]]],
    labels: list[str],
    seed: int,
    kind: str,
) -> None:
    run, qrels = data
    rng = random.Random(seed)

    def shuffled(frame: dict[str, list[Any]]) -> dict[str, list[Any]]:
        idx = list(range(len(next(iter(frame.values())))))
        rng.shuffle(idx)
        return {k: [v[i] for i in idx] for k, v in frame.items()}

    before = engine_per_query(kind, run, qrels, labels)
    after = engine_per_query(kind, shuffled(run), shuffled(qrels), labels)
    assert_close_dicts(after, before, tol=1e-12, context=f" ({kind}, shuffled)")


@SETTINGS
@given(data=run_and_qrels(grades=GRADES), labels=measure_lists())
def test_normalized_measures_in_unit_interval(
    data: tuple[dict[str, list[Any]], dict[str, list[Any]]], labels: list[str]
) -> None:
    run, qrels = data
    got = engine_per_query("polars", run, qrels, labels)
    for q, vals in got.items():
        for label, v in vals.items():
            if v is None:
                continue
            assert not math.isnan(v), (q, label)
            if parse_measure(label).family in NORMALIZED:
                assert -TOL <= v <= 1 + TOL, (q, label, v)
            elif parse_measure(label).family in SIGNED:
                assert math.isfinite(v), (q, label, v)
            else:
                assert v >= 0, (q, label, v)


@SETTINGS
@given(
    a=run_and_qrels(grades=GRADES, allow_qrels_only=False),
    b=run_and_qrels(grades=GRADES, allow_qrels_only=False),
    labels=measure_lists(),
    kind=FRAME_TYPES,
)
def test_by_system_equals_separate_evaluations(
    a: tuple[dict[str, list[Any]], dict[str, list[Any]]],
    b: tuple[dict[str, list[Any]], dict[str, list[Any]]],
    labels: list[str],
    kind: str,
) -> None:
    """Stacked runs with ``by=["system"]`` = each run on its own, against one qrels."""
    run_a, qrels = a
    # System B ranks a's queries in reverse and adds b's other queries (every query of
    # a is in both systems: disjoint query sets are a separate, hand-written case).
    a_queries = set(run_a["query_id"])
    keep = [i for i, q in enumerate(b[0]["query_id"]) if q not in a_queries]
    run_b = {
        "query_id": run_a["query_id"] + [b[0]["query_id"][i] for i in keep],
        "doc_id": run_a["doc_id"] + [b[0]["doc_id"][i] for i in keep],
        "score": [-s for s in run_a["score"]] + [b[0]["score"][i] for i in keep],
    }
    stacked = {
        "system": ["A"] * len(run_a["query_id"]) + ["B"] * len(run_b["query_id"]),
        **{k: run_a[k] + run_b[k] for k in run_a},
    }
    ctor = CONSTRUCTORS[kind]
    out = to_polars(irframe.evaluate(ctor(stacked), labels, ctor(qrels), by=["system"], per_query=True))
    assert out.columns[:2] == ["system", "query_id"]
    for system, run in (("A", run_a), ("B", run_b)):
        expected = oracle_evaluate(run, qrels, labels)
        part = out.filter(pl.col("system") == system)
        got = per_query_dict(part, labels)
        assert_close_dicts(got, expected, tol=TOL, context=f" ({kind}, system {system})")


# --- runs that arrive (almost) in ranking order ------------------------------------------
# The engine may skip its sort when the rows already follow the ranking; these runs are in
# that order, or nearly: ties in the wrong order, a query split in two blocks, queries in
# reverse order, a rank column in order.
LAYOUTS = ["exact", "ties_ascending", "split_query", "queries_reversed", "one_swap"]


def _layout(run: dict[str, list[Any]], layout: str, use_rank: bool) -> dict[str, list[Any]]:
    n = len(run["query_id"])
    rows = [{k: run[k][i] for k in run} for i in range(n)]
    order_key = "rank" if use_rank else "score"
    sign = 1 if use_rank else -1
    # trec order inside a query: score descending, ties by doc id descending
    rows.sort(key=lambda r: r["doc_id"], reverse=layout != "ties_ascending")
    rows.sort(key=lambda r: (r["query_id"], sign * r[order_key]))
    if layout == "queries_reversed":
        queries = sorted({r["query_id"] for r in rows}, reverse=True)
        rows = [r for q in queries for r in rows if r["query_id"] == q]
    elif layout == "split_query" and n > 1:
        rows = rows[1:] + rows[:1]  # the first query's best row moves to the end
    elif layout == "one_swap" and n > 1:
        rows[0], rows[1] = rows[1], rows[0]
    return {k: [r[k] for r in rows] for k in run}


@SETTINGS
@given(
    data=st.one_of(
        st.tuples(run_and_qrels(grades=GRADES), st.just(False)),
        st.tuples(run_and_qrels(grades=GRADES, use_rank=True), st.just(True)),
    ),
    layout=st.sampled_from(LAYOUTS),
    labels=measure_lists(),
    kind=FRAME_TYPES,
)
def test_engine_equals_oracle_on_presorted_runs(
    data: tuple[tuple[dict[str, list[Any]], dict[str, list[Any]]], bool],
    layout: str,
    labels: list[str],
    kind: str,
) -> None:
    (run, qrels), use_rank = data
    run = _layout(run, layout, use_rank)
    expected = oracle_evaluate(run, qrels, labels)
    got = engine_per_query(kind, run, qrels, labels)
    assert_close_dicts(got, expected, tol=TOL, context=f" ({kind}, layout={layout})")


@SETTINGS
@given(data=run_and_qrels(grades=GRADES), labels=measure_lists(), layout=st.sampled_from(LAYOUTS))
def test_lazy_result_same_under_streaming_engine(
    data: tuple[dict[str, list[Any]], dict[str, list[Any]]], labels: list[str], layout: str
) -> None:
    """A LazyFrame result collected with the streaming engine equals the oracle too."""
    run, qrels = data
    run = _layout(run, layout, use_rank=False)
    run_lf, qrels_lf = pl.LazyFrame(run, strict=False), pl.LazyFrame(qrels, strict=False)
    out = irframe.evaluate(run_lf, labels, qrels_lf, per_query=True)
    assert isinstance(out, pl.LazyFrame)
    streamed = out.collect(engine="streaming")
    expected = oracle_evaluate(run, qrels, labels)
    assert_close_dicts(per_query_dict(streamed, labels), expected, tol=TOL, context=" (streaming)")
    means = irframe.evaluate(run_lf, labels, qrels_lf)
    row = means.collect(engine="streaming").row(0, named=True)
    exp_mean = oracle_mean(expected)
    for label in labels:
        assert row[label] == pytest.approx(exp_mean[label], abs=TOL), label
