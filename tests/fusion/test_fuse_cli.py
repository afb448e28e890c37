"""``irframe fuse``, run in-process: the file it writes is irframe.fuse's run, written atomically."""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import polars as pl
import pytest

import irframe
from irframe.cli import main
from irframe.datasets import golden_paths

RUNS = golden_paths().runs


def _run_file(path: Path, rows: list[tuple[str, str, float]], tag: str) -> Path:
    lines = [f"{q} Q0 {d} {i + 1} {s} {tag}" for i, (q, d, s) in enumerate(rows)]
    path.write_text("\n".join(lines) + "\n")
    return path


def _written(path: Path) -> pl.DataFrame:
    return irframe.read_trec_run(path)


def test_fuse_writes_the_library_s_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "fused.run"
    assert main(["fuse", str(RUNS["bm25"]), str(RUNS["dense"]), "-o", str(out)]) == 0
    runs = {name: irframe.read_trec_run(RUNS[name]) for name in ("bm25", "dense")}
    want = irframe.fuse(runs, method="rrf")
    got = _written(out)
    assert got.select("query_id", "doc_id").equals(want.select("query_id", "doc_id"))
    assert got["score"].to_list() == pytest.approx(want["score"].to_list(), rel=1e-15)
    first = out.read_text().splitlines()[0].split()
    assert first[3] == "1"
    assert first[5] == "fused-rrf"
    err = capsys.readouterr().err
    assert "fused 2 systems (named by their run tags: bm25, dense) with rrf" in err
    assert f"40 queries, {want.height} rows" in err


def test_options_reach_fuse(tmp_path: Path) -> None:
    out = tmp_path / "w.run"
    args = ["fuse", str(RUNS["bm25"]), str(RUNS["dense"]), "-o", str(out), "--quiet"]
    runs = {name: irframe.read_trec_run(RUNS[name]) for name in ("bm25", "dense")}
    assert main([*args, "--method", "wsum", "--weights", "dense=0.7,bm25=0.3", "--norm", "zscore"]) == 0
    want = irframe.fuse(runs, method="wsum", weights=[0.3, 0.7], norm="zscore")
    assert _written(out)["score"].to_list() == pytest.approx(want["score"].to_list(), rel=1e-12)
    assert main([*args, "--method", "wsum", "--weights", "0.3,0.7", "--norm", "none", "--tag", "mine"]) == 0
    want = irframe.fuse(runs, method="wsum", weights=[0.3, 0.7], norm=None)
    assert _written(out)["score"].to_list() == pytest.approx(want["score"].to_list(), rel=1e-12)
    assert out.read_text().split("\n", 1)[0].endswith(" mine")
    assert main([*args, "-k", "10"]) == 0
    want = irframe.fuse(runs, method="rrf", k=10)
    assert _written(out)["score"].to_list() == pytest.approx(want["score"].to_list(), rel=1e-15)


def test_names_come_from_file_names_when_the_tags_are_alike(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = _run_file(tmp_path / "first.run", [("q1", "x", 2.0), ("q1", "y", 1.0)], "same")
    b = _run_file(tmp_path / "second.run", [("q1", "y", 2.0), ("q1", "z", 1.0)], "same")
    out = tmp_path / "fused.run.gz"
    assert (
        main(["fuse", str(a), str(b), "-o", str(out), "--method", "wsum", "--weights", "first=1,second=2"])
        == 0
    )
    assert (
        "named by their file names (the run tags are missing or alike): first, second"
        in capsys.readouterr().err
    )
    lines = gzip.decompress(out.read_bytes()).decode().splitlines()
    # minmax: first x 1, y 0; second y 1, z 0 -> y 2, x 1, z 0
    assert [line.split()[2] for line in lines] == ["y", "x", "z"]


def test_an_input_is_never_the_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = _run_file(tmp_path / "a.run", [("q1", "x", 2.0)], "a")
    b = _run_file(tmp_path / "b.run", [("q1", "y", 2.0)], "b")
    before = a.read_bytes()
    for target in (str(a), str(tmp_path / "." / "a.run")):
        assert main(["fuse", str(a), str(b), "-o", target]) == 2
        assert "is also an input" in capsys.readouterr().err
    link = tmp_path / "hard.run"
    os.link(a, link)
    assert main(["fuse", str(a), str(b), "-o", str(link)]) == 2
    assert a.read_bytes() == before
    assert main(["fuse", str(a), str(b), "-o", str(tmp_path)]) == 2
    assert "a directory" in capsys.readouterr().err


def test_a_failed_fuse_leaves_the_old_output_and_no_temporary_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = _run_file(tmp_path / "a.run", [("q1", "x", 2.0), ("q1", "x", 1.0)], "a")  # x twice
    b = _run_file(tmp_path / "b.run", [("q1", "y", 2.0)], "b")
    out = tmp_path / "fused.run"
    out.write_text("old\n")
    out.chmod(0o640)
    assert (
        main(["fuse", str(a), str(b), "-o", str(out)]) == 2
    )  # issue 34: data errors exit 2, as usage errors (was 1)
    assert "run 'a' has documents twice" in capsys.readouterr().err
    assert out.read_text() == "old\n"
    good = _run_file(tmp_path / "c.run", [("q1", "x", 2.0)], "c")
    assert main(["fuse", str(good), str(b), "-o", str(out), "--quiet"]) == 0
    assert out.read_text().startswith("q1 Q0 ")
    assert out.stat().st_mode & 0o777 == 0o640  # the file's mode is kept
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.run", "b.run", "c.run", "fused.run"]


def test_usage_errors_speak_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["fuse", str(RUNS["bm25"]), str(RUNS["dense"]), "-o", str(tmp_path / "f.run")]
    assert main([*args, "--norm", "minmax"]) == 2
    assert "The --norm option of irframe fuse has no effect with method='rrf'" in capsys.readouterr().err
    assert main([*args, "--method", "wsum", "--weights", "0.5"]) == 2
    assert "The --weights option of irframe fuse must hold one number per run: 2" in capsys.readouterr().err
    assert main([*args, "--method", "wsum"]) == 2
    assert "--weights option of irframe fuse must be given" in capsys.readouterr().err
    assert (
        main([*args, "--weights", "a=1,2"]) == 2
    )  # issue 34: main returns argparse's usage code (it raised SystemExit)
    assert "expected numbers W,W,... (in the order of the runs) or NAME=W" in capsys.readouterr().err
    assert main(["fuse", str(RUNS["bm25"]), "-o", str(tmp_path / "f.run")]) == 2
    assert "fuse needs at least 2 systems; got 1" in capsys.readouterr().err
    assert not (tmp_path / "f.run").exists()
