"""compare() on systems with no query in common says why: two A/B arms are not paired (and the
unpaired tool is named), while ids spelled two ways get the spelling hint, which is followed."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

import irframe
from _support.cli_runner import run_cli
from irframe.exceptions import IrFrameError


def _arm(sessions: range, clicked_at: int) -> pl.DataFrame:
    """One A/B arm: each session saw three items; the clicked one (grade 1) at ``clicked_at``."""
    rows = [(f"s{s}", f"p{i}", i, int(i == clicked_at)) for s in sessions for i in (1, 2, 3)]
    return pl.DataFrame(rows, schema=["session_id", "item", "position", "clicked"], orient="row")


COLUMNS = {"query_col": "session_id", "doc_col": "item", "rank_col": "position", "relevance_col": "clicked"}


def test_two_ab_arms_are_not_paired_and_the_unpaired_tool_is_named() -> None:
    arms = {"A": _arm(range(1, 41), 1), "B": _arm(range(41, 81), 2)}
    with pytest.raises(IrFrameError) as info:
        irframe.compare(arms, None, ["RR"], **COLUMNS)  # type: ignore[arg-type]
    msg = str(info.value)
    assert "share no judged query" in msg
    assert "not paired: an A/B test?" in msg
    assert "irframe.online.compare" in msg
    assert "spelled two ways" not in msg


def test_the_cli_says_the_same(tmp_path: Path) -> None:
    for name, arm in {"A": _arm(range(1, 11), 1), "B": _arm(range(11, 21), 2)}.items():
        arm.rename(
            {"session_id": "query_id", "item": "doc_id", "position": "rank", "clicked": "relevance"}
        ).write_csv(tmp_path / f"{name}.csv")
    files = [str(tmp_path / "A.csv"), str(tmp_path / "B.csv")]
    first = run_cli("compare", "--no-qrels", *files, "-m", "RR")
    assert first.returncode == 2
    assert "A/B" in first.stderr  # (the files of one run, or two arms)
    res = run_cli("compare", "--no-qrels", *files, "-m", "RR", "--run-files-are", "systems")
    assert res.returncode == 2
    assert "not paired: an A/B test?" in res.stderr
    assert "irframe.online.compare" in res.stderr


def test_ids_spelled_two_ways_get_the_spelling_hint_and_following_it_pairs_them() -> None:
    # A finds the clicked item at 1 in every session (RR 1), B at 2 (RR 1/2): delta -0.5 on 10 queries
    a = _arm(range(1, 11), 1)
    b = _arm(range(1, 11), 2).with_columns(pl.col("session_id").str.replace("s", "S-"))
    with pytest.raises(IrFrameError) as info:
        irframe.compare({"A": a, "B": b}, None, ["RR"], **COLUMNS)  # type: ignore[arg-type]
    msg = str(info.value)
    assert "spelled two ways ('s1' and 'S-1')" in msg, msg
    assert "A/B test" not in msg
    fixed = b.with_columns(pl.col("session_id").str.replace("S-", "s"))
    table = irframe.compare({"A": a, "B": fixed}, None, ["RR"], **COLUMNS)  # type: ignore[arg-type]
    assert table.item(0, "n_queries") == 10
    assert table.item(0, "delta") == pytest.approx(0.5 - 1.0)
