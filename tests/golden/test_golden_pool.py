"""irframe.pool: hand-computed pools on small runs written out here.

The runs (depth 3):

* system A, by score: q1 d1 3.0, d2 2.0, d3 2.0, d4 1.0 -> d1, d3, d2 (the tie of d2 and
  d3 broken by doc id descending: d3 first), d4 cut; q2 d7 1.0, d8 1.0 -> d8, d7.
* system B, by score: q1 d5 4.0, d3 3.0, d1 2.0, d9 1.0 -> d5, d3, d1, d9 cut; q10 d1 5.0.
* qrels: q1 d1 = 1, q2 d7 = 0 (a grade 0 is judged).

Discounts 1/log2(position + 1): position 1 -> 1, 2 -> 1/log2(3) = 0.6309297535714575,
3 -> 1/log2(4) = 0.5.  Pool:

=====  ====  ==========================  =========  =========  =======
query  doc   priority                    n_systems  best_rank  judged
=====  ====  ==========================  =========  =========  =======
q1     d3    0.63093 + 0.63093 = 1.26186  2          2          no
q1     d5    1                           1          1          no
q2     d8    1                           1          1          no
q10    d1    1                           1          1          no
q1     d2    0.5                         1          3          no
q1     d1    1 + 0.5 = 1.5               2          1          yes (1)
q2     d7    0.63093                     1          2          yes (0)
=====  ====  ==========================  =========  =========  =======

The three pairs of priority 1 (one system, best rank 1) are in natural query order:
q1, q2, q10.
"""

from __future__ import annotations

import math

import polars as pl
import pytest

import irframe
from _support.helpers import to_polars
from irframe.exceptions import (
    ColumnNotFoundError,
    DuplicateRowsError,
    InvalidDataError,
    InvalidParameterError,
)

D2 = 1 / math.log2(3)

RUN_A = {
    "query_id": ["q1", "q1", "q1", "q1", "q2", "q2"],
    "doc_id": ["d1", "d2", "d3", "d4", "d7", "d8"],
    "score": [3.0, 2.0, 2.0, 1.0, 1.0, 1.0],
}
RUN_B = {
    "query_id": ["q1", "q1", "q1", "q1", "q10"],
    "doc_id": ["d5", "d3", "d1", "d9", "d1"],
    "score": [4.0, 3.0, 2.0, 1.0, 5.0],
}
QRELS = {"query_id": ["q1", "q2"], "doc_id": ["d1", "d7"], "relevance": [1, 0]}

TO_JUDGE = [
    ("q1", "d3", 2 * D2, 2, 2),
    ("q1", "d5", 1.0, 1, 1),
    ("q2", "d8", 1.0, 1, 1),
    ("q10", "d1", 1.0, 1, 1),
    ("q1", "d2", 0.5, 1, 3),
]
JUDGED = [("q1", "d1", 1.5, 2, 1, 1), ("q2", "d7", D2, 1, 2, 0)]


def _approx_rows(rows: list[tuple[object, ...]]) -> list[tuple[object, ...]]:
    return [tuple(pytest.approx(v) if isinstance(v, float) else v for v in r) for r in rows]


def _runs(ctor=pl.DataFrame) -> dict[str, object]:
    return {"A": ctor(RUN_A), "B": ctor(RUN_B)}


def test_hand_computed_pool() -> None:
    p = irframe.pool(_runs(), pl.DataFrame(QRELS), depth=3)
    assert p.to_judge.columns == ["query_id", "doc_id", "priority", "n_systems", "best_rank"]
    assert p.to_judge.rows() == _approx_rows(TO_JUDGE)
    assert p.judged.rows() == _approx_rows(JUDGED)
    assert p.judged.schema["relevance"] == pl.Int64  # the qrels' dtype
    assert (p.n_pooled, p.n_judged, p.n_to_judge, p.n_queries) == (7, 2, 5, 3)
    assert p.systems == ("A", "B")
    assert str(p) == "pool at depth 3 of 2 systems over 3 queries: 7 pairs, 2 already judged, 5 to judge"


def test_per_query_counts() -> None:
    p = irframe.pool(_runs(), pl.DataFrame(QRELS), depth=3)
    # q1: d1, d2, d3, d5 pooled, d1 judged; q2: d7, d8, d7 judged; q10: d1
    assert p.queries.rows() == [("q1", 2, 4, 1, 3), ("q2", 1, 2, 1, 1), ("q10", 1, 1, 0, 1)]
    assert p.queries.columns == ["query_id", "n_systems", "n_pooled", "n_judged", "n_to_judge"]


def test_coverage_is_judged_at_depth_of_evaluate() -> None:
    qrels = pl.DataFrame(QRELS)
    p = irframe.pool(_runs(), qrels, depth=3)
    assert p.coverage.rows() == _approx_rows(
        [
            ("A", "q1", 3, 1, 2, 1 / 3),
            ("A", "q2", 2, 1, 1, 0.5),
            ("B", "q1", 3, 1, 2, 1 / 3),
            ("B", "q10", 1, 0, 1, 0.0),
        ]
    )
    # the same fractions as evaluate's Judged@3 (its own ranking and judged rule)
    for name, run in _runs().items():
        ev = irframe.evaluate(run, "Judged@3", qrels, per_query=True, missing="drop")
        got = dict(p.coverage.filter(pl.col("system") == name).select("query_id", "judged").iter_rows())
        want = {q: v for q, v in ev.iter_rows() if v is not None}
        assert got.keys() >= want.keys()
        for q, v in want.items():
            assert got[q] == pytest.approx(v)


def test_sort_by_query() -> None:
    p = irframe.pool(_runs(), pl.DataFrame(QRELS), depth=3, sort="query")
    assert p.to_judge.select("query_id", "doc_id").rows() == [
        ("q1", "d3"), ("q1", "d5"), ("q1", "d2"), ("q2", "d8"), ("q10", "d1"),
    ]  # fmt: skip


def test_depth_cut() -> None:
    p = irframe.pool(_runs(), pl.DataFrame(QRELS), depth=1)
    # tops: A q1 d1 (judged), A q2 d8, B q1 d5, B q10 d1
    assert p.to_judge.rows() == [("q1", "d5", 1.0, 1, 1), ("q2", "d8", 1.0, 1, 1), ("q10", "d1", 1.0, 1, 1)]
    assert p.judged.rows() == [("q1", "d1", 1.0, 1, 1, 1)]
    assert p.coverage.get_column("n_top").to_list() == [1, 1, 1, 1]


def test_without_qrels_everything_is_to_judge() -> None:
    p = irframe.pool(_runs(), depth=3)
    assert p.n_judged == 0
    assert p.to_judge.height == 7
    # d1 of q1 is now first: 1.5 beats 2 / log2(3)
    assert p.to_judge.row(0) == pytest.approx(("q1", "d1", 1.5, 2, 1))
    assert p.judged.height == 0


def test_ties_broken_by_doc_id_descending_integer_ids_as_text() -> None:
    # scores tie: doc ids descending as text, so "9" ranks above "10" (trec_eval's strcmp)
    run = pl.DataFrame({"query_id": [1, 1, 1], "doc_id": [10, 9, 100], "score": [1.0, 1.0, 0.5]})
    p = irframe.pool(run, depth=2, system_col=None)
    assert p.to_judge.rows() == _approx_rows([(1, 9, 1.0, 1, 1), (1, 10, D2, 1, 2)])
    assert p.to_judge.schema["doc_id"] == pl.Int64  # the run's dtypes come back
    assert p.systems == ("run",)


def test_rank_column_orders_and_best_rank_is_the_position() -> None:
    # ranks 5, 7, 9: positions 1, 2, 3 (best_rank is the position in the order, not the rank value)
    run = pl.DataFrame(
        {"query_id": ["q"] * 3, "doc_id": ["x", "y", "z"], "rank": [9, 5, 7], "score": [1.0, 3.0, 2.0]}
    )
    p = irframe.pool(run, depth=2, system_col=None)
    assert p.to_judge.select("doc_id", "best_rank").rows() == [("y", 1), ("z", 2)]


def test_stacked_frame_and_system_order(constructor) -> None:
    stacked = pl.concat(
        [
            pl.DataFrame(RUN_B).with_columns(system=pl.lit("B")),
            pl.DataFrame(RUN_A).with_columns(system=pl.lit("A")),
        ]
    )
    p = irframe.pool(constructor(stacked.to_dict(as_series=False)), constructor(QRELS), depth=3)
    assert isinstance(p.to_judge, constructor.native_type)
    assert isinstance(p.coverage, constructor.native_type)
    assert to_polars(p.to_judge).rows() == _approx_rows(TO_JUDGE)
    assert p.systems == ("B", "A")  # input order
    assert to_polars(p.coverage).get_column("system").to_list() == ["B", "B", "A", "A"]


def test_frame_types_of_a_dict(constructor) -> None:
    p = irframe.pool({"A": constructor(RUN_A), "B": constructor(RUN_B)}, constructor(QRELS), depth=3)
    for frame in (p.to_judge, p.judged, p.coverage, p.queries):
        assert isinstance(frame, constructor.native_type)
    assert to_polars(p.judged).rows() == _approx_rows(JUDGED)


def test_row_order_does_not_change_the_pool() -> None:
    shuffled = {
        k: pl.DataFrame(v).sample(fraction=1.0, shuffle=True, seed=3) for k, v in (("B", RUN_B), ("A", RUN_A))
    }
    p = irframe.pool(shuffled, pl.DataFrame(QRELS).reverse(), depth=3)
    assert p.to_judge.rows() == _approx_rows(TO_JUDGE)


def test_query_and_document_texts() -> None:
    queries = pl.DataFrame({"query_id": ["q1", "q2"], "text": ["cheap flights", "weather"]})
    docs = pl.DataFrame(
        {"doc_id": ["d1", "d2", "d3", "d5", "d8", "zz"], "title": ["T1", "T2", "T3", "T5", "T8", "Z"],
         "text": ["one", "two", "three", "five", "eight", "unused"]}
    )  # fmt: skip
    p = irframe.pool(_runs(), pl.DataFrame(QRELS), depth=3, queries=queries, documents=docs,
                     doc_text_col=["title", "text"], all_queries=True)  # fmt: skip
    assert p.to_judge.columns == [
        "query_id", "query_text", "doc_id", "doc_title", "doc_text", "priority", "n_systems", "best_rank",
    ]  # fmt: skip
    assert p.to_judge.select("query_id", "query_text", "doc_id", "doc_title").rows() == [
        ("q1", "cheap flights", "d3", "T3"), ("q1", "cheap flights", "d5", "T5"),
        ("q2", "weather", "d8", "T8"),
        ("q10", None, "d1", "T1"), ("q1", "cheap flights", "d2", "T2"),
    ]  # fmt: skip
    # q10 has no text; q2's d7 (judged) has no document text: counted per query
    assert p.queries.select("query_id", "n_no_query_text", "n_no_doc_text").rows() == [
        ("q1", 0, 0), ("q2", 0, 1), ("q10", 1, 0),
    ]  # fmt: skip


def test_duplicate_document_in_a_ranking() -> None:
    run = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "b", "a"], "score": [3.0, 2.0, 1.0]})
    with pytest.raises(DuplicateRowsError, match=r"1 duplicate .*\('run', 'q1', 'a'\).*duplicates='first'"):
        irframe.pool(run, system_col=None)
    with pytest.warns(irframe.exceptions.DuplicatesWarning, match="dropped 1 of 3 run rows"):
        p = irframe.pool(run, system_col=None, duplicates="first")
    assert p.to_judge.select("doc_id", "best_rank").rows() == [("a", 1), ("b", 2)]


def test_bad_input_messages() -> None:
    runs = _runs()
    with pytest.raises(InvalidParameterError, match=r"'depth' parameter of pool must be an int >= 1\. Got 0"):
        irframe.pool(runs, depth=0)
    with pytest.raises(InvalidParameterError, match="'sort' parameter"):
        irframe.pool(runs, sort="random")  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError, match="takes no by="):
        irframe.pool(runs, by="segment")
    with pytest.raises(ColumnNotFoundError, match=r"(?s)no system column 'system'.*system_col=None"):
        irframe.pool(pl.DataFrame(RUN_A))
    with pytest.raises(ColumnNotFoundError, match="no query_id column 'qid'"):
        irframe.pool(runs, query_col="qid")
    with pytest.raises(ColumnNotFoundError, match="qrels frame has no relevance column 'relevance'"):
        irframe.pool(runs, pl.DataFrame(QRELS).rename({"relevance": "rel"}))
    null_score = pl.DataFrame(RUN_A).with_columns(
        score=pl.when(pl.col("doc_id") == "d8").then(None).otherwise("score")
    )
    with pytest.raises(
        InvalidDataError,
        match=r"1 run rows have a null or NaN score in column 'score', e.g. system 'A', query 'q2'",
    ):
        irframe.pool({"A": null_score})


def test_bad_qrels_and_text_tables() -> None:
    runs = _runs()
    twice = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["d1", "d1"], "relevance": [1, 2]})
    with pytest.raises(
        DuplicateRowsError,
        match=r"judge the same document twice in queries 'q1', e\.g\. \(query, document\) \('q1', 'd1'\)",
    ):
        irframe.pool(runs, twice)
    queries = pl.DataFrame({"query_id": ["q1", "q1"], "text": ["a", "b"]})
    with pytest.raises(
        DuplicateRowsError, match=r"queries table has several rows for query ids 'q1' \(column 'query_id'\)"
    ):
        irframe.pool(runs, queries=queries)
    with pytest.raises(ColumnNotFoundError, match=r"(?s)no text column 'body'.*doc_text_col"):
        irframe.pool(runs, documents=pl.DataFrame({"doc_id": ["d1"], "text": ["x"]}), doc_text_col="body")


def test_runs_ranked_by_rank_and_by_score_mixed() -> None:
    by_rank = pl.DataFrame(
        {"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "rank": [2, 1], "score": [1.0, 2.0]}
    )
    by_score = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "c"], "score": [2.0, 1.0]})
    with pytest.raises(
        InvalidDataError, match=r"2 run rows have a null or NaN rank.*system 'S'.*order='score'"
    ):
        irframe.pool({"R": by_rank, "S": by_score})
    p = irframe.pool({"R": by_rank, "S": by_score}, order="score")
    assert p.to_judge.select("doc_id", "n_systems", "best_rank").rows() == [
        ("a", 2, 1),
        ("b", 1, 1),
        ("c", 1, 2),
    ]


def test_rank_and_score_disagree() -> None:
    run = pl.DataFrame({"query_id": ["q"] * 2, "doc_id": ["x", "y"], "rank": [1, 2], "score": [1.0, 2.0]})
    with pytest.raises(InvalidDataError, match="order='rank' or order='score'"):
        irframe.pool(run, system_col=None)
    assert irframe.pool(run, system_col=None, order="score").to_judge.get_column("doc_id").to_list() == [
        "y",
        "x",
    ]


def test_ids_of_other_dtypes_join_as_text() -> None:
    run = pl.DataFrame({"query_id": [1, 1], "doc_id": ["a", "b"], "score": [2.0, 1.0]})
    qrels = pl.DataFrame({"query_id": ["1"], "doc_id": ["a"], "relevance": [2]})
    p = irframe.pool(run, qrels, system_col=None)
    assert p.judged.select("query_id", "doc_id", "relevance").rows() == [(1, "a", 2)]
    assert p.to_judge.select("query_id", "doc_id").rows() == [(1, "b")]


def _oracle_pool(runs: dict[str, list[tuple[str, str, float]]], judged: set[tuple[str, str]], depth: int):
    """Plain Python: each ranking by score descending, ties by doc id descending; the pool's rows."""
    pos: dict[tuple[str, str], list[int]] = {}
    for rows in runs.values():
        by_query: dict[str, list[tuple[str, float]]] = {}
        for q, d, s in rows:
            by_query.setdefault(q, []).append((d, s))
        for q, docs in by_query.items():
            docs.sort(key=lambda ds: ds[0], reverse=True)  # ties: doc id descending (sort is stable)
            docs.sort(key=lambda ds: ds[1], reverse=True)
            for i, (d, _) in enumerate(docs[:depth], start=1):
                pos.setdefault((q, d), []).append(i)
    out = []
    for (q, d), ps in pos.items():
        if (q, d) in judged:
            continue
        prio = sum(1 / math.log2(p + 1) for p in sorted(ps))
        digits = "".join(c for c in q if c.isdigit())
        out.append((q, d, prio, len(ps), min(ps), (q.rstrip("0123456789"), len(digits), digits)))
    out.sort(key=lambda r: (-r[2], -r[3], r[4], r[5], r[1]))
    return [r[:5] for r in out]


@pytest.mark.parametrize("seed", range(5))
def test_random_pools_match_a_plain_python_oracle(seed: int) -> None:
    import random

    rnd = random.Random(seed)
    runs: dict[str, list[tuple[str, str, float]]] = {}
    for s in ("x", "y", "z"):
        rows = []
        for q in rnd.sample(["q1", "q2", "q3", "q10", "q11"], 4):
            for d in rnd.sample([f"d{i}" for i in range(12)], rnd.randint(1, 10)):
                rows.append((q, d, float(rnd.randint(0, 3))))  # many ties
        runs[s] = rows
    judged = {(q, d) for rows in runs.values() for q, d, _ in rows if rnd.random() < 0.3}
    frames = {
        s: pl.DataFrame(rows, schema=["query_id", "doc_id", "score"], orient="row")
        for s, rows in runs.items()
    }
    qrels = pl.DataFrame(sorted(judged), schema=["query_id", "doc_id"], orient="row").with_columns(
        relevance=pl.lit(1)
    )
    depth = rnd.randint(1, 6)
    got = irframe.pool(frames, qrels, depth=depth).to_judge.rows()
    assert got == _approx_rows(_oracle_pool(runs, judged, depth))


def test_holes_for_compare_and_check() -> None:
    """The per-(system, query) unjudged documents of the top k, as compare/check call it."""
    from irframe._golden.ranked import holes
    from irframe._input.keys import SYSTEM
    from irframe._input.options import Options

    stacked = pl.concat(
        [
            pl.DataFrame(RUN_A).with_columns(pl.lit("A").alias(SYSTEM)),
            pl.DataFrame(RUN_B).with_columns(pl.lit("B").alias(SYSTEM)),
        ]
    ).lazy()
    got = holes(stacked, pl.DataFrame(QRELS), Options(), k=3)
    # A q1: d1 (judged) d3 d2; A q2: d8 d7 (judged); B q1: d5 d3 d1 (judged); B q10: d1
    assert got.rows() == _approx_rows([
        ("A", "q1", 3, 1, 2, 1 / 3, ["d3", "d2"], [2, 3]),
        ("A", "q2", 2, 1, 1, 0.5, ["d8"], [1]),
        ("B", "q1", 3, 1, 2, 1 / 3, ["d5", "d3"], [1, 2]),
        ("B", "q10", 1, 0, 1, 0.0, ["d1"], [1]),
    ])  # fmt: skip
