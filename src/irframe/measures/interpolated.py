"""Interpolated precision: IPrec at a recall level and its 11-point average.

trec_eval's ``iprec_at_recall`` and ``11pt_avg`` (``m_iprec_at_recall.c``,
``m_11pt_avg.c``): the interpolated precision at rank i is the best precision at any
rank >= i; at recall level x it is read at the rank of the c-th relevant document,
c = lround(x R) (rank 1 for c = 0), and is 0 when fewer than c relevant documents
were retrieved.
"""

from __future__ import annotations

import polars as pl

from irframe import kernels as K
from irframe.measures._base import Ctx, Family, Measure, Params, TrecName, number_param, register
from irframe.measures._params import JUDGED_ONLY, REL
from irframe.measures.binary import r_in_ranking, ranked

__all__: list[str] = []

ELEVEN = tuple(i / 10 for i in range(11))


def lround(x: pl.Expr) -> pl.Expr:
    """C's ``lround`` for x >= 0: halves round up, decided exactly (no x + 0.5)."""
    whole = x.floor()
    return whole + ((x - whole) >= 0.5).cast(pl.Float64)


def iprec_kernel(t: float, recall: float, r: pl.Expr, g: pl.Expr = K.GRADES) -> pl.Expr:
    """Interpolated precision at recall ``recall`` over the ranked grades ``g`` (R = ``r``)."""
    hits = K.relevant(t, g).cast(pl.Float64)
    seen = hits.cum_sum()
    positions = K.positions(g).cast(pl.Float64)
    best_from_here = (seen / positions).reverse().cum_max().reverse()
    c = lround(recall * r.fill_null(0).cast(pl.Float64))
    return best_from_here.filter(seen >= c).first().fill_null(0.0)


def _iprec(m: Measure, ctx: Ctx) -> pl.Expr:
    t, x = m.params["rel"], float(m.params["recall"])
    r = r_in_ranking(m, ctx)
    value = ctx.over_ranking(m, "ip", iprec_kernel(t, x, r, ranked(m, ctx)))
    return pl.when(ctx.n_retrieved() > 0).then(value).otherwise(0.0)


def _iprec_avg(m: Measure, ctx: Ctx) -> pl.Expr:
    t = m.params["rel"]
    total: pl.Expr = pl.lit(0.0)
    for x in reversed(ELEVEN):  # trec_eval adds from the highest recall level down
        total = total + ctx.value(Measure("IPrec", rel=t, recall=x, judged_only=m.params["judged_only"]))
    return total / (ctx.n_retrieved() * 0.0 + float(len(ELEVEN)))  # IEEE division, see binary.per_k


RECALL = number_param("recall", 0, "recall level in [0, 1] at which precision is interpolated", low=0, high=1)

register(Family(
    "IPrec", "interpolated precision at a recall level (best precision at any rank reaching it)",
    _iprec, Params((REL, RECALL, JUDGED_ONLY)), "none", at_param="recall",
    trec=(TrecName("iprec_at_recall_{recall}", cutoffs=ELEVEN, groups=("official", "all_trec")),),
    formula=r"IPrec(x) = \max_{i \ge i_c} P@i,\ i_c = \text{rank of the } c\text{-th relevant},\ c = "
    r"\mathrm{lround}(xR)",
    ir_measures="IPrec@0.1",
    peers="IPrec@0.1 is IPrec(recall=0.1): the value after @ is the recall level, not a rank cutoff. "
    "trec_eval 10.0 rounds xR to the nearest (lround); 9.x used (long)(xR + 0.9). A query that "
    "retrieved nothing is 0 (trec_eval -J prints nan there).",
))  # fmt: skip
register(Family(
    "IPrecAvg", "11-point interpolated precision: mean of IPrec at recall 0, 0.1, ..., 1",
    _iprec_avg, Params((REL, JUDGED_ONLY)), "none", aliases=("IPrec11",), trec=(TrecName("11pt_avg"),),
    formula=r"\frac{1}{11} \sum_{x \in \{0, 0.1, \dots, 1\}} IPrec(x)",
))  # fmt: skip
