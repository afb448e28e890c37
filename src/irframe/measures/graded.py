"""Graded families: nDCG (gain 2^rel - 1 by default; ``gain=linear`` is trec_eval's)."""

from __future__ import annotations

import polars as pl

from irframe import kernels as K
from irframe.measures._base import Ctx, Family, Measure, Params, TrecName, register
from irframe.measures._params import GAIN
from irframe.measures.binary import TREC_CUTOFFS

__all__: list[str] = []


def _ndcg(m: Measure, ctx: Ctx) -> pl.Expr:
    gain, k = m.params["gain"], m.cutoff
    ideal = ctx.over_judgments(m, "ideal", K.idcg(gain, k))
    dcg = ctx.over_ranking(m, "dcg", K.dcg(gain, k))
    return pl.when(ideal > 0).then(dcg / ideal).otherwise(0.0)


register(Family(
    "nDCG",
    "normalised discounted cumulative gain; gain=exp (2^rel-1, default) or linear",
    _ndcg, Params((GAIN,)), aliases=("NDCG",),
    trec=(
        TrecName("ndcg", {"gain": "linear"}, groups=("all_trec",)),
        TrecName("ndcg_cut_{k}", {"gain": "linear"}, cutoffs=TREC_CUTOFFS),
    ),
    kind="graded",
    formula=r"nDCG@k = \frac{\sum_{i=1}^{k} gain(g_i) / \log_2(i+1)}{IDCG@k},"
    r"\quad gain(g) = 2^g - 1 \text{ (exp) or } g \text{ (linear)}",
    ir_measures="nDCG(gain=linear)@k is ir_measures' nDCG@k",
    peers="trec_eval, ir_measures and ranx's ndcg use the linear gain; ranx's ndcg_burges and "
    "LightGBM use 2^g - 1. IDCG comes from every judged grade (retrieved or not), cut at k.",
))  # fmt: skip
