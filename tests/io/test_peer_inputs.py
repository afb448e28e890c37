"""The peers' in-memory runs and qrels as irframe inputs, checked against the peers themselves.

Each peer evaluates the same object irframe is given: pytrec_eval a dict of dicts, ir_measures
lists (and iterators) of its ``ScoredDoc``/``Qrel`` tuples, ranx its ``Run``/``Qrels`` objects
and its JSON files.  irframe's per-query values must equal the peer's (to 1e-12).  The data
are generated with grades 0-3, unjudged documents, a run-only query and a judged query the
run lacks; scores are distinct where a peer breaks ties its own way (ranx: an unstable sort).
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import irframe
from _support.helpers import PEERS_DIR
from irframe.exceptions import InvalidDataError, IrFrameError

TOL = 1e-12
Nested = dict[str, dict[str, Any]]

pytestmark = [
    pytest.mark.oracle,
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),  # (numba, under ranx)
]


def generate(seed: int, ties: bool = True) -> tuple[Nested, Nested]:
    """(run, qrels) as dicts of dicts: 6 judged queries (q5 not in the run), a run-only q9."""
    rng = random.Random(seed)
    run: Nested = {}
    qrels: Nested = {}
    for q in range(6):
        docs = [f"d{j}" for j in range(12)]
        qrels[f"q{q}"] = {d: rng.choice([0, 0, 1, 2, 3]) for d in rng.sample(docs, 8)}
        if q == 5:
            continue
        ranked = rng.sample(docs, rng.randint(3, 12))
        if ties:
            run[f"q{q}"] = {d: rng.randint(0, 6) / 2 for d in ranked}
        else:
            run[f"q{q}"] = {d: i + rng.random() / 2 for i, d in enumerate(ranked)}
    run["q9"] = {"d1": 1.0, "d2": 0.5}
    return run, qrels


def per_query(result: pl.DataFrame, label: str) -> dict[str, float]:
    return dict(zip(result["query_id"].to_list(), result[label].to_list(), strict=True))


def assert_close(got: dict[str, float], expected: dict[str, float], where: str) -> None:
    assert expected, f"{where}: the peer gave no value"
    bad = {q: (got.get(q), v) for q, v in expected.items() if got.get(q) is None or abs(got[q] - v) > TOL}
    assert not bad, f"{where}: (irframe, peer) differ: {bad}"


# --- pytrec_eval: dicts of dicts --------------------------------------------------------------
PYTREC = {  # pytrec_eval name -> irframe measure (trec_eval's semantics)
    "P_5": "P@5", "map": "AP", "recip_rank": "RR", "recall_10": "R@10",
    "ndcg_cut_10": "nDCG(gain=linear)@10", "ndcg": "nDCG(gain=linear)", "Rprec": "Rprec",
}  # fmt: skip


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_dicts_match_pytrec_eval(seed: int) -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval", reason="needs pip install pytrec_eval (oracle)")
    run, qrels = generate(seed)
    expected = pytrec_eval.RelevanceEvaluator(qrels, set(PYTREC)).evaluate(run)
    # pytrec_eval (trec_eval 9 without -c) leaves out judged queries the run lacks
    got = irframe.evaluate(run, list(PYTREC.values()), qrels, per_query=True, missing="drop")
    assert isinstance(got, pl.DataFrame)
    for name, measure in PYTREC.items():
        assert_close(per_query(got, measure), {q: v[name] for q, v in expected.items()}, name)
    assert got.filter(pl.col("query_id") == "q9")["AP"].to_list() == [None]  # run-only: no value


# --- ir_measures: ScoredDoc / Qrel tuples -----------------------------------------------------
def _tuples(run: Nested, qrels: Nested) -> tuple[list[Any], list[Any]]:
    im = pytest.importorskip("ir_measures", reason="needs pip install ir_measures (oracle)")
    docs = [im.ScoredDoc(q, d, s) for q, ranked in run.items() for d, s in ranked.items()]
    judged = [im.Qrel(q, d, g, "0") for q, grades in qrels.items() for d, g in grades.items()]
    return docs, judged


IR_MEASURES = {"nDCG@10": "nDCG(gain=linear)@10", "P@5": "P@5", "AP": "AP", "RR": "RR", "R@10": "R@10"}


@pytest.mark.parametrize("iterators", [False, True], ids=["lists", "iterators"])
def test_tuples_match_ir_measures(iterators: bool) -> None:
    im = pytest.importorskip("ir_measures", reason="needs pip install ir_measures (oracle)")
    run, qrels = generate(3)
    docs, judged = _tuples(run, qrels)
    measures = [im.parse_measure(m) for m in IR_MEASURES]
    expected: dict[str, dict[str, float]] = {}
    for metric in im.iter_calc(measures, judged, docs):
        expected.setdefault(str(metric.measure), {})[metric.query_id] = metric.value
    run_in: Any = iter(docs) if iterators else docs
    qrels_in: Any = (q for q in judged) if iterators else judged
    got = irframe.evaluate(run_in, list(IR_MEASURES.values()), qrels_in, per_query=True)
    for name, measure in IR_MEASURES.items():
        assert_close(per_query(got, measure), expected[name], name)


def test_an_iterator_is_read_once_and_kept() -> None:
    """A generator of Qrel tuples serves every read of one call (and of a later one)."""
    run, qrels = generate(4)
    docs, judged = _tuples(run, qrels)
    gen: Iterator[Any] = (q for q in judged)
    first = irframe.evaluate(docs, ["AP", "nDCG@5"], gen, per_query=True)
    again = irframe.evaluate(docs, ["AP", "nDCG@5"], gen, per_query=True)
    assert first.equals(again)
    assert first.equals(irframe.evaluate(docs, ["AP", "nDCG@5"], judged, per_query=True))


def test_qrel_iteration_is_the_subtopic() -> None:
    im = pytest.importorskip("ir_measures", reason="needs pip install ir_measures (oracle)")
    qrels = [im.Qrel("q1", "a", 1, "1"), im.Qrel("q1", "b", 1, "2"), im.Qrel("q1", "a", 1, "2")]
    run = [im.ScoredDoc("q1", "a", 2.0), im.ScoredDoc("q1", "b", 1.0)]
    got = irframe.evaluate(run, ["StRecall@1"], qrels, per_query=True)
    assert got["StRecall@1"].to_list() == [1.0]  # a covers both subtopics


# --- ranx: Run / Qrels objects and JSON files -------------------------------------------------
RANX = {
    "ndcg@10": "nDCG(gain=linear)@10",
    "precision@5": "P@5",
    "map": "AP",
    "mrr": "RR",
    "recall@10": "R@10",
}


def _ranx_values(ranx: Any, qrels: Any, run: Any) -> dict[str, dict[str, float]]:
    ranx.evaluate(qrels, run, list(RANX), make_comparable=True)
    return {m: dict(run.scores[m]) for m in RANX}


@pytest.mark.parametrize("seed", [5, 6])
def test_ranx_objects_match_ranx(seed: int) -> None:
    ranx = pytest.importorskip("ranx", reason="needs pip install ranx (oracle)")
    run, qrels = generate(seed, ties=False)
    del run["q9"]  # (ranx's make_comparable drops it; irframe gives it no value)
    r_run, r_qrels = ranx.Run(run, name="sys"), ranx.Qrels(qrels)
    got = irframe.evaluate(r_run, list(RANX.values()), r_qrels, per_query=True)
    assert isinstance(got, pl.DataFrame)
    expected = _ranx_values(ranx, ranx.Qrels(qrels), ranx.Run(run))
    for name, measure in RANX.items():
        assert_close(per_query(got, measure), expected[name], name)


def test_ranx_json_files_match_ranx() -> None:
    ranx = pytest.importorskip("ranx", reason="needs pip install ranx (oracle)")
    folder = PEERS_DIR / "ranx"
    if not (folder / "run.json").is_file():
        pytest.skip(f"needs the shared peers' data at {folder} (../shared beside the repository)")
    run = irframe.read_table(folder / "run.json")
    qrels = irframe.read_table(folder / "qrels.json", role="qrels")
    assert run.columns == ["query_id", "doc_id", "score"]
    assert qrels.schema["relevance"] == pl.Int64
    # the same lines as ranx's TREC copies of the files
    assert sorted(run.rows()) == sorted((q, d, s) for q, d, _, s in _trec_rows(folder / "run.trec"))
    got = irframe.evaluate(run, list(RANX.values()), qrels, per_query=True)
    # (ranx's from_file leaves its file open: the same JSON, read here)
    r_qrels = ranx.Qrels(json.loads((folder / "qrels.json").read_text()))
    expected = _ranx_values(ranx, r_qrels, ranx.Run(json.loads((folder / "run.json").read_text())))
    for name, measure in RANX.items():
        assert_close(per_query(got, measure), expected[name], name)


def _trec_rows(path: Path) -> list[tuple[str, str, int, float]]:
    rows = [line.split() for line in path.read_text().splitlines() if line.strip()]
    return [(r[0], r[2], int(r[3]), float(r[4])) for r in rows]


def test_json_dict_of_dicts_roles(tmp_path: Path) -> None:
    ints, reals = tmp_path / "qrels.json", tmp_path / "run.json"
    ints.write_text(json.dumps({"q1": {"a": 1, "b": 0}}))
    reals.write_text(json.dumps({"q1": {"a": 0.5, "b": 2}}))
    with pytest.raises(InvalidDataError, match=r"integer values.*role='qrels'"):
        irframe.read_table(ints)
    assert irframe.read_table(ints, role="run").rows() == [("q1", "a", 1.0), ("q1", "b", 0.0)]
    assert irframe.read_table(reals).rows() == [("q1", "a", 0.5), ("q1", "b", 2.0)]
    with pytest.raises(InvalidDataError, match="not all whole numbers"):
        irframe.read_table(reals, role="qrels")
    records = tmp_path / "records.json"  # an array of records is read as before
    records.write_text(json.dumps([{"query_id": "q1", "doc_id": "a", "score": 1.0}]))
    assert irframe.read_table(records).columns == ["query_id", "doc_id", "score"]


def test_cli_eval_reads_ranx_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from irframe.cli import main

    (tmp_path / "qrels.json").write_text(json.dumps({"q1": {"a": 1, "b": 0}, "q2": {"c": 2}}))
    (tmp_path / "run.json").write_text(json.dumps({"q1": {"a": 0.25, "b": 0.5}, "q2": {"c": 1.0}}))
    assert (
        main(["eval", str(tmp_path / "qrels.json"), str(tmp_path / "run.json"), "-m", "RR", "-f", "csv"]) == 0
    )
    out = capsys.readouterr().out.splitlines()
    assert out[0].split(",")[:2] == ["system", "RR"]
    assert float(out[1].split(",")[1]) == pytest.approx((0.5 + 1.0) / 2, abs=TOL)


# --- the rest of the API takes them too -------------------------------------------------------
def test_compare_takes_dict_runs_and_qrels() -> None:
    run, qrels = generate(7)
    other = {q: {d: -s for d, s in ranked.items()} for q, ranked in run.items()}
    table = irframe.compare({"a": run, "b": other}, qrels, ["AP"], test="t")
    means = irframe.evaluate(other, ["AP"], qrels).item(0, "AP")
    assert table.item(0, "mean") == pytest.approx(means, abs=TOL)


# --- refused, with the reason -----------------------------------------------------------------
@pytest.mark.parametrize(
    ("run", "qrels", "match"),
    [
        ({}, {"q1": {"a": 1}}, "run is an empty dict"),
        ({"q1": {"a": 1.0}}, {}, "qrels is an empty dict"),
        ({"q1": {"a": 1.0}}, {"q1": {}}, r"query without judgments \('q1'"),
        ({"q1": {"a": 1.0}}, {"q1": {"a": 0.5}}, "not all whole numbers"),
        ({"q1": {"a": "high"}}, {"q1": {"a": 1}}, "scores must be numbers; found 'high'"),
        ({"q1": 1.0}, {"q1": {"a": 1}}, "value for 'q1' is a float, not a dict"),
        ({"q1": {"a": 1.0}, 2: {"a": 1.0}}, {"q1": {"a": 1}}, "query_id values mix types"),
        ([], {"q1": {"a": 1}}, "empty sequence"),
        ([("q1", "a", 1.0)], {"q1": {"a": 1}}, "must be a pandas.DataFrame.*ScoredDoc"),
    ],
    ids=["empty-run", "empty-qrels", "empty-query", "real-grades", "text-score", "flat-dict",
         "mixed-ids", "empty-list", "plain-tuples"],
)  # fmt: skip
def test_ambiguous_or_bad_forms_raise(run: Any, qrels: Any, match: str) -> None:
    with pytest.raises(IrFrameError, match=match):
        irframe.evaluate(run, ["AP"], qrels)


def test_tuples_of_the_other_role_raise() -> None:
    run, qrels = generate(8)
    docs, judged = _tuples(run, qrels)
    with pytest.raises(InvalidDataError, match=r"Qrel .* without a 'score' field.*pass it as the qrels"):
        irframe.evaluate(judged, ["AP"], judged)
    with pytest.raises(InvalidDataError, match=r"ScoredDoc .* without a 'relevance'.*pass it as the run"):
        irframe.evaluate(docs, ["AP"], docs)


def test_ranx_objects_of_the_other_role_raise() -> None:
    ranx = pytest.importorskip("ranx", reason="needs pip install ranx (oracle)")
    run, _ = generate(9, ties=False)
    with pytest.raises(InvalidDataError, match=r"qrels is a ranx Run.*pass it as the run"):
        irframe.evaluate(ranx.Run(run), ["AP"], ranx.Run(run))


def test_ids_stay_as_given() -> None:
    got = irframe.evaluate({"007": {"01": 1.0}}, ["RR"], {"007": {"01": 1}}, per_query=True)
    assert got.rows() == [("007", 1.0)]
    ints = irframe.evaluate({7: {1: 1.0, 2: 2.0}}, ["RR"], {7: {1: 1}}, per_query=True)
    assert ints.schema["query_id"] == pl.Int64
    assert ints.rows() == [(7, 0.5)]
