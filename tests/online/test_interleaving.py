"""Interleaving: the served lists and the credit against mpkato/interleaving (../shared), the
sign test against scipy.stats.binomtest, the rules of the team column."""

from __future__ import annotations

import sys
from collections import Counter
from typing import Any

import numpy as np
import polars as pl
import pytest

from _support.helpers import SHARED_DIR
from irframe import online
from irframe.exceptions import InvalidDataError, InvalidParameterError

MPKATO = SHARED_DIR / "tools" / "interleaving"


@pytest.fixture(scope="module")
def il() -> Any:
    if not (MPKATO / "interleaving" / "__init__.py").exists():
        pytest.skip(
            f"mpkato/interleaving not found at {MPKATO} (set IRFRAME_SHARED_DIR to the shared folder)"
        )
    pytest.importorskip("pulp", reason="mpkato/interleaving imports pulp (the oracles extra)")
    sys.path.insert(0, str(MPKATO))
    try:
        import interleaving  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(MPKATO))
    return interleaving


def _runs(
    lists_per_query: dict[str, list[list[Any]]], names: tuple[str, ...] = ("A", "B")
) -> dict[str, pl.DataFrame]:
    out = {}
    for i, name in enumerate(names):
        rows = [(q, str(d), r) for q, lists in lists_per_query.items() for r, d in enumerate(lists[i], 1)]
        out[name] = pl.DataFrame(rows, schema=["query_id", "doc_id", "rank"], orient="row")
    return out


def _served(
    runs: dict[str, pl.DataFrame], n: int, method: str, k: int, seed: int = 0
) -> Counter[tuple[str, ...]]:
    stacked = {
        name: pl.concat([run.with_columns(query_id=pl.lit(f"q{i:05d}")) for i in range(n)])
        for name, run in runs.items()
    }
    out = online.interleave(stacked, method=method, k=k, seed=seed)
    return Counter(tuple(g["doc_id"].to_list()) for _, g in out.group_by("query_id", maintain_order=True))


CASES = [  # mpkato's own tests/test_team_draft.py and test_balanced.py (lists, k, the possible lists)
    ("team_draft", [[1, 2], [2, 3]], 3, {(1, 2, 3), (2, 1, 3)}),
    ("team_draft", [[1, 2], [3, 4]], 3, {(1, 3, 2), (1, 3, 4), (3, 1, 2), (3, 1, 4)}),
    ("team_draft", [[1, 2], [2, 3], [3, 4]], 2, {(1, 2), (1, 3), (2, 1), (2, 3), (3, 1), (3, 2)}),
    ("balanced", [[1, 2], [2, 3]], 3, {(1, 2), (2, 1, 3)}),
    ("balanced", [[1, 2], [3, 4]], 3, {(1, 3, 2), (3, 1, 4)}),
]


@pytest.mark.parametrize(("method", "lists", "k", "possible"), CASES)
def test_served_lists_are_mpkatos_cases(
    method: str, lists: list[list[int]], k: int, possible: set[tuple[int, ...]]
) -> None:
    names = ("A", "B", "C")[: len(lists)]
    runs = {
        n: pl.DataFrame(
            {"query_id": ["q"] * len(r), "doc_id": [str(d) for d in r], "rank": list(range(1, len(r) + 1))}
        )
        for n, r in zip(names, lists, strict=True)
    }
    seen = _served(runs, 400, method, k)
    assert set(seen) == {tuple(str(d) for d in p) for p in possible}
    # each possible list is equally likely in these cases (one or two coin flips decide them)
    assert min(seen.values()) > 400 / len(possible) * 0.7


@pytest.mark.oracle
@pytest.mark.parametrize("method", ["team_draft", "probabilistic"])
def test_served_distribution_matches_mpkato(il: Any, method: str) -> None:
    lists = [[1, 2, 3, 4, 5], [3, 1, 6, 2, 7]]
    np.random.seed(0)
    cls = il.TeamDraft if method == "team_draft" else il.Probabilistic
    theirs = Counter(tuple(cls(lists, max_length=4).interleave()) for _ in range(1500))
    runs = _runs({"q": lists})
    ours = _served(runs, 1500, method, 4, seed=3)
    for ranking in set(theirs) | {tuple(int(d) for d in r) for r in ours}:
        p = theirs[ranking] / 1500
        q = ours[tuple(str(d) for d in ranking)] / 1500
        sd = np.sqrt(max(p, 1 / 1500) * (1 - p) / 1500 * 2)
        assert abs(p - q) < 5 * sd + 1e-9, (ranking, p, q)


def _generated(
    il: Any, method: str, n: int, seed: int
) -> tuple[pl.DataFrame, dict[str, pl.DataFrame], list[Any]]:
    """``n`` impressions, each of its own query: mpkato interleaves random runs; random clicks."""
    rng = np.random.default_rng(seed)
    np.random.seed(seed)
    rows, lists_per_query, expected = [], {}, []
    for i in range(n):
        pool = rng.permutation(12)[:9].tolist()
        a = rng.permutation(pool)[: rng.integers(3, 8)].tolist()
        b = rng.permutation(pool)[: rng.integers(3, 8)].tolist()
        cls = {"team_draft": il.TeamDraft, "balanced": il.Balanced, "probabilistic": il.Probabilistic}[method]
        ranking = None
        while ranking is None:
            try:
                ranking = cls([a, b], max_length=6).interleave()
            except (
                UnboundLocalError
            ):  # mpkato's Softmax.sample when rounding leaves a denominator > 0: redraw
                continue
        clicks = [j for j in range(len(ranking)) if rng.random() < 0.35]
        scores = cls.compute_scores(ranking, clicks)
        if method == "probabilistic":
            total = sum(p for _, p in scores.allocations.values())
            expected.append((scores[0] / total, scores[1] / total) if total > 0 else (0.0, 0.0))
        else:
            expected.append((float(scores[0]), float(scores[1])))
        q = f"q{i:04d}"
        lists_per_query[q] = [a, b]
        for j, d in enumerate(ranking):
            team = None
            if method == "team_draft":
                team = "A" if d in ranking.teams[0] else "B"
            rows.append((i, q, str(d), j + 1, int(j in clicks), team))
    log = pl.DataFrame(
        rows, schema=["impression_id", "query_id", "doc_id", "position", "clicked", "team"], orient="row"
    )
    return log, _runs(lists_per_query), expected


@pytest.mark.oracle
@pytest.mark.parametrize("method", ["team_draft", "balanced", "probabilistic"])
def test_credit_equals_mpkato(il: Any, method: str) -> None:
    log, runs, expected = _generated(
        il, method, 300, seed={"team_draft": 1, "balanced": 2, "probabilistic": 3}[method]
    )
    res = online.interleaving(log, runs=runs, method=method, per="impression")
    got = res.outcomes.sort("impression_id").select("credit_A", "credit_B").rows()
    assert np.allclose(np.array(got), np.array(expected), rtol=1e-9, atol=1e-12)
    # the outcomes are mpkato's evaluate(): (0, 1) when A won, (1, 0) when B won
    # (probabilistic: mathematically equal win probabilities may differ in mpkato's last bits;
    # those are ties here, and are compared as such)
    close = [abs(a - b) <= 1e-12 * max(a, b) for a, b in expected]
    wins = [
        ("A" if a > b else "B" if b > a else "tie") if not c else "tie"
        for (a, b), c in zip(expected, close, strict=True)
    ]
    assert res.outcomes.sort("impression_id")["winner"].to_list() == wins
    assert sum(close) - sum(a == b for a, b in expected) <= 3


@pytest.mark.oracle
def test_mpkato_pinned_cases(il: Any) -> None:
    # mpkato's tests/test_balanced.py: a = [1, 2], b = [2, 3], shown [2, 1, 3]
    cases = {(0, 2): "B", (0,): "B", (1,): "A", (2,): "B", (0, 1): "tie", (): "tie"}
    rows = []
    for i, clicks in enumerate(cases):
        rows += [(i, f"q{i}", str(d), p + 1, int(p in clicks)) for p, d in enumerate([2, 1, 3])]
    log = pl.DataFrame(
        rows, schema=["impression_id", "query_id", "doc_id", "position", "clicked"], orient="row"
    )
    runs = _runs({f"q{i}": [[1, 2], [2, 3]] for i in range(len(cases))})
    res = online.interleaving(log, runs=runs, method="balanced", per="impression")
    assert res.outcomes.sort("impression_id")["winner"].to_list() == list(cases.values())
    # tests/test_probabilistic.py: lists [1, 2] and [2, 3], shown [1, 2], both clicked: A gets 2 clicks
    # with probability (1/1.125 * 1) / (1/1.125 * 1 + 1/1.125 * 1/1.125) = 1.125 / 2.125, else a tie
    log = pl.DataFrame(
        {
            "impression_id": [1, 1],
            "query_id": ["q", "q"],
            "doc_id": ["1", "2"],
            "position": [1, 2],
            "clicked": [1, 1],
        }
    )
    res = online.interleaving(
        log, runs=_runs({"q": [[1, 2], [2, 3]]}), method="probabilistic", per="impression"
    )
    assert res.outcomes.select("credit_A", "credit_B").row(0) == pytest.approx(
        (1.125 / 2.125, 0.0), rel=1e-12
    )


def test_per_query_sums_and_sign_test() -> None:
    log = pl.DataFrame({
        "impression_id": [1, 1, 2, 2, 3, 3, 4, 4, 5, 5],
        "query_id": ["a", "a", "a", "a", "b", "b", "c", "c", "d", "d"],
        "doc_id": ["x", "y"] * 5, "position": [1, 2] * 5,
        "clicked": [1, 0, 0, 1, 0, 1, 1, 0, 0, 0],
        "team": ["A", "B", "B", "A", "A", "B", "A", "B", "A", "B"],
    })  # fmt: skip
    # query a: A 1 + A 1 = 2 vs 0 -> A; b: B; c: A; d: no clicks -> tie
    res = online.interleaving(log, systems=["A", "B"])
    assert res.per == "query"
    assert res.outcomes["winner"].to_list() == ["A", "B", "A", "tie"]
    row = res.pairs.row(0, named=True)
    assert (row["wins_a"], row["wins_b"], row["ties"], row["n"]) == (2, 1, 1, 4)
    assert row["delta"] == pytest.approx((2 + 0.5) / 4 - 0.5)
    assert row["p_value"] == pytest.approx(1.0)  # 2 of 3: the sign test cannot tell
    assert res.counts["impressions_without_clicks"] == 1
    by_imp = online.interleaving(log, systems=["A", "B"], per="impression")
    assert by_imp.outcomes["winner"].to_list() == ["A", "A", "B", "A", "tie"]


def test_team_draft_multileaving_matrix() -> None:
    # three systems; per query the credit: q1 A2 B1 C0, q2 A0 B1 C1, q3 A1 B0 C0
    rows = [(1, "q1", "x", 1, 1, "A"), (1, "q1", "y", 2, 1, "A"), (1, "q1", "z", 3, 1, "B"),
            (1, "q1", "w", 4, 0, "C"),
            (2, "q2", "x", 1, 1, "B"), (2, "q2", "y", 2, 1, "C"), (2, "q2", "z", 3, 0, "A"),
            (3, "q3", "x", 1, 1, "A"), (3, "q3", "y", 2, 0, "B"), (3, "q3", "z", 3, 0, "C")]  # fmt: skip
    log = pl.DataFrame(
        rows, schema=["impression_id", "query_id", "doc_id", "position", "clicked", "team"], orient="row"
    )
    res = online.interleaving(log, systems=["A", "B", "C"], correction="bonferroni")
    pairs = {
        (a, b): (wa, wb, t)
        for a, b, wa, wb, t in res.pairs.select(
            "system_a", "system_b", "wins_a", "wins_b", "ties"
        ).iter_rows()
    }
    assert pairs == {("A", "B"): (2, 1, 0), ("A", "C"): (2, 1, 0), ("B", "C"): (1, 0, 2)}
    m = res.matrix()
    assert m.filter(pl.col("system") == "A")["B"][0] == pytest.approx(2 / 3)
    assert m.filter(pl.col("system") == "B")["A"][0] == pytest.approx(1 / 3)
    assert res.pairs["p_adjusted"].to_list() == pytest.approx([min(1.0, 3 * p) for p in res.pairs["p_value"]])


def test_rules_of_the_team_column() -> None:
    log = pl.DataFrame({"impression_id": [1, 1, 2, 2], "query_id": ["a"] * 4, "doc_id": ["x", "y"] * 2,
                        "position": [1, 2] * 2, "clicked": [1, 0, 1, 0],
                        "team": ["A", "B", None, None]})  # fmt: skip
    with pytest.raises(InvalidDataError, match=r"label 'b'.*none of the interleaved systems \['A', 'B'\]"):
        online.interleaving(log.with_columns(team=pl.Series(["A", "b", None, None])), systems=["A", "B"])
    res = online.interleaving(log, systems=["A", "B"], per="impression")
    assert res.counts["impressions_without_team"] == 1
    assert res.counts["rows_without_team"] == 2
    assert res.outcomes.height == 1
    with pytest.raises(InvalidParameterError, match="systems="):
        online.interleaving(log)
    with pytest.raises(InvalidParameterError, match="runs="):
        online.interleaving(log, systems=["A", "B"], method="balanced")


def test_interleave_is_reproducible_and_validates() -> None:
    runs = _runs({"q1": [[1, 2, 3, 4], [4, 3, 2, 1]], "q2": [[5, 6], [6, 7, 8]]})
    one = online.interleave(runs, seed=7)
    assert one.equals(online.interleave(runs, seed=7))
    assert one.group_by("query_id").len().sort("query_id")["len"].to_list() == [
        4,
        3,
    ]  # the longer run's length
    with pytest.raises(InvalidParameterError, match="interleaves 2 runs"):
        online.interleave(runs | {"C": runs["A"]}, method="balanced")
    with pytest.raises(InvalidParameterError, match="'k'"):
        online.interleave(runs, k=0)
