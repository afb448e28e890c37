"""Issue 12 item 9: ``irframe.ir(df)`` and compare/moved are typed with the caller's frame type."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

import irframe

SRC = Path(__file__).resolve().parents[2] / "src"
TYPED = """\
import polars as pl

import irframe

run = pl.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "rank": [1], "relevance": [1]})
lazy: pl.LazyFrame = irframe.ir(run.lazy()).evaluate(["RR"])
eager: pl.DataFrame = irframe.ir(run).ndcg(k=10)
table: pl.DataFrame = irframe.compare({"a": run, "b": run}, None, ["RR"])
stacked: pl.LazyFrame = irframe.compare(run.lazy(), None, ["RR"])
moved: pl.DataFrame = irframe.moved({"a": run, "b": run}, None, "RR")
"""
WRONG = "wrong: int = irframe.ir(run).ndcg(k=10)\n"


def _write(tmp_path: Path) -> tuple[Path, Path]:
    good, bad = tmp_path / "good.py", tmp_path / "bad.py"
    good.write_text(TYPED)
    bad.write_text(TYPED + WRONG)
    return good, bad


@pytest.mark.deep  # a mypy run (slow): .ci/run runs -m deep
@pytest.mark.skipif(importlib.util.find_spec("mypy") is None, reason="mypy is not installed")
def test_mypy_strict_sees_the_callers_frame_type(tmp_path: Path) -> None:
    good, bad = _write(tmp_path)
    env = {**os.environ, "MYPYPATH": str(SRC)}
    cmd = [sys.executable, "-m", "mypy", "--strict", "--ignore-missing-imports", "--follow-imports=silent",
           "--no-incremental", "--cache-dir", os.devnull]  # fmt: skip
    res = subprocess.run(
        [*cmd, str(good)], capture_output=True, text=True, env=env, cwd=tmp_path, check=False
    )
    assert res.returncode == 0, res.stdout
    res = subprocess.run([*cmd, str(bad)], capture_output=True, text=True, env=env, cwd=tmp_path, check=False)
    assert res.returncode == 1
    assert 'expression has type "DataFrame", variable has type "int"' in res.stdout


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("pyright") is None, reason="pyright is not installed")
def test_pyright_sees_the_callers_frame_type(tmp_path: Path) -> None:
    good, bad = _write(tmp_path)
    (tmp_path / "pyrightconfig.json").write_text(
        json.dumps({"extraPaths": [str(SRC)], "typeCheckingMode": "strict"})
    )
    cmd = [str(shutil.which("pyright")), "--pythonpath", sys.executable]
    res = subprocess.run([*cmd, str(good)], capture_output=True, text=True, cwd=tmp_path, check=False)
    assert res.returncode == 0, res.stdout
    res = subprocess.run([*cmd, str(bad)], capture_output=True, text=True, cwd=tmp_path, check=False)
    assert res.returncode == 1
    assert '"DataFrame" is not assignable to declared type "int"' in res.stdout


def test_ir_returns_the_namespace_and_its_repr_lists_methods() -> None:
    run = pl.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "rank": [1], "relevance": [1]})
    ns = irframe.ir(run)
    assert isinstance(ns, irframe.IrNamespace)
    text = repr(ns)
    assert "polars.DataFrame" in text
    for method in ("evaluate", "ndcg", "compare", "moved"):
        assert method in text
        assert callable(getattr(ns, method))
    assert repr(run.ir) == text
    assert "0x" not in text
