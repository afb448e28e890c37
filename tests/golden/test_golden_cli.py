"""``irframe pool`` and ``irframe judgments merge``, run in-process.

The runs are those of test_golden_pool.py (depth 3): A q1 d1 d3 d2, q2 d8 d7; B q1 d5 d3 d1,
q10 d1; qrels q1 d1 = 1, q2 d7 = 0.  To judge, by priority: q1 d3, q1 d5, q2 d8, q10 d1, q1 d2.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from irframe.cli import main

RUN_A = (
    "q1 Q0 d1 1 3.0 A\nq1 Q0 d2 2 2.0 A\nq1 Q0 d3 3 2.0 A\nq1 Q0 d4 4 1.0 A\n"
    "q2 Q0 d7 1 1.0 A\nq2 Q0 d8 2 1.0 A\n"
)
RUN_B = "q1 Q0 d5 1 4.0 B\nq1 Q0 d3 2 3.0 B\nq1 Q0 d1 3 2.0 B\nq1 Q0 d9 4 1.0 B\nq10 Q0 d1 1 5.0 B\n"
QRELS = "q1 0 d1 1\nq2 0 d7 0\n"
TO_JUDGE = [("q1", "d3"), ("q1", "d5"), ("q2", "d8"), ("q10", "d1"), ("q1", "d2")]


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    out = {}
    for name, text in (("a.run", RUN_A), ("b.run", RUN_B), ("qrels.txt", QRELS)):
        (tmp_path / name).write_text(text)
        out[name] = str(tmp_path / name)
    return out


def test_pool_writes_a_sheet(
    files: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sheet = tmp_path / "to_judge.tsv"
    code = main(
        ["pool", files["qrels.txt"], files["a.run"], files["b.run"], "--depth", "3", "-o", str(sheet)]
    )
    assert code == 0
    err = capsys.readouterr().err
    assert "pool at depth 3 of 2 systems over 3 queries: 7 pairs, 2 already judged, 5 to judge" in err
    df = pl.read_csv(sheet, separator="\t", infer_schema=False)
    assert df.columns == [
        "query_id",
        "doc_id",
        "grade",
        "judge",
        "judged_at",
        "priority",
        "n_systems",
        "best_rank",
    ]
    assert df.select("query_id", "doc_id").rows() == TO_JUDGE


def test_pool_formats_and_stdout(
    files: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["pool", files["qrels.txt"], files["a.run"], files["b.run"], "-d", "3"]
    assert main([*args, "-f", "trec", "--quiet"]) == 0
    out = capsys.readouterr()
    assert out.out == "".join(f"{q} 0 {d} ?\n" for q, d in TO_JUDGE)
    assert out.err == ""
    assert main([*args, "-f", "csv", "--no-judge-columns", "--sort", "query"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "query_id,doc_id,grade,priority,n_systems,best_rank"
    assert [tuple(line.split(",")[:2]) for line in lines[1:]] == [
        ("q1", "d3"), ("q1", "d5"), ("q1", "d2"), ("q2", "d8"), ("q10", "d1"),
    ]  # fmt: skip
    out_file = tmp_path / "pool.parquet"
    cover = tmp_path / "coverage.tsv"
    assert main([*args, "-o", str(out_file), "--coverage", str(cover)]) == 0
    assert pl.read_parquet(out_file).height == 5
    assert pl.read_csv(cover, separator="\t").rows()[0] == ("A", "q1", 3, 1, 2, pytest.approx(1 / 3))


def test_pool_without_qrels(files: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["pool", "--no-qrels", files["a.run"], "-d", "1", "-f", "trec"]) == 0
    assert capsys.readouterr().out == "q1 0 d1 ?\nq2 0 d8 ?\n"
    # a single positional without --no-qrels: QRELS with no run
    assert main(["pool", files["a.run"]]) == 2
    assert "expected QRELS RUN [RUN ...]; with nothing judged yet, pass --no-qrels" in capsys.readouterr().err


def test_pool_with_texts(files: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    queries = tmp_path / "queries.tsv"
    queries.write_text("query_id\ttext\nq1\tcheap flights\nq2\tweather\nq10\tnews\n")
    docs = tmp_path / "docs.csv"
    docs.write_text('doc_id,title,body\nd3,Three,"third, doc"\nd5,Five,fifth\n')
    code = main([
        "pool", files["qrels.txt"], files["a.run"], files["b.run"], "-d", "3", "-f", "tsv",
        "--queries", str(queries), "--documents", str(docs),
        "--doc-text-col", "title", "--doc-text-col", "body",
    ])  # fmt: skip
    assert code == 0
    df = pl.read_csv(capsys.readouterr().out.encode(), separator="\t", infer_schema=False)
    assert df.columns[:5] == ["query_id", "query_text", "doc_id", "doc_title", "doc_body"]
    assert df.row(0)[:5] == ("q1", "cheap flights", "d3", "Three", "third, doc")
    assert df.row(2)[:5] == ("q2", "weather", "d8", None, None)


def test_pool_errors(files: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the output is one of the inputs: refused (usage error), nothing written
    assert main(["pool", files["qrels.txt"], files["a.run"], "-o", files["a.run"], "-f", "tsv"]) == 2
    assert "the output" in capsys.readouterr().err
    assert Path(files["a.run"]).read_text() == RUN_A
    assert main(["pool", files["qrels.txt"], files["a.run"], "-d", "0"]) == 2
    assert "'depth' parameter of pool must be an int >= 1" in capsys.readouterr().err
    assert main(["pool", files["qrels.txt"], files["a.run"], "-o", str(tmp_path / "x.xlsx")]) == 2
    assert "cannot tell the format" in capsys.readouterr().err
    dup = tmp_path / "dup.run"
    dup.write_text("q1 Q0 d1 1 2.0 X\nq1 Q0 d1 2 1.0 X\n")
    assert main(["pool", files["qrels.txt"], str(dup)]) == 2  # a data error (issue 34: was 1)
    assert "--duplicates first" in capsys.readouterr().err
    assert main(["pool", files["qrels.txt"], str(dup), "--duplicates", "first", "--quiet"]) == 0
    # a documents table is named as such (it was called "the queries file")
    assert main(["pool", files["qrels.txt"], files["a.run"], "--documents", str(tmp_path / "nope.tsv")]) == 2
    assert "the documents file" in capsys.readouterr().err
    headerless = tmp_path / "docs.txt"
    headerless.write_text("d1\n")
    assert main(["pool", files["qrels.txt"], files["a.run"], "--documents", str(headerless)]) == 2
    err = capsys.readouterr().err
    assert "the documents file" in err
    assert "TSV of doc_id, text" in err


def _filled_sheet(files: dict[str, str], tmp_path: Path) -> Path:
    sheet = tmp_path / "to_judge.tsv"
    assert (
        main(
            [
                "pool",
                files["qrels.txt"],
                files["a.run"],
                files["b.run"],
                "-d",
                "3",
                "-o",
                str(sheet),
                "--quiet",
            ]
        )
        == 0
    )
    grades = {"d3": "2", "d5": "0", "d8": "1", "d1": "1"}  # q1 d2 left empty
    df = pl.read_csv(sheet, separator="\t", infer_schema=False)
    df = df.with_columns(grade=pl.col("doc_id").replace_strict(grades, default=None), judge=pl.lit("ann"))
    df.write_csv(sheet, separator="\t")
    return sheet


def test_merge_round_trip(files: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sheet = _filled_sheet(files, tmp_path)
    out = tmp_path / "qrels.new"
    changes = tmp_path / "changes.tsv"
    code = main(["judgments", "merge", files["qrels.txt"], str(sheet), "-o", str(out), "--scale", "0-3",
                 "--changes", str(changes)])  # fmt: skip
    assert code == 0
    err = capsys.readouterr().err
    assert "5 sheet rows: 4 added, 0 unchanged (same grade again), 1 not judged yet" in err
    assert "note: TREC qrels hold no judge, judged_at column(s); -f tsv keeps them" in err
    assert out.read_text() == "q1 0 d1 1\nq1 0 d3 2\nq1 0 d5 0\nq2 0 d7 0\nq2 0 d8 1\nq10 0 d1 1\n"
    assert pl.read_csv(changes, separator="\t").get_column("action").to_list() == [
        "added", "added", "added", "added", "not judged",
    ]  # fmt: skip
    # the merged qrels evaluate: A's P@3 on q1: d1, d3 relevant (d2 not judged) = 2/3; q2: d8 = 1/3;
    # q10 is not in A's run (0, trec_eval -c)
    assert main(["eval", str(out), files["a.run"], "-m", "P@3", "-q", "-f", "tsv"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "system\tquery_id\tP@3", "A\tq1\t0.6667", "A\tq2\t0.3333", "A\tq10\t0.0",
    ]  # fmt: skip
    # a table output keeps the judge column
    table = tmp_path / "qrels.tsv"
    assert main(["judgments", "merge", files["qrels.txt"], str(sheet), "-o", str(table), "--quiet"]) == 0
    assert pl.read_csv(table, separator="\t").columns == [
        "query_id",
        "doc_id",
        "relevance",
        "judge",
        "judged_at",
    ]


def test_merge_conflicts_and_errors(
    files: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stub = tmp_path / "s.qrels"
    stub.write_text(
        "q1 0 d1 3\nq2 0 d7 ?\nq5 0 dx 1\n"
    )  # d1 re-judged 3 (qrels: 1); q5 dx not asked: no marker
    args = ["judgments", "merge", files["qrels.txt"], str(stub)]
    assert main(args) == 2  # issue 34: data errors exit 2, as usage errors (was 1)
    assert (
        "('q1', 'd1', 'qrels 1, sheet 3'). Hint: say which grade wins: --on-conflict sheet"
        in capsys.readouterr().err
    )
    assert main([*args, "--on-conflict", "sheet"]) == 0
    captured = capsys.readouterr()
    assert captured.out == "q1 0 d1 3\nq2 0 d7 0\nq5 0 dx 1\n"
    assert "1 changed (the sheet's grade won)" in captured.err
    assert (
        main([*args, "--on-conflict", "qrels", "--scale", "0,1,2"]) == 2
    )  # issue 34: data errors exit 2, as usage errors (was 1)
    assert "outside the scale [0, 1, 2]" in capsys.readouterr().err
    assert main([*args, "-o", files["qrels.txt"]]) == 2  # the output is an input
    assert Path(files["qrels.txt"]).read_text() == QRELS
    assert main(["judgments", "merge", str(stub)]) == 2
    assert "expected QRELS SHEET (or --no-qrels SHEET), got 1 files" in capsys.readouterr().err
    assert main(["judgments", "merge", "--no-qrels", str(stub), "--on-conflict", "sheet"]) == 0
    assert capsys.readouterr().out == "q1 0 d1 3\nq5 0 dx 1\n"
    assert main(["judgments"]) == 2
    # issue 34: main returns argparse's usage code (it raised SystemExit)
    assert main(["judgments", "merge", "--no-qrels", str(stub), "--scale", "3-1"]) == 2
    assert "expected LOW-HIGH with LOW <= HIGH, got '3-1'" in capsys.readouterr().err


def test_merge_unasked_rows_of_a_pool_sheet(
    files: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sheet = _filled_sheet(files, tmp_path)
    text = sheet.read_text() + "q1\tnew\t1\tann\t\t\t\t\n"  # a row typed in by hand: no n_systems
    sheet.write_text(text)
    assert (
        main(["judgments", "merge", files["qrels.txt"], str(sheet)]) == 2
    )  # issue 34: data errors exit 2, as usage errors (was 1)
    assert "not in the pool the sheet was written from" in capsys.readouterr().err
    assert main(["judgments", "merge", files["qrels.txt"], str(sheet), "--unasked", "add", "--quiet"]) == 0
    assert "q1 0 new 1\n" in capsys.readouterr().out
