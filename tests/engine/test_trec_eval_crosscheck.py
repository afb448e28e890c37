"""Cross-checks against trec_eval (through pytrec_eval) and ranx.

pytrec_eval runs trec_eval's own C code, so for every trec_eval measure with
``gain=linear`` irframe, the oracle and pytrec_eval must agree per query.  pytrec_eval
drops qrels queries absent from the run (trec_eval without ``-c``), so irframe is run
with ``missing="drop"`` here; it needs str ids and int grades.

trec_eval's bpref divides in single precision (``(float) MIN(...) / (float) MIN(...)``
in ``m_bpref.c``), so bpref is compared to 1e-6 instead of 1e-9.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from _support.datagen import run_and_qrels, trec_name
from _support.helpers import NamedConstructor, assert_close_dicts, examples, per_query_dict
from _support.oracle import oracle_evaluate
from irframe.measures import Measure, parse_measure

pytrec_eval = pytest.importorskip("pytrec_eval")

TOL = 1e-9
# IRFRAME_HYPOTHESIS_EXAMPLES=2000 for a deep run
EXAMPLES = examples(60)
BPREF_TOL = 1e-6


def trec_measures(cutoffs: tuple[int, ...] = (1, 2, 3, 5, 10, 20)) -> list[str]:
    """Every linear-gain trec_eval measure, as trec_eval names (irframe accepts them)."""
    names = ["map", "ndcg", "recip_rank", "Rprec", "bpref", "num_ret", "num_rel", "num_rel_ret"]
    for k in cutoffs:
        names += [f"P_{k}", f"recall_{k}", f"map_cut_{k}", f"ndcg_cut_{k}", f"success_{k}"]
    return names


def with_rel(label: str, rel: int) -> tuple[str, Measure]:
    """The ir_measures spelling of a trec measure at relevance level ``rel``."""
    m = parse_measure(label)
    # -l is a threshold where the family has one (not nDCG, NumRet); this passed rel and gain to
    # every family, and Measure silently dropped what one did not declare: now that raises
    if rel != 1 and "rel" in m.definition.params:
        m = m(rel=rel)
    return str(m), m


def pytrec(
    run: dict[str, list[Any]],
    qrels: dict[str, list[Any]],
    measures: list[Measure],
    rel: int = 1,
) -> dict[str, dict[str, float]]:
    """Per-query pytrec_eval values keyed by our labels (``str(measure)``)."""
    q: dict[str, dict[str, int]] = {}
    for qid, d, g in zip(qrels["query_id"], qrels["doc_id"], qrels["relevance"], strict=True):
        q.setdefault(str(qid), {})[str(d)] = int(g)
    # pytrec_eval crashes (segfault or endless loop in ndcg) on a query whose
    # judgments are all negative; such queries are left out of the comparison (the
    # oracle and the hand-computed tests cover them).
    crashing = {qid for qid, docs in q.items() if max(docs.values()) < 0}
    q = {qid: docs for qid, docs in q.items() if qid not in crashing}
    r: dict[str, dict[str, float]] = {}
    for qid, d, s in zip(run["query_id"], run["doc_id"], run["score"], strict=True):
        if str(qid) not in crashing:
            r.setdefault(str(qid), {})[str(d)] = float(s)
    if not q or not r:
        return {}
    names = {trec_name(m): str(m) for m in measures}
    evaluator = pytrec_eval.RelevanceEvaluator(q, set(names), relevance_level=rel)
    raw = evaluator.evaluate(r)
    out: dict[str, dict[str, float]] = {}
    for qid, vals in raw.items():
        out[qid] = {label: vals[name.replace(".", "_")] for name, label in names.items()}
    return out


def compare(
    got: dict[str, dict[str, float | None]],
    expected: dict[str, dict[str, float]],
    context: str,
) -> None:
    def is_bpref(label: str) -> bool:
        return parse_measure(label).family == "Bpref"

    bpref = {q: {k: v for k, v in d.items() if is_bpref(k)} for q, d in expected.items()}
    rest = {q: {k: v for k, v in d.items() if not is_bpref(k)} for q, d in expected.items()}
    assert_close_dicts(got, rest, tol=TOL, context=context)  # type: ignore[arg-type]
    assert_close_dicts(got, bpref, tol=BPREF_TOL, context=context)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------
# (0) the oracle itself agrees with trec_eval: this validates the reference
# ---------------------------------------------------------------------------------------
@settings(max_examples=examples(150), deadline=None)
@given(data=run_and_qrels(grades=(-1, 0, 0, 1, 1, 2, 3, 4)), rel=st.sampled_from([1, 2, 3]))
def test_oracle_matches_pytrec_eval(data: tuple[dict[str, list[Any]], ...], rel: int) -> None:
    run, qrels = data
    labelled = [with_rel(label, rel) for label in trec_measures()]
    measures = [m for _, m in labelled]
    expected = pytrec(run, qrels, measures, rel=rel)
    got = oracle_evaluate(run, qrels, [str(m) for m in measures], missing="drop")
    got = {q: v for q, v in got.items() if q in expected}
    compare(got, expected, context=f" (oracle, rel={rel})")


def test_oracle_toy_example_matches_pytrec_eval() -> None:
    run = {"query_id": ["q1"] * 4, "doc_id": list("abcd"), "score": [1.0, 1.0, 0.5, 0.4]}
    qrels = {"query_id": ["q1"] * 4, "doc_id": list("abcd"), "relevance": [0, 1, 2, -1]}
    measures = [parse_measure(n) for n in trec_measures()]
    expected = pytrec(run, qrels, measures)
    got = oracle_evaluate(run, qrels, [str(m) for m in measures])
    compare(got, expected, context=" (oracle toy)")


# ---------------------------------------------------------------------------------------
# (a) the engine agrees with trec_eval on random runs
# ---------------------------------------------------------------------------------------
@pytest.mark.deep  # hypothesis against pytrec_eval (slow): .ci/run runs -m deep
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(data=run_and_qrels(grades=(-1, 0, 0, 1, 1, 2, 3, 4)), rel=st.sampled_from([1, 2]))
def test_engine_matches_pytrec_eval_random(
    data: tuple[dict[str, list[Any]], ...], rel: int, constructor: NamedConstructor
) -> None:
    irframe = pytest.importorskip("irframe")
    if not hasattr(irframe, "evaluate"):
        pytest.skip("irframe.evaluate not implemented yet")
    run, qrels = data
    labelled = [with_rel(label, rel) for label in trec_measures()]
    labels = [label for label, _ in labelled]
    expected = pytrec(run, qrels, [m for _, m in labelled], rel=rel)
    result = irframe.evaluate(constructor(run), labels, constructor(qrels), per_query=True, missing="drop")
    got = per_query_dict(result, labels)
    got = {q: v for q, v in got.items() if q in expected}  # run-only queries: null, tested elsewhere
    compare(got, expected, context=f" ({constructor.name}, rel={rel})")


# ---------------------------------------------------------------------------------------
# (b) trec_eval's own test files
# ---------------------------------------------------------------------------------------
def read_trec_run(path: Path) -> dict[str, list[Any]]:
    """qid Q0 docno rank sim tag -> query_id, doc_id, score (trec_eval ignores the rank)."""
    out: dict[str, list[Any]] = {"query_id": [], "doc_id": [], "score": []}
    for line in path.read_text().splitlines():
        parts = line.split()
        if not parts or parts[0].startswith("#"):
            continue
        out["query_id"].append(parts[0])
        out["doc_id"].append(parts[2])
        out["score"].append(float(parts[4]))
    return out


def read_trec_qrels(path: Path) -> dict[str, list[Any]]:
    """qid iter docno rel -> query_id, doc_id, relevance."""
    out: dict[str, list[Any]] = {"query_id": [], "doc_id": [], "relevance": []}
    for line in path.read_text().splitlines():
        parts = line.split()
        if not parts or parts[0].startswith("#"):
            continue
        out["query_id"].append(parts[0])
        out["doc_id"].append(parts[2])
        out["relevance"].append(int(parts[3]))
    return out


PAIRS = [
    ("results.test", "qrels.test"),
    ("results.test", "qrels.rel_level"),
    ("results-302.test", "qrels-302.test"),
]
FILE_MEASURES = trec_measures(cutoffs=(5, 10, 15, 20, 30, 100, 200, 500, 1000))


@pytest.mark.parametrize(("run_file", "qrels_file"), PAIRS)
@pytest.mark.parametrize("rel", [1, 2])
def test_oracle_matches_pytrec_eval_on_trec_eval_files(
    trec_eval_test_dir: Path, run_file: str, qrels_file: str, rel: int
) -> None:
    run = read_trec_run(trec_eval_test_dir / run_file)
    qrels = read_trec_qrels(trec_eval_test_dir / qrels_file)
    labelled = [with_rel(label, rel) for label in FILE_MEASURES]
    expected = pytrec(run, qrels, [m for _, m in labelled], rel=rel)
    got = oracle_evaluate(run, qrels, [label for label, _ in labelled], missing="drop")
    got = {q: v for q, v in got.items() if q in expected}
    compare(got, expected, context=f" (oracle, {run_file} vs {qrels_file}, rel={rel})")


@pytest.mark.parametrize(("run_file", "qrels_file"), PAIRS)
@pytest.mark.parametrize("rel", [1, 2])
def test_engine_matches_pytrec_eval_on_trec_eval_files(
    trec_eval_test_dir: Path,
    run_file: str,
    qrels_file: str,
    rel: int,
    constructor: NamedConstructor,
) -> None:
    irframe = pytest.importorskip("irframe")
    if not hasattr(irframe, "evaluate"):
        pytest.skip("irframe.evaluate not implemented yet")
    run = read_trec_run(trec_eval_test_dir / run_file)
    qrels = read_trec_qrels(trec_eval_test_dir / qrels_file)
    labelled = [with_rel(label, rel) for label in FILE_MEASURES]
    labels = [label for label, _ in labelled]
    expected = pytrec(run, qrels, [m for _, m in labelled], rel=rel)
    result = irframe.evaluate(constructor(run), labels, constructor(qrels), per_query=True, missing="drop")
    got = per_query_dict(result, labels)
    got = {q: v for q, v in got.items() if q in expected}
    compare(got, expected, context=f" ({constructor.name}, {run_file} vs {qrels_file})")


@pytest.mark.parametrize(("run_file", "qrels_file"), PAIRS)
def test_engine_means_match_pytrec_eval_on_trec_eval_files(
    trec_eval_test_dir: Path, run_file: str, qrels_file: str
) -> None:
    """The summary row is the arithmetic mean of pytrec_eval's per-query values."""
    irframe = pytest.importorskip("irframe")
    if not hasattr(irframe, "evaluate"):
        pytest.skip("irframe.evaluate not implemented yet")
    import polars as pl

    run = read_trec_run(trec_eval_test_dir / run_file)
    qrels = read_trec_qrels(trec_eval_test_dir / qrels_file)
    measures = [parse_measure(n) for n in FILE_MEASURES]
    expected = pytrec(run, qrels, measures)
    result = irframe.evaluate(pl.DataFrame(run), FILE_MEASURES, pl.DataFrame(qrels), missing="drop")
    row = result.row(0, named=True)
    assert row["n_queries"] == len(expected)
    for label, m in zip(FILE_MEASURES, measures, strict=True):
        mean = sum(v[str(m)] for v in expected.values()) / len(expected)
        tol = BPREF_TOL if m.family == "Bpref" else TOL
        assert row[label] == pytest.approx(mean, abs=tol), label


def test_trec_eval_test_files_readable_by_pytrec_eval(trec_eval_test_dir: Path) -> None:
    """A guard: the fixtures parse and give trec_eval's published map for results.test."""
    run = read_trec_run(trec_eval_test_dir / "results.test")
    qrels = read_trec_qrels(trec_eval_test_dir / "qrels.test")
    vals = pytrec(run, qrels, [parse_measure("map")])
    assert len(vals) > 1


# ---------------------------------------------------------------------------------------
# exponential gain and RR@k: ranx (ndcg_burges = 2^rel - 1, IDCG from the qrels)
# ---------------------------------------------------------------------------------------
@pytest.mark.slow  # ranx compiles its numba kernels on first use (slow)
def test_engine_exp_ndcg_and_rr_at_k_match_ranx() -> None:
    """ranx's ``ndcg_burges@k`` is our default ``nDCG@k`` and its ``mrr@k`` our ``RR@k``.

    ranx breaks score ties arbitrarily and handles negative grades differently, so the
    data here has distinct scores and grades in 0..3 only.
    """
    ranx = pytest.importorskip("ranx")
    irframe = pytest.importorskip("irframe")
    if not hasattr(irframe, "evaluate"):
        pytest.skip("irframe.evaluate not implemented yet")
    import polars as pl

    rng = random.Random(7)
    run: dict[str, list[Any]] = {"query_id": [], "doc_id": [], "score": []}
    qrels: dict[str, list[Any]] = {"query_id": [], "doc_id": [], "relevance": []}
    for qi in range(20):
        q = f"q{qi}"
        docs = rng.sample([f"d{i}" for i in range(30)], 15)
        scores = rng.sample(range(1000), len(docs))
        run["query_id"] += [q] * len(docs)
        run["doc_id"] += docs
        run["score"] += [float(s) for s in scores]
        judged = rng.sample([f"d{i}" for i in range(30)], 12)
        qrels["query_id"] += [q] * len(judged)
        qrels["doc_id"] += judged
        qrels["relevance"] += [rng.choice([0, 0, 1, 2, 3]) for _ in judged]
        if qi == 0:  # make sure at least one query has a relevant doc
            qrels["relevance"][-1] = 2
    labels = ["nDCG@5", "nDCG@10", "RR@3", "RR@10"]
    ranx_names = {"nDCG@5": "ndcg_burges@5", "nDCG@10": "ndcg_burges@10", "RR@3": "mrr@3"}
    ranx_names["RR@10"] = "mrr@10"

    rq: dict[str, dict[str, int]] = {}
    for q, d, g in zip(qrels["query_id"], qrels["doc_id"], qrels["relevance"], strict=True):
        rq.setdefault(q, {})[d] = g
    rr: dict[str, dict[str, float]] = {}
    for q, d, s in zip(run["query_id"], run["doc_id"], run["score"], strict=True):
        rr.setdefault(q, {})[d] = s
    # ranx refuses queries without any relevant doc; keep those with one
    keep = {q for q, docs in rq.items() if any(g > 0 for g in docs.values())}
    rq = {q: v for q, v in rq.items() if q in keep}
    rr = {q: v for q, v in rr.items() if q in keep}
    run_k = {k: [v for q, v in zip(run["query_id"], vs, strict=True) if q in keep] for k, vs in run.items()}
    qrels_k = {
        k: [v for q, v in zip(qrels["query_id"], vs, strict=True) if q in keep] for k, vs in qrels.items()
    }

    result = irframe.evaluate(pl.DataFrame(run_k), labels, pl.DataFrame(qrels_k), per_query=True)
    got = per_query_dict(result, labels)
    ranx_qrels, ranx_run = ranx.Qrels(rq), ranx.Run(rr)
    for label in labels:
        scores = ranx.evaluate(ranx_qrels, ranx_run, ranx_names[label], return_mean=False)
        qids = list(ranx_run.keys())
        for q, v in zip(qids, scores, strict=True):
            assert got[q][label] == pytest.approx(float(v), abs=1e-9), (q, label)


@pytest.mark.parametrize(("run_file", "qrels_file"), PAIRS)
def test_irframe_readers_end_to_end_match_pytrec_eval(
    trec_eval_test_dir: Path, run_file: str, qrels_file: str
) -> None:
    """irframe's own TREC readers + evaluate == trec_eval (the rank field must be ignored:
    results.test's ranks disagree with its scores)."""
    irframe = pytest.importorskip("irframe")
    if not hasattr(irframe, "read_trec_run"):
        from irframe import io as irio

        if not hasattr(irio, "read_trec_run"):
            pytest.skip("irframe has no TREC readers yet")
        read_run, read_qrels = irio.read_trec_run, irio.read_trec_qrels
    else:
        read_run, read_qrels = irframe.read_trec_run, irframe.read_trec_qrels
    run_df = read_run(trec_eval_test_dir / run_file)
    qrels_df = read_qrels(trec_eval_test_dir / qrels_file)
    measures = [parse_measure(n) for n in FILE_MEASURES]
    expected = pytrec(
        read_trec_run(trec_eval_test_dir / run_file),
        read_trec_qrels(trec_eval_test_dir / qrels_file),
        measures,
    )
    result = irframe.evaluate(run_df, FILE_MEASURES, qrels_df, per_query=True, missing="drop")
    got = per_query_dict(result, FILE_MEASURES)
    got = {q: v for q, v in got.items() if q in expected}
    expected_labels = {
        q: {label: vals[str(m)] for label, m in zip(FILE_MEASURES, measures, strict=True)}
        for q, vals in expected.items()
    }
    compare(got, expected_labels, context=f" (irframe readers, {run_file} vs {qrels_file})")


def test_engine_matches_ir_measures_rr_at_k() -> None:
    """ir_measures' RR@k (msmarco-style cutoff, not in trec_eval) and its trec-backed
    measures agree with ours on distinct scores (ir_measures' own providers may break
    ties the other way, so ties are not compared here); Judged@k as ir_measures defines it,
    over min(k, retrieved): k=20 exceeds the 12 retrieved."""
    ir_measures = pytest.importorskip("ir_measures")
    irframe = pytest.importorskip("irframe")
    import polars as pl

    rng = random.Random(11)
    run: dict[str, list[Any]] = {"query_id": [], "doc_id": [], "score": []}
    qrels: dict[str, list[Any]] = {"query_id": [], "doc_id": [], "relevance": []}
    for qi in range(15):
        q = f"q{qi}"
        docs = rng.sample([f"d{i}" for i in range(30)], 12)
        run["query_id"] += [q] * len(docs)
        run["doc_id"] += docs
        run["score"] += [float(s) for s in rng.sample(range(1000), len(docs))]
        judged = rng.sample([f"d{i}" for i in range(30)], 10)
        qrels["query_id"] += [q] * len(judged)
        qrels["doc_id"] += judged
        qrels["relevance"] += [rng.choice([0, 0, 1, 2]) for _ in judged]
    labels = ["RR@1", "RR@3", "RR@10", "P@5", "AP@10", "R@10", "nDCG(gain=linear)@10"]
    labels += ["Judged@5", "Judged@20"]
    theirs = {
        "RR@1": ir_measures.RR @ 1,
        "RR@3": ir_measures.RR @ 3,
        "RR@10": ir_measures.RR @ 10,
        "P@5": ir_measures.P @ 5,
        "AP@10": ir_measures.AP @ 10,
        "R@10": ir_measures.R @ 10,
        "nDCG(gain=linear)@10": ir_measures.nDCG @ 10,  # ir_measures' default gain is linear
        "Judged@5": ir_measures.Judged @ 5,
        "Judged@20": ir_measures.Judged @ 20,
    }
    ir_qrels = [
        ir_measures.Qrel(q, d, g)
        for q, d, g in zip(qrels["query_id"], qrels["doc_id"], qrels["relevance"], strict=True)
    ]
    ir_run = [
        ir_measures.ScoredDoc(q, d, s)
        for q, d, s in zip(run["query_id"], run["doc_id"], run["score"], strict=True)
    ]
    result = irframe.evaluate(pl.DataFrame(run), labels, pl.DataFrame(qrels), per_query=True)
    got = per_query_dict(result, labels)
    by_measure = {str(m): label for label, m in theirs.items()}
    n = 0
    for metric in ir_measures.iter_calc(list(theirs.values()), ir_qrels, ir_run):
        label = by_measure[str(metric.measure)]
        assert got[metric.query_id][label] == pytest.approx(metric.value, abs=1e-9), (
            metric.query_id,
            label,
        )
        n += 1
    assert n == len(labels) * 15
