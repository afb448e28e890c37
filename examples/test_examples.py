"""Run every example script in a subprocess (``python -m pytest examples``; CI's docs step does)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
SCRIPTS = sorted(p for p in HERE.glob("*.py") if not p.name.startswith("test_"))


def _run(script: Path, *args: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(script), *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
        check=False,
    )


def test_there_are_examples() -> None:
    assert {p.name for p in SCRIPTS} >= {"golden_set_loop.py", "rag_comparison.py", "parquet_log.py"}


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_example_runs(script: Path, tmp_path: Path) -> None:
    done = _run(script, tmp_path=tmp_path)
    assert done.returncode == 0, f"{script.name} failed:\n{done.stdout}\n{done.stderr}"
    assert done.stdout.strip(), f"{script.name} printed nothing"


def test_golden_gate_catches_per_query_regressions(tmp_path: Path) -> None:
    # hybrid's mean nDCG@10 is 0.124 above bm25's, but 4 of its 40 queries fall by more than 0.2
    # (a pivot of the two per-query columns says so; the gate allows 3): the gate must fail
    done = _run(HERE / "golden_set_loop.py", "--gate", "--out", str(tmp_path), tmp_path=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "4 queries worse by more than 0.2" in done.stdout, done.stdout + done.stderr
    assert (tmp_path / "golden-accepted.parquet").exists()
