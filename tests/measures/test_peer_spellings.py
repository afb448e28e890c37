"""The peers' spellings irframe refused (issue 45): ir_measures' ``dcg=`` and ``cutoff=`` inside
the parentheses, the comma lists ``P_5,10``, ``ndcg_cut_20,4``, ``set_F.1.0,0.5`` (pytrec_eval
and ir_measures read them), and a ranx JSON qrels given as qrels.

Hand-computed values are written out; the spellings ir_measures' and pytrec_eval's own tests
pin are read from ``../shared/data/peers/cases`` (skipped without it) and compared, with
ir_measures as the oracle of what each spelling means (``ir_measures.parse_measure``).
"""

from __future__ import annotations

import io
import json
import math
from typing import Any

import polars as pl
import pytest

import irframe
from _support.helpers import PEERS_DIR
from irframe.exceptions import InvalidParameterError, TrecFormatError
from irframe.measures import parse_measure, parse_measures

# one query: a (2), x (unjudged), c (1), b (0); d (1) never retrieved
RUN = pl.DataFrame({"query_id": ["q"] * 4, "doc_id": ["a", "x", "c", "b"], "score": [4.0, 3, 2, 1]})
QRELS = pl.DataFrame({"query_id": ["q"] * 4, "doc_id": ["a", "b", "c", "d"], "relevance": [2, 0, 1, 1]})


def _one(spec: str) -> float:
    return float(irframe.evaluate(RUN, [spec], QRELS).item(0, spec))


def test_dcg_inside_the_parentheses_is_ir_measures_reading() -> None:
    # exp-log2 (gdeval): gains 2^g - 1 = 3, 0, 1, 0 at ranks 1-4; ideal 3, 1, 1
    dcg = 3 + 1 / math.log2(4)
    ideal = 3 + 1 / math.log2(3) + 1 / math.log2(4)
    assert _one('nDCG(dcg="exp-log2")@10') == pytest.approx(dcg / ideal, abs=1e-12)
    assert _one("nDCG(dcg='exp-log2')") == pytest.approx(dcg / ideal, abs=1e-12)
    # log2 (ir_measures' default, trec_eval's): the linear gains 2, 0, 1, 0; ideal 2, 1, 1
    lin = (2 + 1 / math.log2(4)) / (2 + 1 / math.log2(3) + 1 / math.log2(4))
    assert _one("nDCG(dcg=log2)@10") == pytest.approx(lin, abs=1e-12) == _one("ndcg_cut_10")
    assert str(parse_measure('nDCG(dcg="exp-log2")@10')) == "nDCG@10"
    assert str(parse_measure("nDCG(dcg=log2, gains={0:0,1:1,2:3})@5")) == "nDCG(gains={0:0,1:1,2:3})@5"
    with pytest.raises(irframe.exceptions.UnknownMeasureError, match="dcg='log10' has no irframe equivalent"):
        parse_measure("nDCG(dcg=log10)")


def test_cutoff_inside_the_parentheses() -> None:
    assert parse_measure("nDCG(cutoff=20)") == parse_measure("nDCG@20")
    assert parse_measure('nDCG(dcg="exp-log2", cutoff=20)') == parse_measure("nDCG@20")
    assert parse_measure("P(rel=2, cutoff=5)") == parse_measure("P(rel=2)@5")
    # P@1 at rel 2: a is relevant at level 2 -> 1.0; at cutoff 2: a and x -> 1/2
    assert _one("P(rel=2, cutoff=2)") == 0.5
    # the same cutoff twice is one; two different ones are refused (ir_measures keeps @k silently)
    assert parse_measure("nDCG(cutoff=10)@10") == parse_measure("nDCG@10")
    with pytest.raises(InvalidParameterError, match=r"two cutoffs: @10 and cutoff=20"):
        parse_measure('nDCG(dcg="exp-log2", cutoff=20)@10')


def test_comma_lists_after_the_printed_name() -> None:
    assert parse_measures(["P_5,10"]) == [("P_5", parse_measure("P@5")), ("P_10", parse_measure("P@10"))]
    assert [label for label, _ in parse_measures(["ndcg_cut_20,4"])] == ["ndcg_cut_20", "ndcg_cut_4"]
    got = irframe.evaluate(RUN, ["P_1,2", "ndcg_cut_20,4"], QRELS).row(0, named=True)
    assert (got["P_1"], got["P_2"]) == (1.0, 0.5)  # a relevant, x not judged
    assert got["ndcg_cut_4"] == pytest.approx(got["ndcg_cut_20"])  # (4 documents retrieved)


def test_set_f_with_several_betas() -> None:
    # the set: a, x, c, b retrieved; relevant a, c, d: P = 2/4, R = 2/3
    # trec_eval's set_F.x = (1 + x) P R / (x P + R): F1 = 4/7; x = 0.5: 1.5 * (1/3) / (1/4 + 2/3) = 6/11
    labels = [label for label, _ in parse_measures(["set_F.1.0,0.5"])]
    assert labels == ["set_F", "SetF(beta=0.5)"]
    got = irframe.evaluate(RUN, ["set_F.1.0,0.5"], QRELS).row(0, named=True)
    assert got["set_F"] == pytest.approx(4 / 7, abs=1e-12)
    assert got["SetF(beta=0.5)"] == pytest.approx(6 / 11, abs=1e-12)


def test_a_ranx_json_qrels_given_as_qrels() -> None:
    """read_trec_qrels (what the refusal of a path as qrels points to) and the CLI's
    stdin read ranx's ``Qrels.save`` JSON as the qrels it is given as."""
    text = json.dumps({"q": {"a": 2, "b": 0, "c": 1, "d": 1}})
    qrels = irframe.read_trec_qrels(io.StringIO(text))
    assert qrels.rows() == [("q", "a", 2), ("q", "b", 0), ("q", "c", 1), ("q", "d", 1)]
    assert irframe.evaluate(RUN, ["P@2"], qrels).item(0, "P@2") == 0.5
    with pytest.raises(TrecFormatError, match="no subtopics"):
        irframe.read_trec_qrels(io.StringIO(text), subtopics=True)
    with pytest.raises(TrecFormatError, match="is not JSON"):
        irframe.read_trec_qrels(io.StringIO('{"q": {'))


def test_ranx_s_json_qrels_file() -> None:
    path = PEERS_DIR / "ranx" / "qrels.json"
    if not path.is_file():
        pytest.skip(f"ranx's test qrels not found at {path} (set IRFRAME_SHARED_DIR)")
    # ranx's qrels_test.py pins these grades for qrels.json (and the same for qrels.trec)
    expected = [("q1", "d1", 1), ("q1", "d2", 2), ("q1", "d3", 3), ("q2", "d1", 1), ("q2", "d2", 2)]
    assert irframe.read_trec_qrels(path).rows() == expected
    assert irframe.read_trec_qrels(path).rows() == irframe.read_trec_qrels(path.with_suffix(".trec")).rows()
    # and its run, given as a run (read_trec_run, as the refusal of a path as a run says)
    run = irframe.read_trec_run(path.with_name("run.json"), system=True)
    trec = irframe.read_trec_run(path.with_name("run.trec"))
    assert sorted(run.drop("system").rows()) == sorted(trec.rows())
    assert run["system"].unique().to_list() == ["run"]


# --- the spellings the peers' own tests pin -------------------------------------------------
_SPELLINGS = ("dcg=", "cutoff=", ",", "set_F.")
# where irframe reads a pinned spelling otherwise, on purpose (said in the error)
REFUSED = {
    'nDCG(dcg="exp-log2", cutoff=20)@10': "two cutoffs",  # ir_measures: @10 wins silently
    "IPrec(rel=2, recall=0.4)@0.2": "given twice",  # ir_measures: @0.2 wins silently
}


def _notation_cases() -> list[dict[str, Any]]:
    out = []
    for name, key, text in (("ir_measures", "notation", "text"), ("pytrec_eval", "names", "spec")):
        path = PEERS_DIR / "cases" / f"{name}.json"
        if not path.is_file():
            pytest.skip(f"the peers' pinned cases not found at {path} (set IRFRAME_SHARED_DIR)")
        for case in json.loads(path.read_text())[key]:
            specs = case[text] if isinstance(case[text], list) else [case[text]]
            if any(s in spec for spec in specs for s in _SPELLINGS):
                out.append({"peer": name, "specs": specs, "expected": case["expected"]})
    return out


def test_pytrec_eval_s_measure_lists() -> None:
    """pytrec_eval's test_measure_params: the names its measure set expands to, as the
    command line's ``-m`` reads such a list (bare ``P``: trec_eval's default cutoffs)."""
    from irframe.measures.trec_m import resolve

    cases = [c for c in _notation_cases() if c["peer"] == "pytrec_eval"]
    assert cases
    for case in cases:
        # pytrec_eval drops a bare name's defaults (ndcg_cut) when the list gives that measure
        # values too (ndcg_cut.1,4): irframe computes each entry as written
        dotted = {s.split(".")[0] for s in case["specs"] if "." in s}
        with_values = dotted | {s.rsplit("_", 1)[0] for s in case["specs"] if "," in s and "." not in s}
        kept = [s for s in case["specs"] if s not in with_values]
        assert {a.label for a in resolve(kept)} == set(case["expected"]), case


@pytest.mark.oracle
def test_ir_measures_notation_cases_mean_what_ir_measures_reads() -> None:
    """Each pinned text with one of the spellings: irframe's measures equal ir_measures'
    parse of the expected strings (converted with ir_measures' meaning), or, for the
    spellings in ``REFUSED``, an error saying why."""
    ir_measures = pytest.importorskip("ir_measures", reason="pip install ir-measures (the oracles extra)")
    cases = [c for c in _notation_cases() if c["peer"] == "ir_measures"]
    assert len(cases) >= 5
    for case in cases:
        (text,) = case["specs"]
        if text in REFUSED:
            with pytest.raises(InvalidParameterError, match=REFUSED[text]):
                parse_measures([text])
            continue
        got = [m for _, m in parse_measures([text])]
        want = [parse_measure(ir_measures.parse_measure(e)) for e in case["expected"]]
        assert got == want, case


def test_ir_measures_pinned_exp_log2_values() -> None:
    """ir_measures' pinned nDCG(dcg="exp-log2") values (its ranx and gdeval providers), the
    spelling as written, on the test's data."""
    path = PEERS_DIR / "cases" / "ir_measures.json"
    if not path.is_file():
        pytest.skip(f"ir_measures' pinned cases not found at {path} (set IRFRAME_SHARED_DIR)")
    pinned = json.loads(path.read_text())
    cases = [c for c in pinned["cases"] if "dcg=" in c["measure"]]
    assert len(cases) >= 5
    for case in cases:
        d = pinned["data"][case["data"]]
        q = [line.split() for line in d["qrels"].splitlines() if line.strip()]
        r = [line.split() for line in d["run"].splitlines() if line.strip()]
        qrels = pl.DataFrame(
            {"query_id": [x[0] for x in q], "doc_id": [x[2] for x in q], "relevance": [int(x[3]) for x in q]}
        )
        run = pl.DataFrame(
            {"query_id": [x[0] for x in r], "doc_id": [x[2] for x in r], "score": [float(x[4]) for x in r]}
        )
        got = irframe.evaluate(run, [case["measure"]], qrels, per_query=True)
        value = got.filter(pl.col("query_id") == case["query"]).item(0, case["measure"])
        assert value == pytest.approx(case["expected"], abs=max(case["tol"], 1e-12)), case


def test_a_bare_p_is_refused_with_trec_eval_s_defaults_and_the_hint_works() -> None:
    """trec_eval's ``-m P`` is its nine default cutoffs; ir_measures parses a bare ``P`` and
    refuses it when it evaluates.  The library refuses it at once, with trec_eval's reading
    spelled out; the hint followed gives the nine values."""
    with pytest.raises(InvalidParameterError, match=r"P needs a cutoff") as err:
        parse_measures("P")
    hint = str(err.value).split("write '")[2].split("'")[0]
    assert hint == "P.5,10,15,20,30,100,200,500,1000"
    got = irframe.evaluate(RUN, hint, QRELS).row(0, named=True)
    # hand: a and c relevant (grade >= 1) among the 4 returned: P@k = 2 / k
    want = {f"P_{k}": 2 / k for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)}
    assert {label: got[label] for label in want} == want
