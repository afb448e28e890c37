"""Cases for the measures computed beside the main plan (``ties=``, the diversity families)
with and without ``weights=``: every partitioned backend must give the in-process values.

The in-process values are themselves checked against outside references
(``tests/engine/test_ties.py``: hand cases and every order enumerated;
``tests/measures/test_diversity.py``: hand cases and pyndeval); here a partitioned
backend (out of core, Dask, Spark) must reproduce them, per query and in the means, to
1e-12.  The data is :mod:`partition_cases`' (tied scores, judged queries missing from the
run, run-only queries, systems lacking queries, int run ids against str qrels ids, a
segment in the qrels), with subtopic qrels made from its judgments: each judgment gets a
subtopic, and some documents are judged for a second one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import polars as pl
from polars.testing import assert_frame_equal

import irframe
from _support.partition_cases import CASES, Case, keys_of, weighted

TIE_MEASURES = ["P@5", "R@10", "RR", "AP", "nDCG@10", "nDCG", "AP(judged_only=true)", "P(rel=2)@3"]
DIV_MEASURES = [
    "alpha_nDCG@10", "ERR_IA@5", "nERR_IA@5", "NRBP", "nNRBP", "AP_IA", "P_IA@5", "StRecall@10",
    "alpha_nDCG(alpha=0.3,judged_only=true)@5",
]  # fmt: skip
MIXED_MEASURES = ["alpha_nDCG@5", "nDCG@10", "AP", "P@5"]  # one subtopic per judged document
MODES = ("expected", "optimistic", "pessimistic")


def _subtopics(qrels: pl.DataFrame, query: str, *, second: bool) -> pl.DataFrame:
    """Each judgment with a subtopic (the hash of the document id, of 3); with ``second``,
    every third judged document is judged for one more subtopic (ndeval's reading)."""
    doc_hash = pl.col("doc_id").hash(seed=7)
    first = qrels.with_columns((doc_hash % 3).cast(pl.String).alias("subtopic"))
    if not second:
        return first.select(query, "subtopic", "doc_id", pl.exclude(query, "subtopic", "doc_id"))
    more = first.filter(doc_hash % 3 == 0).with_columns(pl.lit("9").alias("subtopic"))
    both = pl.concat([first, more])
    return both.select(query, "subtopic", "doc_id", pl.exclude(query, "subtopic", "doc_id"))


@dataclass
class Asked:
    """A partition case (its frames and options) and the measures asked of it."""

    case: Case
    measures: list[str]

    def __repr__(self) -> str:
        return self.case.name


def _with(case: Case, name: str, qrels: pl.DataFrame | None, measures: list[str], **kwargs: Any) -> Asked:
    return Asked(
        Case(f"{case.name}-{name}", case.run, qrels, {**case.kwargs, **kwargs}, case.query), measures
    )


def tie_cases() -> list[Asked]:
    """Every tie mode on the cases with ties (scores rounded to 0.1), by system, a segment,
    grades in the run, a depth cut."""
    picked = [c for c in CASES if c.name not in ("rank-column-by-system",)]
    out = [_with(c, f"ties-{m}", c.qrels, TIE_MEASURES, ties=m) for c in picked for m in MODES]
    out.append(_with(CASES[0], "ties-expected-depth", CASES[0].qrels, TIE_MEASURES, ties="expected", depth=4))
    return out


def diversity_cases() -> list[Asked]:
    """The diversity families on subtopic qrels (documents judged for several subtopics),
    by system and by a segment; and with other measures when each document has one."""
    out = []
    for c in CASES:
        if c.qrels is None or "columns" in c.kwargs:
            continue
        out.append(_with(c, "diversity", _subtopics(c.qrels, c.query, second=True), DIV_MEASURES))
    first = CASES[0]
    assert first.qrels is not None
    out.append(
        _with(first, "diversity-mixed", _subtopics(first.qrels, first.query, second=False), MIXED_MEASURES)
    )
    return out


def weighted_cases(cases: list[Asked]) -> list[Asked]:
    """``cases`` with ``weights=`` from a queries table (:func:`partition_cases.weighted`)."""
    return [Asked(weighted(a.case), a.measures) for a in cases]


TIES = tie_cases()
DIVERSITY = diversity_cases()
WEIGHTED = weighted_cases([TIES[0], TIES[4], DIVERSITY[0], DIVERSITY[1], DIVERSITY[-1]])


def reference(asked: Asked, per_query: bool) -> pl.DataFrame:
    """The in-process result."""
    c = asked.case
    out: pl.DataFrame = irframe.evaluate(c.run, asked.measures, c.qrels, per_query=per_query, **c.kwargs)
    return out


def assert_same(got: pl.DataFrame, asked: Asked, per_query: bool) -> None:
    """The in-process rows and values (to 1e-12), no query lost, split or duplicated."""
    want = reference(asked, per_query)
    keys = keys_of(asked.case) if per_query else keys_of(asked.case)[:-1]
    if per_query:
        assert got.select(keys).is_duplicated().sum() == 0
    got = got.select(want.columns)
    if keys:
        got, want = got.sort(keys, nulls_last=True), want.sort(keys, nulls_last=True)
    assert want.height > 0
    assert_frame_equal(got, want, check_exact=False, rel_tol=1e-12, abs_tol=1e-12)
