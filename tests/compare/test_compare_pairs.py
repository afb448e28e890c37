"""compare(pairs="all"): every pair with one correction; ComparisonReport's HTML for notebooks."""

from __future__ import annotations

import html
import re

import polars as pl
import pytest

from irframe._compare import compare, compare_report, moved
from irframe.exceptions import InvalidParameterError

QUERIES = ["q1", "q2", "q3", "q4"]
QRELS = pl.DataFrame({"query_id": QUERIES, "doc_id": ["r"] * 4, "relevance": [1] * 4})


def run_with_relevant_at(ranks: list[int]) -> pl.DataFrame:
    """One relevant doc 'r' per query at the given rank; filler docs elsewhere in ranks 1-3."""
    rows = []
    for q, pos in zip(QUERIES, ranks, strict=True):
        fill = iter(f"f{i}" for i in range(1, 10))
        rows += [(q, "r" if k == pos else next(fill), k) for k in range(1, 4)]
    return pl.DataFrame(rows, schema=["query_id", "doc_id", "rank"], orient="row")


# RR per query:  bm25 [1, 1/2, 1/3, 1]   new [1, 1, 1, 1/2]   third [1/2, 1/2, 1/2, 1/2]
RUNS = {
    "bm25": run_with_relevant_at([1, 2, 3, 1]),
    "new": run_with_relevant_at([1, 1, 1, 2]),
    "third": run_with_relevant_at([2, 2, 2, 2]),
}


def holm(p: list[float]) -> list[float]:
    """Plain Holm step-down, written out independently of irframe.stats."""
    order = sorted(range(len(p)), key=lambda i: p[i])
    out, running = [0.0] * len(p), 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(p) - rank) * p[i]))
        out[i] = running
    return out


def test_every_pair_by_hand() -> None:
    t = compare(RUNS, QRELS, "RR", pairs="all")
    assert t.select("system", "baseline").rows() == [("new", "bm25"), ("third", "bm25"), ("third", "new")]
    # deltas: new-bm25 [0, 1/2, 2/3, -1/2]; third-bm25 [-1/2, 0, 1/6, -1/2]; third-new [-1/2]*3 + [0]
    assert t.get_column("delta").to_list() == pytest.approx([1 / 6, -5 / 24, -3 / 8])
    assert t.select("wins", "ties", "losses").rows() == [(2, 1, 1), (1, 1, 2), (0, 1, 3)]
    # exact sign flips: |sum| >= |T| in 6/8, 4/8 and 2/8 of the sign vectors
    assert t.get_column("p_value").to_list() == pytest.approx([0.75, 0.5, 0.25])
    # one Holm correction over the family of 3: sorted (.25, .5, .75) -> (.75, 1, 1)
    assert t.get_column("p_adjusted").to_list() == pytest.approx([1.0, 1.0, 0.75])
    assert set(t.get_column("family_size")) == {3}
    assert t.get_column("baseline_mean").to_list() == pytest.approx([17 / 24, 17 / 24, 7 / 8])


def test_every_pair_equals_each_baseline_comparison_before_the_correction() -> None:
    every = compare(RUNS, QRELS, ["RR", "P@1"], pairs="all", test="randomization", seed=4)
    assert every.height == 3 * 2
    for base in ("bm25", "new"):
        one = compare(RUNS, QRELS, ["RR", "P@1"], baseline=base, seed=4)
        keep = ["system", "measure", "delta", "ci_low", "ci_high", "p_value", "wins", "losses"]
        want = one.filter(pl.col("system") != "bm25").select(keep) if base == "new" else one.select(keep)
        got = every.filter(pl.col("baseline") == base).select(keep)
        assert got.sort("system", "measure").equals(want.sort("system", "measure"))
    raw = every.get_column("p_value").to_list()
    assert every.get_column("p_adjusted").to_list() == pytest.approx(holm(raw))


def test_by_groups_multiply_the_family() -> None:
    qrels = QRELS.with_columns(kind=pl.Series(["short", "short", "long", "long"]))
    t = compare(RUNS, qrels, ["RR"], pairs="all", by="kind", correction="bonferroni")
    assert t.height == 3 * 3  # pairs x (overall + 2 segments)
    assert set(t.get_column("family_size")) == {9}
    row = t.filter((pl.col("system") == "third") & (pl.col("baseline") == "new") & (pl.col("kind") == "long"))
    assert row.item(0, "delta") == pytest.approx((-1 / 2 + 0) / 2)  # q3: 1/2 - 1, q4: 1/2 - 1/2


def test_default_and_explicit_none_keep_the_first_system_as_baseline() -> None:
    default = compare(RUNS, QRELS, "RR")
    assert default.equals(compare(RUNS, QRELS, "RR", baseline=None))
    assert default.equals(compare(RUNS, QRELS, "RR", baseline="bm25", pairs="baseline"))
    assert set(default.get_column("baseline")) == {"bm25"}
    assert set(default.get_column("family_size")) == {2}


def test_pairs_validation() -> None:
    with pytest.raises(InvalidParameterError, match=r"pairs='all'.*baseline='bm25'"):
        compare(RUNS, QRELS, "RR", pairs="all", baseline="bm25")
    with pytest.raises(InvalidParameterError, match="'pairs' parameter of compare"):
        compare(RUNS, QRELS, "RR", pairs="some")  # type: ignore[arg-type]


def test_every_pair_needs_shared_queries_for_each_pair() -> None:
    runs = {**RUNS, "lost": RUNS["bm25"].with_columns(pl.col("query_id").str.to_uppercase())}
    with pytest.raises(InvalidParameterError, match="'bm25' and 'lost'"):
        compare(runs, QRELS, "RR", pairs="all")


def test_every_pair_report_text_markdown_latex() -> None:
    rep = compare_report(RUNS, QRELS, ["RR"], pairs="all")
    assert rep.baseline is None
    assert rep.pairs == "all"
    assert "pairs='all'" in repr(rep)
    text = str(rep)
    # first table: every system's own mean (bm25 17/24, new 7/8, third 1/2), no baseline row
    assert re.search(r"^bm25\s+0\.7083$", text, re.MULTILINE)
    assert re.search(r"^new\s+0\.8750$", text, re.MULTILINE)
    assert re.search(r"^third\s+0\.5000$", text, re.MULTILINE)
    assert re.search(r"^RR\s+third\s+new\s+0\.5000\s+-0\.3750 .* 0/1/3\s+4$", text, re.MULTILINE)
    assert "Every pair of systems" in text
    assert "family of 3 comparisons (3 pair(s) of systems x 1 measure(s))" in " ".join(text.split())
    md = rep.to_markdown()
    assert "| measure | system | vs |" in md  # details shown by default for every pair
    assert "| measure |" not in rep.to_markdown(details=False)
    tex = rep.to_latex()
    assert "measure & system & vs &" in tex
    assert r"\begin{tabular}{lllrrrrrrrr}" in tex


def test_every_pair_forest_plot_labels_name_both_systems() -> None:
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from irframe.plotting import plot_comparison

    ax = plot_comparison(compare_report(RUNS, QRELS, ["RR"], pairs="all"))
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == ["new vs bm25 RR", "third vs bm25 RR", "third vs new RR"]
    plt.close("all")


def test_moved_is_unchanged_by_pairs() -> None:
    m = moved(RUNS, QRELS, "RR", system="new", docs_top=0)
    assert m.get_column("delta").to_list() == pytest.approx([2 / 3, 1 / 2, -1 / 2, 0])


# --- HTML -------------------------------------------------------------------------------
def test_html_shows_summary_and_details_escaped() -> None:
    runs = {"<b>bm25</b>": RUNS["bm25"], "new & improved": RUNS["new"]}
    rep = compare_report(runs, QRELS, ["RR"], test="t")
    page = rep._repr_html_()
    assert page == rep.to_html()
    assert page.count("<table>") == 2
    assert "<b>" not in page
    assert "&lt;b&gt;bm25&lt;/b&gt;" in page
    assert "new &amp; improved" in page
    for header in ("95% CI", "p", "p_adj", "W/T/L", "n"):
        assert f"<th>{header}</th>" in page
    row = rep.to_polars().row(0, named=True)
    ci = f"[{row['ci_low']:+.4f}, {row['ci_high']:+.4f}]"
    assert f"<td>{ci}</td>" in page
    assert f"<td>{row['p_value']:.3f}</td>" in page
    assert "<td>2/1/1</td>" in page  # new vs bm25: q2, q3 better, q1 tied, q4 worse
    assert "<td>0.7083</td>" in page  # the baseline's mean RR, 17/24
    assert html.escape(rep.method_text()) in page


def test_html_of_every_pair_has_the_vs_column() -> None:
    page = compare_report(RUNS, QRELS, ["RR"], pairs="all").to_html()
    assert "<th>vs</th>" in page
    assert "<td>0/1/3</td>" in page
