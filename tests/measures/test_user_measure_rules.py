"""User measures: a name that another spelling owns is refused; a kernel's null or NaN is an
error with one message on every path and backend (issue 35, class 4)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import polars as pl
import pytest

import irframe
from _support.helpers import CONSTRUCTORS
from irframe.exceptions import InvalidDataError, InvalidParameterError
from irframe.measures import unregister


@pytest.mark.parametrize(
    ("name", "owner"),
    [
        ("map", "trec_eval's name of AP"),
        ("P_5", "trec_eval's name of P@5"),
        ("ndcg_cut_10", "trec_eval's name of nDCG(gain=linear)@10"),
        ("recip_rank", "trec_eval's name of RR"),
        ("MAP", "an alias of the family AP"),
        ("nDCG", "the built-in family nDCG"),
        ("n_queries", "the name of a count column"),
    ],
)
def test_a_name_another_spelling_owns_is_refused(name: str, owner: str) -> None:
    with pytest.raises(InvalidParameterError, match=f"already registered as {re.escape(owner)}"):
        irframe.define_measure(name, lambda q: q.grades.sum())
    assert name not in irframe.measures.registry() or name in ("nDCG",)


RUN = {"query_id": ["q1", "q1", "q2", "q2"], "doc_id": ["a", "b", "c", "d"], "score": [2.0, 1.0, 2.0, 1.0]}
QRELS = {"query_id": ["q1", "q2", "q3"], "doc_id": ["a", "c", "z"], "relevance": [1, 0, 1]}


@pytest.fixture
def first_relevant_rank() -> Iterator[str]:
    """The rank of the first relevant document: null for a query without one (q2 here)."""
    irframe.define_measure(
        "FirstRel", lambda q: (q.grades >= 1).arg_true().first().cast(pl.Float64) + 1.0, cutoff="none"
    )
    yield "FirstRel"
    unregister("FirstRel")


@pytest.fixture
def nan_for_empty() -> Iterator[str]:
    """0/0 for a query whose top 1 has no judged document."""
    irframe.define_measure("NanMean", lambda q: q.grades.drop_nulls().sum() / (q.grades >= 1).sum())
    yield "NanMean"
    unregister("NanMean")


@pytest.mark.parametrize("kind", list(CONSTRUCTORS))
def test_a_kernels_null_is_an_error_naming_the_queries(kind: str, first_relevant_rank: str) -> None:
    ctor = CONSTRUCTORS[kind]
    with pytest.raises(InvalidDataError, match=r"'FirstRel' gave null or NaN for 1 queries, e.g. 'q2'"):
        _collected(irframe.evaluate(ctor(RUN), [first_relevant_rank], ctor(QRELS)))


def _collected(out: Any) -> Any:
    return out.collect() if isinstance(out, pl.LazyFrame) else out


def test_a_kernels_nan_is_the_same_error(nan_for_empty: str) -> None:
    with pytest.raises(InvalidDataError, match=r"'NanMean@1' gave null or NaN for 1 queries, e.g. 'q2'"):
        irframe.evaluate(pl.DataFrame(RUN), ["NanMean@1"], pl.DataFrame(QRELS))


def test_a_query_missing_from_the_run_is_not_the_kernels_null(first_relevant_rank: str) -> None:
    """q3 is judged and missing from the run: 0 under missing='zero', as for every measure."""
    run = {k: v[:2] for k, v in RUN.items()}  # q1 only
    out = irframe.evaluate(pl.DataFrame(run), [first_relevant_rank], pl.DataFrame(QRELS), per_query=True)
    assert dict(out.select("query_id", "FirstRel").iter_rows()) == {"q1": 1.0, "q2": 0.0, "q3": 0.0}


def test_the_same_error_on_dask(first_relevant_rank: str) -> None:
    dd = pytest.importorskip("dask.dataframe", reason="the dask backend needs pip install 'irframe[dask]'")
    pd = pytest.importorskip("pandas")
    import dask

    run: Any = dd.from_pandas(pd.DataFrame(RUN), npartitions=2)
    with dask.config.set(scheduler="synchronous"), pytest.raises(Exception, match="gave null or NaN"):
        irframe.evaluate(run, [first_relevant_rank], pd.DataFrame(QRELS)).compute()
