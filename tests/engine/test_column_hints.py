"""The column hints are code: each suggested fix is followed, in Python and on the command
line, and the number it gives is checked.

The three-row example: one query, documents a, b, c at positions 1, 2, 3, only a relevant.
Read as a rank (1 is the top) the first document is relevant: RR = 1/1 = 1.0.  Read as a
score (higher is better) the ranking is c, b, a: RR = 1/3 (the reversed reading a hint must
never suggest).
"""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
import pytest

import irframe
from _support.cli_runner import run_cli
from irframe.exceptions import ColumnNotFoundError

QRELS = pl.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "relevance": [1]})


def _run(position_name: str) -> pl.DataFrame:
    return pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "b", "c"], position_name: [1, 2, 3]})


def _python_fix(message: str) -> dict[str, str]:
    found = re.findall(r"Hint: did you mean (\w+_col)='([^']+)'\?", message)
    return dict(found)


@pytest.mark.parametrize("name", ["position", "pos", "Position", "click_position", "rank_in_page", "rnk"])
def test_a_position_column_is_hinted_as_the_rank_and_the_hint_gives_rr_1(name: str) -> None:
    with pytest.raises(ColumnNotFoundError) as info:
        irframe.evaluate(_run(name), ["RR"], QRELS)
    fix = _python_fix(str(info.value))
    assert fix == {"rank_col": name}, str(info.value)
    assert "score_col=" not in str(info.value).split("Hint:", 1)[1]
    out = irframe.evaluate(_run(name), ["RR"], QRELS, **fix)  # type: ignore[arg-type]
    assert out["RR"].item() == 1.0  # a at position 1 is relevant: 1/1


def test_a_score_like_column_is_still_hinted_as_the_score() -> None:
    # sim 3, 2, 1: a has the highest similarity -> first -> RR 1.0
    run = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "b", "c"], "sim": [3.0, 2.0, 1.0]})
    with pytest.raises(ColumnNotFoundError) as info:
        irframe.evaluate(run, ["RR"], QRELS)
    fix = _python_fix(str(info.value))
    assert fix == {"score_col": "sim"}
    assert irframe.evaluate(run, ["RR"], QRELS, **fix)["RR"].item() == 1.0  # type: ignore[arg-type]


def test_order_score_never_offers_a_position_as_the_score() -> None:
    with pytest.raises(ColumnNotFoundError) as info:
        irframe.evaluate(_run("position"), ["RR"], QRELS, order="score")
    assert "score_col='position'" not in str(info.value)


@pytest.mark.parametrize("name", ["position", "pos"])
def test_the_cli_hint_is_map_position_rank_and_following_it_gives_rr_1(tmp_path: Path, name: str) -> None:
    run, qrels = tmp_path / "run.csv", tmp_path / "qrels.txt"
    _run(name).write_csv(run)
    qrels.write_text("q1 0 a 1\n")
    failed = run_cli("eval", str(qrels), str(run), "-m", "RR", "-f", "tsv")
    assert failed.returncode == 2
    hint = re.findall(r"--map (\S+)=(\w+)\?", failed.stderr)
    assert hint == [(name, "rank")], failed.stderr
    fixed = run_cli("eval", str(qrels), str(run), "-m", "RR", "-f", "tsv", "--map", f"{name}=rank")
    assert fixed.returncode == 0, fixed.stderr
    rows = [line.split("\t") for line in fixed.stdout.splitlines()]
    assert float(rows[1][rows[0].index("RR")]) == 1.0


# --- a frame missing several roles: every one in one message ------------------------------------
def test_every_missing_role_is_named_once_with_its_hint() -> None:
    run = pl.DataFrame({"qid": ["q1"] * 3, "docno": ["a", "b", "c"], "position": [1, 2, 3]})
    with pytest.raises(ColumnNotFoundError) as info:
        irframe.evaluate(run, ["RR"], QRELS)
    msg = str(info.value)
    assert "lacks 3 columns" in msg
    for named in ("'query_id'", "'doc_id'", "neither a rank column 'rank' nor a score column 'score'"):
        assert named in msg, msg
    fix = _python_fix(msg)
    assert fix == {"query_col": "qid", "doc_col": "docno", "rank_col": "position"}
    qrels = QRELS.rename({"query_id": "qid", "doc_id": "docno"})
    assert irframe.evaluate(run, ["RR"], qrels, **fix)["RR"].item() == 1.0  # type: ignore[arg-type]


def test_the_qrels_missing_several_roles_names_them_all() -> None:
    qrels = QRELS.rename({"query_id": "topic", "relevance": "label"})
    with pytest.raises(ColumnNotFoundError) as info:
        irframe.evaluate(_run("rank"), ["RR"], qrels)
    msg = str(info.value)
    assert "The qrels frame lacks 2 columns" in msg, msg
    fix = _python_fix(msg)
    assert fix == {"qrels_query_col": "topic", "qrels_relevance_col": "label"}
    assert irframe.evaluate(_run("rank"), ["RR"], qrels, **fix)["RR"].item() == 1.0  # type: ignore[arg-type]


def test_missing_grades_are_named_with_the_ids() -> None:
    run = pl.DataFrame({"qid": ["q1"], "doc_id": ["a"], "rank": [1], "grade": [1]})
    with pytest.raises(ColumnNotFoundError) as info:
        irframe.evaluate(run, ["RR"])
    msg = str(info.value)
    assert "lacks 2 columns" in msg, msg
    assert "'query_id'" in msg
    assert "'relevance'" in msg
    assert _python_fix(msg) == {"query_col": "qid", "relevance_col": "grade"}
    assert "qrels=" in msg  # the other way: separate judgments
