"""``ties=`` against a brute force: every order of every tie group, in plain Python.

For small queries (tie groups of up to 4 documents) the oracle enumerates every
permutation of every tie group, scores each whole ranking with the plain definitions
written here (trec_eval's: P@k over k, R and AP over all judged relevant, IDCG from the
qrels cut at k), and takes the mean (``"expected"``), the maximum (``"optimistic"``) and
the minimum (``"pessimistic"``).  The bounds are also checked against irframe's own
default values on the run with its ties reordered (relevant / higher-gain first or last)
and the scores made distinct.
"""

from __future__ import annotations

import itertools
import math
import random
import re
from collections.abc import Callable, Sequence
from typing import Any

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import irframe
from irframe.exceptions import InvalidParameterError

TOL = 1e-12
Ranking = Sequence[float | None]  # grades in rank order (None: not judged)
Case = tuple[dict[str, list[Any]], dict[str, list[Any]]]


# --- plain definitions ------------------------------------------------------------------------
def _gain(g: float | None, kind: str) -> float:
    """exp: 2^g - 1, linear: g (0 for g <= 0 and unjudged); "{0:-1,...}": the listed gain of a
    grade >= 0, else its linear gain (trec_eval's -m ndcg.g=v)."""
    if kind.startswith("{"):
        listed = {float(a): float(b) for a, b in (p.split(":") for p in kind.strip("{}").split(","))}
        return 0.0 if g is None or g < 0 else listed.get(float(g), float(g))
    if g is None or g <= 0:
        return 0.0
    return 2.0**g - 1.0 if kind == "exp" else float(g)


def measure_fn(name: str) -> Callable[[Ranking, list[float]], float]:
    """``f(grades in rank order, every judged grade of the query)`` for one measure string."""
    fam, k, rel, gain, judged_only = _parse(name)

    def f(ranked: Ranking, judged: list[float]) -> float:
        if judged_only:
            ranked = [g for g in ranked if g is not None and g >= 0]
        top = list(ranked) if k is None else list(ranked[:k])
        hit = [g is not None and g >= rel for g in top]
        n_rel = sum(1 for g in judged if g >= rel)
        if fam == "P":
            return sum(hit) / k  # type: ignore[operator]
        if fam == "R":
            return sum(hit) / n_rel if n_rel else 0.0
        if fam == "RR":
            return next((1 / (i + 1) for i, h in enumerate(hit) if h), 0.0)
        if fam == "AP":
            total = sum(sum(hit[: i + 1]) / (i + 1) for i, h in enumerate(hit) if h)
            return total / n_rel if n_rel else 0.0
        dcg = sum(_gain(g, gain) / math.log2(i + 2) for i, g in enumerate(top))
        ideal = sorted((_gain(g, gain) for g in judged if _gain(g, gain) > 0), reverse=True)
        idcg = sum(x / math.log2(i + 2) for i, x in enumerate(ideal if k is None else ideal[:k]))
        return dcg / idcg if idcg > 0 else 0.0

    return f


def _parse(name: str) -> tuple[str, int | None, float, str, bool]:
    head, _, cut = name.partition("@")
    fam, _, params = head.partition("(")
    gains = re.search(r"gains=(\{[^}]*\})", params)
    if gains:
        params = params.replace(gains[0], "")
    opts = dict(p.split("=") for p in params.rstrip(")").split(",") if p)
    if gains:
        opts["gain"] = gains[1]
    return (fam, int(cut) if cut else None, float(opts.get("rel", 1)), opts.get("gain", "exp"),
            opts.get("judged_only") == "True")  # fmt: skip


def orders(scores: list[float], docs: list[str]) -> list[list[int]]:
    """Every ranking (row indices) that keeps the score order and permutes each tie group."""
    groups: dict[float, list[int]] = {}
    for i, s in enumerate(scores):
        groups.setdefault(s, []).append(i)
    parts = [list(itertools.permutations(groups[s])) for s in sorted(groups, reverse=True)]
    return [[i for part in combo for i in part] for combo in itertools.product(*parts)]


def brute_force(case: Case, measures: list[str]) -> dict[str, dict[str, dict[str, float]]]:
    """{mode: {query: {measure: value}}} over every order of the ties, for the run's judged queries."""
    run, qrels = case
    judged: dict[str, dict[str, float]] = {}
    for q, d, g in zip(qrels["query_id"], qrels["doc_id"], qrels["relevance"], strict=True):
        judged.setdefault(q, {})[d] = g
    out: dict[str, dict[str, dict[str, float]]] = {"expected": {}, "optimistic": {}, "pessimistic": {}}
    for q in dict.fromkeys(run["query_id"]):
        if q not in judged:
            continue
        rows = [i for i, x in enumerate(run["query_id"]) if x == q]
        docs = [run["doc_id"][i] for i in rows]
        grades = [judged[q].get(d) for d in docs]
        perms = orders([run["score"][i] for i in rows], docs)
        for m in measures:
            f = measure_fn(m)
            values = [f([grades[i] for i in p], list(judged[q].values())) for p in perms]
            out["expected"].setdefault(q, {})[m] = math.fsum(values) / len(values)
            out["optimistic"].setdefault(q, {})[m] = max(values)
            out["pessimistic"].setdefault(q, {})[m] = min(values)
    return out


# --- cases ------------------------------------------------------------------------------------
def random_case(seed: int) -> Case:
    """3 queries of up to 8 documents, scores from 3 levels (tie groups of up to 4), grades
    -1..3 and unjudged; a judged query the run lacks (q9)."""
    rng = random.Random(seed)
    run: dict[str, list[Any]] = {"query_id": [], "doc_id": [], "score": []}
    qrels: dict[str, list[Any]] = {"query_id": [], "doc_id": [], "relevance": []}
    for q in ("q1", "q2", "q3"):
        docs = [f"d{j}" for j in range(rng.randint(1, 8))]
        levels = rng.sample([0.5, 1.0, 2.0, 3.0], 3)
        scores = [rng.choice(levels) for _ in docs]
        while max(scores.count(s) for s in scores) > 4:
            scores = [rng.choice(levels) for _ in docs]
        run["query_id"] += [q] * len(docs)
        run["doc_id"] += docs
        run["score"] += scores
        for d in [*docs, "x1", "x2"]:
            if rng.random() < 0.75:
                qrels["query_id"].append(q)
                qrels["doc_id"].append(d)
                qrels["relevance"].append(rng.choice([-1, 0, 0, 1, 1, 2, 3]))
    qrels["query_id"].append("q9")
    qrels["doc_id"].append("d0")
    qrels["relevance"].append(1)
    return run, qrels


MEASURES = [
    "P@1", "P@3", "P(rel=2)@2", "R@2", "R", "RR", "RR@2", "RR(rel=2)", "AP", "AP@3",
    "AP(judged_only=True)", "AP(rel=2)", "nDCG@3", "nDCG", "nDCG(gain=linear)@2", "P(judged_only=True)@2",
    "nDCG(gains={0:-1,1:1,3:7})@3",
]  # fmt: skip
SEEDS = range(30)


def _values(case: Case, mode: str, measures: list[str] = MEASURES, **kw: Any) -> pl.DataFrame:
    run, qrels = case
    return irframe.evaluate(pl.DataFrame(run), measures, pl.DataFrame(qrels), per_query=True, ties=mode, **kw)


def _assert_equal(got: pl.DataFrame, expected: dict[str, dict[str, float]], where: str) -> None:
    values = {r["query_id"]: r for r in got.iter_rows(named=True)}
    bad = [
        (q, m, values[q][m], v)
        for q, by_m in expected.items()
        for m, v in by_m.items()
        if values[q][m] is None or abs(values[q][m] - v) > TOL
    ]
    assert not bad, f"{where}: (query, measure, irframe, brute force): {bad[:6]}"


@pytest.mark.parametrize("mode", ["expected", "optimistic", "pessimistic"])
def test_matches_the_brute_force(mode: str) -> None:
    for seed in SEEDS:
        case = random_case(seed)
        got = _values(case, mode)
        _assert_equal(got, brute_force(case, MEASURES)[mode], f"seed {seed} ties={mode}")
        missing = got.filter(pl.col("query_id") == "q9").row(0, named=True)
        assert all(missing[m] == 0.0 for m in MEASURES), "a judged query the run lacks scores 0"


def reordered(case: Case, key: Callable[[float | None], float]) -> dict[str, list[Any]]:
    """The run with each tie group ordered by ``key(grade)`` descending (then trec_eval's doc
    id order) and distinct scores n, n-1, ..., 1 per query: no tie is left."""
    run, qrels = case
    grade = dict(zip(zip(qrels["query_id"], qrels["doc_id"], strict=True), qrels["relevance"], strict=True))
    rows = sorted(
        zip(run["query_id"], run["doc_id"], run["score"], strict=True), key=lambda r: r[1], reverse=True
    )
    rows.sort(key=lambda r: (r[0], -r[2], -key(grade.get((r[0], r[1])))))
    out: dict[str, list[Any]] = {"query_id": [], "doc_id": [], "score": []}
    for q in dict.fromkeys(r[0] for r in rows):
        mine = [r for r in rows if r[0] == q]
        out["query_id"] += [q] * len(mine)
        out["doc_id"] += [r[1] for r in mine]
        out["score"] += [float(len(mine) - i) for i in range(len(mine))]
    return out


@pytest.mark.parametrize("mode", ["optimistic", "pessimistic"])
def test_bounds_are_the_engine_on_reordered_ties(mode: str) -> None:
    """Per measure: its own best / worst order (relevant at its rel, or its gain) is the
    trec_eval-order value of the run with the ties reordered so."""
    sign = 1.0 if mode == "optimistic" else -1.0
    for seed in SEEDS[:15]:
        case = random_case(seed)
        got = _values(case, mode)
        for m in MEASURES:
            fam, _, rel, gain, _ = _parse(m)
            if fam == "nDCG":
                key: Callable[[float | None], float] = lambda g, gain=gain: sign * _gain(g, gain)  # noqa: E731
            else:
                key = lambda g, rel=rel: sign * float(g is not None and g >= rel)  # noqa: E731
            plain = irframe.evaluate(
                pl.DataFrame(reordered(case, key)), [m], pl.DataFrame(case[1]), per_query=True
            )
            assert got[m].to_list() == pytest.approx(plain[m].to_list(), abs=TOL), f"seed {seed} {m}"


def test_worked_example() -> None:
    """Ranks 1-4: a (score 3), then b, c, d tied (2); relevant: b and d (R = 2).
    P@2: a, then one of the three: 2/3 relevant -> (0 + 2/3) / 2 = 1/3.
    RR: the first relevant of the tie at rank 2 with P = 2/3, at 3 with 1/3 * 2/2 -> 2/3 * 1/2
    + 1/3 * 1/3 = 4/9.  AP: c (not relevant) at rank 2, 3 or 4 gives AP 5/12, 1/2 or 7/12:
    1/2 on average; by the closed form E[rel_i hits_i] / i = (r/t + (i-2) r(r-1)/(t(t-1))) / i
    with r = 2, t = 3: (2/3)/2 + (2/3 + 1/3)/3 + (2/3 + 2/3)/4 = 1, over R = 2.
    """
    run = pl.DataFrame({"query_id": ["q"] * 4, "doc_id": list("abcd"), "score": [3.0, 2.0, 2.0, 2.0]})
    qrels = pl.DataFrame({"query_id": ["q"] * 4, "doc_id": list("abcd"), "relevance": [0, 1, 0, 1]})
    got = irframe.evaluate(run, ["P@2", "RR", "AP"], qrels, ties="expected").row(0)
    ap = (5 / 12 + 1 / 2 + 7 / 12) / 3
    assert got[:3] == pytest.approx((1 / 3, 4 / 9, ap), abs=TOL)
    assert ap == pytest.approx(brute_force((run.to_dict(as_series=False), qrels.to_dict(as_series=False)),
                                           ["AP"])["expected"]["q"]["AP"], abs=TOL)  # fmt: skip


def test_no_ties_no_change_and_rank_order() -> None:
    case = random_case(3)
    run = reordered(case, lambda g: 0.0)  # distinct scores
    plain = irframe.evaluate(pl.DataFrame(run), MEASURES, pl.DataFrame(case[1]), per_query=True)
    for mode in ("expected", "optimistic", "pessimistic"):
        got = _values((run, case[1]), mode)
        for m in MEASURES:
            assert got[m].to_list() == pytest.approx(plain[m].to_list(), abs=TOL), (mode, m)
    # tied ranks are ties too
    ranks = {"query_id": ["q"] * 3, "doc_id": list("abc"), "rank": [1, 1, 2]}
    qrels = {"query_id": ["q"], "doc_id": ["b"], "relevance": [1]}
    got = irframe.evaluate(pl.DataFrame(ranks), ["P@1"], pl.DataFrame(qrels), ties="expected").item(0, "P@1")
    assert got == 0.5


def test_systems_lazy_pandas_grades_on_rows_and_compare() -> None:
    pd = pytest.importorskip("pandas")
    case = random_case(11)
    run, qrels = case
    stacked = pl.concat([pl.DataFrame(run).with_columns(system=pl.lit(s)) for s in ("a", "b")])
    expected = brute_force(case, ["AP", "nDCG@3"])["expected"]
    by_sys = irframe.evaluate(stacked.lazy(), ["AP", "nDCG@3"], pl.DataFrame(qrels), by="system",
                              per_query=True, ties="expected").collect()  # fmt: skip
    for s in ("a", "b"):
        _assert_equal(by_sys.filter(pl.col("system") == s), expected, f"system {s}")
    got = irframe.evaluate(pd.DataFrame(run), ["AP"], pd.DataFrame(qrels), per_query=True, ties="expected")
    assert isinstance(got, pd.DataFrame)
    golden = pl.DataFrame(run).join(pl.DataFrame(qrels), on=["query_id", "doc_id"], how="left")
    own = irframe.evaluate(golden, ["P@2"], per_query=True, ties="expected")  # grades on the rows
    judged_q = {q for q in run["query_id"] if q in set(golden.drop_nulls("relevance")["query_id"].to_list())}
    _assert_equal(
        own, {q: v for q, v in brute_force(case, ["P@2"])["expected"].items() if q in judged_q}, "rows"
    )
    table = irframe.compare(stacked, qrels=pl.DataFrame(qrels), measures=["AP"], test="t", ties="expected")
    mean = sum(v["AP"] for v in expected.values()) / 4  # q1-q3 and the missing q9 (0)
    assert table.item(0, "mean") == pytest.approx(mean, abs=TOL)


def test_depth_cuts_first() -> None:
    """With depth, the cut is trec_eval's (doc id order) and the ties average over what is kept."""
    run = pl.DataFrame({"query_id": ["q"] * 3, "doc_id": list("abc"), "score": [1.0, 1.0, 1.0]})
    qrels = pl.DataFrame({"query_id": ["q"], "doc_id": ["a"], "relevance": [1]})
    assert irframe.evaluate(run, ["R"], qrels, ties="expected", depth=2).item(0, "R") == 0.0  # c, b kept
    assert irframe.evaluate(run, ["R@2"], qrels, ties="expected").item(0, "R@2") == pytest.approx(2 / 3)


def test_families_without_a_tie_aware_form_raise() -> None:
    run, qrels = (pl.DataFrame(x) for x in random_case(1))
    with pytest.raises(
        InvalidParameterError, match=r"\['Bpref'\] have no tie-aware form.*P, R, RR, AP, nDCG"
    ):
        irframe.evaluate(run, ["AP", "Bpref"], qrels, ties="expected")
    with pytest.raises(InvalidParameterError, match="'ties' parameter of evaluate must be one of"):
        irframe.evaluate(run, ["AP"], qrels, ties="average")


def test_a_parquet_path_gives_the_in_process_values(tmp_path: Any) -> None:
    """Out of core, each bucket of whole queries composes its tie-aware values as in process
    (every backend: tests/distributed/test_composed.py)."""
    run, qrels = (pl.DataFrame(x) for x in random_case(1))
    path = tmp_path / "run.parquet"
    run.write_parquet(path)
    for ties in ("expected", "optimistic", "pessimistic"):
        want = irframe.evaluate(run, ["AP", "nDCG@3"], qrels, ties=ties, per_query=True)
        got = irframe.evaluate(str(path), ["AP", "nDCG@3"], qrels, ties=ties, per_query=True, buckets=3)
        assert_frame_equal(got, want, check_exact=False, rel_tol=1e-12, abs_tol=1e-12)


# --- the diagnostic ---------------------------------------------------------------------------
def test_tied_at_cutoff_against_a_count() -> None:
    for seed in SEEDS[:10]:
        run, _ = random_case(seed)
        for k in (1, 2, 3, 5):
            got = {r[0]: r[1:] for r in irframe.tied_at_cutoff(pl.DataFrame(run), k).rows()}
            for q in dict.fromkeys(run["query_id"]):
                scores = sorted(
                    (s for x, s in zip(run["query_id"], run["score"], strict=True) if x == q), reverse=True
                )
                if len(scores) < k:
                    assert got[q] == (None, None, False)
                    continue
                tied = scores.count(scores[k - 1])
                inside = scores[:k].count(scores[k - 1])
                assert got[q] == (tied, inside, inside < tied), (seed, k, q)


def test_tied_at_cutoff_options_and_types() -> None:
    pd = pytest.importorskip("pandas")
    run = pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "score": [1.0, 1.0]})
    out = irframe.tied_at_cutoff(run, 1, query_col="qid", doc_col="docno")
    assert isinstance(out, pd.DataFrame)
    assert out.to_dict("records") == [{"qid": "1", "n_tied": 2, "n_tied_in_top_k": 1, "straddles": True}]
    with pytest.raises(InvalidParameterError, match="'k' parameter of tied_at_cutoff"):
        irframe.tied_at_cutoff(run, 0, query_col="qid", doc_col="docno")
