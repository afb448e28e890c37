"""``irframe sample``, ``irframe agreement`` and ``irframe power``, called in-process (the pool and
judgments subcommands are in test_golden_cli.py)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import irframe
from irframe.cli import main
from irframe.datasets import golden, golden_paths
from irframe.io._write import write_frame

P = golden_paths()
QRELS = str(P.qrels)
BM25, DENSE, HYBRID = (str(P.runs[s]) for s in ("bm25", "dense", "hybrid"))


def _log(tmp_path: Path) -> Path:
    """The golden set's queries as a log: each query repeated 1-49 times (seeded)."""
    q = golden().queries
    reps = np.random.default_rng(0).integers(1, 50, q.height)
    log = q.select(pl.all().repeat_by(pl.Series(reps)).explode())
    path = tmp_path / "log.tsv"
    log.write_csv(path, separator="\t")
    return path


def _llm(tmp_path: Path) -> Path:
    g = golden()
    noise = np.random.default_rng(1).integers(-1, 2, g.qrels.height)
    llm = g.qrels.with_columns(pl.Series("relevance", np.clip(g.qrels["relevance"].to_numpy() + noise, 0, 3)))
    path = tmp_path / "llm.tsv"
    llm.write_csv(path, separator="\t")
    return path


# --- sample ----------------------------------------------------------------------------------------
def test_sample_writes_the_queries_and_prints_the_shares(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = _log(tmp_path)
    out = tmp_path / "golden_queries.tsv"
    seg = tmp_path / "segments.parquet"
    args = ["sample", str(log), "-n", "12", "--by", "segment", "--min-per-segment", "3", "-o", str(out)]
    assert main([*args, "--segments", str(seg)]) == 0
    captured = capsys.readouterr()
    expected = irframe.sample_queries(pl.read_csv(log, separator="\t"), 12, by="segment", min_per_segment=3)
    assert captured.out == expected.to_text() + "\n"
    assert f"wrote {out} (12 queries)" in captured.err
    written = pl.read_csv(out, separator="\t")
    assert written["query_id"].to_list() == expected.queries["query_id"].to_list()
    assert written.columns == ["query_id", "segment", "traffic", "n_rows", "segment_weight", "text"]
    assert pl.read_parquet(seg).equals(expected.segments)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["golden_queries.tsv", "log.tsv", "segments.parquet"]


def test_sample_to_stdout(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = _log(tmp_path)
    assert main(["sample", str(log), "-n", "5", "--seed", "3", "--within", "uniform"]) == 0
    captured = capsys.readouterr()
    rows = captured.out.splitlines()
    assert rows[0].split("\t")[:3] == ["query_id", "traffic", "n_rows"]
    assert len(rows) == 6
    assert captured.err.startswith("5 of 40 queries (")


def test_sample_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = _log(tmp_path)
    assert main(["sample", str(log), "-n", "2", "--by", "segment", "--min-per-segment", "1"]) == 2
    assert "floors need n >= 3" in capsys.readouterr().err
    assert (
        main(["sample", str(log), "-n", "2", "--by", "intent"]) == 2
    )  # issue 34: data errors exit 2, as usage errors (was 1)
    err = capsys.readouterr().err
    assert "no segment column 'intent'" in err
    assert (
        main(["sample", str(tmp_path / "nope.tsv"), "-n", "2"]) == 2
    )  # issue 34: data errors exit 2, as usage errors (was 1)


# --- agreement -------------------------------------------------------------------------------------
def test_agreement_of_two_files_with_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    llm = _llm(tmp_path)
    per_q, dis = tmp_path / "per_query.csv", tmp_path / "dis.tsv"
    args = ["agreement", QRELS, str(llm), "--run", BM25, "--run", DENSE, "--run", HYBRID, "-m", "nDCG@10"]
    assert (
        main(
            [
                *args,
                "--scale",
                "0,1,2,3",
                "--per-query",
                str(per_q),
                "--disagreements",
                str(dis),
                "-f",
                "table",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    lib = irframe.agreement(
        {
            "qrels": golden().qrels,
            "llm": pl.read_csv(llm, separator="\t", schema_overrides={"query_id": pl.String}),
        },
        scale=[0, 1, 2, 3],
        runs=golden().runs,
        measures="nDCG@10",
    )
    assert out == lib.to_text() + "\n"
    assert "ranks the 3 systems" in out.splitlines()[-1]
    assert pl.read_csv(per_q).height == lib.per_query.height
    assert pl.read_csv(dis, separator="\t").height == lib.disagreements.height


def test_agreement_stacked_file_and_tsv(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    stacked = pl.concat([
        golden().qrels.with_columns(source=pl.lit("human")),
        pl.read_csv(_llm(tmp_path), separator="\t", schema_overrides={"query_id": pl.String}).with_columns(
            source=pl.lit("llm")
        ),
    ])  # fmt: skip
    path = tmp_path / "judged.parquet"
    stacked.write_parquet(path)
    assert main(["agreement", str(path), "--judge-col", "source", "-f", "json"]) == 0
    pairs = json.loads(capsys.readouterr().out)
    assert pairs[0]["judge_a"] == "human"
    assert pairs[0]["n_common"] == 148


def test_agreement_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["agreement", QRELS]) == 2
    assert "no judge column 'judge': give one QRELS file per judge" in capsys.readouterr().err
    assert (
        main(["agreement", QRELS, str(_llm(tmp_path)), "--scale", "0,1"]) == 2
    )  # issue 34: data errors exit 2, as usage errors (was 1)
    assert "outside the declared scale" in capsys.readouterr().err
    assert main(["agreement", QRELS, str(_llm(tmp_path)), "--scale", "a,b"]) == 2


# --- power -----------------------------------------------------------------------------------------
def test_power_of_two_runs(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["power", QRELS, BM25, HYBRID, "-m", "nDCG@10", "--effect", "0.05", "-f", "json"]) == 0
    row = json.loads(capsys.readouterr().out)[0]
    g = golden()
    per_q = irframe.evaluate(g.runs, ["nDCG@10"], g.qrels, by="system", per_query=True)
    frames = {s: per_q.filter(pl.col("system") == s).drop("system") for s in ("bm25", "hybrid")}
    lib = irframe.power(frames, "nDCG@10", effect=0.05).row(0, named=True)
    assert row["design"] == "paired deltas"
    assert row["mde"] == pytest.approx(lib["mde"])
    assert row["n_needed"] == lib["n_needed"]
    assert main(["power", QRELS, BM25, HYBRID, "-f", "table", "--effect", "0.05"]) == 0
    out = capsys.readouterr().out
    assert lib["summary"] in out
    assert f"a change of 0.05 nDCG@10 needs {lib['n_needed']} queries" in out
    assert "paired deltas of hybrid - bm25" in out


def test_power_of_one_run(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(["power", QRELS, BM25, "-m", "RR", "--correlation", "0.5", "--n-queries", "100", "-f", "table"])
        == 0
    )
    out = capsys.readouterr().out
    assert "with 100 queries, changes of " in out
    assert "one run (bm25): deltas assumed to vary as 2 x var(values) x (1 - 0.5)" in out


def test_power_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["power", QRELS, BM25, DENSE, HYBRID]) == 2
    assert "one run (baseline) or two" in capsys.readouterr().err
    assert main(["power", QRELS, BM25, "--power", "0.01"]) == 2
    assert "must exceed alpha" in capsys.readouterr().err
    assert main(["power", QRELS, BM25, HYBRID, "--correlation", "0.5"]) == 2


# --- atomic writes ---------------------------------------------------------------------------------
def test_a_failed_write_leaves_the_old_file_and_no_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "out.tsv"
    target.write_text("old\n")

    def fail(self: pl.DataFrame, file: Path, **_: object) -> None:
        Path(file).write_text("half")
        raise OSError("disk full")

    monkeypatch.setattr(pl.DataFrame, "write_csv", fail)
    with pytest.raises(OSError, match="disk full"):
        write_frame(pl.DataFrame({"a": [1]}), target)
    assert target.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.tsv"]
    monkeypatch.undo()
    write_frame(pl.DataFrame({"a": [1]}), target)
    assert target.read_text() == "a\n1\n"


@pytest.mark.parametrize("fmt", ["table", "tsv", "csv", "json"])
def test_agreement_and_power_keep_their_verdict_in_every_format(
    fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 45: in CI (standard output not a terminal: tsv) the verdict line was dropped. It is
    under the table with -f table, on standard error with tsv, csv and json (the table stays
    machine-readable); the verdicts are the library's (to_text, the power table's summary)."""
    judges = [QRELS, str(_llm(tmp_path))]
    assert main(["agreement", *judges, "-f", fmt]) == 0
    out, err = capsys.readouterr()
    headline = irframe.agreement(pl.concat([
        golden().qrels.with_columns(judge=pl.lit("qrels")),
        pl.read_csv(judges[1], separator="\t", schema_overrides={"query_id": pl.String}).with_columns(
            judge=pl.lit("llm")
        ),
    ])).to_text().split("\n", 1)[0]  # fmt: skip
    assert "alpha (ordinal, all judges)" in headline
    assert headline.split("; ", 1)[1] in (out if fmt == "table" else err)
    assert main(["power", QRELS, BM25, HYBRID, "-f", fmt]) == 0
    out, err = capsys.readouterr()
    g = golden()
    per_q = irframe.evaluate(g.runs, ["nDCG@10"], g.qrels, by="system", per_query=True)
    frames = {s: per_q.filter(pl.col("system") == s).drop("system") for s in ("bm25", "hybrid")}
    verdict = irframe.power(frames, "nDCG@10")["summary"][0]  # "with 40 queries, changes of ..."
    shown = out if fmt == "table" else err
    assert verdict in shown
    assert "paired deltas of hybrid - bm25" in shown
    if fmt != "table":
        assert shown.startswith("irframe: ")
        assert "paired deltas of" not in out  # the table alone on standard output
    if fmt == "tsv":
        assert pl.read_csv(io.StringIO(out), separator="\t")["summary"][0] == verdict
    assert main(["power", QRELS, BM25, HYBRID, "-f", fmt, "--quiet"]) == 0
    assert capsys.readouterr().err == ""
