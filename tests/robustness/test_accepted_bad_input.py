"""Accepted bad input of round four (issue 43): outputs the next run would read as input,
an empty measures list in the configuration, a queries table whose ids match no query.
Each is refused naming the culprit, and the fix it names works.  (The expression API's
string grades and overflowing exp gains: test_expressions.py.)
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

import irframe
from _support.cli_runner import run_cli
from irframe.datasets import golden
from irframe.exceptions import InvalidDataError

G = golden()
BM25 = G.runs.filter(pl.col("system") == "bm25").drop("system")
HYBRID = G.runs.filter(pl.col("system") == "hybrid").drop("system")


@pytest.fixture
def log(tmp_path: Path) -> Path:
    """A partitioned log directory (one parquet file per day) and the qrels beside it."""
    folder = tmp_path / "log"
    folder.mkdir()
    BM25.filter(pl.col("query_id") <= "q20").write_parquet(folder / "day1.parquet")
    BM25.filter(pl.col("query_id") > "q20").write_parquet(folder / "day2.parquet")
    irframe.io.write_trec_qrels(G.qrels, tmp_path / "qrels.txt")
    return folder


def test_a_snapshot_written_into_the_run_directory_is_refused(log: Path) -> None:
    qrels = log.parent / "qrels.txt"
    result = run_cli("snapshot", qrels, log, "-o", log / "base.json", "-m", "RR")
    assert result.returncode == 2  # was written, and the next run read the log with it
    assert f"where its input '{log}' reads" in result.stderr
    assert sorted(p.name for p in log.iterdir()) == ["day1.parquet", "day2.parquet"]
    outside = run_cli("snapshot", qrels, log, "-o", log.parent / "base.json", "-m", "RR")  # the hint
    assert outside.returncode == 0, outside.stderr
    assert irframe.read_snapshot(log.parent / "base.json").values.height == 40


def test_a_pool_written_where_the_run_glob_reads_is_refused(log: Path) -> None:
    qrels, glob = log.parent / "qrels.txt", str(log / "*.parquet")
    result = run_cli("pool", qrels, glob, "-o", log / "to_judge.parquet", "--depth", "5")
    assert result.returncode == 2
    assert "the next run would read the result" in result.stderr
    assert not (log / "to_judge.parquet").exists()
    assert run_cli("pool", qrels, glob, "-o", log.parent / "to_judge.parquet", "--depth", "5").returncode == 0


def test_an_empty_measures_list_in_the_configuration_is_refused(tmp_path: Path, log: Path) -> None:
    config = tmp_path / "pyproject.toml"
    config.write_text("[tool.irframe.check]\nmeasures = []\n")
    qrels, run = log.parent / "qrels.txt", log / "day1.parquet"
    result = run_cli("check", qrels, run, "--baseline", run, "--config", config)
    assert result.returncode == 2  # the gate ran on the default measures
    assert "measures = [] names no measure" in result.stderr
    config.write_text('[tool.irframe.check]\nmeasures = ["RR"]\n')  # the hint
    fixed = run_cli("check", qrels, run, "--baseline", run, "--config", config)
    assert fixed.returncode == 0, fixed.stderr


def test_a_non_utf8_configuration_is_named(tmp_path: Path, log: Path) -> None:
    config = tmp_path / "pyproject.toml"
    config.write_bytes(b'[tool.irframe.check]\n# caf\xe9\nmeasures = ["RR"]\n')
    run = log / "day1.parquet"
    result = run_cli("check", log.parent / "qrels.txt", run, "--baseline", run, "--config", config)
    assert result.returncode == 2
    assert f"{config}: not UTF-8 text (byte 26" in result.stderr


def test_query_attributes_matching_no_query_are_refused_not_one_segment() -> None:
    queries = pl.DataFrame({"query_id": [1, 2, 3], "topic": ["a", "b", "a"]})
    with pytest.raises(InvalidDataError, match=r"\('1', '2', '3' \.\.\.\) match none.*'q01'"):
        irframe.check(HYBRID, G.qrels, baseline=BM25, measures=["RR"], by="topic", queries=queries)
    spelled = queries.with_columns(pl.Series("query_id", ["q01", "q02", "q03"]))  # the hint
    table = irframe.check(
        HYBRID, G.qrels, baseline=BM25, measures=["RR"], by="topic", queries=spelled
    ).comparisons
    counts = dict(table.select("group", "n_queries").iter_rows())
    assert (counts["topic=a"], counts["topic=b"]) == (2, 1)  # q01 and q03; q02
