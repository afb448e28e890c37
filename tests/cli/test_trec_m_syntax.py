"""trec_eval's -m syntax: ``P.5,10``, ``ndcg_cut.10``, a bare ``P`` (trec_eval's default cutoffs).

Expected names and values come from trec_eval's definitions written out here, and
from the trec_eval 10.0 binary (``IRFRAME_TREC_EVAL``; skipped with a message without it).
"""

from __future__ import annotations

import pytest

from _support.cli_runner import run_cli
from _support.helpers import TREC_EVAL_TEST_DIR
from _support.trec_eval_oracle import require_trec_eval
from irframe.exceptions import InvalidParameterError, UnknownMeasureError
from irframe.measures import parse_measure, parse_measures


def test_dotted_names_expand_to_trec_names() -> None:
    got = parse_measures(["P.5,10", "ndcg_cut.10", "iprec_at_recall.0.1", "recall.100", "map"])
    assert [(label, str(m)) for label, m in got] == [
        ("P_5", "P@5"),
        ("P_10", "P@10"),
        ("ndcg_cut_10", "nDCG(gain=linear)@10"),  # trec_eval's ndcg_cut: linear gain
        ("iprec_at_recall_0.10", "IPrec@0.1"),
        ("recall_100", "R@100"),
        ("map", "AP"),
    ]
    assert str(parse_measure("ndcg_cut.10")) == "nDCG(gain=linear)@10"


def test_dotted_errors_name_the_spec() -> None:
    with pytest.raises(InvalidParameterError, match=r"'P\.5,10' names 2 measures \(P_5, P_10\)"):
        parse_measure("P.5,10")
    with pytest.raises(InvalidParameterError, match=r"'k' parameter of P\.5\.5 must be ints"):
        parse_measures(["P.5.5"])
    with pytest.raises(UnknownMeasureError, match=r"Unknown measure 'foo\.5'"):
        parse_measures(["foo.5"])


def _lines(text: str) -> list[tuple[str, str, str]]:
    return [tuple(line.split()) for line in text.splitlines() if line.strip()]  # type: ignore[misc]


@pytest.mark.parametrize("spec", [["P.5,10", "ndcg_cut.10"], ["P", "recall"], ["success.1,5", "map"]])
def test_cli_prints_what_trec_eval_prints(spec: list[str]) -> None:
    trec_eval = require_trec_eval()
    if not TREC_EVAL_TEST_DIR.is_dir():
        pytest.skip(f"trec_eval's test files not found at {TREC_EVAL_TEST_DIR}")
    qrels, run = TREC_EVAL_TEST_DIR / "qrels.test", TREC_EVAL_TEST_DIR / "results.test"
    ms = [a for s in spec for a in ("-m", s)]
    theirs = trec_eval.run_files(qrels, run, ms)
    mine = run_cli("eval", qrels, run, *ms, "-f", "trec")
    assert mine.returncode == 0, mine.stderr
    expected = {(n, q): v for n, q, v in _lines(theirs) if n != "runid"}
    got = {(n, q): v for n, q, v in _lines(mine.stdout) if n not in ("runid", "num_q") or (n, q) in expected}
    assert set(got) == set(expected)  # the same names, in trec_eval's spelling
    for key, value in expected.items():
        assert float(got[key]) == pytest.approx(float(value), abs=5e-5), key  # -f trec: 4 decimals
