"""Graded families: DCG, its ideal IDCG, nDCG, RBP and its residual (``m_rbp.c``, ``m_rbp_resid.c``).

The gain is 2^rel - 1 by default; ``gain=linear`` (rel) is trec_eval's.
"""

from __future__ import annotations

import polars as pl

from irframe import kernels as K
from irframe.measures._base import Ctx, Family, Measure, Params, TrecName, number_param, register
from irframe.measures._params import GAIN, JUDGED_ONLY
from irframe.measures.binary import TREC_CUTOFFS, present, ranked, unjudged

__all__: list[str] = []


def _dcg(m: Measure, ctx: Ctx) -> pl.Expr:
    gain, g = m.params["gain"], ranked(m)
    return ctx.cumulative(m, "dcg", lambda n: K.discounted(gain, K.top(g, n), n), m.cutoff)


def _idcg(m: Measure, ctx: Ctx) -> pl.Expr:
    # each query's positive gains (a list, shared by every cutoff), sorted in descending order
    uncut = Measure("IDCG", gain=m.params["gain"])
    gains = ctx.judged_list(uncut, "gains", K.positive_gains(m.params["gain"]))
    return ctx.per_query_cumulative(m, "ideal", lambda n: K.ideal_dcg_terms(gains, n), m.cutoff)


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


def _powers(p: float) -> pl.Expr:
    """p^i at rank i, by repeated multiplication (as trec_eval's running product)."""
    return pl.repeat(p, pl.len(), dtype=pl.Float64).cum_prod()


def _weights(p: float) -> pl.Expr:
    """p^(i-1) at rank i."""
    return _powers(p).shift(1, fill_value=1.0)


def _rbp(m: Measure, ctx: Ctx) -> pl.Expr:
    p = float(m.params["p"])
    key = Measure("NumRel")
    top = ctx.judgments_in_ranking(key, "gmax", pl.col(K.REL).filter(pl.col(K.REL) >= 0).max().fill_null(0))
    g = pl.when(pl.col(K.REL) >= 0).then(pl.col(K.REL)).otherwise(0.0).fill_null(0.0)
    top = top.cast(pl.Float64)
    g = pl.when(top > 1).then(g / top).otherwise(g)  # trec_eval rescales the grades into [0, 1]
    total = ctx.over_ranking(m, "sum", (g * _weights(p)).sum())
    return present((1.0 - p) * total, ctx)


def _rbp_resid(m: Measure, ctx: Ctx) -> pl.Expr:
    p = float(m.params["p"])
    unj = unjudged()
    # at most 1 (all unjudged: p^n + (1-p)(1 + ... + p^(n-1)) = 1); the sum can round 1 ulp above
    resid = (_powers(p).last() + (1.0 - p) * _weights(p).filter(unj).sum()).clip(upper_bound=1.0)
    value = ctx.over_ranking(m, "resid", pl.when(unj.any()).then(resid).otherwise(0.0))
    return present(value, ctx)


P_PARAM = number_param(
    "p", 0.8, "persistence: chance of looking at the next document", low=0, high=1, closed="left"
)

register(Family(
    "RBP", "rank-biased precision (grades rescaled into [0, 1] by the query's top judged grade)", _rbp,
    Params((P_PARAM,)), "none", trec=(TrecName("rbp", {"p": 0.9}),), kind="graded",
    formula=r"(1-p) \sum_i \frac{g_i}{g_{max}} p^{i-1}", ir_measures="RBP(p=0.8)",
    peers="Default p = 0.8 as ir_measures; trec_eval's rbp is RBP(p=0.9). Grades are divided by the "
    "query's highest judged grade when it is above 1 (trec_eval); unjudged and negative grades gain 0.",
))  # fmt: skip
register(Family(
    "RBPResid", "RBP's residual: the most unjudged documents could add (0 when none retrieved)",
    _rbp_resid, Params((P_PARAM,)), "none", trec=(TrecName("rbp_resid", {"p": 0.9}),), kind="graded",
    formula=r"p^n + (1-p) \sum_{i\ \text{unjudged}} p^{i-1}",
    peers="trec_eval's rbp_resid is RBPResid(p=0.9); it is 0 when every retrieved document is judged "
    "(the unseen tail p^n is then not counted) and for a query absent from the run.",
))  # fmt: skip
