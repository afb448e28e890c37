"""The sorted log's path: a log sorted by (impression, position) whose checks are proved row by row
(``_input/logs.clean_sorted_log``) gives the numbers of the general path, and every problem the
general path refuses is still refused, naming the impression."""

from __future__ import annotations

import polars as pl
import pytest

from _support.online_logs import ab_log
from irframe import online
from irframe._input.logs import clean_sorted_log
from irframe.exceptions import DuplicateRowsError, InvalidDataError

METRICS = ["CTR@3", "Abandonment", "ClicksPerQuery", "RRFirstClick", "TimeToFirstClick", "SATClick@30",
           "Reformulation", "SuccessfulSession", "PositionCTR"]  # fmt: skip


@pytest.fixture(scope="module")
def log() -> pl.DataFrame:
    return ab_log(60, seed=4, lift=0.3)


def _proof(frame: pl.DataFrame, same: tuple[str, ...] = ("user_id",)) -> bool:
    proof = clean_sorted_log(frame.collect_schema(), same)
    assert proof is not None
    return bool(frame.lazy().select(proof).collect().item())


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
    assert not _proof(_with(log, col, 7, offset, value))


def test_the_proof_fails_on_an_unsorted_log_and_an_empty_one(log: pl.DataFrame) -> None:
    swapped = pl.concat([log.filter(pl.col("impression_id") == 2), log.filter(pl.col("impression_id") != 2)])
    assert not _proof(swapped)
    assert not _proof(log.head(0))
    assert clean_sorted_log(pl.Schema({"impression_id": pl.Boolean}), ()) is None


def test_a_duplicate_position_in_a_sorted_log_is_refused_naming_it(log: pl.DataFrame) -> None:
    """(impression 7, position 2) twice, the rows still sorted (non-strictly): refused, named."""
    dup = _with(log, "position", 7, 2, 2).sort("impression_id", "position", maintain_order=True)
    with pytest.raises(DuplicateRowsError, match="position 2 twice in impression 7"):
        online.metrics(dup, "CTR")


def test_problems_in_a_sorted_log_are_refused(log: pl.DataFrame) -> None:
    with pytest.raises(InvalidDataError, match=r"impression 7 has rows of 2 queries"):
        online.metrics(_with(log, "query_id", 7, 3, "other"), "CTR")
    with pytest.raises(InvalidDataError, match=r"impression 7 has different values of 'user_id'"):
        online.metrics(_with(log, "user_id", 7, 4, "u-other"), "CTR")
    with pytest.raises(InvalidDataError, match=r"impression 7 has different values of 'device'"):
        online.metrics(_with(log, "device", 7, 1, "tv"), "CTR", by="device")
    with pytest.raises(InvalidDataError, match="unit column 'user_id' has nulls"):
        online.metrics(log.with_columns(pl.lit(None, pl.String).alias("user_id")), "CTR")
