"""The bundled golden set: shape, invariants, and the story its runs are meant to tell."""

from __future__ import annotations

import runpy
from pathlib import Path

import polars as pl
import pytest

import irframe
from irframe.datasets import Golden, golden, golden_paths

_build = runpy.run_path(str(Path(__file__).resolve().parents[2] / "scripts" / "make_golden.py"))["_build"]


@pytest.fixture(scope="module")
def g() -> Golden:
    return golden()


def test_shapes_and_schemas(g: Golden) -> None:
    assert g.queries.columns == ["query_id", "text", "segment"]
    assert g.docs.columns == ["doc_id", "title"]
    assert dict(g.qrels.schema) == {"query_id": pl.String, "doc_id": pl.String, "relevance": pl.Int64}
    assert g.runs.columns == ["system", "query_id", "doc_id", "score"]
    assert g.queries.height == 40
    assert g.queries["query_id"].is_unique().all()
    assert set(g.queries["segment"]) == {"navigational", "informational", "long-tail"}
    assert sorted(g.runs["system"].unique()) == ["bm25", "dense", "hybrid"]
    assert set(g.qrels["relevance"].unique()) == {0, 1, 2, 3}


def test_referential_integrity(g: Golden) -> None:
    docs = set(g.docs["doc_id"])
    assert set(g.qrels["doc_id"]) <= docs
    assert set(g.runs["doc_id"]) <= docs
    assert set(g.qrels["query_id"]) == set(g.queries["query_id"])
    assert set(g.runs["query_id"]) == set(g.queries["query_id"])
    assert g.qrels.select("query_id", "doc_id").is_unique().all()
    assert g.runs.select("system", "query_id", "doc_id").is_unique().all()


def test_some_relevant_documents_are_retrieved_by_no_system(g: Golden) -> None:
    relevant = g.qrels.filter(pl.col("relevance") > 0).select("query_id", "doc_id")
    retrieved = g.runs.select("query_id", "doc_id").unique()
    hidden = relevant.join(retrieved, on=["query_id", "doc_id"], how="anti")
    assert hidden.height >= 5


def test_a_query_without_relevant_documents(g: Golden) -> None:
    best = g.qrels.group_by("query_id").agg(pl.col("relevance").max())
    assert best.filter(pl.col("relevance") == 0)["query_id"].to_list() == ["q40"]


def test_the_story(g: Golden) -> None:
    ms = ["nDCG@10", "R@100", "RR"]
    means = {r["system"]: r for r in irframe.evaluate(g.runs, ms, g.qrels, by="system").iter_rows(named=True)}
    assert max(means, key=lambda s: means[s]["nDCG@10"]) == "hybrid"  # best overall
    assert min(means, key=lambda s: means[s]["R@100"]) == "dense"  # worst recall
    assert means["dense"]["RR"] > means["bm25"]["RR"]  # better at the top than bm25
    pq = irframe.evaluate(g.runs, ["nDCG@10"], g.qrels, by="system", per_query=True)
    seg = pq.join(g.queries, on="query_id").group_by("segment", "system").agg(pl.col("nDCG@10").mean())
    tail = dict(seg.filter(pl.col("segment") == "long-tail").select("system", "nDCG@10").iter_rows())
    assert tail["bm25"] > tail["hybrid"]  # hybrid loses on long-tail queries


def test_pandas_backend() -> None:
    pytest.importorskip("pandas")
    gp = golden(backend="pandas")
    assert type(gp.runs).__name__ == "DataFrame"
    assert type(gp.runs).__module__.startswith("pandas")
    assert len(gp.queries) == 40


def test_bad_backend() -> None:
    with pytest.raises(irframe.IrFrameError, match="backend"):
        golden(backend="spark")  # type: ignore[arg-type]


def test_files_exist_and_generator_reproduces_them() -> None:
    paths = golden_paths()
    root = paths.qrels.parent
    for rel, text in _build().items():
        assert (root / rel).read_text(encoding="utf-8") == text, rel
    assert all(p.is_file() for p in [paths.qrels, paths.queries, paths.docs, *paths.runs.values()])
