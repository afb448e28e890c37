"""Families aggregated by a geometric mean over queries: GMAP and GMBpref.

Per query they are AP and bpref; over queries trec_eval takes
``exp(mean(log(max(x, 1e-5))))`` (``m_gm_map.c``, ``m_gm_bpref.c``, ``meas_avg.c``), so
one query at 0 weighs log(1e-5) instead of sinking the mean to 0.  trec_eval prints
gm_map and gm_bpref only in its ``all`` rows.
"""

from __future__ import annotations

import polars as pl

from irframe.measures._base import Ctx, Family, Measure, Params, TrecName, register
from irframe.measures._params import JUDGED_ONLY, REL

__all__: list[str] = []


def _gmap(m: Measure, ctx: Ctx) -> pl.Expr:
    return ctx.value(Measure("AP", m.cutoff, rel=m.params["rel"], judged_only=m.params["judged_only"]))


def _gmbpref(m: Measure, ctx: Ctx) -> pl.Expr:
    return ctx.value(Measure("Bpref", rel=m.params["rel"], judged_only=m.params["judged_only"]))


_REL = Params((REL, JUDGED_ONLY))
_GM = r"\exp\left(\frac{1}{|Q|}\sum_q \log \max(x_q, 10^{-5})\right)"

register(Family(
    "GMAP", "AP per query, geometric mean over queries (floor 1e-5)", _gmap, _REL,
    trec=(TrecName("gm_map", groups=("official", "all_trec")),), aggregate="gmean",
    formula=_GM + r",\ x_q = AP_q",
    peers="trec_eval prints gm_map only in the summary; ranx and ir_measures have no GMAP.",
))  # fmt: skip
register(Family(
    "GMBpref", "bpref per query, geometric mean over queries (floor 1e-5)", _gmbpref, _REL, "none",
    trec=(TrecName("gm_bpref"),), aggregate="gmean", formula=_GM + r",\ x_q = bpref_q",
))  # fmt: skip
