"""compare_report(..., by=...) keeps each system's overall comparison (as ``check --by`` does):
first in the table, in the correction family and in the headline, shown as ``all`` in text and
markdown and as "All queries" on the HTML page.

The case, by hand: 30 queries in 3 segments of 10; the baseline scores 0.5 everywhere and the
new system 0.5 + d with the same ten deltas d in each segment (mean +0.1).  A paired t test on
10 queries is not significant at 0.05 after Holm over the family of 4 (overall + 3 segments);
on all 30 it is.  scipy's ``ttest_rel`` gives the p-values; Holm's adjustment is written out.
"""

from __future__ import annotations

import re

import polars as pl
import pytest

import irframe

DELTAS = [0.3, -0.1, 0.25, 0.0, 0.2, -0.05, 0.15, 0.1, -0.1, 0.25]
SEGMENTS = ["head", "torso", "tail"]
VALUES = pl.DataFrame(
    [
        (system, f"q{10 * s + i:02d}", seg, 0.5 + (d if system == "new" else 0.0))
        for system in ("old", "new")
        for s, seg in enumerate(SEGMENTS)
        for i, d in enumerate(DELTAS)
    ],
    schema=["system", "query_id", "segment", "v"],
    orient="row",
)


@pytest.fixture(scope="module")
def report() -> irframe.ComparisonReport:
    return irframe.compare_report(VALUES, measures=["v"], by="segment", test="t", n_bootstrap=200)


def _holm(p: list[float]) -> list[float]:
    order = sorted(range(len(p)), key=lambda i: p[i])
    out, running = [0.0] * len(p), 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(p) - rank) * p[i]))
        out[i] = running
    return out


def test_the_overall_row_leads_the_table_and_is_corrected_with_the_segments(
    report: irframe.ComparisonReport,
) -> None:
    ss = pytest.importorskip("scipy.stats", reason="needs pip install scipy (the t test's oracle)")
    new = [0.5 + d for d in DELTAS]
    p_seg = float(ss.ttest_rel(new, [0.5] * 10).pvalue)
    p_all = float(ss.ttest_rel(new * 3, [0.5] * 30).pvalue)
    want = _holm([p_all, p_seg, p_seg, p_seg])
    t = report.table
    assert t.get_column("segment").to_list() == [None, "head", "tail", "torso"]
    assert t.get_column("n_queries").to_list() == [30, 10, 10, 10]
    assert t.get_column("delta").to_list() == pytest.approx([0.1] * 4)
    assert t.get_column("p_value").to_list() == pytest.approx([p_all, p_seg, p_seg, p_seg])
    assert t.get_column("p_adjusted").to_list() == pytest.approx(want)
    assert t.get_column("significant").to_list() == [True, False, False, False]  # (want: 0.01, 0.27)
    assert report.family_size == 4


def test_text_and_markdown_show_the_overall_rows(report: irframe.ComparisonReport) -> None:
    text, md = report.to_text(), report.to_markdown(details=True)
    assert re.search(r"^all\s+old\s+0\.5000$", text, flags=re.M), text
    assert re.search(r"^all\s+new\s+0\.6000▲ \(\+20\.0%\)$", text, flags=re.M), text
    assert re.search(r"^v\s+new\s+all\s+0\.6000\s+\+0\.1000", text, flags=re.M), text
    assert "| all | new | 0.6000▲ (+20.0%) |" in md, md
    assert "x (overall + 3 segment(s))" in text


def test_the_page_headline_counts_the_overall_comparison(report: irframe.ComparisonReport) -> None:
    from irframe._report.compare import headline, page_tables  # (the page's parts, without its plots)

    assert headline(report).startswith(
        "1 of 4 comparisons significant after Holm correction (alpha = 0.05): new better on v (+0.1000"
    )
    tables = "\n".join(page_tables(report))
    assert "<h3>All queries</h3>" in tables
    assert tables.index("<h3>All queries</h3>") < tables.index("<h3>segment = head</h3>")
