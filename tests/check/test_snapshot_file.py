"""The snapshot file: values round-trip exactly, fingerprints change where the inputs change."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

import irframe
from irframe._check.gate import Snapshot
from irframe.datasets import golden
from irframe.exceptions import InvalidDataError

G = golden()
BM25 = G.runs.filter(pl.col("system") == "bm25")


def test_values_round_trip_exactly(tmp_path: Path) -> None:
    snap = irframe.snapshot(BM25, G.qrels, ["nDCG@10", "AP", "P(rel=2)@5"], queries=G.queries)
    snap.write(tmp_path / "s.json")
    back = irframe.read_snapshot(tmp_path / "s.json")
    assert back.measures == ("nDCG@10", "AP", "P(rel=2)@5")
    want = irframe.evaluate(BM25, ["nDCG@10", "AP", "P(rel=2)@5"], G.qrels, by="system", per_query=True)
    got = back.values.sort("query_id")
    assert got["query_id"].to_list() == want["query_id"].to_list()
    for m in back.measures:
        assert got[m].to_list() == want[m].to_list()  # exact: JSON keeps every float digit
    assert back.fingerprints == snap.fingerprints
    assert back.to_json() == snap.to_json()


def test_per_query_qrels_fingerprints_change_only_where_judgments_change() -> None:
    base = irframe.snapshot(BM25, G.qrels, ["RR"])
    regraded = G.qrels.with_columns(
        pl.when(
            (pl.col("query_id") == "q10") & (pl.col("doc_id") == pl.col("doc_id").first().over("query_id"))
        )
        .then(pl.col("relevance") + 1)
        .otherwise("relevance")
        .alias("relevance")
    )
    other = irframe.snapshot(BM25, regraded, ["RR"])
    changed = {q for q in base.qrels if base.qrels[q] != other.qrels[q]}
    assert changed == {"q10"}
    assert base.fingerprints["qrels"] != other.fingerprints["qrels"]
    # row order and integral floats do not matter
    shuffled = G.qrels.reverse().with_columns(pl.col("relevance").cast(pl.Float64))
    assert irframe.snapshot(BM25, shuffled, ["RR"]).qrels == base.qrels


def test_run_and_queries_fingerprints() -> None:
    a = irframe.snapshot(BM25, G.qrels, ["RR"], queries=G.queries)
    b = irframe.snapshot(BM25.reverse(), G.qrels, ["RR"], queries=G.queries.reverse())
    assert a.fingerprints == b.fingerprints
    c = irframe.snapshot(BM25.with_columns(pl.col("score") * 2), G.qrels, ["RR"])
    assert c.fingerprints["run"] != a.fingerprints["run"]
    assert c.fingerprints["queries"] is None


def test_unreadable_snapshots_are_named(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "something-else"}')
    with pytest.raises(InvalidDataError, match=r"bad\.json: not an irframe snapshot"):
        Snapshot.read(bad)
    text = irframe.snapshot(BM25, G.qrels, ["RR"]).to_json()
    data = json.loads(text)
    del data["queries"]["q07"]["RR"]
    with pytest.raises(InvalidDataError, match="query 'q07' lacks a value"):
        Snapshot.from_json(json.dumps(data), name="edited.json")


def test_natural_query_order() -> None:
    qrels = pl.DataFrame({"query_id": ["10", "9", "100"], "doc_id": ["a", "a", "a"], "relevance": [1, 1, 1]})
    run = pl.DataFrame({"query_id": ["10", "9", "100"], "doc_id": ["a", "b", "a"], "score": [1.0, 1.0, 1.0]})
    snap = irframe.snapshot(run, qrels, ["RR"])
    assert snap.query_ids == ["9", "10", "100"]
    body = [ln.split('"')[1] for ln in snap.to_json().splitlines() if ln.startswith('    "')]
    assert body == ["9", "10", "100"]
