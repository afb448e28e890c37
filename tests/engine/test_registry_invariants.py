"""One invariance suite over the measure registry: a new family inherits every check.

For every family in ``irframe.measures.FAMILIES`` (with and without a cutoff, at two
relevance thresholds, with every gain for nDCG) on seeded random data: the engine equals
the oracle, values are finite and in range, and shuffling the rows changes nothing.  A
family the oracle does not know fails here until the oracle learns it.
"""

from __future__ import annotations

import math
import random
from typing import Any

import pytest

import irframe
from _support.helpers import CONSTRUCTORS, NamedConstructor, assert_close_dicts, per_query_dict
from _support.oracle import oracle_evaluate
from irframe.exceptions import InvalidParameterError
from irframe.measures import FAMILIES, Measure
from irframe.measures._params import GAIN

COUNTS = {"NumRet", "NumRel", "NumRelRet", "NumQ", "NumNonRelJudgedRet"}
UNBOUNDED = {"DCG", "IDCG"}  # >= 0, not normalised
SIGNED_COUNTS = {"Utility"}  # a*hits + b*misses ...: whole numbers of any sign with the default weights


def registry_measures(family: str) -> list[Measure]:
    fam = FAMILIES[family]
    need = {p.name: p.example for p in fam.params if p.required}  # SDCG's max_rel ...
    cutoffs: list[int | None] = []
    if fam.cutoff in ("optional", "none"):
        cutoffs.append(None)
    if fam.cutoff in ("optional", "required"):
        cutoffs += [1, 3, 20]
    out = []
    for k in cutoffs:
        if fam.params.get("gain") is GAIN:
            for gain in ("exp", "linear", ((0, 0.5), (2, 5.0))):
                out.append(Measure(family, k, gain=gain, **need))
        elif "rel" in fam.params:
            out += [Measure(family, k, **need), Measure(family, k, rel=2, **need)]
        else:
            out.append(Measure(family, k, **need))
    # every other declared value: each choice (RBP's gain=linear), the other side of each flag
    for spec in fam.params:
        if spec.name == "judged_only" or spec is GAIN:
            continue
        others = [c for c in spec.choices if c != spec.default]
        if spec.type_name == "bool":
            others = [not spec.default]
        out += [v for m in list(out) for value in others if (v := _variant(m, spec.name, value)) is not None]
    if "judged_only" in fam.params:
        out += [m(judged_only=True) for m in out]
    return out


def _variant(m: Measure, name: str, value: object) -> Measure | None:
    """``m`` with ``name=value``, or None where the family refuses the combination."""
    try:
        return m(**{name: value})
    except InvalidParameterError:  # e.g. RBP(gain=linear,residual=True): no top gain
        return None


def unbounded(m: Measure) -> bool:
    """Values >= 0 with no upper bound: DCG, IDCG, and RBP on raw grades."""
    return m.family in UNBOUNDED or (m.family == "RBP" and m.params["gain"] == "linear")


def seeded_data(seed: int) -> tuple[dict[str, list[Any]], dict[str, list[Any]]]:
    rng = random.Random(seed)
    docs = [f"d{i}" for i in range(25)]
    run: dict[str, list[Any]] = {"query_id": [], "doc_id": [], "score": []}
    qrels: dict[str, list[Any]] = {"query_id": [], "doc_id": [], "relevance": []}
    for qi in range(8):
        q = f"q{qi}"
        if qi != 6:  # q6: qrels only
            got = rng.sample(docs, rng.randint(1, 15))
            run["query_id"] += [q] * len(got)
            run["doc_id"] += got
            run["score"] += [float(rng.randint(0, 5)) for _ in got]  # many ties
        if qi != 7:  # q7: run only
            judged = rng.sample(docs, rng.randint(1, 12))
            qrels["query_id"] += [q] * len(judged)
            qrels["doc_id"] += judged
            qrels["relevance"] += [rng.choice([-1, 0, 0, 1, 2, 3]) for _ in judged]
    # q8: every retrieved doc relevant; q9: none relevant (all judged 0)
    for q, grade in (("q8", 2), ("q9", 0)):
        got = rng.sample(docs, 4)
        run["query_id"] += [q] * 4
        run["doc_id"] += got
        run["score"] += [4.0, 3.0, 3.0, 1.0]
        qrels["query_id"] += [q] * 4
        qrels["doc_id"] += got
        qrels["relevance"] += [grade] * 4
    return run, qrels


def in_ranking_order(frame: dict[str, list[Any]]) -> dict[str, list[Any]]:
    """Rows sorted the way trec_eval ranks them (the engine may skip its own sort)."""
    idx = sorted(range(len(frame["query_id"])), key=lambda i: frame["doc_id"][i], reverse=True)
    idx.sort(key=lambda i: (frame["query_id"][i], -frame["score"][i]))
    return {k: [v[i] for i in idx] for k, v in frame.items()}


def shuffled(frame: dict[str, list[Any]], seed: int) -> dict[str, list[Any]]:
    idx = list(range(len(frame["query_id"])))
    random.Random(seed).shuffle(idx)
    return {k: [v[i] for i in idx] for k, v in frame.items()}


# the diversity families read subtopic qrels: tests/measures/test_diversity.py runs the same
# invariants (oracle, range, row order) over each of them, on subtopic data
RANKED_FAMILIES = [name for name, fam in FAMILIES.items() if fam.kind != "diversity"]


# every family on eager polars and pandas by default; again on lazy polars and Arrow-backed
# pandas under -m deep (.ci/run): the frame types' own boundary is tested once per front end
# elsewhere (tests/test_namespaces.py, tests/robustness/), the measures do not depend on it
DEEP_CONSTRUCTORS = ("polars-lazy", "pandas-pyarrow")


@pytest.fixture(
    params=[pytest.param(n, marks=pytest.mark.deep) if n in DEEP_CONSTRUCTORS else n for n in CONSTRUCTORS]
)
def constructor(request: pytest.FixtureRequest) -> NamedConstructor:
    """The frame types of the invariants (two of them under ``-m deep`` only)."""
    return NamedConstructor(request.param)


@pytest.mark.parametrize("family", RANKED_FAMILIES)
def test_family_invariants(family: str, constructor: NamedConstructor) -> None:
    measures = registry_measures(family)
    labels = [str(m) for m in measures]
    for seed, presorted in ((1, False), (2, False), (3, True), (4, True)):
        run, qrels = seeded_data(seed)
        if presorted:
            run = in_ranking_order(run)
        expected = oracle_evaluate(run, qrels, measures)
        out = irframe.evaluate(constructor(run), labels, constructor(qrels), per_query=True)
        got = per_query_dict(out, labels)
        assert_close_dicts(
            got, expected, tol=1e-9, context=f" ({family}, seed {seed}, presorted={presorted})"
        )
        by_label = dict(zip(labels, measures, strict=True))
        for q, vals in got.items():
            for label, v in vals.items():
                if v is None:
                    assert q == "q7", (q, label)  # only the run-only query is null
                    continue
                assert math.isfinite(v), (q, label, v)
                if family in COUNTS:
                    assert v >= 0
                    assert v == int(v), (q, label, v)
                elif family in SIGNED_COUNTS:
                    assert v == int(v), (q, label, v)
                elif unbounded(by_label[label]):
                    assert v >= 0, (q, label, v)
                else:
                    assert 0 <= v <= 1, (q, label, v)
        again = irframe.evaluate(
            constructor(shuffled(run, seed)), labels, constructor(shuffled(qrels, seed)), per_query=True
        )
        assert_close_dicts(per_query_dict(again, labels), got, tol=1e-12, context=" (shuffled)")
