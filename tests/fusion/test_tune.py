"""irframe.tune_fusion: each row is fuse + evaluate of its setting, the split is seeded, the
result says how far the tuned score can be trusted."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import polars as pl
import pytest

import irframe
from _support.helpers import to_polars
from irframe.datasets import golden
from irframe.exceptions import InvalidParameterError

G = golden()
RUNS = G.runs.filter(pl.col("system") != "hybrid")
QUERIES = sorted(G.qrels["query_id"].unique().to_list())


def per_query(run: pl.DataFrame, measure: str = "nDCG@10") -> dict[str, float]:
    """The measure per judged query of one fused run, by an independent evaluate call."""
    pq = irframe.evaluate(run, [measure], G.qrels, per_query=True)
    return dict(zip(pq["query_id"].to_list(), pq[measure].to_list(), strict=True))


def mean_over(values: dict[str, float], queries: list[str]) -> float:
    return sum(values[q] for q in queries) / len(queries)


def test_every_row_is_fuse_then_evaluate_of_its_setting() -> None:
    t = irframe.tune_fusion(RUNS, G.qrels, "nDCG@10", method="wsum", holdout=0.25, seed=3)
    tune_q = [q for q in QUERIES if q not in set(_held(t))]
    best = per_query(irframe.fuse(RUNS, method="wsum", **t.best))
    table = to_polars(t.table)
    assert table.height == 11  # 0.0/1.0 ... 1.0/0.0
    assert table["nDCG@10"].to_list() == sorted(table["nDCG@10"].to_list(), reverse=True)
    for row in table.iter_rows(named=True):
        values = per_query(irframe.fuse(RUNS, method="wsum", weights=row["weights"]))
        assert row["nDCG@10"] == pytest.approx(mean_over(values, tune_q), rel=1e-12)
        deltas = np.array([values[q] - best[q] for q in tune_q])
        assert row["delta"] == pytest.approx(deltas.mean(), abs=1e-12)
        assert row["se_delta"] == pytest.approx(deltas.std(ddof=1) / math.sqrt(len(deltas)), abs=1e-12)
        assert row["within_2se"] == (abs(row["delta"]) <= 2 * row["se_delta"] + 1e-12)
        assert row["n_queries"] == len(tune_q) == t.n_tune
    assert t.tuned == table.item(0, "nDCG@10")
    assert t.heldout == pytest.approx(mean_over(best, _held(t)), rel=1e-12)
    assert t.n_within_2se == int(table["within_2se"].sum())


def _held(t: Any) -> list[str]:
    """The held-out queries, recovered from the seed the same way (a sorted-ids permutation)."""
    order = np.random.default_rng(3).permutation(len(QUERIES))
    return [QUERIES[i] for i in order[: t.n_heldout]]


def test_the_split_is_seeded_and_its_size_is_the_fraction() -> None:
    a = irframe.tune_fusion(RUNS, G.qrels, method="rrf", holdout=0.3, seed=7)
    b = irframe.tune_fusion(RUNS, G.qrels, method="rrf", holdout=0.3, seed=7)
    c = irframe.tune_fusion(RUNS, G.qrels, method="rrf", holdout=0.3, seed=8)
    assert (a.n_tune, a.n_heldout) == (28, 12)
    assert a.heldout == b.heldout
    assert to_polars(a.table).equals(to_polars(b.table))
    assert (a.tuned, a.heldout) != (c.tuned, c.heldout)
    held = ["q01", "q02", "q03", "q04", "q05"]
    d = irframe.tune_fusion(RUNS, G.qrels, method="rrf", grid=[60], holdout=held)
    values = per_query(irframe.fuse(RUNS, method="rrf"))
    assert d.heldout == pytest.approx(mean_over(values, held))
    assert d.tuned == pytest.approx(mean_over(values, [q for q in QUERIES if q not in held]))
    assert d.best == {"k": 60.0}


def test_inputs_are_each_run_alone_on_both_splits() -> None:
    t = irframe.tune_fusion(RUNS, G.qrels, method="rrf", holdout=["q01", "q02", "q03"])
    inputs = to_polars(t.inputs)
    assert inputs["system"].to_list() == ["bm25", "dense"]
    for system, tune, held in inputs.iter_rows():
        values = per_query(RUNS.filter(pl.col("system") == system).drop("system"))
        assert held == pytest.approx(mean_over(values, ["q01", "q02", "q03"]))
        assert tune == pytest.approx(
            mean_over(values, [q for q in QUERIES if q not in ("q01", "q02", "q03")])
        )


def test_grids() -> None:
    t = irframe.tune_fusion(RUNS, G.qrels, method="rrf")
    assert sorted(to_polars(t.table)["k"].to_list()) == [float(k) for k in range(10, 101, 10)]
    three = irframe.tune_fusion(G.runs, G.qrels, method="wsum")
    weights = to_polars(three.table)["weights"].to_list()
    assert len(weights) == 66
    assert all(sum(w) == pytest.approx(1.0) and all(x * 10 == round(x * 10) for x in w) for w in weights)
    mine = irframe.tune_fusion(
        RUNS, G.qrels, method="wsum", grid=[[1, 1], {"dense": 2, "bm25": 1}], norm="rank"
    )
    table = to_polars(mine.table)
    assert sorted(table["setting"].to_list()) == ["bm25=1 dense=1", "bm25=1 dense=2"]
    assert mine.norm == "rank"
    assert mine.best["weights"].keys() == {"bm25", "dense"}


def test_the_note_is_honest_about_a_small_set() -> None:
    t = irframe.tune_fusion(RUNS, G.qrels, method="wsum")
    assert t.heldout is None
    assert t.n_heldout == 0
    assert "best of 11 settings on the 40 queries it was chosen on" in t.note
    assert "fewer than 50 tuning queries" in t.note
    assert "No query was held out" in t.note
    assert f"{t.n_within_2se} of the 11 settings are within two standard errors" in t.note
    held = irframe.tune_fusion(RUNS, G.qrels, method="wsum", holdout=0.3)
    assert "The held-out score (12 queries not tuned on, seed 0) is the one to report." in held.note
    assert "on 12 held-out queries" in str(held)


def test_frame_types() -> None:
    pd = pytest.importorskip("pandas")
    t = irframe.tune_fusion(RUNS.to_pandas(), G.qrels.to_pandas(), method="rrf", grid=[20, 60])
    assert isinstance(t.table, pd.DataFrame)
    assert isinstance(t.inputs, pd.DataFrame)
    lazy = irframe.tune_fusion(RUNS.lazy(), G.qrels, method="rrf", grid=[20, 60])
    assert isinstance(lazy.table, pl.LazyFrame)
    assert lazy.table.collect().equals(pl.from_pandas(t.table))


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (
            {"method": "combsum"},
            r"'method' parameter of tune_fusion must be one of 'wsum', 'rrf'.*no parameter to tune",
        ),
        ({"method": "rrf", "grid": []}, r"'grid' parameter of tune_fusion must be a non-empty list"),
        ({"method": "rrf", "grid": [10, -1]}, r"'k' parameter of tune_fusion"),
        ({"method": "wsum", "grid": [[1]]}, r"one number per run"),
        ({"method": "rrf", "holdout": 1.5}, r"'holdout' parameter of tune_fusion must be a fraction"),
        ({"method": "rrf", "holdout": ["q01", "nope"]}, r"1 not judged queries \(e.g. \['nope'\]\)"),
        ({"method": "rrf", "holdout": QUERIES}, r"leaving some to tune on"),
        ({"method": "rrf", "holdout": 0.3, "seed": -1}, r"'seed' parameter of tune_fusion"),
        ({"method": "rrf", "measure": ["nDCG@10", "RR"]}, r"one measure name"),
        ({"method": "rrf", "qury_col": "q"}, r"unexpected keyword argument 'qury_col'.*query_col"),
    ],
)
def test_errors(kwargs: dict[str, Any], match: str) -> None:
    with pytest.raises(InvalidParameterError, match=match):
        irframe.tune_fusion(RUNS, G.qrels, **kwargs)
