"""Issue 34 item 5: a default a peer reads differently (nDCG's gain) is visible where the number
is read: a ConventionWarning once per process per measure in Python, a note in the reports and
the CLI (which raises no warning), the footnote on markers and CIs in every report format."""

from __future__ import annotations

import html
import json
import re
import subprocess
import sys
import warnings
from collections.abc import Iterator

import polars as pl
import pytest

import irframe
from irframe.cli import main
from irframe.datasets import golden
from irframe.exceptions import ConventionWarning
from irframe.measures import _conventions

G = golden()
BM25 = G.runs.filter(pl.col("system") == "bm25").drop("system")
DENSE = G.runs.filter(pl.col("system") == "dense").drop("system")
P = G.paths


@pytest.fixture
def fresh() -> Iterator[list[warnings.WarningMessage]]:
    """A process that has warned about nothing yet, every ConventionWarning recorded."""
    saved = set(_conventions._SEEN)
    _conventions._SEEN.clear()
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always", ConventionWarning)
        yield seen
    _conventions._SEEN.clear()
    _conventions._SEEN.update(saved)


def _conv(seen: list[warnings.WarningMessage]) -> list[warnings.WarningMessage]:
    return [w for w in seen if issubclass(w.category, ConventionWarning)]


def test_once_per_process_per_measure(fresh: list[warnings.WarningMessage]) -> None:
    for _ in range(3):
        irframe.evaluate(BM25, ["nDCG@10", "RR"], G.qrels)
    irframe.evaluate(BM25, ["nDCG@5", "nDCG(gain=linear)@10", "ndcg_cut_20", "P@5"], G.qrels)
    irframe.evaluate(BM25, "nDCG@10", G.qrels, per_query=True)
    irframe.compare_report(G.runs, G.qrels, ["nDCG@10"], baseline="bm25", n_permutations=100, n_bootstrap=100)
    irframe.check(DENSE, G.qrels, baseline=BM25, measures=["nDCG@10"], n_permutations=100, n_bootstrap=100)
    got = _conv(fresh)
    assert [str(w.message).split(" uses ")[0] for w in got] == ["nDCG@10", "nDCG@5"]
    assert all(w.filename == __file__ for w in got)  # the caller's line, not the engine's
    assert "nDCG(gain=linear)@10 gives their numbers" in str(got[0].message)


def test_every_path_that_computes_a_number_warns(fresh: list[warnings.WarningMessage]) -> None:
    irframe.evaluate(BM25, ["nDCG@3"], G.qrels, ties="expected")  # the tie-aware path
    irframe.evaluate(BM25.lazy(), ["RBP"], G.qrels).collect()  # a lazy run
    _ = irframe.expr.measures("DCG@2", rank="rank", grade="relevance")  # the polars expressions
    assert [str(w.message).split(" ")[0] for w in _conv(fresh)] == ["nDCG@3", "RBP", "DCG@2"]


def test_the_cli_prints_notes_and_raises_no_warning(
    fresh: list[warnings.WarningMessage], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["eval", str(P.qrels), str(P.runs["bm25"]), "-m", "nDCG@10", "-f", "table"]) == 0
    assert main(["check", str(P.qrels), str(P.runs["dense"]), "-b", str(P.runs["bm25"]), "-m", "nDCG@10",
                 "--permutations", "100", "--bootstrap", "100"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert out.count("Note: nDCG@10 uses the gain 2^rel - 1") == 2  # eval's note, check's report
    assert _conv(fresh) == []
    irframe.evaluate(BM25, ["nDCG@10"], G.qrels)  # the CLI did not use up the Python warning
    assert len(_conv(fresh)) == 1


def test_a_fresh_interpreter_shows_it_once_with_default_filters() -> None:
    code = (
        "import irframe; from irframe.datasets import golden; g = golden(); "
        "[irframe.evaluate(g.runs, ['nDCG@10', 'RR'], g.qrels, by='system') for _ in range(3)]"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stderr.count("ConventionWarning: ") == 1
    assert "<string>:1: ConventionWarning: nDCG@10 uses the gain 2^rel - 1" in out.stderr


def test_the_note_names_the_peers_numbers() -> None:
    """The measure the note offers is ir_measures' nDCG@10 and trec_eval's ndcg_cut_10."""
    im = pytest.importorskip("ir_measures", reason="needs pip install ir_measures (oracle)")
    note = _conventions.convention_note(irframe.measures.parse_measure("nDCG@10"))
    assert note is not None
    offered = note.split(": ")[-1].split(" gives")[0]
    assert offered == "nDCG(gain=linear)@10"
    ours = irframe.evaluate(BM25, [offered, "nDCG@10"], G.qrels, per_query=True)
    qrels = [im.Qrel(q, d, int(r)) for q, d, r in G.qrels.select("query_id", "doc_id", "relevance").rows()]
    run = [im.ScoredDoc(q, d, float(s)) for q, d, s in BM25.select("query_id", "doc_id", "score").rows()]
    theirs = {m.query_id: m.value for m in im.iter_calc([im.nDCG @ 10], qrels, run)}
    for q, value, _exp_gain in ours.rows():
        assert value == pytest.approx(theirs.get(q, 0.0), abs=1e-9)
    assert ours[offered].mean() != pytest.approx(ours["nDCG@10"].mean(), abs=1e-3)  # the note matters


def test_only_defaults_a_peer_reads_otherwise_have_a_note() -> None:
    parse = irframe.measures.parse_measure
    noted = ["nDCG@10", "nDCG", "nDCG(judged_only=True)@5", "DCG@5", "RBP", "RBP(p=0.9)"]
    quiet = ["nDCG(gain=linear)@10", "ndcg_cut_10", "DCG(gain=linear)@5", "RBP(gain=linear)", "RBP(rel=2)",
             "RBP(residual=True)", "RR", "P@10", "AP", "R@100", "Judged@10"]  # fmt: skip
    assert all(_conventions.convention_note(parse(m)) is not None for m in noted)
    assert [m for m in quiet if _conventions.convention_note(parse(m)) is not None] == []
    for m in noted:  # the measure a note offers is one irframe computes
        offered = str(_conventions.convention_note(parse(m))).split(": ")[-1].split(" gives")[0]
        assert _conventions.convention_note(parse(offered)) is None
        irframe.evaluate(BM25.head(30), offered, G.qrels)
    assert "trec_eval's ndcg," in str(_conventions.convention_note(parse("nDCG")))
    assert "(as trec_eval's rbp)" in str(_conventions.convention_note(parse("RBP(p=0.9)")))


def test_every_report_format_says_it_once() -> None:
    report = irframe.compare_report(G.runs, G.qrels, ["nDCG@10", "RR"], baseline="bm25",
                                    n_permutations=200, n_bootstrap=200)  # fmt: skip
    result = irframe.check(DENSE, G.qrels, baseline=BM25, n_permutations=200, n_bootstrap=200)
    footnote = "The markers follow the randomization test's p-value after Holm correction"
    for text in (str(report), report.to_markdown(), report.to_html(), report.html_page(), result.report(),
                 result.to_markdown(), result.html_page()):  # fmt: skip
        flat = re.sub(r"\\(.)", r"\1", html.unescape(" ".join(text.split())))  # (the formats' escapes)
        assert flat.count("nDCG@10 uses the gain 2^rel - 1") == 1
        assert flat.count(footnote) == 1
        assert flat.count("a CI that excludes 0 next to p = 0.057 gets no marker") == 1
    data = json.loads(json.dumps(result.to_dict()))
    assert data["footnote"].startswith(footnote)
    assert [c.split(" uses ")[0] for c in data["conventions"]] == ["nDCG@10"]
    plain = irframe.compare_report(
        G.runs, G.qrels, ["RR"], baseline="bm25", n_permutations=200, n_bootstrap=200
    )
    assert "Note:" not in str(plain)
    assert footnote in " ".join(str(plain).split())


def test_any_drop_says_what_a_regression_is() -> None:
    result = irframe.check(DENSE, G.qrels, baseline=BM25, measures="RR", fail_on="any-drop", max_drop=0.5)
    assert "A regression (fail_on='any-drop') is any drop beyond max_drop" in result.report()
