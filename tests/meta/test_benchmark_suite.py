"""The asv suite's engine stages exist at this commit (else asv skips them silently)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import polars as pl
import pytest

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


def test_asv_cli_benchmark_writes_trec_eval_lines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The ``Cli`` benchmark runs ``irframe eval -q -f trec`` in process into a file (here
    on two tiny TREC files instead of the benchmark's)."""
    (tmp_path / "qrels").write_text("q1 0 a 1\nq2 0 b 1\n")
    (tmp_path / "run").write_text("q1 Q0 a 1 2.0 t\nq1 Q0 b 2 1.0 t\nq2 Q0 a 1 2.0 t\nq2 Q0 b 2 1.0 t\n")
    sys.path.insert(0, str(ASV))
    try:
        bench = importlib.import_module("suite.bench_engine")
        import synth  # (on sys.path through the suite's package)

        monkeypatch.setattr(synth, "trec_files", lambda rows: (tmp_path / "qrels", tmp_path / "run"))
        cli = bench.Cli()
        cli.setup(100_000, "5")
        cli.time_eval_trec_per_query(100_000, "5")
        lines = Path(cli.out_path).read_text().splitlines()
        cli.teardown(100_000, "5")
    finally:
        sys.path.remove(str(ASV))
    assert [ln.split("\t") for ln in lines if ln.startswith("recip_rank")] == [
        ["recip_rank".ljust(22), "q1", "1.0000"],
        ["recip_rank".ljust(22), "q2", "0.5000"],
        ["recip_rank".ljust(22), "all", "0.7500"],
    ]
