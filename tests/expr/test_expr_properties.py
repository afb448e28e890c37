"""Hypothesis: every registered family's expression equals ``evaluate(per_query=True)``.

The oracle is the engine (``irframe.evaluate``), which tests/engine checks against
trec_eval, the plain-Python oracle and peers; here the expression form must give its
numbers to 1e-12 for every family of the registry (at several cutoffs, thresholds, gains
and ``judged_only``), on random logs with tied scores and ranks, doc ids whose text
order differs from their numeric order (int ids 9 < 10 rank "9" first), NaN, null and
negative grades, queries without any judgment, int and string query ids, by rank and
by score, eager, lazy and under the streaming engine; with grades on the rows and with
the qrels in a separate frame (attach, missing_queries).
"""

from __future__ import annotations

import math
from typing import Any

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

import irframe
from _support.helpers import examples
from irframe.exceptions import InvalidParameterError
from irframe.measures import FAMILIES, Measure
from irframe.measures._params import GAIN

TOL = 1e-12
# IRFRAME_HYPOTHESIS_EXAMPLES=2000 pytest tests/expr for a deep run
SETTINGS = settings(max_examples=examples(6), deadline=None)
STR_DOCS = ["a", "b", "B", "c", "9", "10", "100", "d1", "d10", "d2", "x", "é"]
GRADES = [None, math.nan, -1.0, 0.0, 0.0, 1.0, 1.0, 2.0, 3.0, 0.5]
QRELS_GRADES = [-1, 0, 0, 1, 1, 2, 3]
SCORES = [-1.0, 0.0, 0.5, 1.0, 1.0, 2.0]


FROM_ROWS = [name for name, fam in FAMILIES.items() if fam.kind != "diversity"]  # (subtopic qrels)


def family_measures(family: str) -> list[Measure]:
    """The family at each cutoff rule, two thresholds, three gains, each other declared choice
    and flag, with and without judged_only (required parameters at their examples)."""
    fam = FAMILIES[family]
    need = {p.name: p.example for p in fam.params if p.required}  # SDCG's max_rel ...
    cutoffs: list[int | None] = [None] if fam.cutoff in ("optional", "none") else []
    cutoffs += [1, 3] if fam.cutoff in ("optional", "required") else []
    out: list[Measure] = []
    for k in cutoffs:
        if fam.params.get("gain") is GAIN:
            out += [Measure(family, k, gain=g, **need) for g in ("exp", "linear", ((0, 0.5), (2, 5.0)))]
        elif "rel" in fam.params:
            out += [Measure(family, k, **need), Measure(family, k, rel=2, **need)]
        else:
            out.append(Measure(family, k, **need))
    for spec in fam.params:
        if spec.name == "judged_only" or spec is GAIN:
            continue
        others = (
            [not spec.default] if spec.type_name == "bool" else [c for c in spec.choices if c != spec.default]
        )
        out += [v for m in list(out) for value in others if (v := _variant(m, spec.name, value)) is not None]
    if "judged_only" in fam.params:
        out += [m(judged_only=True) for m in out]
    return out


def _variant(m: Measure, name: str, value: object) -> Measure | None:
    """``m`` with ``name=value``, or None where the family refuses the combination."""
    try:
        return m(**{name: value})
    except InvalidParameterError:  # e.g. RBP(gain=linear,residual=True)
        return None


# a sum read at more than 3 cutoffs is one cumulative list read at each (as in the engine)
MANY_CUTOFFS = [
    f"{fam}@{k}" for fam in ("P", "nDCG(gain=linear)", "AP", "IDCG", "ERR", "Judged") for k in (1, 2, 3, 5)
] + ["AP", "nDCG(gain=linear)", "IDCG", "ERR", "Judged"]


@st.composite
def one_per_family(draw: st.DrawFn) -> list[str]:
    """Every registered family, each in one of its variants (drawn per example), and
    families read at many cutoffs."""
    drawn = [str(draw(st.sampled_from(family_measures(fam)))) for fam in FROM_ROWS]
    return list(dict.fromkeys([*drawn, *MANY_CUTOFFS]))


@st.composite
def logs(draw: st.DrawFn, *, graded: bool = True) -> dict[str, list[Any]]:
    """A log: 1-4 queries of 1-7 distinct documents, tied scores and tied ranks."""
    int_docs, int_queries = draw(st.booleans()), draw(st.booleans())
    doc_pool: list[Any] = list(range(1, 13)) if int_docs else STR_DOCS
    rows: dict[str, list[Any]] = {"query_id": [], "doc_id": [], "score": [], "rank": []}
    if graded:
        rows["relevance"] = []
    for qi in range(draw(st.integers(1, 4))):
        n = draw(st.integers(1, 7))
        docs = draw(st.lists(st.sampled_from(doc_pool), min_size=n, max_size=n, unique=True))
        rows["query_id"] += [qi + 8 if int_queries else f"q{qi}"] * n  # 8, 9, 10, 11: "10" < "9"
        rows["doc_id"] += docs
        rows["score"] += draw(st.lists(st.sampled_from(SCORES), min_size=n, max_size=n))
        rows["rank"] += draw(st.lists(st.integers(1, 5), min_size=n, max_size=n))
        if graded:
            rows["relevance"] += draw(st.lists(st.sampled_from(GRADES), min_size=n, max_size=n))
    return rows


@st.composite
def qrels_for(draw: st.DrawFn, run: dict[str, list[Any]]) -> dict[str, list[Any]]:
    """Judgments of some retrieved documents, of documents never retrieved, of a query
    the run lacks; some run queries are not judged at all."""
    out: dict[str, list[Any]] = {"query_id": [], "doc_id": [], "relevance": []}
    int_docs = isinstance(run["doc_id"][0], int)
    queries = list(dict.fromkeys(run["query_id"]))
    extra = 99 if isinstance(queries[0], int) else "q99"
    for q in [*queries, extra]:
        if q != extra and draw(st.integers(0, 4)) == 0:
            continue  # a run query without judgments: null
        retrieved = [d for qq, d in zip(run["query_id"], run["doc_id"], strict=True) if qq == q]
        pool = sorted({*retrieved, *([13, 14, 15] if int_docs else ["u1", "u2", "u3"])}, key=str)
        docs = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=6, unique=True))
        out["query_id"] += [q] * len(docs)
        out["doc_id"] += docs
        out["relevance"] += draw(
            st.lists(st.sampled_from(QRELS_GRADES), min_size=len(docs), max_size=len(docs))
        )
    return out


def assert_same(got: pl.DataFrame, expected: pl.DataFrame, labels: list[str], context: str) -> None:
    """Per query and label: equal to TOL, nulls where evaluate has nulls."""
    assert sorted(map(str, got["query_id"])) == sorted(map(str, expected["query_id"])), context
    joined = expected.join(got, on="query_id", how="left", suffix="__got")
    for label in labels:
        for q, e, g in joined.select("query_id", label, label + "__got").iter_rows():
            where = f"{context}: query {q!r} {label}: got {g!r}, expected {e!r}"
            if e is None or g is None:
                assert e is None, where
                assert g is None, where
            elif math.isnan(e) or math.isnan(g):
                assert math.isnan(e), where
                assert math.isnan(g), where
            else:
                assert abs(g - e) <= TOL, where


def collect(frame: pl.DataFrame, agg: pl.Expr, how: str) -> pl.DataFrame:
    if how == "eager":
        return frame.group_by("query_id").agg(agg).unnest("measures")
    lazy = frame.lazy().group_by("query_id").agg(agg).unnest("measures")
    return lazy.collect(engine="streaming" if how == "streaming" else "in-memory")


HOW = st.sampled_from(["eager", "lazy", "streaming"])


@SETTINGS
@given(log=logs(), labels=one_per_family(), by_rank=st.booleans(), how=HOW)
def test_every_family_equals_evaluate_grades_on_rows(
    log: dict[str, list[Any]], labels: list[str], by_rank: bool, how: str
) -> None:
    frame = pl.DataFrame(log, strict=False)
    order = {"rank": "rank"} if by_rank else {"score": "score"}
    expected = irframe.evaluate(
        frame,
        labels,
        per_query=True,
        order="rank" if by_rank else "score",
        rank_col="rank" if by_rank else None,
    )
    got = collect(frame, irframe.expr.measures(labels, **order), how)
    assert_same(got, expected, labels, f"grades on rows, {order}, {how}")


@SETTINGS
@given(
    data=logs(graded=False).flatmap(lambda run: st.tuples(st.just(run), qrels_for(run))),
    labels=one_per_family(),
    by_rank=st.booleans(),
    how=HOW,
)
def test_every_family_equals_evaluate_qrels_attached(
    data: tuple[dict[str, list[Any]], dict[str, list[Any]]], labels: list[str], by_rank: bool, how: str
) -> None:
    run, qrels = (pl.DataFrame(d, strict=False) for d in data)
    order = {"rank": "rank"} if by_rank else {"score": "score"}
    expected = irframe.evaluate(
        run, labels, qrels, per_query=True, order="rank" if by_rank else "score",
        rank_col="rank" if by_rank else None,
    )  # fmt: skip
    joined = irframe.expr.attach(run, qrels, labels)
    table = collect(joined, irframe.expr.measures(labels, judgments="judgments", **order), how)
    missing = irframe.expr.missing_queries(run, qrels, labels).unnest("measures")
    got = pl.concat([table, missing], how="vertical_relaxed")
    assert_same(got, expected, labels, f"qrels attached, {order}, {how}")


@settings(max_examples=examples(6), deadline=None)
@given(log=logs(), by_rank=st.booleans())
def test_over_equals_group_by(log: dict[str, list[Any]], by_rank: bool) -> None:
    frame = pl.DataFrame(log, strict=False)
    expr = irframe.expr.measures(
        ["nDCG@3", "AP", "RR", "Bpref", "P@2"], **({"rank": "rank"} if by_rank else {"score": "score"})
    )
    per_query = frame.group_by("query_id").agg(expr)
    per_row = frame.with_columns(expr.over("query_id")).select("query_id", "measures")
    assert per_row.height == frame.height
    back = per_row.join(per_query, on="query_id", how="left", suffix="_q")
    assert back["measures"].to_list() == back["measures_q"].to_list()
