"""``irframe snapshot`` and ``irframe check`` on the command line: exit codes, formats, config."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

import irframe
from _support.cli_runner import run_cli
from irframe.cli import main
from irframe.datasets import golden_paths
from irframe.io import read_trec_qrels, read_trec_run, write_trec_qrels, write_trec_run

P = golden_paths()
QRELS, QUERIES = str(P.qrels), str(P.queries)
BM25, DENSE, HYBRID = (str(P.runs[s]) for s in ("bm25", "dense", "hybrid"))


def test_exit_0_on_pass_and_1_on_regression(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", QRELS, HYBRID, "--baseline", BM25]) == 0
    assert capsys.readouterr().out.startswith("PASS: ")
    assert main(["check", QRELS, DENSE, "--baseline", BM25]) == 1
    out = capsys.readouterr().out
    assert out.startswith("FAIL: 1 regression: R@100 -0.1792")


def test_exit_2_on_usage_and_data_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", QRELS, HYBRID, "--baseline", str(tmp_path / "none.run"), "--no-config"]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert main(["check", QRELS, HYBRID, "--no-config"]) == 2
    assert "no baseline" in capsys.readouterr().err
    assert main(["check", QRELS, HYBRID, "--baseline", BM25, "-m", "nDGC@10", "--no-config"]) == 2
    assert "irframe: error:" in capsys.readouterr().err
    # issue 34: main returns argparse's usage code (it raised SystemExit)
    assert main(["check", QRELS, HYBRID, "--baseline", BM25, "--fail-on", "sometimes"]) == 2


def test_exit_codes_as_a_process_sees_them() -> None:
    def code(*args: str) -> int:
        return run_cli(*args).returncode

    assert code("check", QRELS, HYBRID, "--baseline", BM25, "--no-config") == 0
    assert code("check", QRELS, DENSE, "--baseline", BM25, "--no-config") == 1
    assert code("check", QRELS, DENSE, "--no-config") == 2


def test_a_reader_that_goes_away_never_passes_the_gate() -> None:
    """``check ... -f markdown | true`` (issue 35): a real process whose stdout is a pipe
    closed before it writes a regression's report exits 3, not 0 (nor 1: the report was
    not delivered).  (The pass case, in process: tests/cli/test_exit_codes.py.)"""
    args = ["check", QRELS, DENSE, "--baseline", BM25, "--no-config", "-f", "markdown"]
    pipes = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE}
    proc = subprocess.Popen([sys.executable, "-m", "irframe", *args], **pipes)  # type: ignore[call-overload]
    assert proc.stdout is not None
    assert proc.stderr is not None
    proc.stdout.close()  # (the reader is gone before anything is written)
    err = proc.stderr.read().decode()
    proc.stderr.close()
    assert proc.wait(timeout=120) == 3, err
    assert "Traceback" not in err


def test_degraded_file_fails_and_names_queries(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = read_trec_run(P.runs["hybrid"])
    bad = ["q04", "q09", "q13", "q17", "q21", "q25", "q29", "q34", "q36", "q39"]
    rows = run.with_columns(
        pl.when(pl.col("query_id").is_in(bad)).then(pl.lit("nothing")).otherwise("doc_id").alias("doc_id")
    ).unique(["query_id", "doc_id"], keep="first", maintain_order=True)
    write_trec_run(rows, tmp_path / "degraded.run", tag="hybrid-bad")
    snap = tmp_path / "hybrid.snapshot.json"
    assert main(["snapshot", QRELS, HYBRID, "-o", str(snap), "--no-config"]) == 0
    capsys.readouterr()
    assert main(["check", QRELS, str(tmp_path / "degraded.run"), "--baseline", str(snap), "--no-config",
                 "-f", "json", "--moved", "20"]) == 1  # fmt: skip
    data = json.loads(capsys.readouterr().out)
    assert data["passed"] is False
    assert data["candidate"] == "hybrid-bad"
    assert {r["measure"] for r in data["comparisons"] if r["regression"]} >= {"nDCG@10"}
    before = irframe.evaluate(run, ["nDCG@10"], read_trec_qrels(P.qrels), per_query=True)
    lost = {q for q, v in before.select("query_id", "nDCG@10").iter_rows() if q in bad and v > 0}
    assert {r["query_id"] for r in data["moved"]} == lost


def test_markdown_and_json_formats(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["check", QRELS, DENSE, "--baseline", BM25, "--queries", QUERIES, "--by", "segment", "--no-config"]
    assert main([*args, "-f", "markdown"]) == 1
    md = capsys.readouterr().out
    assert md.startswith("### ❌ irframe check: FAIL")
    assert "| segment=long-tail | nDCG@10 |" in md
    assert "| q02 | track my order |" in md
    assert main([*args, "-f", "json"]) == 1
    data = json.loads(capsys.readouterr().out)
    groups = {r["group"] for r in data["comparisons"]}
    assert groups == {"all", "segment=informational", "segment=long-tail", "segment=navigational"}
    assert data["gate"]["alpha"] == 0.05
    assert isinstance(data["comparisons"][0]["p_value"], float)


def _changed_qrels(tmp_path: Path) -> Path:
    q = read_trec_qrels(P.qrels)
    q = q.with_columns(
        pl.when((pl.col("query_id") == "q08") & (pl.col("relevance") == 3)).then(2).otherwise("relevance")
        .alias("relevance")
    ).filter(pl.col("query_id") != "q11")  # fmt: skip
    write_trec_qrels(q, tmp_path / "new.qrels")
    return tmp_path / "new.qrels"


def test_changed_qrels_refused_then_allowed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    snap = tmp_path / "bm25.snapshot.json"
    assert main(["snapshot", QRELS, BM25, "-o", str(snap), "--no-config"]) == 0
    new = str(_changed_qrels(tmp_path))
    capsys.readouterr()
    assert main(["check", new, HYBRID, "--baseline", str(snap), "--no-config"]) == 2
    err = capsys.readouterr().err
    assert "1 removed (q11)" in err
    assert "1 regraded (q08)" in err
    assert "--allow-changed-qrels" in err
    assert main(["check", new, HYBRID, "--baseline", str(snap), "--no-config", "--allow-changed-qrels"]) == 0
    out = capsys.readouterr().out
    assert "2 queries left out because their judgments changed" in out
    # a run baseline is simply evaluated again
    assert main(["check", new, HYBRID, "--baseline", BM25, "--no-config"]) == 0


def test_config_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "pyproject.toml").write_text(
        "[project]\nname = 'x'\n\n[tool.irframe.check]\n"
        f"qrels = {QRELS!r}\nbaseline = {BM25!r}\nmeasures = ['R@100']\nqueries = {QUERIES!r}\n"
        "max_drop = 0.0\nalpha = 0.05\nby = 'segment'\nfail_on = 'significant'\n"
    )
    sub = tmp_path / "a" / "b"
    sub.mkdir(parents=True)
    monkeypatch.chdir(sub)  # found from the cwd upwards
    assert main(["check", DENSE, "-f", "json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["measures"] == ["R@100"]
    assert data["by"] == ["segment"]
    # flags override the table
    assert main(["check", DENSE, "--max-drop", "0.5", "-f", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["gate"]["max_drop"] == 0.5
    # on nDCG@10 dense loses overall by little but the long-tail segment (by = 'segment') by a lot
    assert main(["check", DENSE, "-m", "nDCG@10"]) == 1
    assert capsys.readouterr().out.startswith("FAIL: 1 regression: nDCG@10 [segment=long-tail] -0.3939")
    assert main(["check", DENSE, "--no-config"]) == 2  # no qrels without the table
    assert "no QRELS given" in capsys.readouterr().err


def test_config_relative_paths_and_unknown_keys(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    golden_dir = tmp_path / "golden"
    golden_dir.mkdir()
    (golden_dir / "qrels.txt").write_bytes(P.qrels.read_bytes())
    (golden_dir / "bm25.run").write_bytes(P.runs["bm25"].read_bytes())
    (tmp_path / "pyproject.toml").write_text(
        "[tool.irframe.check]\nqrels = 'golden/qrels.txt'\nbaseline = 'golden/bm25.run'\n"
    )
    monkeypatch.chdir(golden_dir)  # paths are relative to the pyproject.toml, not the cwd
    assert main(["check", HYBRID]) == 0
    capsys.readouterr()
    (tmp_path / "pyproject.toml").write_text("[tool.irframe.check]\nmax_dorp = 0.1\n")
    assert main(["check", QRELS, HYBRID, "--baseline", BM25]) == 2
    assert "unknown key 'max_dorp'" in capsys.readouterr().err
    (tmp_path / "pyproject.toml").write_text("[tool.irframe.check]\nalpha = 'high'\n")
    assert main(["check", QRELS, HYBRID, "--baseline", BM25]) == 2
    assert "alpha must be" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("[tool]\nirframe = 5\n", "tool.irframe must be a table, got 5"),
        ("tool = 'x'\n", "tool must be a table, got 'x'"),
        ("[tool.irframe]\ncheck = [1, 2]\n", "tool.irframe.check must be a table"),
        ("[tool.irframe.check]\nby = [1]\n", "by must be a list of strings, got [1]"),
        ("[tool.irframe.check]\nmeasures = ['RR', 2]\n", "measures must be a list of strings"),
    ],
)
def test_config_values_of_the_wrong_type_are_usage_errors(
    text: str, said: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # (issue 35, class 3: these gave "unexpected AttributeError")
    (tmp_path / "pyproject.toml").write_text(text)
    monkeypatch.chdir(tmp_path)
    assert main(["check", QRELS, HYBRID, "--baseline", BM25]) == 2
    err = capsys.readouterr().err
    assert said in err
    assert "unexpected" not in err
    assert err.count("\n") == 1


def test_snapshot_command_output_is_stable(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = read_trec_run(P.runs["dense"])
    rows = list(range(run.height))
    random.Random(7).shuffle(rows)
    write_trec_run(run[rows], tmp_path / "shuffled.run", tag="dense")
    assert main(["snapshot", QRELS, DENSE, "-m", "ndcg_cut_10", "-m", "P@5", "--no-config"]) == 0
    first = capsys.readouterr().out
    assert main(["snapshot", QRELS, str(tmp_path / "shuffled.run"), "-m", "ndcg_cut_10", "-m", "P@5",
                 "--no-config"]) == 0  # fmt: skip
    assert capsys.readouterr().out == first  # row order and file name do not matter
    lines = first.splitlines()
    assert json.loads(first)["measures"] == ["nDCG(gain=linear)@10", "P@5"]
    query_lines = [ln for ln in lines if ln.startswith('    "q')]
    assert len(query_lines) == 40  # one query per line, natural order
    assert [ln.split('"')[1] for ln in query_lines] == [f"q{i:02d}" for i in range(1, 41)]
