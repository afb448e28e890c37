"""The edge rules of stacking several runs (issue 39): the same answer, in the same words, from
every verb that takes several runs (all of them call irframe._input.runs.stack_runs)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import polars as pl
import pytest

import irframe
from irframe import fusion
from irframe._compare.pairing import system_means
from irframe.exceptions import ColumnNotFoundError, InvalidDataError, InvalidParameterError

RUN = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "a"], "rank": [1, 2, 1]})
QRELS = pl.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["a", "a"], "relevance": [1, 1]})
JUDGES = pl.DataFrame(
    {
        "judge": ["x", "y", "x", "y"],
        "query_id": ["q1", "q1", "q2", "q2"],
        "doc_id": ["a"] * 4,
        "relevance": [1] * 4,
    }
)

# the one wording of each rule
NAMES = r"run names \(the dict's keys\) must be non-empty strings"
NULL_SYSTEM = r"3 rows of the stacked runs have a null or empty system name in column 'system'"
NO_COLUMN = r"(?s)has no system column 'system'.*did you mean system_col='System'.*Or pass the runs as a dict"
KINDS = r"different kinds \('bm25': polars, 'dense': polars-lazy\)"

# verb name -> (call on runs, the fewest systems it needs)
VERBS: dict[str, tuple[Callable[[Any], object], int]] = {
    "compare": (lambda runs: irframe.compare(runs, QRELS, ["RR"]), 2),
    "system_means": (lambda runs: system_means(runs, QRELS, ["RR"]), 2),
    "moved": (lambda runs: irframe.moved(runs, QRELS, "RR"), 2),
    "pool": (lambda runs: irframe.pool(runs, QRELS, depth=2), 1),
    "agreement": (lambda runs: irframe.agreement(JUDGES, runs=runs, measures="RR"), 2),
    "fuse": (fusion.fuse, 2),
    "tune_fusion": (lambda runs: fusion.tune_fusion(runs, QRELS, "RR", method="rrf", grid=[60]), 2),
}


def _stacked(systems: list[Any], dtype: pl.DataType | None = None) -> pl.DataFrame:
    parts = [RUN.with_columns(pl.lit(s, dtype=dtype).alias("system")) for s in systems]
    return pl.concat(parts) if parts else RUN.head(0).with_columns(pl.lit(None, dtype=dtype).alias("system"))


@pytest.mark.parametrize("verb", VERBS)
@pytest.mark.parametrize("name", [1, "", None])
def test_dict_names_must_be_non_empty_text(verb: str, name: object) -> None:
    call, _ = VERBS[verb]
    with pytest.raises(InvalidParameterError, match=NAMES):
        call({"bm25": RUN, name: RUN})


@pytest.mark.parametrize("verb", VERBS)
@pytest.mark.parametrize("bad", [None, ""])
def test_stacked_null_or_empty_system_refused(verb: str, bad: str | None) -> None:
    """A row of no system is refused: it would drop out of every comparison unseen."""
    call, _ = VERBS[verb]
    runs = _stacked(["bm25", "dense", bad], pl.String())
    with pytest.raises(InvalidDataError, match=NULL_SYSTEM):
        call(runs)


@pytest.mark.parametrize("verb", VERBS)
def test_non_text_system_names_are_read_as_text(verb: str) -> None:
    """Integer system names in a stacked frame are names: 1 and 2 are two systems."""
    call, _ = VERBS[verb]
    call(_stacked([1, 2], pl.Int64()))  # no error: two systems


@pytest.mark.parametrize("verb", VERBS)
def test_too_few_runs(verb: str) -> None:
    call, at_least = VERBS[verb]
    few = {f"s{i}": RUN for i in range(at_least - 1)}
    with pytest.raises(
        InvalidParameterError, match=rf"needs at least {at_least} systems?; got {at_least - 1}"
    ):
        call(few)
    with pytest.raises(
        InvalidParameterError, match=rf"needs at least {at_least} systems?; got {at_least - 1}"
    ):
        call(_stacked([f"s{i}" for i in range(at_least - 1)], pl.String()))


@pytest.mark.parametrize("verb", VERBS)
def test_missing_system_column(verb: str) -> None:
    call, _ = VERBS[verb]
    with pytest.raises(ColumnNotFoundError, match=NO_COLUMN):
        call(_stacked(["bm25", "dense"], pl.String()).rename({"system": "System"}))


@pytest.mark.parametrize("verb", VERBS)
def test_frames_of_different_kinds(verb: str) -> None:
    call, _ = VERBS[verb]
    with pytest.raises(InvalidParameterError, match=KINDS):
        call({"bm25": RUN, "dense": RUN.lazy()})
