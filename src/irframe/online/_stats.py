"""The statistics of the online verbs: moments of per-unit sums, the delta method, Welch's
test as tea-tasting's ``RatioOfMeans`` computes it, the sample-ratio-mismatch chi-square,
the cluster bootstrap and the sign test.  The distribution functions are
:mod:`irframe._distributions`' (no scipy at run time).

Delta method (Deng et al., KDD 2018), per group of ``n`` units with per-unit sums ``x``
(numerator) and ``y`` (denominator), sample moments with ``ddof=1``::

    r = mean(x) / mean(y)
    s2 = (var(x) - 2 r cov(x, y) + r^2 var(y)) / mean(y)^2    # the per-unit variance of r
    se(r) = sqrt(s2 / n)

The moments come from the sums ``n, sum x, sum y, sum x^2, sum y^2, sum xy`` per group
(sufficient statistics: additive over buckets and partitions).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import polars as pl

from irframe._distributions import chi2_sf, student_t_sf, t_quantile
from irframe._resample import index_chunks

__all__ = [
    "delta_columns",
    "moment_aggs",
    "ratio_bootstrap",
    "ratio_bootstrap_columns",
    "welch_row",
]

FloatArray = npt.NDArray[np.float64]


def moment_aggs(x: str, y: str) -> list[pl.Expr]:
    """The sums per group that the delta method needs, from per-unit columns ``x``, ``y``."""
    fx, fy = pl.col(x).cast(pl.Float64), pl.col(y).cast(pl.Float64)
    return [
        fx.sum().alias("_sx"),
        fy.sum().alias("_sy"),
        (fx * fx).sum().alias("_sxx"),
        (fy * fy).sum().alias("_syy"),
        (fx * fy).sum().alias("_sxy"),
    ]


def delta_columns(n: str = "n_units") -> list[pl.Expr]:
    """``value`` (the ratio), ``unit_var`` (the per-unit variance ``s2``) and ``se`` from the sums."""
    nn = pl.col(n).cast(pl.Float64)
    sx, sy = pl.col("_sx"), pl.col("_sy")
    mx, my = sx / nn, sy / nn
    vx = (pl.col("_sxx") - sx * sx / nn) / (nn - 1)
    vy = (pl.col("_syy") - sy * sy / nn) / (nn - 1)
    cxy = (pl.col("_sxy") - sx * sy / nn) / (nn - 1)
    r = mx / my
    s2 = (vx - 2 * r * cxy + r * r * vy) / (my * my)
    s2 = pl.when(nn > 1).then(pl.max_horizontal(s2, pl.lit(0.0))).otherwise(None)
    return [r.alias("value"), s2.alias("unit_var"), (s2 / nn).sqrt().alias("se")]


def welch_row(
    c_mean: float, c_var: float, c_n: int, *, t_mean: float, t_var: float, t_n: int, level: float
) -> dict[str, float]:
    """One comparison as tea-tasting's ``RatioOfMeans`` (two-sided, ``use_t=True``,
    ``equal_var=False``): the absolute and relative effects with CIs, the statistic, df, p.

    ``c_var``/``t_var`` are per-unit variances of the arms' ratios (``unit_var``).
    """
    nan = math.nan
    out = dict.fromkeys(("diff", "diff_ci_low", "diff_ci_high", "lift", "lift_ci_low", "lift_ci_high"), nan)
    out |= {"statistic": nan, "df": nan, "p_value": nan}
    if c_n < 2 or t_n < 2 or any(map(math.isnan, (c_mean, c_var, t_mean, t_var))):
        return out
    scale, df = _welch(c_var, c_n, t_var, t_n)
    diff = t_mean - c_mean
    half = t_quantile(level, df) * scale
    out |= {"diff": diff, "diff_ci_low": diff - half, "diff_ci_high": diff + half, "df": df}
    stat = diff / scale if scale > 0 else (0.0 if diff == 0 else math.copysign(math.inf, diff))
    out |= {
        "statistic": stat,
        "p_value": 1.0 if diff == 0 and scale == 0 else 2 * student_t_sf(abs(stat), df),
    }
    if c_mean != 0 and t_mean != 0:
        ratio = t_mean / c_mean
        lscale, ldf = _welch(c_var / c_mean**2, c_n, t_var / t_mean**2, t_n)
        rel_half = math.exp(t_quantile(level, ldf) * lscale)
        out |= {"lift": ratio - 1, "lift_ci_low": ratio / rel_half - 1, "lift_ci_high": ratio * rel_half - 1}
    elif c_mean != 0:
        out["lift"] = t_mean / c_mean - 1
    return out


def _welch(c_var: float, c_n: int, t_var: float, t_n: int) -> tuple[float, float]:
    cm, tm = c_var / c_n, t_var / t_n
    scale = math.sqrt(cm + tm)
    denom = cm * cm / (c_n - 1) + tm * tm / (t_n - 1)
    df = (cm + tm) ** 2 / denom if denom > 0 else math.inf
    return scale, df


# --- sample-ratio mismatch ----------------------------------------------------------------------
def srm_p_value(observed: Sequence[int], weights: Sequence[float]) -> float:
    """Pearson's chi-square goodness-of-fit p-value of units per arm against the split."""
    o = np.asarray(observed, dtype=np.float64)
    w = np.asarray(weights, dtype=np.float64)
    e = o.sum() * w / w.sum()
    return chi2_sf(float(((o - e) ** 2 / e).sum()), len(o) - 1)


# --- the cluster bootstrap -------------------------------------------------------------------------
def ratio_bootstrap_columns(x: FloatArray, y: FloatArray, n_boot: int, seed: int | None) -> FloatArray:
    """:func:`ratio_bootstrap` of every column of ``x``, ``y`` (units x columns) with ONE set of
    resamples of the units shared by the columns (the same draws as :func:`ratio_bootstrap`
    for the same seed and number of units): ``n_boot`` x columns ratios."""
    n, cols = x.shape
    out = np.empty((n_boot, cols))
    done = 0
    for idx in index_chunks(seed, lambda: np.random.default_rng(seed), n_boot, n):
        c = idx.shape[0]
        # each resample's multiplicity of every unit, then the column sums as one product
        offsets = (np.arange(c)[:, None] * n + idx).ravel()
        counts = np.bincount(offsets, minlength=c * n).reshape(c, n).astype(np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            out[done : done + c] = (counts @ x) / (counts @ y)
        done += c
    return out


def ratio_bootstrap(x: FloatArray, y: FloatArray, n_boot: int, seed: int | None) -> FloatArray:
    """``sum(x*) / sum(y*)`` over ``n_boot`` resamples of the units (rows) with replacement."""
    out = np.empty(n_boot)
    done = 0
    for idx in index_chunks(seed, lambda: np.random.default_rng(seed), n_boot, x.size):
        c = idx.shape[0]
        with np.errstate(invalid="ignore", divide="ignore"):
            out[done : done + c] = x[idx].sum(axis=1) / y[idx].sum(axis=1)
        done += c
    return out
