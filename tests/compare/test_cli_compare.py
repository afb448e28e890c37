"""``irframe compare`` on the bundled golden set."""

from __future__ import annotations

import json

import pytest

from irframe.cli import main
from irframe.datasets import golden_paths


def _args(*extra: str) -> list[str]:
    p = golden_paths()
    return ["compare", str(p.qrels), *(str(p.runs[s]) for s in ("bm25", "dense", "hybrid")), *extra]


def test_table_report(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(_args("-m", "nDCG@10", "-m", "R@100", "-f", "table")) == 0
    out = capsys.readouterr().out
    assert "family of 4 comparisons" in out
    assert "hybrid" in out
    assert "▼" in out  # dense loses R@100 significantly on the golden set


def test_tsv_and_json_are_the_tidy_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(_args("-m", "RR", "-f", "tsv", "--baseline", "dense", "-t", "t")) == 0
    lines = capsys.readouterr().out.splitlines()
    header = lines[0].split("\t")
    assert header[:3] == ["system", "baseline", "measure"]
    assert {"p_value", "p_adjusted", "family_size", "wins"} <= set(header)
    assert [line.split("\t")[0] for line in lines[1:]] == ["bm25", "hybrid"]
    assert main(_args("-m", "RR", "-f", "json", "-c", "bonferroni")) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["system"] for r in rows] == ["dense", "hybrid"]
    assert {r["correction"] for r in rows} == {"bonferroni"}


def test_markdown_latex_and_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(_args("-m", "RR", "-f", "markdown")) == 0
    assert capsys.readouterr().out.startswith("| system | RR |")
    assert main(_args("-m", "RR", "-f", "latex")) == 0
    assert r"\begin{tabular}" in capsys.readouterr().out
    assert main(_args("--baseline", "bm52")) == 2
    assert "did you mean baseline='bm25'" in capsys.readouterr().err
