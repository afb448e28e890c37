"""Binary-relevance families: a document counts when its grade is at least ``rel``.

P, R, Success, NumRelRet, NumRel, RR, AP, Rprec and Bpref, each with trec_eval's
semantics (``m_P.c``, ``m_recall.c``, ``m_recip_rank.c``, ``m_map.c``, ``m_Rprec.c``,
``m_bpref.c``): unjudged documents are not relevant; R (the denominator of recall, AP
and Rprec) counts every judged relevant document, retrieved or not.
"""

from __future__ import annotations

from typing import cast

import polars as pl

from irframe import kernels as K
from irframe.measures._base import Ctx, Family, Measure, Params, TrecName, register
from irframe.measures._params import JUDGED_ONLY, REL

__all__ = [
    "TREC_CUTOFFS",
    "num_rel",
    "over_r",
    "per_k",
    "positions",
    "present",
    "r_in_ranking",
    "ranked",
    "rel_ret",
    "unjudged",
]

TREC_CUTOFFS = (5.0, 10.0, 15.0, 20.0, 30.0, 100.0, 200.0, 500.0, 1000.0)
_OFFICIAL = ("official", "all_trec")
_COUNTS = ("official", "all_trec", "set")  # trec_eval prints these with every group


def ranked(m: Measure, ctx: Ctx) -> pl.Expr:
    """The ranked grades ``m`` reads: all of them, or only the judged (``judged_only``)."""
    return K.grades(bool(m.params.get("judged_only", False)), ctx.grades)


def num_rel(m: Measure, ctx: Ctx) -> pl.Expr:
    """R: the query's judged relevant documents (grade >= rel)."""
    return ctx.value(Measure("NumRel", rel=m.params["rel"]))


def rel_ret(m: Measure, ctx: Ctx) -> pl.Expr:
    """Relevant documents in the top k (the whole ranking without a cutoff)."""
    return ctx.value(Measure("NumRelRet", m.cutoff, rel=m.params["rel"], judged_only=m.params["judged_only"]))


def over_r(numer: pl.Expr, m: Measure, ctx: Ctx) -> pl.Expr:
    """``numer / R``, and 0 for a query with no relevant document (trec_eval)."""
    r = num_rel(m, ctx)
    return pl.when(r > 0).then(numer / r).otherwise(0.0)


def per_k(numer: pl.Expr, k: int, ctx: Ctx) -> pl.Expr:
    """``numer / k`` by IEEE division, like trec_eval.

    polars divides a column by a scalar as ``numer * (1 / k)`` once it has >= 3 rows
    (3 * 0.2 != 3 / 5), so a query's value would depend on how many queries share the
    frame; dividing by a column is exact.
    """
    return numer / (ctx.n_retrieved() * 0 + float(k))


def present(value: pl.Expr, ctx: Ctx) -> pl.Expr:
    """``value``, and 0 for a query absent from the run (the engine shows it one null row)."""
    return pl.when(ctx.n_retrieved() > 0).then(value).otherwise(0.0)


def unjudged(ctx: Ctx) -> pl.Expr:
    """Boolean: not judged, or a negative grade (trec_eval's labels -1 and -2)."""
    return (ctx.grades < 0).fill_null(True)


def positions() -> pl.Expr:
    """1-based ranks of the query's rows, as Float64."""
    return pl.int_range(1, pl.len() + 1, dtype=pl.UInt32).cast(pl.Float64)


def _numrelret(m: Measure, ctx: Ctx) -> pl.Expr:
    rel = K.relevant(m.params["rel"], ranked(m, ctx)).cast(pl.UInt32)
    return ctx.cumulative(m, "n", rel, m.cutoff)


def _numrel(m: Measure, ctx: Ctx) -> pl.Expr:
    return ctx.over_judgments(m, "R", K.relevant(m.params["rel"], ctx.grades).sum())


def _p(m: Measure, ctx: Ctx) -> pl.Expr:
    return per_k(rel_ret(m, ctx), cast("int", m.cutoff), ctx)  # the family requires a cutoff


def _r(m: Measure, ctx: Ctx) -> pl.Expr:
    return over_r(rel_ret(m, ctx), m, ctx)


def _success(m: Measure, ctx: Ctx) -> pl.Expr:
    return (rel_ret(m, ctx) > 0).cast(pl.Float64)


def _rr(m: Measure, ctx: Ctx) -> pl.Expr:
    # the first relevant rank, over the whole ranking: one column serves every cutoff
    uncut = Measure("RR", rel=m.params["rel"], judged_only=m.params["judged_only"])
    first = ctx.over_ranking(uncut, "first", K.first_relevant(m.params["rel"], ranked(m, ctx)))
    within = first > 0 if m.cutoff is None else (first > 0) & (first <= m.cutoff)
    return pl.when(within).then(1.0 / first).otherwise(0.0)


def _ap(m: Measure, ctx: Ctx) -> pl.Expr:
    t, g = m.params["rel"], ranked(m, ctx)
    return over_r(ctx.cumulative(m, "sum", lambda n: K.ap_terms(t, K.top(g, n)), m.cutoff), m, ctx)


def r_in_ranking(m: Measure, ctx: Ctx) -> pl.Expr:
    """R (the judged relevant documents) for use inside ranking kernels."""
    t = m.params["rel"]
    return ctx.judgments_in_ranking(Measure("NumRel", rel=t), "R", K.relevant(t, ctx.grades).sum())


def _rprec(m: Measure, ctx: Ctx) -> pl.Expr:
    r = r_in_ranking(m, ctx)
    return over_r(ctx.over_ranking(m, "hits", K.rprec_hits(m.params["rel"], r, ranked(m, ctx))), m, ctx)


def _bpref(m: Measure, ctx: Ctx) -> pl.Expr:
    t = m.params["rel"]
    clipped = ctx.over_ranking(m, "clipped", K.bpref_clipped(t, r_in_ranking(m, ctx), ranked(m, ctx)))
    # N: judged non-relevant (grade in [0, rel)); min(N, R) >= 1 wherever clipped > 0
    n = ctx.over_judgments(Measure("NumRel", rel=t), "N", K.judged_nonrelevant(t, ctx.grades).sum())
    denom = pl.min_horizontal(n, num_rel(m, ctx))
    uncut = Measure("NumRelRet", rel=t, judged_only=m.params["judged_only"])
    numer = ctx.value(uncut) - pl.when(clipped == 0).then(0.0).otherwise(clipped / denom)
    return over_r(numer, m, ctx)


_REL = Params((REL, JUDGED_ONLY))
_REL_ONLY = Params((REL,))

register(Family(
    "P", "precision: relevant in the top k, divided by k", _p, _REL, "required",
    aliases=("Precision",), trec=(TrecName("P_{k}", cutoffs=TREC_CUTOFFS, groups=_OFFICIAL),),
    formula=r"P@k = \frac{1}{k} \sum_{i=1}^{k} [g_i \ge rel]", ir_measures="P@k",
    peers="Short rankings count k (trec_eval, ir_measures, ranx); torchmetrics' adaptive_k divides by n.",
))  # fmt: skip
register(Family(
    "R", "recall: relevant in the top k, divided by all judged relevant", _r, _REL,
    aliases=("Recall",), trec=(TrecName("recall_{k}", cutoffs=TREC_CUTOFFS),),
    formula=r"R@k = \frac{1}{R} \sum_{i=1}^{k} [g_i \ge rel]", ir_measures="R@k",
    peers="R counts judged relevant documents the run never returned (all peers agree).",
))  # fmt: skip
register(Family(
    "RR", "reciprocal rank of the first relevant document (within k)", _rr, _REL,
    aliases=("MRR",), trec=(TrecName("recip_rank", groups=_OFFICIAL),),
    formula=r"RR = 1 / \min\{i : g_i \ge rel\}", ir_measures="RR",
    peers="trec_eval has no cutoff variant (RR@10 needs -M10).",
))  # fmt: skip
register(Family(
    "AP", "average precision (within k), divided by all judged relevant", _ap, _REL,
    aliases=("MAP",),
    trec=(TrecName("map", groups=_OFFICIAL), TrecName("map_cut_{k}", cutoffs=TREC_CUTOFFS)),
    formula=r"AP@k = \frac{1}{R} \sum_{i \le k,\, g_i \ge rel} P@i", ir_measures="AP",
    peers="torchmetrics divides by the relevant documents in the top k instead of R.",
))  # fmt: skip
register(Family(
    "Rprec", "precision at rank R, R = judged relevant", _rprec, _REL, "none",
    aliases=("RPrec",), trec=(TrecName("Rprec", groups=_OFFICIAL),),
    formula=r"Rprec = \frac{1}{R} \sum_{i=1}^{R} [g_i \ge rel]", ir_measures="Rprec",
))  # fmt: skip
register(Family(
    "Bpref", "binary preference (judged documents only)", _bpref, _REL, "none",
    aliases=("BPref",), trec=(TrecName("bpref", groups=_OFFICIAL),),
    formula=r"bpref = \frac{1}{R} \sum_{r} \left(1 - \frac{\min(n_r, R)}{\min(N, R)}\right)",
    ir_measures="Bpref",
    peers="Unjudged documents and negative grades are skipped (trec_eval).",
))  # fmt: skip
register(Family(
    "Success", "1 if a relevant document is in the top k (the whole ranking without k), else 0", _success,
    _REL,
    aliases=("Hit", "HitRate"), trec=(TrecName("success_{k}", cutoffs=(1.0, 5.0, 10.0)),),
    formula=r"Success@k = [\exists i \le k : g_i \ge rel]", ir_measures="Success@k",
    peers="ranx calls it hit_rate (hit_rate without @k is Success over the whole ranking); ranx's "
    "hits@k is NumRelRet@k. trec_eval has success_1, success_5, success_10 only.",
))  # fmt: skip
register(Family(
    "NumRelRet", "number of relevant retrieved documents (within k)", _numrelret, _REL,
    trec=(TrecName("num_rel_ret", groups=_COUNTS),), aggregate="mean", trec_total="sum", kind="counts",
    formula=r"\sum_{i \le k} [g_i \ge rel]", ir_measures="NumRelRet",
))  # fmt: skip
register(Family(
    "NumRel", "number of judged relevant documents", _numrel, _REL_ONLY, "none",
    trec=(TrecName("num_rel", groups=_COUNTS),), trec_total="sum", kind="counts",
    formula=r"R = |\{d : g_d \ge rel\}|", ir_measures="NumRel",
))  # fmt: skip
