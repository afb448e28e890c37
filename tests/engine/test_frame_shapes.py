"""Hypothesis over frame shapes (issue 15, tests): empty, one row, nulls, NaN, inf,
int/str ids (mixed too), duplicate rows, presorted or not, every frame type.

Every example ends in one of two ways: an ``IrFrameError`` whose message names a column,
a parameter or a query of the input, or a per-query result equal to the plain-Python
oracle (``tests/_support/oracle.py``).  Inputs without a defect (no null id or score, no
duplicate (query, doc), finite grades, ids of one type in pandas) must take the second.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import assume, event, given, settings
from hypothesis import strategies as st

import irframe
from _support.helpers import CONSTRUCTORS, assert_close_dicts, examples, per_query_dict
from _support.oracle import oracle_evaluate
from irframe.exceptions import IrFrameError

SETTINGS = settings(max_examples=examples(80), deadline=None)
LABELS = ["P@2", "AP", "nDCG@3", "RR", "R", "Bpref", "Judged@2", "Rprec"]
COLUMNS = ("query_id", "doc_id", "score", "rank", "relevance")
NAN, INF = math.nan, math.inf

QUERY_IDS: dict[str, list[Any]] = {
    "str": ["q1", "q2", "10", "9"],
    "int": [1, 2, 10],
    "mixed": ["q1", "10", 1, 10],
}
DOC_IDS: dict[str, list[Any]] = {"str": ["a", "b", "10", "9"], "int": [7, 9, 10], "mixed": ["a", "10", 7, 10]}
SCORES = [1.0, 0.5, 0.5, 2.0, -1.0, INF, -INF]
GRADES = [0, 1, 2, 3, -1, 1.5, NAN, None]
DIRTY: list[Any] = [None, NAN]  # added to ids, scores and ranks of inputs drawn with defects


def _is_null(x: Any) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


@st.composite
def shapes(draw: st.DrawFn) -> dict[str, Any]:
    """A run (and maybe qrels) as dicts of lists, with the shape's options."""
    clean = draw(st.booleans())
    dirty: list[Any] = [] if clean else DIRTY
    n = draw(st.sampled_from([0, 1, 2, 3, 5, 8]))
    order = draw(st.sampled_from(["score", "rank"]))
    qids = st.sampled_from([*QUERY_IDS[draw(st.sampled_from(list(QUERY_IDS)))], *dirty[:1]])
    docs = st.sampled_from([*DOC_IDS[draw(st.sampled_from(list(DOC_IDS)))], *dirty[:1]])
    values = st.sampled_from([*SCORES, *dirty] if order == "score" else [1, 2, 2, 3, *dirty[:1]])
    grades = st.sampled_from([*GRADES, *([INF] if not clean else [])])
    rows = [
        {"query_id": draw(qids), "doc_id": draw(docs), order: draw(values), "relevance": draw(grades)}
        for _ in range(n)
    ]
    if clean:  # one row per (query, document)
        rows = list({(str(r["query_id"]), str(r["doc_id"])): r for r in rows}.values())
    elif len(rows) > 0 and draw(st.booleans()):  # a duplicate row
        rows.append(dict(rows[draw(st.integers(0, len(rows) - 1))]))
    if draw(st.booleans()):  # presorted: by query, then ranking order (ties by doc id desc)
        rows.sort(key=lambda r: str(r["doc_id"]), reverse=True)
        sign = -1 if order == "score" else 1
        rows.sort(key=lambda r: (str(r["query_id"]), sign * (r[order] if not _is_null(r[order]) else 0)))
    qrels = None
    if draw(st.booleans()):
        qrow = st.tuples(st.sampled_from(["q1", "q2", "10", "q3"]), st.sampled_from(["a", "b", "10"]),
                         st.sampled_from([0, 1, 2, 3]))  # fmt: skip
        qrows = draw(st.lists(qrow, min_size=1, max_size=6))
        if clean:
            qrows = list({(q, d): (q, d, g) for q, d, g in qrows}.values())
        qrels = {"query_id": [q for q, _, _ in qrows], "doc_id": [d for _, d, _ in qrows],
                 "relevance": [g for _, _, g in qrows]}  # fmt: skip
    cols = ["query_id", "doc_id", order] + ([] if qrels is not None else ["relevance"])
    run = {c: [r[c] for r in rows] for c in cols}
    return {"run": run, "qrels": qrels, "order": order, "missing": draw(st.sampled_from(["zero", "drop"]))}


def _defects(shape: dict[str, Any], kind: str) -> list[str]:
    """Why the input may be refused (empty: it must be evaluated)."""
    run, qrels, order = shape["run"], shape["qrels"], shape["order"]
    out = []
    if any(_is_null(v) for c in ("query_id", "doc_id", order) for v in run[c]):
        out.append("null id or order value")
    keys = [(str(q), str(d)) for q, d in zip(run["query_id"], run["doc_id"], strict=True)]
    if len(set(keys)) != len(keys):
        out.append("duplicate run rows")
    if qrels is not None:
        qkeys = list(zip(qrels["query_id"], qrels["doc_id"], strict=True))
        if len(set(qkeys)) != len(qkeys):
            out.append("duplicate qrels rows")
    else:
        if any(isinstance(g, float) and math.isinf(g) for g in run["relevance"]):
            out.append("infinite grade")
        if kind.startswith("pandas") and all(_is_null(g) for g in run["relevance"]):
            out.append("pandas column of nulls only (object dtype)")
    for c in ("query_id", "doc_id"):
        types = {type(v) for v in run[c] if v is not None}
        if len(types) > 1 and kind.startswith("pandas"):
            out.append(f"mixed {c} types in pandas")
        if kind.startswith("pandas") and any(v is None for v in run[c]):
            out.append("pandas null id")
    return out


@SETTINGS
@given(shape=shapes(), kind=st.sampled_from(list(CONSTRUCTORS)))
def test_frame_shapes_give_the_oracle_or_a_named_error(shape: dict[str, Any], kind: str) -> None:
    run, qrels, missing = shape["run"], shape["qrels"], shape["missing"]
    ctor = CONSTRUCTORS[kind]
    try:
        run_frame = ctor(run)
        qrels_frame = None if qrels is None else ctor(qrels)
    except Exception:  # the frame library itself cannot build it (e.g. pyarrow, mixed types)
        assume(False)
        raise
    defects = _defects(shape, kind)
    try:
        out = irframe.evaluate(run_frame, LABELS, qrels_frame, per_query=True, missing=missing)
        got = per_query_dict(out.collect() if hasattr(out, "collect") else out, LABELS)
    except IrFrameError as exc:
        text = str(exc)
        event(f"refused: {type(exc).__name__}")
        assert defects, f"clean input refused ({kind}): {text}\n{shape}"
        ids = [*run["query_id"], *(qrels["query_id"] if qrels else [])]
        queries = {repr(q) for q in ids} | {repr(str(q)) for q in ids}
        named = [w for w in (*(repr(c) for c in COLUMNS), *queries) if w in text]
        assert named, f"the error names no column, parameter or query ({kind}): {text}"
        return
    event("evaluated" + (" despite " + ", ".join(defects) if defects else ""))
    expected = oracle_evaluate(run, qrels, LABELS, missing=missing)
    assert_close_dicts(got, expected, tol=1e-9, context=f" ({kind}, defects={defects})")


@pytest.mark.parametrize("kind", list(CONSTRUCTORS))
def test_a_single_row_and_an_empty_frame(kind: str) -> None:
    ctor = CONSTRUCTORS[kind]
    one = {"query_id": ["q1"], "doc_id": ["a"], "score": [1.0], "relevance": [2]}
    got = per_query_dict(_force(irframe.evaluate(ctor(one), LABELS, per_query=True)), LABELS)
    # one relevant document at rank 1: P@2 = 1/2, every other measure 1
    assert got == {"q1": {**dict.fromkeys(LABELS, 1.0), "P@2": 0.5}}
    empty = _force(irframe.evaluate(ctor(one).head(0), LABELS, per_query=True))
    assert per_query_dict(empty, LABELS) == {}


def _force(out: Any) -> Any:
    return out.collect() if hasattr(out, "collect") else out
