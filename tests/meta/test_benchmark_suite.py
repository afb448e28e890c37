"""The asv suite's engine stages exist at this commit (else asv skips them silently)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import polars as pl

ASV = Path(__file__).resolve().parents[2] / "benchmarks" / "asv"


def test_asv_engine_stages_run_on_this_layout() -> None:
    sys.path.insert(0, str(ASV))
    try:
        bench = importlib.import_module("suite.bench_engine")
        engine, build = bench._stages()  # raises NotImplementedError if a stage moved
    finally:
        sys.path.remove(str(ASV))
    run = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "a"], "score": [2.0, 1.0, 1.0]})
    qrels = pl.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["b", "a"], "relevance": [1, 1]})
    plan, table = engine.collect(build(run, ["RR"], qrels))
    rr = engine.per_query_table(plan, table.lazy()).collect()["RR"].to_list()
    assert rr == [0.5, 1.0]  # q1: b at rank 2; q2: a at rank 1
    assert engine.summarize(plan, table).collect()["RR"].item() == 0.75
