"""write_trec_run -> read_trec_run -> evaluate gives the numbers of the frame written (issue 15, item 7)."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

import irframe
from irframe.exceptions import InvalidParameterError
from irframe.io import TrecFormatError, read_trec_qrels, read_trec_run, write_trec_qrels, write_trec_run

MEASURES = ["P@1", "P@3", "RR", "AP", "nDCG@3", "nDCG@10", "R@2"]


def _round_trip(tmp_path: Path, run: pl.DataFrame, qrels: pl.DataFrame) -> None:
    write_trec_run(run, tmp_path / "r.run", tag="rt")
    write_trec_qrels(qrels, tmp_path / "q.txt")
    back_run = read_trec_run(tmp_path / "r.run")
    back_qrels = read_trec_qrels(tmp_path / "q.txt")
    want = irframe.evaluate(run, MEASURES, qrels, per_query=True)
    got = irframe.evaluate(back_run, MEASURES, back_qrels, per_query=True)
    want = want.with_columns(pl.col("query_id").cast(pl.String)).sort("query_id")
    assert got.sort("query_id").rows() == want.rows()


def _qrels(ids: list[object]) -> pl.DataFrame:
    grades = [2, 0, 1, 1, 3, 0, 1]
    return pl.DataFrame(
        {
            "query_id": ["q1"] * len(ids) + ["q2"] * 2,
            "doc_id": [*ids, ids[0], ids[-1]],
            "relevance": [grades[i % len(grades)] for i in range(len(ids))] + [1, 2],
        }
    )


STR_IDS = ["a", "b", "B", "aa", "a0", "\u00e9", "z"]
INT_IDS = [9, 10, 100, 1, 99, 1000, 11]


@pytest.mark.parametrize("ids", [STR_IDS, INT_IDS], ids=["str-ids", "int-ids"])
def test_tied_scores(tmp_path: Path, ids: list[object]) -> None:
    n = len(ids)
    run = pl.DataFrame(
        {
            "query_id": ["q1"] * n + ["q2"] * n,
            "doc_id": ids + ids,
            "score": [1.0, 1.0, 2.0, 1.0, 0.5, 2.0, 1.0] + [0.0] * n,  # q2: all tied
        }
    )
    _round_trip(tmp_path, run, _qrels(ids))


@pytest.mark.parametrize("ids", [STR_IDS, INT_IDS], ids=["str-ids", "int-ids"])
@pytest.mark.parametrize("with_score", [True, False])
def test_tied_ranks(tmp_path: Path, ids: list[object], with_score: bool) -> None:
    n = len(ids)
    run = pl.DataFrame(
        {
            "query_id": ["q1"] * n + ["q2"] * n,
            "doc_id": ids + ids,
            "rank": [1, 1, 2, 3, 3, 3, 4] + [1] * n,  # q2: all tied
            "score": [0.1, 0.9, 0.5, 0.5, 0.7, 0.2, 0.3] + [float(i) for i in range(n)],
        }
    )
    if not with_score:
        run = run.drop("score")
    _round_trip(tmp_path, run, _qrels(ids))


def test_integer_ids_tie_as_strings_in_the_file(tmp_path: Path) -> None:
    # all tied: doc ids descending as strings, "9" > "100" > "10" (not 100 > 10 > 9)
    run = pl.DataFrame({"query_id": ["q"] * 3, "doc_id": [10, 9, 100], "score": [1.0, 1.0, 1.0]})
    write_trec_run(run, tmp_path / "r.run")
    assert [ln.split()[2] for ln in (tmp_path / "r.run").read_text().splitlines()] == ["9", "100", "10"]
    ranked = pl.DataFrame({"query_id": ["q"] * 3, "doc_id": [10, 9, 100], "rank": [1, 1, 1]})
    write_trec_run(ranked, tmp_path / "r.run")
    assert [ln.split()[2] for ln in (tmp_path / "r.run").read_text().splitlines()] == ["9", "100", "10"]


@pytest.mark.parametrize("tag", ["", "my run", "a\tb", " x", "x\n"])
def test_tag_with_whitespace_or_empty_is_refused(tmp_path: Path, tag: str) -> None:
    run = pl.DataFrame({"query_id": ["q"], "doc_id": ["d"], "score": [1.0]})
    with pytest.raises(InvalidParameterError, match="'tag' parameter of write_trec_run"):
        write_trec_run(run, tmp_path / "r.run", tag=tag)
    assert not (tmp_path / "r.run").exists()


@pytest.mark.parametrize("value", ["", "my run"])
def test_tag_column_with_whitespace_or_empty_is_refused(tmp_path: Path, value: str) -> None:
    run = pl.DataFrame(
        {"query_id": ["q", "q"], "doc_id": ["d", "e"], "score": [1.0, 0.0], "sys": ["ok", value]}
    )
    with pytest.raises(TrecFormatError, match="'sys'"):
        write_trec_run(run, tmp_path / "r.run", tag_col="sys")


def test_empty_ids_are_refused(tmp_path: Path) -> None:
    run = pl.DataFrame({"query_id": ["q", "q"], "doc_id": ["d", ""], "score": [1.0, 0.0]})
    with pytest.raises(TrecFormatError, match="'doc_id' has an empty value"):
        write_trec_run(run, tmp_path / "r.run")
    qrels = pl.DataFrame({"query_id": [""], "doc_id": ["d"], "relevance": [1]})
    with pytest.raises(TrecFormatError, match="'query_id' has an empty value"):
        write_trec_qrels(qrels, tmp_path / "q.txt")
