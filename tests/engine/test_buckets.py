"""Large in-memory runs are evaluated in query buckets (``engine._buckets``).

Bucketing is forced on small inputs by shrinking ``BUCKET_ROWS``. The results must be the
one-pass results and the plain-Python oracle's; errors must count over the whole input;
every bucket must see each system, so that missing queries are filled in everywhere.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import polars as pl
import pytest
from hypothesis import given, settings
from polars.testing import assert_frame_equal

import irframe
from datagen import run_and_qrels
from helpers import assert_close_dicts, per_query_dict
from irframe.engine import _buckets
from irframe.exceptions import DuplicateRowsError, InvalidDataError
from oracle import oracle_evaluate

LABELS = ["AP", "nDCG@3", "P@2", "RR", "R@5", "Rprec", "num_rel_ret"]
QUERIES = [f"q{i}" for i in range(12)]


class Buckets:
    """Bucketing forced to ``n`` buckets; ``passes`` counts the buckets collected."""

    def __init__(self, mp: pytest.MonkeyPatch) -> None:
        self.mp = mp
        self.passes = 0
        real = _buckets.collect_unchecked

        def counted(plan: Any) -> Any:
            self.passes += 1
            return real(plan)

        mp.setattr(_buckets, "collect_unchecked", counted)

    def force(self, n: int) -> None:
        self.mp.setattr(_buckets, "BUCKET_ROWS", 1)
        self.mp.setattr(_buckets, "MAX_BUCKETS", n)

    def off(self) -> None:
        self.mp.setattr(_buckets, "BUCKET_ROWS", 10**12)


@pytest.fixture
def buckets() -> Iterator[Buckets]:
    with pytest.MonkeyPatch.context() as mp:
        yield Buckets(mp)


def _both(buckets: Buckets, n: int, run: Any, qrels: Any, measures: list[str], **kw: Any) -> tuple[Any, Any]:
    """The per-query table and the means, in ``n`` buckets, then in one pass."""
    buckets.force(n)
    bucketed = (
        irframe.evaluate(run, measures, qrels, per_query=True, **kw),
        irframe.evaluate(run, measures, qrels, **kw),
    )
    assert buckets.passes > 2, "the run was not cut into buckets"
    buckets.off()
    one = (
        irframe.evaluate(run, measures, qrels, per_query=True, **kw),
        irframe.evaluate(run, measures, qrels, **kw),
    )
    for got, expected in zip(bucketed, one, strict=True):
        if isinstance(got, pd.DataFrame):
            pd.testing.assert_frame_equal(got, expected)
        else:
            assert_frame_equal(got, expected)
    return bucketed


@settings(max_examples=60, deadline=None)
@given(data=run_and_qrels(max_queries=8))
def test_buckets_equal_one_pass_and_the_oracle(
    data: tuple[dict[str, list[Any]], dict[str, list[Any]]],
) -> None:
    run, qrels = data
    with pytest.MonkeyPatch.context() as mp:
        b = Buckets(mp)
        b.force(3)
        got = irframe.evaluate(pl.DataFrame(run), LABELS, pl.DataFrame(qrels), per_query=True)
        b.off()
        one = irframe.evaluate(pl.DataFrame(run), LABELS, pl.DataFrame(qrels), per_query=True)
    assert_frame_equal(got, one)
    assert_close_dicts(per_query_dict(got, LABELS), oracle_evaluate(run, qrels, LABELS), tol=1e-12)


def _twelve_queries() -> tuple[pl.DataFrame, pl.DataFrame]:
    """12 queries, 3 documents each: d0 at rank 1 judged 1, d1 unjudged, d2 judged 2."""
    run = pl.DataFrame(
        {
            "query_id": [q for q in QUERIES for _ in range(3)],
            "doc_id": ["d0", "d1", "d2"] * 12,
            "rank": [1, 2, 3] * 12,
        }
    )
    qrels = pl.DataFrame(
        {
            "query_id": [q for q in QUERIES for _ in range(2)],
            "doc_id": ["d0", "d2"] * 12,
            "relevance": [1, 2] * 12,
        }
    )
    return run, qrels


def test_buckets_hand_computed_and_pandas(buckets: Buckets) -> None:
    run, qrels = _twelve_queries()
    per_query, means = _both(buckets, 4, run.to_pandas(), qrels.to_pandas(), ["P@2", "RR", "AP"])
    assert isinstance(per_query, pd.DataFrame)
    assert list(per_query["query_id"]) == sorted(QUERIES, key=lambda q: int(q[1:]))  # natural order
    # P@2 = 1/2 (d0 of d0, d1); RR = 1; AP = (1/1 + 2/3) / 2 = 5/6
    assert per_query["P@2"].tolist() == [0.5] * 12
    assert per_query["AP"].tolist() == pytest.approx([5 / 6] * 12, abs=1e-15)
    assert means["n_queries"].item() == 12


def test_systems_absent_from_a_bucket_get_their_missing_queries(buckets: Buckets) -> None:
    """System ``b`` answers q0 only: every other judged query is missing for it, in
    whichever bucket that query lands (``missing="zero"``)."""
    run, qrels = _twelve_queries()
    runs = pl.concat([run.with_columns(system=pl.lit("a")), run.head(3).with_columns(system=pl.lit("b"))])
    per_query, means = _both(buckets, 5, runs, qrels, ["P@2", "RR"], by="system")
    assert per_query.height == 24
    b = per_query.filter(pl.col("system") == "b").sort("query_id")
    assert b.filter(pl.col("query_id") == "q0")["RR"].item() == 1.0
    assert b.filter(pl.col("query_id") != "q0")["RR"].to_list() == [0.0] * 11
    assert means.sort("system")["n_missing"].to_list() == [0, 11]
    assert means.filter(pl.col("system") == "b")["RR"].item() == pytest.approx(1 / 12)


def test_integer_run_ids_against_string_qrels_ids(buckets: Buckets) -> None:
    """Ids of different dtypes are compared as strings: they must hash into the same
    bucket as strings too, or every query would be missing."""
    run, qrels = _twelve_queries()
    run = run.with_columns(pl.col("query_id").str.slice(1).cast(pl.Int64))
    qrels = qrels.with_columns(pl.col("query_id").str.slice(1))
    per_query, _ = _both(buckets, 4, run, qrels, ["RR"], missing="error")
    assert per_query["RR"].to_list() == [1.0] * 12


def test_more_buckets_than_queries(buckets: Buckets) -> None:
    run, qrels = _twelve_queries()
    per_query, _ = _both(buckets, 64, run.head(6), qrels, ["RR"], missing="drop")
    assert per_query["query_id"].to_list() == ["q0", "q1"]


def test_errors_count_rows_over_all_buckets(buckets: Buckets) -> None:
    """Null doc ids and duplicates in several queries (so in several buckets): the
    message counts them all, as one pass does."""
    run, qrels = _twelve_queries()
    buckets.force(4)
    nulls = run.with_columns(
        pl.when(pl.col("doc_id") == "d1").then(None).otherwise(pl.col("doc_id")).alias("doc_id")
    )
    with pytest.raises(InvalidDataError, match=r"^12 run rows have a null 'doc_id'"):
        irframe.evaluate(nulls, ["RR"], qrels)
    dups = pl.concat([run, run.filter(pl.col("doc_id") == "d0")])
    with pytest.raises(
        DuplicateRowsError, match=r"The run has 12 duplicate \(query_id, doc_id\) rows in 12 queries"
    ):
        irframe.evaluate(dups, ["RR"], qrels)
    assert buckets.passes > 2


def test_bucket_count() -> None:
    assert _buckets.bucket_count(0) == 1
    assert _buckets.bucket_count(_buckets.BUCKET_ROWS) == 1
    assert _buckets.bucket_count(_buckets.BUCKET_ROWS + 1) == 2
    assert _buckets.bucket_count(10**15) == _buckets.MAX_BUCKETS


def test_the_documented_bucket_size_is_the_engines() -> None:
    """README, the big-data guide, ``evaluate``'s docstring and the changelog quote it."""
    said = f"{_buckets.BUCKET_ROWS / 1e6:g} million rows"
    root = Path(__file__).resolve().parents[2]
    for path in ("README.md", "docs/guides/big-data.md", "CHANGELOG.md"):
        assert said in " ".join((root / path).read_text(encoding="utf-8").split()), path
    assert said in " ".join(str(irframe.evaluate.__doc__).split())
