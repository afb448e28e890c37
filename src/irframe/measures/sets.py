"""Set-based families: the retrieved documents as an unordered set (trec_eval's ``set``).

SetP, SetR, SetAP, SetF, Utility and NumNonRelJudgedRet with trec_eval's semantics
(``m_set_P.c``, ``m_set_rel_P.c``, ``m_set_recall.c``, ``m_set_map.c``, ``m_set_F.c``,
``m_utility.c``, ``m_num_nonrel_judged_ret.c``).  With a cutoff ``@k`` the set is the
top k (trec_eval's ``-M k``).  A query absent from the run retrieves nothing: every
value is 0 (trec_eval -c).
"""

from __future__ import annotations

import polars as pl

from irframe import kernels as K
from irframe.exceptions import InvalidParameterError
from irframe.measures._base import Ctx, Family, Measure, Param, Params, TrecName, number_param, register
from irframe.measures._params import JUDGED_ONLY, REL, bool_param

__all__: list[str] = []

_SET = ("set", "all_trec")


RELATIVE = bool_param("relative", False, "divide by min(retrieved, R), the best possible for the set size")


def _count(value: object, source: str) -> int:
    if isinstance(value, bool) or not str(value).strip().isdigit() or not 0 <= int(str(value)) < 2**63:
        raise InvalidParameterError.for_value("n_docs", source, "an int in the range [0, 2**63)", value)
    return int(str(value))


N_DOCS = Param(
    "n_docs", 2**63 - 1, "documents in the collection (trec_eval -N; only with d != 0)", "int", _count
)
BETA = number_param("beta", 1, "weight of recall against precision: (1+beta) P R / (beta P + R)", low=0)


def _retrieved(m: Measure, ctx: Ctx) -> pl.Expr:
    return ctx.value(Measure("NumRet", m.cutoff, judged_only=m.params.get("judged_only", False)))


def _hits(m: Measure, ctx: Ctx) -> pl.Expr:
    jo = m.params.get("judged_only", False)
    return ctx.value(Measure("NumRelRet", m.cutoff, rel=m.params["rel"], judged_only=jo))


def _r(m: Measure, ctx: Ctx) -> pl.Expr:
    return ctx.value(Measure("NumRel", rel=m.params["rel"]))


def _setp(m: Measure, ctx: Ctx) -> pl.Expr:
    n, hits = _retrieved(m, ctx), _hits(m, ctx)
    if m.params["relative"]:
        r = _r(m, ctx)
        return pl.when((n > 0) & (r > 0)).then(hits / pl.min_horizontal(n, r)).otherwise(0.0)
    return pl.when(n > 0).then(hits / n).otherwise(0.0)


def _setr(m: Measure, ctx: Ctx) -> pl.Expr:
    r = _r(m, ctx)
    return pl.when(r > 0).then(_hits(m, ctx) / r).otherwise(0.0)


def _setap(m: Measure, ctx: Ctx) -> pl.Expr:
    n, r, hits = _retrieved(m, ctx), _r(m, ctx), _hits(m, ctx)
    return pl.when((n > 0) & (r > 0)).then((hits * hits) / (n * r)).otherwise(0.0)


def _setf(m: Measure, ctx: Ctx) -> pl.Expr:
    n, r, hits = _retrieved(m, ctx), _r(m, ctx), _hits(m, ctx)
    x = float(m.params["beta"])
    p = hits / n
    rc = hits / r
    return pl.when(hits > 0).then((x + 1.0) * p * rc / (x * p + rc)).otherwise(0.0)


def _utility(m: Measure, ctx: Ctx) -> pl.Expr:
    n, r, hits = _retrieved(m, ctx), _r(m, ctx), _hits(m, ctx)
    a, b, c, d = (float(m.params[k]) for k in ("a", "b", "c", "d"))
    total = float(m.params["n_docs"])
    value = a * hits + b * (n - hits) + c * (r - hits)
    if d != 0.0:
        value = value + d * (total + hits - n - r)
    return value


def _nonrel_judged(m: Measure, ctx: Ctx) -> pl.Expr:
    t = m.params["rel"]
    return ctx.over_ranking(m, "n", _cut(K.judged_nonrelevant(t, ctx.grades), m.cutoff).sum())


def _cut(expr: pl.Expr, k: int | None) -> pl.Expr:
    return expr if k is None else expr.head(k)


_REL = Params((REL,))
_REL_J = Params((REL, JUDGED_ONLY))

register(Family(
    "SetP", "precision of the retrieved set (within k): relevant retrieved / retrieved", _setp,
    Params((REL, RELATIVE, JUDGED_ONLY)),
    trec=(TrecName("set_P", groups=_SET), TrecName("set_relative_P", {"relative": True}, groups=_SET)),
    formula=r"SetP = \frac{|Ret \cap Rel|}{|Ret|} \text{ (relative: } / \min(|Ret|, R))",
    ir_measures="SetP, SetP(relative=True)",
    peers="P@k divides by k even when fewer were retrieved; SetP@k (trec_eval -M k -m set_P) does not.",
))  # fmt: skip
register(Family(
    "SetR", "recall of the retrieved set (within k): relevant retrieved / judged relevant", _setr, _REL_J,
    trec=(TrecName("set_recall", groups=_SET),),
    formula=r"SetR = \frac{|Ret \cap Rel|}{R}", ir_measures="SetR",
))  # fmt: skip
register(Family(
    "SetAP", "unranked AP: set precision times set recall", _setap, _REL_J,
    trec=(TrecName("set_map", groups=_SET),),
    formula=r"SetAP = \frac{|Ret \cap Rel|^2}{|Ret| \cdot R}", ir_measures="SetAP",
))  # fmt: skip
register(Family(
    "SetF", "F measure of the retrieved set: (1+beta) P R / (beta P + R), 0 without hits", _setf,
    Params((REL, BETA, JUDGED_ONLY)), trec=(TrecName("set_F", groups=_SET, param="beta"),),
    formula=r"SetF = \frac{(1+\beta)\, P\, R}{\beta P + R}", ir_measures="SetF(beta=1)",
    peers="trec_eval's set_F.x weights P by x, not x squared (F1 at x = 1); "
    "ir_measures passes beta through unchanged.",
))  # fmt: skip
register(Family(
    "Utility", "linear set utility a*relret + b*nonrelret + c*relnotret + d*nonrelnotret", _utility,
    Params((
        REL,
        number_param("a", 1, "worth of a relevant retrieved document"),
        number_param("b", -1, "worth of a non-relevant retrieved document"),
        number_param("c", 0, "worth of a relevant document not retrieved"),
        number_param("d", 0, "worth of a non-relevant document not retrieved (needs n_docs)"),
        N_DOCS,
    )),
    trec=(TrecName("utility", groups=_SET),),
    formula=r"a\,|Ret \cap Rel| + b\,|Ret \setminus Rel| + c\,|Rel \setminus Ret| + d\,(N - |Ret \cup Rel|)",
    peers="trec_eval averages utility over queries (its help text notes summing may be more useful).",
))  # fmt: skip
register(Family(
    "NumNonRelJudgedRet", "number of retrieved documents judged non-relevant (0 <= grade < rel)",
    _nonrel_judged, _REL, trec=(TrecName("num_nonrel_judged_ret", groups=("all_trec",)),),
    trec_total="sum", kind="counts", formula=r"|\{i \le k : 0 \le g_i < rel\}|",
))  # fmt: skip
