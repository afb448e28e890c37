"""Bad inputs raise the right irframe error, and the message names the culprit.

Every error derives from ``IrFrameError`` (a ``ValueError``); the assertions check the
key substrings of the message (the column, query, parameter or a "did you mean" hint).
"""

from __future__ import annotations

import math
from typing import Any

import pytest

import irframe
from _support.helpers import NamedConstructor, to_polars
from irframe.exceptions import (
    ColumnNotFoundError,
    DuplicateRowsError,
    EmptyInputError,
    InvalidDataError,
    InvalidParameterError,
    IrFrameError,
    MissingQueriesError,
    UnknownMeasureError,
)

RUN = {"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"], "score": [2.0, 1.0, 1.0]}
QRELS = {"query_id": ["q1", "q2"], "doc_id": ["a", "c"], "relevance": [1, 2]}


def renamed(data: dict[str, list[Any]], old: str, new: str) -> dict[str, list[Any]]:
    return {new if k == old else k: v for k, v in data.items()}


def evaluate(
    constructor: NamedConstructor,
    run: dict[str, list[Any]],
    qrels: dict[str, list[Any]] | None = QRELS,
    measures: Any = ("AP",),
    **kw: Any,
) -> Any:
    """Evaluate and force the result (a LazyFrame may defer errors to collect)."""
    out = irframe.evaluate(
        constructor(run),
        list(measures) if not isinstance(measures, str) else measures,
        None if qrels is None else constructor(qrels),
        **kw,
    )
    if hasattr(out, "collect"):
        out = out.collect()
    return out


def test_error_hierarchy() -> None:
    for exc in (
        ColumnNotFoundError,
        DuplicateRowsError,
        EmptyInputError,
        InvalidDataError,
        InvalidParameterError,
        MissingQueriesError,
        UnknownMeasureError,
    ):
        assert issubclass(exc, IrFrameError)
    assert issubclass(IrFrameError, ValueError)
    assert issubclass(DuplicateRowsError, InvalidDataError)


# --- columns ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("old", "new", "hint"),
    [
        ("query_id", "qid", "query_col='qid'"),
        ("query_id", "topic", "query_col='topic'"),
        ("doc_id", "docno", "doc_col='docno'"),
        ("doc_id", "docid", "doc_col='docid'"),
        ("score", "sim", "score_col='sim'"),
    ],
)
def test_missing_run_column_suggests_the_parameter(
    constructor: NamedConstructor, old: str, new: str, hint: str
) -> None:
    with pytest.raises(ColumnNotFoundError) as info:
        evaluate(constructor, renamed(RUN, old, new))
    msg = str(info.value)
    assert repr(old) in msg
    assert hint in msg, msg
    assert "did you mean" in msg.lower()


def test_missing_qrels_column_named(constructor: NamedConstructor) -> None:
    with pytest.raises(ColumnNotFoundError) as info:
        evaluate(constructor, RUN, renamed(QRELS, "relevance", "rel"))
    msg = str(info.value)
    assert "'relevance'" in msg
    assert "qrels" in msg
    assert "'rel'" in msg  # the suggested column
    with pytest.raises(ColumnNotFoundError, match="qid"):
        evaluate(constructor, RUN, renamed(QRELS, "query_id", "qid"))


def test_no_grades_anywhere(constructor: NamedConstructor) -> None:
    # neither qrels nor a relevance column on the run
    with pytest.raises(ColumnNotFoundError, match="relevance"):
        evaluate(constructor, RUN, None)


def test_by_column_not_found(constructor: NamedConstructor) -> None:
    with pytest.raises(ColumnNotFoundError, match="sytem"):
        evaluate(constructor, {**RUN, "system": ["A", "A", "B"]}, by=["sytem"])


def test_custom_column_names_work(constructor: NamedConstructor) -> None:
    from _support.helpers import to_polars

    run = renamed(renamed(renamed(RUN, "query_id", "qid"), "doc_id", "docno"), "score", "sim")
    qrels = renamed(renamed(QRELS, "query_id", "qid"), "doc_id", "docno")
    qrels = renamed(qrels, "relevance", "rel")
    out = evaluate(
        constructor,
        run,
        qrels,
        measures=["RR"],
        per_query=True,
        query_col="qid",
        doc_col="docno",
        score_col="sim",
        relevance_col="rel",
    )
    # the output keeps the caller's query column name; q1: a first -> 1; q2: c -> 1
    assert to_polars(out).rows() == [("q1", 1.0), ("q2", 1.0)]
    assert to_polars(out).columns == ["qid", "RR"]


# --- data -------------------------------------------------------------------------------
@pytest.mark.parametrize("column", ["query_id", "doc_id"])
def test_null_ids_in_run(constructor: NamedConstructor, column: str) -> None:
    run = {**RUN, column: [RUN[column][0], None, RUN[column][2]]}
    with pytest.raises(InvalidDataError, match=column):
        evaluate(constructor, run)


@pytest.mark.parametrize("column", ["query_id", "doc_id"])
def test_null_ids_in_qrels(constructor: NamedConstructor, column: str) -> None:
    qrels = {**QRELS, column: [QRELS[column][0], None]}
    # the message names the kind of id ("query id" / "doc id" or the column name)
    with pytest.raises(InvalidDataError, match=column.split("_", maxsplit=1)[0]):
        evaluate(constructor, RUN, qrels)


@pytest.mark.parametrize("bad", [None, math.nan])
def test_null_or_nan_scores(constructor: NamedConstructor, bad: float | None) -> None:
    run = {**RUN, "score": [2.0, bad, 1.0]}
    with pytest.raises(InvalidDataError, match="score"):
        evaluate(constructor, run)


def test_null_rank(constructor: NamedConstructor) -> None:
    run = {"query_id": RUN["query_id"], "doc_id": RUN["doc_id"], "rank": [1, None, 1]}
    with pytest.raises(InvalidDataError, match="rank"):
        evaluate(constructor, run)


def test_non_numeric_grades(constructor: NamedConstructor) -> None:
    qrels = {**QRELS, "relevance": ["high", "low"]}
    with pytest.raises(InvalidDataError, match="relevance"):
        evaluate(constructor, RUN, qrels)


def test_non_numeric_grades_on_the_run(constructor: NamedConstructor) -> None:
    run = {**RUN, "relevance": ["high", "low", "high"]}
    with pytest.raises(InvalidDataError, match="relevance"):
        evaluate(constructor, run, None)


def test_null_grade_in_qrels(constructor: NamedConstructor) -> None:
    # in the qrels, a judgment without a grade is not a judgment
    qrels = {**QRELS, "relevance": [1, None]}
    with pytest.raises(InvalidDataError, match=r"relevance|grade"):
        evaluate(constructor, RUN, qrels)


def test_duplicate_run_rows(constructor: NamedConstructor) -> None:
    run = {"query_id": ["q1", "q1", "q1"], "doc_id": ["a", "b", "a"], "score": [3.0, 2.0, 1.0]}
    with pytest.raises(DuplicateRowsError) as info:
        evaluate(constructor, run)
    msg = str(info.value)
    assert "q1" in msg
    assert "'a'" in msg or '"a"' in msg or " a" in msg
    assert "duplicates=" in msg  # points at the option


def test_duplicate_qrels_rows(constructor: NamedConstructor) -> None:
    qrels = {"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "a", "c"], "relevance": [1, 0, 2]}
    with pytest.raises(DuplicateRowsError, match="q1"):
        evaluate(constructor, RUN, qrels)


def _force(out: Any) -> Any:
    return out.collect() if hasattr(out, "collect") else out


def test_empty_run_scores_every_judged_query_zero(constructor: NamedConstructor) -> None:
    # issue 15 item 8 (was: EmptyInputError "The run has no rows"): an empty run is the
    # result of a filter that selected nothing; both judged queries are missing from it
    empty_run = constructor(RUN).head(0)  # typed columns, no rows
    got = to_polars(_force(irframe.evaluate(empty_run, ["AP"], constructor(QRELS))))
    assert got.to_dicts() == [{"AP": 0.0, "n_queries": 2, "n_missing": 2, "n_unjudged": 0}]


def test_empty_qrels(constructor: NamedConstructor) -> None:
    empty_qrels = constructor(QRELS).head(0)
    with pytest.raises(EmptyInputError, match="qrels"):
        _force(irframe.evaluate(constructor(RUN), ["AP"], empty_qrels))


def test_missing_queries_error_lists_them(constructor: NamedConstructor) -> None:
    qrels = {"query_id": ["q1", "q2", "q7", "q9"], "doc_id": ["a", "c", "x", "y"]}
    qrels["relevance"] = [1, 1, 1, 0]
    with pytest.raises(MissingQueriesError) as info:
        evaluate(constructor, RUN, qrels, missing="error")
    msg = str(info.value)
    assert "q7" in msg
    assert "q9" in msg
    assert "q1" not in msg.replace("q1,", "")  # only the missing ones are named


# --- parameters and measures ------------------------------------------------------------
@pytest.mark.parametrize("k", [0, -1, 1.5, "10", True])
def test_bad_cutoff_in_shortcuts(constructor: NamedConstructor, k: Any) -> None:
    run = constructor(RUN)
    qrels = constructor(QRELS)
    with pytest.raises(InvalidParameterError, match="k"):
        run.ir.ndcg(k=k, qrels=qrels)
    with pytest.raises(InvalidParameterError, match="k"):
        run.ir.precision(k=k, qrels=qrels)


@pytest.mark.parametrize("text", ["P@0", "nDCG@-1", "R@1.5", "AP@x"])
def test_bad_cutoff_in_measure_string(constructor: NamedConstructor, text: str) -> None:
    with pytest.raises(InvalidParameterError) as info:
        evaluate(constructor, RUN, measures=[text])
    assert "'k'" in str(info.value)


# issue 12 item 3: ranx's 'ndcg@10' is the linear gain, so it now maps to 'nDCG(gain=linear)@10'
# (it suggested 'nDCG@10', irframe's 2^rel - 1 gain, before)
@pytest.mark.parametrize(
    ("text", "suggestion"),
    [("ndcg@10", "nDCG(gain=linear)@10"), ("map@10", "AP@10"), ("precision@5", "P@5"), ("Rprek", "Rprec")],
)
def test_unknown_measure_suggests(constructor: NamedConstructor, text: str, suggestion: str) -> None:
    with pytest.raises(UnknownMeasureError) as info:
        evaluate(constructor, RUN, measures=[text])
    msg = str(info.value)
    assert repr(text) in msg
    # the suggestion keeps the caller's cutoff (alias spellings such as 'Precision@5' count)
    alias = {"P@5": "Precision@5", "AP@10": "MAP@10"}.get(suggestion, suggestion)
    assert suggestion in msg or alias in msg, msg


def test_unknown_measure_parameter(constructor: NamedConstructor) -> None:
    with pytest.raises(UnknownMeasureError, match="relevance"):
        evaluate(constructor, RUN, measures=["P(relevance=2)@5"])


def test_no_measures(constructor: NamedConstructor) -> None:
    with pytest.raises(UnknownMeasureError):
        evaluate(constructor, RUN, measures=[])


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"missing": "ignore"}, "missing"),
        ({"duplicates": "last"}, "duplicates"),
    ],
)
def test_bad_option_values(constructor: NamedConstructor, kwargs: dict[str, Any], name: str) -> None:
    with pytest.raises(InvalidParameterError) as info:
        evaluate(constructor, RUN, **kwargs)
    msg = str(info.value)
    assert name in msg
    assert repr(next(iter(kwargs.values()))) in msg


# --- non-finite grades --------------------------------------------------------------------
def test_nan_grade_in_qrels_raises(constructor: NamedConstructor) -> None:
    """A NaN grade is no grade: pandas already reads it as null (and null grades in the
    qrels raise); polars must not let NaN through, where NaN >= 1 is *true* (NaN sorts
    above every number) and 2^NaN - 1 poisons nDCG."""
    qrels = {"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"]}
    qrels["relevance"] = [math.nan, 1.0, 2.0]
    with pytest.raises(InvalidDataError, match=r"relevance|grade"):
        evaluate(constructor, RUN, qrels, measures=["nDCG", "AP", "NumRel"])


def test_nan_grade_on_the_run_is_unjudged(constructor: NamedConstructor) -> None:
    """Golden set: a NaN grade means the same as a null grade (unjudged) on every frame type."""
    from _support.helpers import per_query_dict

    measures = ["nDCG", "AP", "Judged@2", "NumRel"]
    with_nan = {**RUN, "relevance": [math.nan, 1.0, 2.0]}
    with_null = {**RUN, "relevance": [None, 1.0, 2.0]}
    got = per_query_dict(evaluate(constructor, with_nan, None, measures, per_query=True), measures)
    want = per_query_dict(evaluate(constructor, with_null, None, measures, per_query=True), measures)
    # q1: a unjudged, b relevant at rank 2 -> AP 1/2, Judged@2 1/2, NumRel 1
    assert want["q1"]["AP"] == 0.5
    assert got == want


def test_infinite_grade_raises(constructor: NamedConstructor) -> None:
    # gain 2^inf - 1 = inf and IDCG = inf give nDCG = inf/inf = NaN
    qrels = {"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"]}
    qrels["relevance"] = [math.inf, 1.0, 2.0]
    with pytest.raises(InvalidDataError, match=r"relevance|grade"):
        evaluate(constructor, RUN, qrels, measures=["nDCG"])


def test_duplicate_qrels_rows_raise_even_with_duplicates_first(constructor: NamedConstructor) -> None:
    # duplicates="first" is about the run's ranking; two grades for one doc stay ambiguous
    qrels = {"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "a", "c"], "relevance": [0, 1, 2]}
    with pytest.raises(DuplicateRowsError, match="q1"):
        evaluate(constructor, RUN, qrels, duplicates="first")
