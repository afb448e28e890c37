"""sample_queries and its allocation: hand-computed quotas and samples, the draw's rules, bad input."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import irframe
from _support.helpers import NamedConstructor, examples, to_polars
from irframe._golden.sample import allocate
from irframe.exceptions import ColumnNotFoundError, InvalidDataError, InvalidParameterError


# --- the allocation, by hand ----------------------------------------------------------------------
def test_allocation_by_largest_remainder() -> None:
    # shares of 7: 3.5, 2.1, 1.4 -> floors 3, 2, 1 (6), the 7th to the largest remainder (0.5)
    quota, counts = allocate([50, 30, 20], [9, 9, 9], 7)
    assert quota.tolist() == pytest.approx([3.5, 2.1, 1.4])
    assert counts.tolist() == [4, 2, 1]


def test_allocation_lifts_the_rare_segments_to_their_floor() -> None:
    # proportional 9, 0.9, 0.1 of 10; floors 2, 2, 1 (C has 1 query): B and C at their floors,
    # A takes the 7 left (lambda = 7 / 90)
    quota, counts = allocate([90, 9, 1], [10, 5, 1], 10, min_per_segment=2)
    assert quota.tolist() == pytest.approx([7.0, 2.0, 1.0])
    assert counts.tolist() == [7, 2, 1]


def test_allocation_caps_a_segment_at_its_queries_and_shares_the_rest() -> None:
    # proportional 8, 2 of 10, but A has 6 queries: A 6, B the other 4
    quota, counts = allocate([80, 20], [6, 50], 10, min_per_segment=1)
    assert quota.tolist() == pytest.approx([6.0, 4.0])
    assert counts.tolist() == [6, 4]


def test_allocation_remainder_ties_go_to_the_larger_traffic_then_the_first() -> None:
    # 5 over traffic 3, 3, 2 (floor 0): shares 1.875, 1.875, 1.25 -> 1, 1, 1 and two left:
    # the remainders 0.875, 0.875 win over 0.25
    assert allocate([3, 3, 2], [9, 9, 9], 5, 0)[1].tolist() == [2, 2, 1]
    # 3 over 50, 50: 1.5, 1.5 -> 1, 1; one left, tied in remainder and traffic: the first
    assert allocate([50, 50], [9, 9], 3, 0)[1].tolist() == [2, 1]
    # 4 over 40, 30, 30 (floor 0): 1.6, 1.2, 1.2 -> 1, 1, 1; one left: the largest remainder (A)
    assert allocate([40, 30, 30], [9, 9, 9], 4, 0)[1].tolist() == [2, 1, 1]
    # 2 over 30, 40, 30: 0.6, 0.8, 0.6 -> 0, 0, 0; two left: B (0.8), then A (0.6, first of the tie)
    assert allocate([30, 40, 30], [9, 9, 9], 2, 0)[1].tolist() == [1, 1, 0]


@settings(max_examples=examples(150), deadline=None)
@given(
    st.lists(st.tuples(st.integers(1, 1000), st.integers(1, 30)), min_size=1, max_size=12),
    st.integers(0, 4),
    st.data(),
)
def test_allocation_properties(segments: list[tuple[int, int]], floor: int, data: st.DataObject) -> None:
    t = np.array([s[0] for s in segments], dtype=float)
    avail = np.array([s[1] for s in segments])
    lo = np.minimum(floor, avail)
    n = data.draw(st.integers(max(1, int(lo.sum())), int(avail.sum())))
    quota, counts = allocate(t, avail, n, floor)
    assert counts.sum() == n
    assert np.all(counts >= lo)
    assert np.all(counts <= avail)
    assert np.all(np.abs(counts - quota) < 1 + 1e-9)
    assert quota.sum() == pytest.approx(n)
    # the quotas are clip(lambda * t, lo, avail) for one lambda: the unclipped ones share it
    free = (quota > lo + 1e-9) & (quota < avail - 1e-9)
    if free.sum() >= 2:
        ratios = quota[free] / t[free]
        assert ratios.max() == pytest.approx(ratios.min(), rel=1e-9)
    lam = (quota[free] / t[free]).mean() if free.any() else None
    if lam is not None:  # (a segment with lo == avail is fixed whatever lambda is)
        at_floor = (quota <= lo + 1e-9) & (lo < avail)
        at_cap = (quota >= avail - 1e-9) & (lo < avail)
        assert np.all(lam * t[at_floor] <= lo[at_floor] + 1e-6)
        assert np.all(lam * t[at_cap] >= avail[at_cap] - 1e-6)


# --- sample_queries on small logs ---------------------------------------------------------------
def _log() -> dict[str, list[Any]]:
    """Traffic: nav a 5, b 4, g 3 (12); info c 2, d 1 (3); rare e 1 (1): 16 rows, 6 queries."""
    qids = [*"aaaaa", *"bbbb", *"ggg", "c", "c", "d", "e"]
    intent = {"a": "nav", "b": "nav", "g": "nav", "c": "info", "d": "info", "e": "rare"}
    return {
        "query_id": qids,
        "intent": [intent[q] for q in qids],
        "text": [f"text of {q}" for q in qids],
        "ts": list(range(len(qids))),
    }


def test_hand_computed_segments_and_weights(constructor: NamedConstructor) -> None:
    # n 4, floor 1: shares 3, 0.75, 0.25 -> info and rare lifted to 1, nav gets 2 (lambda = 2/12)
    s = irframe.sample_queries(constructor(_log()), 4, by="intent", seed=3)
    assert isinstance(s.queries, constructor.native_type)
    assert isinstance(s.segments, constructor.native_type)
    seg = to_polars(s.segments)
    assert seg["intent"].to_list() == ["info", "nav", "rare"]
    assert seg["n_available"].to_list() == [2, 3, 1]
    assert seg["traffic"].to_list() == [3, 12, 1]
    assert seg["log_share"].to_list() == pytest.approx([3 / 16, 12 / 16, 1 / 16])
    assert seg["quota"].to_list() == pytest.approx([1.0, 2.0, 1.0])
    assert seg["n_sampled"].to_list() == [1, 2, 1]
    assert seg["sample_share"].to_list() == pytest.approx([0.25, 0.5, 0.25])
    assert seg["floor_met"].to_list() == [True, True, True]
    q = to_polars(s.queries)
    assert q.columns == ["query_id", "intent", "traffic", "n_rows", "segment_weight", "text"]
    assert q.height == 4
    assert q.filter(pl.col("intent") == "rare")["query_id"].to_list() == ["e"]
    weights = dict(zip(q["intent"], q["segment_weight"], strict=False))
    assert weights["nav"] == pytest.approx((12 / 16) / (2 / 4))
    assert weights["info"] == pytest.approx((3 / 16) / (1 / 4))
    assert weights["rare"] == pytest.approx((1 / 16) / (1 / 4))
    assert s.left_out_columns == ("ts",)
    for row in q.iter_rows(named=True):
        assert row["text"] == f"text of {row['query_id']}"
        assert row["traffic"] == row["n_rows"] == _log()["query_id"].count(row["query_id"])


def test_every_query_when_n_is_all_of_them() -> None:
    s = irframe.sample_queries(pl.DataFrame(_log()), 6, by="intent", seed=0)
    q = s.queries
    # ordered by segment, traffic (largest first), query id
    assert q["query_id"].to_list() == ["c", "d", "a", "b", "g", "e"]


def test_the_floor_not_met_takes_all_and_is_counted() -> None:
    s = irframe.sample_queries(pl.DataFrame(_log()), 5, by="intent", min_per_segment=2, seed=0)
    seg = s.segments
    assert seg["floor"].to_list() == [2, 2, 1]
    assert seg["n_sampled"].to_list() == [2, 2, 1]
    assert seg["floor_met"].to_list() == [True, True, False]
    text = str(s)
    assert "1 segment(s) had fewer queries than the floor of 2 and gave all they have: rare" in text
    assert "columns that vary within a query, not in the sample: ts" in text


def test_weight_column_is_the_traffic() -> None:
    log = pl.DataFrame({"query_id": ["a", "b", "c", "a"], "n": [1.0, 9.0, 30.0, 2.0]})
    s = irframe.sample_queries(log, 3, weight="n")
    assert s.queries["query_id"].to_list() == ["c", "b", "a"]
    assert s.queries["traffic"].to_list() == [30.0, 9.0, 3.0]
    assert s.queries["n_rows"].to_list() == [1, 1, 2]
    assert s.segments["traffic"].to_list() == [42.0]


def test_null_segment_values_are_a_segment() -> None:
    log = pl.DataFrame({"query_id": ["a", "b", "c"], "intent": ["x", None, "x"]})
    s = irframe.sample_queries(log, 2, by="intent", seed=0)
    assert s.segments["intent"].to_list() == ["x", None]
    assert s.segments["n_sampled"].to_list() == [1, 1]
    assert "b" in s.queries["query_id"].to_list()
    assert "null" in str(s)


def test_several_segment_columns() -> None:
    log = pl.DataFrame({
        "query_id": ["a", "b", "c", "d"], "lang": ["en", "en", "de", "de"], "dev": ["m", "d", "m", "m"],
    })  # fmt: skip
    s = irframe.sample_queries(log, 3, by=["lang", "dev"], seed=0)
    assert s.segments.select("lang", "dev").rows() == [("de", "m"), ("en", "d"), ("en", "m")]
    assert s.segments["n_sampled"].to_list() == [1, 1, 1]


def test_same_seed_same_sample_whatever_the_row_order() -> None:
    rng = np.random.default_rng(5)
    qids = [f"q{i:03d}" for i in rng.integers(0, 200, 3000)]
    log = pl.DataFrame({"query_id": qids, "seg": [f"s{int(q[1:]) % 7}" for q in qids]})
    first = irframe.sample_queries(log, 30, by="seg", min_per_segment=2, seed=11).queries
    shuffled = log.sample(fraction=1.0, shuffle=True, seed=1)
    again = irframe.sample_queries(shuffled, 30, by="seg", min_per_segment=2, seed=11).queries
    assert first.equals(again)
    other = irframe.sample_queries(log, 30, by="seg", min_per_segment=2, seed=12).queries
    assert not first.equals(other)
    assert first.height == 30


@pytest.mark.parametrize("within", ["traffic", "uniform"])
def test_first_draw_probability(within: str) -> None:
    # one segment, n = 1: the chosen query is a with probability 6/10 (traffic) or 1/3 (uniform)
    log = pl.DataFrame({"query_id": ["a"] * 6 + ["b"] * 3 + ["c"]})
    trials = 400
    picks = [
        irframe.sample_queries(log, 1, seed=s, within=within).queries["query_id"][0] for s in range(trials)
    ]
    expected = {"a": 0.6, "b": 0.3, "c": 0.1} if within == "traffic" else dict.fromkeys("abc", 1 / 3)
    for q, p in expected.items():
        got = picks.count(q) / trials
        assert abs(got - p) < 4.5 * math.sqrt(p * (1 - p) / trials), (q, got, p)


def test_without_a_seed_the_sample_is_still_a_sample() -> None:
    s = irframe.sample_queries(pl.DataFrame(_log()), 2, by="intent", min_per_segment=0, seed=None)
    assert s.queries.height == 2
    assert "no seed" in str(s)


# --- bad input -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("kwargs", "error", "text"),
    [
        ({"n": 0}, InvalidParameterError, "'n' parameter of sample_queries must be an int in the range [1"),
        ({"n": 2.5}, InvalidParameterError, "'n' parameter"),
        ({"n": True}, InvalidParameterError, "'n' parameter"),
        ({"n": 7}, InvalidParameterError, "the log has 6 distinct queries"),
        ({"n": 2, "min_per_segment": 1}, InvalidParameterError, "floors need n >= 3"),
        ({"min_per_segment": -1}, InvalidParameterError, "'min_per_segment' parameter"),
        ({"seed": -1}, InvalidParameterError, "'seed' parameter"),
        ({"within": "random"}, InvalidParameterError, "'within' parameter"),
        ({"by": "segment"}, ColumnNotFoundError, "no segment column 'segment'"),
        ({"by": ["intent", "intent"]}, InvalidParameterError, "'by' parameter"),
        ({"query_col": "qid"}, ColumnNotFoundError, "no query_id column 'qid'"),
        ({"weight": "count"}, ColumnNotFoundError, "no weight column 'count'"),
        ({"weight": "text"}, InvalidDataError, "weight column 'text' must be numeric"),
        ({"by": "intent", "weight": "ts", "query_col": "ts"}, InvalidParameterError, "different columns"),
    ],
)
def test_bad_parameters(kwargs: dict[str, Any], error: type[Exception], text: str) -> None:
    args = {"n": 3, "by": "intent", **kwargs}
    with pytest.raises(error, match=None) as info:
        irframe.sample_queries(pl.DataFrame(_log()), **args)
    assert text in str(info.value)


def test_bad_rows() -> None:
    with pytest.raises(InvalidDataError, match="1 row\\(s\\) with a null query id"):
        irframe.sample_queries(pl.DataFrame({"query_id": ["a", None]}), 1)
    with pytest.raises(InvalidDataError, match=r"query 'b': 0\.0"):
        irframe.sample_queries(pl.DataFrame({"query_id": ["a", "b"], "w": [1.0, 0.0]}), 1, weight="w")
    with pytest.raises(InvalidDataError, match="null, not finite"):
        irframe.sample_queries(pl.DataFrame({"query_id": ["a", "b"], "w": [1.0, None]}), 1, weight="w")
    two = pl.DataFrame({"query_id": ["a", "a", "b"], "intent": ["nav", "info", "nav"]})
    with pytest.raises(InvalidDataError, match="query 'a' has intent 'info', 'nav'"):
        irframe.sample_queries(two, 1, by="intent")
