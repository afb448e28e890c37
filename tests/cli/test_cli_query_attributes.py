"""``irframe eval --by COL`` where only the qrels carry COL (a query attribute).

The CLI hands the rule to ``evaluate`` (``irframe._input.queries``, one rule for every
backend); expected means are computed by hand below.
"""

from __future__ import annotations

import io
from pathlib import Path

import polars as pl
import pytest

from irframe.cli import main

# q1: first relevant at rank 2 -> RR 1/2; q2: rank 1 -> 1; q3: none retrieved -> 0
RUN = "q1 Q0 a 1 3.0 t\nq1 Q0 b 2 2.0 t\nq2 Q0 c 1 1.0 t\nq3 Q0 d 1 1.0 t\n"
QRELS = {
    "query_id": ["q1", "q1", "q2", "q3"],
    "doc_id": ["a", "b", "c", "x"],
    "relevance": [0, 1, 1, 1],
    "segment": ["head", "head", "tail", "tail"],
}


def _files(tmp_path: Path, qrels: dict[str, list[object]]) -> list[str]:
    (tmp_path / "a.run").write_text(RUN)
    pl.DataFrame(qrels).write_csv(tmp_path / "qrels.csv")
    return [str(tmp_path / "qrels.csv"), str(tmp_path / "a.run")]


def test_by_a_column_only_the_qrels_carry(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", *_files(tmp_path, QRELS), "-m", "RR", "--by", "segment", "-f", "csv"]) == 0
    got = pl.read_csv(io.StringIO(capsys.readouterr().out)).sort("segment")
    assert got["segment"].to_list() == ["head", "tail"]
    assert got["RR"].to_list() == pytest.approx([0.5, (1.0 + 0.0) / 2])


def test_a_query_with_two_values_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = {**QRELS, "segment": ["head", "tail", "tail", "tail"]}
    assert (
        main(["eval", *_files(tmp_path, bad), "-m", "RR", "--by", "segment", "-f", "csv"]) == 2
    )  # issue 34: data errors exit 2, as usage errors (was 1)
    err = capsys.readouterr().err
    assert "'q1'" in err
    assert "several values" in err
    assert "segment" in err
