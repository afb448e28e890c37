"""The distribution functions of irframe's statistics, written once (no scipy at run time).

:mod:`irframe.stats` (the paired tests and intervals), :mod:`irframe._golden.power`, the
online experiments (:mod:`irframe.online`) and the answer layer's intervals all call these;
none keeps a copy.  ``tests/stats/test_distributions.py`` checks every one against
``scipy.stats`` over a grid.

- the standard normal: :func:`norm_sf`, :func:`norm_cdf` (from :func:`math.erfc`),
  :func:`norm_cdf_array`, :func:`norm_ppf` (Acklam's approximation and two Newton steps);
- Student's t: :func:`student_t_sf` (the regularised incomplete beta function, a continued
  fraction), :func:`t_critical` and :func:`t_quantile` (bisection on the sf);
- chi-square: :func:`chi2_sf` (the regularised upper incomplete gamma function);
- the binomial at p = 1/2: :func:`binomial_two_sided` (the exact two-sided test).

Examples
--------
>>> round(norm_ppf(0.975), 12), round(student_t_sf(2.0, 5), 10), round(chi2_sf(3.841458820694124, 1), 12)
(1.959963984540, 0.0509697394, 0.05)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache

import numpy as np
import numpy.typing as npt

__all__ = [
    "binomial_two_sided",
    "chi2_sf",
    "norm_cdf",
    "norm_cdf_array",
    "norm_ppf",
    "norm_sf",
    "student_t_sf",
    "t_critical",
    "t_quantile",
    "threshold",
]

FloatArray = npt.NDArray[np.float64]


# --- the standard normal -------------------------------------------------------------------------
def norm_sf(z: float) -> float:
    """``P(Z > z)`` for a standard normal ``Z``."""
    return 0.5 * math.erfc(z / math.sqrt(2.0))


def norm_cdf(z: float) -> float:
    """``P(Z <= z)`` for a standard normal ``Z``."""
    return 0.5 * math.erfc(-z / math.sqrt(2.0))


def norm_ppf(p: float) -> float:
    """Inverse normal CDF: Acklam's rational approximation plus two Newton steps.

    Examples
    --------
    >>> round(norm_ppf(0.975), 12), norm_ppf(0.5), norm_ppf(0.0)
    (1.959963984540, 0.0, -inf)
    """
    if not 0.0 < p < 1.0:
        if p == 0.0:
            return -math.inf
        if p == 1.0:
            return math.inf
        return math.nan
    a = (-3.969683028665376e01, 2.209460984245205e02, -2.759285104469687e02,
         1.383577518672690e02, -3.066479806614716e01, 2.506628277459239e00)  # fmt: skip
    b = (-5.447609879822406e01, 1.615858368580409e02, -1.556989798598866e02,
         6.680131188771972e01, -1.328068155288572e01)  # fmt: skip
    c = (-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e00,
         -2.549732539343734e00, 4.374664141464968e00, 2.938163982698783e00)  # fmt: skip
    d = (7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e00,
         3.754408661907416e00)  # fmt: skip
    lo = 0.02425
    if p < lo:
        q = math.sqrt(-2 * math.log(p))
        x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / (
            (((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1
        )
    elif p > 1 - lo:
        q = math.sqrt(-2 * math.log1p(-p))
        x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / (
            (((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1
        )
    else:
        q = p - 0.5
        r = q * q
        x = (
            (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5])
            * q
            / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1)
        )
    upper = p > 1 - lo  # (there Phi(x) - p loses its digits: 1 - Phi(x) - (1 - p), 1 - p exact)
    for _ in range(2):  # Newton on Phi(x) - p; Phi'(x) = pdf(x)
        err = (1.0 - p) - norm_sf(x) if upper else norm_cdf(x) - p
        x -= err * math.sqrt(2 * math.pi) * math.exp(0.5 * x * x)
    return x


_NORM_CDF = np.frompyfunc(norm_cdf, 1, 1)


def norm_cdf_array(z: FloatArray) -> FloatArray:
    """:func:`norm_cdf` of every element of ``z``."""
    return np.asarray(_NORM_CDF(z), dtype=np.float64)


# --- Student's t --------------------------------------------------------------------------------
def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction for the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c = 1.0
    d = 1.0 - qab * x / qap
    d = tiny if abs(d) < tiny else d
    d = 1.0 / d
    h = d
    for m in range(1, 100_000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = tiny if abs(d) < tiny else d
        c = 1.0 + aa / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = tiny if abs(d) < tiny else d
        c = 1.0 + aa / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-16:
            break
    return h


def _lbeta(a: float, b: float) -> float:
    """log B(a, b); for B(a, 1/2) with large a, an asymptotic series avoids the cancellation
    of lgamma(a) - lgamma(a + 1/2) (error < 1e-16 for a >= 30)."""
    if b == 0.5 and a >= 30:
        # log Gamma(a + 1/2) - log Gamma(a) = log(a)/2 - 1/(8a) + 1/(192a^3) - 1/(640a^5) + ...
        ratio = 0.5 * math.log(a) - 1 / (8 * a) + 1 / (192 * a**3) - 1 / (640 * a**5) + 17 / (14336 * a**7)
        return 0.5 * math.log(math.pi) - ratio
    if a == 0.5 and b >= 30:
        return _lbeta(b, a)
    return math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)


def _betainc(
    a: float, b: float, x: float, y: float, *, log_x: float | None = None, log_y: float | None = None
) -> float:
    """Regularised incomplete beta I_x(a, b), given x and y = 1 - x (both accurate).

    ``log_x``/``log_y`` may be passed when the caller knows them more accurately than
    ``log(x)`` (x close to 1: ``log_x = -log1p(...)``).
    """
    if x <= 0.0:
        return 0.0
    if y <= 0.0:
        return 1.0
    lx = math.log(x) if log_x is None else log_x
    ly = math.log(y) if log_y is None else log_y
    log_front = a * lx + b * ly - _lbeta(a, b)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _betacf(a, b, x) / a
    return 1.0 - math.exp(log_front) * _betacf(b, a, y) / b


def student_t_sf(t: float, df: float) -> float:
    """Survival function ``P(T > t)`` of Student's t with ``df`` degrees of freedom.

    Computed as ``I_{df/(df+t^2)}(df/2, 1/2) / 2`` with the regularised incomplete beta
    function (continued fraction), so no scipy is needed.  Relative error against
    ``scipy.stats.t.sf``: below 1e-12 up to ``df = 1e4``, 3e-12 at ``df = 1e5``, 4e-11 at
    ``df = 1e6``, growing with ``df`` beyond (:func:`t_quantile` takes the normal at ``inf``).

    Examples
    --------
    >>> round(student_t_sf(2.0, 5), 10)
    0.0509697394
    >>> student_t_sf(0.0, 3)
    0.5
    """
    if math.isnan(t) or math.isnan(df) or df <= 0:
        return math.nan
    if math.isinf(t):
        return 0.0 if t > 0 else 1.0
    t2 = t * t
    x = df / (df + t2)
    y = t2 / (df + t2)
    if y == 0.0:
        return 0.5
    # log x = -log1p(t^2/df) keeps its digits when x is close to 1 (large df)
    tail = 0.5 * _betainc(0.5 * df, 0.5, x, y, log_x=-math.log1p(t2 / df), log_y=math.log(y))
    return tail if t >= 0 else 1.0 - tail


@lru_cache(maxsize=256)
def t_critical(alpha: float, df: float) -> float:
    """The two-sided critical value ``t_{1 - alpha/2, df}`` of Student's t (bisection on its sf).

    Examples
    --------
    >>> round(t_critical(0.05, 10), 6)
    2.228139
    """
    target = alpha / 2.0
    return threshold(lambda t: student_t_sf(t, df) <= target, 8.0, rel=1e-14, steps=200)


def threshold(turns: Callable[[float], bool], hi: float, *, rel: float, steps: int) -> float:
    """Where a monotone condition on ``[0, inf)`` turns true (a quantile, the effect a power
    reaches...): ``hi`` doubled until it holds, then bisection to ``rel`` of the bracket.

    Examples
    --------
    >>> round(threshold(lambda x: x * x >= 2.0, 1.0, rel=1e-12, steps=100), 10)
    1.4142135624
    """
    lo = 0.0
    while not turns(hi):
        lo, hi = hi, 2.0 * hi
    for _ in range(steps):
        mid = 0.5 * (lo + hi)
        if turns(mid):
            hi = mid
        else:
            lo = mid
        if hi - lo <= rel * hi:
            break
    return 0.5 * (lo + hi)


def t_quantile(level: float, df: float) -> float:
    """The two-sided critical value of Student's t at confidence ``level`` (NaN if undefined;
    the normal's at ``df = inf``).

    Examples
    --------
    >>> round(t_quantile(0.95, 10), 6), round(t_quantile(0.95, math.inf), 6)
    (2.228139, 1.959964)
    """
    if not (df > 0) or math.isnan(df):
        return math.nan
    if math.isinf(df):
        return norm_ppf(0.5 + level / 2.0)
    return t_critical(1.0 - level, float(df))


# --- chi-square ---------------------------------------------------------------------------------
def _gammainc_upper(a: float, x: float) -> float:
    """The regularised upper incomplete gamma function Q(a, x) (series / continued fraction)."""
    if x <= 0:
        return 1.0
    log_front = -x + a * math.log(x) - math.lgamma(a)
    if x < a + 1:  # series for P, Q = 1 - P
        term = total = 1.0 / a
        ap = a
        for _ in range(10_000):
            ap += 1
            term *= x / ap
            total += term
            if abs(term) < abs(total) * 1e-16:
                break
        return max(0.0, 1.0 - total * math.exp(log_front))
    tiny = 1e-300  # Lentz's continued fraction for Q
    b = x + 1 - a
    c, d = 1 / tiny, 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-16:
            break
    return math.exp(log_front) * h


def chi2_sf(x: float, df: int) -> float:
    """``P(X > x)`` for a chi-square variable with ``df`` degrees of freedom.

    Examples
    --------
    >>> round(chi2_sf(3.841458820694124, 1), 12)
    0.05
    """
    if math.isnan(x) or df < 1:
        return math.nan
    return _gammainc_upper(df / 2.0, x / 2.0)


# --- the binomial at p = 1/2 ---------------------------------------------------------------------
def binomial_two_sided(k: int, n: int) -> float:
    """Exact two-sided binomial test of ``k`` successes in ``n`` at p = 1/2
    (``scipy.stats.binomtest(k, n).pvalue``); NaN when ``n == 0``.

    Examples
    --------
    >>> binomial_two_sided(9, 10)
    0.021484375
    """
    if n == 0:
        return math.nan
    m = min(k, n - k)
    if 2 * m == n:
        return 1.0
    i = np.arange(1, m + 1, dtype=np.float64)  # log C(n, i) by the recurrence, then the tail
    logc = np.concatenate(([0.0], np.cumsum(np.log(n - i + 1) - np.log(i))))
    logp = logc - n * math.log(2.0)
    top = logp.max()
    tail = math.exp(top) * float(np.exp(logp - top).sum())
    return min(1.0, 2.0 * tail)
