"""``irframe answers nuggets|support|grounding``: the same numbers as the Python API on the
bundled RAG example, the runs read as TREC files, and the exit codes of each error class."""

from __future__ import annotations

import io
from pathlib import Path

import polars as pl
import pytest

from _support.cli_runner import ClosedStdout, run_cli
from irframe.answers import grounding, nugget_scores, support_scores
from irframe.cli._exit import Exit
from irframe.datasets import golden_paths, rag

RAG = Path(rag.__code__.co_filename).parent / "rag"
BM25, HYBRID = (str(golden_paths().runs[s]) for s in ("bm25", "hybrid"))
QRELS = str(golden_paths().qrels)


def _tsv(text: str) -> pl.DataFrame:
    return pl.read_csv(io.StringIO(text), separator="\t")


def test_nuggets_equal_the_api() -> None:
    r = rag()
    res = run_cli(
        "answers", "nuggets", RAG / "assignments.tsv", RAG / "nuggets.tsv", "-f", "tsv", "--precision", "12"
    )
    assert res.returncode == 0, res.stderr
    got = _tsv(res.stdout)
    want = nugget_scores(r.assignments, r.nuggets)
    assert got["system"].to_list() == want["system"].to_list()
    for m in ("V_strict", "V", "A_strict", "A", "W"):
        assert got[m].to_list() == pytest.approx(want[m].to_list(), abs=1e-12)
    per_query = run_cli(
        "answers", "nuggets", RAG / "assignments.tsv", RAG / "nuggets.tsv", "--per-query", "-f", "csv"
    )
    assert per_query.stdout.splitlines()[0].startswith("system,query_id,V_strict")
    assert len(per_query.stdout.splitlines()) == 1 + 80


def test_support_and_grounding_equal_the_api(tmp_path: Path) -> None:
    r = rag()
    sentences = ("--sentences", RAG / "sentences.tsv")
    res = run_cli("answers", "support", RAG / "citations.tsv", *sentences, "-f", "tsv", "--precision", "12")
    assert res.returncode == 0, res.stderr
    want = support_scores(r.citations, r.sentences)
    assert _tsv(res.stdout)["wR_first"].to_list() == pytest.approx(want["wR_first"].to_list(), abs=1e-12)
    never = tmp_path / "never.tsv"
    res = run_cli("answers", "grounding", RAG / "citations.tsv", BM25, HYBRID, "--qrels", QRELS, "-k", "10",
                  *sentences, "--never-retrieved", never, "-f", "tsv", "--precision", "12")  # fmt: skip
    assert res.returncode == 0, res.stderr
    g = grounding(r.citations, r.runs, r.qrels, r.sentences, k=10)
    got = _tsv(res.stdout)
    for m in ("CitedRetrieved@10", "CitedRelevant", "RelevantCited@10", "MeanCitedRank"):
        assert got[m].to_list() == pytest.approx(g.means[m].to_list(), abs=1e-12)
    assert pl.read_csv(never, separator="\t").height == g.never_retrieved.height
    assert f"{g.never_retrieved.height} citation(s) to documents the run never retrieved" in res.stderr


def test_one_run_for_every_system() -> None:
    r = rag()
    res = run_cli("answers", "grounding", RAG / "citations.tsv", HYBRID, "-f", "tsv", "--precision", "12")
    assert res.returncode == 0, res.stderr
    want = grounding(r.citations, r.runs.filter(system="hybrid").drop("system"))
    assert _tsv(res.stdout)["CitedRetrieved"].to_list() == pytest.approx(
        want.means["CitedRetrieved"].to_list()
    )


def test_exit_codes(tmp_path: Path) -> None:
    assert run_cli("answers").returncode == Exit.ERROR
    usage = run_cli("answers", "nuggets", RAG / "assignments.tsv", RAG / "nuggets.tsv", "--no-such-option")
    assert usage.returncode == Exit.ERROR
    assert "unrecognized arguments" in usage.stderr
    missing = run_cli("answers", "grounding", RAG / "citations.tsv", tmp_path / "none.run")
    assert missing.returncode == Exit.ERROR
    assert "none.run" in missing.stderr
    bad = tmp_path / "bad.tsv"
    bad.write_text((RAG / "assignments.tsv").read_text().replace("not_support", "nope", 1))
    res = run_cli("answers", "nuggets", bad, RAG / "nuggets.tsv")
    assert res.returncode == Exit.ERROR
    assert res.stderr.startswith("irframe: error: ")
    assert "'nope'" in res.stderr
    assert "Traceback" not in res.stderr
    renamed = tmp_path / "renamed.tsv"
    renamed.write_text((RAG / "assignments.tsv").read_text().replace("query_id", "qid", 1))
    res = run_cli("answers", "nuggets", renamed, RAG / "nuggets.tsv")
    assert res.returncode == Exit.ERROR
    assert "Hint: did you mean --map qid=query_id?" in res.stderr
    fixed = run_cli("answers", "nuggets", renamed, RAG / "nuggets.tsv", "--map", "qid=query_id", "-f", "tsv")
    assert fixed.returncode == 0, fixed.stderr
    closed = run_cli(
        "answers", "nuggets", RAG / "assignments.tsv", RAG / "nuggets.tsv", stdout=ClosedStdout()
    )
    assert closed.returncode == Exit.OUTPUT
    unwritable = run_cli("answers", "grounding", RAG / "citations.tsv", BM25, HYBRID, "--never-retrieved",
                         tmp_path / "no" / "dir" / "x.tsv")  # fmt: skip
    assert unwritable.returncode == Exit.OUTPUT


def test_compare_values_equals_the_api(tmp_path: Path) -> None:
    import irframe

    r = rag()
    keys = ["system", "query_id"]
    values = irframe.evaluate(r.runs, ["nDCG@10"], r.qrels, by="system", per_query=True).join(
        nugget_scores(r.assignments, r.nuggets, per_query=True).select(*keys, "A"), on=keys
    )
    path = tmp_path / "values.tsv"
    values.write_csv(path, separator="\t")
    args = ("-m", "nDCG@10", "-m", "A", "--test", "t", "--bootstrap", "200", "-b", "bm25")
    res = run_cli("compare", "--values", path, *args, "-f", "tsv", "--precision", "12")
    assert res.returncode == 0, res.stderr
    want = irframe.compare(values, measures=["nDCG@10", "A"], test="t", n_bootstrap=200, baseline="bm25")
    got = _tsv(res.stdout)
    assert got["measure"].to_list() == ["nDCG@10", "A"]
    assert got["p_value"].to_list() == pytest.approx(want["p_value"].to_list(), abs=1e-12)
    assert got["ci_low"].to_list() == pytest.approx(want["ci_low"].to_list(), abs=1e-12)
    unnamed = run_cli("compare", "--values", path)
    assert unnamed.returncode == Exit.ERROR
    assert "-m" in unnamed.stderr


def test_check_values_gates_like_the_api(tmp_path: Path) -> None:
    import irframe

    r = rag()
    keys = ["system", "query_id"]
    values = irframe.evaluate(r.runs, ["nDCG@10"], r.qrels, by="system", per_query=True).join(
        nugget_scores(r.assignments, r.nuggets, per_query=True).select(*keys, "A"), on=keys
    )
    for name in ("bm25", "hybrid"):
        values.filter(system=name).write_csv(tmp_path / f"{name}.tsv", separator="\t")
    args = ("-m", "A", "-m", "nDCG@10", "--permutations", "500", "--bootstrap", "200", "--no-config")
    worse = run_cli(
        "check", "--values", tmp_path / "bm25.tsv", "-b", tmp_path / "hybrid.tsv", *args, "-f", "json"
    )
    assert worse.returncode == Exit.FAILED, worse.stderr
    side = {name: values.filter(system=name).drop("system") for name in ("bm25", "hybrid")}
    want = irframe.check(
        side["bm25"], None, side["hybrid"], ["A", "nDCG@10"], n_permutations=500, n_bootstrap=200
    )
    assert not want.passed
    assert '"regression": true' in worse.stdout
    better = run_cli("check", "--values", tmp_path / "hybrid.tsv", "-b", tmp_path / "bm25.tsv", *args)
    assert better.returncode == Exit.OK, better.stderr
    assert run_cli("check", "--values", tmp_path / "hybrid.tsv", "--no-config").returncode == Exit.ERROR
