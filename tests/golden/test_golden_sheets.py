"""Judging sheets: writers (atomic), readers, and the loop pool -> sheet -> merge -> evaluate."""

from __future__ import annotations

import io
import os
from pathlib import Path

import polars as pl
import pytest

import irframe
from irframe.exceptions import InvalidParameterError, TrecFormatError
from irframe.io import (
    read_judging_sheet,
    read_trec_qrels,
    write_judging_sheet,
    write_qrels_stub,
    write_trec_qrels,
)
from irframe.io.sheets import atomic_write

PAIRS = pl.DataFrame(
    {"query_id": ["q1", "q2"], "doc_id": ["d1", "007"], "doc_text": ["tab\there", 'line\nbreak, "quoted"'],
     "priority": [1.5, 1.0], "n_systems": [2, 1], "best_rank": [1, 1]}
)  # fmt: skip


@pytest.mark.parametrize("name", ["s.tsv", "s.csv", "s.parquet"])
def test_sheet_round_trip(tmp_path: Path, name: str) -> None:
    out = tmp_path / name
    write_judging_sheet(PAIRS, out)
    back = read_judging_sheet(out)
    assert back.columns == [
        "query_id", "doc_id", "doc_text", "grade", "judge", "judged_at", "priority", "n_systems", "best_rank",
    ]  # fmt: skip
    assert back.get_column("doc_text").to_list() == PAIRS.get_column("doc_text").to_list()
    assert back.get_column("doc_id").to_list() == ["d1", "007"]  # text formats keep ids as text
    assert back.get_column("grade").null_count() == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]  # no temporary file left


def test_sheet_options_and_formats(tmp_path: Path) -> None:
    out = tmp_path / "sheet.data"
    with pytest.raises(InvalidParameterError, match=r"cannot tell the format of .*sheet\.data.*format='tsv'"):
        write_judging_sheet(PAIRS, out)
    write_judging_sheet(
        PAIRS.select("query_id", "doc_id"), out, format="csv", judge_col=None, timestamp_col="when"
    )
    assert out.read_text().splitlines() == ["query_id,doc_id,grade,when", "q1,d1,,", "q2,007,,"]
    with pytest.raises(InvalidParameterError, match="'format' parameter of write_judging_sheet"):
        write_judging_sheet(PAIRS, out, format="xlsx")


def test_qrels_stub(tmp_path: Path) -> None:
    out = tmp_path / "to_judge.qrels"
    write_judging_sheet(PAIRS, out)  # .qrels: a stub
    assert out.read_text() == "q1 0 d1 ?\nq2 0 007 ?\n"
    out.write_text("q1 0 d1 2\n# a note\n\nq2\t0\t007   ?\n")
    assert read_judging_sheet(out).rows() == [("q1", "d1", "2"), ("q2", "007", None)]
    out.write_text("q1 0 d1 2\nq2 0 007\n")
    with pytest.raises(TrecFormatError, match=r"to_judge\.qrels:2: malformed qrels stub line: expected 4"):
        read_judging_sheet(out)
    with pytest.raises(TrecFormatError, match="whitespace"):
        write_qrels_stub(pl.DataFrame({"query_id": ["q 1"], "doc_id": ["d"]}), out)
    assert out.read_text() == "q1 0 d1 2\nq2 0 007\n"  # a refused write leaves the file as it was


def test_atomic_write_keeps_the_old_file_on_error(tmp_path: Path) -> None:
    out = tmp_path / "qrels.txt"
    out.write_text("old\n")
    out.chmod(0o640)

    def interrupted() -> None:
        with atomic_write(out) as tmp:
            tmp.write_text("half")
            raise RuntimeError

    with pytest.raises(RuntimeError):
        interrupted()
    assert out.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["qrels.txt"]
    with atomic_write(out) as tmp:
        tmp.write_text("new\n")
    assert out.read_text() == "new\n"
    assert os.stat(out).st_mode & 0o777 == 0o640  # a replaced file keeps its mode


def test_read_stub_from_a_file_object() -> None:
    got = read_judging_sheet(io.BytesIO(b"q1 0 d1 ?\n"), format="trec", grade_col="rel")
    assert got.columns == ["query_id", "doc_id", "rel"]


def test_loop_pool_sheet_merge_evaluate(tmp_path: Path) -> None:
    """Pool two systems, judge the sheet, merge, and evaluate with the new qrels.

    A: q1 d1 d3 d2 (score, d2/d3 tie: d3 first), q2 d8 d7 (tie: d8 first)
    B: q1 d5 d3 d1, q10 d1
    qrels before: q1 d1 = 1, q2 d7 = 0.  The judge grades: q1 d3 = 2, d5 = 0, d2 = 1,
    q2 d8 = 1, q10 d1 = 1.
    P@3 after: A q1 3/3 = 1, q2 1/3, q10 0 (missing, counted as 0);
               B q1 d3, d1 relevant = 2/3, q2 0 (missing), q10 1/3.
    """
    runs = {
        "A": pl.DataFrame({"query_id": ["q1"] * 4 + ["q2"] * 2,
                           "doc_id": ["d1", "d2", "d3", "d4", "d7", "d8"],
                           "score": [3.0, 2.0, 2.0, 1.0, 1.0, 1.0]}),
        "B": pl.DataFrame({"query_id": ["q1"] * 4 + ["q10"], "doc_id": ["d5", "d3", "d1", "d9", "d1"],
                           "score": [4.0, 3.0, 2.0, 1.0, 5.0]}),
    }  # fmt: skip
    qrels = pl.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["d1", "d7"], "relevance": [1, 0]})
    p = irframe.pool(runs, qrels, depth=3)
    sheet_path = tmp_path / "to_judge.tsv"
    p.write_sheet(sheet_path)
    grades = pl.DataFrame({"query_id": ["q1", "q1", "q1", "q2", "q10"],
                           "doc_id": ["d3", "d5", "d2", "d8", "d1"],
                           "g": ["2", "0", "1", "1", "1"]})  # fmt: skip
    sheet = read_judging_sheet(sheet_path)
    assert sheet.height == 5
    filled = sheet.join(grades, on=["query_id", "doc_id"], how="left", maintain_order="left").with_columns(
        grade=pl.col("g"), judge=pl.lit("ann")
    )
    m = irframe.add_judgments(qrels, filled)
    assert m.counts == {"added": 5, "changed": 0, "kept": 0, "unchanged": 0, "not judged": 0}
    out = tmp_path / "qrels.txt"
    write_trec_qrels(m.qrels, out)
    assert out.read_text() == (
        "q1 0 d1 1\nq1 0 d2 1\nq1 0 d3 2\nq1 0 d5 0\nq2 0 d7 0\nq2 0 d8 1\nq10 0 d1 1\n"
    )
    new = read_trec_qrels(out)
    for name, want in {
        "A": {"q1": 1.0, "q2": 1 / 3, "q10": 0.0},
        "B": {"q1": 2 / 3, "q2": 0.0, "q10": 1 / 3},
    }.items():
        ev = irframe.evaluate(runs[name], ["P@3", "Judged@3"], new, per_query=True)
        got = {q: v for q, v, _ in ev.iter_rows()}
        assert got == pytest.approx(want)
    # nothing left to judge at depth 3
    assert irframe.pool(runs, new, depth=3).n_to_judge == 0
