"""``irframe clicks bias|judgments|counterfactual``: the same numbers as the Python API, files and
globs as one log, the exit codes of the contract."""

from __future__ import annotations

import io
from pathlib import Path

import polars as pl
import pytest

import irframe.clicks as ic
from _support.cli_runner import run_cli
from _support.click_sessions import simulated_log
from irframe.cli._exit import Exit


@pytest.fixture(scope="module")
def log_files(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, pl.DataFrame]:
    log, _ = simulated_log(3, n_impressions=600, n_queries=10)
    folder = tmp_path_factory.mktemp("logs")
    half = log.height // 2
    log.head(half).write_parquet(folder / "part-1.parquet")
    log.tail(log.height - half).write_parquet(folder / "part-2.parquet")
    return folder, log


def _read(text: str) -> pl.DataFrame:
    return pl.read_csv(io.StringIO(text), separator="\t")


def test_bias_equals_the_api_on_a_glob(log_files: tuple[Path, pl.DataFrame]) -> None:
    folder, log = log_files
    res = run_cli("clicks", "bias", str(folder / "*.parquet"), "--bootstrap", "0", "--precision", "12")
    assert res.returncode == Exit.OK, res.stderr
    got = _read(res.stdout)
    expected = ic.position_bias(log, "pivot", n_bootstrap=0)
    assert got["theta"].to_list() == pytest.approx(expected["theta"].to_list(), abs=1e-11)


def test_judgments_equal_the_api_on_a_directory(log_files: tuple[Path, pl.DataFrame]) -> None:
    folder, log = log_files
    res = run_cli("clicks", "judgments", str(folder), "--model", "dcm", "--precision", "12")
    assert res.returncode == Exit.OK, res.stderr
    got = _read(res.stdout)
    expected = ic.click_judgments(log, "dcm")
    assert got["relevance"].to_list() == pytest.approx(expected["relevance"].to_list(), abs=1e-11)
    assert got.columns[:5] == ["query_id", "doc_id", "relevance", "n_impressions", "n_clicks"]


def test_counterfactual_with_a_run(log_files: tuple[Path, pl.DataFrame], tmp_path: Path) -> None:
    folder, log = log_files
    run = log.group_by("query_id", "doc_id").agg(pl.col("clicked").mean().alias("score"))
    run.write_csv(tmp_path / "run.tsv", separator="\t")
    theta = ic.position_bias(log, "em", n_bootstrap=0)
    theta.write_csv(tmp_path / "theta.tsv", separator="\t")
    res = run_cli(
        "clicks", "counterfactual", str(folder), "--run", f"new={tmp_path / 'run.tsv'}",
        "--propensities", str(tmp_path / "theta.tsv"), "-m", "DCG@5", "--bootstrap", "0", "--precision", "12",
    )  # fmt: skip
    assert res.returncode == Exit.OK, res.stderr
    expected = ic.counterfactual(log, {"new": run}, ["DCG@5"], propensities=theta, n_bootstrap=0)
    assert _read(res.stdout)["value"][0] == pytest.approx(expected["value"][0], abs=1e-11)
    default = run_cli(
        "clicks", "counterfactual", str(folder), "--run", f"new={tmp_path / 'run.tsv'}",
        "-m", "DCG@5", "--bootstrap", "0", "--precision", "12", "--bias-method", "em",
    )  # fmt: skip
    assert _read(default.stdout)["value"][0] == pytest.approx(expected["value"][0], abs=1e-11)  # theta: em


def test_map_a_column_and_its_errors(log_files: tuple[Path, pl.DataFrame], tmp_path: Path) -> None:
    _, log = log_files
    path = tmp_path / "renamed.parquet"
    log.rename({"position": "rank"}).write_parquet(path)
    res = run_cli("clicks", "judgments", str(path), "--model", "cm")
    assert res.returncode == Exit.ERROR
    assert "did you mean position_col='rank'" in res.stderr
    assert (
        run_cli("clicks", "judgments", str(path), "--model", "cm", "--map", "position=rank").returncode == 0
    )
    bad = run_cli("clicks", "judgments", str(path), "--map", "rank=rank")
    assert bad.returncode == Exit.ERROR
    assert "the roles are impression_id" in bad.stderr
    assert run_cli("clicks").returncode == Exit.ERROR
    assert run_cli("clicks", "counterfactual", str(path)).returncode == Exit.ERROR  # no --run


def test_bad_rows_exit_2_naming_the_impression(tmp_path: Path) -> None:
    path = tmp_path / "bad.csv"
    path.write_text("impression_id,query_id,doc_id,position,clicked\n1,q,a,1,0\n1,q,b,1,1\n")
    res = run_cli("clicks", "bias", str(path))
    assert res.returncode == Exit.ERROR
    assert "position 1 twice in impression 1" in res.stderr


def test_warnings_go_to_stderr(log_files: tuple[Path, pl.DataFrame]) -> None:
    folder, _ = log_files
    res = run_cli("clicks", "judgments", str(folder), "--model", "cm", "--min-impressions", "100000")
    assert res.returncode == Exit.OK
    assert "irframe: warning: click_model:" in res.stderr
    assert "fewer than min_impressions=100000" in res.stderr


@pytest.mark.parametrize("action", ["bias", "judgments", "counterfactual"])
def test_memory_limit_gives_the_in_memory_numbers(
    log_files: tuple[Path, pl.DataFrame], action: str, tmp_path: Path
) -> None:
    folder, log = log_files
    extra = {"bias": ["--bootstrap", "20"], "judgments": []}.get(action)
    if extra is None:  # counterfactual: theta estimated from the log (out of core too), then IPS
        run = log.group_by("query_id", "doc_id").agg(pl.col("clicked").mean().alias("score"))
        run.write_csv(tmp_path / "run.tsv", separator="\t")
        extra = ["--run", f"new={tmp_path / 'run.tsv'}", "--bias-method", "em", "--bootstrap", "20"]
    base = ("clicks", action, str(folder), "--precision", "15", *extra)
    in_memory, out_of_core = run_cli(*base), run_cli(*base, "--memory-limit", "1GB")
    assert in_memory.returncode == Exit.OK, in_memory.stderr
    assert out_of_core.returncode == Exit.OK, out_of_core.stderr
    assert _read(out_of_core.stdout).equals(_read(in_memory.stdout))
    bad = run_cli(*base, "--memory-limit", "lots")
    assert bad.returncode == Exit.ERROR, bad.stderr
    assert "memory_limit" in bad.stderr
    assert "'4GB'" in bad.stderr
