"""Messages of round four (issue 43, class "messages"): each names the culprit (the file,
the separator, the option) and a fix that works, instead of a symptom.
"""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

import irframe
import irframe.io._atomic as atomic
from _support.cli_runner import run_cli
from irframe.datasets import golden
from irframe.exceptions import InvalidParameterError

G = golden()
BM25 = G.runs.filter(pl.col("system") == "bm25").drop("system")


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    irframe.io.write_trec_qrels(G.qrels, tmp_path / "qrels.txt")
    BM25.write_parquet(tmp_path / "bm25.parquet")
    irframe.io.write_trec_run(BM25, tmp_path / "bm25.run")
    dense = G.runs.filter(pl.col("system") == "dense").drop("system")
    irframe.io.write_trec_run(dense, tmp_path / "dense.run")
    names = {"qrels": "qrels.txt", "parquet": "bm25.parquet", "run": "bm25.run", "dense": "dense.run"}
    return {k: tmp_path / v for k, v in names.items()}


def test_power_given_one_run_twice_says_so(files: dict[str, Path]) -> None:
    result = run_cli("power", files["qrels"], files["run"], files["run"])
    assert result.returncode == 2
    assert "is given twice" in result.stderr  # was "the runs share no query"
    assert "share no query" not in result.stderr
    assert run_cli("power", files["qrels"], files["run"], files["dense"]).returncode == 0  # the hint


def test_a_semicolon_sheet_is_refused_naming_the_separator(tmp_path: Path, files: dict[str, Path]) -> None:
    sheet = tmp_path / "sheet.csv"
    sheet.write_text("query_id;doc_id;grade\nq01;zzz;2\n")
    result = run_cli("judgments", "merge", files["qrels"], sheet, "-o", tmp_path / "new.txt")
    assert result.returncode == 2
    assert "separated by ';', not ','" in result.stderr  # was "no query_id column"
    sheet.write_text("query_id,doc_id,grade\nq01,zzz,2\n")  # the hint: CSV with ','
    assert run_cli("judgments", "merge", files["qrels"], sheet, "-o", tmp_path / "new.txt").returncode == 0
    assert irframe.io.read_trec_qrels(tmp_path / "new.txt").filter(pl.col("doc_id") == "zzz").height == 1


def test_blank_spreadsheet_lines_after_the_last_row_are_not_rows(tmp_path: Path) -> None:
    sheet = tmp_path / "sheet.csv"
    sheet.write_bytes(b"query_id,doc_id,grade\r\nq01,zzz,2\r\n,,\r\n, ,\r\n")
    merged = irframe.add_judgments(G.qrels, irframe.io.read_judging_sheet(sheet))
    assert merged.n_added == 1  # was "2 rows with a null 'query_id'"
    assert merged.n_sheet_rows == 1
    assert merged.qrels.height == G.qrels.height + 1


def test_sample_queries_on_an_empty_log_does_not_suggest_n_0() -> None:
    with pytest.raises(
        InvalidParameterError, match=r"has 0 distinct queries\. Hint: the log is empty"
    ) as info:
        irframe.sample_queries(pl.DataFrame({"query_id": []}, schema={"query_id": pl.String}), n=5)
    assert "n=0" not in str(info.value)


def test_a_parquet_file_on_standard_input_is_named_as_parquet(files: dict[str, Path]) -> None:
    irframe_cli = [sys.executable, "-m", "irframe", "eval", str(files["qrels"]), "-", "-m", "RR"]
    done = subprocess.run(irframe_cli, input=files["parquet"].read_bytes(), capture_output=True, check=False)
    assert done.returncode == 2
    assert b"cannot read a parquet table from standard input" in done.stderr  # was "binary data"
    assert b"give the parquet file's path" in done.stderr


def test_a_file_that_is_no_parquet_in_a_parquet_directory_is_named(
    tmp_path: Path, files: dict[str, Path]
) -> None:
    log = tmp_path / "log"
    log.mkdir()
    BM25.write_parquet(log / "day1.parquet")
    (log / "README.txt").write_text("the search log\n")
    result = run_cli("eval", files["qrels"], log, "-m", "RR")
    assert result.returncode == 2
    assert "'README.txt' is not a parquet file" in result.stderr  # was "cannot tell the table format"
    fixed = run_cli("eval", files["qrels"], str(log / "*.parquet"), "-m", "RR", "-f", "tsv")  # the hint
    assert fixed.returncode == 0, fixed.stderr


def test_a_full_disk_under_fuse_names_the_output(
    tmp_path: Path, files: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(*_: object) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(atomic, "_sync", full)
    out = tmp_path / "fused.run"
    result = run_cli("fuse", files["run"], files["dense"], "-o", out)
    assert result.returncode == 3
    assert f"Could not write '{out}': No space left on device" in result.stderr  # was the temporary file
    assert ".tmp" not in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["bm25.parquet", "bm25.run", "dense.run", "qrels.txt"]
    )
