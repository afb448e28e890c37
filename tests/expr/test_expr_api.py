"""irframe.expr: hand-computed cases, every variant of the registry, the namespace, errors.

Numbers are either written out by hand here or compared with ``irframe.evaluate``
(checked against trec_eval and peers in tests/engine).
"""

from __future__ import annotations

import math
import subprocess
import sys
from typing import Any

import polars as pl
import pytest
from test_expr_properties import FROM_ROWS, MANY_CUTOFFS, assert_same, family_measures

import irframe
from irframe.exceptions import (
    ColumnNotFoundError,
    DuplicateRowsError,
    InvalidDataError,
    InvalidParameterError,
    UnknownMeasureError,
)
from irframe.measures import FAMILIES

# The traps in one log: tied scores broken by doc id as text ("9" before "10", int ids),
# NaN and null grades (not judged), a negative grade, a query without any judgment (q3).
LOG: dict[str, list[Any]] = {
    "query_id": ["q1", "q1", "q1", "q1", "q2", "q2", "q2", "q3", "q3"],
    "doc_id": [10, 9, 7, 3, 1, 2, 3, 4, 5],
    "score": [1.0, 1.0, 0.5, 0.2, 3.0, 2.0, 1.0, 1.0, 0.5],
    "rank": [2, 1, 3, 4, 1, 2, 3, 1, 2],
    "relevance": [1.0, 0.0, math.nan, 2.0, -1.0, None, 1.0, None, math.nan],
    "latency_ms": [10.0, 10.0, 10.0, 10.0, 25.0, 25.0, 25.0, 7.0, 7.0],
}
GAINS: dict[float, float] = {0: -1, 1: 1, 2: 5}
LIN = "linear"
EVERY = list(dict.fromkeys([*(str(m) for fam in FROM_ROWS for m in family_measures(fam)), *MANY_CUTOFFS]))


def by_query(frame: pl.DataFrame, labels: list[str]) -> dict[str, dict[str, float | None]]:
    return {row["query_id"]: {lab: row[lab] for lab in labels} for row in frame.iter_rows(named=True)}


def test_hand_computed_ties_nan_negative_and_unjudged() -> None:
    labels = ["RR", "P@1", "Judged@3", "NumRel", "R@2", "Bpref"]
    out = (
        pl.DataFrame(LOG)
        .group_by("query_id")
        .agg(irframe.expr.measures(labels, score="score"))
        .unnest("measures")
    )
    got = by_query(out, labels)
    # q1 by score: 9 and 10 tie at 1.0, "9" > "10" as text so 9 (grade 0) ranks first, then
    # 10 (1), 7 (NaN: unjudged), 3 (2). RR = 1/2, P@1 = 0, Judged@3 = 2/3, R = 2 (10 and 3),
    # R@2 = 1/2; Bpref: relevant 10 has 1 judged non-relevant above (9): 1 - min(1, 2)/min(1, 2) = 0,
    # relevant 3 has 1 above: 0 again -> 0/2 = 0.
    assert got["q1"] == {"RR": 0.5, "P@1": 0.0, "Judged@3": 2 / 3, "NumRel": 2.0, "R@2": 0.5, "Bpref": 0.0}
    # q2: 1 (-1: judged, never relevant), 2 (null), 3 (1). RR = 1/3; Judged@3 = 2/3 (-1 is judged);
    # Bpref skips the negative grade and the unjudged one: nothing above 3 counts -> 1.
    assert got["q2"] == {"RR": 1 / 3, "P@1": 0.0, "Judged@3": 2 / 3, "NumRel": 1.0, "R@2": 0.0, "Bpref": 1.0}
    # q3 has no judged row: null (evaluate's rule), and polars' mean skips it
    assert set(got["q3"].values()) == {None}


def test_rank_order_and_mean_match_evaluate_means() -> None:
    frame = pl.DataFrame(LOG)
    out = (
        frame.group_by("query_id")
        .agg(irframe.expr.measures(["RR", "nDCG@3"], rank="rank"))
        .unnest("measures")
    )
    # q1 by rank: 9 (0) at 1, 10 (1) at 2: RR = 1/2; q2: RR = 1/3
    assert by_query(out, ["RR"])["q1"]["RR"] == 0.5
    means = irframe.evaluate(frame, ["RR", "nDCG@3"], order="rank")
    assert out["RR"].mean() == pytest.approx(means["RR"].item(), abs=1e-15)
    assert out["nDCG@3"].mean() == pytest.approx(means["nDCG@3"].item(), abs=1e-15)


@pytest.mark.parametrize("by_rank", [False, True])
def test_every_variant_of_every_family_on_the_log(by_rank: bool) -> None:
    frame = pl.DataFrame(LOG)
    order = {"rank": "rank"} if by_rank else {"score": "score"}
    expected = irframe.evaluate(
        frame,
        EVERY,
        per_query=True,
        order="rank" if by_rank else "score",
        rank_col="rank" if by_rank else None,
    )
    got = frame.group_by("query_id").agg(irframe.expr.measures(EVERY, **order)).unnest("measures")
    assert_same(got, expected, EVERY, f"every variant, {order}")


def test_every_variant_with_qrels_attached() -> None:
    run = pl.DataFrame(LOG).drop("relevance")
    qrels = pl.DataFrame({
        "query_id": ["q1", "q1", "q1", "q1", "q2", "q2", "q4"],
        "doc_id": [10, 3, 99, 9, 3, 98, 1],
        "relevance": [1, 2, 3, 0, -1, 1, 2],
    })  # fmt: skip
    expected = irframe.evaluate(run, EVERY, qrels, per_query=True, order="score", rank_col=None)
    joined = irframe.expr.attach(run, qrels, EVERY)
    table = joined.group_by("query_id").agg(
        irframe.expr.measures(EVERY, score="score", judgments="judgments")
    )
    missing = irframe.expr.missing_queries(run, qrels, EVERY)
    got = pl.concat([table, missing]).unnest("measures")
    assert sorted(got["query_id"]) == ["q1", "q2", "q3", "q4"]  # q3: unjudged (null), q4: missing (0)
    assert_same(got, expected, EVERY, "every variant, qrels attached")


def test_feature_table_beside_other_aggregations_lazy_and_streaming() -> None:
    lazy = pl.DataFrame(LOG).lazy()
    features = lazy.group_by("query_id").agg(
        irframe.expr.measures(["nDCG@3", "RR"], score="score"),
        pl.col("latency_ms").first(),
        pl.len().alias("n_results"),
    )
    assert isinstance(features, pl.LazyFrame)
    a = features.collect(engine="streaming").sort("query_id").unnest("measures")
    b = features.collect().sort("query_id").unnest("measures")
    assert a.equals(b)
    assert a.columns == ["query_id", "nDCG@3", "RR", "latency_ms", "n_results"]
    assert a["n_results"].to_list() == [4, 3, 2]


def test_one_measure_functions_mirror_the_frame_shortcuts() -> None:
    frame = pl.DataFrame(LOG).filter(pl.col("query_id") != "q3")
    cases = [
        (irframe.expr.ndcg(k=3, score="score"), irframe.ndcg(frame, k=3, order="score")),
        (irframe.expr.ndcg(3, gain=LIN, score="score"), irframe.ndcg(frame, 3, gain=LIN, order="score")),
        (irframe.expr.ndcg(gain=GAINS, score="score"), irframe.ndcg(frame, gain=GAINS, order="score")),
        (irframe.expr.precision(k=2, score="score"), irframe.precision(frame, 2, order="score")),
        (irframe.expr.recall(k=2, rel=2, score="score"), irframe.recall(frame, 2, rel=2, order="score")),
        (irframe.expr.mrr(score="score"), irframe.mrr(frame, order="score")),
        (irframe.expr.ap(k=3, score="score"), irframe.ap(frame, 3, order="score")),
        (irframe.expr.rprec(score="score"), irframe.rprec(frame, order="score")),
        (irframe.expr.bpref(score="score"), irframe.bpref(frame, order="score")),
        (irframe.expr.success(k=1, score="score"), irframe.success(frame, 1, order="score")),
        (irframe.expr.judged(k=3, score="score"), irframe.judged(frame, 3, order="score")),
    ]  # fmt: skip
    for expr, expected in cases:
        (label,) = [c for c in expected.columns if c != "query_id"]
        got = frame.group_by("query_id").agg(expr).sort("query_id")
        assert got.columns == ["query_id", label]
        assert got[label].to_list() == pytest.approx(expected.sort("query_id")[label].to_list(), abs=1e-12)


def test_expr_namespace_equals_the_functions() -> None:
    frame = pl.DataFrame(LOG)
    g = pl.col("relevance")
    pairs = [
        (g.ir.ndcg(k=3, score="score"), irframe.expr.ndcg(k=3, score="score")),
        (g.ir.precision(2, rank="rank"), irframe.expr.precision(2, rank="rank")),
        (g.ir.recall(score="score"), irframe.expr.recall(score="score")),
        (g.ir.mrr(score="score"), irframe.expr.mrr(score="score")),
        (g.ir.ap(score="score"), irframe.expr.ap(score="score")),
        (g.ir.rprec(score="score"), irframe.expr.rprec(score="score")),
        (g.ir.bpref(score="score"), irframe.expr.bpref(score="score")),
        (g.ir.success(1, score="score"), irframe.expr.success(1, score="score")),
        (g.ir.judged(2, score="score"), irframe.expr.judged(2, score="score")),
        (g.ir.measures(["AP", "RR"], score="score"), irframe.expr.measures(["AP", "RR"], score="score")),
    ]
    for via_namespace, via_function in pairs:
        a = frame.group_by("query_id").agg(via_namespace).sort("query_id")
        b = frame.group_by("query_id").agg(via_function).sort("query_id")
        assert a.equals(b)
    # the grade may be any expression: a label rescaled on the fly
    halved = (
        frame.group_by("query_id").agg((g * 2).ir.ndcg(k=3, gain="linear", score="score")).sort("query_id")
    )
    doubled = irframe.evaluate(
        frame.with_columns(g * 2), ["nDCG(gain=linear)@3"], per_query=True, order="score"
    ).sort("query_id")
    assert halved["nDCG(gain=linear)@3"].to_list() == doubled["nDCG(gain=linear)@3"].to_list()


@pytest.mark.parametrize(
    "first", ["import irframe; import polars as pl", "import polars as pl; import irframe"]
)
def test_expr_namespace_either_import_order(first: str) -> None:
    code = (
        f"{first}; df = pl.DataFrame({{'q': [1, 1], 'doc_id': ['a', 'b'], 'rank': [1, 2], 'g': [0, 1]}}); "
        "print(df.group_by('q').agg(pl.col('g').ir.mrr(rank='rank')).item(0, 'RR'))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "0.5"


def test_spellings_aliases_trec_names_and_measure_objects_as_evaluate() -> None:
    frame = pl.DataFrame(LOG)
    spelled = ["MAP", "ndcg_cut_3", "P.1,2", irframe.measures.nDCG @ 2, "MRR"]
    expected = irframe.evaluate(frame, spelled, per_query=True, order="score")
    got = frame.group_by("query_id").agg(irframe.expr.measures(spelled, score="score")).unnest("measures")
    labels = [c for c in expected.columns if c != "query_id"]
    assert labels == ["MAP", "ndcg_cut_3", "P_1", "P_2", "nDCG@2", "MRR"]
    assert_same(got.select("query_id", *labels), expected, labels, "spellings")


def test_ir_measures_objects() -> None:
    ir_measures = pytest.importorskip("ir_measures", reason="needs pip install ir_measures (oracle)")
    frame = pl.DataFrame(LOG)
    asked = [ir_measures.nDCG @ 3, ir_measures.RR]
    expected = irframe.evaluate(frame, asked, per_query=True, order="score")
    got = frame.group_by("query_id").agg(irframe.expr.measures(asked, score="score")).unnest("measures")
    labels = [c for c in expected.columns if c != "query_id"]
    assert_same(got.select("query_id", *labels), expected, labels, "ir_measures")


def test_user_defined_measure_reads_the_grades() -> None:
    irframe.define_measure("Hits2", lambda q: (q.grades >= q.params["rel"]).sum(), params={"rel": 1})
    try:
        frame = pl.DataFrame(LOG)
        got = (
            frame.group_by("query_id")
            .agg(irframe.expr.measures(["Hits2@3"], score="score"))
            .unnest("measures")
        )
        assert by_query(got, ["Hits2@3"])["q1"]["Hits2@3"] == 1.0  # 9 (0), 10 (1), 7 (NaN)

        # a kernel reading the engine's prepared column itself, not q.grades: no such column here
        irframe.define_measure("Peek", lambda q: pl.col(irframe.kernels.REL).max())
        with pytest.raises(InvalidParameterError, match=r"'Peek'.*reads the column\(s\) \['__ir_rel'\]"):
            irframe.expr.measures(["Peek"], score="score")
    finally:
        irframe.measures.unregister("Hits2")
        irframe.measures.unregister("Peek")


def test_errors_name_the_parameter() -> None:
    with pytest.raises(InvalidParameterError, match="got neither: pass rank='rank'"):
        irframe.expr.measures(["RR"])
    with pytest.raises(InvalidParameterError, match="got both"):
        irframe.expr.measures(["RR"], rank="rank", score="score")
    with pytest.raises(UnknownMeasureError, match="Unknown measure 'nDGC@10'"):
        irframe.expr.measures(["nDGC@10"], score="score")
    with pytest.raises(InvalidParameterError, match="'k' parameter"):
        irframe.expr.precision(0, score="score")
    with pytest.raises(InvalidParameterError, match="'grade' parameter"):
        irframe.expr.measures(["RR"], score="score", grade=3)  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError, match="'score' parameter"):
        irframe.expr.measures(["RR"], score=pl.col("score"))  # type: ignore[arg-type]


@pytest.mark.parametrize("family", [f for f in FAMILIES if f not in FROM_ROWS])
def test_families_not_computable_from_rows_raise_naming_the_alternative(family: str) -> None:
    (m,) = family_measures(family)[:1]
    with pytest.raises(
        InvalidParameterError, match=rf"\({family}\) is a diversity measure.*irframe\.evaluate"
    ):
        irframe.expr.measures([str(m)], score="score")
    with pytest.raises(InvalidParameterError, match="diversity measure"):
        irframe.expr.attach(pl.DataFrame(LOG).drop("relevance"), pl.DataFrame(LOG), [str(m)])


def test_attach_errors() -> None:
    run = pl.DataFrame(LOG)
    qrels = pl.DataFrame({"query_id": ["q1"], "doc_id": [10], "relevance": [1]})
    with pytest.raises(InvalidParameterError, match="already has a column 'relevance'"):
        irframe.expr.attach(run, qrels, ["RR"])
    with pytest.raises(ColumnNotFoundError, match="qrels frame has no qrels_doc column 'doc'"):
        irframe.expr.attach(run.drop("relevance"), qrels, ["RR"], qrels_doc="doc")
    twice = pl.concat([qrels, qrels])
    with pytest.raises(DuplicateRowsError, match="judge the same document twice"):
        irframe.expr.attach(run.drop("relevance"), twice, ["RR"])
    nan = qrels.with_columns(pl.lit(math.nan).alias("relevance"))
    with pytest.raises(InvalidDataError, match="NaN"):
        irframe.expr.attach(run.drop("relevance"), nan, ["RR"])


def test_attach_keeps_frame_type_order_and_mixed_id_dtypes() -> None:
    pd = pytest.importorskip("pandas")
    run = pl.DataFrame(LOG).drop("relevance").reverse()
    qrels = pl.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["10", "3"], "relevance": [1, 1]})  # text ids
    joined = irframe.expr.attach(run, qrels, ["RR"])
    assert joined.select("query_id", "doc_id").equals(run.select("query_id", "doc_id"))
    assert joined.filter(pl.col("relevance").is_not_null())["doc_id"].sort().to_list() == [3, 10]
    as_pandas = irframe.expr.attach(run.to_pandas(), qrels.to_pandas(), ["RR"])
    assert isinstance(as_pandas, pd.DataFrame)
    assert isinstance(irframe.expr.attach(run.lazy(), qrels, ["RR"]), pl.LazyFrame)


def test_validate_runs_evaluates_checks() -> None:
    frame = pl.DataFrame(LOG)
    assert irframe.expr.validate(frame, score="score") is frame
    assert frame.pipe(irframe.expr.validate, ["nDCG@3"], rank="rank") is frame
    with pytest.raises(DuplicateRowsError):
        irframe.expr.validate(pl.concat([frame, frame.head(1)]), score="score")
    nan_score = frame.with_columns(
        pl.when(pl.col("doc_id") == 7).then(math.nan).otherwise("score").alias("score")
    )
    with pytest.raises(InvalidDataError, match="null or NaN score"):
        irframe.expr.validate(nan_score, score="score")
    irframe.expr.validate(frame, rank="rank", score="score")  # ranks follow the scores (ties too)
    reversed_q2 = frame.with_columns(
        pl.when(pl.col("query_id") == "q2").then(4 - pl.col("rank")).otherwise("rank").alias("rank")
    )
    with pytest.raises(InvalidDataError, match="disagree"):
        irframe.expr.validate(reversed_q2, rank="rank", score="score")
    with pytest.raises(InvalidParameterError, match=r"rank='\.\.\.' or score="):
        irframe.expr.validate(frame)
    lazy = frame.lazy()
    assert irframe.expr.validate(lazy, score="score") is lazy


def test_validate_an_attached_frame() -> None:
    run = pl.DataFrame(LOG).drop("relevance")
    qrels = pl.DataFrame({"query_id": ["q1", "q2"], "doc_id": [10, 3], "relevance": [1, 2]})
    joined = irframe.expr.attach(run, qrels, ["RR", "R@2"])
    irframe.expr.validate(joined, ["RR"], score="score", judgments="judgments")
    with pytest.raises(InvalidParameterError, match="attached for other measures"):
        irframe.expr.validate(joined, ["nDCG@10"], score="score", judgments="judgments")
