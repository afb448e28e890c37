"""One exit-code contract for every subcommand (issue 34 item 4, issue 35 class 1), per error class.

0 success, 1 a regression (``check`` only), 2 a usage or data error, 3 the output was not
written (a broken pipe, an unwritable file, an encoding that cannot show the text); every
error is one line ``irframe: error: ...`` without a traceback, a polars panic included.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest

import irframe.io.sniff
from _support.cli_runner import ClosedStdout, Result, run_cli
from irframe.cli import _build_parser
from irframe.cli._exit import CONTRACT, Exit
from irframe.datasets import golden_paths

P = golden_paths()
QRELS, QUERIES = str(P.qrels), str(P.queries)
BM25, DENSE, HYBRID = (str(P.runs[s]) for s in ("bm25", "dense", "hybrid"))


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "bad.run").write_text("q01 Q0 kb001 1 1.0 t\nq01 Q0 kb002\n")
    (tmp_path / "log.tsv").write_text("query_id\tsegment\nq01\ta\nq02\ta\nq03\tb\n")
    (tmp_path / "sheet.tsv").write_text("query_id\tdoc_id\tgrade\nq01\tkb999\t1\n")
    (tmp_path / "llm.txt").write_text(Path(QRELS).read_text().replace(" 3\n", " 2\n"))  # a second judge
    snap = tmp_path / "bm25.snapshot.json"
    assert run_cli("snapshot", QRELS, BM25, "-o", snap, "--no-config").returncode == 0
    names = {"bad": "bad.run", "none": "none.run", "log": "log.tsv", "sheet": "sheet.tsv", "llm": "llm.txt",
             "none_parquet": "none.run.parquet"}  # fmt: skip
    return {
        **{key: str(tmp_path / name) for key, name in names.items()},
        "snap": str(snap), "nodir": str(tmp_path / "no" / "such" / "out"),
    }  # fmt: skip


def _one_error_line(res: Result, needle: str) -> None:
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    assert lines[0].startswith("irframe: error: "), res.stderr
    assert needle in lines[0], res.stderr
    assert "Traceback" not in res.stderr


def test_the_contract_is_written_once_and_shown_by_help() -> None:
    assert [int(code) for code, _ in CONTRACT] == [0, 1, 2, 3, 130]
    text = _build_parser().format_help()
    assert "exit codes (every subcommand):" in text
    for code, meaning in CONTRACT:
        assert f"  {int(code):<4} {meaning[:30]}" in text


# --- usage errors: every subcommand ------------------------------------------------------
COMMANDS = [
    ["eval", QRELS, BM25], ["compare", QRELS, BM25, DENSE], ["snapshot", QRELS, BM25],
    ["check", QRELS, DENSE, "-b", BM25], ["sample", "x.tsv", "-n", "2"], ["pool", QRELS, BM25],
    ["judgments", "merge", QRELS, "x.tsv"], ["agreement", QRELS, "{llm}"], ["power", QRELS, BM25],
    ["fuse", BM25, DENSE, "-o", "x.run"], ["demo"], ["measures"],
    ["online", "compare", "x.parquet", "--control", "A"], ["answers", "grounding", "x.tsv", BM25],
    ["clicks", "bias", "x.parquet"],
]  # fmt: skip


@pytest.mark.parametrize("args", COMMANDS, ids=[a[0] for a in COMMANDS])
def test_usage_error_exits_2(args: list[str]) -> None:
    res = run_cli(*args, "--no-such-option")
    assert res.returncode == Exit.ERROR
    assert "unrecognized arguments: --no-such-option" in res.stderr
    assert res.stdout == ""


# --- a missing input ----------------------------------------------------------------------
MISSING = {
    "eval": ["eval", QRELS, "{none}"], "compare": ["compare", QRELS, BM25, "{none}"],
    "snapshot": ["snapshot", QRELS, "{none}", "--no-config"],
    "check": ["check", QRELS, "{none}", "-b", BM25, "--no-config"], "sample": ["sample", "{none}", "-n", "2"],
    "pool": ["pool", QRELS, "{none}"], "judgments": ["judgments", "merge", QRELS, "{none}"],
    "agreement": ["agreement", QRELS, "{none}"], "power": ["power", QRELS, "{none}"],
    "fuse": ["fuse", BM25, "{none}", "-o", "{nodir}"], "online": ["online", "metrics", "{none_parquet}"],
    "answers": ["answers", "grounding", "{none_parquet}", BM25],
    "clicks": ["clicks", "judgments", "{none_parquet}"],
}  # fmt: skip


def _args(args: list[str], files: dict[str, str]) -> list[str]:
    return [files[a[1:-1]] if a.startswith("{") else a for a in args]


@pytest.mark.parametrize("name", list(MISSING))
def test_missing_file_exits_2_naming_it(name: str, files: dict[str, str]) -> None:
    res = run_cli(*_args(MISSING[name], files))
    assert res.returncode == Exit.ERROR
    _one_error_line(res, "none.run")


# --- an unknown measure -------------------------------------------------------------------
MEASURED = [
    ["eval", QRELS, BM25], ["compare", QRELS, BM25, DENSE], ["snapshot", QRELS, BM25, "--no-config"],
    ["check", QRELS, DENSE, "-b", BM25, "--no-config"], ["power", QRELS, BM25],
    ["agreement", QRELS, QRELS, "--run", BM25], ["demo"],
]  # fmt: skip


@pytest.mark.parametrize("args", MEASURED, ids=[a[0] for a in MEASURED])
def test_unknown_measure_exits_2(args: list[str]) -> None:
    res = run_cli(*args, "-m", "nDGC@10")
    assert res.returncode == Exit.ERROR
    _one_error_line(res, "Unknown measure 'nDGC@10'")


# --- bad rows -----------------------------------------------------------------------------
BAD = [
    ["eval", QRELS, "{bad}"], ["compare", QRELS, BM25, "{bad}"], ["snapshot", QRELS, "{bad}", "--no-config"],
    ["check", QRELS, "{bad}", "-b", BM25, "--no-config"], ["pool", QRELS, "{bad}"], ["power", QRELS, "{bad}"],
    ["fuse", BM25, "{bad}", "-o", "{nodir}"], ["agreement", QRELS, "{llm}", "--run", "{bad}"],
]  # fmt: skip


@pytest.mark.parametrize("args", BAD, ids=[a[0] for a in BAD])
def test_bad_data_exits_2(args: list[str], files: dict[str, str]) -> None:
    res = run_cli(*_args(args, files))
    assert res.returncode == Exit.ERROR
    _one_error_line(res, "bad.run:2: malformed run line")


# --- regression: check only ---------------------------------------------------------------
def test_only_a_regression_exits_1(files: dict[str, str]) -> None:
    assert run_cli("check", QRELS, DENSE, "-b", BM25, "--no-config").returncode == Exit.FAILED
    assert run_cli("check", QRELS, DENSE, "-b", files["snap"], "--no-config").returncode == Exit.FAILED
    assert run_cli("check", QRELS, HYBRID, "-b", files["snap"], "--no-config").returncode == Exit.OK
    assert run_cli("compare", QRELS, BM25, DENSE).returncode == Exit.OK  # compare reports, never fails


def test_check_result_exit_code_is_the_enum_the_command_exits_with() -> None:
    """``CheckResult.exit_code`` returns the CLI's enum member (one enum, below both: the
    library's ``_check`` does not import the command line), an ``int`` for the shell."""
    import ast

    import irframe
    import irframe._exit
    import irframe.cli._exit

    assert irframe.cli._exit.Exit is irframe._exit.Exit
    g = irframe.datasets.golden()
    runs = {s: g.runs.filter(system=s).drop("system") for s in ("bm25", "dense", "hybrid")}
    for cand, code, cli_run in ((runs["dense"], Exit.FAILED, DENSE), (runs["hybrid"], Exit.OK, HYBRID)):
        result = irframe.check(cand, g.qrels, runs["bm25"], n_permutations=200, n_bootstrap=200)
        assert result.exit_code is code
        assert isinstance(result.exit_code, int)
        assert result.exit_code == (0 if result.passed else 1)
        assert run_cli("check", QRELS, cli_run, "-b", BM25, "--no-config").returncode == code
    check_dir = Path(irframe.__file__).parent / "_check"
    for path in check_dir.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                assert not (node.module or "").startswith("irframe.cli"), f"{path.name} imports {node.module}"


# --- the output was not written -----------------------------------------------------------
TO_STDOUT = [
    ["eval", QRELS, BM25], ["eval", QRELS, BM25, "-q", "-f", "trec"], ["compare", QRELS, BM25, DENSE],
    ["snapshot", QRELS, BM25, "--no-config"], ["check", QRELS, DENSE, "-b", BM25, "--no-config"],
    ["check", QRELS, HYBRID, "-b", BM25, "--no-config", "-f", "markdown"], ["sample", "{log}", "-n", "2"],
    ["pool", QRELS, BM25], ["judgments", "merge", QRELS, "{sheet}"], ["agreement", QRELS, "{llm}"],
    ["power", QRELS, BM25], ["demo"], ["measures"],
]  # fmt: skip


@pytest.mark.parametrize("args", TO_STDOUT, ids=[" ".join(a[:1] + a[3:]) for a in TO_STDOUT])
def test_broken_pipe_exits_3_quietly(args: list[str], files: dict[str, str]) -> None:
    """A closed standard output (``| head``, ``| true``): 3, never 0 nor a regression's 1."""
    res = run_cli(*_args(args, files), stdout=ClosedStdout())
    assert res.returncode == Exit.OUTPUT, res.stderr
    assert res.stderr == ""  # the reader went away: not worth a line


TO_FILE = [
    ["snapshot", QRELS, BM25, "--no-config", "-o", "{nodir}"], ["pool", QRELS, BM25, "-o", "{nodir}.tsv"],
    ["fuse", BM25, DENSE, "-o", "{nodir}"], ["sample", "{log}", "-n", "2", "-o", "{nodir}.tsv"],
    ["judgments", "merge", QRELS, "{sheet}", "-o", "{nodir}"],
    ["agreement", QRELS, "{llm}", "--per-query", "{nodir}.tsv"],
]  # fmt: skip


@pytest.mark.parametrize("args", TO_FILE, ids=[a[0] for a in TO_FILE])
def test_unwritable_output_exits_3(args: list[str], files: dict[str, str]) -> None:
    shown = [a.replace("{nodir}", files["nodir"]) if "{nodir}" in a else a for a in args]
    res = run_cli(*_args(shown, files))
    assert res.returncode == Exit.OUTPUT, res.stderr
    _one_error_line(res, f"write '{files['nodir']}")


def test_an_encoding_that_cannot_show_the_report_exits_3() -> None:
    cp1252 = io.TextIOWrapper(io.BytesIO(), encoding="cp1252")
    res = run_cli("check", QRELS, DENSE, "-b", BM25, "--no-config", "-f", "markdown", stdout=cp1252)
    assert res.returncode == Exit.OUTPUT
    _one_error_line(res, "standard output (cp1252) cannot show")
    assert "PYTHONIOENCODING=utf-8" in res.stderr
    # the text report falls back on ASCII markers there: it is written
    cp1252 = io.TextIOWrapper(io.BytesIO(), encoding="cp1252")
    assert run_cli("check", QRELS, DENSE, "-b", BM25, "--no-config", stdout=cp1252).returncode == 1


# --- internal errors ----------------------------------------------------------------------
def _panic(*args: object, **kwargs: object) -> object:
    raise pl.exceptions.PanicException("index out of bounds")


def _bug(*args: object, **kwargs: object) -> object:
    raise RuntimeError("something irframe did not expect")


@pytest.mark.parametrize(
    ("raiser", "said"), [(_panic, "internal error (polars panicked)"), (_bug, "unexpected RuntimeError")]
)
@pytest.mark.parametrize("args", [["eval", QRELS, BM25], ["snapshot", QRELS, BM25, "--no-config"],
                                  ["check", QRELS, DENSE, "-b", BM25, "--no-config"], ["pool", QRELS, BM25],
                                  ["compare", QRELS, BM25, DENSE], ["fuse", BM25, DENSE, "-o", "x.run"]],
                         ids=["eval", "snapshot", "check", "pool", "compare", "fuse"])  # fmt: skip
def test_internal_errors_exit_2_in_one_line_naming_the_step(
    args: list[str], raiser: Callable[..., object], said: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A polars panic derives from BaseException: it too is one line and 2, never 1 (which
    ``check`` means as a regression) and never a traceback."""
    monkeypatch.setattr(irframe.io.sniff, "load", raiser)
    res = run_cli(*args)
    assert res.returncode == Exit.ERROR
    _one_error_line(res, said)
    assert "while reading" in res.stderr
    assert "(run with --debug for the traceback)" in res.stderr


def test_debug_shows_the_traceback_of_an_internal_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(irframe.io.sniff, "load", _panic)
    res = run_cli("eval", QRELS, BM25, "--debug")
    assert "Traceback" in res.stderr
    assert "PanicException" in res.stderr


# --- a gate that compared nothing (issue 35 class 1) -------------------------------------
def _regraded(tmp_path: Path) -> str:
    lines = Path(QRELS).read_text().splitlines()
    out = tmp_path / "regraded.txt"
    out.write_text(
        "".join(
            f"{q} 0 {d} {min(int(g) + 1, 3) if int(g) < 3 else 0}\n" for q, _, d, g in map(str.split, lines)
        )
    )
    return str(out)


def test_a_check_over_0_queries_is_a_data_error(files: dict[str, str], tmp_path: Path) -> None:
    args = ["check", _regraded(tmp_path), HYBRID, "-b", files["snap"], "--no-config", "--allow-changed-qrels"]
    res = run_cli(*args)
    assert res.returncode == Exit.ERROR  # was 0: "PASS ... over 0 queries" (the gate's rule)
    _one_error_line(res, "a check over 0 queries cannot pass")
    assert "the 40 queries whose judgments changed were left out" in res.stderr


def test_a_check_of_measures_without_values_is_a_data_error(files: dict[str, str], tmp_path: Path) -> None:
    run = tmp_path / "elsewhere.run"  # the hybrid run under query ids nobody judged
    run.write_text("".join("x" + line[1:] + "\n" for line in Path(HYBRID).read_text().splitlines()))
    res = run_cli("check", QRELS, str(run), "-b", BM25, "--no-config")
    assert res.returncode == Exit.ERROR  # (the gate's own error: the runs share no judged query)
    _one_error_line(res, "share no judged query")
    # a snapshot whose R@100 values are all null: no pass over the other measures
    data = json.loads(Path(files["snap"]).read_text())
    for values in data["queries"].values():
        values["R@100"] = None
    nulls = tmp_path / "nulls.snapshot.json"
    nulls.write_text(json.dumps(data))
    res = run_cli("check", QRELS, HYBRID, "-b", str(nulls), "--no-config")
    assert res.returncode == Exit.ERROR  # was 0 (the gate's rule)
    _one_error_line(res, f"{nulls}: the snapshot has no value for R@100")


def test_an_internal_error_while_evaluating_names_the_inputs(monkeypatch: pytest.MonkeyPatch) -> None:
    import irframe.functions

    monkeypatch.setattr(irframe.functions, "evaluate_both", _panic)
    res = run_cli("eval", QRELS, BM25, DENSE)
    assert res.returncode == Exit.ERROR
    _one_error_line(res, f"internal error (polars panicked) while evaluating {BM25}, {DENSE} against {QRELS}")
