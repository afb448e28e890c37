"""More binary-relevance families of trec_eval: RprecMult, RelP, binG and infAP.

``m_Rprec_mult.c``, ``m_relative_P.c``, ``m_binG.c``, ``m_infAP.c``: a document is
relevant when its grade is at least ``rel``; R counts every judged relevant document.
A query absent from the run is 0 (trec_eval -c).
"""

from __future__ import annotations

from typing import cast

import polars as pl

from irframe import kernels as K
from irframe.measures._base import Ctx, Family, Measure, Params, TrecName, number_param, register
from irframe.measures._params import JUDGED_ONLY, REL
from irframe.measures.binary import TREC_CUTOFFS, present, r_in_ranking, ranked

__all__: list[str] = []

INFAP_EPSILON = 1e-5
_REL = Params((REL, JUDGED_ONLY))


def _rprec_mult(m: Measure, ctx: Ctx) -> pl.Expr:
    t, x = m.params["rel"], float(m.params["mult"])
    r = r_in_ranking(m, ctx)
    c = (x * r.fill_null(0).cast(pl.Float64) + 0.9).floor()  # (long)(x R + 0.9), as trec_eval
    hits = K.relevant(t, ranked(m, ctx)).head(c.cast(pl.Int64)).sum().cast(pl.Float64)
    value = ctx.over_ranking(m, "p", pl.when(c > 0).then(hits / c).otherwise(0.0))
    return present(value, ctx)


def _relp(m: Measure, ctx: Ctx) -> pl.Expr:
    k = float(cast("int", m.cutoff))  # the family requires a cutoff
    r = ctx.value(Measure("NumRel", rel=m.params["rel"]))
    hits = ctx.value(Measure("NumRelRet", m.cutoff, rel=m.params["rel"], judged_only=m.params["judged_only"]))
    return pl.when(r > 0).then(hits / pl.min_horizontal(r, ctx.n_retrieved() * 0.0 + k)).otherwise(0.0)


def _bing(m: Measure, ctx: Ctx) -> pl.Expr:
    g = ranked(m, ctx)
    b = K.relevant(m.params["rel"], g)
    nonrel_above = K.positions(g).cast(pl.Float64) - b.cast(pl.Float64).cum_sum()
    term = pl.when(b).then(1.0 / (nonrel_above + 2.0).log(2)).otherwise(0.0)
    total = ctx.over_ranking(m, "sum", term.sum())
    r = ctx.value(Measure("NumRel", rel=m.params["rel"]))
    return present(pl.when(r > 0).then(total / r).otherwise(0.0), ctx)


def _infap_sum(t: float, rel: pl.Expr) -> pl.Expr:
    is_rel = (rel >= t).fill_null(False)
    f = is_rel.cast(pl.Float64)
    nonrel = ((rel >= 0) & (rel < t)).fill_null(False).cast(pl.Float64)
    pooled = (rel < 0).fill_null(False).cast(pl.Float64)  # in the qrels, negative grade
    rel_above = f.cum_sum() - f
    nonrel_above = nonrel.cum_sum() - nonrel
    pooled_above = pooled.cum_sum() - pooled
    j = K.positions(rel).cast(pl.Float64) - 1.0
    term = 1.0 / (j + 1.0) + (j / (j + 1.0)) * ((rel_above + nonrel_above + pooled_above) / j) * (
        (rel_above + INFAP_EPSILON) / (rel_above + nonrel_above + 2 * INFAP_EPSILON)
    )
    return pl.when(is_rel).then(pl.when(j == 0).then(1.0).otherwise(term)).otherwise(0.0).sum()


def _infap(m: Measure, ctx: Ctx) -> pl.Expr:
    total = ctx.over_ranking(m, "sum", _infap_sum(m.params["rel"], ranked(m, ctx)))
    r = ctx.value(Measure("NumRel", rel=m.params["rel"]))
    return present(pl.when(r > 0).then(total / r).otherwise(0.0), ctx)


register(Family(
    "RprecMult", "precision at rank floor(mult R + 0.9), R = judged relevant", _rprec_mult,
    Params((REL, number_param("mult", 1, "multiple of R at which precision is taken", low=0), JUDGED_ONLY)),
    "none",
    trec=(TrecName("Rprec_mult_{mult}", cutoffs=tuple(i / 10 for i in range(2, 21, 2))),),
    formula=r"P@c,\ c = \lfloor mult \cdot R + 0.9 \rfloor",
    peers="trec_eval truncates mult R + 0.9 (iprec_at_recall rounds); ranks past the run count non-relevant.",
))  # fmt: skip
register(Family(
    "RelP", "relative precision: relevant in the top k over min(k, R)", _relp, _REL, "required",
    trec=(TrecName("relative_P_{k}", cutoffs=TREC_CUTOFFS),),
    formula=r"\frac{|\{i \le k : g_i \ge rel\}|}{\min(k, R)}",
))  # fmt: skip
register(Family(
    "binG", "binary G: mean over relevant documents of 1 / log2(2 + non-relevant ranked above)",
    _bing, _REL, "none", trec=(TrecName("binG"),),
    formula=r"\frac{1}{R} \sum_{i : g_i \ge rel} \frac{1}{\log_2(2 + |\{j < i : g_j < rel\}|)}",
))  # fmt: skip
register(Family(
    "infAP", "inferred AP (Yilmaz and Aslam): AP estimated from a sampled judgment pool", _infap,
    _REL, "none", trec=(TrecName("infAP"),), ir_measures="infAP",
    peers="Negative grades mark pooled but unjudged documents; unpooled documents count as non-relevant.",
))  # fmt: skip
