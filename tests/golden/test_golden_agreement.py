"""agreement: hand-computed kappas and alphas, peers (scikit-learn, krippendorff, scipy), rankings, errors."""

from __future__ import annotations

import itertools
import math
import warnings
from typing import Any

import numpy as np
import polars as pl
import pytest

import irframe
from _support.helpers import NamedConstructor, to_polars
from irframe._golden.agreement import kendall_tau_b, spearman_rho, tau_ap
from irframe.exceptions import (
    ColumnNotFoundError,
    DuplicateRowsError,
    InvalidDataError,
    InvalidParameterError,
)


def _two_judges() -> dict[str, list[Any]]:
    """human and llm on q1 (a, b, c, d) and q2 (e, f); llm also judged g, human alone h."""
    rows = [
        ("human", "q1", "a", 2), ("human", "q1", "b", 1), ("human", "q1", "c", 0), ("human", "q1", "d", 0),
        ("human", "q2", "e", 2), ("human", "q2", "f", 1), ("human", "q2", "h", 1),
        ("llm", "q1", "a", 2), ("llm", "q1", "b", 0), ("llm", "q1", "c", 0), ("llm", "q1", "d", 2),
        ("llm", "q2", "e", 2), ("llm", "q2", "f", 1), ("llm", "q2", "g", 0),
    ]  # fmt: skip
    return {k: [r[i] for r in rows] for i, k in enumerate(["judge", "query_id", "doc_id", "relevance"])}


def test_hand_computed_pair(constructor: NamedConstructor) -> None:
    a = irframe.agreement(constructor(_two_judges()))
    assert isinstance(a.pairs, constructor.native_type)
    p = to_polars(a.pairs).row(0, named=True)
    assert (p["judge_a"], p["judge_b"]) == ("human", "llm")
    assert (p["n_common"], p["n_only_a"], p["n_only_b"], p["n_queries"]) == (6, 1, 1, 2)
    # common pairs (human, llm): a 2-2, b 1-0, c 0-0, d 0-2, e 2-2, f 1-1
    # confusion rows human 0,1,2 x cols llm 0,1,2: [[1,0,1],[1,1,0],[0,0,2]], n = 6
    # rows (2, 2, 2), cols (2, 1, 3): p_o = 4/6, p_e = (2*2 + 2*1 + 2*3) / 36 = 1/3
    assert p["agreement"] == pytest.approx(4 / 6)
    assert p["kappa"] == pytest.approx((4 / 6 - 1 / 3) / (1 - 1 / 3))  # 0.5
    # linear: observed sum |i-j| = 2 (c0,l2) + 1 (h1,l0) = 3 -> 3/6; expected sum w * r_i c_j / 36:
    # r=(2,2,2), c=(2,1,3): sum_ij |i-j| r_i c_j = 2*(0*2 + 1*1 + 2*3) + 2*(1*2 + 0 + 1*3) + 2*(2*2 + 1*1 + 0)
    expected_lin = (2 * (1 + 6) + 2 * (2 + 3) + 2 * (4 + 1)) / 36
    assert p["kappa_linear"] == pytest.approx(1 - (3 / 6) / expected_lin)
    # quadratic: observed 4 + 1 = 5 -> 5/6; expected sum (i-j)^2 r_i c_j / 36
    expected_quad = (2 * (1 + 12) + 2 * (2 + 3) + 2 * (8 + 1)) / 36
    assert p["kappa_quadratic"] == pytest.approx(1 - (5 / 6) / expected_quad)
    # Krippendorff ordinal: coincidences O = C + C^T, marginals n_g = (4, 3, 5), N = 12
    # delta(0,1) = (4 + 3 - 3.5)^2 = 12.25, delta(1,2) = (3 + 5 - 4)^2 = 16, delta(0,2) = (12 - 4.5)^2 = 56.25
    d = {(0, 1): 12.25, (1, 2): 16.0, (0, 2): 56.25}
    o = {(0, 1): 1, (1, 2): 0, (0, 2): 1}  # off-diagonal pairs of C + C^T, each counted twice below
    observed = 2 * sum(o[k] * d[k] for k in d)
    n_g = (4, 3, 5)
    expected = 2 * sum(n_g[i] * n_g[j] * d[(i, j)] for i, j in d)
    assert p["alpha_ordinal"] == pytest.approx(1 - (12 - 1) * observed / expected)


def test_per_query_and_disagreements() -> None:
    a = irframe.agreement(pl.DataFrame(_two_judges()))
    pq = a.per_query
    assert pq["query_id"].to_list() == ["q1", "q2"]
    assert pq["n_common"].to_list() == [4, 2]
    # q2: e 2-2, f 1-1: perfect agreement, kappa 1
    assert pq.filter(pl.col("query_id") == "q2").select("agreement", "kappa").row(0) == (1.0, 1.0)
    # q1: a 2-2, b 1-0, c 0-0, d 0-2: p_o 1/2; rows (2,1,1), cols (2,0,2): p_e = (4 + 0 + 2) / 16
    q1 = pq.filter(pl.col("query_id") == "q1").row(0, named=True)
    assert q1["kappa"] == pytest.approx((0.5 - 6 / 16) / (1 - 6 / 16))
    d = a.disagreements
    assert d.select("doc_id", "grade_a", "grade_b", "distance").rows() == [("d", 0, 2, 2), ("b", 1, 0, 1)]


def test_undefined_statistics_are_null() -> None:
    qrels = pl.DataFrame({
        "judge": ["a", "a", "b", "b"], "query_id": ["q1", "q2"] * 2, "doc_id": ["x", "y"] * 2,
        "relevance": [1, 1, 1, 1],
    })  # fmt: skip
    a = irframe.agreement(qrels, scale=[0, 1])
    row = a.pairs.row(0, named=True)
    assert row["agreement"] == 1.0
    assert row["kappa"] is None  # every pair graded 1 by both: p_e = 1, kappa is 0/0
    assert row["alpha_ordinal"] is None
    assert math.isnan(a.alpha)


# --- peers ---------------------------------------------------------------------------------------
def _random_judges(seed: int, k: int = 4) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    docs = [(f"q{q}", f"d{q}_{d}") for q in range(12) for d in range(rng.integers(3, 9))]
    truth = rng.integers(0, k, len(docs))
    parts = []
    for judge, noise, keep in (("human", 0.0, 1.0), ("llm", 0.8, 0.85), ("clicks", 1.3, 0.7)):
        grades = np.clip(np.round(truth + rng.normal(0, noise, len(docs))), 0, k - 1).astype(int)
        mask = rng.random(len(docs)) < keep
        parts.append(pl.DataFrame({
            "judge": judge, "query_id": [d[0] for i, d in enumerate(docs) if mask[i]],
            "doc_id": [d[1] for i, d in enumerate(docs) if mask[i]], "relevance": grades[mask],
        }))  # fmt: skip
    return pl.concat(parts)


def _kappa(a: list[int], b: list[int], weights: str | None, labels: list[int]) -> float:
    skm = pytest.importorskip("sklearn.metrics", reason="needs pip install scikit-learn (oracle)")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # 0/0 is a RuntimeWarning there, null here
        return float(skm.cohen_kappa_score(a, b, weights=weights, labels=labels))


@pytest.mark.oracle
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_pairs_match_scikit_learn_and_krippendorff(seed: int) -> None:
    kr = pytest.importorskip("krippendorff", reason="needs pip install krippendorff (oracle)")
    qrels = _random_judges(seed)
    scale = [0, 1, 2, 3]
    a = irframe.agreement(qrels, scale=scale)
    wide = qrels.pivot(on="judge", index=["query_id", "doc_id"], values="relevance").sort(
        "query_id", "doc_id"
    )
    for row in a.pairs.iter_rows(named=True):
        both = wide.filter(pl.col(row["judge_a"]).is_not_null() & pl.col(row["judge_b"]).is_not_null())
        ga, gb = both[row["judge_a"]].to_list(), both[row["judge_b"]].to_list()
        assert row["n_common"] == len(ga)
        assert row["agreement"] == pytest.approx(np.mean(np.array(ga) == np.array(gb)))
        assert row["kappa"] == pytest.approx(_kappa(ga, gb, None, scale), abs=1e-12)
        assert row["kappa_linear"] == pytest.approx(_kappa(ga, gb, "linear", scale), abs=1e-12)
        assert row["kappa_quadratic"] == pytest.approx(_kappa(ga, gb, "quadratic", scale), abs=1e-12)
        alpha = kr.alpha(reliability_data=np.array([ga, gb], dtype=float), level_of_measurement="ordinal")
        assert row["alpha_ordinal"] == pytest.approx(alpha, abs=1e-12)
        judged_a = wide.filter(pl.col(row["judge_a"]).is_not_null()).height
        assert row["n_only_a"] == judged_a - len(ga)
    data = wide.select(a.judges).to_numpy().astype(float).T  # judges x units, NaN where not judged
    alpha_all = kr.alpha(reliability_data=data, level_of_measurement="ordinal")
    assert a.alpha == pytest.approx(alpha_all, abs=1e-12)
    assert a.n_units == int((np.sum(~np.isnan(data), axis=0) >= 2).sum())


@pytest.mark.oracle
def test_per_query_matches_scikit_learn() -> None:
    qrels = _random_judges(4)
    a = irframe.agreement(qrels, scale=[0, 1, 2, 3])
    for row in a.per_query.iter_rows(named=True):
        ja = qrels.filter((pl.col("judge") == row["judge_a"]) & (pl.col("query_id") == row["query_id"]))
        jb = qrels.filter((pl.col("judge") == row["judge_b"]) & (pl.col("query_id") == row["query_id"]))
        both = ja.join(jb, on=["query_id", "doc_id"]).sort("doc_id")
        ga, gb = both["relevance"].to_list(), both["relevance_right"].to_list()
        assert row["n_common"] == len(ga)
        for col, w in (("kappa", None), ("kappa_linear", "linear"), ("kappa_quadratic", "quadratic")):
            want = _kappa(ga, gb, w, [0, 1, 2, 3])
            if math.isnan(want):
                assert row[col] is None
            else:
                assert row[col] == pytest.approx(want, abs=1e-12)


def test_declared_scale_positions_not_values() -> None:
    # grades 0, 1, 3 on the declared scale 0..3: position 3 is two steps from 1
    docs = {"query_id": ["q"] * 4, "doc_id": list("abcd")}
    qrels = {
        "x": pl.DataFrame({**docs, "relevance": [0, 1, 3, 3]}),
        "y": pl.DataFrame({**docs, "relevance": [0, 3, 1, 3]}),
    }
    a = irframe.agreement(qrels, scale=range(4))
    b = irframe.agreement(qrels)  # observed scale 0, 1, 3: positions 0, 1, 2
    assert a.scale == (0, 1, 2, 3)
    assert b.scale == (0, 1, 3)
    assert a.pairs["kappa"][0] == pytest.approx(b.pairs["kappa"][0])  # unweighted: the same
    assert a.pairs["kappa_linear"][0] != pytest.approx(b.pairs["kappa_linear"][0])
    skm = pytest.importorskip("sklearn.metrics", reason="needs pip install scikit-learn (oracle)")
    ga, gb = [0, 1, 3, 3], [0, 3, 1, 3]
    assert a.pairs["kappa_linear"][0] == pytest.approx(
        skm.cohen_kappa_score(ga, gb, weights="linear", labels=[0, 1, 2, 3])
    )
    assert b.pairs["kappa_linear"][0] == pytest.approx(
        skm.cohen_kappa_score([0, 1, 2, 2], [0, 2, 1, 2], weights="linear")
    )


@pytest.mark.oracle
def test_rank_correlations_match_scipy() -> None:
    ss = pytest.importorskip("scipy.stats", reason="needs pip install scipy (oracle)")
    rng = np.random.default_rng(3)
    for _ in range(200):
        n = int(rng.integers(2, 9))
        x = rng.integers(0, 4, n).astype(float)  # ties on purpose
        y = rng.integers(0, 4, n).astype(float)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tau, rho = ss.kendalltau(x, y).statistic, ss.spearmanr(x, y).statistic
        for got, want in ((kendall_tau_b(x, y), tau), (spearman_rho(x, y), rho)):
            assert (math.isnan(got) and math.isnan(want)) or got == pytest.approx(want, abs=1e-12)


def test_tau_ap_by_hand() -> None:
    # truth A > B > C > D; the estimate A, B, D, C: C(2) = 1 of 1, C(3) = 2 of 2 (D under A, B),
    # C(4) = 2 of 3 (C under A, B, wrongly under D): 2/3 (1 + 1 + 2/3) - 1 = 7/9
    assert tau_ap([4, 3, 2, 1], [4, 3, 1, 2]) == pytest.approx(7 / 9)
    # the estimate B, A, C, D: C(2) = 0 of 1 (A under B), C(3) = 2/2, C(4) = 3/3: 2/3 (0 + 1 + 1) - 1 = 1/3
    assert tau_ap([4, 3, 2, 1], [3, 4, 2, 1]) == pytest.approx(1 / 3)
    assert tau_ap([4, 3, 2, 1], [1, 2, 3, 4]) == pytest.approx(-1.0)
    assert tau_ap([4, 3, 2, 1], [8, 6, 4, 2]) == pytest.approx(1.0)
    # a tie in the truth counts half: truth A = B > C, estimate A, B, C: 2/2 (0.5 + 2/2) - 1 = 0.5
    assert tau_ap([2, 2, 1], [3, 2, 1]) == pytest.approx(0.5)
    # asymmetric: truth A > B > C > D, estimate B, C, A, D: C = 1/1, 0/2, 3/3 -> 2/3 * 2 - 1 = 1/3;
    # the other way, truth B > C > A > D, estimate A, B, C, D: C = 0/1, 1/2, 3/3 -> 2/3 * 1.5 - 1 = 0
    x, y = [4, 3, 2, 1], [2, 4, 3, 1]
    assert tau_ap(x, y) == pytest.approx(1 / 3)
    assert tau_ap(y, x) == pytest.approx(0.0, abs=1e-15)
    assert kendall_tau_b(x, y) == pytest.approx(kendall_tau_b(y, x))
    assert tau_ap([1], [1]) != tau_ap([1], [1])  # NaN for one system


# --- system rankings ---------------------------------------------------------------------------------
def _runs() -> dict[str, pl.DataFrame]:
    """Three systems on q1 (docs a-d) and q2 (e, f, g): rank 1 is the first doc listed."""
    order = {"s1": ("abcd", "efg"), "s2": ("dabc", "gef"), "s3": ("bacd", "feg")}
    out = {}
    for name, (q1, q2) in order.items():
        out[name] = pl.DataFrame({
            "query_id": ["q1"] * 4 + ["q2"] * 3, "doc_id": [*q1, *q2], "rank": [1, 2, 3, 4, 1, 2, 3],
        })  # fmt: skip
    return out


def test_rankings_by_hand() -> None:
    a = irframe.agreement(pl.DataFrame(_two_judges()), runs=_runs(), measures="RR")
    # common pairs of both judges: q1 a b c d, q2 e f. RR (relevant: grade >= 1):
    # human: q1 a2 b1 c0 d0; q2 e2 f1. s1 RR 1, 1 -> 1; s2 (d a..) 1/2, (g e f) g unjudged here -> 1/2: 0.5
    #        s3 (b a ..) 1, (f e g) 1 -> 1
    # llm:   q1 a2 b0 c0 d2; q2 e2 f1. s1 1, 1 -> 1; s2 d -> 1, g unjudged, e -> 1/2: 0.75;
    #        s3 b0 a2 -> 1/2, f -> 1: 0.75
    scores = a.system_scores.filter(pl.col("measure") == "RR").sort("judge", "system")
    assert scores["value"].to_list() == pytest.approx([1.0, 0.5, 1.0, 1.0, 0.75, 0.75])
    assert scores["n_judgments"].to_list() == [6] * 6
    r = a.rankings.row(0, named=True)
    # human: s1 = s3 > s2; llm: s1 > s2 = s3 -> pairs (s1,s2) ++, (s1,s3) 0+, (s2,s3) -0
    # tau-b = 1 / sqrt(2 * 2) = 0.5
    assert r["kendall_tau"] == pytest.approx(0.5)
    assert r["n_swapped"] == 0
    assert a.verdicts[0] == (
        "judge 'llm' ranks the 3 systems differently from judge 'human' on RR: tau 0.5, tau_AP "
        f"{round(r['tau_ap'], 3)}, Spearman {round(r['spearman'], 3)}; 0 of 3 pairs of systems swapped; "
        "2 pair(s) tied under one judge only"
    )


def test_ranking_on_all_uses_each_judges_own_judgments() -> None:
    a = irframe.agreement(pl.DataFrame(_two_judges()), runs=_runs(), measures=["RR"], ranking_on="all")
    s = a.system_scores.sort("judge", "system")
    assert s["n_judgments"].to_list() == [7, 7, 7, 7, 7, 7]
    # llm judged g (grade 0): unchanged RR; human judged h, in no run: unchanged
    assert s["value"].to_list() == pytest.approx([1.0, 0.5, 1.0, 1.0, 0.75, 0.75])


def test_same_ranking_verdict_and_swaps() -> None:
    qrels = _two_judges()
    same = irframe.agreement({"human": pl.DataFrame(qrels).filter(pl.col("judge") == "human").drop("judge"),
                              "copy": pl.DataFrame(qrels).filter(pl.col("judge") == "human").drop("judge")},
                             runs=_runs(), measures=["nDCG@10", "P@1"])  # fmt: skip
    assert same.verdicts[0] == "judge 'copy' ranks the 3 systems as judge 'human' does on nDCG@10: tau 1.0"
    assert len(same.verdicts) == 2
    flipped = pl.DataFrame(qrels).with_columns(
        pl.when(pl.col("judge") == "llm").then(2 - pl.col("relevance")).otherwise(pl.col("relevance"))
    )
    b = irframe.agreement(flipped, runs=_runs(), measures="nDCG@10")
    r = b.rankings.row(0, named=True)
    assert r["n_swapped"] >= 1
    assert "swapped (" in r["verdict"]
    human = b.system_scores.filter(pl.col("judge") == "human").sort("system")["value"].to_numpy()
    llm = b.system_scores.filter(pl.col("judge") == "llm").sort("system")["value"].to_numpy()
    assert r["kendall_tau"] == pytest.approx(kendall_tau_b(human, llm))
    swaps = [(i, j) for i, j in itertools.combinations(range(3), 2)
             if (human[i] - human[j]) * (llm[i] - llm[j]) < 0]  # fmt: skip
    assert r["n_swapped"] == len(swaps)


def test_stacked_runs_and_text() -> None:
    stacked = pl.concat([r.with_columns(system=pl.lit(n)) for n, r in _runs().items()])
    a = irframe.agreement(pl.DataFrame(_two_judges()), runs=stacked, measures="RR")
    assert a.rankings["n_systems"][0] == 3
    text = str(a)
    assert text.splitlines()[0].startswith("judges human, llm; scale 0, 1, 2;")
    assert "largest disagreements (2 of 2):" in text
    assert "  human/llm q1 d: 0 vs 2" in text
    assert text.splitlines()[-1] == a.verdicts[0]


# --- bad input ---------------------------------------------------------------------------------------
def test_bad_input() -> None:
    qrels = pl.DataFrame(_two_judges())
    with pytest.raises(ColumnNotFoundError, match="no judge column 'source'"):
        irframe.agreement(qrels, judge_col="source")
    with pytest.raises(InvalidDataError, match="at least 2 judges; the judge column 'judge' holds 1"):
        irframe.agreement(qrels.filter(pl.col("judge") == "human"))
    with pytest.raises(InvalidDataError, match="at least 2 judges; the mapping holds 1"):
        irframe.agreement({"h": qrels.drop("judge")})
    with pytest.raises(
        InvalidDataError,
        match=r"outside the declared scale \[0, 1\]: judge 'human' graded query 'q1', document 'a' 2",
    ):
        irframe.agreement(qrels, scale=[0, 1])
    with pytest.raises(InvalidParameterError, match="'scale' parameter"):
        irframe.agreement(qrels, scale=["low", "high"])
    with pytest.raises(InvalidDataError, match="null or NaN 'relevance'"):
        irframe.agreement(
            qrels.with_columns(
                pl.when(pl.col("doc_id") == "a").then(None).otherwise(pl.col("relevance")).alias("relevance")
            )
        )
    with pytest.raises(DuplicateRowsError, match="judge 'human' graded query 'q1', document 'a' 2 times"):
        irframe.agreement(pl.concat([qrels, qrels.head(1)]))
    with pytest.raises(InvalidDataError, match="grades \\('relevance'\\) must be numeric"):
        irframe.agreement(qrels.with_columns(pl.col("relevance").cast(pl.String)))
    with pytest.raises(ColumnNotFoundError, match="no relevance column 'grade'"):
        irframe.agreement(qrels, relevance_col="grade")
    with pytest.raises(InvalidParameterError, match="'ranking_on' parameter"):
        irframe.agreement(qrels, ranking_on="some")  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError, match="agreement needs at least 2 systems; got 1"):
        irframe.agreement(qrels, runs={"s1": _runs()["s1"]})
    with pytest.raises(ColumnNotFoundError, match="no system column 'system'"):
        irframe.agreement(qrels, runs=_runs()["s1"])
