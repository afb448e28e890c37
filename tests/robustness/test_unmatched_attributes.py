"""A queries table whose ids match no run query (1 against 'q01') under ``by=``: evaluate and
compare say so, naming the column and the queries, and following the hint gives the
segments' numbers (issue 43: it said "N run rows have a null in 'topic'", whose hint, to
drop the rows, left nothing to evaluate)."""

from __future__ import annotations

import polars as pl
import pytest

import irframe
from irframe.exceptions import InvalidDataError

RUN = pl.DataFrame(
    {
        "query_id": ["q01", "q01", "q02", "q02"],
        "doc_id": ["a", "b", "a", "b"],
        "score": [2.0, 1.0, 2.0, 1.0],
        "relevance": [1, 0, 0, 1],
    }
)
INT_IDS = pl.DataFrame({"query_id": [1, 2], "topic": ["x", "y"]})


def test_evaluate_names_the_unmatched_ids_and_the_fix_gives_the_segments() -> None:
    with pytest.raises(InvalidDataError, match=r"by='topic' has no value for any run query") as err:
        irframe.evaluate(RUN, ["RR"], by="topic", queries=INT_IDS)
    assert "'q01', 'q02'" in str(err.value)
    assert "1 against 'q01'" in str(err.value)
    # the hint: the run's query ids, spelled and typed alike -> q01 (RR 1) in x, q02 (RR 1/2) in y
    fixed = INT_IDS.with_columns(pl.format("q0{}", pl.col("query_id")).alias("query_id"))
    out = irframe.evaluate(RUN, ["RR"], by="topic", queries=fixed).sort("topic")
    assert out["topic"].to_list() == ["x", "y"]
    assert out["RR"].to_list() == [1.0, 0.5]


def test_compare_says_the_same() -> None:
    runs = {"a": RUN, "b": RUN.with_columns(-pl.col("score"))}
    with pytest.raises(InvalidDataError, match=r"by='topic' has no value for any run query"):
        irframe.compare(runs, None, ["RR"], by="topic", queries=INT_IDS)


def test_a_query_missing_from_the_table_is_counted() -> None:
    partial = pl.DataFrame({"query_id": ["q01"], "topic": ["x"]})
    with pytest.raises(
        InvalidDataError, match=r"no value for 1 run queries \(2 run rows; e\.g\. queries 'q02'\)"
    ):
        irframe.evaluate(RUN, ["RR"], by="topic", queries=partial)
