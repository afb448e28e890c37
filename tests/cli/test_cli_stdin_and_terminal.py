"""``irframe check`` reads a snapshot baseline from standard input or a pipe (recognised by
its content, as :func:`irframe.check` does: issue 35 class 5), and text from the data shown
on a terminal has its control characters escaped (issue 35 class 6), in process.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

import pytest

from _support.cli_runner import run_cli
from irframe.cli._exit import Exit, describe
from irframe.datasets import golden_paths
from irframe.exceptions import CliError

P = golden_paths()
QRELS = str(P.qrels)
BM25, DENSE = (str(P.runs[s]) for s in ("bm25", "dense"))
FAST = ("--permutations", "500", "--bootstrap", "200", "--no-config", "-f", "json")


@pytest.fixture(scope="module")
def snap(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("snap") / "bm25.snapshot.json"
    assert run_cli("snapshot", QRELS, BM25, "-o", out, "--no-config").returncode == 0
    return out


def _without_names(report: dict[str, Any]) -> dict[str, Any]:
    """The report less the baseline's display name (the one thing the source changes)."""
    return {k: v for k, v in report.items() if "baseline" not in k or k == "baseline_kind"}


def _check(baseline: str | Path, stdin: str | None = None) -> tuple[int, dict[str, Any]]:
    res = run_cli("check", QRELS, DENSE, "-b", baseline, *FAST, stdin=stdin)
    assert res.returncode in (Exit.OK, Exit.FAILED), res.stderr
    return res.returncode, json.loads(res.stdout)


def test_a_snapshot_on_standard_input_is_the_snapshot_file(snap: Path) -> None:
    code, from_file = _check(snap)
    assert code == Exit.FAILED  # dense loses R@100 against bm25 (the golden set's regression)
    code_in, from_stdin = _check("-", stdin=snap.read_text())
    assert code_in == code
    assert from_stdin["baseline_kind"] == "snapshot"
    assert _without_names(from_stdin) == _without_names(from_file)
    assert "<stdin>" in json.dumps(from_stdin)


def test_a_snapshot_through_a_pipe_is_the_snapshot_file(snap: Path, tmp_path: Path) -> None:
    fifo = tmp_path / "base.fifo"  # what <(cat base.json) gives: a path that reads once
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_bytes(snap.read_bytes()))
    writer.start()
    try:
        code, through_pipe = _check(fifo)
    finally:
        writer.join(timeout=30)
    expected_code, from_file = _check(snap)
    assert code == expected_code
    assert through_pipe["baseline_kind"] == "snapshot"
    assert _without_names(through_pipe) == _without_names(from_file)


def test_a_run_on_standard_input_is_still_a_run_baseline() -> None:
    code, from_stdin = _check("-", stdin=Path(BM25).read_text())
    expected_code, from_file = _check(BM25)
    assert (code, from_stdin["baseline_kind"]) == (expected_code, "run")
    assert from_stdin["comparisons"] == from_file["comparisons"]


def test_ids_from_the_data_are_escaped_in_a_terminal_table(tmp_path: Path) -> None:
    run = tmp_path / "evil.csv"  # (TREC files refuse control bytes; a table's ids keep them)
    run.write_text('query_id,doc_id,score\n"q\x1b[2J1",d1,2.0\n"q\x1b[2J1",d2,1.0\n')
    qrels = tmp_path / "qrels.csv"
    qrels.write_text('query_id,doc_id,relevance\n"q\x1b[2J1",d2,1\n')
    res = run_cli("eval", qrels, run, "-m", "RR", "--per-query", "-f", "table")
    assert res.returncode == Exit.OK, res.stderr
    assert "\x1b" not in res.stdout
    assert "q\\x1b[2J1" in res.stdout
    assert "0.5000" in res.stdout  # d2, the one relevant document, at rank 2: RR = 1/2


def test_the_error_line_escapes_control_characters() -> None:
    line = describe(CliError("no query 'q\x1b]8;;evil\x07' in\rthe qrels"))
    assert line == "irframe: error: no query 'q\\x1b]8;;evil\\x07' in the qrels"  # (\\r: a line break)
