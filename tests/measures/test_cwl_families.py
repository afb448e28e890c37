"""The C/W/L families and RBP(rel=r) against cwl-eval's own code, per query.

cwl-eval (``pip install cwl-eval``) is driven directly: each query's ranking becomes its
``Ranking`` of gains (NaN for an unjudged document), scaled as ir_measures' cwl_eval provider
scales grades (negative as 0, clipped to [min_rel, max_rel], into [0, 1]; binary for RBP(rel=r)),
and its metric classes give the value (expected utility) and the residual.  Inputs: generated
edge cases (ties, no relevant, everything relevant, queries missing from the run or from the
qrels, negative and unjudged grades), ir_measures' cwl test files and trec_eval's test files.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

import irframe
from _support.helpers import PEERS_DIR, per_query_dict
from _support.oracle import rank_docs
from irframe.exceptions import InvalidParameterError
from irframe.io import read_trec_qrels, read_trec_run
from irframe.measures import Measure, parse_measure

cwl = pytest.importorskip("cwl", reason="the C/W/L cross-checks need pip install cwl-eval (oracle)")
from cwl.ruler import cwl_ruler  # noqa: E402  (after the importorskip)
from cwl.ruler.ranking import Ranking  # noqa: E402

pytestmark = pytest.mark.oracle
TOL = 1e-9

# irframe measure (without residual) -> a cwl-eval metric of the same parameters
METRICS: dict[str, Callable[[Measure], Any]] = {
    "SDCG": lambda m: cwl_ruler.NDCGCWLMetric(m.cutoff),
    "NERR8": lambda m: cwl_ruler.NERReq8CWLMetric(m.cutoff),
    "NERR9": lambda m: cwl_ruler.NERReq9CWLMetric(m.cutoff),
    "NERR10": lambda m: cwl_ruler.NERReq10CWLMetric(float(m.params["p"])),
    "NERR11": lambda m: cwl_ruler.NERReq11CWLMetric(float(m.params["T"])),
    "INST": lambda m: cwl_ruler.INSTCWLMetric(float(m.params["T"])),
    "INSQ": lambda m: cwl_ruler.INSQCWLMetric(float(m.params["T"])),
    "BPM": lambda m: cwl_ruler.BPMCWLMetric(float(m.params["T"]), m.cutoff),
    "RBP": lambda m: cwl_ruler.RBPCWLMetric(float(m.params["p"])),
}
MEASURES = [
    "SDCG(max_rel=2)@5",
    "SDCG(max_rel=1)@10",
    "SDCG(max_rel=3,min_rel=1)@20",
    "NERR8(max_rel=2)@5",
    "NERR8(max_rel=1)@10",
    "NERR9(max_rel=2)@10",
    "NERR10(max_rel=2)",
    "NERR10(p=0.8,max_rel=1)",
    "NERR11(max_rel=2)",
    "NERR11(T=2,max_rel=3)",
    "INST(max_rel=2)",
    "INST(T=2,max_rel=1)",
    "INST(T=0.5,max_rel=3)",
    "INSQ(max_rel=2)",
    "INSQ(T=2,max_rel=1)",
    "BPM(max_rel=2)@10",
    "BPM(T=2,max_rel=1)@20",
    "BPM(T=0.5,max_rel=3)@3",
    "RBP(rel=1)",
    "RBP(p=0.9,rel=2)",
    "RBP(p=0.5,rel=1)",
]


def _gain(grade: float | None, m: Measure) -> float:
    """ir_measures' cwl_eval provider: a grade as cwl-eval's gain (NaN: not judged)."""
    if grade is None:
        return math.nan
    rel = max(grade, 0)  # "clip all negative scores to 0, following trec_eval convention"
    if m.family == "RBP":
        return 1.0 if rel >= m.params["rel"] else 0.0
    low, high = float(m.params["min_rel"]), float(m.params["max_rel"])
    return (min(max(rel, low), high) - low) / (high - low)


def cwl_eval(
    ranking: list[str], judged: dict[str, float], m: Measure, depth: int = 1000
) -> tuple[float, float]:
    """cwl-eval's (value, residual) of one query."""
    gains = np.array([_gain(judged.get(d), m) for d in ranking], dtype=np.float64)
    costs = np.full(len(gains), np.nan)
    metric = METRICS[m.family](m)
    metric.residuals = True
    metric.measure(
        Ranking("q", gains, costs, max_gain=1.0, min_gain=0.0, max_cost=1.0, min_cost=1.0, max_n=depth)
    )
    return float(metric.expected_utility), float(metric.residual_expected_utility)


def expected(
    run: dict[str, list[Any]], qrels: dict[str, list[Any]], labels: list[str], depth: int = 1000
) -> dict[str, dict[str, float | None]]:
    """cwl-eval per query: a value and a residual column for each label; None for a query
    with no judgment (irframe's rule), 0 for a judged query absent from the run."""
    judged: dict[str, dict[str, float]] = {}
    for q, d, g in zip(qrels["query_id"], qrels["doc_id"], qrels["relevance"], strict=True):
        judged.setdefault(str(q), {})[str(d)] = g
    rows: dict[str, list[dict[str, Any]]] = {}
    for i, q in enumerate(run["query_id"]):
        rows.setdefault(str(q), []).append({k: run[k][i] for k in run})
    out: dict[str, dict[str, float | None]] = {}
    for q in sorted(set(rows) | set(judged)):
        out[q] = {}
        for label in labels:
            m = parse_measure(label)
            if q not in judged:
                value: tuple[float | None, float | None] = (None, None)
            elif q not in rows:
                value = (0.0, 0.0)
            else:
                value = cwl_eval(rank_docs(rows[q]), judged[q], m, depth)
            out[q][label], out[q][_resid(label)] = value
    return out


def _resid(label: str) -> str:
    """The residual's label: RBP(rel=1) -> RBP(rel=1,residual=True)."""
    m = parse_measure(label)
    return str(m(residual=True))


def engine(
    run: dict[str, list[Any]], qrels: dict[str, list[Any]], labels: list[str]
) -> dict[str, dict[str, float | None]]:
    both = [x for label in labels for x in (label, _resid(label))]
    out = irframe.evaluate(pl.DataFrame(run), both, pl.DataFrame(qrels), per_query=True)
    return per_query_dict(out, both)


def assert_agree(
    got: dict[str, dict[str, float | None]], want: dict[str, dict[str, float | None]], where: str
) -> None:
    assert set(got) == set(want), where
    for q, vals in want.items():
        for label, v in vals.items():
            g = got[q][label]
            if v is None:
                assert g is None, (where, q, label, g)
            else:
                assert g is not None, (where, q, label)
                assert abs(g - v) <= TOL, (where, q, label, g, v)


def edge_cases(seed: int) -> tuple[dict[str, list[Any]], dict[str, list[Any]]]:
    """Queries with ties, nothing relevant, everything relevant, negative and unjudged grades,
    one absent from the run (q_missing) and one without judgments (q_run_only)."""
    rng = random.Random(seed)
    run: dict[str, list[Any]] = {"query_id": [], "doc_id": [], "score": []}
    qrels: dict[str, list[Any]] = {"query_id": [], "doc_id": [], "relevance": []}
    plans = [("q_mixed", [-1, 0, 0, 1, 2, 3]), ("q_none", [0]), ("q_all", [3]), ("q_neg", [-2, -1, 1])]
    for q, grades in plans:
        docs = [f"d{i}" for i in range(rng.randint(1, 40))]
        run["query_id"] += [q] * len(docs)
        run["doc_id"] += docs
        run["score"] += [float(rng.randint(0, 4)) for _ in docs]  # many ties
        for d in docs:
            if rng.random() < 0.8:  # the rest stay unjudged
                qrels["query_id"].append(q)
                qrels["doc_id"].append(d)
                qrels["relevance"].append(rng.choice(grades))
        qrels["query_id"] += [q, q]  # relevant documents the run never returned
        qrels["doc_id"] += ["never1", "never2"]
        qrels["relevance"] += [rng.choice(grades), max(grades)]
    run["query_id"] += ["q_run_only"] * 3
    run["doc_id"] += ["a", "b", "c"]
    run["score"] += [3.0, 2.0, 1.0]
    qrels["query_id"] += ["q_missing"] * 2
    qrels["doc_id"] += ["a", "b"]
    qrels["relevance"] += [1, 2]
    return run, qrels


@pytest.mark.parametrize("seed", range(6))
def test_edge_cases_per_query(seed: int) -> None:
    run, qrels = edge_cases(seed)
    assert_agree(engine(run, qrels, MEASURES), expected(run, qrels, MEASURES), f"seed {seed}")


@pytest.mark.parametrize(
    ("label", "base", "depth"),
    [
        ("INST(max_rel=2,max_depth=7)", "INST(max_rel=2)", 7),
        ("NERR10(max_rel=3,max_depth=5)", "NERR10(max_rel=3)", 5),
        ("SDCG(max_rel=2,max_depth=4)@10", "SDCG(max_rel=2)@10", 4),
        ("RBP(rel=1,residual=True)", "RBP(rel=1)", 1000),
    ],
)
def test_cut_at_max_depth(label: str, base: str, depth: int) -> None:
    """A ranking longer than max_depth is cut there, and the model spans max_depth ranks
    (cwl-eval's max_n); RBP needs none (its weights are p^(i-1): 1 - p^1000 is 1 in doubles)."""
    run, qrels = edge_cases(11)
    want = expected(run, qrels, [base], depth)
    if "residual" in label:
        renamed = {q: {label: v[_resid(base)]} for q, v in want.items()}
        got = per_query_dict(
            irframe.evaluate(pl.DataFrame(run), [label], pl.DataFrame(qrels), per_query=True), [label]
        )
    else:
        renamed = {q: {label: v[base], _resid(label): v[_resid(base)]} for q, v in want.items()}
        got = engine(run, qrels, [label])
    assert_agree(got, renamed, label)


def _file_data(run_path: Path, qrels_path: Path) -> tuple[dict[str, list[Any]], dict[str, list[Any]]]:
    run = read_trec_run(run_path).select("query_id", "doc_id", "score")
    qrels = read_trec_qrels(qrels_path).select("query_id", "doc_id", "relevance")
    return run.to_dict(as_series=False), qrels.to_dict(as_series=False)


def test_ir_measures_cwl_files() -> None:
    run_path, qrels_path = PEERS_DIR / "ir_measures" / "cwl.run", PEERS_DIR / "ir_measures" / "cwl.qrels"
    if not run_path.is_file():
        pytest.skip(f"ir_measures' cwl test files not found under {PEERS_DIR}")
    run, qrels = _file_data(run_path, qrels_path)
    labels = [m.replace("max_rel=2", "max_rel=1").replace("max_rel=3", "max_rel=1") for m in MEASURES]
    labels = [lab for lab in dict.fromkeys(labels) if "min_rel=1" not in lab]
    assert_agree(engine(run, qrels, labels), expected(run, qrels, labels), "cwl files")


@pytest.mark.parametrize("qrels_name", ["qrels.test", "qrels.rel_level"])
def test_trec_eval_test_files(trec_eval_test_dir: Path, qrels_name: str) -> None:
    run, qrels = _file_data(trec_eval_test_dir / "results.test", trec_eval_test_dir / qrels_name)
    labels = [
        "SDCG(max_rel=4)@10",
        "NERR9(max_rel=4)@20",
        "NERR10(max_rel=4)",
        "INST(T=2,max_rel=4)",
        "INSQ(max_rel=4)",
        "BPM(T=2,max_rel=4)@100",
        "RBP(p=0.95,rel=2)",
        "NERR11(max_rel=1)",
    ]
    assert_agree(engine(run, qrels, labels), expected(run, qrels, labels), qrels_name)


def test_ir_measures_objects_convert() -> None:
    irm = pytest.importorskip("ir_measures", reason="needs pip install ir-measures (oracle)")
    objs = [
        irm.SDCG(max_rel=3) @ 10,
        irm.NERR10(p=0.8, max_rel=1),
        irm.INST(T=2, max_rel=1),
        irm.BPM(max_rel=1) @ 20,
        irm.RBP(rel=2),
        irm.RBP(p=0.9),
    ]
    got = [str(m) for _, m in irframe.measures.parse_measures(objs)]
    assert got == [
        "SDCG(max_rel=3)@10",
        "NERR10(p=0.8,max_rel=1)",
        "INST(T=2,max_rel=1)",
        "BPM(max_rel=1)@20",
        "RBP(rel=2)",
        "RBP(p=0.9,gain=linear)",  # ir_measures' RBP without rel: trectools' raw grades
    ]


def test_parameters_are_checked() -> None:
    with pytest.raises(InvalidParameterError, match="min_rel must be below max_rel"):
        parse_measure("INST(min_rel=2,max_rel=2)")
    with pytest.raises(InvalidParameterError, match="needs max_rel"):
        parse_measure("INSQ")
    with pytest.raises(InvalidParameterError, match="needs a cutoff"):
        parse_measure("NERR8(max_rel=1)")
    with pytest.raises(InvalidParameterError, match="no residual"):
        parse_measure("RBP(gain=linear,residual=True)")
    with pytest.raises(InvalidParameterError, match="max_depth"):
        parse_measure("INST(max_rel=1,max_depth=0)")


def test_gain_exactly_at_t() -> None:
    """Gains 5/6, 1/3, 5/6 sum to exactly T = 2 in cwl-eval's arithmetic (true division, then a
    running sum): BPM stops after the third document. Scaled as 2.5 * (1/3) instead (polars'
    division of a column by a scalar), the sum is 2 - 2^-52 and BPM read on (0.5, not 2/3)."""
    run = {"query_id": ["q"] * 4, "doc_id": ["d", "c", "b", "a"], "score": [4.0, 3.0, 2.0, 1.0]}
    qrels = {"query_id": ["q"] * 4, "doc_id": ["d", "c", "b", "a"], "relevance": [2.5, 1.0, 2.5, 0.0]}
    labels = ["BPM(T=2,max_rel=3)@4", "INST(T=2,max_rel=3)"]
    got = engine(run, qrels, labels)
    assert got["q"]["BPM(T=2,max_rel=3)@4"] == pytest.approx(2 / 3, abs=1e-15)
    assert_agree(got, expected(run, qrels, labels), "gain at T")


def test_inst_needs_t_of_a_quarter() -> None:
    # T = 0.1 and relevant documents: C = ((2T - 1) / 2T)^2 = 16 > 1 (cwl-eval's weights overflow)
    with pytest.raises(InvalidParameterError, match=r"INST needs T >= 0.25"):
        parse_measure("INST(T=0.1,max_rel=1)")
    parse_measure("INSQ(T=0.1,max_rel=1)")  # INSQ's C_i < 1 for any T > 0
