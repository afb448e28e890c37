"""Cascade families: ERR (expected reciprocal rank, Chapelle et al. 2009).

The user scans the ranking top-down and stops at rank i with probability
``R_i = (2^g_i - 1) / 2^g_max``; ERR is the expected reciprocal of the stopping rank.
The defaults follow gdeval.pl (TREC Web track), ir_measures' provider of ``ERR@k``:
``g_max = 4``, grades <= 0 and unjudged documents never stop the user.
"""

from __future__ import annotations

import dataclasses

import polars as pl

from irframe import kernels as K
from irframe.measures._base import Ctx, Family, Measure, Params, number_param, register
from irframe.measures._params import JUDGED_ONLY
from irframe.measures.binary import ranked

__all__: list[str] = []

G_MAX = dataclasses.replace(
    number_param(
        "g_max",
        4,
        "highest grade of the scale: stop probability (2^g - 1) / 2^g_max (gdeval's 4); "
        "a grade above g_max counts as g_max",
        low=0,
        closed="neither",
    ),
    aliases=("gmax",),
)


def stop_probability(g_max: float, g: pl.Expr) -> pl.Expr:
    """``(2^g - 1) / 2^g_max`` per document, the grade capped at ``g_max`` (0 for g <= 0)."""
    scale: float = 2.0**g_max
    return K.gain("exp", g.clip(upper_bound=g_max)) / scale


def _err(m: Measure, ctx: Ctx) -> pl.Expr:
    g = ranked(m, ctx)
    stop = stop_probability(float(m.params["g_max"]), g)
    reach = (1.0 - stop).cum_prod().shift(1, fill_value=1.0)  # P(the user gets to rank i)
    return ctx.cumulative(m, "err", stop * reach / K.positions(g), m.cutoff)


register(Family(
    "ERR",
    "expected reciprocal rank: the cascade model's expected 1 / stopping rank (within k)",
    _err, Params((G_MAX, JUDGED_ONLY)),
    kind="graded",
    formula=r"ERR@k = \sum_{i=1}^{k} \frac{R_i}{i} \prod_{j<i} (1 - R_j),"
    r"\quad R_i = \frac{2^{g_i} - 1}{2^{g_{max}}}",
    ir_measures="ERR@k",
    peers="gdeval.pl (ir_measures' provider) stops on grades > 4 and omits queries without a positive "
    "judgment; irframe caps a grade at g_max and scores such queries 0.",
))  # fmt: skip
