"""``irframe eval`` on search logs (issue 34 item 1): a run in several files, grades on the
rows without a QRELS file, out of core within ``--memory-limit``.

Every CLI number is compared with :func:`irframe.evaluate` on the same rows held in one
frame (itself checked against trec_eval and the plain-Python oracle elsewhere), and a
few are written out by hand.
"""

from __future__ import annotations

import io
from pathlib import Path

import polars as pl
import pytest

import irframe
from _support.cli_runner import run_cli

# a log: 4 queries, graded on the rows (relevance), a day column, scores descending
LOG = pl.DataFrame(
    {
        "query_id": ["q1", "q1", "q1", "q2", "q2", "q3", "q3", "q4"],
        "doc_id": ["a", "b", "c", "a", "d", "e", "f", "g"],
        "score": [3.0, 2.0, 1.0, 2.0, 1.0, 2.0, 1.0, 1.0],
        "relevance": [0, 2, 1, 1, 0, 0, 0, 3],
        "day": ["mon", "mon", "mon", "mon", "mon", "tue", "tue", "tue"],
    }
)
MEASURES = ["RR", "P@2", "nDCG@3", "AP"]
# by hand: the first relevant document of q1 is b (rank 2), of q2 a (1), q3 has none, q4 g (1)
RR_BY_HAND = (0.5 + 1.0 + 0.0 + 1.0) / 4


def _flags() -> list[str]:
    return [a for m in MEASURES for a in ("-m", m)]


def _tsv(text: str) -> pl.DataFrame:
    return pl.read_csv(io.StringIO(text), separator="\t", schema_overrides={"query_id": pl.String})


def _parts(folder: Path, fmt: str, hive: bool = False) -> list[Path]:
    """The log in two files (by day: no query in both), as ``fmt``; ``hive``: day=.../ folders."""
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for (day,), part in LOG.group_by("day", maintain_order=True):
        path = folder / (f"day={day}" if hive else "") / f"part-{day}.{fmt}"
        path.parent.mkdir(exist_ok=True)
        data = part.drop("day") if hive else part
        if fmt == "parquet":
            data.write_parquet(path)
        elif fmt == "jsonl":
            data.write_ndjson(path)
        else:
            data.write_csv(path, separator="\t" if fmt == "tsv" else ",")
        out.append(path)
    return out


def _want(per_query: bool = False, by: list[str] | None = None) -> pl.DataFrame:
    return irframe.evaluate(LOG, MEASURES, by=by, per_query=per_query)


def _same(got: pl.DataFrame, want: pl.DataFrame) -> None:
    for m in MEASURES:
        assert got[m].to_list() == pytest.approx(want[m].to_list(), abs=1e-12), m


@pytest.mark.parametrize("fmt", ["parquet", "csv", "tsv", "jsonl"])
def test_a_quoted_glob_is_one_run(fmt: str, tmp_path: Path) -> None:
    _parts(tmp_path / "log", fmt)
    res = run_cli(
        "eval", "--no-qrels", tmp_path / "log" / f"*.{fmt}", *_flags(), "-f", "tsv", "--precision", "17"
    )
    assert res.returncode == 0, res.stderr
    got = _tsv(res.stdout)
    assert got["system"].to_list() == ["log"]  # named by its directory
    assert got["n_queries"].to_list() == [4]
    assert got["RR"][0] == pytest.approx(RR_BY_HAND)
    _same(got, _want())


def test_a_directory_is_one_run_and_its_partitions_are_columns(tmp_path: Path) -> None:
    _parts(tmp_path / "log", "parquet", hive=True)
    args = [
        "eval",
        "--no-qrels",
        tmp_path / "log",
        *_flags(),
        "--by",
        "day",
        "-f",
        "tsv",
        "--precision",
        "17",
    ]
    res = run_cli(*args)
    assert res.returncode == 0, res.stderr
    got = _tsv(res.stdout).sort("day")
    want = _want(by=["day"]).sort("day")
    assert got["day"].to_list() == ["mon", "tue"]
    _same(got, want)


def test_shell_expanded_parts_are_refused_until_the_reading_is_said(tmp_path: Path) -> None:
    parts = _parts(tmp_path / "log", "parquet")
    res = run_cli("eval", "--no-qrels", *parts, *_flags())
    assert res.returncode == 2
    assert "the 2 runs share no query" in res.stderr
    assert "--run-files-are one" in res.stderr
    one = run_cli(
        "eval", "--no-qrels", "--run-files-are", "one", *parts, *_flags(), "-f", "tsv", "--precision", "17"
    )
    assert one.returncode == 0, one.stderr
    _same(_tsv(one.stdout), _want())
    quoted = run_cli(
        "eval", "--no-qrels", tmp_path / "log" / "*.parquet", *_flags(), "-f", "tsv", "--precision", "17"
    )
    assert quoted.stdout == one.stdout
    each = run_cli("eval", "--no-qrels", "--run-files-are", "systems", *parts, *_flags(), "-f", "tsv")
    assert each.returncode == 0, each.stderr
    assert _tsv(each.stdout)["system"].to_list() == ["part-mon.parquet", "part-tue.parquet"]


def test_several_trec_files_are_several_systems(tmp_path: Path) -> None:
    from irframe.datasets import golden_paths

    paths = golden_paths()
    res = run_cli("eval", paths.qrels, *paths.runs.values(), "-m", "RR", "-f", "tsv")
    assert res.returncode == 0, res.stderr
    assert sorted(_tsv(res.stdout)["system"]) == ["bm25", "dense", "hybrid"]


def test_no_qrels_reads_the_grades_of_a_named_column(tmp_path: Path) -> None:
    LOG.rename({"relevance": "label"}).write_parquet(tmp_path / "log.parquet")
    res = run_cli("eval", "--no-qrels", tmp_path / "log.parquet", "-m", "RR")
    assert res.returncode == 2
    assert "relevance" in res.stderr
    assert "--map COLUMN=relevance" in res.stderr or "--map label=relevance" in res.stderr
    res = run_cli(
        "eval", "--no-qrels", tmp_path / "log.parquet", "--map", "label=relevance", *_flags(), "-f", "tsv",
        "--precision", "17",
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    _same(_tsv(res.stdout), _want())
    assert run_cli("eval", tmp_path / "log.parquet").returncode == 2  # one argument: QRELS RUN expected
    assert "--no-qrels" in run_cli("eval", tmp_path / "log.parquet").stderr


@pytest.mark.parametrize("per_query", [False, True])
def test_memory_limit_gives_the_in_memory_numbers(per_query: bool, tmp_path: Path) -> None:
    _parts(tmp_path / "log", "parquet", hive=True)
    q = ["-q"] if per_query else []
    base = [
        "eval",
        "--no-qrels",
        tmp_path / "log",
        *_flags(),
        "--by",
        "day",
        *q,
        "-f",
        "tsv",
        "--precision",
        "17",
    ]
    in_memory = run_cli(*base)
    out_of_core = run_cli(*base, "--memory-limit", "1GB")
    assert in_memory.returncode == 0, in_memory.stderr
    assert out_of_core.returncode == 0, out_of_core.stderr
    key = ["system", "day", "query_id"] if per_query else ["system", "day"]
    got, want = _tsv(out_of_core.stdout).sort(key), _tsv(in_memory.stdout).sort(key)
    assert got.columns == want.columns
    _same(got, want)


def test_memory_limit_with_qrels_and_trec_output(tmp_path: Path) -> None:
    from irframe.datasets import golden_paths

    paths = golden_paths()
    args = [
        "eval",
        paths.qrels,
        paths.runs["bm25"],
        paths.runs["dense"],
        "-m",
        "P_5",
        "-m",
        "num_ret",
        "-q",
        "-f",
        "trec",
    ]
    in_memory = run_cli(*args)
    out_of_core = run_cli(*args, "--memory-limit", "600MB")
    assert out_of_core.returncode == 0, out_of_core.stderr
    assert out_of_core.stdout == in_memory.stdout


def test_progress_of_an_out_of_core_run_only_when_asked(tmp_path: Path) -> None:
    _parts(tmp_path / "log", "parquet")
    args = ["eval", "--no-qrels", tmp_path / "log", "-m", "RR", "--memory-limit", "1GB"]
    assert run_cli(*args).stderr == ""  # not a terminal: no progress
    shown = run_cli(*args, "--progress")
    assert shown.returncode == 0, shown.stderr
    assert "bucket" in shown.stderr
    assert run_cli(*args, "--progress", "--quiet").stderr == ""


def test_a_quoted_glob_of_trec_files_is_one_run(tmp_path: Path) -> None:
    from irframe.datasets import golden_paths

    paths = golden_paths()
    lines = paths.runs["bm25"].read_text().splitlines()
    (tmp_path / "parts").mkdir()
    (tmp_path / "parts" / "a.run").write_text("".join(f"{ln}\n" for ln in lines if ln < "q2"))
    (tmp_path / "parts" / "b.run").write_text("".join(f"{ln}\n" for ln in lines if ln >= "q2"))
    whole = run_cli("eval", paths.qrels, paths.runs["bm25"], "-q", "-f", "trec", "-m", "P_5")
    parts = run_cli("eval", paths.qrels, tmp_path / "parts" / "*.run", "-q", "-f", "trec", "-m", "P_5")
    assert parts.returncode == 0, parts.stderr
    assert parts.stdout == whole.stdout  # one system, named by its run tag (bm25)
