"""The same input in another row order gives the same bits (per-query values and means).

Polars' default engine sums floats in no fixed order across threads (tune_fusion's fused
scores once differed in the last bit between calls).  The engine's paths above the small
one (the keyed executor, and the general lazy plan) collect on it, so this pins that a
shuffle of the run and the qrels changes no bit of any measure of the 47 classic ones.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import irframe
from _support.helpers import only_executor

MEASURES = [
    "num_ret", "num_rel", "num_rel_ret", "map", "Rprec", "bpref", "recip_rank", "ndcg", "P_5", "P_100",
    "recall_1000", "ndcg_cut_10", "map_cut_100", "iprec_at_recall_0.50", "infAP", "set_F", "rbp", "gm_map",
]  # fmt: skip


def _inputs(rows: int = 30_000, seed: int = 3) -> tuple[pl.DataFrame, pl.DataFrame]:
    """300 queries x 100 documents, scores with many ties, graded judgments on a third of them."""
    rng = np.random.default_rng(seed)
    q = np.repeat(np.arange(rows // 100), 100)
    docs = [f"d{i}" for i in rng.integers(0, 10**6, rows)]
    run = pl.DataFrame(
        {"query_id": [f"q{i}" for i in q], "doc_id": docs, "score": rng.integers(0, 20, rows) / 7}
    )
    run = run.unique(["query_id", "doc_id"], keep="first", maintain_order=True)
    judged = run.sample(fraction=0.33, seed=seed).select("query_id", "doc_id")
    qrels = judged.with_columns(relevance=pl.Series(rng.integers(-1, 4, judged.height)))
    return run, qrels


@pytest.mark.deep  # (~4 s quiet; .ci/run runs -m deep)
@pytest.mark.parametrize("executor", ["keyed", "general"])
def test_a_shuffled_input_gives_the_same_bits(executor: str) -> None:
    run, qrels = _inputs()
    with only_executor(executor) as ran:
        per_query = irframe.evaluate(run, MEASURES, qrels, per_query=True)
        means = irframe.evaluate(run, MEASURES, qrels)
        for seed in (1, 2):
            r, q = (f.sample(fraction=1.0, shuffle=True, seed=seed) for f in (run, qrels))
            assert irframe.evaluate(r, MEASURES, q, per_query=True).equals(per_query)
            assert irframe.evaluate(r, MEASURES, q).equals(means)
    assert set(ran) == {executor}
