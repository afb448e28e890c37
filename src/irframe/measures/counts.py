"""Families that count what was retrieved or judged: NumRet and Judged."""

from __future__ import annotations

import polars as pl

from irframe import kernels as K
from irframe.measures._base import Ctx, Family, Measure, Params, TrecName, register
from irframe.measures._params import JUDGED_ONLY
from irframe.measures.binary import ranked

__all__: list[str] = []


def shown(m: Measure, ctx: Ctx) -> pl.Expr:
    """Documents in the top k that exist: min(k, retrieved) (judged ones for ``judged_only``)."""
    if m.params["judged_only"]:
        uncut = Measure("NumRet", judged_only=True)
        n = ctx.over_ranking(uncut, "n", ranked(m).len())
    else:
        n = ctx.n_retrieved()
    return n if m.cutoff is None else n.clip(upper_bound=m.cutoff)


def _numret(m: Measure, ctx: Ctx) -> pl.Expr:
    return shown(m, ctx)


def _judged(m: Measure, ctx: Ctx) -> pl.Expr:
    top = shown(m, ctx)
    judged = ctx.cumulative(m, "n", K.judged(ranked(m)).cast(pl.UInt32), m.cutoff)
    return pl.when(top > 0).then(judged / top).otherwise(0.0)


register(Family(
    "NumRet", "number of retrieved documents (within k)", _numret, Params((JUDGED_ONLY,)),
    trec=(TrecName("num_ret", groups=("official", "all_trec")),), trec_total="sum", kind="counts",
    formula=r"\min(k, n)", ir_measures="NumRet",
))  # fmt: skip
register(Family(
    "Judged", "fraction of the top k retrieved that is judged (over min(k, retrieved), as ir_measures)",
    _judged, Params((JUDGED_ONLY,)), kind="counts",
    formula=r"\frac{|\{i \le k : d_i \text{ judged}\}|}{\min(k, n)}",
    ir_measures="Judged@k", peers="trec_eval's unj_k is about the unjudged and divides by k.",
))  # fmt: skip
