"""The expression API against evaluate's rules (issue 43 "crashes"/"accepted bad input",
issue 45 item 7): the same dtype and grade rules, duplicates counted as evaluate counts
them, missing queries that stack with the run's table, messages without internal names.
"""

from __future__ import annotations

import warnings

import polars as pl
import pytest

import irframe
from irframe.exceptions import ConventionWarning, InvalidDataError

pytestmark = pytest.mark.filterwarnings("ignore::irframe.exceptions.ConventionWarning")

Q = "query_id"


def _table(frame: pl.DataFrame | pl.LazyFrame, measures: list[str], **kw: object) -> pl.DataFrame:
    out = (
        frame.lazy()
        .group_by(Q, maintain_order=True)
        .agg(irframe.expr.measures(measures, score="score", **kw))
    )
    return out.collect().unnest("measures")


LOG = pl.DataFrame(
    {Q: ["q1"] * 3, "doc_id": ["a", "b", "c"], "score": [3.0, 2.0, 1.0], "relevance": [1, 0, 2]}
)


def test_a_string_grade_is_refused_as_evaluate_refuses_it() -> None:
    text = LOG.with_columns(pl.col("relevance").cast(pl.String))
    with pytest.raises(InvalidDataError, match="must hold numeric grades") as want:
        irframe.evaluate(text, ["P@2"], per_query=True)
    for frame in (text, text.lazy()):
        with pytest.raises(pl.exceptions.PolarsError, match="must hold numeric grades") as got:
            _table(frame, ["P@2"])  # was read as numbers: P@2 = 0.5
        assert str(want.value).split("Hint:", 1)[1] in str(got.value)  # evaluate's message and hint
        assert str(got.value).startswith("The frame's relevance column 'relevance'")


def test_the_grade_rule_is_one_rule_as_a_selector_and_as_a_predicate() -> None:
    from irframe._input.columns import GRADE_DTYPES, _is_numeric

    dtypes = [pl.Int8, pl.UInt64, pl.Float32, pl.Float64, pl.Decimal(10, 2), pl.Boolean, pl.Null, pl.String,
              pl.Categorical(), pl.Date, pl.Datetime(), pl.Duration(), pl.Binary, pl.List(pl.Int64),
              pl.Struct({"a": pl.Int64}), pl.Object]  # fmt: skip
    schema = pl.Schema({f"c{i}": dt for i, dt in enumerate(dtypes)})
    picked = set(pl.selectors.expand_selector(schema, GRADE_DTYPES))
    assert {c for c, dt in schema.items() if _is_numeric(dt)} == picked


def test_numeric_and_boolean_grades_are_read() -> None:
    # hand: ranking a, b, c; grades 1, 0, 2 -> P@2 = 1/2; as booleans True, False, True -> the same
    assert _table(LOG, ["P@2"])["P@2"].to_list() == [0.5]
    assert _table(LOG.with_columns(pl.col("relevance") > 0), ["P@2"])["P@2"].to_list() == [0.5]


def test_a_grade_whose_exp_gain_overflows_is_refused_not_nan() -> None:
    huge = LOG.with_columns(relevance=pl.Series([2000, 0, 1]))
    with pytest.raises(InvalidDataError, match="exp gain"):
        irframe.evaluate(huge, ["nDCG@3"], per_query=True)
    with pytest.raises(pl.exceptions.PolarsError, match=r"exp gain 2\^grade - 1 of 'nDCG@3'.*gain=linear"):
        _table(huge, ["nDCG@3"])  # was a silent NaN
    linear = _table(huge, ["nDCG(gain=linear)@3"])["nDCG(gain=linear)@3"].item()
    # hand: DCG = 2000/log2(2) + 0 + 1/log2(4) = 2000.5; ideal 2000 + 1/log2(3)
    assert linear == pytest.approx(2000.5 / (2000 + 1 / 1.584962500721156))


# q1's rows: x (score 1, grade 1), y (score 2, grade 0), x again (score 3, grade 0)
DUPS = pl.DataFrame(
    {Q: ["q1"] * 3, "doc_id": ["x", "y", "x"], "score": [1.0, 2.0, 3.0], "relevance": [1, 0, 0]}
)


def test_a_document_twice_fails_the_collect_by_default_as_evaluate_refuses_it() -> None:
    with pytest.raises(irframe.exceptions.DuplicateRowsError):
        irframe.evaluate(DUPS, ["RR"], per_query=True)
    with pytest.raises(pl.exceptions.PolarsError, match=r"a document appears twice.*duplicates='first'"):
        _table(DUPS, ["RR", "P@2"])  # was counted twice, silently


def test_duplicates_first_keeps_the_best_ranked_row_as_evaluate_does() -> None:
    # hand: the best-ranked x is the one scored 3 (grade 0), then y (grade 0): nothing relevant
    got = _table(DUPS, ["RR", "P@2", "NumRet"], duplicates="first")
    assert got.row(0) == ("q1", 0.0, 0.0, 2.0)
    with pytest.warns(
        irframe.exceptions.DuplicatesWarning, match="1 of 3"
    ):  # (evaluate says what it dropped)
        want = irframe.evaluate(DUPS, ["RR", "P@2", "NumRet"], per_query=True, duplicates="first")
    assert got.equals(want.select(got.columns))


def test_duplicates_takes_error_or_first_only() -> None:
    with pytest.raises(irframe.exceptions.InvalidParameterError, match="duplicates"):
        irframe.expr.measures("RR", score="score", duplicates="last")  # type: ignore[arg-type]


RUN = pl.DataFrame({Q: [1, 1], "doc_id": ["a", "b"], "score": [2.0, 1.0]})
QRELS = pl.DataFrame({Q: ["1", "2"], "doc_id": ["b", "c"], "relevance": [1, 1]})


def test_missing_queries_stack_with_the_run_table_when_id_dtypes_differ() -> None:
    joined = irframe.expr.attach(RUN, QRELS, ["RR"])
    table = joined.group_by(Q).agg(irframe.expr.measures(["RR"], score="score", judgments="judgments"))
    stacked = pl.concat([table, irframe.expr.missing_queries(RUN, QRELS, ["RR"])])  # was a SchemaError
    # hand: q1 ranks a, b; b is relevant -> RR 1/2; q2 is judged and missing -> 0
    assert sorted(stacked.unnest("measures").rows()) == [(1, 0.5), (2, 0.0)]
    cat = RUN.with_columns(pl.col(Q).cast(pl.String).cast(pl.Categorical))
    enum = QRELS.with_columns(pl.col(Q).cast(pl.Enum(["1", "2"])))
    assert irframe.expr.missing_queries(cat, enum, ["RR"]).schema[Q] == pl.Categorical


def test_missing_query_ids_the_run_dtype_cannot_hold_are_named() -> None:
    qrels = QRELS.with_columns(pl.Series(Q, ["q1", "q2"]))
    with pytest.raises(InvalidDataError, match=r"'q1', 'q2'.*dtype Int64.*cast\(pl.String\)"):
        irframe.expr.missing_queries(RUN, qrels, ["RR"])


def test_judgments_attached_for_other_measures_are_named_without_internal_names() -> None:
    joined = irframe.expr.attach(RUN, QRELS, ["RR"])
    with pytest.raises(pl.exceptions.PolarsError) as info:
        joined.group_by(Q).agg(irframe.expr.measures(["nDCG@10"], score="score", judgments="judgments"))
    assert "attach with every measure asked" in str(info.value)
    assert "__ir_" not in str(info.value).split("\n")[0]


def test_no_convention_warning_leaks_from_these_tests() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConventionWarning)
        _table(LOG, ["P@2"])
