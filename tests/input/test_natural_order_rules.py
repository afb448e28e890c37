"""Natural order is written once (irframe._input.columns): ids like q1-10, q1-9, q1-2 come
out in the same order from every table and report (issue 39: the check report used its own
copy, which disagreed with the per-query tables)."""

from __future__ import annotations

import polars as pl
import pytest

import irframe
from irframe._input.columns import natural_key, natural_order, natural_sorted

IDS = ["q1-10", "q1-9", "q1-2"]
NATURAL = ["q1-2", "q1-9", "q1-10"]  # every run of digits compared as a number


def _run(ids: list[str], shift: int = 0) -> pl.DataFrame:
    """Two documents per query; ``shift`` swaps them on every other query (a different run)."""
    rows = [
        (q, d, r if (i + shift) % 2 == 0 else 3 - r)
        for i, q in enumerate(ids)
        for d, r in (("a", 1), ("b", 2))
    ]
    return pl.DataFrame(rows, schema=["query_id", "doc_id", "rank"], orient="row")


QRELS = pl.DataFrame({"query_id": IDS, "doc_id": ["a"] * 3, "relevance": [1] * 3})


def test_the_three_forms_agree() -> None:
    """The Python key, the polars expressions and natural_sorted (both of its paths)."""
    many = [f"q{a}-{b}" for a in (1, 2, 10) for b in (0, 2, 9, 10, 100)] + [
        "q01-2",
        "q1",
        "q",
        "",
        "1-2",
        "x",
    ]
    by_key = sorted(many, key=natural_key)
    df = pl.DataFrame({"q": list(reversed(many))})
    assert df.sort(natural_order(df.schema, ["q"]))["q"].to_list() == by_key
    assert natural_sorted(df, ["q"])["q"].to_list() == by_key
    big = pl.DataFrame({"q": list(reversed(many)) * 200})  # above the Python path's size
    assert natural_sorted(big, ["q"])["q"].unique(maintain_order=True).to_list() == by_key
    assert by_key[:4] == ["", "1-2", "q", "q1"]
    assert by_key.index("q1-2") < by_key.index("q1-9") < by_key.index("q1-10") < by_key.index("q2-0")


def test_evaluate_per_query() -> None:
    out = irframe.evaluate(_run(IDS), ["RR"], QRELS, per_query=True)
    assert out["query_id"].to_list() == NATURAL


@pytest.mark.parametrize("shift", [1])
def test_check_report_and_evaluate_segments(shift: int) -> None:
    """Segments named like ids: the check table's groups and evaluate's by= rows."""
    queries = pl.DataFrame({"query_id": IDS, "segment": IDS})
    res = irframe.check(_run(IDS, shift), QRELS, _run(IDS), ["RR"], by="segment", queries=queries)
    groups = (
        pl.from_pandas(res.comparisons) if not isinstance(res.comparisons, pl.DataFrame) else res.comparisons
    )
    groups = groups.filter(pl.col("group") != "all")["group"].to_list()
    assert [g.split("=")[-1] for g in groups] == NATURAL
    means = irframe.evaluate(_run(IDS), ["RR"], QRELS, by="segment", queries=queries)
    assert means["segment"].to_list() == NATURAL


def test_compare_groups_and_moved_ties() -> None:
    """Equal deltas: moved lists its ties in natural order; compare's by= rows likewise."""
    queries = pl.DataFrame({"query_id": IDS, "segment": IDS})
    runs = {"a": _run(IDS), "b": _run(IDS)}
    table = irframe.compare(runs, QRELS, ["RR"], by="segment", queries=queries)
    assert table["segment"].drop_nulls().to_list() == NATURAL  # (after the overall row: null)
    assert irframe.moved(runs, QRELS, "RR")["query_id"].to_list() == NATURAL
