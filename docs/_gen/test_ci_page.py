"""The "Use it in CI" page (issue 45): its workflow is valid YAML and its commands are irframe's.

Each ``irframe ...`` line of the page (the workflow's steps and the shell blocks) is parsed by
irframe's own argument parser, so a renamed or removed option fails here, not in a user's CI.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

yaml = pytest.importorskip("yaml", reason="reading the workflow needs PyYAML (pip install '.[docs]')")

PAGE = Path(__file__).resolve().parents[1] / "guides" / "ci.md"


def _blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", PAGE.read_text(encoding="utf-8"), flags=re.DOTALL)


def _irframe_commands() -> list[list[str]]:
    (workflow,) = _blocks("yaml")
    steps = yaml.safe_load(workflow)["jobs"]["golden-set"]["steps"]
    lines = [step["run"] for step in steps if "run" in step]
    lines += [line for block in _blocks("bash") for line in block.splitlines()]
    commands = []
    for line in lines:
        words = shlex.split(line.split("|| true")[0], comments=True)
        if words and words[0] == "irframe":
            commands.append(words[1:])
    return commands


def test_the_workflow_is_a_github_actions_job() -> None:
    (workflow,) = _blocks("yaml")
    job = yaml.safe_load(workflow)["jobs"]["golden-set"]
    uses = [step.get("uses", "") for step in job["steps"]]
    assert any(u.startswith("actions/checkout@") for u in uses)
    assert any(u.startswith("actions/upload-artifact@") for u in uses)
    assert any("pip install" in step.get("run", "") and "irframe" in step["run"] for step in job["steps"])


def test_every_irframe_command_of_the_page_parses(monkeypatch: pytest.MonkeyPatch) -> None:
    from irframe.cli import _build_parser

    commands = _irframe_commands()
    assert {c[0] for c in commands} >= {"check", "snapshot"}
    parser = _build_parser()
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", "summary.md")
    for words in commands:
        args = parser.parse_args([w.replace("$GITHUB_STEP_SUMMARY", "summary.md") for w in words])
        assert args.command == words[0]
