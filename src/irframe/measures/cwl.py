"""C/W/L families (Moffat et al.; cwl-eval, ir_measures' ``cwl_eval`` provider).

A C/W/L measure is a user model: ``C_i`` is the chance that a user at rank i goes on to rank
i + 1, the weight of rank i is ``W_i = P_i / sum_j P_j`` with ``P_i = prod_{j<i} C_j``, and the
measure is the expected rate of gain ``sum_i W_i x_i``.  As cwl-eval (``max_depth`` 1000, the
depth ir_measures uses), the ranking is cut at ``max_depth`` and padded to it with documents of
gain 0, so that the weights sum to 1 over exactly ``max_depth`` ranks.

Gains come from grades as ir_measures makes them: a negative grade counts as 0, grades are
clipped to ``[min_rel, max_rel]`` and scaled into [0, 1]; an unjudged document gains 0.  With
``residual=True`` the measure is cwl-eval's residual (ResEU): the value when every unjudged
document and every padded rank gains 1, minus the value.  A query absent from the run is 0.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import cast

import polars as pl

from irframe.exceptions import InvalidParameterError
from irframe.measures._base import (
    Ctx,
    CutoffRule,
    Family,
    Measure,
    Param,
    Params,
    fmt_num,
    number_param,
    register,
)
from irframe.measures._params import bool_param
from irframe.measures.binary import present

__all__: list[str] = []

_CWL_DEPTH = 1000


def _depth(value: object, source: str) -> int:
    text = str(value).strip()
    if isinstance(value, bool) or not text.isdigit() or not 1 <= int(text) <= 10**6:
        raise InvalidParameterError.for_value("max_depth", source, "an int in the range [1, 1000000]", value)
    return int(text)


MIN_REL = number_param("min_rel", 0, "grade of gain 0: lower grades are raised to it (ir_measures' min_rel)")
_MAX_REL = number_param("max_rel", 1, "")
MAX_REL = Param(
    "max_rel", None,
    "grade of gain 1, the top of the relevance scale: higher grades are lowered to it (ir_measures' "
    "max_rel, required there too)", "float", _MAX_REL.convert, required=True, example=2,
)  # fmt: skip
MAX_DEPTH = Param(
    "max_depth", _CWL_DEPTH, "ranks the user model spans: the ranking is cut there and padded to it "
    "with gain-0 documents (cwl-eval's --max_depth)", "int", _depth,
)  # fmt: skip
RESIDUAL = bool_param(
    "residual", False, "cwl-eval's residual instead of the value: the value with every unjudged "
    "document and padded rank at gain 1, minus the value",
)  # fmt: skip
T_PARAM = number_param(
    "T", 1, "the gain the user looks for (INST, INSQ, NERR11, BPM)", low=0, closed="neither"
)
P_PARAM = number_param("p", 0.9, "persistence (NERR10)", low=0, high=1, closed="left")
_SCALE = (MIN_REL, MAX_REL, MAX_DEPTH, RESIDUAL)

# C_i from the gains x (padded, length L) and the 1-based ranks i (Float64), for a measure m
Continue = Callable[[Measure, pl.Expr, pl.Expr], pl.Expr]
# S = sum_{i>s} P_i / P_{s+1} over the t padded ranks, from (m, their gain, s, t, the gain found)
Tail = Callable[[Measure, float, pl.Expr, pl.Expr, pl.Expr], pl.Expr]


def _check_scale(values: Mapping[str, object], source: str) -> None:
    low, high = cast("float", values["min_rel"]), cast("float", values["max_rel"])
    if not low < high:
        msg = (
            f"{source!r}: min_rel must be below max_rel (got min_rel={fmt_num(low)}, "
            f"max_rel={fmt_num(high)}). Hint: max_rel is the top grade of the scale, e.g. 3 for grades 0-3."
        )
        raise InvalidParameterError(msg)


def _check_inst(values: Mapping[str, object], source: str) -> None:
    _check_scale(values, source)
    t = cast("float", values["T"])
    if t < 0.25:  # where i + T + T_i can fall below 1/2
        msg = (
            f"{source!r}: INST needs T >= 0.25 (got T={fmt_num(t)}): below, a run of relevant documents "
            "makes its C_i exceed 1 (no user model; the weights overflow). "
            "Hint: INSQ and NERR11 take any T > 0."
        )
        raise InvalidParameterError(msg)


def _gains(m: Measure, ctx: Ctx, unjudged: float) -> pl.Expr:
    """The ranked grades as gains in [0, 1] (ir_measures' scaling); ``unjudged`` for no judgment."""
    low, high = float(m.params["min_rel"]), float(m.params["max_rel"])
    g = ctx.grades.clip(lower_bound=0.0).clip(low, high)
    # divided by a column: polars divides by a scalar as g * (1 / scale) from 3 rows on, and
    # 2.5 * (1/3) != 2.5 / 3 flips BPM's "gain so far < T" where cwl-eval's sum is exactly T
    scale = pl.repeat(high - low, pl.len(), dtype=pl.Float64)
    return ((g - low) / scale).fill_null(unjudged)


def _length(m: Measure) -> int:
    """The ranks the model spans: max_depth, or the cutoff if smaller (C_k = 0: nothing below)."""
    depth = int(m.params["max_depth"])
    return depth if m.cutoff is None else min(m.cutoff, depth)


def _expected_gain(m: Measure, ctx: Ctx, cont: Continue, tail: Tail | None, fill: float) -> pl.Expr:
    """``sum_i W_i x_i`` over the ranking cut at L ranks and padded to L, unjudged documents and
    the padding at gain ``fill``.

    Without ``tail`` the padding is built (the families cut at k <= max_depth).  With it, only
    the s retrieved ranks are: the padded ranks s+1 .. L have constant gains, where ``tail``
    gives ``S = sum_{i>s} P_i / P_{s+1}`` in closed form (the ranks below a short run cost
    nothing: 10 documents a query made 1000 rows each).  The sums over the ranking are per-query
    columns and the closed form runs on the per-query table, across queries at once (inside
    the group_by, its ~60 scalar operations cost 4 s for 10,000 queries).
    """
    n = _length(m)
    x = _gains(m, ctx, fill).head(n)
    if tail is None:
        x = x.extend_constant(fill, pl.lit(n, dtype=pl.UInt32) - x.len())
    i = pl.int_range(1, x.len() + 1, dtype=pl.UInt32).cast(pl.Float64)
    c = cont(m, x, i)
    reach = c.cum_prod().shift(1, fill_value=1.0)  # P_i = prod_{j<i} C_j
    key = "best" if fill else "worst"
    num = ctx.over_ranking(m, f"{key}:num", (reach * x).sum())
    den = ctx.over_ranking(m, f"{key}:den", reach.sum())
    if tail is None:
        return num / den
    size = ctx.over_ranking(m, f"{key}:s", x.len().cast(pl.Float64))
    found = ctx.over_ranking(m, f"{key}:found", x.sum())
    last = ctx.over_ranking(m, f"{key}:last", c.cum_prod().last())  # P_{s+1}
    rest = tail(m, fill, size, float(n) - size, found) * last  # sum_{i>s} P_i
    return (num + fill * rest) / (den + rest)


def trigamma(x: pl.Expr) -> pl.Expr:
    """psi'(x) = sum_{u>=0} 1 / (x + u)^2 for x > 0: eight terms, then the asymptotic series at
    x + 8 (its first omitted term is below 4e-15 of the value).

    Examples
    --------
    >>> import math
    >>> v = pl.select(trigamma(pl.lit(1.0))).item()  # zeta(2)
    >>> abs(v - math.pi**2 / 6) < 1e-14
    True
    """
    near = sum(((x + float(u)).pow(-2) for u in range(8)), start=pl.lit(0.0))
    y = x + 8.0
    series = [(1, 1), (1 / 2, 2), (1 / 6, 3), (-1 / 30, 5), (1 / 42, 7), (-1 / 30, 9), (5 / 66, 11),
              (-691 / 2730, 13), (7 / 6, 15)]  # fmt: skip
    return near + sum((y.pow(-k) * a for a, k in series), start=pl.lit(0.0))


def _squares(s: pl.Expr, t: pl.Expr, a: pl.Expr) -> pl.Expr:
    """``sum_{i=s+1}^{s+t} ((s + a) / (i - 1 + a))^2``: the telescoped products of
    ``((j + a - 1) / (j + a))^2`` (INSQ's C_j; INST's once its gain is spent)."""
    return (s + a).pow(2) * (trigamma(s + a) - trigamma(s + t + a))


def _geometric(r: pl.Expr, t: pl.Expr) -> pl.Expr:
    """``sum_{u<t} r^u`` (r >= 0)."""
    return pl.when(r == 1.0).then(t).otherwise((1.0 - r.pow(t)) / (1.0 - r))


def _stop(t: pl.Expr) -> pl.Expr:
    """C = 0 on the padding: only its first rank is reached."""
    return (t > 0).cast(pl.Float64)


def _nerr10_tail(m: Measure, fill: float, s: pl.Expr, t: pl.Expr, found: pl.Expr) -> pl.Expr:
    return _stop(t) if fill else _geometric(pl.lit(float(m.params["p"])), t)


def _insq_tail(m: Measure, fill: float, s: pl.Expr, t: pl.Expr, found: pl.Expr) -> pl.Expr:
    return _squares(s, t, pl.lit(2.0 * float(m.params["T"])))


def _nerr11_tail(m: Measure, fill: float, s: pl.Expr, t: pl.Expr, found: pl.Expr) -> pl.Expr:
    return _stop(t) if fill else _insq_tail(m, fill, s, t, found)


def _inst_tail(m: Measure, fill: float, s: pl.Expr, t: pl.Expr, found: pl.Expr) -> pl.Expr:
    a = 2.0 * float(m.params["T"]) - found  # T + T_i with T_i = T - found, constant at gain 0
    if fill:  # each padded rank adds 1 to the gain: C_j = ((s + a - 1) / (s + a))^2, constant
        return _geometric(((s + a - 1.0) / (s + a)).pow(2), t)
    return _squares(s, t, a)


def _compile(cont: Continue, tail: Tail | None) -> Callable[[Measure, Ctx], pl.Expr]:
    def compile_(m: Measure, ctx: Ctx) -> pl.Expr:
        low = _expected_gain(m, ctx, cont, tail, 0.0)
        value = (_expected_gain(m, ctx, cont, tail, 1.0) - low) if m.params["residual"] else low
        return present(value, ctx)

    return compile_


def _sdcg(m: Measure, x: pl.Expr, i: pl.Expr) -> pl.Expr:
    return (i + 1.0).log(2) / (i + 2.0).log(2)  # W_i proportional to 1 / log2(i + 1)


def _nerr8(m: Measure, x: pl.Expr, i: pl.Expr) -> pl.Expr:
    return 1.0 - x


def _nerr9(m: Measure, x: pl.Expr, i: pl.Expr) -> pl.Expr:
    return i / (i + 1.0) * (1.0 - x)


def _nerr10(m: Measure, x: pl.Expr, i: pl.Expr) -> pl.Expr:
    return float(m.params["p"]) * (1.0 - x)


def _insq_c(t: float, i: pl.Expr) -> pl.Expr:
    return ((i + 2.0 * t - 1.0) / (i + 2.0 * t)).pow(2)


def _nerr11(m: Measure, x: pl.Expr, i: pl.Expr) -> pl.Expr:
    return _insq_c(float(m.params["T"]), i) * (1.0 - x)


def _inst(m: Measure, x: pl.Expr, i: pl.Expr) -> pl.Expr:
    t = float(m.params["T"])
    left = t - x.cum_sum()  # T_i: the gain still wanted after rank i
    return ((i + t + left - 1.0) / (i + t + left)).pow(2)


def _insq(m: Measure, x: pl.Expr, i: pl.Expr) -> pl.Expr:
    return _insq_c(float(m.params["T"]), i)


def _bpm(m: Measure, x: pl.Expr, i: pl.Expr) -> pl.Expr:
    # static BPM: go on while the gain so far is below T and the cost so far (1 per document) below k
    k = float(cast("int", m.cutoff))
    return ((x.cum_sum() < float(m.params["T"])) & (i < k)).cast(pl.Float64)


_W = r"W_i = \frac{\prod_{j<i} C_j}{\sum_{l \le D} \prod_{j<l} C_j},\ "
_PEERS = (
    "cwl-eval's definition (ir_measures' cwl_eval provider, the same max_depth 1000 and gain "
    "scaling); cwl-eval itself reads gains in [0, 1] from the qrels and rejects others."
)


def _family(name: str, description: str, cont: Continue, formula: str, *, cutoff: CutoffRule,
            extra: tuple[Param, ...] = (), peers: str = "", tail: Tail | None = None,
            check: Callable[[Mapping[str, object], str], None] = _check_scale) -> None:  # fmt: skip
    register(Family(
        name, description, _compile(cont, tail), Params((*extra, *_SCALE)), cutoff,
        kind="graded", check=check, formula=_W + formula,
        ir_measures=f"{name}(max_rel=...)" + ("@k" if cutoff == "required" else ""),
        peers=f"{_PEERS} {peers}".strip(),
    ))  # fmt: skip


_family("SDCG", "scaled DCG@k: DCG over the DCG of k documents of gain 1 (C/W/L form of nDCG)", _sdcg,
        r"C_i = \frac{\log_2(i+1)}{\log_2(i+2)} \ (i < k),\ 0 \ (i \ge k)", cutoff="required",
        peers="It is DCG@k / sum_{i<=k} 1/log2(i+1): unlike nDCG it does not depend on the judged "
        "documents.")  # fmt: skip
_family("NERR8", "not-but-nearly ERR (eq. 8): the user stops at a relevant document, at the latest at k",
        _nerr8, r"C_i = 1 - x_i \ (i < k),\ 0 \ (i \ge k)", cutoff="required",
        peers="Azzopardi et al. 2021; ERR itself (gdeval) is not a C/W/L measure.")  # fmt: skip
_family("NERR9", "not-but-nearly ERR (eq. 9): NERR8 with the reciprocal-rank discount", _nerr9,
        r"C_i = \frac{i}{i+1} (1 - x_i) \ (i < k),\ 0 \ (i \ge k)", cutoff="required")  # fmt: skip
_family("NERR10", "not-but-nearly ERR (eq. 10): stops at relevant documents, persistence p as RBP",
        _nerr10, r"C_i = p\,(1 - x_i)", cutoff="none", extra=(P_PARAM,), tail=_nerr10_tail)  # fmt: skip
_family("NERR11", "not-but-nearly ERR (eq. 11): stops at relevant documents, INSQ's patience T",
        _nerr11, r"C_i = \left(\frac{i + 2T - 1}{i + 2T}\right)^2 (1 - x_i)", cutoff="none",
        extra=(T_PARAM,), tail=_nerr11_tail)  # fmt: skip
_family("INST", "INST: an adaptive user who wants a gain of T and goes on while it is not found", _inst,
        r"C_i = \left(\frac{i + T + T_i - 1}{i + T + T_i}\right)^2,\ T_i = T - \sum_{j \le i} x_j",
        cutoff="none", extra=(T_PARAM,), peers="Moffat et al. 2015; T >= 0.25 (below, C_i can exceed 1).",
        tail=_inst_tail, check=_check_inst)  # fmt: skip
_family("INSQ", "INSQ: INST's ancestor, whose patience does not depend on the gain found", _insq,
        r"C_i = \left(\frac{i + 2T - 1}{i + 2T}\right)^2", cutoff="none", extra=(T_PARAM,),
        peers="Moffat et al. 2012.", tail=_insq_tail)  # fmt: skip
_family("BPM", "static Bejewelled Player Model: stops when the gain reaches T or after k documents",
        _bpm, r"C_i = [\sum_{j \le i} x_j < T]\,[i < k]", cutoff="required", extra=(T_PARAM,),
        peers="Zhang et al. 2017, cwl-eval's static BPM (every document costs 1); not its dynamic "
        "BPM-D.")  # fmt: skip
