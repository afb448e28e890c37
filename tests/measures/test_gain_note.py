"""Issue 12 item 4: the nDCG gain is visible (README first screen, CLI footnote)."""

from __future__ import annotations

from pathlib import Path

import pytest

from irframe.cli import main
from irframe.datasets import golden

G = golden()
QRELS, BM25, DENSE = str(G.paths.qrels), str(G.paths.runs["bm25"]), str(G.paths.runs["dense"])
README = Path(__file__).resolve().parents[2] / "README.md"


def test_readme_first_screen_names_the_gain() -> None:
    first = "\n".join(README.read_text().splitlines()[:45])
    assert "2^rel - 1" in first
    assert "nDCG(gain=linear)@10" in first
    assert "ndcg_cut_10" in first


def _note(out: str) -> list[str]:
    return [ln for ln in out.splitlines() if ln.startswith(("Note:", "_Note:"))]


def test_table_output_has_one_gain_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", QRELS, BM25, "-m", "nDCG@10", "-m", "RR", "-f", "table"]) == 0
    (line,) = _note(capsys.readouterr().out)
    assert "2^rel - 1" in line
    assert "nDCG(gain=linear)@10" in line
    assert main(["eval", QRELS, BM25, "-m", "ndcg_cut_10", "-f", "table"]) == 0
    (line,) = _note(capsys.readouterr().out)
    assert "linear gain" in line
    assert "2^rel" not in line
    assert main(["eval", QRELS, BM25, "-m", "RR", "-f", "table"]) == 0
    assert _note(capsys.readouterr().out) == []  # no nDCG column, no note
    assert main(["eval", QRELS, BM25, "-m", "nDCG@10", "-f", "tsv"]) == 0
    assert _note(capsys.readouterr().out) == []  # machine-readable output stays clean


def test_compare_table_and_markdown_have_the_note(capsys: pytest.CaptureFixture[str]) -> None:
    for fmt in ("table", "markdown"):
        args = ["compare", QRELS, BM25, DENSE, "-m", "nDCG@10", "-f", fmt, "--permutations", "200"]
        assert main(args) == 0
        (line,) = _note(capsys.readouterr().out)
        assert "2^rel - 1" in line
