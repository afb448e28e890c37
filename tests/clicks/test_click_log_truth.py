"""The bundled click log against the truth it was simulated with: clicks as grades rank the
rankers wrongly, the click models' judgments and IPS rank them as the hidden grades do."""

from __future__ import annotations

import polars as pl
import pytest

import irframe
from irframe._golden.agreement import kendall_tau_b
from irframe.datasets import click_log

NDCG = "nDCG(gain=linear)@10"


@pytest.fixture(scope="module")
def data() -> object:
    return click_log()


def _means(c: object, qrels: pl.DataFrame) -> dict[str, float]:
    out = irframe.evaluate(c.runs, [NDCG], qrels, by="system")  # type: ignore[attr-defined]
    return dict(zip(out["system"], out[NDCG], strict=True))


def test_clicks_as_grades_rank_the_wrong_ranker_first(data: object) -> None:
    c = data
    truth = _means(c, c.truth)  # type: ignore[attr-defined]
    ctr = c.log.group_by("query_id", "doc_id").agg(pl.col("clicked").mean().alias("relevance"))  # type: ignore[attr-defined]
    naive = _means(c, ctr)
    assert truth["b"] > truth["a"] * 1.05  # b is truly better
    assert naive["b"] < naive["a"]  # clicks as grades say the opposite


@pytest.mark.parametrize(("model", "min_tau"), [("sdbn", 0.6), ("dcm", 0.6), ("pbm", 0.6), ("coec", 0.5)])
def test_judgments_rank_documents_like_the_truth(data: object, model: str, min_tau: float) -> None:
    c = data
    qrels = irframe.clicks.click_judgments(c.log, model, iterations=300, tol=1e-3)  # type: ignore[attr-defined, arg-type]
    joined = qrels.join(c.truth, on=["query_id", "doc_id"], suffix="_true")  # type: ignore[attr-defined]
    tau = kendall_tau_b(joined["relevance"].to_numpy(), joined["relevance_true"].to_numpy())
    assert tau >= min_tau, tau  # measured (tau-b over all pairs): coec 0.68, dcm 0.72, sdbn 0.68, pbm 0.75
    means = _means(c, qrels)
    assert means["b"] > means["a"]


def test_ips_ranks_b_first_within_its_interval(data: object) -> None:
    c = data
    theta = irframe.clicks.position_bias(c.log, "em", n_bootstrap=0)  # type: ignore[attr-defined]
    out = irframe.clicks.counterfactual(c.log, c.runs, ["DCG@10"], propensities=theta, n_bootstrap=300)  # type: ignore[attr-defined]
    b = out.filter(pl.col("system") == "b").row(0, named=True)
    assert b["delta"] > 0
    assert b["p_adjusted"] < 0.05
    attract = pl.DataFrame({"relevance": [0, 1, 2, 3], "p": [0.05, 0.25, 0.55, 0.85]})
    truth = (
        c.runs.filter(pl.col("system") == "b")  # type: ignore[attr-defined]
        .join(c.truth, on=["query_id", "doc_id"])  # type: ignore[attr-defined]
        .join(attract, on="relevance")
        .group_by("query_id")
        .agg((pl.col("p") / (pl.col("rank") + 1).log(2)).sum())
    )["p"].mean()
    assert b["ci_low"] <= truth <= b["ci_high"]
