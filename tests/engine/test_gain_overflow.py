"""Overflowing and non-finite gains (issue 15 item 2).

The exp gain 2^grade - 1 overflows float64 at grade 1024: nDCG must not silently turn
NaN (or 0, when the huge grade only enters the ideal DCG).  Expected values below are
hand-computed; the refused cases name the grade, the query and the column.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import irframe
from _support.helpers import NamedConstructor, to_polars
from irframe.cli import main
from irframe.exceptions import InvalidDataError, InvalidParameterError

RUN = {"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"], "rank": [1, 2, 1]}


def _eval(run: Any, measures: Any, qrels: Any = None, **kw: Any) -> pl.DataFrame:
    out = irframe.evaluate(run, measures, qrels, **kw)
    df: pl.DataFrame = to_polars(out.collect() if hasattr(out, "collect") else out)
    return df


@pytest.mark.parametrize("grade", [1024, 5000, 1e300])
def test_grade_overflowing_exp_gain_in_the_run_is_refused(
    constructor: NamedConstructor, grade: float
) -> None:
    run = constructor({**RUN, "relevance": [1, 0, grade]})
    with pytest.raises(InvalidDataError, match="exp gain") as info:
        _eval(run, ["nDCG@10", "P@1"], per_query=True)
    msg = str(info.value)
    for word in (str(int(grade)) if grade < 1e10 else "1e+300", "'q2'", "'relevance'", "gain=linear"):
        assert word in msg, (word, msg)


def test_grade_overflowing_in_the_qrels_names_the_qrels_column(constructor: NamedConstructor) -> None:
    qrels = constructor({"qid": ["q1", "q2"], "docno": ["a", "c"], "grade": [2048, 1]})
    with pytest.raises(InvalidDataError, match="qrels column 'grade' has grade 2048 in query 'q1'"):
        _eval(constructor(RUN), "nDCG", qrels, qrels_query_col="qid", qrels_doc_col="docno",
              qrels_relevance_col="grade")  # fmt: skip


def test_huge_grade_of_an_unretrieved_document_is_refused_too() -> None:
    # only the ideal DCG would see it: nDCG = finite / inf = 0, silently, without the check
    qrels = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "zz"], "relevance": [1, 1500]})
    with pytest.raises(InvalidDataError, match="1500"):
        irframe.evaluate(pl.DataFrame(RUN), ["nDCG@10"], qrels)
    # and for a judged query missing from the run (scored 0 under missing="zero")
    qrels = pl.DataFrame({"query_id": ["q9"], "doc_id": ["a"], "relevance": [1500]})
    with pytest.raises(InvalidDataError, match="query 'q9'"):
        irframe.evaluate(pl.DataFrame(RUN), ["nDCG@10"], qrels)


def test_linear_gain_and_measures_without_gain_accept_huge_grades(constructor: NamedConstructor) -> None:
    run = constructor({**RUN, "relevance": [5000, 1, 1]})
    got = _eval(run, ["nDCG(gain=linear)@2", "P@1", "AP"], per_query=True)
    # q1: DCG = 5000 + 1/log2(3), ideal the same: 1.0; q2: 1.0
    assert got.to_dicts() == [
        {"query_id": "q1", "nDCG(gain=linear)@2": 1.0, "P@1": 1.0, "AP": 1.0},
        {"query_id": "q2", "nDCG(gain=linear)@2": 1.0, "P@1": 1.0, "AP": 1.0},
    ]
    # q1 reversed: (1 + 5000/log2(3)) / (5000 + 1/log2(3))
    rev = constructor({**RUN, "rank": [2, 1, 1], "relevance": [5000, 1, 1]})
    value = _eval(rev, ["nDCG(gain=linear)@2"], per_query=True).item(0, 1)
    assert value == pytest.approx((1 + 5000 / math.log2(3)) / (5000 + 1 / math.log2(3)), rel=1e-12)


def test_largest_grades_that_fit_still_compute() -> None:
    # grade 1000 on 3 documents: 3 * 2^1000 < 2^1024. Ranked worst first (grades 0, 1000):
    # DCG = (2^1000 - 1) / log2(3), ideal = 2^1000 - 1: nDCG = 1 / log2(3)
    run = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "b", "c"], "rank": [1, 2, 3],
                        "relevance": [0, 1000, 0]})  # fmt: skip
    assert irframe.ndcg(run, 2).item(0, 1) == pytest.approx(1 / math.log2(3), rel=1e-12)
    # one judged document of grade 1023: 2^1023 - 1 is finite
    one = pl.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "rank": [1], "relevance": [1023]})
    assert irframe.ndcg(one).item(0, 1) == 1.0


def test_grade_1023_on_two_documents_is_refused_with_its_count() -> None:
    # 2 x 2^1023 = 2^1024: the documented bound (2^grade x judged documents < 2^1024)
    run = pl.DataFrame({**RUN, "relevance": [1023, 1023, 0]})
    with pytest.raises(InvalidDataError, match=r"grade 1023 in query 'q1' \(2 run rows"):
        irframe.evaluate(run, ["nDCG@10"])


NON_FINITE = [
    {1: math.inf},
    {1: math.nan},
    {1: -math.inf},
    {math.inf: 1.0},
    "{1:inf}",
    "{1:nan}",
    "{1:1e999}",
]


@pytest.mark.parametrize("gains", NON_FINITE)
def test_non_finite_custom_gains_are_refused(gains: Any) -> None:
    run = pl.DataFrame({**RUN, "relevance": [1, 0, 1]})
    with pytest.raises(InvalidParameterError, match="'gains' parameter"):
        irframe.ndcg(run, 10, gain=gains) if isinstance(gains, dict) else irframe.evaluate(
            run, [f"nDCG(gains={gains})@10"]
        )


def test_negative_custom_gains_can_make_ndcg_negative_never_above_one() -> None:
    run = pl.DataFrame({"query_id": ["q1"] * 3 + ["q2"], "doc_id": ["a", "b", "c", "d"],
                        "rank": [1, 2, 3, 1], "relevance": [0, 1, 0, 0]})  # fmt: skip
    got = irframe.ndcg(run, 3, gain={0: -1.0, 1: 1.0})
    # q1: (-1 + 1/log2(3) - 1/log2(4)) / 1; q2: no positive gain, the ideal is 0: scored 0
    assert got.get_column(got.columns[1]).to_list() == pytest.approx(
        [-1 + 1 / math.log2(3) - 0.5, 0.0], rel=1e-12
    )


def test_overflow_reaches_the_cli_and_compare_as_the_same_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "q.txt").write_text("q1 0 a 1\nq1 0 b 1030\n")
    (tmp_path / "r.run").write_text("q1 Q0 a 1 2.0 s\nq1 Q0 b 2 1.0 s\n")
    # a data error exits 1 (issue 12 item 10; it was 2)
    assert (
        main(["eval", str(tmp_path / "q.txt"), str(tmp_path / "r.run"), "-m", "nDCG@10"]) == 2
    )  # issue 34: data errors exit 2, as usage errors (was 1)
    err = capsys.readouterr().err
    assert "grade 1030" in err
    assert "--gain linear" in err
    assert main(["eval", str(tmp_path / "q.txt"), str(tmp_path / "r.run"), "-m", "nDCG@10",
                 "--gain", "linear"]) == 0  # fmt: skip
    runs = pl.DataFrame({"system": ["x", "x", "y", "y"], "query_id": ["q1"] * 4,
                         "doc_id": ["a", "b"] * 2, "rank": [1, 2, 2, 1]})  # fmt: skip
    qrels = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "relevance": [1, 2000]})
    with pytest.raises(InvalidDataError, match="grade 2000 in query 'q1'"):
        irframe.compare(runs, qrels, ["nDCG@10"])


def test_overflow_is_refused_out_of_core(tmp_path: Path) -> None:
    path = tmp_path / "run.parquet"
    pl.DataFrame({**RUN, "relevance": [1, 0, 4096]}).write_parquet(path)
    with pytest.raises(InvalidDataError, match="grade 4096 in query 'q2'"):
        irframe.evaluate_parquet(path, ["nDCG@10"], buckets=2)
