"""Query attributes are read by one rule (irframe._input.queries) in every verb (issue 39):
a by-column with two values inside one query is refused by evaluate, compare and check in
the same words (compare kept the first value, whichever row came first)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import polars as pl
import pytest

import irframe
from irframe.exceptions import ColumnNotFoundError, InvalidDataError

RUN = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "a"], "rank": [1, 2, 1]})
OTHER = RUN.with_columns(pl.col("rank").reverse().over("query_id"))
QRELS = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "a"], "relevance": [1, 0, 1]})
# q1 is 'head' on one judgment row and 'tail' on the other
TWO_VALUES = QRELS.with_columns(segment=pl.Series(["head", "tail", "tail"]))
QUERIES_TWICE = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "segment": ["head", "tail", "tail"]})

Verb = Callable[[Any, Any], object]  # (qrels, queries) -> result
VERBS: dict[str, Verb] = {
    "evaluate": lambda qrels, queries: irframe.evaluate(RUN, ["RR"], qrels, by="segment", queries=queries),
    "compare": lambda qrels, queries: irframe.compare(
        {"a": RUN, "b": OTHER}, qrels, ["RR"], by="segment", queries=queries
    ),
    "check": lambda qrels, queries: irframe.check(OTHER, qrels, RUN, ["RR"], by="segment", queries=queries),
}
ONE_VALUE = "a query attribute needs one value per query"


@pytest.mark.parametrize("verb", VERBS)
def test_two_values_in_the_qrels_refused(verb: str) -> None:
    with pytest.raises(
        InvalidDataError, match=f"by='segment': query 'q1' has several values in the qrels; {ONE_VALUE}"
    ):
        VERBS[verb](TWO_VALUES, None)


@pytest.mark.parametrize("verb", VERBS)
def test_two_values_in_the_queries_table_refused(verb: str) -> None:
    match = f"by='segment': query 'q1' has several values in the queries table; {ONE_VALUE}"
    with pytest.raises(InvalidDataError, match=match):
        VERBS[verb](QRELS, QUERIES_TWICE)


@pytest.mark.parametrize("verb", VERBS)
def test_unknown_attribute_named_with_did_you_mean(verb: str) -> None:
    queries = pl.DataFrame({"query_id": ["q1", "q2"], "segmnt": ["head", "tail"]})
    with pytest.raises(
        ColumnNotFoundError, match=r"The by column 'segment' of \w+ is not in .*did you mean 'segmnt'"
    ):
        VERBS[verb](QRELS, queries)


def test_one_value_per_query_gives_the_same_groups_everywhere() -> None:
    """q1 head (RR 1 for RUN), q2 tail (RR 1): each verb's groups hold one query each."""
    queries = pl.DataFrame({"query_id": ["q1", "q2"], "segment": ["head", "tail"]})
    ev = irframe.evaluate(RUN, ["RR"], QRELS, by="segment", queries=queries).sort("segment")
    assert ev.select("segment", "RR", "n_queries").rows() == [("head", 1.0, 1), ("tail", 1.0, 1)]
    cmp = irframe.compare({"a": RUN, "b": OTHER}, QRELS, ["RR"], by="segment", queries=queries)
    cmp = cmp.filter(pl.col("segment").is_not_null())  # (the overall row first)
    assert sorted(cmp.select("segment", "n_queries").rows()) == [("head", 1), ("tail", 1)]
    # OTHER ranks b (grade 0) first in q1: RR 1/2 there, 1 in q2 (a is its only document)
    assert sorted(cmp.select("segment", "mean").rows()) == [("head", 0.5), ("tail", 1.0)]
