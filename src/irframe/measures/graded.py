"""Graded families: DCG, its ideal IDCG, nDCG, RBP and its residual (``m_rbp.c``, ``m_rbp_resid.c``).

RBP also has the binary form of ir_measures and cwl-eval (``rel``) and the raw grades of ranx
(``gain=linear``).

The gain is 2^rel - 1 by default; ``gain=linear`` (rel) is trec_eval's.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import polars as pl

from irframe import kernels as K
from irframe.exceptions import InvalidParameterError
from irframe.measures._base import Ctx, Family, Measure, Params, TrecName, number_param, register
from irframe.measures._params import GAIN, JUDGED_ONLY, REL, bool_param, choice_param, optional_number
from irframe.measures.binary import TREC_CUTOFFS, present, ranked, unjudged

__all__: list[str] = []


def _dcg(m: Measure, ctx: Ctx) -> pl.Expr:
    gain, g = m.params["gain"], ranked(m, ctx)
    return ctx.cumulative(m, "dcg", lambda n: K.discounted(gain, K.top(g, n), n), m.cutoff)


def _idcg(m: Measure, ctx: Ctx) -> pl.Expr:
    # each query's positive gains (a list, shared by every cutoff), sorted in descending order
    uncut = Measure("IDCG", gain=m.params["gain"])
    gains = ctx.judged_list(uncut, "gains", K.positive_gains(m.params["gain"], ctx.grades))
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


def _rbp_gains(m: Measure, ctx: Ctx) -> pl.Expr:
    """Per ranked document, the gain RBP weighs (unjudged and negative grades gain 0).

    gain=scaled: without rel, the grade over the query's top judged grade when that is above 1
    (trec_eval); with rel, 1 for a grade >= rel (ir_measures, cwl-eval). gain=linear: the grade
    itself (ranx, trectools), only where it is >= rel when rel is set.
    """
    rel, how = m.params["rel"], m.params["gain"]
    grade = ctx.grades
    if rel is not None:
        hit = (grade >= float(rel)).fill_null(False)
        return pl.when(hit).then(grade if how == "linear" else pl.lit(1.0)).otherwise(0.0)
    g = pl.when(grade >= 0).then(grade).otherwise(0.0).fill_null(0.0)
    if how == "linear":
        return g
    key = Measure("NumRel")
    top = ctx.judgments_in_ranking(key, "gmax", grade.filter(grade >= 0).max().fill_null(0))
    top = top.cast(pl.Float64)
    return pl.when(top > 1).then(g / top).otherwise(g)  # trec_eval rescales the grades into [0, 1]


def _rbp(m: Measure, ctx: Ctx) -> pl.Expr:
    p = float(m.params["p"])
    if m.params["residual"]:
        # cwl-eval's residual: unjudged documents and the unseen ranks below the run gain 1
        unj = ctx.grades.is_null()
        resid = _powers(p).last() + (1.0 - p) * _weights(p).filter(unj).sum()
        return present(ctx.over_ranking(m, "resid", resid.clip(upper_bound=1.0)), ctx)
    total = ctx.over_ranking(m, "sum", (_rbp_gains(m, ctx) * _weights(p)).sum())
    return present((1.0 - p) * total, ctx)


def _rbp_resid(m: Measure, ctx: Ctx) -> pl.Expr:
    p = float(m.params["p"])
    unj = unjudged(ctx)
    # at most 1 (all unjudged: p^n + (1-p)(1 + ... + p^(n-1)) = 1); the sum can round 1 ulp above
    resid = (_powers(p).last() + (1.0 - p) * _weights(p).filter(unj).sum()).clip(upper_bound=1.0)
    value = ctx.over_ranking(m, "resid", pl.when(unj.any()).then(resid).otherwise(0.0))
    return present(value, ctx)


P_PARAM = number_param(
    "p", 0.8, "persistence: chance of looking at the next document", low=0, high=1, closed="left"
)
RBP_REL = optional_number(
    dataclasses.replace(REL, doc="binary RBP: a grade >= rel gains 1 (ir_measures' RBP(rel=r), cwl-eval); "
                        "not set: graded (see gain)")
)  # fmt: skip
RBP_GAIN = choice_param(
    "gain", ("scaled", "linear"),
    "RBP's gain of a grade: scaled, gains in [0, 1] (without rel the grade over the query's top "
    "judged grade, as trec_eval; with rel 1 or 0); linear: the grade itself (ranx's rbp, trectools; "
    "with rel only grades >= rel)",
)  # fmt: skip
RESIDUAL = bool_param(
    "residual", False, "the residual instead of the value: what unjudged documents and the ranks "
    "below the run could add at most (cwl-eval's ResEU)",
)  # fmt: skip


def _check_rbp(values: Mapping[str, object], source: str) -> None:
    if values["residual"] and values["gain"] == "linear":
        msg = (
            f"{source!r}: RBP(gain=linear) has no residual (raw grades have no top gain for an "
            "unjudged document). Hint: RBP(rel=1,residual=True) is cwl-eval's residual of the binary "
            "RBP, RBP(residual=True) of the scaled one; RBPResid is trec_eval's rbp_resid."
        )
        raise InvalidParameterError(msg)


register(Family(
    "RBP", "rank-biased precision: binary with rel, else graded (scaled into [0, 1], or linear)", _rbp,
    Params((P_PARAM, RBP_REL, RBP_GAIN, RESIDUAL)), "none", trec=(TrecName("rbp", {"p": 0.9}),),
    kind="graded", check=_check_rbp,
    formula=r"(1-p) \sum_i gain_i\, p^{i-1},\quad gain_i = \frac{g_i}{g_{max}} \text{ (scaled)},\ "
    r"[g_i \ge rel] \text{ (rel)},\ g_i \text{ (linear)}",
    ir_measures="RBP(rel=r) is ir_measures' RBP(rel=r); RBP(gain=linear) its RBP without rel",
    peers="Default p = 0.8 as ir_measures; trec_eval's rbp is RBP(p=0.9): grades divided by the "
    "query's highest judged grade when it is above 1, and -l does not change it (irframe's --rel "
    "leaves RBP alone too). ir_measures' RBP(rel=r) (computed by cwl-eval) is RBP(rel=r): cwl-eval "
    "stops at rank 1000 and divides by 1 - p^1000 (a relative 1e-9 at p = 0.979). ranx's rbp.80 is "
    "RBP(rel=1,gain=linear) (raw grades >= its rel_lvl), ir_measures' RBP without rel (trectools) "
    "RBP(gain=linear), except that trectools averages the weights of tied scores. With grades 1, 2, 0 "
    "and p = 0.8: RBP 0.26, RBP(rel=1) 0.36, RBP(rel=2) 0.16, RBP(gain=linear) 0.52. "
    "residual=True counts only documents without a judgment as unjudged (a negative grade gains 0, "
    "as ir_measures clips it) and always counts the tail p^n; trec_eval's rbp_resid (RBPResid) also "
    "treats negative grades as unjudged and is 0 when every retrieved document is judged.",
))  # fmt: skip
register(Family(
    "RBPResid", "RBP's residual: the most unjudged documents could add (0 when none retrieved)",
    _rbp_resid, Params((P_PARAM,)), "none", trec=(TrecName("rbp_resid", {"p": 0.9}),), kind="graded",
    formula=r"p^n + (1-p) \sum_{i\ \text{unjudged}} p^{i-1}",
    peers="trec_eval's rbp_resid is RBPResid(p=0.9); it is 0 when every retrieved document is judged "
    "(the unseen tail p^n is then not counted) and for a query absent from the run.",
))  # fmt: skip
