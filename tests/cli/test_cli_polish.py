"""Command-line polish (issue 12 item 10): --precision, one system per TREC file, --map hints."""

from __future__ import annotations

import io
import json
from pathlib import Path

import polars as pl
import pytest

from irframe.cli import main
from irframe.datasets import golden_paths

P = golden_paths()
QRELS, BM25 = str(P.qrels), str(P.runs["bm25"])


def test_precision_rounds_tsv_csv_and_table_but_not_json(capsys: pytest.CaptureFixture[str]) -> None:
    # bm25's P@10 over 40 queries is 81 / 400 = 0.2025 (float sum: 0.20250000000000004)
    assert main(["eval", QRELS, BM25, "-m", "P@10", "-f", "tsv", "--precision", "4"]) == 0
    assert capsys.readouterr().out.splitlines()[1].split("\t")[:2] == ["bm25", "0.2025"]
    assert main(["eval", QRELS, BM25, "-m", "P@10", "-f", "csv", "--precision", "2"]) == 0
    assert capsys.readouterr().out.splitlines()[1].split(",")[:2] == ["bm25", "0.2"]
    assert main(["eval", QRELS, BM25, "-m", "P@10", "-f", "table", "--precision", "1"]) == 0
    assert capsys.readouterr().out.splitlines()[1].split()[:2] == ["bm25", "0.2"]
    assert main(["eval", QRELS, BM25, "-m", "P@10", "-f", "json", "--precision", "1"]) == 0
    value = json.loads(capsys.readouterr().out)[0]["P@10"]
    assert value == pytest.approx(81 / 400, abs=1e-15)
    assert value != 0.2


def test_one_trec_file_is_one_system_whatever_its_tags(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "qrels.txt").write_text("q1 0 a 1\nq2 0 b 1\n")
    # the tag changes between queries (a run glued from two): trec_eval sees one run
    (tmp_path / "glued.run").write_text("q1 Q0 a 1 2.0 first\nq2 Q0 x 1 2.0 second\nq2 Q0 b 2 1.0 second\n")
    args = ["eval", str(tmp_path / "qrels.txt"), str(tmp_path / "glued.run"), "-m", "RR", "-f", "csv"]
    assert main(args) == 0
    captured = capsys.readouterr()
    got = pl.read_csv(io.StringIO(captured.out))
    assert got["system"].to_list() == ["glued"]
    assert got["RR"].to_list() == [pytest.approx((1.0 + 0.5) / 2)]
    note = [ln for ln in captured.err.splitlines() if ln]
    assert len(note) == 1
    assert note[0].startswith("irframe: note: ")
    assert "2 run tags (first, second)" in note[0]


def test_column_hints_use_map(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "run.tsv").write_text("qid\tdocno\tscore\nq01\tkb001\t1.0\n")
    assert main(["eval", QRELS, str(tmp_path / "run.tsv")]) == 2  # a data error (issue 34: was 1)
    err = capsys.readouterr().err
    assert "--map qid=query_id" in err
    assert "query_col=" not in err
