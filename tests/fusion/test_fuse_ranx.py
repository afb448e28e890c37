"""irframe.fuse against ranx's own ``fuse``: every (query, doc) score, every method x norm ranx has.

The runs are generated with the cases that trip fusion code: tied scores, documents only
some runs retrieved, one-document queries, a query only one run has, negative scores
(ranx's ``max`` norm then divides by its 1e-9 floor, and combmax/combmin's +-1e9 stand-ins
for a missing document start to matter), a run-query whose scores are all equal.

ranx needs every run to have every query: a query a run lacks is given to ranx as an empty
result list, which is what irframe documents it as.  ranx breaks score ties by an unstable
sort of the input order; irframe by doc id.  So for what reads the ranking only (rrf,
borda, norm="rank") ranx is given the ranking this test computes by trec_eval's rule (score
descending, doc id descending), as distinct scores n, n-1, ..., 1.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import polars as pl
import pytest

import irframe
from irframe.fusion import METHODS, NORMS

ranx = pytest.importorskip(
    "ranx", reason="the fusion oracle needs pip install ranx (oracle; irframe[oracles])"
)
norm_switch = pytest.importorskip("ranx.normalization").norm_switch

pytestmark = [
    pytest.mark.oracle,
    # ranx's numba kernels warn about their own casts (uint64 -> int64 in rrf)
    pytest.mark.filterwarnings("ignore::numba.core.errors.NumbaTypeSafetyWarning"),
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
]

Runs = dict[str, dict[str, dict[str, float]]]  # system -> query -> doc -> score


def generate(seed: int, n_systems: int = 3, continuous: bool = False) -> Runs:
    """Runs over 7 queries: q0 only in the first run, q1 one document per run, q2 all scores
    equal in every run, the others random subsets of 8 documents with ties (quarters)."""
    rng = random.Random(seed)
    runs: Runs = {f"s{i}": {} for i in range(n_systems)}
    for s, name in enumerate(runs):
        for q in range(7):
            if q == 0 and s > 0:
                continue
            if q > 2 and rng.random() < 0.15:
                continue  # this query missing from this run
            pool = [f"d{j}" for j in range(8)]
            docs = rng.sample(pool, 1 if q == 1 else rng.randint(1, 8))
            if continuous:
                scores = [rng.uniform(-3, 12) for _ in docs]
            elif q == 2:
                scores = [1.5] * len(docs)
            else:
                scores = [rng.randint(-8, 24) / 4 for _ in docs]  # exact sums: ties, negatives
            runs[name][f"q{q}"] = dict(zip(docs, scores, strict=True))
    return runs


def ranking(results: Mapping[str, float]) -> list[str]:
    """trec_eval's order: score descending, ties by doc id descending."""
    docs = sorted(results, reverse=True)
    return sorted(docs, key=lambda d: -results[d])


def to_frame(runs: Runs) -> pl.DataFrame:
    rows = [(s, q, d, v) for s, qs in runs.items() for q, ds in qs.items() for d, v in ds.items()]
    return pl.DataFrame(rows, schema=["system", "query_id", "doc_id", "score"], orient="row")


def ranx_fuse(runs: Runs, method: str, norm: str | None, params: dict[str, Any], by_rank: bool) -> dict:
    """ranx's fuse: its norm applied to each run, then its fusion method.

    The norm is ranx's, on each run's own (non-empty) queries: ranx 0.3.21's ``zmuv`` empties
    the next query's results of a run that has an empty query (its parallel loop stops at the
    empty one's mean), so the empty lists standing for missing queries are added after it.
    """
    queries = sorted({q for qs in runs.values() for q in qs})
    ranx_runs = []
    for qs in runs.values():
        own: dict[str, dict[str, float]] = {}
        for q, res in qs.items():
            order = ranking(res)  # by_rank: the order this test computes, as distinct scores
            own[q] = {doc: float(len(order) - i) for i, doc in enumerate(order)} if by_rank else dict(res)
        if norm is not None:
            own = norm_switch(NORMS[norm].ranx)(ranx.Run.from_dict(own)).to_dict()
        ranx_runs.append(ranx.Run.from_dict({q: dict(own.get(q, {})) for q in queries}))
    fused = ranx.fuse(ranx_runs, norm=None, method=METHODS[method].ranx, params=params)
    return {q: dict(ds) for q, ds in fused.to_dict().items()}


def ours(runs: Runs, method: str, norm: str | None, params: dict[str, Any]) -> dict:
    out = irframe.fuse(to_frame(runs), method=method, norm=norm, **params)  # type: ignore[arg-type]
    got: dict[str, dict[str, float]] = {}
    for q, d, v in out.select("query_id", "doc_id", "score").iter_rows():
        got.setdefault(q, {})[d] = v
    return got


def assert_same(got: dict, want: dict, label: str) -> None:
    want = {q: ds for q, ds in want.items() if ds}  # ranx keeps queries without documents
    assert set(got) == set(want), label
    for q, ds in want.items():
        assert set(got[q]) == set(ds), f"{label} {q}"
        for d, v in ds.items():
            assert got[q][d] == pytest.approx(v, rel=1e-9, abs=1e-12), f"{label} {q} {d}: {got[q][d]} != {v}"


SCORE_METHODS = [m for m, spec in METHODS.items() if spec.reads == "score"]
NORM_CHOICES: list[str | None] = [None, *NORMS]


def _params(method: str, n_systems: int) -> dict[str, Any]:
    if method == "wsum":
        return {"weights": [0.5, 0.3, 0.2, 0.1][:n_systems]}
    return {}


@pytest.mark.parametrize("norm", NORM_CHOICES, ids=str)
@pytest.mark.parametrize("method", SCORE_METHODS)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_score_methods_match_ranx(method: str, norm: str | None, seed: int) -> None:
    runs = generate(seed)
    params = _params(method, len(runs))
    want = ranx_fuse(runs, method, norm, params, by_rank=norm == "rank")
    assert_same(ours(runs, method, norm, params), want, f"{method}/{norm}/{seed}")


@pytest.mark.parametrize("norm", ["minmax", "zscore", "sum", "max"])
@pytest.mark.parametrize("method", ["combsum", "combmnz", "wsum"])
def test_continuous_scores_match_ranx(method: str, norm: str) -> None:
    runs = generate(11, n_systems=2, continuous=True)
    params = _params(method, len(runs))
    assert_same(ours(runs, method, norm, params), ranx_fuse(runs, method, norm, params, False), method)


@pytest.mark.parametrize("k", [None, 0, 1, 10, 60.5])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_rrf_matches_ranx(k: float | None, seed: int) -> None:
    runs = generate(seed)
    params = {} if k is None else {"k": k}
    want = ranx_fuse(runs, "rrf", None, {"k": 60 if k is None else k}, by_rank=True)
    assert_same(ours(runs, "rrf", "default", params), want, f"rrf k={k}")


@pytest.mark.parametrize("n_systems", [2, 3, 4])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_borda_matches_ranx(n_systems: int, seed: int) -> None:
    runs = generate(seed, n_systems)
    want = ranx_fuse(runs, "borda", None, {}, by_rank=True)
    assert_same(ours(runs, "borda", "default", {}), want, f"borda {n_systems}")


@pytest.mark.parametrize("method", ["rrf", "borda"])
def test_ranx_norm_does_not_change_rank_methods(method: str) -> None:
    """ranx accepts a norm with rrf/borda and it changes nothing: irframe refuses one, and its
    result without is ranx's with any of them."""
    runs = generate(5)
    ref = ours(runs, method, None, {})
    for norm in NORMS:
        params = {"k": 60} if method == "rrf" else {}
        assert_same(
            ref, ranx_fuse(runs, method, norm, params, by_rank=True), f"{method} with ranx norm {norm}"
        )


def test_small_runs_in_input_order_match_ranx_without_rank_encoding() -> None:
    """With the rows fed in trec_eval's order and fewer than 16 documents (ranx's sort is then
    an insertion sort, stable), ranx's own tie order is the same as irframe's."""
    runs = generate(7)
    ordered = {s: {q: {d: ds[d] for d in ranking(ds)} for q, ds in qs.items()} for s, qs in runs.items()}
    for method in ("rrf", "borda"):
        want = ranx_fuse(ordered, method, None, {"k": 60} if method == "rrf" else {}, by_rank=False)
        assert_same(ours(runs, method, None, {}), want, method)
