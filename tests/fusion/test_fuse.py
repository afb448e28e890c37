"""irframe.fuse: hand-computed scores, frame types, column conventions, the input checks.

The numbers for every method x norm are checked against ranx in test_fuse_ranx.py; here
each method's rule is written out by hand on a case small enough to follow.
"""

from __future__ import annotations

import random
from typing import Any, get_args

import polars as pl
import pytest

import irframe
from _support.helpers import to_polars
from irframe.exceptions import (
    ColumnNotFoundError,
    DuplicateRowsError,
    InvalidDataError,
    InvalidParameterError,
    IrFrameError,
)
from irframe.fusion import METHODS, NORMS, MethodName, NormName, _impl

# q1: bm25 ranks a, b, c; dense ranks c, a, d.  q2: only bm25 has it (one document).
BM25 = {"query_id": ["q1", "q1", "q1", "q2"], "doc_id": ["a", "b", "c", "x"], "score": [9.0, 7.0, 1.0, 2.0]}
DENSE = {"query_id": ["q1", "q1", "q1"], "doc_id": ["c", "a", "d"], "score": [0.9, 0.8, 0.2]}


def runs(ctor: Any = pl.DataFrame) -> dict[str, Any]:
    return {"bm25": ctor(BM25), "dense": ctor(DENSE)}


def scores(out: Any) -> dict[tuple[str, str], float]:
    df = to_polars(out)
    return {(q, d): s for q, d, s in df.select("query_id", "doc_id", "score").iter_rows()}


def test_rrf_by_hand() -> None:
    got = scores(irframe.fuse(runs(), method="rrf"))
    # 1 / (60 + rank) per run that retrieved the document
    assert got == pytest.approx({
        ("q1", "a"): 1 / 61 + 1 / 62,   # bm25 rank 1, dense rank 2
        ("q1", "c"): 1 / 63 + 1 / 61,   # bm25 rank 3, dense rank 1
        ("q1", "b"): 1 / 62,            # bm25 rank 2 only
        ("q1", "d"): 1 / 63,            # dense rank 3 only
        ("q2", "x"): 1 / 61,            # a query only bm25 has
    }, rel=1e-15)  # fmt: skip
    got = scores(irframe.fuse(runs(), method="rrf", k=0))
    assert got[("q1", "a")] == pytest.approx(1 / 1 + 1 / 2)


def test_combmnz_by_hand() -> None:
    got = scores(irframe.fuse(runs(), method="combmnz"))  # default norm: minmax per run and query
    # bm25 q1: (s - 1) / 8 -> a 1, b 0.75, c 0;  dense q1: (s - 0.2) / 0.7 -> c 1, a 6/7, d 0
    # q2 has one document: max - min = 0, floored at 1e-9, so (2 - 2) / 1e-9 = 0
    assert got == pytest.approx({
        ("q1", "a"): (1 + 0.6 / 0.7) * 2,   # two runs retrieved it
        ("q1", "c"): (0 + 1) * 2,
        ("q1", "b"): 0.75 * 1,
        ("q1", "d"): 0.0,
        ("q2", "x"): 0.0,
    }, rel=1e-12)  # fmt: skip


def test_the_other_score_methods_by_hand() -> None:
    raw = {"norm": None}
    assert scores(irframe.fuse(runs(), method="combsum", **raw))[("q1", "a")] == pytest.approx(9.8)
    assert scores(irframe.fuse(runs(), method="combanz", **raw))[("q1", "a")] == pytest.approx(4.9)
    assert scores(irframe.fuse(runs(), method="combmax", **raw))[("q1", "c")] == 1.0
    # combmin: a run without the document counts +1e9 (ranx), so b keeps bm25's 7
    assert scores(irframe.fuse(runs(), method="combmin", **raw))[("q1", "b")] == 7.0
    assert scores(irframe.fuse(runs(), method="combmin", **raw))[("q1", "a")] == 0.8
    w = scores(irframe.fuse(runs(), method="wsum", weights=[2, -1], **raw))
    assert w[("q1", "a")] == pytest.approx(2 * 9 - 0.8)
    assert w[("q1", "d")] == pytest.approx(-0.2)


def test_combmax_and_combmin_count_a_missing_document_as_minus_and_plus_1e9() -> None:
    far = {"bm25": pl.DataFrame({"query_id": ["q"] * 2, "doc_id": ["a", "b"], "score": [-3e9, -4e9]}),
           "dense": pl.DataFrame({"query_id": ["q"], "doc_id": ["a"], "score": [-5e9]})}  # fmt: skip
    got = scores(irframe.fuse(far, method="combmax", norm=None))
    assert got == {("q", "a"): -3e9, ("q", "b"): -1e9}  # ranx's stand-in beats b's own -4e9
    high = {n: f.with_columns(-pl.col("score")) for n, f in far.items()}
    got = scores(irframe.fuse(high, method="combmin", norm=None))
    assert got == {("q", "a"): 3e9, ("q", "b"): 1e9}  # and +1e9 undercuts b's 4e9


def test_borda_by_hand() -> None:
    got = scores(irframe.fuse(runs(), method="borda"))
    # q1 has 4 candidates (a, b, c, d). A run gives 4, 3, 2 points to its ranks 1, 2, 3 and
    # the points left, (4 - 3 + 1) / 2 = 1, to the one it did not rank.
    assert got == {("q1", "a"): 4 + 3, ("q1", "c"): 2 + 4, ("q1", "b"): 3 + 1, ("q1", "d"): 1 + 2,
                   # q2: 1 candidate; dense ranked nothing: (1 - 0 + 1) / 2 = 1
                   ("q2", "x"): 1 + 1}  # fmt: skip


def test_rank_norm_and_the_other_norms_by_hand() -> None:
    got = scores(irframe.fuse(runs(), method="combsum", norm="rank"))
    # 1 - (rank - 1) / n: bm25 q1 a 1, b 2/3, c 1/3; dense q1 c 1, a 2/3, d 1/3
    assert got[("q1", "a")] == pytest.approx(1 + 2 / 3)
    assert got[("q2", "x")] == 1.0
    got = scores(irframe.fuse(runs(), method="combsum", norm="max"))
    assert got[("q1", "a")] == pytest.approx(9 / 9 + 0.8 / 0.9)
    got = scores(irframe.fuse(runs(), method="combsum", norm="sum"))
    # (s - min) / (sum - n min): bm25 (9 - 1) / (17 - 3), dense (0.8 - 0.2) / (1.9 - 0.6)
    assert got[("q1", "a")] == pytest.approx(8 / 14 + 0.6 / 1.3)
    got = scores(irframe.fuse(runs(), method="combsum", norm="zscore"))
    sd = (sum((x - 17 / 3) ** 2 for x in (9, 7, 1)) / 3) ** 0.5  # population sd, ddof=0
    sd2 = (sum((x - 1.9 / 3) ** 2 for x in (0.9, 0.8, 0.2)) / 3) ** 0.5
    assert got[("q1", "a")] == pytest.approx((9 - 17 / 3) / sd + (0.8 - 1.9 / 3) / sd2)


def test_the_fused_run_is_ranked_with_ties_by_doc_id_descending() -> None:
    out = irframe.fuse(runs(), method="combmnz")
    # a = 2 * 13/7, c = 2: a first; b 0.75; d and q2's x are 0
    assert out.rows() == [
        ("q1", "a", pytest.approx(2 * (1 + 6 / 7)), 1), ("q1", "c", 2.0, 2), ("q1", "b", 0.75, 3),
        ("q1", "d", 0.0, 4), ("q2", "x", 0.0, 1),
    ]  # fmt: skip
    tied = irframe.fuse(
        {"a": pl.DataFrame({"query_id": ["q"] * 3, "doc_id": [9, 10, 100], "score": [1.0] * 3}),
         "b": pl.DataFrame({"query_id": ["q"], "doc_id": [9], "score": [1.0]})},
        method="combsum", norm=None,
    )  # fmt: skip
    # 9 has 2; 10 and 100 tie at 1: "100" > "10" as strings, trec_eval's order
    assert tied.select("doc_id", "rank").rows() == [(9, 1), (100, 2), (10, 3)]


def test_ties_in_a_run_are_broken_by_doc_id_whatever_the_row_order() -> None:
    rng = random.Random(3)
    rows = [(f"q{q}", f"d{d}", float(rng.randint(0, 3))) for q in range(5) for d in range(12)]
    a = pl.DataFrame(rows, schema=["query_id", "doc_id", "score"], orient="row")
    b = a.with_columns(pl.col("score").reverse().over("query_id"))
    for method in ("rrf", "borda"):
        want = irframe.fuse({"a": a, "b": b}, method=method)
        shuffled = {"a": a.sample(fraction=1.0, shuffle=True, seed=1), "b": b.sample(fraction=1.0, seed=2)}
        assert irframe.fuse(shuffled, method=method).equals(want)
    # a tie at ranks 1-2 of a run: doc id descending puts d2 before d1
    run = pl.DataFrame({"query_id": ["q"] * 2, "doc_id": ["d1", "d2"], "score": [1.0, 1.0]})
    other = pl.DataFrame({"query_id": ["q"], "doc_id": ["d9"], "score": [1.0]})
    got = scores(irframe.fuse({"a": run, "b": other}, method="rrf"))
    assert got[("q", "d2")] == pytest.approx(1 / 61)
    assert got[("q", "d1")] == pytest.approx(1 / 62)


def test_a_stacked_frame_fuses_like_the_dict() -> None:
    stacked = pl.concat([pl.DataFrame(BM25).with_columns(system=pl.lit("bm25")),
                         pl.DataFrame(DENSE).with_columns(system=pl.lit("dense"))])  # fmt: skip
    for kwargs in ({"method": "rrf"}, {"method": "wsum", "weights": [0.3, 0.7]}, {"method": "borda"}):
        assert irframe.fuse(stacked, **kwargs).equals(irframe.fuse(runs(), **kwargs))
    renamed = stacked.rename({"system": "run"})
    assert irframe.fuse(renamed, system_col="run").equals(irframe.fuse(runs()))
    # a weights list follows the systems' first appearance
    flipped = pl.concat(
        [stacked.filter(pl.col("system") == "dense"), stacked.filter(pl.col("system") == "bm25")]
    )
    want = irframe.fuse(runs(), method="wsum", weights={"bm25": 0.3, "dense": 0.7})
    assert irframe.fuse(flipped, method="wsum", weights=[0.7, 0.3]).equals(want)


def test_frame_types_come_back_as_given(constructor: Any) -> None:
    out = irframe.fuse(runs(constructor), method="rrf")
    assert isinstance(out, constructor.native_type)
    assert scores(out) == scores(irframe.fuse(runs(), method="rrf"))
    assert list(to_polars(out).columns) == ["query_id", "doc_id", "score", "rank"]


def test_lazy_stays_lazy_and_reads_on_collect() -> None:
    lazy = {"bm25": pl.LazyFrame(BM25), "dense": pl.LazyFrame(DENSE)}
    out = irframe.fuse(lazy, method="combsum")
    assert isinstance(out, pl.LazyFrame)
    assert out.collect_schema() == pl.Schema(
        {"query_id": pl.String, "doc_id": pl.String, "score": pl.Float64, "rank": pl.Int64}
    )
    assert out.collect().equals(irframe.fuse(runs(), method="combsum"))
    bad = {"bm25": pl.LazyFrame(BM25), "dense": pl.LazyFrame({**DENSE, "score": [0.9, None, 0.2]})}
    pending = irframe.fuse(bad, method="combsum")  # the rows are checked when collected
    with pytest.raises(InvalidDataError, match="null, NaN or infinite"):
        pending.collect()


def test_ranks_only_runs_fuse_by_rrf_borda_or_the_rank_norm() -> None:
    ranked = {
        "bm25": pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "b", "c"], "rank": [1, 2, 3]}),
        "dense": pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["c", "a", "d"], "rank": [1, 2, 3]}),
    }
    want = irframe.fuse(runs(), method="rrf")
    assert scores(irframe.fuse(ranked, method="rrf")) == scores(want.filter(pl.col("query_id") == "q1"))
    assert scores(irframe.fuse(ranked, method="combmnz", norm="rank"))[("q1", "a")] == pytest.approx(
        (1 + 2 / 3) * 2
    )
    with pytest.raises(ColumnNotFoundError, match=r"reads the runs' scores.*need only the ranks"):
        irframe.fuse(ranked, method="combsum")


def test_order_rank_or_score_and_their_disagreement() -> None:
    both = {
        "a": pl.DataFrame({"query_id": ["q"] * 2, "doc_id": ["x", "y"], "rank": [1, 2], "score": [1.0, 5.0]}),
        "b": pl.DataFrame({"query_id": ["q"], "doc_id": ["x"], "rank": [1], "score": [1.0]}),
    }
    with pytest.raises(InvalidDataError, match=r"run 'a': its rank and score columns disagree.*order='rank'"):
        irframe.fuse(both, method="rrf")
    by_rank = scores(irframe.fuse(both, method="rrf", order="rank"))
    by_score = scores(irframe.fuse(both, method="rrf", order="score"))
    assert by_rank[("q", "y")] == pytest.approx(1 / 62)
    assert by_score[("q", "y")] == pytest.approx(1 / 61)
    # a score method reads the scores and needs no agreement
    assert scores(irframe.fuse(both, method="combsum", norm=None))[("q", "y")] == 5.0


def test_column_conventions() -> None:
    pt = {n: f.rename({"query_id": "qid", "doc_id": "docno"}) for n, f in runs().items()}
    out = irframe.fuse(pt, method="rrf")  # detected: the pyterrier convention
    assert out.columns == ["qid", "docno", "score", "rank"]
    assert irframe.fuse(pt, method="rrf", columns="pyterrier").equals(out)
    custom = {n: f.rename({"score": "sim"}) for n, f in runs().items()}
    out = irframe.fuse(custom, method="combsum", score_col="sim", rank_col="position")
    assert out.columns == ["query_id", "doc_id", "sim", "position"]
    out = irframe.fuse(runs(), method="rrf", rank_col=None)
    assert out.columns[-1] == "rank"
    cats = {n: f.with_columns(pl.col("doc_id").cast(pl.Categorical)) for n, f in runs().items()}
    assert irframe.fuse(cats).equals(irframe.fuse(runs()))


def test_the_tables_declare_every_choice_once() -> None:
    assert tuple(METHODS) == get_args(MethodName)
    assert tuple(NORMS) == get_args(NormName)
    assert set(_impl.KERNELS) == set(METHODS)
    assert set(_impl.NORM_EXPRS) == set(NORMS)
    for m in METHODS.values():
        assert m.default_norm is None if m.reads == "rank" else m.default_norm == "minmax"


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"method": "mnz"}, InvalidParameterError,
         r"'method' parameter of fuse must be one of 'rrf'.*ranx's 'mnz' is method='combmnz'"),
        ({"method": "combsun"}, InvalidParameterError, r"did you mean method='combsum'"),
        ({"method": "combsum", "norm": "min-max"}, InvalidParameterError,
         r"ranx's 'min-max' is norm='minmax'"),
        ({"method": "combsum", "norm": "zmuv"}, InvalidParameterError, r"norm='zscore'"),
        ({"method": "rrf", "norm": "minmax"}, InvalidParameterError, r"no effect with method='rrf'"),
        ({"method": "borda", "norm": "rank"}, InvalidParameterError, r"no effect with method='borda'"),
        ({"method": "combsum", "k": 60}, InvalidParameterError, r"'k' parameter of fuse is RRF's"),
        ({"method": "rrf", "k": -1}, InvalidParameterError,
         r"'k' parameter of fuse must be a finite number >= 0"),
        ({"method": "rrf", "k": float("inf")}, InvalidParameterError, r"finite number"),
        ({"method": "rrf", "k": True}, InvalidParameterError, r"finite number"),
        ({"method": "rrf", "weights": [1, 1]}, InvalidParameterError,
         r"'weights' parameter of fuse is wsum's"),
        ({"method": "wsum"}, InvalidParameterError, r"must be given with method='wsum'"),
        ({"method": "wsum", "weights": [1.0]}, InvalidParameterError,
         r"one number per run: 2 \('bm25', 'dense'"),
        ({"method": "wsum", "weights": [1, float("nan")]}, InvalidParameterError, r"finite numbers"),
        ({"method": "wsum", "weights": [1, True]}, InvalidParameterError, r"finite numbers"),
        ({"method": "wsum", "weights": "1,1"}, InvalidParameterError,
         r"a list of one finite number per run"),
        ({"method": "wsum", "weights": {"bm25": 1}}, InvalidParameterError, r"Missing: \['dense'\]"),
        ({"method": "wsum", "weights": {"bm25": 1, "dens": 1}}, InvalidParameterError,
         r"Unknown: \['dens'\] \(did you mean 'dense'"),
        ({"method": "wsum", "weights": {"bm25": 1, "dense": None}}, InvalidParameterError,
         r"None for 'dense'"),
        ({"system_col": ""}, InvalidParameterError, r"'system_col' parameter"),
        ({"order": "ranks"}, InvalidParameterError, r"'order' parameter of fuse must be one of"),
        ({"columns": "pyterier"}, InvalidParameterError, r"did you mean 'pyterrier'"),
    ],
)  # fmt: skip
def test_parameter_errors_name_the_parameter_and_the_choices(kwargs: dict, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        irframe.fuse(runs(), **kwargs)


def test_input_errors() -> None:
    with pytest.raises(InvalidParameterError, match="fuse needs at least 2 systems; got 1"):
        irframe.fuse({"bm25": pl.DataFrame(BM25)})
    stacked = pl.DataFrame(BM25).with_columns(system=pl.lit("bm25"))
    with pytest.raises(InvalidParameterError, match="fuse needs at least 2 systems; got 1"):
        irframe.fuse(stacked)
    with pytest.raises(ColumnNotFoundError, match="system column 'system'"):
        irframe.fuse(pl.DataFrame(BM25))
    with pytest.raises(InvalidDataError, match="null or empty system name"):
        irframe.fuse(pl.concat([stacked, pl.DataFrame(DENSE).with_columns(system=pl.lit(None, pl.String))]))
    dup = {"bm25": pl.DataFrame({**BM25, "doc_id": ["a", "a", "c", "x"]}), "dense": pl.DataFrame(DENSE)}
    with pytest.raises(DuplicateRowsError, match=r"run 'bm25' has documents twice.*\('q1', 'a'\)"):
        irframe.fuse(dup)
    nan = {"bm25": pl.DataFrame(BM25), "dense": pl.DataFrame({**DENSE, "score": [0.9, float("nan"), 0.2]})}
    with pytest.raises(
        InvalidDataError, match=r"run 'dense' has 1 null, NaN or infinite values in the scores"
    ):
        irframe.fuse(nan, method="combsum")
    with pytest.raises(InvalidDataError, match=r"run 'dense' has 1 null, NaN or infinite values in the rank"):
        irframe.fuse(nan, method="rrf")
    null_id = {"bm25": pl.DataFrame(BM25), "dense": pl.DataFrame({**DENSE, "doc_id": ["c", None, "d"]})}
    with pytest.raises(InvalidDataError, match=r"run 'dense' has 1 rows with a null"):
        irframe.fuse(null_id)
    ints = {"bm25": pl.DataFrame(BM25), "dense": pl.DataFrame({**DENSE, "doc_id": [1, 2, 3]})}
    with pytest.raises(InvalidDataError, match=r"'doc_id' has dtype String in run 'bm25' and Int64"):
        irframe.fuse(ints)
    text = {"bm25": pl.DataFrame(BM25), "dense": pl.DataFrame({**DENSE, "score": ["0.9", "0.8", "0.2"]})}
    with pytest.raises(InvalidDataError, match=r"run 'dense'.*must be numeric"):
        irframe.fuse(text, method="combsum")
    with pytest.raises(ColumnNotFoundError, match=r"run 'dense': .*doc_id"):
        irframe.fuse({"bm25": pl.DataFrame(BM25), "dense": pl.DataFrame(DENSE).rename({"doc_id": "docid"})})


def test_mixed_frame_kinds_are_refused() -> None:
    pd = pytest.importorskip("pandas")
    with pytest.raises(InvalidParameterError, match=r"different kinds \('bm25': polars, 'dense': pandas\)"):
        irframe.fuse({"bm25": pl.DataFrame(BM25), "dense": pd.DataFrame(DENSE)})


def test_every_error_is_an_irframe_error() -> None:
    assert issubclass(DuplicateRowsError, IrFrameError)
    with pytest.raises(IrFrameError):
        irframe.fuse(runs(), method="nope")  # type: ignore[arg-type]


def test_fused_scores_are_the_same_on_every_call() -> None:
    """Each document's weighted scores are summed in one order, every call alike (on polars'
    default engine the last bit of a fused score changed from one call to the next)."""
    from irframe.datasets import golden

    runs = golden().runs
    first = irframe.fuse(runs, method="wsum", norm="minmax", weights=[0.3, 0.3, 0.4])
    for _ in range(4):
        assert irframe.fuse(runs, method="wsum", norm="minmax", weights=[0.3, 0.3, 0.4]).equals(first)
