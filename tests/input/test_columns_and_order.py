"""Issue 12 items 1 and 2: column conventions (presets, mappings, detection) and order=."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

import irframe
from _support.helpers import to_polars
from irframe.cli import main
from irframe.exceptions import InvalidDataError, InvalidParameterError

# q1: b (relevant) is 2nd by rank and 1st by score; q2: a (relevant) is 1st either way.
BASE = {
    "doc": ["a", "b", "c", "a", "d"],
    "score": [0.1, 0.9, 0.5, 2.0, 1.0],
    "rank": [1, 2, 3, 1, 2],
}
# RR by hand: by score, q1 -> b first -> 1.0, q2 -> 1.0; by rank, q1 -> b at 2 -> 0.5, q2 -> 1.0
RR_SCORE, RR_RANK = 1.0, 0.75


def pyterrier_frames() -> tuple[dict[str, list[object]], pl.DataFrame]:
    run = {
        "qid": ["1", "1", "1", "2", "2"],
        "docno": BASE["doc"],
        "score": BASE["score"],
        "rank": BASE["rank"],
    }
    qrels = pl.DataFrame({"qid": ["1", "2"], "docno": ["b", "a"], "label": [1, 1]})
    return run, qrels


def test_pyterrier_preset_and_detection(constructor) -> None:  # type: ignore[no-untyped-def]
    run, qrels = pyterrier_frames()
    for kw in ({"columns": "pyterrier"}, {}):  # named, then detected
        got = to_polars(irframe.evaluate(constructor(run), ["RR"], qrels, order="score", **kw))
        assert got["RR"][0] == RR_SCORE
    pq = to_polars(irframe.evaluate(constructor(run), ["RR"], qrels, order="rank", per_query=True))
    assert pq.columns == ["qid", "RR"]  # the caller's own column names
    assert pq["RR"].to_list() == [0.5, 1.0]


def test_ir_measures_and_ranx_presets_rank_by_score() -> None:
    run = pl.DataFrame({"query_id": ["1"] * 3 + ["2"] * 2, "doc_id": BASE["doc"], "score": BASE["score"],
                        "rank": BASE["rank"]})  # fmt: skip
    qrels = pl.DataFrame({"query_id": ["1", "2"], "doc_id": ["b", "a"], "relevance": [1, 1]})
    assert irframe.evaluate(run, ["RR"], qrels, columns="ir_measures")["RR"][0] == RR_SCORE
    ranx_run = run.rename({"query_id": "q_id"}).drop("rank")
    ranx_qrels = qrels.rename({"query_id": "q_id", "relevance": "score"})
    assert irframe.evaluate(ranx_run, ["RR"], ranx_qrels, columns="ranx")["RR"][0] == RR_SCORE
    assert irframe.evaluate(ranx_run, ["RR"], ranx_qrels)["RR"][0] == RR_SCORE  # detected


def test_mapping_and_explicit_names_win() -> None:
    run = pl.DataFrame({"topic": ["1"] * 3 + ["2"] * 2, "docid": BASE["doc"], "sim": BASE["score"]})
    qrels = pl.DataFrame({"topic": ["1", "2"], "docid": ["b", "a"], "grade": [1, 1]})
    cols = {"query": "topic", "doc": "docid", "score": "sim", "qrels_relevance": "grade"}
    assert irframe.evaluate(run, ["RR"], qrels, columns=cols)["RR"][0] == RR_SCORE
    with pytest.raises(InvalidParameterError, match="columns"):
        irframe.evaluate(run, ["RR"], qrels, columns={"querry": "topic"})
    with pytest.raises(InvalidParameterError, match="did you mean 'pyterrier'"):
        irframe.evaluate(run, ["RR"], qrels, columns="pyterier")


def test_several_matching_conventions_raise_naming_them() -> None:
    run = pl.DataFrame({"qid": ["1"], "docno": ["a"], "q_id": ["1"], "doc_id": ["a"], "score": [1.0]})
    with pytest.raises(InvalidParameterError, match="'pyterrier', 'ranx'"):
        irframe.evaluate(run, ["RR"], run.select("qid", "docno", "q_id", "doc_id", pl.lit(1).alias("label")))


def test_rank_and_score_disagreeing_raise(constructor) -> None:  # type: ignore[no-untyped-def]
    run, qrels = pyterrier_frames()
    with pytest.raises(InvalidDataError) as info:
        to_polars(irframe.evaluate(constructor(run), ["RR"], qrels))
    msg = str(info.value)
    assert "disagree in 1 of 2 queries" in msg
    assert "query '1'" in msg
    assert "order='rank' or order='score'" in msg
    assert "__ir" not in msg


def test_agreeing_rank_and_score_and_ties() -> None:
    # rank and score agree (ties in score allowed); ties are broken by doc id descending
    run = pl.DataFrame({"query_id": ["1"] * 3, "doc_id": ["a", "b", "c"], "score": [1.0, 1.0, 0.5],
                        "rank": [2, 1, 3], "relevance": [1, 0, 0]})  # fmt: skip
    assert irframe.evaluate(run, ["RR"])["RR"][0] == 0.5  # rank: b, a
    assert irframe.evaluate(run, ["RR"], order="score")["RR"][0] == 0.5  # tie a/b: b first
    assert irframe.evaluate(run.drop("rank"), ["RR"], order="score")["RR"][0] == 0.5
    with pytest.raises(InvalidParameterError, match="order"):
        irframe.evaluate(run, ["RR"], order="best")  # type: ignore[arg-type]


def test_order_rank_without_rank_column_names_it() -> None:
    run = pl.DataFrame({"query_id": ["1"], "doc_id": ["a"], "score": [1.0], "relevance": [1]})
    with pytest.raises(irframe.IrFrameError, match="rank"):
        irframe.evaluate(run, ["RR"], order="rank")


def test_compare_and_moved_take_presets() -> None:
    run, qrels = pyterrier_frames()
    first = pl.DataFrame(run).with_columns(-pl.col("rank").cast(pl.Float64).alias("score")).drop("rank")
    runs = {"first": first, "second": pl.DataFrame(run).drop("rank")}
    t = irframe.compare(runs, qrels, ["RR"], columns="pyterrier")
    assert (t["baseline_mean"][0], t["mean"][0]) == (RR_RANK, RR_SCORE)
    m = irframe.moved(runs, qrels, "RR", docs_top=0)  # detected
    assert m.columns[:2] == ["system", "qid"]


def test_cli_columns_and_order(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run, qrels = pyterrier_frames()
    pl.DataFrame(run).write_csv(tmp_path / "run.csv")
    qrels.write_csv(tmp_path / "qrels.csv")
    args = ["eval", str(tmp_path / "qrels.csv"), str(tmp_path / "run.csv"), "-m", "RR", "-f", "json"]
    assert main([*args, "--columns", "pyterrier"]) == 2  # rank and score disagree (issue 34: was 1)
    err = capsys.readouterr().err
    assert "--order rank or --order score" in err
    assert main([*args, "--columns", "pyterrier", "--order", "score"]) == 0
    out = capsys.readouterr().out
    assert f'"RR":{RR_SCORE}' in out
    (tmp_path / "plain.csv").write_text("qid,docno,score\n1,a,1.0\n")
    assert (
        main(["eval", str(tmp_path / "qrels.csv"), str(tmp_path / "plain.csv"), "--columns", "irframe"]) == 2
    )
    assert "--map qid=query_id" in capsys.readouterr().err


def test_cli_hint_names_the_convention(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from irframe.datasets import golden

    (tmp_path / "run.csv").write_text("qid,docno,score\nq01,kb001,1.0\n")
    assert (
        main(["eval", str(golden().paths.qrels), str(tmp_path / "run.csv")]) == 2
    )  # issue 34: data errors exit 2, as usage errors (was 1)
    err = capsys.readouterr().err
    assert "--map qid=query_id" in err
    assert "--columns pyterrier" in err
    assert "columns=" not in err


def test_tied_ranks_disagree_only_across_ranks(constructor) -> None:  # type: ignore[no-untyped-def]
    qrels = pl.DataFrame({"query_id": ["1"], "doc_id": ["c"], "relevance": [1]})
    # within rank 1 the scores may go either way; every rank-1 score >= the rank-2 score
    agree = {"query_id": ["1"] * 3, "doc_id": ["a", "b", "c"], "rank": [1, 1, 2], "score": [0.9, 0.2, 0.1]}
    assert to_polars(irframe.evaluate(constructor(agree), ["RR"], qrels))["RR"][0] == pytest.approx(1 / 3)
    # b (rank 1) scores 0.1 < c (rank 2) 0.5: rank and score disagree
    disagree = {**agree, "score": [0.9, 0.1, 0.5]}
    with pytest.raises(InvalidDataError, match="disagree in 1 of 1 queries"):
        to_polars(irframe.evaluate(constructor(disagree), ["RR"], qrels))
