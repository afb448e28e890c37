"""CONTRIBUTING.md's recipe for a measure family still works end to end."""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl

import irframe
from irframe.measures import unregister

CONTRIBUTING = Path(__file__).resolve().parents[2] / "CONTRIBUTING.md"


def test_the_measure_recipe_registers_a_family_that_evaluates() -> None:
    text = CONTRIBUTING.read_text(encoding="utf-8")
    block = re.search(r"<!-- recipe:measure -->\n```python\n(.*?)```\n<!-- recipe:end -->", text, re.S)
    assert block is not None, "CONTRIBUTING.md lost its recipe:measure block"
    exec(compile(block[1], "CONTRIBUTING.md", "exec"), {})
    try:
        run = pl.DataFrame({
            "query_id": ["q1", "q1", "q1", "q2", "q2"], "doc_id": ["a", "b", "c", "x", "y"],
            "score": [3.0, 2.0, 1.0, 2.0, 1.0],
        })  # fmt: skip
        qrels = pl.DataFrame(
            {"query_id": ["q1"] * 3 + ["q2"], "doc_id": ["b", "c", "d", "x"], "relevance": [1] * 4}
        )
        got = irframe.evaluate(run, ["CappedP@2"], qrels, per_query=True)
        # q1: b is the one relevant document in the top 2, R = 3: 1 / min(2, 3); q2: 1 / min(2, 1)
        assert dict(got.iter_rows()) == {"q1": 0.5, "q2": 1.0}
        assert "CappedP" in irframe.measures.registry()
    finally:
        unregister("CappedP")


def test_the_verb_recipe_stacks_evaluates_and_returns_the_callers_type() -> None:
    text = CONTRIBUTING.read_text(encoding="utf-8")
    block = re.search(r"<!-- recipe:verb -->\n```python\n(.*?)```\n<!-- recipe:end -->", text, re.S)
    assert block is not None, "CONTRIBUTING.md lost its recipe:verb block"
    space: dict[str, object] = {}
    exec(compile(block[1], "CONTRIBUTING.md", "exec"), space)
    best_system = space["best_system"]
    qrels = pl.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["a", "b"], "relevance": [1, 1]})
    # x: q1 a at rank 1 (RR 1), q2 b at rank 2 (RR 1/2); y: q1 a at rank 2 (1/2), q2 b at rank 1 (1)
    x = pl.DataFrame(
        {"query_id": ["q1", "q1", "q2", "q2"], "doc_id": ["a", "c", "c", "b"], "rank": [1, 2, 1, 2]}
    )
    y = pl.DataFrame(
        {"query_id": ["q1", "q1", "q2", "q2"], "doc_id": ["c", "a", "b", "c"], "rank": [1, 2, 1, 2]}
    )
    got = best_system({"x": x, "y": y}, qrels)  # type: ignore[operator]
    assert isinstance(got, pl.DataFrame)
    assert got.rows() == [("q1", "x", 1.0), ("q2", "y", 1.0)]
    tie = best_system({"y": x, "x": x}, qrels)  # type: ignore[operator]
    assert tie["system"].to_list() == ["y", "y"]  # a tie: the first system in input order
