"""Issue 15 as a table: each bad, odd or hostile input and what irframe must do with it.

A row gives the issue item, a thunk, and either the error class with words its message
must contain (the column, query, parameter or value at fault, and the fix) or the exact
expected value, written out by hand.  Items 1, 5 (files), 6, 7 and 9 (readers, writers,
evaluate_parquet's files) are tested with the io code; here: 2 (gains), 3 (compare with
disjoint systems), 4 (parameters), 5 (frames), 8 (empty input).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import polars as pl
import pytest

import irframe
from irframe.exceptions import (
    DuplicateRowsError,
    InvalidDataError,
    InvalidParameterError,
    IrFrameError,
)

RUN = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"], "rank": [1, 2, 1]})
QRELS = pl.DataFrame({"query_id": ["q1", "q2", "q3"], "doc_id": ["a", "c", "x"], "relevance": [1, 1, 2]})
GOLDEN = RUN.with_columns(relevance=pl.Series([1, 0, 1]))  # grades on the run rows


@dataclass(frozen=True)
class Case:
    """One input. ``error``/``words``: the expected exception; else ``value`` is returned."""

    item: int
    name: str
    call: Callable[[], Any]
    error: type[Exception] | None = None
    words: tuple[str, ...] = ()
    value: Any = None

    def __repr__(self) -> str:
        return f"{self.item}-{self.name}"


def ev(run: Any, measures: Any, qrels: Any = None, **kw: Any) -> Any:
    return irframe.evaluate(run, measures, qrels, **kw)


def rows(out: Any) -> list[dict[str, Any]]:
    if isinstance(out, pd.DataFrame):
        return out.to_dict("records")  # type: ignore[no-any-return]
    return out.to_dicts()  # type: ignore[no-any-return]


def stacked(**systems: pl.DataFrame) -> pl.DataFrame:
    return pl.concat([df.with_columns(system=pl.lit(name)) for name, df in systems.items()])


def _pandas_index(same_values: bool) -> pd.DataFrame:
    df = GOLDEN.to_pandas()
    if same_values:
        return df.set_index("query_id", drop=False)
    return df.set_index(pd.Index(["x", "y", "z"], name="query_id"))


def _pandas_dup_columns() -> pd.DataFrame:
    df = GOLDEN.to_pandas()
    df.columns = ["query_id", "doc_id", "doc_id", "relevance"]
    return df


def _pandas_mixed(col: str) -> pd.DataFrame:
    df = GOLDEN.to_pandas()
    df[col] = pd.Series([1, "x", 2], dtype=object)
    return df


def _buckets(tmp: Path) -> Any:
    path = tmp / "run.parquet"
    GOLDEN.write_parquet(path)
    return irframe.evaluate_parquet(path, ["P@1"], buckets=200_000)


SUMMARY_ZERO = {"P@1": 0.0, "n_queries": 3, "n_missing": 3, "n_unjudged": 0}
SUMMARY_NONE = {"P@1": None, "n_queries": 0, "n_missing": 0, "n_unjudged": 0}
EMPTY = RUN.head(0)
RUN_WITH = GOLDEN.with_columns  # a run with one more column
FULLWIDTH_5 = "\uff15"  # int() reads it as 5

CASES = [
    # 2: overflowing and non-finite gains
    Case(2, "grade-1024-exp-gain",
         lambda: ev(GOLDEN.with_columns(relevance=pl.Series([1, 0, 1024])), "nDCG@10"), InvalidDataError,
         ("grade 1024", "'q2'", "'relevance'", "gain=linear")),
    Case(2, "qrels-grade-1500", lambda: ev(RUN, ["nDCG", "AP"], QRELS.with_columns(relevance=pl.lit(1500))),
         InvalidDataError, ("qrels column 'relevance'", "grade 1500", "'nDCG'", "gain=linear")),
    Case(2, "grade-1024-linear-gain", lambda: rows(ev(GOLDEN.with_columns(relevance=pl.Series([1024, 0, 1])),
         "nDCG(gain=linear)@1")), value=[{"nDCG(gain=linear)@1": 1.0, "n_queries": 2, "n_missing": 0,
         "n_unjudged": 0}]),
    Case(2, "gains-inf", lambda: irframe.ndcg(GOLDEN, 5, gain={1: math.inf}), InvalidParameterError,
         ("'gains'", "finite")),
    Case(2, "gains-nan-text", lambda: ev(GOLDEN, "nDCG(gains={0:0,1:nan})@5"), InvalidParameterError,
         ("'gains'", "nan")),
    # 3: compare with systems that share no judged query (done with compare; in the table)
    Case(3, "disjoint-systems-drop", lambda: irframe.compare(
         stacked(left=RUN.filter(pl.col("query_id") == "q1"), right=RUN.filter(pl.col("query_id") == "q2")),
         QRELS, ["RR"], missing="drop"), IrFrameError, ("'left'", "'right'", "share no judged query",
         "'query_id'")),
    Case(3, "disjoint-systems-zero", lambda: irframe.compare(
         stacked(left=RUN.filter(pl.col("query_id") == "q1"), right=RUN.filter(pl.col("query_id") == "q2")),
         QRELS, ["RR"]), IrFrameError, ("'left'", "'right'", "share no judged query")),
    # 4: parameters
    Case(4, "query_col-None", lambda: ev(GOLDEN, "P@1", query_col=None), InvalidParameterError,
         ("'query_col'",)),
    Case(4, "query_col-1", lambda: ev(GOLDEN, "P@1", query_col=1), InvalidParameterError, ("'query_col'",)),
    Case(4, "by-123", lambda: ev(GOLDEN, "P@1", by=123), InvalidParameterError, ("'by'", "123")),
    Case(4, "seed--1", lambda: irframe.compare(stacked(a=RUN, b=RUN), QRELS, ["RR"], seed=-1),
         InvalidParameterError, ("'seed'",)),
    Case(4, "n_bootstrap-1e8", lambda: irframe.compare(stacked(a=RUN, b=RUN), QRELS, ["RR"],
         test="bootstrap", n_bootstrap=10**8), InvalidParameterError, ("'n_bootstrap'", "100_000_000")),
    Case(4, "P@2**64", lambda: ev(GOLDEN, f"P@{2**64}"), InvalidParameterError, ("'k'", str(2**64))),
    Case(4, "AP@2**64", lambda: ev(GOLDEN, f"AP@{2**64}"), InvalidParameterError, ("'k'", str(2**64))),
    Case(4, "nDCG@2**64", lambda: ev(GOLDEN, f"nDCG@{2**64}"), InvalidParameterError, ("'k'",)),
    Case(4, "precision-k-2**64", lambda: irframe.precision(GOLDEN, 2**64), InvalidParameterError, ("'k'",)),
    Case(4, "P@2**63-1", lambda: ev(GOLDEN, f"P@{2**63 - 1}").item(0, 0), value=1 / (2**63 - 1)),
    Case(4, "P@1_0", lambda: ev(GOLDEN, "P@1_0"), InvalidParameterError, ("'k'", "'1_0'")),
    Case(4, "P@fullwidth-5", lambda: ev(GOLDEN, f"P@{FULLWIDTH_5}"), InvalidParameterError,
         ("'k'", f"'{FULLWIDTH_5}'")),
    Case(4, "by-named-like-a-measure", lambda: ev(RUN_WITH(pl.lit("s").alias("P@1")), "P@1", by="P@1"),
         InvalidParameterError, ("'by'", "'P@1'", "rename")),
    Case(4, "by-n_queries", lambda: ev(RUN_WITH(pl.lit("s").alias("n_queries")), "P@1", by="n_queries"),
         InvalidParameterError, ("'by'", "'n_queries'")),
    Case(4, "by-n_missing-per-query", lambda: ev(RUN_WITH(pl.lit("s").alias("n_missing")), "P@1",
         by=["n_missing"], per_query=True), InvalidParameterError, ("'by'", "'n_missing'")),
    Case(4, "query_col-named-RR", lambda: ev(GOLDEN.rename({"query_id": "RR"}), ["RR"], query_col="RR",
         per_query=True), InvalidParameterError, ("'query_col'", "'RR'")),
    Case(4, "query_col-n_unjudged", lambda: ev(GOLDEN.rename({"query_id": "n_unjudged"}), ["RR"],
         query_col="n_unjudged"), InvalidParameterError, ("'query_col'", "'n_unjudged'")),
    Case(4, "measure-named-like-an-unused-column", lambda: rows(ev(RUN_WITH(AP=pl.lit(0.5)), ["AP"])),
         value=[{"AP": 1.0, "n_queries": 2, "n_missing": 0, "n_unjudged": 0}]),
    # 5: pandas frames
    Case(5, "pandas-index-named-like-a-column", lambda: rows(ev(_pandas_index(True), "P@1", per_query=True)),
         value=[{"query_id": "q1", "P@1": 1.0}, {"query_id": "q2", "P@1": 1.0}]),
    Case(5, "pandas-index-and-column-differ", lambda: ev(_pandas_index(False), "P@1"), InvalidDataError,
         ("index", "'query_id'", "reset_index")),
    Case(5, "pandas-duplicate-columns", lambda: ev(_pandas_dup_columns(), "P@1"), InvalidDataError,
         ("several columns named 'doc_id'",)),
    Case(5, "pandas-mixed-query-ids", lambda: ev(_pandas_mixed("query_id"), "P@1"), InvalidDataError,
         ("'query_id'", "int, str", "astype(str)")),
    Case(5, "pandas-mixed-doc-ids-in-qrels", lambda: ev(RUN.to_pandas(), "P@1", _pandas_mixed("doc_id")),
         InvalidDataError, ("qrels", "'doc_id'", "int, str")),
    # 8: empty input
    Case(8, "empty-run-with-qrels", lambda: rows(ev(EMPTY, "P@1", QRELS)), value=[SUMMARY_ZERO]),
    Case(8, "empty-run-pandas", lambda: rows(ev(EMPTY.to_pandas(), "P@1", QRELS.to_pandas())),
         value=[SUMMARY_ZERO]),
    Case(8, "empty-run-per-query", lambda: rows(ev(EMPTY, "P@1", QRELS, per_query=True)),
         value=[{"query_id": q, "P@1": 0.0} for q in ("q1", "q2", "q3")]),
    Case(8, "empty-run-without-qrels", lambda: rows(ev(GOLDEN.head(0), "P@1")), value=[SUMMARY_NONE]),
    Case(8, "empty-run-without-qrels-per-query", lambda: rows(ev(GOLDEN.head(0), "P@1", per_query=True)),
         value=[]),
    Case(8, "filter-selecting-nothing-lazy", lambda: rows(ev(RUN.lazy().filter(pl.col("rank") > 9), "P@1",
         QRELS, missing="drop").collect()), value=[{**SUMMARY_NONE, "n_missing": 3}]),
    Case(8, "qrels-duplicate-lists-pairs", lambda: ev(RUN, "P@1", pl.concat([QRELS, QRELS.head(1)])),
         DuplicateRowsError, ("('q1', 'a')", "qrels")),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_bad_input(case: Case) -> None:
    if case.error is None:
        assert case.call() == case.value
        return
    with pytest.raises(case.error) as info:
        case.call()
    text = str(info.value)
    for word in case.words:
        assert word in text, f"{word!r} not in: {text}"
    assert "__ir" not in text  # no internal name in any message


def test_buckets_are_bounded(tmp_path: Path) -> None:
    # that many buckets took minutes (benchmarks/results/decisions.md, max-buckets): refused
    # before any work
    with pytest.raises(InvalidParameterError, match="'buckets' parameter of evaluate_parquet") as info:
        _buckets(tmp_path)
    assert "at most 65536" in str(info.value)


def test_every_item_in_scope_has_a_row() -> None:
    assert {c.item for c in CASES} == {2, 3, 4, 5, 8}
