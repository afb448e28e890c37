"""evaluate(..., weights=): weighted means written out by hand, the weights' rule (queries
table or qrels, never the run), their partial sums added up across partitions, and the
means of Dask, out of core and the toy backend equal to the in-process ones (Spark's:
tests/spark/test_spark_weights.py)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import irframe
from _support.partition_cases import (
    MEASURES,
    WEIGHTED,
    Case,
    assert_same_means,
    assert_same_per_query,
    reference,
)
from irframe._engine.aggregate import combine_partials, partial_sums
from irframe._input.weights import WEIGHT
from irframe.exceptions import ColumnNotFoundError, InvalidDataError, InvalidParameterError

# q1: the relevant doc at rank 2 (RR 1/2, P@1 0); q2: at rank 1 (RR 1, P@1 1);
# q3: no relevant doc retrieved (RR 0); q4: judged, not in the run (0 under missing="zero")
RUN = pl.DataFrame({
    "query_id": ["q1", "q1", "q2", "q2", "q3"],
    "doc_id": ["a", "b", "c", "d", "e"],
    "rank": [1, 2, 1, 2, 1],
})  # fmt: skip
QRELS = pl.DataFrame({
    "query_id": ["q1", "q2", "q3", "q4"],
    "doc_id": ["b", "c", "z", "y"],
    "relevance": [1, 2, 1, 1],
})  # fmt: skip
TRAFFIC = pl.DataFrame({"query_id": ["q1", "q2", "q3", "q4"], "traffic": [3, 1, 2, 4]})


def test_weighted_means_by_hand() -> None:
    m = irframe.evaluate(RUN, ["RR", "P@1", "num_q"], QRELS, weights="traffic", queries=TRAFFIC)
    # RR: (3 * 0.5 + 1 * 1 + 2 * 0 + 4 * 0) / 10 = 0.25; P@1: (1 * 1) / 10 = 0.1; num_q: sum(w * 1) = 10
    assert m.row(0, named=True) == {
        "RR": 0.25, "P@1": 0.1, "num_q": 10.0, "n_queries": 4, "n_missing": 1, "n_unjudged": 0,
        "sum_weights": 10.0,
    }  # fmt: skip
    drop = irframe.evaluate(RUN, ["RR"], QRELS, weights="traffic", queries=TRAFFIC, missing="drop")
    assert drop.select("RR", "sum_weights").row(0) == ((1.5 + 1) / 6, 6.0)  # q4 left out


def test_weighted_geometric_mean_by_hand() -> None:
    m = irframe.evaluate(RUN, ["gm_map"], QRELS, weights="traffic", queries=TRAFFIC)
    # AP: q1 1/2, q2 1, q3 0 and q4 0 (floored at 1e-5): exp((3 ln .5 + 0 + 6 ln 1e-5) / 10)
    want = math.exp((3 * math.log(0.5) + 6 * math.log(1e-5)) / 10)
    assert m["gm_map"][0] == pytest.approx(want, rel=1e-12)


def test_per_query_values_keep_their_weight() -> None:
    pq = irframe.evaluate(RUN, ["RR"], QRELS, per_query=True, weights="traffic", queries=TRAFFIC)
    assert pq.rows() == [("q1", 0.5, 3.0), ("q2", 1.0, 1.0), ("q3", 0.0, 2.0), ("q4", 0.0, 4.0)]
    plain = irframe.evaluate(RUN, ["RR"], QRELS, per_query=True)
    assert pq.drop("traffic").equals(plain)


def test_weights_by_group_and_a_group_of_weight_zero() -> None:
    queries = TRAFFIC.with_columns(seg=pl.Series(["a", "a", "b", "b"]), traffic=pl.Series([3, 1, 0, 0]))
    m = irframe.evaluate(RUN, ["RR"], QRELS, by="seg", weights="traffic", queries=queries)
    assert m.select("seg", "RR", "n_queries", "sum_weights").rows() == [
        ("a", (1.5 + 1) / 4, 2, 4.0),
        ("b", None, 2, 0.0),  # counted queries weighing 0 in all: no mean
    ]


def test_weights_from_the_qrels_and_in_other_frame_types() -> None:
    qrels = QRELS.join(TRAFFIC, on="query_id")
    want = irframe.evaluate(RUN, ["RR"], QRELS, weights="traffic", queries=TRAFFIC)
    assert irframe.evaluate(RUN, ["RR"], qrels, weights="traffic").equals(want)
    lazy = irframe.evaluate(RUN.lazy(), ["RR"], QRELS.lazy(), weights="traffic", queries=TRAFFIC)
    assert lazy.collect().equals(want)
    pytest.importorskip("pandas")
    pdf = irframe.evaluate(RUN.to_pandas(), ["RR"], QRELS.to_pandas(), weights="traffic", queries=TRAFFIC)
    assert pl.from_pandas(pdf).equals(want)


def test_the_weights_rule_refuses_what_it_cannot_read() -> None:
    with pytest.raises(InvalidParameterError, match="is a column of the run; weights are query attributes"):
        irframe.evaluate(RUN.join(TRAFFIC, on="query_id"), ["RR"], QRELS, weights="traffic")
    with pytest.raises(InvalidParameterError, match=r"in the run and in the queries table: .* ambiguous"):
        irframe.evaluate(RUN.join(TRAFFIC, on="query_id"), ["RR"], QRELS, weights="traffic", queries=TRAFFIC)
    with pytest.raises(ColumnNotFoundError, match="did you mean 'traffic'"):
        irframe.evaluate(RUN, ["RR"], QRELS, weights="trafic", queries=TRAFFIC)
    with pytest.raises(InvalidDataError, match=r"1 queries of the qrels have no weight, e\.g\. 'q4'"):
        irframe.evaluate(RUN, ["RR"], QRELS, weights="traffic", queries=TRAFFIC.head(3))
    bad = TRAFFIC.with_columns(
        pl.when(pl.col("query_id") == "q2").then(-1).otherwise("traffic").alias("traffic")
    )
    with pytest.raises(InvalidDataError, match=r"negative or infinite weight .* query 'q2'"):
        irframe.evaluate(RUN, ["RR"], QRELS, weights="traffic", queries=bad)
    two = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["b", "x", "c"], "relevance": [1, 0, 2],
                        "traffic": [3, 5, 1]})  # fmt: skip
    with pytest.raises(InvalidDataError, match="query 'q1' has several weights in the qrels"):
        irframe.evaluate(RUN, ["RR"], two, weights="traffic")
    with pytest.raises(InvalidParameterError, match="cannot both group the queries and weight them"):
        irframe.evaluate(RUN, ["RR"], QRELS, by="traffic", weights="traffic", queries=TRAFFIC)


def test_weighted_partial_sums_add_up_across_partitions() -> None:
    per_query = irframe.evaluate(
        RUN, ["RR", "gm_map"], QRELS, per_query=True, weights="traffic", queries=TRAFFIC
    )
    rows = per_query.rename({"traffic": WEIGHT}).with_columns(
        in_run=pl.col("query_id") != "q4", judged=pl.lit(True), part=pl.Series([0, 1, 1, 0])
    )
    aggs = {"RR": "mean", "gm_map": "gmean"}
    parts = pl.concat([partial_sums(p, ["RR", "gm_map"], aggregates=aggs) for p in rows.partition_by("part")])
    combined = combine_partials(parts, ["RR", "gm_map"], aggregates=aggs)
    want = irframe.evaluate(RUN, ["RR", "gm_map"], QRELS, weights="traffic", queries=TRAFFIC)
    assert combined.select(want.columns).equals(want)


@pytest.mark.parametrize("missing", ["zero", "drop"])
@pytest.mark.parametrize("per_query", [False, True])
def test_dask_weighted_means_equal_the_in_process_ones(missing: str, per_query: bool) -> None:
    dd = pytest.importorskip("dask.dataframe")
    from irframe.datasets import golden

    g = golden()
    traffic = g.queries.select("query_id", traffic=(pl.int_range(pl.len()) * 7919 % 97).cast(pl.Int64))
    kwargs = {
        "by": "system",
        "weights": "traffic",
        "queries": traffic,
        "missing": missing,
        "per_query": per_query,
    }
    runs = g.runs.filter(~((pl.col("system") == "dense") & (pl.col("query_id") == "q07")))
    measures = ["nDCG@10", "RR", "gm_map", "num_q"]
    want = irframe.evaluate(runs, measures, g.qrels, **kwargs)
    for qrels in (g.qrels, dd.from_pandas(g.qrels.to_pandas(), npartitions=2)):
        got = irframe.evaluate(dd.from_pandas(runs.to_pandas(), npartitions=3), measures, qrels, **kwargs)
        got = pl.from_pandas(got.compute()).sort("system") if not per_query else pl.from_pandas(got.compute())
        assert got.columns == want.columns
        for col in want.columns:
            if want[col].dtype == pl.Float64:
                assert got[col].to_list() == pytest.approx(want[col].to_list(), rel=1e-12)
            else:
                assert got[col].to_list() == want[col].to_list()


def test_a_backend_that_does_not_weigh_refuses_weights_by_name() -> None:
    from _support.toy_backend import Partitions, Toy
    from irframe._backends import skeleton
    from irframe._input.options import Options

    class Unweighted(Toy):
        label = "unweighted toy"
        weighs = False

    with pytest.raises(InvalidParameterError, match="not supported on the unweighted toy backend"):
        skeleton.evaluate(
            Unweighted(), Partitions((RUN,)), ["RR"], QRELS, Options.build(weights="traffic"), per_query=False
        )


@pytest.mark.parametrize("buckets", [1, 3])
def test_out_of_core_weighted_means_by_hand(buckets: int, tmp_path: Path) -> None:
    RUN.write_parquet(tmp_path / "run.parquet")
    QRELS.join(TRAFFIC, on="query_id").write_parquet(tmp_path / "qrels.parquet")  # weights in the qrels
    for qrels, queries in ((QRELS, TRAFFIC), (tmp_path / "qrels.parquet", None)):
        m = irframe.evaluate_parquet(
            tmp_path / "run.parquet",
            ["RR", "P@1"],
            qrels,
            weights="traffic",
            queries=queries,
            buckets=buckets,
        )
        # as test_weighted_means_by_hand: RR (3 * 0.5 + 1 * 1) / 10, P@1 (1 * 1) / 10
        assert m.select("RR", "P@1", "n_queries", "sum_weights").row(0) == (0.25, 0.1, 4, 10.0)
    pq = irframe.evaluate_parquet(
        tmp_path / "run.parquet", ["RR"], QRELS, weights="traffic", queries=TRAFFIC, buckets=buckets,
        per_query=True,
    )  # fmt: skip
    assert pq.rows() == [("q1", 0.5, 3.0), ("q2", 1.0, 1.0), ("q3", 0.0, 2.0), ("q4", 0.0, 4.0)]


# the partition cases, weighted: out of core (a few bucket counts) and the toy backend
OUT_OF_CORE = [(c, 5) for c in WEIGHTED] + [(WEIGHTED[0], 1), (WEIGHTED[2], 64), (WEIGHTED[7], 64)]


@pytest.mark.parametrize(("case", "buckets"), OUT_OF_CORE, ids=repr)
def test_out_of_core_weighted_means_equal_the_in_process_ones(
    case: Case, buckets: int, tmp_path: Path
) -> None:
    case.run.sample(fraction=1.0, shuffle=True, seed=0).write_parquet(tmp_path / "run.parquet")
    per_query = irframe.evaluate_parquet(
        tmp_path / "run.parquet", MEASURES, case.qrels, per_query=True, buckets=buckets, **case.kwargs
    )
    assert isinstance(per_query, pl.DataFrame)
    assert_same_per_query(per_query, case)  # with the weights column
    means = irframe.evaluate_parquet(
        tmp_path / "run.parquet", MEASURES, case.qrels, buckets=buckets, **case.kwargs
    )
    assert isinstance(means, pl.DataFrame)
    assert_same_means(means, case)
    assert "sum_weights" in means.columns


@pytest.mark.parametrize("case", WEIGHTED, ids=repr)
def test_toy_backend_weighted_means_equal_the_in_process_ones(case: Case) -> None:
    from _support.toy_backend import Partitions, Toy
    from irframe._backends import skeleton
    from irframe._input.options import Options

    opts = Options.build(**{k: v for k, v in case.kwargs.items() if k != "queries"})
    run = Partitions.split(case.run.sample(fraction=1.0, shuffle=True, seed=2), 3)
    queries = case.kwargs["queries"]
    for per_query, check in ((True, assert_same_per_query), (False, assert_same_means)):
        got = skeleton.evaluate(Toy(4), run, MEASURES, case.qrels, opts, per_query=per_query, queries=queries)
        check(got, case)


def test_the_weighted_reference_is_the_weighted_mean_of_the_per_query_values() -> None:
    """The in-process reference of the cases above, against numpy on its unweighted
    per-query values: sum(w x) / sum(w) over the counted queries, per system."""
    case = next(c for c in WEIGHTED if c.name == "by-system-lacking-queries-weighted")
    plain = irframe.evaluate(case.run, MEASURES, case.qrels, per_query=True, by="system")
    assert case.qrels is not None
    judged = case.qrels.get_column("query_id").unique().implode()  # the counted queries
    rows = plain.filter(pl.col("query_id").is_in(judged)).join(case.kwargs["queries"], on="query_id")
    got = reference(case, per_query=False).sort("system")
    for system, group in rows.group_by("system", maintain_order=True):
        w = group.get_column("traffic").cast(pl.Float64).to_numpy()
        row = got.filter(pl.col("system") == system[0])
        assert row.item(0, "sum_weights") == w.sum()
        for m in MEASURES:
            want = float(np.sum(w * group.get_column(m).to_numpy()) / w.sum())
            assert row.item(0, m) == pytest.approx(want, rel=1e-12)
