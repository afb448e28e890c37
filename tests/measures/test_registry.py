"""The measure registry, the options value and the backend registry (architecture issue).

Expected values are computed by hand in the tests; the families defined here exist only
for the test and are unregistered afterwards.
"""

from __future__ import annotations

import math
import pickle
from collections.abc import Iterator

import polars as pl
import pytest

import irframe
from irframe import kernels as K
from irframe._backends.registry import backend_for, backends
from irframe._engine.aggregate import combine_partials, partial_sums
from irframe._input.options import Options
from irframe.exceptions import InvalidParameterError, UnknownMeasureError
from irframe.measures import (
    FAMILIES,
    Ctx,
    Family,
    Measure,
    Params,
    TrecName,
    families,
    parse_measure,
    register,
    to_trec_name,
    unregister,
)
from irframe.measures._base import number_param

RUN = pl.DataFrame(
    {
        "query_id": ["q1"] * 4 + ["q2"] * 2,
        "doc_id": ["a", "b", "c", "d", "a", "b"],
        "rank": [1, 2, 3, 4, 1, 2],
        "relevance": [1, 0, 1, 1, 0, 0],
    }
)


def _rbp(m: Measure, ctx: Ctx) -> pl.Expr:
    """Rank-biased precision, binary: (1 - p) * sum_i rel_i * p^(i-1)."""
    p = float(m.params["p"])
    weights = pl.lit(p).pow(pl.int_range(0, pl.len(), dtype=pl.Int64).cast(pl.Float64))
    hits = K.relevant(1).cast(pl.Float64)
    total = hits * weights if m.cutoff is None else (hits * weights).head(m.cutoff)
    return (1.0 - p) * ctx.over_ranking(m, "sum", total.sum())


@pytest.fixture
def rbp_family() -> Iterator[Family]:
    fam = register(
        Family(
            "TestRBP",
            "rank-biased precision (test family)",
            _rbp,
            Params((number_param("p", 0.8, "persistence", low=0, high=1, closed="neither"),)),
            aliases=("TestRankBiased",),
        )
    )
    yield fam
    unregister("TestRBP")


def test_parameters_never_share_a_column(rbp_family: Family) -> None:
    """Two measures differing only in a parameter get their own intermediate columns."""
    out = irframe.evaluate(RUN, ["TestRBP(p=0.5)", "TestRBP", "TestRBP(p=0.5)@2"], per_query=True)
    q1 = out.row(0, named=True)
    # q1: relevant at ranks 1, 3, 4
    assert q1["TestRBP(p=0.5)"] == pytest.approx(0.5 * (1 + 0.25 + 0.125))
    assert q1["TestRBP"] == pytest.approx(0.2 * (1 + 0.64 + 0.512))
    assert q1["TestRBP(p=0.5)@2"] == pytest.approx(0.5 * 1)
    assert out.row(1, named=True)["TestRBP"] == 0.0


def test_a_registered_family_is_known_everywhere(rbp_family: Family) -> None:
    assert "TestRBP" in FAMILIES
    assert parse_measure("TestRankBiased(p=0.9)@5") == Measure("TestRBP", 5, p=0.9)
    with pytest.raises(UnknownMeasureError, match="TestRBP"):
        parse_measure("TestRBp@5")
    with pytest.raises(InvalidParameterError, match=r"'p'.*\(0, 1\)"):
        parse_measure("TestRBP(p=1.5)")
    with pytest.raises(InvalidParameterError, match="already registered"):
        register(Family("TestRBP", "again", _rbp))
    assert irframe.evaluate(RUN, ["TestRBP(p=0.5)@1"])["TestRBP(p=0.5)@1"].item() == pytest.approx(0.25)


def test_trec_names_follow_the_registry() -> None:
    """trec_eval spellings come from the registered families as they are now (the parser's
    index of them, and the command line's tables of groups and bare names, are rebuilt
    when a family comes or goes)."""
    from irframe.measures.trec_m import expand_groups

    assert parse_measure("P_5") == Measure("P", 5)  # (the index and tables are built)
    assert expand_groups(["test_rbp"]) == ["test_rbp"]
    assert "test_rbp_5" not in expand_groups(["all_trec"])
    with pytest.raises(UnknownMeasureError):
        parse_measure("test_rbp_5")
    fam = register(Family("TestRBPTrec", "test family", _rbp, Params((number_param("p", 0.8, "p"),)),
                          trec=(TrecName("test_rbp_{k}", cutoffs=(5, 10)),)))  # fmt: skip
    try:
        assert parse_measure("test_rbp_5") == Measure("TestRBPTrec", 5)
        assert expand_groups(["test_rbp"]) == ["test_rbp_5", "test_rbp_10"]  # trec_eval's -m test_rbp
        assert {"test_rbp_5", "test_rbp_10"} <= set(expand_groups(["all_trec"]))
    finally:
        unregister(fam.name)
    with pytest.raises(UnknownMeasureError):
        parse_measure("test_rbp_5")
    assert expand_groups(["test_rbp"]) == ["test_rbp"]
    assert "test_rbp_5" not in expand_groups(["all_trec"])


def test_unregistered_family_is_gone(rbp_family: Family) -> None:
    unregister("TestRBP")
    with pytest.raises(UnknownMeasureError):
        parse_measure("TestRBP")
    register(rbp_family)  # the fixture unregisters it again


@pytest.mark.parametrize("fam", families(), ids=lambda f: f.name)
def test_every_family_round_trips_through_its_string(fam: Family) -> None:
    k = None if fam.cutoff == "none" else 7
    m = fam.example(k)  # Measure(fam.name, k), with the required parameters (SDCG's max_rel) set
    assert m == Measure(fam.name, k, **{p.name: p.example for p in fam.params if p.required})
    assert parse_measure(str(m)) == m
    assert hash(parse_measure(str(m))) == hash(m)
    assert pickle.loads(pickle.dumps(m)) == m
    for alias in fam.aliases:
        assert parse_measure(alias + str(m)[len(fam.name) :]) == m


@pytest.mark.parametrize("fam", [f for f in families() if f.trec], ids=lambda f: f.name)
def test_every_trec_name_round_trips(fam: Family) -> None:
    for t in fam.trec:
        values = t.cutoffs or (10.0,)
        for v in values:
            name = t.format(v)
            m = parse_measure(name)
            assert m.family == fam.name
            assert to_trec_name(m) == name, (name, m)


def test_measure_is_an_immutable_value() -> None:
    m = parse_measure("P(rel=2)@5")
    with pytest.raises(AttributeError, match="immutable"):
        m.cutoff = 3  # type: ignore[misc]
    assert m.with_params(rel=3) == parse_measure("P(rel=3)@5")
    assert m @ 10 == parse_measure("P(rel=2)@10")
    assert {m, parse_measure("P(rel=2.0)@5")} == {m}
    with pytest.raises(InvalidParameterError, match="twice"):
        parse_measure("AP(rel=1,rel=2)")


@pytest.mark.parametrize("text", ["P@1_0", "P@\uff15", "P@18446744073709551616", "P@0"])
def test_cutoff_digits_only(text: str) -> None:
    with pytest.raises(InvalidParameterError, match="'k'"):
        parse_measure(text)


# --- the options value ---------------------------------------------------------------------
def test_options_are_validated_once() -> None:
    opts = Options.build(by=["system"], missing="drop", query_col="qid", qrels_relevance_col="label")
    assert opts.qrels_columns == ("qid", "doc_id", "label")
    assert opts.as_kwargs()["by"] == ["system"]
    with pytest.raises(InvalidParameterError, match="'query_col'"):
        Options.build(query_col=None)
    with pytest.raises(InvalidParameterError, match="'by'"):
        Options.build(by=123)
    with pytest.raises(InvalidParameterError, match="did you mean doc_col="):
        Options.build(doc_column="d")
    with pytest.raises(InvalidParameterError, match="'missing'"):
        irframe.evaluate(RUN, ["RR"], missing="skip")  # type: ignore[arg-type]


# --- aggregation ---------------------------------------------------------------------------
def test_aggregations_over_queries() -> None:
    per_query = pl.DataFrame(
        {
            "g": [0.5, 0.0, 0.2],
            "m": [0.5, 0.0, 0.2],
            "s": [2.0, 3.0, 4.0],
            "in_run": [True] * 3,
            "judged": [True] * 3,
        }
    )
    aggs = {"g": "gmean", "m": "mean", "s": "sum"}
    parts = pl.concat(
        [
            partial_sums(per_query[:1], list(aggs), aggregates=aggs),
            partial_sums(per_query[1:], list(aggs), aggregates=aggs),
        ]
    )
    out = combine_partials(parts, list(aggs), aggregates=aggs).row(0, named=True)
    assert out["g"] == pytest.approx(math.exp((math.log(0.5) + math.log(1e-5) + math.log(0.2)) / 3))
    assert out["m"] == pytest.approx(0.7 / 3)
    assert out["s"] == 9.0
    assert out["n_queries"] == 3


# --- the backend registry ------------------------------------------------------------------
def test_backend_lookup_and_options(tmp_path: object) -> None:
    assert backend_for(RUN).name == "in-process"
    assert backend_for("runs/*.parquet").name == "parquet"
    assert backends()[-1].name == "in-process"
    with pytest.raises(InvalidParameterError, match="npartitions"):
        irframe.evaluate(RUN, ["RR"], npartitions=2)


def test_dask_backend_options_pass_through() -> None:
    dd = pytest.importorskip("dask.dataframe")
    ddf = dd.from_pandas(RUN.to_pandas(), npartitions=2)
    out = irframe.evaluate(ddf, ["RR", "P@2"], npartitions=3).compute()
    assert out["RR"].tolist() == [0.5]  # q1: 1, q2: 0 (judged, nothing relevant)
    assert out["P@2"].tolist() == [0.25]


def test_parquet_paths_dispatch_to_out_of_core(tmp_path: object) -> None:
    from pathlib import Path

    path = Path(str(tmp_path)) / "run.parquet"
    RUN.write_parquet(path)
    out = irframe.evaluate(str(path), ["RR"], per_query=True, buckets=2)
    assert out.sort("query_id")["RR"].to_list() == [1.0, 0.0]
