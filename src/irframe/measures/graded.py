"""Graded families: DCG, its ideal IDCG and nDCG.

The gain is 2^rel - 1 by default; ``gain=linear`` (rel) is trec_eval's.
"""

from __future__ import annotations

import polars as pl

from irframe import kernels as K
from irframe.measures._base import Ctx, Family, Measure, Params, TrecName, register
from irframe.measures._params import GAIN, JUDGED_ONLY
from irframe.measures.binary import TREC_CUTOFFS, ranked

__all__: list[str] = []


def _dcg(m: Measure, ctx: Ctx) -> pl.Expr:
    return ctx.cumulative(m, "dcg", K.discounted(m.params["gain"], ranked(m)), m.cutoff)


def _idcg(m: Measure, ctx: Ctx) -> pl.Expr:
    return ctx.cumulative(m, "ideal", K.ideal_discounted(m.params["gain"]), m.cutoff, judgments=True)


def _ndcg(m: Measure, ctx: Ctx) -> pl.Expr:
    gain, k = m.params["gain"], m.cutoff
    ideal = ctx.value(Measure("IDCG", k, gain=gain))
    dcg = ctx.value(Measure("DCG", k, gain=gain, judged_only=m.params["judged_only"]))
    return pl.when(ideal > 0).then(dcg / ideal).otherwise(0.0)


_FORMULA_GAIN = r"\quad gain(g) = 2^g - 1 \text{ (exp) or } g \text{ (linear)}"

register(Family(
    "nDCG",
    "normalised discounted cumulative gain; gain=exp (2^rel-1, default) or linear",
    _ndcg, Params((GAIN, JUDGED_ONLY)), aliases=("NDCG",),
    trec=(
        TrecName("ndcg", {"gain": "linear"}, groups=("all_trec",)),
        TrecName("ndcg_cut_{k}", {"gain": "linear"}, cutoffs=TREC_CUTOFFS),
    ),
    kind="graded",
    formula=r"nDCG@k = \frac{\sum_{i=1}^{k} gain(g_i) / \log_2(i+1)}{IDCG@k}," + _FORMULA_GAIN,
    ir_measures="nDCG(gain=linear)@k is ir_measures' nDCG@k",
    peers="trec_eval, ir_measures and ranx's ndcg use the linear gain; ranx's ndcg_burges and "
    "LightGBM use 2^g - 1. IDCG comes from every judged grade (retrieved or not), cut at k.",
))  # fmt: skip
register(Family(
    "DCG",
    "discounted cumulative gain, unnormalised: sum of gain / log2(rank + 1) over the top k",
    _dcg, Params((GAIN, JUDGED_ONLY)),
    trec=(TrecName("dcg", {"gain": "linear"}, groups=()),),
    kind="graded",
    formula=r"DCG@k = \sum_{i=1}^{k} gain(g_i) / \log_2(i+1)," + _FORMULA_GAIN,
    ir_measures="-",
    peers="trec_eval 10.0's dcg (in no measure group) is DCG(gain=linear) without a cutoff; "
    "ranx's dcg is the linear gain, dcg_burges 2^g - 1.",
))  # fmt: skip
register(Family(
    "IDCG",
    "ideal DCG: the DCG of the query's judged documents in the best order (top k)",
    _idcg, Params((GAIN,)),
    trec=(TrecName("ideal_dcg", {"gain": "linear"}, groups=()),),
    kind="graded",
    formula=r"IDCG@k = \sum_{i=1}^{k} gain(\hat g_i) / \log_2(i+1),"
    r"\ \hat g \text{ the positive gains sorted}",
    ir_measures="-",
    peers="trec_eval 10.0's ideal_dcg (in no measure group) is IDCG(gain=linear) without a cutoff; "
    "it does not depend on the run (a query missing from the run keeps its IDCG).",
))  # fmt: skip
