"""irframe.answers.ppi_mean / ppi_mean_difference: a hand computation written out,
ppi_py's ppi_mean_ci, PPI++ tuning and classical_mean_ci on generated data (oracle), a
coverage simulation whose truth is known (the LLM biased), and the errors."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest

from _support.helpers import CONSTRUCTORS, to_polars
from irframe.answers import ppi_mean, ppi_mean_difference
from irframe.exceptions import DuplicateRowsError, InvalidDataError, InvalidParameterError

Z95 = 1.959963984540054  # the standard normal's 0.975 quantile


def test_hand_computed_interval() -> None:
    llm = pl.DataFrame({"query_id": ["a", "b", "c", "d", "e"], "score": [1.0, 0.0, 1.0, 1.0, 0.0]})
    human = pl.DataFrame({"query_id": ["a", "b", "c"], "human": [1.0, 0.0, 0.0]})
    got = to_polars(ppi_mean(llm, human)).row(0, named=True)
    # Y = (1, 0, 0), Yhat = (1, 0, 1), Yhat_u = (1, 0): estimate = 0.5 + 1/3 - 2/3 = 1/6
    assert got["estimate"] == pytest.approx(1 / 6, abs=1e-12)
    # var(Yhat_u) = 0.25 (population); Y - Yhat = (0, 0, -1): var = 2/9
    se = math.sqrt(0.25 / 2 + (2 / 9) / 3)
    assert got["ci_low"] == pytest.approx(1 / 6 - Z95 * se, abs=1e-9)
    assert got["ci_high"] == pytest.approx(1 / 6 + Z95 * se, abs=1e-9)
    se_classical = math.sqrt((2 / 9) / 3)  # Y's population variance 2/9
    assert got["classical"] == pytest.approx(1 / 3)
    assert got["classical_high"] == pytest.approx(1 / 3 + Z95 * se_classical, abs=1e-9)
    assert got["n_effective"] == pytest.approx(3 * se_classical**2 / se**2)
    assert got["llm_only"] == 0.6
    assert (got["n_human"], got["n_unlabeled"], got["lam"]) == (3, 2, 1.0)
    # lam = 0: the classical mean and interval
    zero = to_polars(ppi_mean(llm, human, lam=0)).row(0, named=True)
    assert zero["estimate"] == pytest.approx(1 / 3)
    assert zero["ci_high"] == pytest.approx(zero["classical_high"])
    # PPI++: cov(Y, Yhat) = 1/9 (population); var of all five LLM scores (ddof 1) = 0.3
    tuned = to_polars(ppi_mean(llm, human, lam=None)).row(0, named=True)
    assert tuned["lam"] == pytest.approx((1 / 9) / ((1 + 3 / 2) * 0.3))


def _generated(seed: int, groups: int = 3) -> tuple[pl.DataFrame, pl.DataFrame]:
    rng = np.random.default_rng(seed)
    llm_parts, human_parts = [], []
    for g in range(groups):
        size, n = int(rng.integers(30, 300)), int(rng.integers(5, 25))
        y = rng.uniform(0, 1, size)
        yhat = np.clip(y + rng.normal(0.15, 0.2, size), 0, 1)
        ids = [f"q{i}" for i in range(size)]
        labelled = rng.choice(size, n, replace=False)
        llm_parts.append(pl.DataFrame({"system": f"s{g}", "query_id": ids, "score": yhat}))
        human_parts.append(
            pl.DataFrame({"system": f"s{g}", "query_id": [ids[i] for i in labelled], "human": y[labelled]})
        )
    return pl.concat(llm_parts), pl.concat(human_parts)


def _arrays(llm: pl.DataFrame, human: pl.DataFrame, system: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    scored = llm.filter(pl.col("system") == system)
    lab = human.filter(pl.col("system") == system).join(scored, on=["system", "query_id"])
    unl = scored.join(lab, on=["system", "query_id"], how="anti")
    return lab["human"].to_numpy(), lab["score"].to_numpy(), unl["score"].to_numpy()


@pytest.mark.oracle
@pytest.mark.parametrize("lam", [1.0, 0.4, None])
def test_equal_to_ppi_py(lam: float | None) -> None:
    ppi = pytest.importorskip("ppi_py", reason="needs pip install ppi-python (oracle)")
    for seed in range(8):
        llm, human = _generated(seed)
        got = {
            r["system"]: r
            for r in to_polars(ppi_mean(llm, human, by="system", lam=lam, ci=0.9)).iter_rows(named=True)
        }
        for system, r in got.items():
            y, yhat, yhat_u = _arrays(llm, human, system)
            lo, hi = ppi.ppi_mean_ci(y, yhat, yhat_u, alpha=0.1, lam=lam)
            point = ppi.ppi_mean_pointestimate(y, yhat, yhat_u, lam=lam)
            assert r["ci_low"] == pytest.approx(float(np.ravel(lo)[0]), abs=1e-9)
            assert r["ci_high"] == pytest.approx(float(np.ravel(hi)[0]), abs=1e-9)
            assert r["estimate"] == pytest.approx(float(np.ravel(point)[0]), abs=1e-9)
            clo, chi = ppi.classical_mean_ci(y, alpha=0.1)
            assert (r["classical_low"], r["classical_high"]) == (
                pytest.approx(clo, abs=1e-9),
                pytest.approx(chi, abs=1e-9),
            )


@pytest.mark.oracle
def test_difference_equal_to_ppi_py_on_the_differences() -> None:
    ppi = pytest.importorskip("ppi_py", reason="needs pip install ppi-python (oracle)")
    llm, human = _generated(11, groups=2)
    # the same items for both systems: system s1's scores re-keyed onto s0's items
    s0 = llm.filter(pl.col("system") == "s0")
    s1 = s0.with_columns(pl.lit("s1").alias("system"), (pl.col("score") * 0.8).alias("score"))
    h0 = human.filter(pl.col("system") == "s0")
    h1 = h0.with_columns(pl.lit("s1").alias("system"), (pl.col("human") ** 2).alias("human"))
    for lam in (1.0, None):
        got = to_polars(
            ppi_mean_difference(pl.concat([s0, s1]), pl.concat([h0, h1]), ("s0", "s1"), lam=lam)
        ).row(0, named=True)
        lab = h0.join(s0, on=["system", "query_id"])
        y = lab["human"].to_numpy() - lab["human"].to_numpy() ** 2
        yhat = lab["score"].to_numpy() * 0.2
        yhat_u = s0.join(h0, on=["system", "query_id"], how="anti")["score"].to_numpy() * 0.2
        lo, hi = ppi.ppi_mean_ci(y, yhat, yhat_u, alpha=0.05, lam=lam)
        assert got["ci_low"] == pytest.approx(float(np.ravel(lo)[0]), abs=1e-9)
        assert got["ci_high"] == pytest.approx(float(np.ravel(hi)[0]), abs=1e-9)


def _coverage(reps: int, seed: int) -> dict[str, float]:
    """Replications as groups of one call: true mean 0.5, the LLM biased by +0.2."""
    rng = np.random.default_rng(seed)
    size, n = 400, 40
    y = rng.uniform(0, 1, (reps, size))
    yhat = y + 0.2 + rng.normal(0, 0.15, (reps, size))
    rep = np.repeat(np.arange(reps), size).astype(str)
    item = np.tile(np.arange(size), reps).astype(str)
    llm = pl.DataFrame({"rep": rep, "item": item, "score": yhat.ravel()})
    labelled = np.zeros((reps, size), dtype=bool)
    labelled[:, :n] = True  # (the items are exchangeable: the first n are a random sample)
    human = pl.DataFrame({"rep": rep, "item": item, "human": y.ravel()}).filter(pl.Series(labelled.ravel()))
    out = to_polars(ppi_mean(llm, human, on="item", by="rep", ci=0.9))
    covered = ((out["ci_low"] <= 0.5) & (out["ci_high"] >= 0.5)).mean()
    classical = ((out["classical_low"] <= 0.5) & (out["classical_high"] >= 0.5)).mean()
    return {
        "ppi": float(covered),  # type: ignore[arg-type]
        "classical": float(classical),  # type: ignore[arg-type]
        "llm_bias": float(out["llm_only"].mean()) - 0.5,  # type: ignore[arg-type]
        "ppi_bias": float(out["estimate"].mean()) - 0.5,  # type: ignore[arg-type]
        "width_ratio": float(
            ((out["ci_high"] - out["ci_low"]) / (out["classical_high"] - out["classical_low"])).mean()
        ),  # type: ignore[arg-type]
    }


def _check_coverage(c: dict[str, float], reps: int) -> None:
    tolerance = 4 * math.sqrt(0.9 * 0.1 / reps) + 0.01  # 4 binomial sd, and the CLT's small-n slack
    assert abs(c["ppi"] - 0.9) < tolerance, c
    assert abs(c["classical"] - 0.9) < tolerance, c
    assert c["llm_bias"] == pytest.approx(0.2, abs=0.01)  # the LLM-only mean misses by its bias
    assert abs(c["ppi_bias"]) < 0.01, c
    assert c["width_ratio"] < 0.8, c  # a good LLM narrows the interval


def test_coverage_simulation() -> None:
    _check_coverage(_coverage(600, seed=7), 600)


@pytest.mark.deep
@pytest.mark.parametrize("seed", range(5))
def test_coverage_simulation_more_seeds(seed: int) -> None:
    _check_coverage(_coverage(3000, seed=100 + seed), 3000)


def test_frame_types_and_value_in_human() -> None:
    llm = {"query_id": ["a", "b", "c", "d", "e"], "score": [1.0, 0.0, 1.0, 1.0, 0.0]}
    human = {"query_id": ["a", "b", "c"], "human": [1.0, 0.0, 0.0], "score": [1.0, 0.0, 1.0]}
    want = to_polars(ppi_mean(pl.DataFrame(llm), pl.DataFrame(human)))
    for name in ("pandas", "polars-lazy", "pandas-pyarrow"):
        out = ppi_mean(CONSTRUCTORS[name](llm), CONSTRUCTORS[name](human))
        assert type(out) is type(CONSTRUCTORS[name](llm))
        assert to_polars(out).equals(want)
    with pytest.raises(
        InvalidDataError, match=r"'score' differs from the llm frame's.*query_id 'c': 0.5 vs 1.0"
    ):
        ppi_mean(pl.DataFrame(llm), pl.DataFrame({**human, "score": [1.0, 0.0, 0.5]}))


def test_errors() -> None:
    llm = pl.DataFrame({"query_id": ["a", "b", "c", "d"], "score": [1.0, 0.0, 1.0, 1.0]})
    human = pl.DataFrame({"query_id": ["a", "b"], "human": [1.0, 0.0]})
    with pytest.raises(InvalidDataError, match=r"does not score, e.g. query_id 'z'.*subset"):
        ppi_mean(llm, pl.concat([human, pl.DataFrame({"query_id": ["z"], "human": [1.0]})]))
    with pytest.raises(DuplicateRowsError, match=r"query_id 'a' has 2 rows with different scores"):
        ppi_mean(llm, pl.concat([human, pl.DataFrame({"query_id": ["a"], "human": [0.0]})]))
    with pytest.raises(InvalidDataError, match="at least 2 human-labelled items"):
        ppi_mean(llm, human[:1])
    with pytest.raises(InvalidDataError, match="1 item without a human label"):
        ppi_mean(llm[:2], human)
    with pytest.raises(InvalidDataError, match=r"null or NaN.*row 1"):
        ppi_mean(llm.with_columns(pl.Series("score", [1.0, float("nan"), 1.0, 1.0])), human)
    with pytest.raises(InvalidParameterError, match="'ci' parameter of ppi_mean"):
        ppi_mean(llm, human, ci=95)
    pair_llm = pl.DataFrame(
        {"system": ["x", "x", "x", "y", "y"], "query_id": ["a", "b", "c", "a", "b"], "score": [1.0] * 5}
    )
    pair_h = pl.DataFrame(
        {"system": ["x", "x", "y", "y"], "query_id": ["a", "b", "a", "b"], "human": [1.0] * 4}
    )
    with pytest.raises(
        InvalidDataError, match=r"one system only, e.g. query_id 'c' has no score of system 'y'"
    ):
        ppi_mean_difference(pair_llm, pair_h, ("x", "y"))
    with pytest.raises(InvalidDataError, match=r"no rows of system 'w'"):
        ppi_mean_difference(pair_llm, pair_h, ("x", "w"))
