"""compare on per-query values computed elsewhere: the same table as compare on the runs
those values came from (so the tests, CIs, correction, groups and moved queries are the
runs' own), answer measures and retrieval measures in one table, and the errors."""

from __future__ import annotations

import polars as pl
import pytest

import irframe
from _support.helpers import to_polars
from irframe.datasets import golden
from irframe.exceptions import (
    ColumnNotFoundError,
    DuplicateRowsError,
    InvalidDataError,
    InvalidParameterError,
)

MEASURES = ["nDCG@10", "RR"]


def _golden() -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    g = golden()
    return g.runs, g.qrels, g.queries


def _values(runs: pl.DataFrame, qrels: pl.DataFrame) -> pl.DataFrame:
    return to_polars(irframe.evaluate(runs, MEASURES, qrels, by="system", per_query=True))


@pytest.mark.parametrize("by", [None, "segment"])
def test_equal_to_compare_on_the_runs(by: str | None) -> None:
    runs, qrels, queries = _golden()
    kwargs = {"test": "t", "n_bootstrap": 500, "baseline": "bm25", "by": by, "queries": queries}
    want = to_polars(irframe.compare(runs, qrels, MEASURES, **kwargs))
    got = to_polars(irframe.compare(_values(runs, qrels), measures=MEASURES, **kwargs))
    assert got.columns == want.columns
    assert got.equals(want), (got, want)


def test_randomization_and_all_pairs_equal() -> None:
    runs, qrels, _ = _golden()
    kwargs = {"n_permutations": 400, "n_bootstrap": 300, "pairs": "all", "seed": 3}
    want = to_polars(irframe.compare(runs, qrels, MEASURES, **kwargs))
    got = to_polars(irframe.compare(_values(runs, qrels), measures=MEASURES, **kwargs))
    assert got.equals(want)


def test_answer_and_retrieval_measures_in_one_table() -> None:
    runs, qrels, _ = _golden()
    values = _values(runs, qrels)
    # an answer measure per (system, query), hand-made: the dense answers support one more nugget
    answers = values.select("system", "query_id").with_columns(
        pl.when(pl.col("system") == "bm25").then(0.25).otherwise(0.5).alias("A")
    )
    both = values.join(answers, on=["system", "query_id"])
    t = to_polars(
        irframe.compare(both, measures=["nDCG@10", "A"], baseline="bm25", test="t", n_bootstrap=200)
    )
    a = t.filter(pl.col("measure") == "A")
    assert a["delta"].to_list() == [0.25, 0.25]
    assert a["wins"].to_list() == a["n_queries"].to_list()
    report = irframe.compare_report(
        both, measures=["nDCG@10", "A"], baseline="bm25", test="t", n_bootstrap=200
    )
    assert "A " in str(report)
    assert "nDCG@10" in str(report)


def test_dict_of_per_query_tables_and_pandas() -> None:
    runs, qrels, _ = _golden()
    values = _values(runs, qrels)
    as_dict = {s: values.filter(pl.col("system") == s).drop("system") for s in ("bm25", "dense")}
    want = to_polars(irframe.compare(as_dict, measures=MEASURES, test="t", n_bootstrap=100))
    pd_dict = {s: v.to_pandas() for s, v in as_dict.items()}
    got = irframe.compare(pd_dict, measures=MEASURES, test="t", n_bootstrap=100)
    assert type(got).__module__.startswith("pandas")
    assert to_polars(got).equals(want)


def test_errors() -> None:
    runs, qrels, _ = _golden()
    values = _values(runs, qrels)
    with pytest.raises(ColumnNotFoundError, match=r"per-query values.*no column for 'P@5'"):
        irframe.compare(values, measures=["nDCG@10", "P@5"])
    with pytest.raises(InvalidParameterError, match=r"qrels= reads the runs' documents or the judgments"):
        irframe.compare(values, qrels, measures=MEASURES)
    with pytest.raises(InvalidParameterError, match="holes="):
        irframe.compare(values, measures=MEASURES, holes=True)
    with pytest.raises(DuplicateRowsError, match=r"system 'bm25', query_id 'q01' has 2 rows"):
        irframe.compare(pl.concat([values, values.head(1)]), measures=MEASURES)
    with pytest.raises(InvalidDataError, match=r"NaN value.*null"):
        irframe.compare(values.with_columns(pl.lit(float("nan")).alias("RR")), measures=MEASURES)
    with pytest.raises(InvalidDataError, match="must be numeric"):
        irframe.compare(values.with_columns(pl.lit("x").alias("RR")), measures=MEASURES)
    # a null value is no value: that query is left out of that pair (n_queries counts the pairs)
    holes = values.with_columns(pl.when(pl.col("query_id") == "q01").then(None).otherwise("RR").alias("RR"))
    t = to_polars(irframe.compare(holes, measures=["RR"], test="t", n_bootstrap=100))
    full = to_polars(irframe.compare(values, measures=["RR"], test="t", n_bootstrap=100))
    assert (t["n_queries"] + 1).to_list() == full["n_queries"].to_list()


def _sides(values: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    side = {s: values.filter(pl.col("system") == s).drop("system") for s in ("bm25", "dense")}
    return side["dense"], side["bm25"]


@pytest.mark.parametrize("by", [None, "segment"])
def test_check_equal_to_check_on_the_runs(by: str | None) -> None:
    runs, qrels, queries = _golden()
    kwargs = {"n_permutations": 300, "n_bootstrap": 200, "by": by, "queries": queries, "max_drop": 0.01}
    want = irframe.check(runs.filter(system="dense"), qrels, runs.filter(system="bm25"), MEASURES, **kwargs)
    cand, base = _sides(_values(runs, qrels))
    got = irframe.check(cand, None, base, MEASURES, **kwargs)
    assert got.comparisons.equals(want.comparisons)
    assert got.passed == want.passed
    assert got.moved.select("query_id", "delta").equals(want.moved.select("query_id", "delta"))


def test_check_gates_an_answer_measure() -> None:
    runs, qrels, _ = _golden()
    cand, base = _sides(_values(runs, qrels))
    # the candidate's answers lose a nugget on every query: the gate fails on A
    cand = cand.with_columns(pl.lit(0.25).alias("A"))
    base = base.with_columns(pl.lit(0.5).alias("A"))
    result = irframe.check(cand, None, base, ["nDCG@10", "A"], n_permutations=300, n_bootstrap=200)
    assert not result.passed
    assert result.regressions["measure"].to_list() == ["A"]
    with pytest.raises(InvalidParameterError, match="qrels= reads"):
        irframe.check(cand, qrels, base, ["A"])
    with pytest.raises(InvalidParameterError, match="baseline must be per-query values too"):
        irframe.check(cand, None, runs.filter(system="bm25"), ["A"])
