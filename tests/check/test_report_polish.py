"""Issue 34 item 9 (report parts): regressions listed first, one final newline, paths kept as
given (a relative path stays relative in every format), the moved documents as list columns."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import polars as pl
import pytest

import irframe
from irframe.cli import main
from irframe.datasets import golden
from irframe.io import write_trec_qrels, write_trec_run

G = golden()
P = G.paths


def run_of(name: str) -> pl.DataFrame:
    return G.runs.filter(pl.col("system") == name).drop("system")


def test_regressions_come_first_in_every_table_then_the_table_order() -> None:
    # RR, nDCG@10, R@100 asked: R@100 is the regression, listed first; the others keep their order
    measures = ["RR", "nDCG@10", "R@100"]
    result = irframe.check(run_of("dense"), G.qrels, baseline=run_of("bm25"), measures=measures,
                           n_permutations=500, n_bootstrap=200)  # fmt: skip
    assert result.comparisons["measure"].to_list() == ["RR", "nDCG@10", "R@100"]  # the data keep their order
    text_rows = [ln.split()[1] for ln in result.report().splitlines() if ln.startswith("all ")]
    assert text_rows == ["R@100", "RR", "nDCG@10"]
    md_rows = [ln.split(" | ")[1] for ln in result.to_markdown().splitlines() if ln.startswith("| all |")]
    assert md_rows == ["R@100", "RR", "nDCG@10"]
    assert [r["measure"] for r in result.to_dict()["comparisons"]] == ["RR", "nDCG@10", "R@100"]


def test_a_segment_regression_comes_before_the_overall_rows() -> None:
    qrels = G.qrels.join(G.queries.select("query_id", "segment"), on="query_id")
    result = irframe.check(run_of("dense"), qrels, baseline=run_of("bm25"), measures="RR", by="segment",
                           correction="none", n_permutations=500, n_bootstrap=200)  # fmt: skip
    failing = result.regressions["group"].to_list()
    assert failing
    assert "all" not in failing
    groups = [ln.split()[0] for ln in result.report().splitlines() if ln.startswith(("all ", "segment="))]
    assert groups[: len(failing)] == failing
    assert groups[len(failing)] == "all"


def test_print_ends_with_exactly_one_newline(capsys: pytest.CaptureFixture[str]) -> None:
    report = irframe.compare_report(G.runs, G.qrels, ["nDCG@10"], baseline="bm25", n_permutations=200)
    result = irframe.check(run_of("dense"), G.qrels, baseline=run_of("bm25"), n_permutations=200)
    for obj in (report, result, report.to_markdown(), result.to_markdown(), result.report(ascii=True)):
        print(obj)
        out = capsys.readouterr().out
        assert out.endswith("\n")
        assert not out.endswith("\n\n")
        assert "\n\n\n" not in out


@pytest.mark.parametrize("fmt", ["text", "markdown", "json", "html"])
def test_check_cli_output_ends_with_one_newline(fmt: str, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["check", str(P.qrels), str(P.runs["dense"]), "-b", str(P.runs["bm25"]), "-f", fmt]
    assert main([*args, "--permutations", "200", "--bootstrap", "200"]) == 1
    out = capsys.readouterr().out
    assert out.endswith("\n")
    assert not out.endswith("\n\n")


@pytest.mark.parametrize("fmt", ["table", "markdown", "latex", "html", "tsv"])
def test_compare_cli_output_ends_with_one_newline(fmt: str, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["compare", str(P.qrels), str(P.runs["bm25"]), str(P.runs["dense"]), "-m", "nDCG@10", "-f", fmt]
    assert main([*args, "--permutations", "200", "--bootstrap", "200"]) == 0
    out = capsys.readouterr().out
    assert out.endswith("\n")
    assert not out.endswith("\n\n")
    if fmt in ("table", "markdown"):  # the gain note once: the report's (the CLI adds none of its own)
        assert out.count("nDCG@10 uses the gain 2^rel - 1") == 1


def test_relative_paths_stay_relative_in_every_format(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("runs").mkdir()
    write_trec_qrels(G.qrels, "qrels.txt")
    for name in ("bm25", "dense"):
        write_trec_run(run_of(name), f"runs/{name}.run", tag=name)
    snap = irframe.snapshot("runs/bm25.run", "qrels.txt", ["RR", "R@100"])
    snap.write("base.json")
    kwargs = {"n_permutations": 200, "n_bootstrap": 200, "holes": "report"}
    for baseline in ("base.json", "runs/bm25.run"):
        result = irframe.check("runs/dense.run", "qrels.txt", baseline=baseline, **kwargs)
        texts = [result.report(), result.to_markdown(), json.dumps(result.to_dict()), result.html_page()]
        for text in texts:
            assert str(tmp_path) not in text
        assert baseline in result.report()
        assert result.pool_command is not None
        assert "qrels.txt" in result.pool_command
        assert str(tmp_path) not in result.pool_command
    out = Path("out") / "check.html"
    out.parent.mkdir()
    result.to_html(out)
    assert str(tmp_path) not in out.read_text(encoding="utf-8")


def test_moved_lists_documents_as_list_columns() -> None:
    m = irframe.moved(G.runs, G.qrels, "nDCG@10", baseline="bm25", system="hybrid", n=3, docs_top=2,
                      queries=G.queries.select("query_id", "text"))  # fmt: skip
    doc = pl.List(pl.Struct({"doc_id": pl.String, "grade": pl.Int64}))
    assert m.schema == pl.Schema({"system": pl.String, "query_id": pl.String, "text": pl.String,
                                  "baseline_value": pl.Float64, "value": pl.Float64, "delta": pl.Float64,
                                  "baseline_docs": doc, "system_docs": doc})  # fmt: skip
    # the grades are the qrels' (None: no judgment), the order the run's
    grades = {(q, d): r for q, d, r in G.qrels.select("query_id", "doc_id", "relevance").rows()}
    hybrid = run_of("hybrid").sort(["query_id", "score", "doc_id"], descending=[False, True, True])
    for row in m.iter_rows(named=True):
        top = hybrid.filter(pl.col("query_id") == row["query_id"]).head(2)["doc_id"].to_list()
        assert [d["doc_id"] for d in row["system_docs"]] == top
        assert [d["grade"] for d in row["system_docs"]] == [grades.get((row["query_id"], d)) for d in top]
    tidy = m.explode("system_docs").unnest("system_docs")
    assert tidy.height == 6
    assert {"doc_id", "grade"} <= set(tidy.columns)
    pandas = irframe.moved(G.runs.to_pandas(), G.qrels.to_pandas(), "RR", baseline="bm25", system="dense",
                           n=1, docs_top=1)  # fmt: skip
    assert isinstance(pandas, pd.DataFrame)
    (cell,) = pandas["system_docs"].iloc[0]
    assert set(cell) == {"doc_id", "grade"}


@pytest.mark.parametrize("against", ["run", "snapshot"])
def test_the_moved_queries_of_check_carry_their_segment_under_by(against: str) -> None:
    # compare's moved list shows each query's segment; check's did not (its report neither)
    base = run_of("bm25")
    baseline = base if against == "run" else irframe.snapshot(base, G.qrels, ["nDCG@10"])
    result = irframe.check(run_of("dense"), G.qrels, baseline=baseline, measures="nDCG@10",
                           queries=G.queries, by="segment", n_permutations=200, n_bootstrap=100)  # fmt: skip
    moved = result.moved
    assert moved.columns[:3] == ["query_id", "text", "segment"]
    segment_of = dict(G.queries.select("query_id", "segment").rows())  # the queries table's own
    assert moved.height == 10
    assert moved["segment"].to_list() == [segment_of[q] for q in moved["query_id"]]
    line = next(ln for ln in result.report().splitlines() if ln.startswith(moved["query_id"][0] + " "))
    assert segment_of[moved["query_id"][0]] in line
    assert "| segment |" in result.to_markdown()
    plain = irframe.check(run_of("dense"), G.qrels, baseline=baseline, measures="nDCG@10", queries=G.queries,
                          n_permutations=200, n_bootstrap=100)  # fmt: skip
    assert "segment" not in plain.moved.columns  # without by, as before
