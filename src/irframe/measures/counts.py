"""Families that count what was retrieved or judged: NumRet, Judged, NumQ and Unjudged."""

from __future__ import annotations

from typing import cast

import polars as pl

from irframe import kernels as K
from irframe.measures._base import Ctx, Family, Measure, Params, TrecName, register
from irframe.measures._params import JUDGED_ONLY
from irframe.measures.binary import per_k, present, ranked, unjudged

__all__: list[str] = []


def shown(m: Measure, ctx: Ctx) -> pl.Expr:
    """Documents in the top k that exist: min(k, retrieved) (judged ones for ``judged_only``)."""
    if m.params["judged_only"]:
        uncut = Measure("NumRet", judged_only=True)
        n = ctx.over_ranking(uncut, "n", ranked(m, ctx).len())
    else:
        n = ctx.n_retrieved()
    return n if m.cutoff is None else n.clip(upper_bound=m.cutoff)


def _numret(m: Measure, ctx: Ctx) -> pl.Expr:
    return shown(m, ctx)


def _judged(m: Measure, ctx: Ctx) -> pl.Expr:
    top = shown(m, ctx)
    judged = ctx.cumulative(m, "n", K.judged(ranked(m, ctx)).cast(pl.UInt32), m.cutoff)
    return pl.when(top > 0).then(judged / top).otherwise(0.0)


register(Family(
    "NumRet", "number of retrieved documents (within k)", _numret, Params((JUDGED_ONLY,)),
    trec=(TrecName("num_ret", groups=("official", "all_trec", "set")),), trec_total="sum", kind="counts",
    formula=r"\min(k, n)", ir_measures="NumRet",
))  # fmt: skip
register(Family(
    "Judged", "fraction of the top k retrieved that is judged (over min(k, retrieved), as ir_measures)",
    _judged, Params((JUDGED_ONLY,)), kind="counts",
    formula=r"\frac{|\{i \le k : d_i \text{ judged}\}|}{\min(k, n)}",
    ir_measures="Judged@k", peers="trec_eval's unj_k is about the unjudged and divides by k.",
))  # fmt: skip


def _numq(m: Measure, ctx: Ctx) -> pl.Expr:
    return ctx.n_retrieved() * 0.0 + 1.0


def _unj(m: Measure, ctx: Ctx) -> pl.Expr:
    k = cast("int", m.cutoff)  # the family requires a cutoff
    n = ctx.over_ranking(m, "n", unjudged(ctx).head(k).sum())
    return present(per_k(n, k, ctx), ctx)


register(Family(
    "NumQ", "number of queries: 1 per query, summed over queries", _numq, cutoff="none",
    trec=(TrecName("num_q", groups=("official", "all_trec", "set")),), aggregate="sum", kind="counts",
    formula=r"|Q|", ir_measures="NumQ",
    peers="With trec_eval -c (irframe missing='zero') queries absent from the run count; "
    "trec_eval prints num_q only in its 'all' rows.",
))  # fmt: skip
register(Family(
    "Unjudged", "fraction of the top k that is unjudged (no judgment or a negative grade), over k",
    _unj, cutoff="required", trec=(TrecName("unj_{k}", cutoffs=(5.0, 10.0, 20.0)),), kind="counts",
    formula=r"\frac{|\{i \le k : d_i \text{ unjudged}\}|}{k}",
    peers="ir_measures' Judged@k divides the judged by min(k, n): Unjudged@k = 1 - Judged@k only when "
    "at least k were retrieved. A query absent from the run is 0 (trec_eval -c).",
))  # fmt: skip
