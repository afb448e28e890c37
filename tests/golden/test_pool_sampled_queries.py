"""``pool`` with a queries table pools those queries only (the golden-set loop: sample, then pool
the sample), says how many run queries it left out, and lists the table's queries no run
answers; ``all_queries=True`` / ``--all-queries`` pools every query.  The pairs are counted by a
plain-Python pool of the same runs."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

import irframe
from _support.cli_runner import run_cli

DEPTH = 3
# two systems over 12 queries, 5 documents each (system b shifts a's ranking by one document)
RUNS = pl.DataFrame(
    [
        (system, f"q{q}", f"d{(q + i + shift) % 7}", i + 1)
        for system, shift in (("a", 0), ("b", 1))
        for q in range(1, 13)
        for i in range(5)
    ],
    schema=["system", "query_id", "doc_id", "rank"],
    orient="row",
)
QRELS = pl.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["d1", "d3"], "relevance": [1, 0]})
SAMPLE = ["q2", "q5", "q11"]


def _python_pool(queries: list[str]) -> set[tuple[str, str]]:
    """The union of each system's top DEPTH per query, minus the judged pairs."""
    pairs = {(q, d) for s, q, d, r in RUNS.iter_rows() if q in queries and r <= DEPTH}
    return pairs - {(q, d) for q, d, _ in QRELS.iter_rows()}


def test_a_sample_restricts_the_pool_and_the_summary_says_what_was_left_out() -> None:
    sample = pl.DataFrame({"query_id": [*SAMPLE, "q99"]})  # q99: no run answers it
    p = irframe.pool(RUNS, QRELS, DEPTH, queries=sample)
    assert set(p.to_judge.select("query_id", "doc_id").iter_rows()) == _python_pool(SAMPLE)
    assert p.n_queries == 3
    assert p.n_left_out == 12 - 3
    assert p.unanswered == ("q99",)
    assert str(p).startswith(
        "pool at depth 3 of 2 systems over 3 queries (the queries table's; 9 other run queries left "
        "out); 1 of the table's queries have no ranking in any run (e.g. 'q99'): "
    )
    everything = irframe.pool(RUNS, QRELS, DEPTH, queries=sample, all_queries=True)
    assert set(everything.to_judge.select("query_id", "doc_id").iter_rows()) == _python_pool(
        [f"q{q}" for q in range(1, 13)]
    )
    assert everything.n_left_out == 0


def test_the_sampled_loop_on_the_command_line(tmp_path: Path) -> None:
    log = tmp_path / "log.csv"
    pl.DataFrame({"query_id": [f"q{q}" for q in range(1, 13)]}).write_csv(log)
    runs = tmp_path / "runs.csv"
    RUNS.write_csv(runs)
    qrels = tmp_path / "qrels.csv"
    QRELS.write_csv(qrels)
    sample = tmp_path / "sample.tsv"
    sampled = run_cli("sample", str(log), "-n", "4", "-o", str(sample))
    assert sampled.returncode == 0, sampled.stderr
    chosen = pl.read_csv(sample, separator="\t").get_column("query_id").to_list()
    assert len(chosen) == 4
    res = run_cli("pool", str(qrels), str(runs), "-d", str(DEPTH), "--queries", str(sample), "-f", "tsv")
    assert res.returncode == 0, res.stderr
    sheet = pl.read_csv(res.stdout.encode(), separator="\t", infer_schema=False)
    assert set(sheet.select("query_id", "doc_id").iter_rows()) == _python_pool(chosen)
    assert "over 4 queries (the queries table's; 8 other run queries left out)" in res.stderr
    every = run_cli(
        "pool", str(qrels), str(runs), "-d", str(DEPTH), "--queries", str(sample), "--all-queries"
    )
    assert every.returncode == 0, every.stderr
    assert "over 12 queries:" in every.stderr


def test_all_queries_needs_a_queries_table(tmp_path: Path) -> None:
    runs = tmp_path / "runs.csv"
    RUNS.write_csv(runs)
    res = run_cli("pool", "--no-qrels", str(runs), "--all-queries")
    assert res.returncode == 2
    assert "--all-queries goes with --queries FILE" in res.stderr
    with pytest.raises(irframe.exceptions.InvalidParameterError, match="all_queries"):
        irframe.pool(RUNS, all_queries="yes")  # type: ignore[arg-type]
