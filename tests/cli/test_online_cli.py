"""irframe online metrics|compare|interleaving: the CLI gives the Python API's numbers, its
formats, and the exit codes of the contract (compare reports: 0 unless --fail-on)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import polars as pl
import pytest

from _support.cli_runner import run_cli
from _support.online_logs import ab_log
from irframe import online
from irframe.cli._exit import Exit


@pytest.fixture(scope="module")
def log_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("logs")
    log = ab_log(120, seed=7, lift=0.3).rename({"query_id": "qid"})
    log.head(3000).write_parquet(d / "part-1.parquet")  # a directory of parquet parts: one log
    log.slice(3000).write_parquet(d / "part-2.parquet")
    return d


def _log(d: Path) -> pl.DataFrame:
    return pl.read_parquet(d / "*.parquet").rename({"qid": "query_id"})


@pytest.mark.parametrize("extra", [[], ["--memory-limit", "1GB"]], ids=["in-memory", "out-of-core"])
def test_metrics_cli_equals_python(log_dir: Path, extra: list[str]) -> None:
    res = run_cli(
        "online", "metrics", str(log_dir), "--map", "query_id=qid", "-m", "CTR@3", "--by", "arm",
        "-f", "json", *extra,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    got = pl.DataFrame(json.loads(res.stdout))
    ref = online.metrics(_log(log_dir), "CTR@3", by="arm")
    assert got["value"].to_list() == pytest.approx(ref["value"].to_list(), rel=1e-12)
    assert got["se"].to_list() == pytest.approx(ref["se"].to_list(), rel=1e-12)


def test_compare_cli_formats_and_numbers(log_dir: Path, tmp_path: Path) -> None:
    args = [
        "online",
        "compare",
        f"{log_dir}/*.parquet",
        "--map",
        "query_id=qid",
        "--control",
        "A",
        "-m",
        "RRFirstClick",
    ]
    tsv = run_cli(*args, "-f", "tsv")
    assert tsv.returncode == 0, tsv.stderr
    got = pl.read_csv(io.StringIO(tsv.stdout), separator="\t")
    ref = online.compare(_log(log_dir), "RRFirstClick", control="A")
    assert got["p_value"][0] == pytest.approx(ref["p_value"][0], abs=1e-4)  # (tsv rounds to 4 decimals)
    text = run_cli(*args, "-f", "table").stdout
    assert text.startswith("irframe online compare")
    assert "Sample ratio" in text
    assert run_cli(*args, "-f", "markdown").stdout.startswith("## irframe online compare")
    out = tmp_path / "ab.html"
    assert run_cli(*args, "-o", str(out)).returncode == 0
    assert out.read_text().startswith("<!DOCTYPE html>")


def test_compare_is_a_report_unless_fail_on(log_dir: Path) -> None:
    args = [
        "online",
        "compare",
        str(log_dir),
        "--map",
        "query_id=qid",
        "--control",
        "B",
        "-m",
        "ClicksPerQuery",
    ]
    # B is the better arm: against control B, arm A is a significant drop
    ref = online.compare(_log(log_dir), "ClicksPerQuery", control="B")
    assert ref["significant"][0]
    assert ref["diff"][0] < 0
    assert run_cli(*args, "-f", "tsv").returncode == Exit.OK
    assert run_cli(*args, "-f", "tsv", "--fail-on", "drop").returncode == Exit.FAILED
    assert run_cli(*args, "-f", "tsv", "--fail-on", "srm").returncode == Exit.OK
    skewed = [
        *args,
        "-f",
        "tsv",
        "--expected-split",
        "A=0.9",
        "--expected-split",
        "B=0.1",
        "--fail-on",
        "srm",
    ]
    res = run_cli(*skewed)
    assert res.returncode == Exit.FAILED
    assert "sample-ratio mismatch" in res.stderr


def test_errors_exit_2(log_dir: Path) -> None:
    res = run_cli("online", "compare", str(log_dir), "--map", "query_id=qid", "--control", "Z", "-f", "tsv")
    assert res.returncode == Exit.ERROR
    assert "control='Z'" in res.stderr
    res = run_cli("online", "metrics", str(log_dir), "-f", "tsv")  # qid not mapped
    assert res.returncode == Exit.ERROR
    assert "query_col='qid'" in res.stderr or "qid" in res.stderr
    assert run_cli("online").returncode == Exit.ERROR


def test_interleaving_cli(tmp_path: Path) -> None:
    log = pl.DataFrame({
        "impression_id": [1, 1, 2, 2, 3, 3], "query_id": ["a", "a", "b", "b", "c", "c"],
        "doc_id": ["x", "y"] * 3, "position": [1, 2] * 3, "clicked": [1, 0, 0, 1, 1, 0],
        "team": ["A", "B", "A", "B", "A", "B"],
    })  # fmt: skip
    path = tmp_path / "il.parquet"
    log.write_parquet(path)
    res = run_cli("online", "interleaving", str(path), "--systems", "A", "B", "-f", "json")
    assert res.returncode == 0, res.stderr
    pairs = json.loads(res.stdout)
    assert (pairs[0]["wins_a"], pairs[0]["wins_b"], pairs[0]["ties"]) == (2, 1, 0)
    args = ("online", "interleaving", str(path), "--systems", "A", "B", "-f", "json", "--memory-limit", "1GB")
    assert json.loads(run_cli(*args).stdout) == pairs
    text = run_cli("online", "interleaving", str(path), "--systems", "A", "B", "-f", "table").stdout
    assert "team-draft interleaving, credit summed per query" in text
