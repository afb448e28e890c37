"""A qrels line given twice, checked against a snapshot, is a duplicated judgment (refused,
named), not "1 regraded"; following the hint gives the snapshot's own numbers back."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

import irframe
from irframe.exceptions import DuplicateRowsError, JudgmentsChangedError

G = irframe.datasets.golden()
BM25 = G.runs.filter(system="bm25").drop("system")


@pytest.fixture(scope="module")
def snap(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("snap") / "bm25.snapshot.json"
    irframe.snapshot(BM25, G.qrels, ["RR"], path=path)
    return path


@pytest.mark.parametrize("allow", [False, True])
def test_a_duplicated_line_is_duplicated_not_regraded(snap: Path, allow: bool) -> None:
    doubled = pl.concat([G.qrels, G.qrels.head(1)])  # q01's first judgment twice
    with pytest.raises(DuplicateRowsError) as info:
        irframe.check(BM25, doubled, snap, ["RR"], allow_changed_qrels=allow)
    msg = str(info.value)
    assert "judge the same document twice in queries 'q01'" in msg
    assert "duplicated lines" in msg
    assert "regraded" not in msg
    fixed = doubled.unique(subset=["query_id", "doc_id"], keep="last", maintain_order=True)
    result = irframe.check(BM25, fixed, snap, ["RR"])
    assert result.passed
    want = irframe.evaluate(BM25, ["RR"], G.qrels)["RR"].item()
    assert result.comparisons.filter(pl.col("group") == "all")["mean"].item() == pytest.approx(want)


def test_a_real_regrade_is_still_regraded(snap: Path) -> None:
    first = pl.col("query_id") == "q01"
    regraded = G.qrels.with_columns(pl.when(first).then(pl.col("relevance") + 1).otherwise("relevance"))
    with pytest.raises(JudgmentsChangedError, match=r"1 regraded \(q01\)"):
        irframe.check(BM25, regraded, snap, ["RR"])
