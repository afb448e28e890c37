"""irframe.add_judgments: counts, conflicts, validation, dtypes and the stable order."""

from __future__ import annotations

import datetime as dt

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

QRELS = {"query_id": ["q10", "q1", "q2"], "doc_id": ["a", "b", "a"], "relevance": [1, 0, 2]}


def _sheet(rows: list[tuple[str, str, object]], **extra: list[object]) -> pl.DataFrame:
    q, d, g = zip(*rows, strict=True)
    return pl.DataFrame({"query_id": list(q), "doc_id": list(d), "grade": list(g), **extra}, strict=False)


def test_every_action_counted_and_the_merged_order() -> None:
    sheet = _sheet(
        [("q2", "z", "1"), ("q1", "b", "0"), ("q2", "a", "3"), ("q1", "c", ""), ("q3", "x", " 2 ")]
    )
    m = irframe.add_judgments(pl.DataFrame(QRELS), sheet, on_conflict="sheet")
    assert m.counts == {"added": 2, "changed": 1, "kept": 0, "unchanged": 1, "not judged": 1}
    assert m.n_sheet_rows == 5
    # query natural order (q1, q2, q3, q10), then doc id
    assert m.qrels.rows() == [("q1", "b", 0), ("q2", "a", 3), ("q2", "z", 1), ("q3", "x", 2), ("q10", "a", 1)]
    assert m.qrels.schema["relevance"] == pl.Int64
    assert m.changes.rows() == [
        ("q2", "z", None, 1.0, "added"), ("q1", "b", 0.0, 0.0, "unchanged"), ("q2", "a", 2.0, 3.0, "changed"),
        ("q1", "c", None, None, "not judged"), ("q3", "x", None, 2.0, "added"),
    ]  # fmt: skip
    assert str(m) == (
        "5 sheet rows: 2 added, 1 changed (the sheet's grade won), 1 unchanged (same grade again), "
        "1 not judged yet (empty grade, left out)"
    )


def test_conflicts_refused_by_default_listing_them() -> None:
    sheet = _sheet([("q2", "a", 3), ("q10", "a", 0), ("q1", "b", 0)])
    msg = (
        r"grades 2 already-judged \(query, document\) pairs differently from the qrels: "
        r"\('q2', 'a', 'qrels 2, sheet 3'\), \('q10', 'a', 'qrels 1, sheet 0'\)\. "
        r"Hint: say which grade wins: on_conflict='sheet'"
    )
    with pytest.raises(InvalidDataError, match=msg):
        irframe.add_judgments(pl.DataFrame(QRELS), sheet)
    kept = irframe.add_judgments(pl.DataFrame(QRELS), sheet, on_conflict="qrels")
    assert (kept.counts["kept"], kept.counts["unchanged"]) == (2, 1)
    assert (
        to_polars(kept.qrels)
        .sort("query_id", "doc_id")
        .equals(pl.DataFrame(QRELS).sort("query_id", "doc_id"))
    )
    won = irframe.add_judgments(pl.DataFrame(QRELS), sheet, on_conflict="sheet")
    assert won.qrels.rows() == [("q1", "b", 0), ("q2", "a", 3), ("q10", "a", 0)]


def test_a_pair_graded_twice_in_the_sheet() -> None:
    sheet = _sheet([("q1", "x", 1), ("q1", "x", 2), ("q1", "y", 1), ("q1", "y", 1)])
    with pytest.raises(
        DuplicateRowsError,
        match=r"more than once: \('q1', 'x', 'graded 1 and 2'\), \('q1', 'y', 'graded 1 and 1'\)",
    ):
        irframe.add_judgments(None, sheet, on_conflict="sheet")
    # an empty second row is no second grade
    ok = irframe.add_judgments(None, _sheet([("q1", "x", 1), ("q1", "x", None)]))
    assert (ok.counts["added"], ok.counts["not judged"]) == (1, 1)


def test_grades_validated() -> None:
    with pytest.raises(
        InvalidDataError,
        match=r"column 'grade' has 1 values that are not finite numbers.*\('q1', 'y', 'rel'\)",
    ):
        irframe.add_judgments(None, _sheet([("q1", "x", "1"), ("q1", "y", "rel")]))
    with pytest.raises(InvalidDataError, match=r"1 grades outside the scale \[0, 1, 2\].*\('q1', 'y', 3\)"):
        irframe.add_judgments(None, _sheet([("q1", "x", 1), ("q1", "y", 3)]), scale=range(3))
    with pytest.raises(InvalidDataError, match=r"not finite.*\('q1', 'x', inf\)"):
        irframe.add_judgments(None, _sheet([("q1", "x", float("inf"))]))
    with pytest.raises(InvalidDataError, match="dtype Date"):
        irframe.add_judgments(
            None, pl.DataFrame({"query_id": ["q"], "doc_id": ["d"], "grade": [dt.date(2024, 1, 1)]})
        )
    fractional = irframe.add_judgments(None, _sheet([("q1", "x", 0.5), ("q1", "y", 1)]), scale=[0, 0.5, 1])
    assert fractional.qrels.schema["relevance"] == pl.Float64


def test_scale_parameter() -> None:
    sheet = _sheet([("q1", "x", 1)])
    with pytest.raises(
        InvalidParameterError, match=r"pair \(0, 3\): the two grades 0 and 3, or every grade.*range\(0, 4\)"
    ):
        irframe.add_judgments(None, sheet, scale=(0, 3))
    assert irframe.add_judgments(None, sheet, scale=(0, 1)).n_added == 1  # two neighbours: no ambiguity
    for bad in ("0123", {0: "no"}, [], ["a"], 3):
        with pytest.raises(InvalidParameterError, match="'scale' parameter of add_judgments"):
            irframe.add_judgments(None, sheet, scale=bad)  # type: ignore[arg-type]


def test_empty_grades_option() -> None:
    sheet = _sheet([("q1", "x", 1), ("q1", "y", None), ("q1", "z", "  ")])
    assert irframe.add_judgments(None, sheet.with_columns(pl.col("grade").cast(pl.String))).n_not_judged == 2
    with pytest.raises(
        InvalidDataError, match=r"2 rows without a grade.*\('q1', 'y'\), \('q1', 'z'\).*empty='skip'"
    ):
        irframe.add_judgments(None, sheet.with_columns(pl.col("grade").cast(pl.String)), empty="error")


def test_unasked_pairs() -> None:
    runs = {"A": pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [2.0, 1.0]})}
    p = irframe.pool(runs, pl.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "relevance": [1]}))
    sheet = _sheet([("q1", "b", 1), ("q1", "typo", 0)])
    with pytest.raises(
        InvalidDataError,
        match=r"1 \(query, document\) pairs that are not in the pool: \('q1', 'typo'\).*unasked='add'",
    ):
        irframe.add_judgments(None, sheet, pool=p)
    assert irframe.add_judgments(None, sheet, pool=p, unasked="add").n_added == 2
    # the judged pair of the pool was asked too (re-judging it is no surprise)
    assert irframe.add_judgments(None, _sheet([("q1", "a", 1)]), pool=p).n_added == 1
    # a sheet written from a pool says what was asked: its n_systems column is filled there
    marked = _sheet([("q1", "b", 1), ("q1", "new", 0)], n_systems=["1", None])
    with pytest.raises(
        InvalidDataError,
        match=r"the pool the sheet was written from \(its 'n_systems' is empty there\): \('q1', 'new'\)",
    ):
        irframe.add_judgments(None, marked)


def test_judge_and_timestamp_columns() -> None:
    qrels = pl.DataFrame(QRELS).with_columns(judge=pl.lit("old"))
    sheet = _sheet([("q2", "a", 1), ("q5", "n", 2), ("q1", "b", 0)], judge=["ann", "bo", "cy"],
                   judged_at=["2024-05-01T10:00", "2024-05-02T11:00", None])  # fmt: skip
    m = irframe.add_judgments(qrels, sheet, on_conflict="sheet")
    # changed and added rows take the sheet's judge; unchanged keep the qrels' (first) judgment
    assert m.qrels.rows() == [
        ("q1", "b", 0, "old", None), ("q2", "a", 1, "ann", "2024-05-01T10:00"),
        ("q5", "n", 2, "bo", "2024-05-02T11:00"), ("q10", "a", 1, "old", None),
    ]  # fmt: skip
    assert m.qrels.columns == ["query_id", "doc_id", "relevance", "judge", "judged_at"]
    bare = irframe.add_judgments(qrels, sheet, on_conflict="sheet", judge_col=None, timestamp_col=None)
    assert bare.qrels.columns == [
        "query_id", "doc_id", "relevance", "judge",
    ]  # fmt: skip
    with pytest.raises(
        ColumnNotFoundError, match=r"(?s)sheet frame has no judge column 'annotator'.*judge_col"
    ):
        irframe.add_judgments(qrels, sheet, judge_col="annotator")


def test_column_names_and_id_dtypes() -> None:
    qrels = pl.DataFrame({"qid": [1, 2], "docno": ["a", "b"], "label": [1, 0]})
    sheet = pl.DataFrame({"qid": ["2", "10"], "docno": ["c", "a"], "grade": [1, 2]})
    m = irframe.add_judgments(qrels, sheet, query_col="qid", doc_col="docno", relevance_col="label")
    assert m.qrels.rows() == [(1, "a", 1), (2, "b", 0), (2, "c", 1), (10, "a", 2)]
    assert m.qrels.schema["qid"] == pl.Int64
    with pytest.raises(
        InvalidDataError, match=r"ids 'x1' in column 'qid' do not convert to the qrels' id dtype Int64"
    ):
        irframe.add_judgments(qrels, sheet.with_columns(qid=pl.lit("x1")), query_col="qid", doc_col="docno",
                              relevance_col="label")  # fmt: skip
    with pytest.raises(ColumnNotFoundError, match="sheet frame has no grade column 'grade'"):
        irframe.add_judgments(None, sheet.rename({"grade": "g"}), query_col="qid", doc_col="docno")
    with pytest.raises(InvalidDataError, match="sheet has 1 rows with a null 'doc_id'"):
        irframe.add_judgments(None, _sheet([("q1", None, 1)]))  # type: ignore[list-item]


def test_bad_qrels_named() -> None:
    twice = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "a"], "relevance": [1, 1]})
    with pytest.raises(
        DuplicateRowsError,
        match=r"judge the same document twice in queries 'q1', e\.g\. \(query, document\) \('q1', 'a'\)",
    ):
        irframe.add_judgments(twice, _sheet([("q1", "b", 1)]))
    with pytest.raises(InvalidParameterError, match="'on_conflict' parameter of add_judgments"):
        irframe.add_judgments(None, _sheet([("q1", "b", 1)]), on_conflict="newest")  # type: ignore[arg-type]


def test_frame_types(constructor) -> None:
    sheet = constructor({"query_id": ["q1", "q9"], "doc_id": ["b", "c"], "grade": [0, 1]})
    m = irframe.add_judgments(constructor(QRELS), sheet)
    assert isinstance(m.qrels, constructor.native_type)
    assert isinstance(m.changes, constructor.native_type)
    assert to_polars(m.qrels).rows() == [("q1", "b", 0), ("q2", "a", 2), ("q9", "c", 1), ("q10", "a", 1)]
    alone = irframe.add_judgments(None, sheet)
    assert isinstance(alone.qrels, constructor.native_type)
    assert to_polars(alone.qrels).rows() == [("q1", "b", 0), ("q9", "c", 1)]


def test_merge_is_independent_of_row_order() -> None:
    sheet = _sheet([("q2", "z", 1), ("q11", "b", 0), ("q3", "a", 3)])
    one = irframe.add_judgments(pl.DataFrame(QRELS), sheet).qrels
    two = irframe.add_judgments(pl.DataFrame(QRELS).reverse(), sheet.reverse()).qrels
    assert one.equals(two)
