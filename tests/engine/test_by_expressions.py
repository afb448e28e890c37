"""``by=`` takes polars expressions in evaluate, compare and check, as polars' group_by does.

The reference is the same call grouped by the column computed beforehand (by name), which
tests/engine checks against trec_eval and the oracle; the segments' query counts are written
out by hand.
"""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest

import irframe
from irframe.exceptions import ColumnNotFoundError, InvalidParameterError

RUN: dict[str, list[Any]] = {
    "query_id": ["q1", "q1", "q2", "q2", "q3", "q3", "q4"],
    "doc_id": ["a", "b", "a", "c", "d", "e", "f"],
    "score": [2.0, 1.0, 2.0, 1.0, 3.0, 1.0, 1.0],
    "n_terms": [2, 2, 6, 6, 9, 9, 1],
}
QRELS: dict[str, list[Any]] = {
    "query_id": ["q1", "q2", "q3", "q4", "q5", "q6"],
    "doc_id": ["b", "a", "e", "f", "x", "y"],
    "relevance": [1, 1, 2, 1, 1, 1],
}
QUERIES: dict[str, list[Any]] = {
    "query_id": ["q1", "q2", "q3", "q4", "q5", "q6"],
    "n_terms": [2, 6, 9, 1, 7, 3],
}
MEASURES = ["RR", "nDCG@2"]


def test_evaluate_by_an_expression_is_by_the_computed_column() -> None:
    run, qrels = pl.DataFrame(RUN), pl.DataFrame(QRELS)
    long = pl.col("n_terms") >= 5
    got = irframe.evaluate(run, MEASURES, qrels, by=[long], per_query=True, missing="drop")
    expected = irframe.evaluate(
        run.with_columns(long), MEASURES, qrels, by="n_terms", per_query=True, missing="drop"
    )
    assert got.equals(expected)
    assert got.columns[0] == "n_terms"  # named as polars names the key
    means = irframe.evaluate(run, MEASURES, qrels, by=long.alias("long"), missing="drop").sort("long")
    assert means.select("long", "n_queries").rows() == [(False, 2), (True, 2)]  # q1, q4 | q2, q3


def test_a_run_column_follows_the_by_name_rules() -> None:
    """Computed on the run only, a per-query value cannot place the judged queries the run
    never returned: as by name, missing='zero' raises and says how to choose."""
    run, qrels = pl.DataFrame(RUN), pl.DataFrame(QRELS)
    long = (pl.col("n_terms") >= 5).alias("long")
    with pytest.raises(InvalidParameterError, match="look like query attributes") as by_expr:
        irframe.evaluate(run, MEASURES, qrels, by=long)
    with pytest.raises(InvalidParameterError, match="look like query attributes") as by_name:
        irframe.evaluate(run.with_columns(long), MEASURES, qrels, by="long")
    assert str(by_expr.value) == str(by_name.value)


def test_an_expression_over_query_attributes_is_a_query_attribute() -> None:
    run, qrels, queries = pl.DataFrame(RUN).drop("n_terms"), pl.DataFrame(QRELS), pl.DataFrame(QUERIES)
    long = (pl.col("n_terms") >= 5).alias("long")
    means = irframe.evaluate(run, MEASURES, qrels, by=long, queries=queries).sort("long")
    # long: q2, q3 and q5 (judged, not in the run); short: q1, q4 and q6 (not in the run)
    assert means.select("long", "n_queries", "n_missing").rows() == [(False, 3, 1), (True, 3, 1)]
    expected = irframe.evaluate(run, MEASURES, qrels, by="long", queries=queries.with_columns(long)).sort(
        "long"
    )
    assert means.equals(expected)


def test_mixed_names_and_expressions_on_pandas() -> None:
    pd = pytest.importorskip("pandas")
    run = pl.DataFrame(RUN).with_columns(pl.lit("bm25").alias("system"))
    got = irframe.evaluate(
        run.to_pandas(), MEASURES, pd.DataFrame(QRELS), by=["system", (pl.col("n_terms") > 4).alias("long")],
        missing="drop",
    )  # fmt: skip
    assert isinstance(got, pd.DataFrame)
    expected = irframe.evaluate(
        run.with_columns((pl.col("n_terms") > 4).alias("long")), MEASURES, pl.DataFrame(QRELS),
        by=["system", "long"], missing="drop",
    )  # fmt: skip
    assert pl.from_pandas(got).sort("long").equals(expected.sort("long"))


def test_compare_by_an_expression() -> None:
    a = pl.DataFrame(RUN)
    b = a.with_columns(pl.col("score").reverse().over("query_id"))
    qrels = pl.DataFrame(QRELS)
    long = (pl.col("n_terms") >= 5).alias("long")
    kw: dict[str, Any] = {"test": "t", "missing": "drop"}
    got = irframe.compare({"a": a, "b": b}, qrels, MEASURES, by=long, **kw)
    expected = irframe.compare(
        {"a": a.with_columns(long), "b": b.with_columns(long)}, qrels, MEASURES, by="long", **kw
    )
    assert got.equals(expected)
    stacked = pl.concat([a.with_columns(system=pl.lit("a")), b.with_columns(system=pl.lit("b"))])
    assert irframe.compare(stacked, qrels, MEASURES, by=long, **kw).equals(expected)


def test_check_by_an_expression_over_the_queries_table() -> None:
    g = irframe.datasets.golden()
    runs = {s: g.runs.filter(system=s) for s in ("bm25", "dense")}
    nav = (pl.col("segment") == "navigational").alias("nav")
    got = irframe.check(
        runs["dense"], g.qrels, baseline=runs["bm25"], measures="R@100", queries=g.queries, by=nav
    )
    expected = irframe.check(
        runs["dense"], g.qrels, baseline=runs["bm25"], measures="R@100",
        queries=g.queries.with_columns(nav), by="nav",
    )  # fmt: skip
    assert got.comparisons.equals(expected.comparisons)
    assert sorted(set(got.comparisons["group"].to_list())) == ["all", "nav=False", "nav=True"]


def test_the_readings_not_guessed_raise() -> None:
    run, qrels = pl.DataFrame(RUN), pl.DataFrame(QRELS)
    with pytest.raises(InvalidParameterError, match=r"named 'score', a column the evaluation reads.*alias"):
        irframe.evaluate(run, MEASURES, qrels, by=pl.col("score") > 1.5)
    top = irframe.evaluate(run, MEASURES, qrels, by=(pl.col("score") > 1.5).alias("top"), missing="drop")
    assert sorted(top["top"].to_list()) == [False, True]
    with pytest.raises(InvalidParameterError, match="reads no column or has no name"):
        irframe.evaluate(run, MEASURES, qrels, by=pl.lit(1))
    with pytest.raises(ColumnNotFoundError, match=r"reads \['clicks'\], which no input holds"):
        irframe.evaluate(run, MEASURES, qrels, by=pl.col("clicks") > 0)
    clash = qrels.with_columns(pl.lit("x").alias("long"))
    with pytest.raises(InvalidParameterError, match="the qrels has another column 'long'"):
        irframe.evaluate(run, MEASURES, clash, by=(pl.col("n_terms") > 4).alias("long"))
