"""The option blocks the log and answer commands share are written once in ``cli/_common.py``
and ``cli/_inputs.py``: the same options, defaults and words in every subcommand."""

from __future__ import annotations

import typing
from pathlib import Path

import polars as pl
import pytest

import irframe.stats
from _support.cli_runner import run_cli
from _support.online_logs import ab_log
from irframe.cli import _build_parser
from irframe.cli._common import CORRECTIONS

LOG_COMMANDS = [
    ("online", "metrics"), ("online", "compare"), ("online", "interleaving"),
    ("clicks", "bias"), ("clicks", "judgments"), ("clicks", "counterfactual"),
]  # fmt: skip
TABLE_COMMANDS = [
    *LOG_COMMANDS, ("answers", "nuggets"), ("answers", "support"), ("answers", "grounding"),
]  # fmt: skip


def _options(command: str, action: str) -> dict[str, tuple[object, object]]:
    parser = _build_parser()
    sub = next(a for a in parser._actions if a.dest == "command").choices[command]  # type: ignore[union-attr]
    act = next(a for a in sub._actions if a.dest == "action").choices[action]  # type: ignore[union-attr]
    return {a.dest: (a.default, a.help) for a in act._actions}


def test_the_corrections_are_the_librarys() -> None:
    assert typing.get_args(irframe.stats.CorrectionName) == CORRECTIONS
    assert set(CORRECTIONS) == set(irframe.stats.CORRECTIONS.values())


@pytest.mark.parametrize(("command", "action"), TABLE_COMMANDS)
def test_the_output_options_are_one_block(command: str, action: str) -> None:
    opts = _options(command, action)
    first = _options("answers", "nuggets")
    assert first["format"][0] is None
    for dest in ("output", "precision"):
        assert opts[dest] == first[dest], dest
    assert opts["format"][1] == "output format (default: table on a terminal, else tsv)"


@pytest.mark.parametrize(("command", "action"), LOG_COMMANDS)
def test_the_log_argument_is_one(command: str, action: str) -> None:
    assert _options(command, action)["log"] == _options("clicks", "bias")["log"]


def test_a_report_format_is_refused_by_table_commands_in_one_wording(tmp_path: Path) -> None:
    """``-o x.html`` implies ``-f html``, a report format: the table commands say so the same way."""
    clicks_log, ab = tmp_path / "clicks.parquet", tmp_path / "ab.parquet"
    pl.DataFrame({
        "impression_id": [1, 1, 2, 2], "query_id": ["q1"] * 4, "doc_id": ["a", "b", "a", "b"],
        "position": [1, 2, 1, 2], "clicked": [True, False, False, True],
    }).write_parquet(clicks_log)  # fmt: skip
    ab_log(40, seed=7, lift=0.3).write_parquet(ab)
    for args, command in (
        (["clicks", "judgments", clicks_log, "--model", "coec"], "clicks judgments"),
        (["online", "metrics", ab, "-m", "CTR@3"], "online metrics"),
    ):
        res = run_cli(*args, "-o", tmp_path / "x.html")
        assert res.returncode == 2, res.stderr
        want = f"irframe: error: irframe {command}: -f html is not a format of this command; use table, tsv"
        assert want in res.stderr
        assert not (tmp_path / "x.html").exists()


@pytest.mark.parametrize("command", ["online", "clicks", "answers"])
def test_a_command_without_action_names_them(command: str) -> None:
    res = run_cli(command)
    assert res.returncode == 2
    assert f"irframe: error: irframe {command}: name an action: " in res.stderr
    assert f"(see irframe {command} --help)" in res.stderr
