"""Measures torchmetrics' retrieval module has and trec_eval lacks: FallOut, AUROC, APRet; and
ir_measures' Accuracy (AUROC's pairs, read as ir_measures reads them).

``m_*.c`` has none of them (trec_eval 10.0 has no fall-out), nor do ir_measures and ranx.  A
document is relevant when its grade is at least ``rel``; non-relevant for fall-out means
judged below ``rel`` (0 <= grade < rel), for AUROC every other retrieved document (unjudged
ones too: torchmetrics has a target for each).  A query absent from the run is 0.
"""

from __future__ import annotations

import polars as pl

from irframe import kernels as K
from irframe.measures._base import Ctx, Family, Measure, Params, register
from irframe.measures._params import JUDGED_ONLY, REL
from irframe.measures.binary import ranked

__all__: list[str] = []

_REL = Params((REL, JUDGED_ONLY))


def _fallout(m: Measure, ctx: Ctx) -> pl.Expr:
    t, g = m.params["rel"], ranked(m, ctx)

    def terms(n: int | None) -> pl.Expr:
        return K.judged_nonrelevant(t, K.top(g, n)).cast(pl.UInt32)

    hits = ctx.cumulative(m, "nonrel", terms, m.cutoff)
    total = ctx.over_judgments(Measure("NumRel", rel=t), "N", K.judged_nonrelevant(t, ctx.grades).sum())
    return pl.when(total > 0).then(hits / total).otherwise(0.0)


def _auroc_kernel(t: float, g: pl.Expr, only_relevant: float = 0.0) -> pl.Expr:
    """The share of (relevant, other) pairs in ranking order; 0 without a relevant document,
    ``only_relevant`` when every document is relevant (no pair either way)."""
    rel = K.relevant(t, g).cast(pl.Float64)
    pos = rel.sum()
    neg = rel.len().cast(pl.Float64) - pos
    above = (rel.cum_sum() * (1.0 - rel)).sum()  # per non-relevant: the relevant ranked above it
    ratio = pl.when(neg > 0).then(above / (pos * neg)).otherwise(only_relevant)
    return pl.when(pos > 0).then(ratio).otherwise(0.0)


def _auroc(m: Measure, ctx: Ctx) -> pl.Expr:
    g = K.top(ranked(m, ctx), m.cutoff)
    return ctx.over_ranking(m, "auc", _auroc_kernel(m.params["rel"], g))


def _accuracy(m: Measure, ctx: Ctx) -> pl.Expr:
    g = K.top(ranked(m, ctx), m.cutoff)
    return ctx.over_ranking(m, "acc", _auroc_kernel(m.params["rel"], g, only_relevant=1.0))


def _apret(m: Measure, ctx: Ctx) -> pl.Expr:
    t, jo, g = m.params["rel"], m.params["judged_only"], ranked(m, ctx)
    # AP's own sum (the column is shared with AP@k), over the relevant documents in the top k
    total = ctx.cumulative(
        Measure("AP", m.cutoff, rel=t, judged_only=jo), "sum", lambda n: K.ap_terms(t, K.top(g, n)), m.cutoff
    )
    found = ctx.value(Measure("NumRelRet", m.cutoff, rel=t, judged_only=jo))
    return pl.when(found > 0).then(total / found).otherwise(0.0)


register(Family(
    "FallOut", "fall-out: judged non-relevant documents in the top k over all judged non-relevant",
    _fallout, _REL, aliases=("Fallout",),
    formula=r"FallOut@k = \frac{|\{i \le k : 0 \le g_i < rel\}|}{|\{d : 0 \le g_d < rel\}|}",
    peers="torchmetrics' RetrievalFallOut(top_k=k) (every document of a query has a target there, so its "
    "non-relevant are the judged ones); 0 for a query without a judged non-relevant document "
    "(torchmetrics: 0 too, or skipped by empty_target_action). Unjudged documents and negative grades "
    "are neither, as bpref's N.",
))  # fmt: skip
register(Family(
    "AUROC", "area under the ROC curve of the top k: the share of (relevant, other) pairs in order",
    _auroc, _REL,
    formula=r"AUROC@k = \frac{|\{(i, j) : i < j \le k,\ g_i \ge rel,\ g_j \not\ge rel\}|}"
    r"{|\{i \le k : g_i \ge rel\}| \cdot |\{j \le k : g_j \not\ge rel\}|}",
    peers="scikit-learn's roc_auc_score per query over the retrieved documents (torchmetrics' "
    "RetrievalAUROC, top_k: the top k only); relevant documents never retrieved do not count. Tied "
    "scores are in irframe's ranking order (trec_eval's tie-break), where scikit-learn counts a "
    "tied pair as half. 0 when the top k has no relevant or no other document (torchmetrics).",
))  # fmt: skip
register(Family(
    "APRet", "AP over the relevant documents retrieved in the top k (torchmetrics' MAP@k)", _apret, _REL,
    aliases=("RetrievalMAP",),
    formula=r"APRet@k = \frac{\sum_{i \le k,\, g_i \ge rel} P@i}{|\{i \le k : g_i \ge rel\}|}",
    peers="torchmetrics' RetrievalMAP(top_k=k) and scikit-learn's average_precision_score of the top k; "
    "AP@k (trec_eval's map_cut_k) divides the same sum by every judged relevant document, R. "
    "0 when no relevant document is in the top k.",
))  # fmt: skip
register(Family(
    "Accuracy", "ir_measures' Accuracy: the share of (relevant, non-relevant) pairs of the top k in order",
    _accuracy, _REL,
    formula=r"Accuracy@k = \frac{|\{(i, j) : i < j \le k,\ g_i \ge rel,\ g_j \not\ge rel\}|}"
    r"{|\{i \le k : g_i \ge rel\}| \cdot |\{j \le k : g_j \not\ge rel\}|}",
    ir_measures="Accuracy",
    peers="ir_measures' Accuracy (its accuracy provider): the probability that a relevant retrieved "
    "document is ranked above a non-relevant (or unjudged) one. A query with no relevant document in the "
    "top k is 0 here (a miss, as every measure counts one); ir_measures reports no value for it and leaves "
    "it out of its mean (as it leaves out queries absent from the run). A top k of relevant documents only "
    "is 1.0 (every pair in order; ir_measures divides by zero). AUROC is the same share with 0 there "
    "(torchmetrics).",
))  # fmt: skip
