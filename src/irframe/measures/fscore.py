"""The F family: the weighted harmonic mean of P@k and R@k (van Rijsbergen's F_beta)."""

from __future__ import annotations

from typing import cast

import polars as pl

from irframe.measures._base import Ctx, Family, Measure, Params, number_param, register
from irframe.measures._params import JUDGED_ONLY, REL
from irframe.measures.binary import over_r, per_k, rel_ret

__all__: list[str] = []

BETA = number_param("beta", 1, "weight of recall: beta = 2 counts recall twice as much as precision", low=0)


def _f(m: Measure, ctx: Ctx) -> pl.Expr:
    n = rel_ret(m, ctx)
    p = per_k(n, cast("int", m.cutoff), ctx)  # the family requires a cutoff
    r = over_r(n, m, ctx)
    b2 = float(m.params["beta"]) ** 2
    return pl.when(p + r > 0).then((1.0 + b2) * p * r / (b2 * p + r)).otherwise(0.0)


register(Family(
    "F", "F-measure: weighted harmonic mean of P@k and R@k (beta=1: F1; 0 when both are 0)", _f,
    Params((REL, BETA, JUDGED_ONLY)), "required", aliases=("F1",),
    formula=r"F_\beta@k = \frac{(1 + \beta^2)\, P@k \cdot R@k}{\beta^2 P@k + R@k}",
    ir_measures="-",
    peers="trec_eval's set_F (ir_measures' SetF) is over the whole ranking and weighs P by beta, "
    "not beta^2.",
))  # fmt: skip
