"""compare(), compare_report() and moved() on small hand-made runs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import polars as pl
import pytest

from irframe._compare import compare, compare_report, moved
from irframe.exceptions import ColumnNotFoundError, InvalidDataError, InvalidParameterError

QUERIES = ["q1", "q2", "q3", "q4"]
QRELS = pl.DataFrame({"query_id": QUERIES, "doc_id": ["r"] * 4, "relevance": [1, 1, 1, 1]})


def run_with_relevant_at(ranks: list[int]) -> pl.DataFrame:
    """One relevant doc 'r' per query, at the given rank; filler docs f1, f2, ... elsewhere."""
    rows = []
    for q, pos in zip(QUERIES, ranks, strict=True):
        fill = iter(f"f{i}" for i in range(1, 10))
        rows += [(q, "r" if k == pos else next(fill), k) for k in range(1, 4)]
    return pl.DataFrame(rows, schema=["query_id", "doc_id", "rank"], orient="row")


# bm25: RR = [1, 1/2, 1/3, 1], P@1 = [1, 0, 0, 1]
# new:  RR = [1, 1, 1, 1/2],   P@1 = [1, 1, 1, 0]
BM25 = run_with_relevant_at([1, 2, 3, 1])
NEW = run_with_relevant_at([1, 1, 1, 2])
RUNS = {"bm25": BM25, "new": NEW}


def test_means_deltas_and_counts_by_hand() -> None:
    t = compare(RUNS, QRELS, ["RR", "P@1"], baseline="bm25")
    assert isinstance(t, pl.DataFrame)
    assert t.get_column("measure").to_list() == ["RR", "P@1"]
    rr = t.row(0, named=True)
    assert rr["system"] == "new"
    assert rr["baseline"] == "bm25"
    assert rr["mean"] == pytest.approx(3.5 / 4)
    assert rr["baseline_mean"] == pytest.approx((1 + 1 / 2 + 1 / 3 + 1) / 4)
    assert rr["delta"] == pytest.approx(1 / 6)
    assert rr["rel_delta"] == pytest.approx((1 / 6) / ((1 + 1 / 2 + 1 / 3 + 1) / 4))
    assert (rr["wins"], rr["ties"], rr["losses"], rr["n_queries"]) == (2, 1, 1, 4)
    # exact sign flips of the non-zero deltas (1/2, 2/3, -1/2): |sum| >= 2/3 in 6 of 8
    assert rr["p_value"] == pytest.approx(0.75)
    d = np.array([0, 1 / 2, 2 / 3, -1 / 2])
    assert rr["effect_size"] == pytest.approx(d.mean() / d.std(ddof=1))
    assert d.min() <= rr["ci_low"] <= rr["delta"] <= rr["ci_high"] <= d.max()
    p1 = t.row(1, named=True)
    assert (p1["mean"], p1["baseline_mean"], p1["delta"]) == (0.75, 0.5, 0.25)
    assert (p1["wins"], p1["ties"], p1["losses"]) == (2, 1, 1)
    # non-zero deltas (1, 1, -1): |sum| >= 1 for every sign vector
    assert p1["p_value"] == 1.0
    # Holm over the family of 2: sorted (0.75, 1.0) -> (1.0, 1.0)
    assert t.get_column("p_adjusted").to_list() == [1.0, 1.0]
    assert t.get_column("family_size").to_list() == [2, 2]
    assert not any(t.get_column("significant"))
    assert set(t.get_column("test")) == {"randomization"}
    assert set(t.get_column("correction")) == {"holm"}


def test_t_and_wilcoxon_match_scipy_on_the_paired_vectors() -> None:
    ss = pytest.importorskip("scipy.stats")
    x = [1, 1, 1, 1 / 2]
    y = [1, 1 / 2, 1 / 3, 1]
    t = compare(RUNS, QRELS, ["RR"], test="t", correction="none")
    assert t.item(0, "p_value") == pytest.approx(float(ss.ttest_rel(x, y).pvalue), rel=1e-10)
    assert t.item(0, "p_adjusted") == t.item(0, "p_value")
    w = compare(RUNS, QRELS, ["RR"], test="wilcoxon")
    assert w.item(0, "p_value") == pytest.approx(float(ss.wilcoxon(x, y).pvalue), rel=1e-10)


def test_pandas_in_pandas_out_and_stacked_equals_dict() -> None:
    pd_runs = {k: v.to_pandas() for k, v in RUNS.items()}
    t_pd = compare(pd_runs, QRELS.to_pandas(), ["RR", "P@1"])
    assert isinstance(t_pd, pd.DataFrame)
    stacked = pl.concat([v.with_columns(system=pl.lit(k)) for k, v in RUNS.items()])
    t_st = compare(stacked, QRELS, ["RR", "P@1"], baseline="bm25")
    t_dict = compare(RUNS, QRELS, ["RR", "P@1"])
    assert t_st.equals(t_dict)
    assert t_pd["delta"].tolist() == t_dict.get_column("delta").to_list()
    lazy = compare(stacked.lazy(), QRELS, ["RR"])
    assert isinstance(lazy, pl.LazyFrame)


def test_system_col_name_is_kept() -> None:
    stacked = pl.concat([v.with_columns(run=pl.lit(k)) for k, v in RUNS.items()])
    t = compare(stacked, QRELS, "RR", system_col="run", baseline="bm25")
    assert t.columns[0] == "run"
    assert t.item(0, "run") == "new"


def test_missing_and_unjudged_queries() -> None:
    # 'new' lacks q4 entirely and adds q9, which has no judgments
    new = pl.concat(
        [
            NEW.filter(pl.col("query_id") != "q4"),
            pl.DataFrame({"query_id": ["q9"], "doc_id": ["z"], "rank": [1]}),
        ]
    )
    runs = {"bm25": BM25, "new": new}
    zero = compare(runs, QRELS, ["RR"]).row(0, named=True)
    assert zero["n_queries"] == 4  # q4 counts as 0 for 'new'; q9 is unjudged: excluded
    assert zero["mean"] == pytest.approx(3 / 4)
    drop = compare(runs, QRELS, ["RR"], missing="drop").row(0, named=True)
    assert drop["n_queries"] == 3
    assert drop["mean"] == 1.0
    assert drop["baseline_mean"] == pytest.approx((1 + 1 / 2 + 1 / 3) / 3)


def test_by_groups_and_family_size() -> None:
    qrels = QRELS.with_columns(kind=pl.Series(["short", "short", "long", "long"]))
    third = run_with_relevant_at([3, 3, 3, 3])
    t = compare({"bm25": BM25, "new": NEW, "bad": third}, qrels, ["RR", "P@1"], by="kind")
    assert t.height == 2 * 2 * 3  # systems x measures x (overall + 2 segments)
    assert set(t.get_column("family_size")) == {12}
    row = t.filter(
        (pl.col("system") == "new") & (pl.col("measure") == "RR") & (pl.col("kind") == "short")
    ).row(0, named=True)
    assert row["n_queries"] == 2
    assert row["mean"] == 1.0
    assert row["baseline_mean"] == 0.75
    assert t.get_column("system").to_list()[:6] == ["new"] * 6  # input order of the systems
    # each (system, measure) leads with its overall comparison (kind null): compare without by
    assert t.get_column("kind").to_list()[:3] == [None, "long", "short"]
    plain = compare({"bm25": BM25, "new": NEW, "bad": third}, qrels, ["RR", "P@1"])
    same = [
        "system",
        "measure",
        "mean",
        "baseline_mean",
        "delta",
        "ci_low",
        "ci_high",
        "p_value",
        "n_queries",
    ]
    assert t.filter(pl.col("kind").is_null()).select(same).equals(plain.select(same))


def test_degenerate_rows_have_null_p_and_a_note() -> None:
    one = QRELS.filter(pl.col("query_id") == "q2")
    t = compare(RUNS, one, ["RR"], missing="drop").row(0, named=True)
    assert t["n_queries"] == 1
    assert t["p_value"] is None
    assert t["note"] == "n < 2"
    assert t["family_size"] == 0
    assert t["significant"] is False
    same = compare({"a": BM25, "b": BM25}, QRELS, ["RR"]).row(0, named=True)
    assert same["p_value"] == 1.0
    assert same["ties"] == 4
    assert same["effect_size"] is None


def test_significant_effect_is_flagged_and_seed_reproducible() -> None:
    rng = np.random.default_rng(0)
    n = 40
    qids = [f"q{i:02d}" for i in range(n)]
    qrels = pl.DataFrame({"query_id": qids, "doc_id": ["r"] * n, "relevance": [1] * n})

    def run(p_top: float) -> pl.DataFrame:
        pos = np.where(rng.random(n) < p_top, 1, 3)
        rows = [(q, d, (1 if d == "r" else 2) if p == 1 else (3 if d == "r" else 1))
                for q, p in zip(qids, pos, strict=True) for d in ("r", "x")]  # fmt: skip
        return pl.DataFrame(rows, schema=["query_id", "doc_id", "rank"], orient="row")

    runs = {"base": run(0.2), "good": run(0.9)}
    a = compare(runs, qrels, ["RR", "P@1"], seed=3)
    b = compare(runs, qrels, ["RR", "P@1"], seed=3)
    assert a.equals(b)
    assert all(a.get_column("significant"))
    assert (a.get_column("p_value") >= 1 / 10_001).all()


def test_report_text_markdown_latex() -> None:
    rng = np.random.default_rng(1)
    n = 30
    qids = [f"q{i:02d}" for i in range(n)]
    qrels = pl.DataFrame({"query_id": qids, "doc_id": ["r"] * n, "relevance": [1] * n})

    def run(ranks: np.ndarray) -> pl.DataFrame:
        return pl.DataFrame({"query_id": qids, "doc_id": ["r"] * n, "rank": ranks.tolist()})

    runs = {"bm25": run(rng.integers(1, 4, n)), "better": run(np.ones(n, dtype=int))}
    rep = compare_report(runs, qrels, ["RR", "P@1"], test="t")
    text = str(rep)
    assert "▲" in text
    assert "family of 2 comparisons" in text
    assert "bm25" in text
    assert "better" in text
    ascii_text = rep.to_text(ascii=True)
    assert all(ord(c) < 128 for c in ascii_text)
    md = rep.to_markdown()
    assert md.startswith("| system | RR | P@1 |")
    assert "|:---|---:|---:|" in md
    tex = rep.to_latex(label="tab:cmp")
    assert r"\begin{tabular}{lrr}" in tex
    assert r"$^{\blacktriangle}$" in tex
    assert r"\label{tab:cmp}" in tex
    assert "%" not in tex.replace(r"\%", "")
    assert isinstance(rep.table, pl.DataFrame)
    assert "family_size=2" in repr(rep)


def test_validation_errors() -> None:
    with pytest.raises(InvalidParameterError, match="did you mean baseline='bm25'"):
        compare(RUNS, QRELS, ["RR"], baseline="bm52")
    with pytest.raises(InvalidParameterError, match="needs at least 2 systems; got 1"):
        compare({"bm25": BM25}, QRELS, ["RR"])
    with pytest.raises(InvalidParameterError, match="'test' parameter"):
        compare(RUNS, QRELS, ["RR"], test="anova")  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError, match="'correction' parameter"):
        compare(RUNS, QRELS, ["RR"], correction="sidak")  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError, match="'alpha' parameter"):
        compare(RUNS, QRELS, ["RR"], alpha=5)
    with pytest.raises(ColumnNotFoundError, match="system"):
        compare(BM25, QRELS, ["RR"])


# --- moved -----------------------------------------------------------------------------
def test_moved_sorted_by_absolute_delta_with_docs_and_text() -> None:
    queries = pd.DataFrame({"query_id": QUERIES, "text": ["one", "two", "three", "four"]})
    m = moved({k: v.to_pandas() for k, v in RUNS.items()}, QRELS.to_pandas(), "RR", queries=queries)
    assert isinstance(m, pd.DataFrame)
    # deltas: q1 0, q2 +1/2, q3 +2/3, q4 -1/2 -> q3, then q2/q4 by id, then q1
    assert m["query_id"].tolist() == ["q3", "q2", "q4", "q1"]
    assert m["text"].tolist() == ["three", "two", "four", "one"]
    assert m["delta"].tolist() == pytest.approx([2 / 3, 1 / 2, -1 / 2, 0])
    assert m["baseline_value"].tolist() == pytest.approx([1 / 3, 1 / 2, 1, 1])
    assert m["value"].tolist() == pytest.approx([1, 1, 1 / 2, 1])
    # lists of {doc_id, grade} in ranking order, grade None: unjudged (issue 34 item 9; the
    # report shows them as "f1 (?), f2 (?), r (1)")
    f1, f2, r = ({"doc_id": d, "grade": g} for d, g in (("f1", None), ("f2", None), ("r", 1)))
    assert list(m["baseline_docs"].iloc[0]) == [f1, f2, r]
    assert list(m["system_docs"].iloc[0]) == [r, f1, f2]
    assert list(m.columns) == [
        "system", "query_id", "text", "baseline_value", "value", "delta",
        "baseline_docs", "system_docs",
    ]  # fmt: skip


def test_moved_n_systems_and_score_order() -> None:
    # score ordering with a tie: trec_eval breaks it by doc id descending
    scored = pl.DataFrame({"query_id": QUERIES * 2, "doc_id": ["a"] * 4 + ["r"] * 4, "score": [1.0] * 8})

    def by_score(run: pl.DataFrame) -> pl.DataFrame:
        return run.with_columns(score=-pl.col("rank").cast(pl.Float64)).drop("rank")

    runs = {"bm25": by_score(BM25), "new": by_score(NEW), "tie": scored}
    m = moved(runs, QRELS, "RR", n=2, system="tie", docs_top=2)
    assert m.height == 2
    assert set(m.get_column("system")) == {"tie"}
    assert m.item(0, "system_docs").to_list() == [{"doc_id": "r", "grade": 1}, {"doc_id": "a", "grade": None}]
    # ("r" > "a": r first)
    everyone = moved(runs, QRELS, "RR", n=None, docs_top=0)
    assert everyone.get_column("system").to_list() == ["new"] * 4 + ["tie"] * 4
    assert "system_docs" not in everyone.columns
    with pytest.raises(InvalidParameterError, match="did you mean system='new'"):
        moved(runs, QRELS, "RR", system="neww")
    with pytest.raises(InvalidParameterError, match="one measure"):
        moved(runs, QRELS, ["RR", "P@1"])


def test_by_column_in_the_runs_only_is_a_query_attribute() -> None:
    kinds = pl.DataFrame({"query_id": QUERIES, "kind": ["short", "short", "long", "long"]})
    runs = {k: v.join(kinds, on="query_id") for k, v in RUNS.items()}
    in_runs = compare(runs, QRELS, ["RR"], by="kind")
    in_qrels = compare(RUNS, QRELS.join(kinds, on="query_id"), ["RR"], by="kind")
    assert in_runs.get_column("n_queries").to_list() == [4, 2, 2]  # overall, then no zero-filled strangers
    assert (
        in_runs.select("kind", "mean", "baseline_mean")
        .sort("kind")
        .equals(in_qrels.select("kind", "mean", "baseline_mean").sort("kind"))
    )
    varies = {k: v.with_columns(kind=pl.col("rank").cast(pl.String)) for k, v in RUNS.items()}
    with pytest.raises(InvalidDataError, match="by='kind': query 'q1' has several values in the runs"):
        compare(varies, QRELS, ["RR"], by="kind")


def test_int_query_ids_keep_their_dtype_and_custom_column_names() -> None:
    def renamed(run: pl.DataFrame) -> pl.DataFrame:
        return run.with_columns(pl.col("query_id").str.slice(1).cast(pl.Int64)).rename(
            {"query_id": "qid", "doc_id": "docno"}
        )

    qrels = renamed(QRELS).rename({"relevance": "rel"})
    runs = {k: renamed(v) for k, v in RUNS.items()}
    kw = {"query_col": "qid", "doc_col": "docno", "relevance_col": "rel"}
    t = compare(runs, qrels, ["RR"], **kw)
    assert t.item(0, "delta") == pytest.approx(1 / 6)
    queries = pl.DataFrame({"qid": [1, 2, 3, 4], "text": ["one", "two", "three", "four"]})
    m = moved(runs, qrels, "RR", queries=queries, docs_top=1, **kw)
    assert m.schema["qid"] == pl.Int64
    assert m.get_column("qid").to_list() == [3, 2, 4, 1]
    assert m.get_column("text").to_list() == ["three", "two", "four", "one"]
    assert m.item(0, "system_docs").to_list() == [{"doc_id": "r", "grade": 1}]


def test_importing_compare_adds_no_heavy_module() -> None:
    """irframe exports compare eagerly, so importing irframe must stay light: numpy,
    irframe.stats, pandas, pyarrow and the plotting stack load on first use."""
    import subprocess
    import sys

    heavy = ("numpy", "irframe.stats", "scipy", "matplotlib", "pandas", "pyarrow")
    code = f"import sys, irframe; print(sorted(m for m in {heavy!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"  # numpy and irframe.stats load on first use
