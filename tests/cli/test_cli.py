"""The ``irframe`` command, run in process (:mod:`_support.cli_runner`; a few real subprocesses check
the entry point, broken pipes and imports): outputs parsed back and checked against the library."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

import irframe
from _support.cli_runner import run_cli
from irframe.cli import main, render_table, resolve_measures
from irframe.io import read_trec_qrels, read_trec_runs

QRELS = """\
q1 0 a 2
q1 0 b 0
q1 0 c 1
q1 0 z 3
q2 0 a 1
q2 0 d 2
q3 0 e 1
"""
RUN_A = """\
q1 Q0 a 1 3.0 alpha
q1 Q0 b 2 2.0 alpha
q1 Q0 c 3 1.0 alpha
q2 Q0 d 1 5.0 alpha
q2 Q0 x 2 4.0 alpha
q9 Q0 a 1 1.0 alpha
"""
RUN_B = """\
q1 Q0 c 1 0.9 beta
q1 Q0 z 2 0.8 beta
q2 Q0 x 1 0.7 beta
q2 Q0 a 2 0.7 beta
q3 Q0 e 1 0.1 beta
"""
MEASURES = ["nDCG@10", "P@2", "R@100", "RR", "AP", "ndcg_cut_10"]


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    out = {}
    for name, text in {"qrels.txt": QRELS, "a.run": RUN_A, "b.run": RUN_B}.items():
        (tmp_path / name).write_text(text)
        out[name] = tmp_path / name
    return out


def run_process(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """``python -m irframe ARGS`` in a new process (the entry point itself)."""
    return subprocess.run(
        [sys.executable, "-m", "irframe", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def expected(files: dict[str, Path], measures: list[str], per_query: bool, **kw: object) -> pl.DataFrame:
    runs = read_trec_runs([files["a.run"], files["b.run"]])
    qrels = read_trec_qrels(files["qrels.txt"])
    return irframe.evaluate(runs, measures, qrels, by="system", per_query=per_query, **kw)


def _flags(measures: list[str]) -> list[str]:
    return [x for m in measures for x in ("-m", m)]


def _close(got: pl.DataFrame, want: pl.DataFrame, measures: list[str], keys: list[str]) -> None:
    got = got.sort(keys)
    want = want.sort(keys)
    assert got.select(keys).rows() == want.select(keys).rows()
    for m in measures:
        g, w = got[m].to_list(), want[m].to_list()
        for a, b in zip(g, w, strict=True):
            assert (a is None and b is None) or a == pytest.approx(b, abs=1e-12), m


@pytest.mark.parametrize("fmt", ["tsv", "csv"])
@pytest.mark.parametrize("per_query", [False, True])
def test_delimited_output_matches_library(files: dict[str, Path], fmt: str, per_query: bool) -> None:
    # tsv/csv print 4 decimals by default (issue 12 item 10): ask for every digit
    args = ["eval", files["qrels.txt"], files["a.run"], files["b.run"], *_flags(MEASURES), "-f", fmt]
    res = run_cli(*args, "--precision", "17", *(["-q"] if per_query else []))
    assert res.returncode == 0, res.stderr
    got = pl.read_csv(
        io.StringIO(res.stdout),
        separator="\t" if fmt == "tsv" else ",",
        schema_overrides={"query_id": pl.String},
    )
    want = expected(files, MEASURES, per_query)
    keys = ["system", "query_id"] if per_query else ["system"]
    assert got.columns == want.columns
    _close(got, want, MEASURES, keys)


def test_json_output_matches_library(files: dict[str, Path]) -> None:
    res = run_cli(
        "eval", files["qrels.txt"], files["a.run"], files["b.run"], *_flags(MEASURES), "-f", "json", "-q"
    )
    assert res.returncode == 0, res.stderr
    got = pl.DataFrame(json.loads(res.stdout))
    _close(got, expected(files, MEASURES, True), MEASURES, ["system", "query_id"])


def test_trec_output_layout_and_values(files: dict[str, Path]) -> None:
    ms = ["P@2", "NumRet", "ndcg_cut_10", "map", "num_q"]
    res = run_cli("eval", files["qrels.txt"], files["a.run"], files["b.run"], *_flags(ms), "-f", "trec", "-q")
    assert res.returncode == 0, res.stderr
    rows = [line.split("\t") for line in res.stdout.splitlines()]
    assert all(len(r) == 3 for r in rows)
    # trec_eval's order (num_q, map, ndcg_cut), then the measures trec_eval has no name for
    assert [r[0].strip() for r in rows if r[1] == "all"][:6] == [
        "runid",
        "num_q",
        "map",
        "ndcg_cut_10",
        "P@2",
        "NumRet",
    ]
    assert rows[0][0] == f"{'map':<22}"  # trec_eval pads the measure name to 22
    parsed: dict[tuple[str, str, str], str] = {}
    systems, pending = [], []
    for i, r in enumerate(rows):  # a block: the per-query lines, then the 'all' lines (runid first)
        pending.append(r)
        if r[0].strip() == "runid":
            systems.append(r[2])
        if r[1] == "all" and (i + 1 == len(rows) or rows[i + 1][1] != "all"):
            parsed.update({(systems[-1], q[0].strip(), q[1]): q[2] for q in pending})
            pending = []
    assert systems == ["alpha", "beta"]
    pq = expected(files, ms, True)
    summary = expected(files, ms, False)
    for s in ("alpha", "beta"):
        srow = summary.filter(pl.col("system") == s).row(0, named=True)
        assert parsed[(s, "num_q", "all")] == str(srow["n_queries"])
        assert parsed[(s, "map", "all")] == f"{srow['map']:6.4f}"
        # counting measures are summed over queries in the all row, like trec_eval
        total = pq.filter(pl.col("system") == s)["NumRet"].sum()
        assert parsed[(s, "NumRet", "all")] == str(round(total))
        for row in pq.filter(pl.col("system") == s).iter_rows(named=True):
            if row["map"] is None:  # unjudged run-only query q9: not printed
                assert (s, "map", row["query_id"]) not in parsed
                continue
            assert parsed[(s, "P@2", row["query_id"])] == f"{row['P@2']:6.4f}"
            assert parsed[(s, "NumRet", row["query_id"])] == str(round(row["NumRet"]))


def test_trec_output_matches_pytrec_eval(files: dict[str, Path]) -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    res = run_cli(
        "eval",
        files["qrels.txt"],
        files["a.run"],
        "-m",
        "map",
        "-m",
        "ndcg_cut_10",
        "-m",
        "P_2",
        "-f",
        "trec",
        "-q",
        "--missing",
        "drop",
    )
    assert res.returncode == 0, res.stderr
    ours = {(r[0].strip(), r[1]): r[2] for r in (ln.split("\t") for ln in res.stdout.splitlines())}
    qrels: dict[str, dict[str, int]] = {}
    for q, _, d, g in (ln.split() for ln in QRELS.splitlines()):
        qrels.setdefault(q, {})[d] = int(g)
    run: dict[str, dict[str, float]] = {}
    for q, _, d, _, s, _ in (ln.split() for ln in RUN_A.splitlines()):
        run.setdefault(q, {})[d] = float(s)
    ev = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg_cut_10", "P_2"})
    for q, values in ev.evaluate(run).items():
        assert ours[("map", q)] == f"{values['map']:6.4f}"
        assert ours[("ndcg_cut_10", q)] == f"{values['ndcg_cut_10']:6.4f}"
        assert ours[("P_2", q)] == f"{values['P_2']:6.4f}"


def test_table_output(files: dict[str, Path]) -> None:
    res = run_cli("eval", files["qrels.txt"], files["a.run"], files["b.run"], "-f", "table")
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    # issue 34: eval's default measures are check's and compare's (were nDCG@10 P@10 R@100 RR AP)
    assert lines[0].split()[:4] == ["system", "nDCG@10", "RR", "R@100"]
    want = expected(files, ["nDCG@10", "RR", "R@100"], False)
    alpha = lines[1].split()
    assert alpha[0] == "alpha"
    assert float(alpha[1].rstrip("*")) == pytest.approx(want["nDCG@10"][0], abs=5e-5)


def test_default_format_when_piped_is_tsv(files: dict[str, Path]) -> None:
    res = run_cli("eval", files["qrels.txt"], files["a.run"])
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines()[0].split("\t")[:2] == ["system", "nDCG@10"]


def test_missing_by_and_rel_options(files: dict[str, Path]) -> None:
    for missing in ("zero", "drop"):
        res = run_cli(
            "eval",
            files["qrels.txt"],
            files["a.run"],
            "-m",
            "AP",
            "--missing",
            missing,
            "-f",
            "csv",
            "--precision",
            "17",
        )
        assert res.returncode == 0, res.stderr
        got = pl.read_csv(io.StringIO(res.stdout))
        want = irframe.evaluate(
            read_trec_runs([files["a.run"]]),
            ["AP"],
            read_trec_qrels(files["qrels.txt"]),
            by="system",
            missing=missing,
        )
        assert got["AP"][0] == pytest.approx(want["AP"][0])
        assert got["n_queries"][0] == want["n_queries"][0]
    res = run_cli("eval", files["qrels.txt"], files["a.run"], "-m", "AP", "--missing", "error")
    assert res.returncode == 2  # a data error (issue 34's one contract; issue 12 had made it 1)
    assert res.stderr.startswith("irframe: error: ")
    assert "q3" in res.stderr


def test_rel_and_gain_flags(files: dict[str, Path]) -> None:
    res = run_cli(
        "eval",
        files["qrels.txt"],
        files["a.run"],
        "-m",
        "P@2",
        "-m",
        "nDCG@10",
        "--rel",
        "2",
        "--gain",
        "linear",
        "-f",
        "csv",
        "--precision",
        "17",
    )
    assert res.returncode == 0, res.stderr
    got = pl.read_csv(io.StringIO(res.stdout))
    assert "P(rel=2)@2" in got.columns
    assert "nDCG(gain=linear)@10" in got.columns
    want = expected(files, ["P(rel=2)@2", "nDCG(gain=linear)@10"], False).filter(pl.col("system") == "alpha")
    assert got["P(rel=2)@2"][0] == pytest.approx(want["P(rel=2)@2"][0])
    assert got["nDCG(gain=linear)@10"][0] == pytest.approx(want["nDCG(gain=linear)@10"][0])


def test_resolve_measures_rules() -> None:
    out = resolve_measures(
        ["P@5", "P(rel=3)@5", "nDCG(gain=exp)@10", "ndcg", "map", "RR"], rel=2, gain="linear"
    )
    assert [str(m) for m in out] == [
        "P(rel=2)@5",
        "P(rel=3)@5",
        "nDCG(gain=exp)@10",
        "ndcg",
        "AP(rel=2)",
        "RR(rel=2)",
    ]
    assert resolve_measures(["P@5"]) == ["P@5"]


def test_by_column_from_a_table_run(files: dict[str, Path], tmp_path: Path) -> None:
    run = (
        read_trec_runs([files["a.run"]])
        .drop("system")
        .with_columns(
            pl.when(pl.col("query_id") == "q1").then(pl.lit("head")).otherwise(pl.lit("tail")).alias("bucket")
        )
    )
    path = tmp_path / "run.parquet"
    run.write_parquet(path)
    res = run_cli(
        "eval", files["qrels.txt"], path, "-m", "RR", "--by", "bucket", "-f", "csv", "--missing", "drop"
    )
    assert res.returncode == 0, res.stderr
    got = pl.read_csv(io.StringIO(res.stdout))
    assert {"system", "bucket", "RR"} <= set(got.columns)
    assert set(got["bucket"]) == {"head", "tail"}


def test_table_inputs_with_column_mapping(files: dict[str, Path], tmp_path: Path) -> None:
    qrels = read_trec_qrels(files["qrels.txt"]).rename(
        {"query_id": "qid", "doc_id": "docno", "relevance": "rel"}
    )
    qrels.write_csv(tmp_path / "qrels.tsv", separator="\t")
    run = read_trec_runs([files["a.run"]]).drop("system").rename({"query_id": "qid", "doc_id": "docno"})
    run.write_csv(tmp_path / "run.csv")
    maps = ["--map", "qid=query_id", "--map", "docno=doc_id", "--map", "rel=relevance"]
    res = run_cli(
        "eval",
        tmp_path / "qrels.tsv",
        tmp_path / "run.csv",
        *maps,
        "-m",
        "AP",
        "-f",
        "csv",
        "--precision",
        "17",
    )
    assert res.returncode == 0, res.stderr
    got = pl.read_csv(io.StringIO(res.stdout))
    want = expected(files, ["AP"], False).filter(pl.col("system") == "alpha")
    assert got["AP"][0] == pytest.approx(want["AP"][0])
    assert got["system"][0] == "run"  # a table has no run tag: the file name


def test_sniffed_tsv_without_extension(files: dict[str, Path], tmp_path: Path) -> None:
    (tmp_path / "run.txt").write_text("query_id\tdoc_id\tscore\nq1\ta\t3\nq1\tc\t1\n")
    res = run_cli(
        "eval", files["qrels.txt"], tmp_path / "run.txt", "-m", "RR", "-f", "csv", "--missing", "drop"
    )
    assert res.returncode == 0, res.stderr
    assert pl.read_csv(io.StringIO(res.stdout))["RR"][0] == pytest.approx(1.0)


def test_stdin_run(files: dict[str, Path]) -> None:
    res = run_cli("eval", files["qrels.txt"], "-", "-m", "AP", "-f", "csv", "--precision", "17", stdin=RUN_B)
    assert res.returncode == 0, res.stderr
    got = pl.read_csv(io.StringIO(res.stdout))
    want = expected(files, ["AP"], False).filter(pl.col("system") == "beta")
    assert got["AP"][0] == pytest.approx(want["AP"][0])


# issue 34 item 4: one contract, usage and data errors alike exit 2 (issue 12 had made data errors 1)
@pytest.mark.parametrize(
    ("args", "needle", "code"),
    [
        (["eval", "{qrels}", "{missing}"], "does not exist", 2),
        (["eval", "{qrels}", "{a}", "-m", "nDGC@10"], "Unknown measure", 2),
        (["eval", "{qrels}", "{a}", "-m", "P@0"], "'k' parameter", 2),
        (["eval", "{qrels}", "{bad}"], "bad.run:2: malformed run line", 2),
        (["eval", "{qrels}", "{a}", "--by", "nope", "-f", "csv"], "nope", 2),
        (["eval", "-", "-"], "standard input", 2),
        (["eval", "{qrels}", "{a}", "--precision", "-1"], "--precision", 2),
    ],
)
def test_errors_are_one_line_exit_2(
    files: dict[str, Path], tmp_path: Path, args: list[str], needle: str, code: int
) -> None:
    (tmp_path / "bad.run").write_text("q1 Q0 a 1 1 t\nq1 Q0 b\n")
    subst = {
        "{qrels}": str(files["qrels.txt"]),
        "{a}": str(files["a.run"]),
        "{missing}": str(tmp_path / "none.run"),
        "{bad}": str(tmp_path / "bad.run"),
    }
    res = run_cli(*[subst.get(a, a) for a in args], stdin="")
    assert res.returncode == code
    assert res.stdout == ""
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    assert lines[0].startswith("irframe: error: ")
    assert needle in lines[0]
    assert "Traceback" not in res.stderr


def test_debug_shows_traceback(files: dict[str, Path]) -> None:
    res = run_cli("eval", files["qrels.txt"], files["a.run"], "-m", "nope@3", "--debug")
    assert res.returncode != 0
    assert "Traceback" in res.stderr


def test_usage_errors_exit_2() -> None:
    res = run_cli("eval")
    assert res.returncode == 2
    res = run_cli("eval", "q", "r", "--missing", "maybe")
    assert res.returncode == 2


def test_demo_runs(tmp_path: Path) -> None:
    res = run_cli("demo")
    assert res.returncode == 0, res.stderr
    out = res.stdout
    for word in ("bm25", "dense", "hybrid", "nDCG@10", "navigational", "informational", "long-tail"):
        assert word in out
    res = run_cli("demo", "-m", "P@5")
    assert res.returncode == 0, res.stderr
    assert "P@5" in res.stdout


def test_the_demos_commands_write_nothing_in_the_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 45: the demo told the user to ``cd`` into site-packages and write to_judge.tsv there.
    Each command it prints is run as printed, from another directory: none changes a file of
    the installed package, and the pool's sheet lands in the current directory."""
    import shlex

    import irframe

    package = Path(irframe.__file__).resolve().parent
    before = {p: p.stat().st_mtime_ns for p in package.rglob("*") if p.is_file()}
    out = run_cli("demo").stdout
    commands = [
        line.split("irframe ", 1)[1] for line in out.splitlines() if "irframe " in line and " && " not in line
    ]
    commands = [c for c in commands if c.split()[0] in ("eval", "check", "pool")]
    assert sorted(c.split()[0] for c in commands) == ["check", "eval", "pool"]
    assert "cd " not in out
    monkeypatch.chdir(tmp_path)
    for command in commands:
        words = shlex.split(command, comments=True)
        runs = sorted(str(p) for p in (package / "datasets" / "golden" / "runs").glob("*.run"))
        words = [x for w in words for x in (runs if "*" in w else [w])]  # the shell's glob
        res = run_cli(*words)
        assert res.returncode in (0, 1), (command, res.stderr)  # (check: 1 is a regression)
    assert (tmp_path / "to_judge.tsv").is_file()
    after = {p: p.stat().st_mtime_ns for p in package.rglob("*") if p.is_file()}
    assert {p for p in after if "__pycache__" not in str(p)} == {
        p for p in before if "__pycache__" not in str(p)
    }
    assert all(after[p] == before[p] for p in before if p in after and "__pycache__" not in str(p))


def test_measures_and_help() -> None:
    res = run_cli("measures")
    assert res.returncode == 0
    for fam in irframe.measures.FAMILIES:
        assert fam in res.stdout
    assert run_cli("--help").returncode == 0
    assert run_cli("--version").stdout.startswith("irframe ")
    assert run_cli().returncode == 2


def test_the_entry_point() -> None:
    """``python -m irframe``: the one real process of these (help, version, no command)."""
    assert run_process("--version").stdout.startswith("irframe ")
    res = run_process()
    assert res.returncode == 2
    assert "eval" in res.stdout


def test_main_in_process(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", str(files["qrels.txt"]), str(files["a.run"]), "-m", "RR", "-f", "tsv"]) == 0
    assert capsys.readouterr().out.startswith("system\tRR\t")
    assert main(["eval", str(files["qrels.txt"]), "nonexistent.run"]) == 2  # data error (issue 34: was 1)
    assert "irframe: error:" in capsys.readouterr().err


def test_render_table_alignment() -> None:
    text = render_table(pl.DataFrame({"system": ["a", "bb"], "AP": [0.5, None], "n": [3, 12]}))
    assert text.splitlines() == ["system      AP   n", "a       0.5000   3", "bb           -  12"]


def test_cli_imports_its_commands_lazily() -> None:
    code = (
        "import sys, irframe.cli; "
        "print(sorted(m for m in ('irframe.io', 'irframe.datasets', 'matplotlib', 'scipy') "
        "if m in sys.modules))"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert res.stdout.strip() == "[]"


def test_ranked_input_order_does_not_change_rr(files: dict[str, Path], tmp_path: Path) -> None:
    # a run already in ranking order (the common case) and the same run reversed
    qrels = files["qrels.txt"]
    (tmp_path / "sorted.tsv").write_text("query_id\tdoc_id\tscore\nq1\ta\t3\nq1\tc\t1\n")
    (tmp_path / "reversed.tsv").write_text("query_id\tdoc_id\tscore\nq1\tc\t1\nq1\ta\t3\n")
    for name in ("sorted.tsv", "reversed.tsv"):
        res = run_cli("eval", qrels, tmp_path / name, "-m", "RR", "-f", "csv", "--missing", "drop")
        assert res.returncode == 0, res.stderr
        assert pl.read_csv(io.StringIO(res.stdout))["RR"][0] == pytest.approx(1.0), name


def test_progress_message_only_for_slow_steps(capsys: pytest.CaptureFixture[str]) -> None:
    import time

    from irframe.cli import _progress

    with _progress("reading big.run", enabled=True, after=0.01):
        time.sleep(0.2)
    err = capsys.readouterr().err
    assert "irframe: reading big.run ..." in err
    assert "done in" in err
    with _progress("reading small.run", enabled=True, after=5):
        pass
    with _progress("reading big.run", enabled=False, after=0.0):
        time.sleep(0.05)
    assert capsys.readouterr().err == ""


def test_broken_pipe_is_quiet() -> None:
    proc = subprocess.run(
        f"{sys.executable} -m irframe demo | head -c 10",
        shell=True,
        capture_output=True,
        text=True,
        check=False,
    )
    assert "Traceback" not in proc.stderr


def test_broken_pipe_during_trec_lines_is_quiet(tmp_path: Path) -> None:
    """``-q -f trec`` writes its per-query lines as bytes (polars' CSV writer): a reader
    that stops early (``| head``) ends the command quietly, as for text, with exit code 3
    (issue 35: the output was cut; it exited 0 before, which let ``check | reader`` pass)."""
    n = 3000  # x 9 lines (-m P): ~1 MB of output, far more than a pipe holds
    run = "".join(f"q{i} Q0 d{j} {j} {10 - j} t\n" for i in range(n) for j in range(1, 6))
    (tmp_path / "a.run").write_text(run)
    (tmp_path / "qrels").write_text("".join(f"q{i} 0 d2 1\n" for i in range(n)))
    cmd = [sys.executable, "-m", "irframe", "eval", str(tmp_path / "qrels"), str(tmp_path / "a.run")]
    pipes = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE}
    proc = subprocess.Popen([*cmd, "-m", "P", "-q", "-f", "trec"], **pipes)  # type: ignore[call-overload]
    assert proc.stdout is not None
    assert proc.stderr is not None
    first = proc.stdout.readline()
    proc.stdout.close()  # the reader goes away with ~1 MB still to write
    err = proc.stderr.read().decode()
    proc.stderr.close()
    assert proc.wait(timeout=60) == 3, err
    assert first.split(b"\t")[:2] == [b"P_5".ljust(22), b"q0"]
    assert err == ""


def test_qrels_from_stdin_and_parquet_qrels(files: dict[str, Path], tmp_path: Path) -> None:
    res = run_cli("eval", "-", files["a.run"], "-m", "AP", "-f", "csv", stdin=QRELS)
    assert res.returncode == 0, res.stderr
    read_trec_qrels(files["qrels.txt"]).write_parquet(tmp_path / "qrels.parquet")
    res2 = run_cli("eval", tmp_path / "qrels.parquet", files["a.run"], "-m", "AP", "-f", "csv")
    assert res2.returncode == 0, res2.stderr
    assert res.stdout == res2.stdout


def test_trec_format_refuses_by(files: dict[str, Path]) -> None:
    res = run_cli("eval", files["qrels.txt"], files["a.run"], "--by", "x", "-f", "trec")
    assert res.returncode == 2
    assert "--format trec" in res.stderr


def test_by_a_query_attribute_of_the_qrels(tmp_path: Path) -> None:
    from irframe.datasets import golden

    g = golden()
    qrels = g.qrels.join(g.queries.select("query_id", "segment"), on="query_id")
    qrels.write_parquet(tmp_path / "qrels.parquet")
    runs = [str(p) for p in g.paths.runs.values()]
    res = run_cli(
        "eval",
        tmp_path / "qrels.parquet",
        *runs,
        "--by",
        "segment",
        "-m",
        "nDCG@10",
        "-f",
        "csv",
        "--precision",
        "17",
    )
    assert res.returncode == 0, res.stderr
    got = pl.read_csv(io.StringIO(res.stdout))
    pq = irframe.evaluate(g.runs, ["nDCG@10"], g.qrels, by="system", per_query=True)
    want = pq.join(g.queries, on="query_id").group_by("system", "segment").agg(pl.col("nDCG@10").mean())
    joined = got.join(want, on=["system", "segment"], suffix="_want")
    assert joined.height == 9
    for a, b in joined.select("nDCG@10", "nDCG@10_want").iter_rows():
        assert a == pytest.approx(b)


def test_trec_format_on_trec_eval_test_files(trec_eval_test_dir: Path) -> None:
    """`irframe eval -f trec --missing drop` prints what trec_eval 9 (pytrec_eval) computes."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    d = trec_eval_test_dir
    ms = ["map", "P_10", "ndcg", "recip_rank", "num_ret", "num_rel_ret", "runid", "num_q"]
    res = run_cli(
        "eval", d / "qrels.test", d / "results.test", *_flags(ms), "-f", "trec", "--missing", "drop", "-q"
    )
    assert res.returncode == 0, res.stderr
    ours = {(r[0].strip(), r[1]): r[2] for r in (ln.split("\t") for ln in res.stdout.splitlines())}
    qrels: dict[str, dict[str, int]] = {}
    for line in (d / "qrels.test").read_text().splitlines():
        q, _, doc, grade = line.split()
        qrels.setdefault(q, {})[doc] = int(grade)
    run: dict[str, dict[str, float]] = {}
    for line in (d / "results.test").read_text().splitlines():
        p = line.split()
        run.setdefault(p[0], {})[p[2]] = float(p[4])
    per_query = pytrec_eval.RelevanceEvaluator(qrels, set(ms[:-2])).evaluate(run)
    assert ours[("runid", "all")] == "STANDARD"
    assert ours[("num_q", "all")] == str(len(per_query))
    for m in ms[:-2]:
        values = [v[m] for v in per_query.values()]
        if m.startswith("num_"):
            assert ours[(m, "all")] == str(round(sum(values)))
        else:
            assert ours[(m, "all")] == f"{sum(values) / len(values):6.4f}"
        for q, v in per_query.items():
            want = str(round(v[m])) if m.startswith("num_") else f"{v[m]:6.4f}"
            assert ours[(m, q)] == want


def test_duplicates_option(files: dict[str, Path], tmp_path: Path) -> None:
    (tmp_path / "dup.run").write_text(RUN_A + "q1 Q0 a 9 0.5 alpha\n")
    res = run_cli("eval", files["qrels.txt"], tmp_path / "dup.run", "-m", "AP", "-f", "csv")
    assert res.returncode == 2  # a data error (issue 34's one contract; issue 12 had made it 1)
    assert "duplicate" in res.stderr
    assert "--duplicates first" in res.stderr  # the library's hint, in command-line terms
    res = run_cli(
        "eval", files["qrels.txt"], tmp_path / "dup.run", "-m", "AP", "-f", "csv", "--duplicates", "first"
    )
    assert res.returncode == 0, res.stderr
    res_clean = run_cli("eval", files["qrels.txt"], files["a.run"], "-m", "AP", "-f", "csv")
    assert res.stdout == res_clean.stdout  # the best-ranked copy of 'a' is the one kept


def test_stacked_table_keeps_its_systems(files: dict[str, Path], tmp_path: Path) -> None:
    read_trec_runs([files["a.run"], files["b.run"]]).write_parquet(tmp_path / "both.parquet")
    res = run_cli(
        "eval", files["qrels.txt"], tmp_path / "both.parquet", "-m", "AP", "-f", "csv", "--precision", "17"
    )
    assert res.returncode == 0, res.stderr
    got = pl.read_csv(io.StringIO(res.stdout))
    assert got["system"].to_list() == ["alpha", "beta"]
    want = expected(files, ["AP"], False)
    assert got["AP"].to_list() == pytest.approx(want["AP"].to_list())
