"""Background polars queries are always fetched, exactly once (a dropped one aborts).

polars 2.1's ``collect(background=True)`` unwraps the send of the query's result: if the
handle is dropped before the query finishes, the process aborts.  These tests check the
guarantee that prevents it (every query started is fetched before its block exits) on
the keyed path's every way out: an answer, and each fallback to the general plan.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import polars as pl
import pytest

import irframe
from _support.helpers import graded_run
from irframe._engine import background as _background
from irframe._engine import keyed as _keyed
from irframe._engine import strategy as _plan
from irframe._engine.background import Background, Pending


@pytest.fixture(autouse=True)
def _keyed_path_even_when_small(monkeypatch: pytest.MonkeyPatch) -> None:
    """These frames are small: the keyed path (not the small executor) is under test."""
    monkeypatch.setattr(_plan, "SMALL_ROWS", 0)


def test_a_query_never_asked_for_is_fetched_when_the_block_exits() -> None:
    with Background() as bg:
        pending = bg.start(pl.LazyFrame({"x": [1, 2, 3]}).select(pl.col("x").sum()))
    assert pending.fetched
    assert pending.result().item() == 6  # (kept: a second fetch would break polars)


def test_the_block_drains_its_queries_when_an_error_leaves_it() -> None:
    started: list[Pending] = []

    def fail_midway() -> None:
        with Background() as bg:
            started.append(bg.start(pl.LazyFrame({"x": [1, 2]}).select(pl.col("x").max())))
            raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        fail_midway()
    assert started[0].fetched


def test_a_failing_query_raises_once_then_says_so() -> None:
    bad = pl.LazyFrame({"x": ["a"]}).select(pl.col("x").cast(pl.Int64, strict=True))
    with Background() as bg:
        pending = bg.start(bad)
        with pytest.raises(pl.exceptions.InvalidOperationError):
            pending.result()
        with pytest.raises(RuntimeError, match="failed"):
            pending.result()
    # an unfetched failing query does not raise from the block's exit either
    with Background() as bg:
        other = bg.start(bad)
    assert other.fetched


@contextmanager
def started_queries() -> Iterator[list[Pending]]:
    """Every background query the engine starts, and the keyed path's outcome."""
    started: list[Pending] = []
    original = Background.start

    def spy(self: Background, query: pl.LazyFrame) -> Pending:
        pending = original(self, query)
        started.append(pending)
        return pending

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_background.Background, "start", spy)
        yield started


RUN = {
    "query_id": ["q1"] * 4 + ["q2"] * 4,
    "doc_id": ["a", "b", "c", "d", "a", "e", "f", "g"],
    "score": [0.3, 0.9, 0.5, 0.1, 0.2, 0.8, 0.8, 0.4],
}
QRELS = {"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "c", "f"], "relevance": [1, 2, 1]}


def _evaluate(run: dict[str, list[Any]], qrels: dict[str, list[Any]]) -> pl.DataFrame:
    return irframe.evaluate(pl.DataFrame(run), ["AP", "nDCG@3"], pl.DataFrame(qrels), per_query=True)


def test_keyed_answer_fetches_every_query() -> None:
    with started_queries() as started:
        _evaluate(RUN, QRELS)
    assert len(started) == 4  # the qrels' table, the two duplicate probes, the ids' check
    assert all(p.fetched for p in started)


def test_fallback_after_the_join_fetches_every_query(monkeypatch: pytest.MonkeyPatch) -> None:
    # the ordering gives up (as on a query-hash collision) with every query still pending
    monkeypatch.setattr(_plan, "keyed_rows", lambda *args: None)
    with started_queries() as started:
        _evaluate(RUN, QRELS)
    assert len(started) == 4
    assert all(p.fetched for p in started)


def test_duplicate_run_rows_fetch_every_query_before_the_error() -> None:
    run = {"query_id": ["q1", "q1"], "doc_id": ["a", "a"], "score": [1.0, 0.5]}
    with started_queries() as started, pytest.raises(irframe.exceptions.DuplicateRowsError):
        _evaluate(run, QRELS)
    assert started
    assert all(p.fetched for p in started)


def test_an_error_inside_the_ordering_fetches_every_query(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(*args: Any) -> None:
        raise MemoryError("out of memory while sorting")

    monkeypatch.setattr(_plan, "keyed_rows", fail)
    with started_queries() as started, pytest.raises(MemoryError):
        _evaluate(RUN, QRELS)
    assert len(started) == 4
    assert all(p.fetched for p in started)


def _graded(run: dict[str, list[Any]]) -> pl.DataFrame:
    """The run carrying its own grades (no qrels): the keyed path without a join."""
    return irframe.evaluate(graded_run(run, QRELS), ["AP", "nDCG@3"], per_query=True)


def test_grades_on_the_run_fetch_their_one_query() -> None:
    with started_queries() as started:
        _graded(RUN)
    assert len(started) == 1  # the run's duplicate probe: no qrels table, no join check
    assert all(p.fetched for p in started)


@pytest.mark.parametrize("way_out", ["fallback", "error"])
def test_grades_on_the_run_fetch_it_on_every_way_out(monkeypatch: pytest.MonkeyPatch, way_out: str) -> None:
    def fail(*args: Any) -> None:
        raise MemoryError("out of memory while sorting")

    monkeypatch.setattr(_plan, "keyed_rows", (lambda *args: None) if way_out == "fallback" else fail)
    with started_queries() as started:
        if way_out == "fallback":
            _graded(RUN)
        else:
            with pytest.raises(MemoryError):
                _graded(RUN)
    assert len(started) == 1
    assert all(p.fetched for p in started)


def test_colliding_qrels_keys_fetch_every_query() -> None:
    # every qrels key collides: the qrels' duplicate probe says so, after the join
    def weak(name: str, seed: int) -> pl.Expr:
        return pl.col(name).hash(seed=seed) & pl.lit(1, dtype=pl.UInt64)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_keyed, "column_hash", weak)
        with started_queries() as started:
            _evaluate(RUN, QRELS)
    assert all(p.fetched for p in started)


_IN_UDF = """
import polars as pl, irframe
run = pl.DataFrame({"query_id": ["q1"] * 4, "doc_id": list("abcd"), "score": [0.2, 0.9, 0.5, 0.1]})
qrels = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "c"], "relevance": [1, 2]})
def udf(s):
    return pl.Series([irframe.evaluate(run, ["AP"], qrels).item(0, "AP")] * len(s))
df = pl.DataFrame({"g": [0, 1, 2, 3] * 2, "x": list(range(8))})
for engine in ("in-memory", "streaming"):
    out = df.lazy().group_by("g").agg(
        pl.col("x").map_batches(udf, return_dtype=pl.Float64, returns_scalar=False)
    ).collect(engine=engine)
    assert out.height == 4, out
print("ok")
"""


@pytest.mark.parametrize("threads", ["1", "2"])
def test_evaluate_inside_a_polars_udf_does_not_block(threads: str) -> None:
    # a UDF runs on one of polars' own threads, which then waits for the background
    # queries on the same pool: it must not deadlock, even with a pool of one thread
    import os
    import subprocess
    import sys

    env = {**os.environ, "POLARS_MAX_THREADS": threads}
    done = subprocess.run(
        [sys.executable, "-c", _IN_UDF], env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "ok"
