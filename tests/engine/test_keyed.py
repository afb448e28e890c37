"""The keyed fast path (u64 hash keys, one arg_sort) gives the general plan's results.

Every fallback is forced through the hash seam (``_keyed.column_hash``): collisions in
the join key, query hashes sharing their top bits, two queries with one 64-bit hash.
Expected values come from the plain-Python oracle and from the general plan (the
keyed path switched off), compared per query.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import astuple
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import irframe
from _support.datagen import run_and_qrels
from _support.helpers import assert_close_dicts, examples, graded_run, per_query_dict
from _support.oracle import oracle_evaluate
from irframe._engine import keyed as _keyed
from irframe._engine import strategy as _plan
from irframe.exceptions import DuplicateRowsError, InvalidDataError


@pytest.fixture(autouse=True)
def _keyed_path_even_when_small(monkeypatch: pytest.MonkeyPatch) -> None:
    """These frames are small: the keyed path (not the small executor) is under test."""
    monkeypatch.setattr(_plan, "SMALL_ROWS", 0)


LABELS = ["AP", "nDCG@3", "P@2", "RR", "R@5", "Rprec", "Bpref", "Judged@4"]
Hash = Callable[[str, int], pl.Expr]


@contextmanager
def keyed_spy(hash_fn: Hash | None = None, *, enabled: bool = True) -> Iterator[list[bool]]:
    """Record whether the keyed path ran (True) or fell back (False) on each call."""
    used: list[bool] = []
    original = _plan._keyed

    def spy(*args: Any) -> Any:
        out = original(*args)
        used.append(out is not None)
        return out

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_plan, "_keyed", spy)
        mp.setattr(_plan, "USE_KEYED", enabled)
        if hash_fn is not None:
            mp.setattr(_keyed, "column_hash", hash_fn)
        yield used


def evaluate(run: dict[str, list[Any]], qrels: dict[str, list[Any]], **kw: Any) -> pl.DataFrame:
    return irframe.evaluate(
        pl.DataFrame(run, strict=False), LABELS, pl.DataFrame(qrels, strict=False), per_query=True, **kw
    )


def general(run: dict[str, list[Any]], qrels: dict[str, list[Any]], **kw: Any) -> pl.DataFrame:
    with keyed_spy(enabled=False) as used:
        out = evaluate(run, qrels, **kw)
    assert used == []
    return out


def check(run: dict[str, list[Any]], qrels: dict[str, list[Any]], hash_fn: Hash | None, keyed: bool) -> None:
    """The keyed path (taken or not, as expected) equals the oracle and the general plan."""
    with keyed_spy(hash_fn) as used:
        got = evaluate(run, qrels)
    assert used == [keyed]
    expected = oracle_evaluate(run, qrels, LABELS, missing="zero")
    assert_close_dicts(per_query_dict(got, LABELS), expected, tol=1e-12)
    assert got.equals(general(run, qrels))


def _weak(bits: int) -> Hash:
    """A hash keeping only the low ``bits`` bits: collisions everywhere."""
    return lambda name, seed: pl.col(name).hash(seed=seed) & pl.lit((1 << bits) - 1, dtype=pl.UInt64)


def _by_length(name: str, seed: int) -> pl.Expr:
    """Ids of equal length collide (across the run and the qrels alike)."""
    return pl.col(name).cast(pl.String).str.len_bytes().cast(pl.UInt64) * pl.lit(seed, dtype=pl.UInt64)


RUN = {
    "query_id": ["q1"] * 5 + ["q2"] * 4,
    "doc_id": ["a", "bb", "c", "dd", "e", "a", "bb", "f", "gg"],
    "score": [0.5, 0.5, 0.7, 0.0, -0.0, 1.0, 1.0, 1.0, 0.25],
}
QRELS = {
    "query_id": ["q1", "q1", "q1", "q1", "q2", "q2", "q3"],
    "doc_id": ["a", "dd", "e", "x", "bb", "gg", "a"],
    "relevance": [1, 2, 0, 1, 1, 0, 1],
}


def test_keyed_path_runs_and_matches() -> None:
    check(RUN, QRELS, None, keyed=True)


def test_negative_zero_ties_with_zero() -> None:
    # dd (0.0) and e (-0.0) tie: e ranks first (doc id descending), not as by IEEE bits
    run = {"query_id": ["q"] * 3, "doc_id": ["dd", "e", "f"], "score": [0.0, -0.0, -1.0]}
    qrels = {"query_id": ["q", "q"], "doc_id": ["dd", "f"], "relevance": [1, 1]}
    check(run, qrels, None, keyed=True)
    with keyed_spy():
        rr = evaluate(run, qrels).item(0, "RR")
    assert rr == 0.5  # e (unjudged) first, then dd


def test_integer_doc_ids_tie_as_strings() -> None:
    # 9 and 10 tie: "9" > "10" as strings, so 9 ranks first
    run = {"query_id": ["q"] * 3, "doc_id": [10, 9, 100], "score": [1.0, 1.0, 1.0]}
    qrels = {"query_id": ["q"], "doc_id": [9], "relevance": [1]}
    with keyed_spy() as used:
        got = irframe.evaluate(pl.DataFrame(run), ["RR"], pl.DataFrame(qrels), per_query=True)
    assert used == [True]
    assert got.item(0, "RR") == 1.0
    qrels_str = {"query_id": ["q"], "doc_id": ["10"], "relevance": [1]}
    got = irframe.evaluate(pl.DataFrame(run), ["RR"], pl.DataFrame(qrels_str), per_query=True)
    assert got.item(0, "RR") == 1 / 3  # "9" > "100" > "10"


def test_join_collision_across_frames_falls_back() -> None:
    # distinct keys within each frame, but run (q1, a) and qrels (q1, e) share one
    run = {"query_id": ["q1", "q1"], "doc_id": ["a", "bb"], "score": [1.0, 2.0]}
    qrels = {"query_id": ["q1", "q1"], "doc_id": ["e", "bb"], "relevance": [1, 1]}
    check(run, qrels, _by_length, keyed=False)


def test_duplicate_keys_fall_back() -> None:
    check(RUN, QRELS, _weak(2), keyed=False)


def test_duplicate_run_rows_with_qrels_fall_back_and_raise() -> None:
    # the qrels are distinct, the run repeats (q1, a): the keyed path's own probe refuses it
    # and the general plan raises, naming the row
    run = {"query_id": ["q1", "q1", "q1"], "doc_id": ["a", "b", "a"], "score": [3.0, 2.0, 1.0]}
    qrels = {"query_id": ["q1"], "doc_id": ["a"], "relevance": [1]}
    with keyed_spy() as used, pytest.raises(DuplicateRowsError, match="q1"):
        evaluate(run, qrels)
    assert used == [False]


def _prefix_run() -> tuple[dict[str, list[Any]], dict[str, list[Any]]]:
    """Six queries of 15 documents, ties and -0.0 among the scores, 60% judged."""
    rng = random.Random(7)
    run: dict[str, list[Any]] = {"query_id": [], "doc_id": [], "score": []}
    qrels: dict[str, list[Any]] = {"query_id": [], "doc_id": [], "relevance": []}
    for q in range(6):
        for d in range(15):
            run["query_id"].append(f"q{q}")
            run["doc_id"].append(f"d{d}")
            run["score"].append(rng.choice([0.1, 0.2, 0.3, -0.0, 0.0]))
            if rng.random() < 0.6:
                qrels["query_id"].append(f"q{q}")
                qrels["doc_id"].append(f"d{d}")
                qrels["relevance"].append(rng.choice([0, 1, 2]))
    return run, qrels


def test_query_prefix_collisions_are_sorted_exactly() -> None:
    # every hash below 2**32: all queries share the top bits of the sort key
    check(*_prefix_run(), _weak(32), keyed=True)


def _merge_queries(name: str, seed: int) -> pl.Expr:
    """q1 and q2 get one hash (other ids keep theirs)."""
    col = pl.col(name).cast(pl.String)
    return pl.when(col == "q2").then(pl.lit("q1")).otherwise(col).hash(seed=seed)


# q1 and q2 share a hash; their documents differ, so every (query, doc) key is still distinct
_MERGED_RUN = {"query_id": ["q1", "q1", "q2", "q2"], "doc_id": list("abcd"), "score": [1.0, 2.0, 3.0, 0.5]}
_MERGED_QRELS = {"query_id": ["q1", "q2"], "doc_id": ["a", "d"], "relevance": [1, 1]}


def test_query_hash_collision_falls_back() -> None:
    check(_MERGED_RUN, _MERGED_QRELS, _merge_queries, keyed=False)


def _scores_run(scores: list[float], grades: list[int]) -> tuple[dict[str, list[Any]], dict[str, list[Any]]]:
    """One query per score pattern; doc i has score i and grade i of the lists."""
    n = len(scores)
    docs = [f"d{i:02d}" for i in range(n)]
    run = {"query_id": ["q"] * n, "doc_id": docs, "score": scores}
    qrels = {"query_id": ["q"] * n, "doc_id": docs, "relevance": grades}
    return run, qrels


@pytest.mark.parametrize(
    "scores",
    [
        # 1.0 and its float neighbours share one coarse code (1e6 stretches the range)
        [1.0, 1.0 + 2**-52, 1.0 - 2**-53, 1e6, -1e6, 1.0 + 2**-51],
        # inf and -inf share the codes of the largest and smallest finite scores
        [float("inf"), 3.0, float("-inf"), -2.0, 3.0, float("inf")],
        [float("inf"), float("-inf"), float("inf"), float("-inf")],  # no finite score
        [2.5, 2.5, 2.5, 2.5],  # one value: every code 0
        [-0.0, 0.0, 1e-300, -1e-300, 5e-324, 0.0],
    ],
)
def test_coarse_order_ties_are_sorted_exactly(scores: list[float]) -> None:
    # grades differ between neighbours, so every coarse tie is redone exactly
    run, qrels = _scores_run(scores, [i % 3 for i in range(len(scores))])
    check(run, qrels, None, keyed=True)


def test_score_range_beyond_float64_falls_back() -> None:
    # max - min overflows: the linear code cannot be computed, the general plan runs
    run, qrels = _scores_run([1.7e308, -1.7e308, 0.0], [1, 0, 2])
    check(run, qrels, None, keyed=False)


def test_more_rows_than_the_sort_key_numbers_fall_back(monkeypatch: pytest.MonkeyPatch) -> None:
    # the key's low 32 bits number the rows: past 2**32 rows the general plan sorts
    monkeypatch.setattr(_keyed, "_MAX_ROWS", 4)
    run, qrels = _scores_run([0.5, 0.25, 0.75, 0.1, 0.9], [1, 0, 2, 1, 0])
    check(run, qrels, None, keyed=False)


def test_integer_ranks_beyond_float64_precision_are_sorted_exactly() -> None:
    # 2**53 + 1 rounds to 2**53 as a float: the coarse key ties them, the redo does not
    base = 2**53
    run = {"query_id": ["q"] * 4, "doc_id": ["a", "b", "c", "d"], "rank": [base + 1, base, base + 2, 1]}
    qrels = {"query_id": ["q"] * 3, "doc_id": ["a", "b", "c"], "relevance": [1, 0, 2]}
    with keyed_spy() as used:
        got = evaluate(run, qrels)
    assert used == [True]
    assert got.equals(general(run, qrels))
    # ranking d, b, a, c: the first relevant (a, grade 1) is at rank 3
    assert got.item(0, "RR") == 1 / 3


def test_sort_key_layout_bits() -> None:
    # 1e6 rows: 20 bits of row number; 10,000 queries (14 bits): 2 * 14 - 2 = 26 query bits
    layout = _keyed._Layout.of(1_000_000, 10_000)
    assert (layout.row, layout.query, layout.order) == (20, 26, 18)
    # 1e7 rows, 100,000 queries: 34 query bits wanted, 24 left after 16 for the order
    assert astuple(_keyed._Layout.of(10_000_000, 100_000)) == (24, 16, 24)
    assert astuple(_keyed._Layout.of(2**32, 2**32)) == (16, 16, 32)
    assert astuple(_keyed._Layout.of(1, 1)) == (16, 47, 1)


@settings(max_examples=examples(60), deadline=None)
@given(
    fields=st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=1, max_size=40),
    n_rows=st.sampled_from([1, 7, 1_000_000, 2**32]),
    n_queries=st.sampled_from([1, 100, 10**6, 2**32]),
)
def test_key_starts_equal_the_shifted_key(fields: list[tuple[int, int]], n_rows: int, n_queries: int) -> None:
    # the boundaries read from one XOR of neighbours are those of the shifted key, whatever
    # the layout: query and order fields near 0 and near their maxima, row numbers counting up
    layout = _keyed._Layout.of(n_rows, n_queries)
    top_q, top_o = (1 << layout.query) - 1, (1 << layout.order) - 1
    q = np.array([(0, 1, top_q - 1, top_q)[a] for a, _ in fields], dtype=np.uint64)
    o = np.array([(0, 1, top_o - 1, top_o)[b] for _, b in fields], dtype=np.uint64)
    key = (q << np.uint64(layout.order + layout.row)) | (o << np.uint64(layout.row))
    key |= np.arange(len(fields), dtype=np.uint64) % np.uint64(1 << layout.row)
    key.sort()
    coarse, bucket = key >> np.uint64(layout.row), key >> np.uint64(layout.order + layout.row)
    want_key = np.concatenate([[True], coarse[1:] != coarse[:-1]])
    want_bucket = np.concatenate([[True], bucket[1:] != bucket[:-1]])
    new_key, new_bucket = _keyed._key_starts(key, layout)
    assert new_key.tolist() == want_key.tolist()
    assert new_bucket.tolist() == want_bucket.tolist()


@settings(max_examples=examples(25), deadline=None)
@given(
    data=run_and_qrels(grades=(-1, 0, 0, 1, 2, 0.5)),
    use_rank=st.booleans(),
    weak=st.sampled_from([None, 32, 40, 6]),
)
def test_keyed_equals_general_plan(
    data: tuple[dict[str, list[Any]], dict[str, list[Any]]], use_rank: bool, weak: int | None
) -> None:
    run, qrels = data
    if use_rank:  # an integer rank column with ties, in the run's row order
        ranks = [int(s * 3) for s in run["score"]]
        run = {"query_id": run["query_id"], "doc_id": run["doc_id"], "rank": ranks}
    with keyed_spy(None if weak is None else _weak(weak)):
        got = evaluate(run, qrels)
    assert got.equals(general(run, qrels))


def test_systems_partition_the_run() -> None:
    # two systems answer the same queries: the run repeats (query, doc), the qrels do not
    rng = random.Random(3)
    run: dict[str, list[Any]] = {"system": [], "query_id": [], "doc_id": [], "score": []}
    for system in ("bm25", "dense"):
        for q in ("q1", "q2"):
            for d in "abcdef":
                run["system"].append(system)
                run["query_id"].append(q)
                run["doc_id"].append(d)
                run["score"].append(rng.choice([0.5, 1.0, 2.0]))
    qrels = {"query_id": ["q1", "q1", "q2", "q3"], "doc_id": ["a", "c", "f", "a"], "relevance": [1, 2, 1, 1]}
    with keyed_spy() as used:
        got = evaluate(run, qrels, by="system")
    assert used == [True]
    assert got.equals(general(run, qrels, by="system"))
    for system in ("bm25", "dense"):
        keep = [s == system for s in run["system"]]
        cols = ("query_id", "doc_id", "score")
        part = {k: [v for v, ok in zip(run[k], keep, strict=True) if ok] for k in cols}
        expected = oracle_evaluate(part, qrels, LABELS, missing="zero")
        mine = got.filter(pl.col("system") == system).drop("system")
        assert_close_dicts(per_query_dict(mine, LABELS), expected, tol=1e-12)


@contextmanager
def sort_spy() -> Iterator[list[str]]:
    """Record which keyed ordering ran: 'kept' (already in ranking order) or 'sorted'."""
    calls: list[str] = []
    seg, rows = _plan.segment_rows, _plan.keyed_rows

    def seg_spy(*args: Any) -> Any:
        out = seg(*args)
        calls.append("kept" if out is not None else "not ordered")
        return out

    def rows_spy(*args: Any) -> Any:
        calls.append("sorted")
        return rows(*args)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_plan, "segment_rows", seg_spy)
        mp.setattr(_plan, "keyed_rows", rows_spy)
        yield calls


def _in_ranking_order(run: dict[str, list[Any]]) -> dict[str, list[Any]]:
    """The rows sorted by query, score descending, doc id descending (the ranking rule)."""
    rows = sorted(zip(run["query_id"], run["doc_id"], run["score"], strict=True),
                  key=lambda r: (r[0], -r[2], tuple(-b for b in r[1].encode())))  # fmt: skip
    return {"query_id": [r[0] for r in rows], "doc_id": [r[1] for r in rows], "score": [r[2] for r in rows]}


def test_run_in_ranking_order_is_not_sorted_again() -> None:
    ordered = _in_ranking_order(RUN)
    assert ordered["doc_id"][:5] == ["c", "bb", "a", "e", "dd"]  # ties: doc id descending
    with sort_spy() as calls:
        check(ordered, QRELS, None, keyed=True)
    assert calls[0] == "kept"


def test_tie_out_of_doc_order_is_sorted() -> None:
    # q1's rows follow the scores, but the tied a/bb are in ascending doc order: not ranking order
    ordered = _in_ranking_order(RUN)
    i, j = ordered["doc_id"].index("bb"), ordered["doc_id"].index("a")
    ordered["doc_id"][i], ordered["doc_id"][j] = "a", "bb"
    with sort_spy() as calls:
        check(ordered, QRELS, None, keyed=True)
    assert calls[:2] == ["not ordered", "sorted"]


def test_query_split_in_two_blocks_is_sorted() -> None:
    # each block in ranking order, but q1 comes back after q2: rows must be brought together
    run = {
        "query_id": ["q1", "q1", "q2", "q2", "q1"],
        "doc_id": ["a", "dd", "bb", "gg", "e"],
        "score": [3.0, 2.0, 1.0, 0.5, 1.0],
    }
    with sort_spy() as calls:
        check(run, QRELS, None, keyed=True)
    assert calls[:2] == ["not ordered", "sorted"]


def _long_run(n_queries: int, docs: int) -> dict[str, list[Any]]:
    """``n_queries`` queries of ``docs`` rows each, in ranking order (more rows than the
    first-rows probe of ``segment_rows``)."""
    run: dict[str, list[Any]] = {"query_id": [], "doc_id": [], "score": []}
    for q in range(n_queries):
        for d in range(docs):
            run["query_id"].append(f"q{q:03d}")
            run["doc_id"].append(f"d{(q * 7 + d) % 90:02d}")
            run["score"].append(float(docs - d) / 4)  # a few ties per query
    return _in_ranking_order(run)


def _long_qrels(run: dict[str, list[Any]]) -> dict[str, list[Any]]:
    rows = list(zip(run["query_id"], run["doc_id"], strict=True))[::3]
    return {"query_id": [q for q, _ in rows], "doc_id": [d for _, d in rows],
            "relevance": [i % 3 for i in range(len(rows))]}  # fmt: skip


def test_disorder_after_the_first_rows_is_found() -> None:
    # the first rows (the probe) are in ranking order; a query far after them is split in two
    run = _long_run(120, 60)
    assert len(run["query_id"]) > _keyed._PROBE
    qrels = _long_qrels(run)
    i = run["query_id"].index("q110")
    for col in run:  # q110's first row moves to the end: q110 is no longer contiguous
        run[col].append(run[col].pop(i))
    with sort_spy() as calls:
        check(run, qrels, None, keyed=True)
    assert calls[:2] == ["not ordered", "sorted"]


def test_long_run_in_order_is_kept_and_shuffled_one_sorted() -> None:
    run = _long_run(120, 60)
    qrels = _long_qrels(run)
    with sort_spy() as calls:
        check(run, qrels, None, keyed=True)
    assert calls[0] == "kept"
    order = list(range(len(run["query_id"])))
    random.Random(3).shuffle(order)
    shuffled = {c: [v[i] for i in order] for c, v in run.items()}
    with sort_spy() as calls:
        check(shuffled, qrels, None, keyed=True)
    assert calls[:2] == ["not ordered", "sorted"]


def _rank_and_score(rows: list[tuple[str, str, int, float]]) -> dict[str, list[Any]]:
    cols = ("query_id", "doc_id", "rank", "score")
    return {c: [r[i] for r in rows] for i, c in enumerate(cols)}


@pytest.mark.parametrize("presorted", [True, False])
def test_agreeing_rank_and_score_take_the_keyed_path(presorted: bool) -> None:
    # order='auto' with a rank and a score that agree (ties in rank, ties in score)
    rows = [("q1", "a", 1, 3.0), ("q1", "dd", 1, 2.0), ("q1", "bb", 2, 2.0), ("q1", "e", 3, 1.0),
            ("q2", "gg", 1, 0.5), ("q2", "bb", 2, 0.5), ("q2", "f", 4, -1.0)]  # fmt: skip
    if not presorted:
        rows = rows[::-1]
    run = _rank_and_score(rows)
    with keyed_spy() as used:
        got = evaluate(run, QRELS)
    assert used == [True]
    assert got.equals(general(run, QRELS))
    expected = oracle_evaluate(
        {k: v for k, v in run.items() if k != "score"}, QRELS, LABELS, missing="zero"
    )  # the oracle ranks by the rank column (ties: doc id descending)
    assert_close_dicts(per_query_dict(got, LABELS), expected, tol=1e-12)


@pytest.mark.parametrize("rows", [
    # a rank-1 score (1.0) below the rank-2 score (2.0); the tie group's order hides it from
    # a comparison of neighbours only (dd, then a: 1.0 -> 3.0 is within rank 1)
    [("q1", "dd", 1, 1.0), ("q1", "a", 1, 3.0), ("q1", "bb", 2, 2.0)],
    [("q1", "a", 1, 3.0), ("q1", "bb", 2, 2.0), ("q2", "gg", 1, 1.0), ("q2", "bb", 3, 1.5)],
])  # fmt: skip
@pytest.mark.parametrize("presorted", [True, False])
def test_disagreeing_rank_and_score_are_refused(
    rows: list[tuple[str, str, int, float]], presorted: bool
) -> None:
    run = _rank_and_score(rows if presorted else rows[::-1])
    with keyed_spy() as used, pytest.raises(InvalidDataError, match="disagree in 1 of"):
        evaluate(run, QRELS)
    assert used == [False]  # the keyed path found the rise and left the report to the general plan


def test_nan_score_is_left_to_the_general_plan() -> None:
    run = _rank_and_score([("q1", "a", 1, 3.0), ("q1", "bb", 2, float("nan"))])
    with keyed_spy() as used:
        got = evaluate(run, QRELS)
    assert used == [False]
    assert got.equals(general(run, QRELS))


def test_concurrent_calls_from_threads_agree() -> None:
    # the keyed path waits on background polars queries: calls from many Python threads
    # at once (each its own shuffle of the run) must neither block nor mix their answers
    from concurrent.futures import ThreadPoolExecutor

    run, qrels = run_and_qrels_frames(n_queries=40, docs=25, seed=5)
    with keyed_spy() as used:
        ref = irframe.evaluate(run, LABELS, qrels, per_query=True)
    assert used == [True]

    def shuffled(i: int) -> pl.DataFrame:
        return irframe.evaluate(run.sample(fraction=1.0, shuffle=True, seed=i), LABELS, qrels, per_query=True)

    with ThreadPoolExecutor(6) as pool:
        outs = list(pool.map(shuffled, range(12)))
    for out in outs:
        assert out.sort("query_id").equals(ref.sort("query_id"))


def run_and_qrels_frames(n_queries: int, docs: int, seed: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    """A run with tied scores (two decimals) and graded qrels for every other document."""
    rng = random.Random(seed)
    run: dict[str, list[Any]] = {"query_id": [], "doc_id": [], "score": []}
    qrels: dict[str, list[Any]] = {"query_id": [], "doc_id": [], "relevance": []}
    for q in range(n_queries):
        for d in range(docs):
            run["query_id"].append(f"q{q}")
            run["doc_id"].append(f"doc{d:03d}")
            run["score"].append(round(rng.random(), 2))
            if d % 2 == 0:
                qrels["query_id"].append(f"q{q}")
                qrels["doc_id"].append(f"doc{d:03d}")
                qrels["relevance"].append(rng.choice([0, 1, 2, 3]))
    return pl.DataFrame(run), pl.DataFrame(qrels)


# ----------------------------------------------------------------------------------------
# grades on the run's rows (no qrels): no join, the judgments counted from the run itself
# ----------------------------------------------------------------------------------------
GRADED_LABELS = [*LABELS, "nDCG(gain=exp)@5", "NumRel", "infAP"]


def evaluate_graded(run: pl.DataFrame, *, enabled: bool = True) -> tuple[pl.DataFrame, list[bool]]:
    with keyed_spy(enabled=enabled) as used:
        out = irframe.evaluate(run, GRADED_LABELS, per_query=True)
    return out, used


@settings(max_examples=examples(40), deadline=None)
@given(data=run_and_qrels(grades=(-1, 0, 0, 1, 2, 0.5)), use_rank=st.booleans(), presorted=st.booleans())
def test_grades_on_the_run_take_the_keyed_path(
    data: tuple[dict[str, list[Any]], dict[str, list[Any]]], use_rank: bool, presorted: bool
) -> None:
    run, qrels = data
    if use_rank:
        run = {
            "query_id": run["query_id"],
            "doc_id": run["doc_id"],
            "rank": [int(s * 3) for s in run["score"]],
        }
    graded = graded_run(run, qrels)
    if presorted:  # the ranking order: segment_rows keeps it instead of sorting
        order = ["query_id", "rank" if use_rank else "score", "doc_id"]
        graded = graded.sort(order, descending=[False, not use_rank, True])
    got, used = evaluate_graded(graded)
    assert used == [True]
    want, _ = evaluate_graded(graded, enabled=False)
    assert got.equals(want)
    expected = oracle_evaluate(graded.to_dict(as_series=False), None, GRADED_LABELS)
    assert_close_dicts(per_query_dict(got, GRADED_LABELS), expected, tol=1e-12)


def test_grades_on_the_run_by_hand() -> None:
    run = pl.DataFrame(
        {
            "query_id": ["q1"] * 5 + ["q2"] * 2 + ["q3"],
            "doc_id": ["a", "bb", "c", "dd", "e", "a", "b", "z"],
            "score": [0.5, 0.5, 0.7, 0.0, -0.0, 1.0, 2.0, 1.0],
            "relevance": [1, None, 2, 0, 1, 0, 0, None],
        }
    )
    got, used = evaluate_graded(run)
    assert used == [True]
    row = got.filter(pl.col("query_id") == "q1").row(0, named=True)
    # ties broken by doc id descending: bb before a (0.5), e before dd (0.0), so the
    # ranking is c (2), bb (unjudged), a (1), e (1), dd (0)
    assert row["RR"] == 1.0
    assert row["P@2"] == 0.5  # c relevant, bb unjudged
    assert row["NumRel"] == 3.0  # c, a, e (grades >= 1 among the judged rows)
    assert row["AP"] == pytest.approx((1 / 1 + 2 / 3 + 3 / 4) / 3)
    assert got.filter(pl.col("query_id") == "q2").item(0, "AP") == 0.0  # judged, nothing relevant
    assert got.filter(pl.col("query_id") == "q3").item(0, "AP") is None  # not judged at all


def test_infinite_grade_on_the_run_is_refused_after_the_keyed_path() -> None:
    run = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [1.0, 2.0],
                        "relevance": [1.0, float("inf")]})  # fmt: skip
    with keyed_spy() as used, pytest.raises(InvalidDataError, match="infinite grade"):
        irframe.evaluate(run, ["AP"], per_query=True)
    assert used == [True]


def test_duplicate_run_rows_without_qrels_fall_back_and_raise() -> None:
    run = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "b", "a"], "score": [3.0, 2.0, 1.0],
                        "relevance": [1, 0, 1]})  # fmt: skip
    with keyed_spy() as used, pytest.raises(DuplicateRowsError, match="q1"):
        irframe.evaluate(run, ["AP"], per_query=True)
    assert used == [False]


@pytest.mark.parametrize(
    ("data", "hash_fn", "keyed"),
    [
        ((RUN, QRELS), _weak(2), False),  # (query, doc) keys collide: the duplicate probe
        (_prefix_run(), _weak(32), True),  # query prefixes collide: sorted again exactly
        ((_MERGED_RUN, _MERGED_QRELS), _merge_queries, False),  # two queries, one hash
    ],
    ids=["key-collision", "prefix-collision", "query-collision"],
)
def test_grades_on_the_run_with_colliding_hashes_match(
    data: tuple[dict[str, list[Any]], dict[str, list[Any]]], hash_fn: Hash, keyed: bool
) -> None:
    # grades on the run's rows (no join): the same collisions as the qrels path's tests
    graded = graded_run(*data)
    want, _ = evaluate_graded(graded, enabled=False)
    with keyed_spy(hash_fn) as used:
        got = irframe.evaluate(graded, GRADED_LABELS, per_query=True)
    assert used == [keyed]
    assert got.equals(want)
