"""The command line speaks first (issue 34 item 3): swapped QRELS and RUN, incomplete measure
names, a duplicated judgment under a snapshot, the snapshot named by a relative path, one
default measure set, ``[tool.irframe.check]`` in the help; a measure parsed once."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest

import irframe
import irframe.measures._parse
from _support.cli_runner import run_cli
from irframe.cli import _build_parser
from irframe.cli._common import DEFAULT_MEASURES
from irframe.cli._config import KEYS
from irframe.datasets import golden_paths

P = golden_paths()
QRELS, QUERIES = str(P.qrels), str(P.queries)
BM25, DENSE, HYBRID = (str(P.runs[s]) for s in ("bm25", "dense", "hybrid"))


# --- swapped QRELS and RUN ----------------------------------------------------------------
def test_a_run_given_as_qrels_asks_whether_they_were_swapped() -> None:
    res = run_cli("eval", BM25, QRELS)
    assert res.returncode == 2
    assert "malformed qrels line" in res.stderr  # the reader's own words come first
    assert (
        f"Hint: did you swap QRELS and RUN? {BM25} looks like a run (query Q0 doc rank score tag)"
        in res.stderr
    )
    assert f"and {QRELS} like qrels" in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1


def test_qrels_given_as_a_run_asks_too() -> None:
    res = run_cli("eval", QRELS, QRELS)
    assert res.returncode == 2
    assert "malformed run line" in res.stderr
    assert f"did you swap QRELS and RUN? {QRELS} looks like qrels (query 0 doc grade)" in res.stderr


def test_a_malformed_run_that_is_no_qrels_gets_no_swap_hint(tmp_path: Path) -> None:
    (tmp_path / "bad.run").write_text("q1 Q0 a\n")
    res = run_cli("eval", QRELS, tmp_path / "bad.run")
    assert res.returncode == 2
    assert "swap" not in res.stderr


def test_swapped_tables(tmp_path: Path) -> None:
    irframe.read_trec_run(BM25).write_parquet(tmp_path / "run.parquet")
    irframe.read_trec_qrels(QRELS).write_parquet(tmp_path / "qrels.parquet")
    res = run_cli("eval", tmp_path / "run.parquet", tmp_path / "qrels.parquet", "-m", "RR")
    assert res.returncode == 2
    assert "has score and no relevance column" in res.stderr
    assert "did you swap QRELS and RUN?" in res.stderr
    assert run_cli("eval", tmp_path / "qrels.parquet", tmp_path / "run.parquet", "-m", "RR").returncode == 0


# --- measure names ------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("given", "meant"), [("P@", "P@10"), ("nDCG@", "nDCG@10"), ("p@", "P@10"), ("AP@", "AP@10")]
)
def test_an_incomplete_cutoff_suggests_the_family(given: str, meant: str) -> None:
    res = run_cli("eval", QRELS, BM25, "-m", given)
    assert res.returncode == 2
    assert f"Unknown measure {given!r}: the cutoff after '@' is missing. Did you mean {meant!r}" in res.stderr
    if given == "P@":
        assert "'AP@'" not in res.stderr  # (the nearest-looking name was suggested before)
    with pytest.raises(irframe.exceptions.UnknownMeasureError, match=f"Did you mean {meant!r}"):
        irframe.parse_measure(given)  # the registry's suggestion: Python says the same


def test_each_measure_is_parsed_once_under_trec_format(monkeypatch: pytest.MonkeyPatch) -> None:
    """``-f trec`` asks a measure's label, its trec_eval name, whether it is a count, whether
    it is shown in ``all`` only, its gain: all from one parse (6 before), and the engine is
    given the parsed measures.  (Every parse of a string looks it up in the parser's memo.)"""
    parsed: list[str] = []

    class Counting(dict[str, object]):
        def get(self, key: str, default: object = None) -> object:
            parsed.append(key)
            return super().get(key, default)

    memo = Counting()
    monkeypatch.setattr(irframe.measures._parse, "_parsed", lambda: memo)
    specs = ["map", "P_5", "nDCG@10", "num_ret", "gm_map", "ndcg_cut_10"]
    res = run_cli("eval", QRELS, BM25, *[a for m in specs for a in ("-m", m)], "-q", "-f", "trec")
    assert res.returncode == 0, res.stderr
    assert sorted(parsed) == sorted(specs)


def test_two_spellings_of_one_measure_keep_their_labels() -> None:
    res = run_cli(
        "eval", QRELS, BM25, "-m", "P@10", "-m", "P_10", "-m", "MAP", "-f", "tsv", "--precision", "17"
    )
    assert res.returncode == 0, res.stderr
    got = pl.read_csv(io.StringIO(res.stdout), separator="\t")
    assert got.columns[:4] == ["system", "P@10", "P_10", "MAP"]
    want = irframe.evaluate(irframe.read_trec_run(BM25), ["P@10", "AP"], irframe.read_trec_qrels(QRELS))
    assert got["P@10"][0] == got["P_10"][0] == pytest.approx(want["P@10"][0])
    assert got["MAP"][0] == pytest.approx(want["AP"][0])


def test_eval_compare_snapshot_and_check_share_one_default_measure_set(tmp_path: Path) -> None:
    assert DEFAULT_MEASURES == ("nDCG@10", "RR", "R@100")
    evaluated = pl.read_csv(io.StringIO(run_cli("eval", QRELS, BM25, "-f", "csv").stdout))
    assert evaluated.columns[1:4] == list(DEFAULT_MEASURES)
    compared = pl.read_csv(io.StringIO(run_cli("compare", QRELS, BM25, DENSE, "-f", "csv").stdout))
    assert compared["measure"].unique(maintain_order=True).to_list() == list(DEFAULT_MEASURES)
    snap = tmp_path / "s.json"
    assert run_cli("snapshot", QRELS, BM25, "-o", snap, "--no-config").returncode == 0
    assert json.loads(snap.read_text())["measures"] == list(DEFAULT_MEASURES)
    checked = json.loads(run_cli("check", QRELS, HYBRID, "-b", BM25, "--no-config", "-f", "json").stdout)
    assert checked["measures"] == list(DEFAULT_MEASURES)
    for name in ("eval", "compare", "snapshot", "check"):
        assert "nDCG@10 RR R@100" in " ".join(run_cli(name, "--help").stdout.split())


# --- check against a snapshot -------------------------------------------------------------
def test_a_duplicated_judgment_is_reported_before_the_snapshot_comparison(tmp_path: Path) -> None:
    snap = tmp_path / "bm25.snapshot.json"
    assert run_cli("snapshot", QRELS, BM25, "-o", snap, "--no-config").returncode == 0
    lines = Path(QRELS).read_text().splitlines()
    (tmp_path / "qrels.txt").write_text("\n".join([*lines, lines[0]]) + "\n")  # one line twice
    res = run_cli("check", tmp_path / "qrels.txt", HYBRID, "-b", snap, "--no-config")
    assert res.returncode == 2
    q, _, d, _ = lines[0].split()
    assert (
        f"judge the same document twice in queries '{q}', e.g. (query, document) ('{q}', '{d}')" in res.stderr
    )
    assert "(duplicated lines: compared with the snapshot, not a regrading)" in res.stderr
    assert "regraded" not in res.stderr
    assert "changed" not in res.stderr


def test_the_report_names_the_snapshot_relative_to_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    golden = tmp_path / "golden"
    golden.mkdir()
    (golden / "qrels.txt").write_bytes(P.qrels.read_bytes())
    (tmp_path / "pyproject.toml").write_text(
        "[tool.irframe.check]\nqrels = 'golden/qrels.txt'\nbaseline = 'golden/bm25.snapshot.json'\n"
    )
    monkeypatch.chdir(tmp_path)
    assert run_cli("snapshot", BM25, "-o", "golden/bm25.snapshot.json").returncode == 0
    for fmt in ("text", "markdown", "json"):
        res = run_cli("check", DENSE, "-f", fmt)
        assert res.returncode == 1, res.stderr
        assert str(tmp_path) not in res.stdout  # no runner path in a pull-request comment
        assert "golden/bm25.snapshot.json" in res.stdout
    monkeypatch.chdir(golden)  # from below the config: relative to the working directory still
    res = run_cli("check", DENSE, "-f", "json")
    assert json.loads(res.stdout)["baseline"] == "bm25.snapshot.json"


def test_the_config_table_is_documented_where_check_help_shows_it() -> None:
    text = run_cli("check", "--help").stdout
    assert "[tool.irframe.check]" in text
    for key in KEYS:
        assert f"  {key} = " in text
    sub = next(a for a in _build_parser()._actions if hasattr(a, "choices") and a.choices)
    assert "[tool.irframe.check]" in sub.choices["check"].format_help()  # type: ignore[index]


def test_the_cli_reference_page_shows_the_contract_and_the_config() -> None:
    import importlib.util

    path = Path(__file__).resolve().parents[2] / "docs" / "_gen" / "cli.py"  # the page's generator
    spec = importlib.util.spec_from_file_location("irframe_docs_cli_page", path)
    assert spec is not None
    assert spec.loader is not None
    reference = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(reference)
    page = reference.page()
    assert "exit codes (every subcommand):" in page
    assert "3    the output was not written" in page
    assert "[tool.irframe.check]" in page
    assert "--run-files-are" in page


# --- a real process: the signal -----------------------------------------------------------
def test_sigint_exits_130_and_says_so(tmp_path: Path) -> None:
    plugin = tmp_path / "slow.py"
    plugin.write_text("import sys, time\nprint('ready', file=sys.stderr, flush=True)\ntime.sleep(60)\n")
    cmd = [sys.executable, "-m", "irframe", "eval", QRELS, BM25, "--plugin", str(plugin)]
    pipes = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, "text": True}

    def default_sigint() -> None:  # (a job started in the background inherits SIGINT ignored)
        signal.signal(signal.SIGINT, signal.SIG_DFL)

    with subprocess.Popen(cmd, preexec_fn=default_sigint, **pipes) as proc:  # type: ignore[call-overload]  # noqa: PLW1509
        try:
            assert proc.stderr.readline().strip() == "ready"
            start = time.monotonic()
            os.kill(proc.pid, signal.SIGINT)
            out, err = proc.communicate(timeout=30)
        finally:
            proc.kill()
    assert proc.returncode == 130
    assert err.strip() == "irframe: interrupted"
    assert out == ""
    assert time.monotonic() - start < 10


def test_snapshot_and_check_read_a_column_convention(tmp_path: Path) -> None:
    """``--columns pyterrier`` is applied where the tables are read, for every subcommand
    (snapshot and check accepted it and ignored it: issue 35 class 4)."""
    run = irframe.read_trec_run(HYBRID).rename({"query_id": "qid", "doc_id": "docno"})
    run.write_csv(tmp_path / "hybrid.csv")
    irframe.read_trec_run(BM25).rename({"query_id": "qid", "doc_id": "docno"}).write_csv(
        tmp_path / "bm25.csv"
    )
    qrels = irframe.read_trec_qrels(QRELS).rename(
        {"query_id": "qid", "doc_id": "docno", "relevance": "label"}
    )
    qrels.write_csv(tmp_path / "qrels.csv")
    files = [tmp_path / "qrels.csv", tmp_path / "hybrid.csv"]
    snap = tmp_path / "s.json"
    assert run_cli("snapshot", *files, "--columns", "pyterrier", "-o", snap, "--no-config").returncode == 0
    trec = tmp_path / "t.json"
    assert run_cli("snapshot", QRELS, HYBRID, "-o", trec, "--no-config").returncode == 0
    assert json.loads(snap.read_text())["queries"] == json.loads(trec.read_text())["queries"]
    res = run_cli(
        "check", *files, "-b", tmp_path / "bm25.csv", "--columns", "pyterrier", "--no-config", "-f", "json"
    )
    assert res.returncode == 0, res.stderr
    same = run_cli("check", QRELS, HYBRID, "-b", BM25, "--no-config", "-f", "json")
    got, want = json.loads(res.stdout), json.loads(same.stdout)
    assert [r["delta"] for r in got["comparisons"]] == [r["delta"] for r in want["comparisons"]]
