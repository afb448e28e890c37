"""The sorted log's path: a log sorted by (impression, position) whose checks are proved row by row
(``_input/logs.clean_sorted_log``) gives the numbers of the general path, and every problem the
general path refuses is still refused, naming the impression."""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest
from polars._typing import EngineType

from _support.online_logs import ab_log
from irframe import online
from irframe._input.logs import clean_sorted_log
from irframe.exceptions import DuplicateRowsError, InvalidDataError

METRICS = ["CTR@3", "Abandonment", "ClicksPerQuery", "RRFirstClick", "TimeToFirstClick", "SATClick@30",
           "Reformulation", "SuccessfulSession", "PositionCTR"]  # fmt: skip


@pytest.fixture(scope="module")
def log() -> pl.DataFrame:
    return ab_log(60, seed=4, lift=0.3)


def _proof(frame: pl.DataFrame, same: tuple[str, ...] = ("user_id",), engine: EngineType = "auto") -> bool:
    proof = clean_sorted_log(frame.collect_schema(), same)
    assert proof is not None
    return bool(frame.lazy().select(proof).collect(engine=engine).item())


def test_the_sorted_path_equals_the_general_path(log: pl.DataFrame) -> None:
    """ab_log is sorted (the proof holds); shuffled, the same rows take the general path."""
    shuffled = log.sample(fraction=1.0, shuffle=True, seed=3)
    assert _proof(log)
    assert not _proof(shuffled)
    for by in (None, "device"):
        ref = online.metrics(shuffled, METRICS, by=by)
        got = online.metrics(log, METRICS, by=by)
        floats = ("value", "se", "ci_low", "ci_high")
        assert got.drop(floats).equals(ref.drop(floats))
        for col in floats:
            assert got[col].to_list() == pytest.approx(ref[col].to_list(), rel=1e-12, nan_ok=True), col
    ref_ab = online.compare(shuffled, METRICS, control="A")
    got_ab = online.compare(log, METRICS, control="A")
    for col in ("diff", "lift_ci_low", "p_value", "srm_p_value"):
        assert got_ab[col].to_list() == pytest.approx(ref_ab[col].to_list(), rel=1e-12, nan_ok=True), col


def _with(log: pl.DataFrame, col: str, imp: int, offset: int, value: object) -> pl.DataFrame:
    """``log`` with ``col`` set to ``value`` on the row at ``offset`` within impression ``imp``."""
    row = pl.int_range(pl.len()).over("impression_id") == offset
    hit = (pl.col("impression_id") == imp) & row
    return log.with_columns(pl.when(hit).then(pl.lit(value)).otherwise(pl.col(col)).alias(col))


@pytest.mark.parametrize(
    ("col", "value", "offset"),
    [
        ("position", 2, 0),  # (7, 2) twice: a duplicate position (also out of order)
        ("position", 0, 0),
        ("clicked", -1, 1),
        ("doc_id", None, 2),
        ("query_id", "other", 3),  # two queries in one impression
        ("user_id", "u-other", 4),  # a `same` column changes within the impression
        ("user_id", None, 4),  # a null mixed with values
    ],
)
def test_the_proof_fails_on_every_problem(log: pl.DataFrame, col: str, value: object, offset: int) -> None:
    """(A lazy log is proved by the streaming engine: the same answer.)"""
    bad = _with(log, col, 7, offset, value)
    assert not _proof(bad)
    assert not _proof(bad, engine="streaming")
    assert _proof(log, engine="streaming")


def test_the_proof_fails_on_an_unsorted_log_and_an_empty_one(log: pl.DataFrame) -> None:
    swapped = pl.concat([log.filter(pl.col("impression_id") == 2), log.filter(pl.col("impression_id") != 2)])
    assert not _proof(swapped)
    assert not _proof(log.head(0))
    assert clean_sorted_log(pl.Schema({"impression_id": pl.Boolean}), ()) is None


def _as(frame: pl.DataFrame, lazy: bool) -> Any:
    return frame.lazy() if lazy else frame


@pytest.mark.parametrize("lazy", [False, True])
def test_a_duplicate_position_in_a_sorted_log_is_refused_naming_it(log: pl.DataFrame, lazy: bool) -> None:
    """(impression 7, position 2) twice, the rows still sorted (non-strictly): refused, named."""
    dup = _with(log, "position", 7, 2, 2).sort("impression_id", "position", maintain_order=True)
    with pytest.raises(DuplicateRowsError, match="position 2 twice in impression 7"):
        online.metrics(_as(dup, lazy), "CTR")


@pytest.mark.parametrize("lazy", [False, True])
def test_problems_in_a_sorted_log_are_refused(log: pl.DataFrame, lazy: bool) -> None:
    """Every problem of a sorted log, eager or lazy, is refused by the general path's error."""
    no_unit = log.with_columns(pl.lit(None, pl.String).alias("user_id"))
    cases: list[tuple[str, pl.DataFrame, str | None]] = [
        (r"impression 7 has rows of 2 queries", _with(log, "query_id", 7, 3, "other"), None),
        (r"impression 7 has different values of 'user_id'", _with(log, "user_id", 7, 4, "u-x"), None),
        (r"impression 7 has different values of 'device'", _with(log, "device", 7, 1, "tv"), "device"),
        ("unit column 'user_id' has nulls", no_unit, None),
        (r"position 0 in impression 7", _with(log, "position", 7, 0, 0), None),
        (r"negative value in impression 7", _with(log, "clicked", 7, 1, -1), None),
        (r"column 'doc_id' has nulls \(impression 7\)", _with(log, "doc_id", 7, 2, None), None),
    ]
    for match, frame, by in cases:
        with pytest.raises(InvalidDataError, match=match):
            online.metrics(_as(frame, lazy), "CTR", by=by)


def test_a_lazy_sorted_log_takes_the_sorted_path(log: pl.DataFrame, monkeypatch: pytest.MonkeyPatch) -> None:
    """A LazyFrame in impression order: the numbers of the eager log and of the shuffled one (the
    general path), the result still lazy; the proof held (the general path's checks never ran)."""
    from irframe.online import _tables

    shuffled = log.sample(fraction=1.0, shuffle=True, seed=3)
    floats = ("value", "se", "ci_low", "ci_high")
    ref = online.metrics(shuffled, METRICS, by="device")
    eager = online.metrics(log, METRICS, by="device")
    calls: list[bool] = []
    real = _tables._clean_sorted
    monkeypatch.setattr(_tables, "_clean_sorted", lambda *a: calls.append(real(*a)) or calls[-1])
    got = online.metrics(log.lazy(), METRICS, by="device")
    assert calls == [True]
    assert isinstance(got, pl.LazyFrame)
    got_df = got.collect()
    assert got_df.drop(floats).equals(ref.drop(floats))
    assert got_df.drop(floats).equals(eager.drop(floats))
    for col in floats:
        assert got_df[col].to_list() == pytest.approx(ref[col].to_list(), rel=1e-12, nan_ok=True), col
        assert got_df[col].to_list() == pytest.approx(eager[col].to_list(), rel=1e-12, nan_ok=True), col
    calls.clear()
    lazy_ab = online.compare(log.lazy(), METRICS, control="A")
    assert calls == [True]
    ref_ab = online.compare(shuffled.lazy(), METRICS, control="A")
    assert calls == [True, False]
    assert isinstance(lazy_ab, pl.LazyFrame)
    for col in ("diff", "lift_ci_low", "p_value", "srm_p_value"):
        want = ref_ab.collect()[col].to_list()
        assert lazy_ab.collect()[col].to_list() == pytest.approx(want, rel=1e-12, nan_ok=True), col
