"""Paired significance tests, bootstrap confidence intervals and multiple-testing corrections.

Everything here works on plain numpy vectors of per-query scores: ``x`` for a
system, ``y`` for the baseline, paired by position (``y=None`` means ``x`` already
holds the per-query deltas ``x - y``).  No scipy at run time: the Student t and
normal distributions are those of :mod:`irframe._distributions` (written once for
every statistic of the library).

Conventions
-----------
* All tests are **two-sided** tests of "no difference" on the deltas ``d = x - y``.
* ``n < 2`` paired queries: the p-value is ``NaN`` and :attr:`PairedTestResult.note`
  says why; nothing raises.  All deltas zero: ``p = 1`` (and a note).
* Randomization (sign-flip permutation) test, statistic ``mean(d)``: queries whose
  delta is zero cannot change sign and are left out of the sign flips.  With
  ``m <= 16`` non-zero deltas all ``2**m`` sign vectors are enumerated and
  ``p = #{|T*| >= |T_obs|} / 2**m`` exactly (this equals
  ``scipy.stats.permutation_test(..., permutation_type='samples')`` with exact
  enumeration).  Otherwise ``B`` random sign vectors (seeded numpy Generator) give
  ``p = (#{|T*| >= |T_obs|} + 1) / (B + 1)``, the add-one estimate that is never 0.
  ``|T*| >= |T_obs|`` is tested with a relative tolerance of a few ulps so that
  ties in exact arithmetic stay ties in floating point.
* Paired t-test: equals ``scipy.stats.ttest_rel`` (to ~1e-12); constant non-zero
  deltas give ``t = +-inf`` and ``p = 0``.
* Wilcoxon signed-rank: follows ``scipy.stats.wilcoxon`` (scipy 1.17) defaults
  ``zero_method='wilcox', correction=False, method='auto'``: zero deltas are dropped
  from the ranks; with ``n <= 50`` (``n`` counts zeros too) and neither ties nor
  zeros, the exact null distribution of ``R+``; with ties or zeros and ``n <= 13``,
  the exact sign-flip distribution of ``R+`` (as scipy's permutation fallback);
  otherwise the normal approximation with tie correction and no continuity
  correction.  The reported statistic is ``min(R+, R-)`` as in scipy.  Where scipy
  returns ``NaN`` (all deltas zero and ``n > 13``) we return ``p = 1``.
* Bootstrap: resample queries with replacement, ``B`` times, statistic ``mean(d)``;
  ``"percentile"`` interval (linear interpolation, as ``scipy.stats.bootstrap``) or
  ``"bca"`` (bias-corrected and accelerated, jackknife acceleration, as scipy).
  The bootstrap *test* p-value shifts the resampled means to the null:
  ``p = (#{|T*_b - T_obs| >= |T_obs|} + 1) / (B + 1)``.
* Parameters are checked before any work: resample counts (``n_permutations``,
  ``n_bootstrap``) are ints in ``[1, MAX_RESAMPLES]`` (one million: more would take
  minutes and gigabytes per test); seeds are ints >= 0, None or a numpy Generator.
* Corrections (:func:`adjust_p_values`): ``NaN`` p-values are not part of the family
  and stay ``NaN``; the family size is the number of finite p-values.
* Weights (``weights=``, one non-negative weight per query, e.g. its traffic): the
  statistic is the weighted mean delta ``D = sum(w d) / sum(w)``, the ratio (Hajek)
  estimator of the population's mean delta when queries were sampled with unequal
  probabilities.  Queries of weight 0 are left out (``n`` counts the others).  Each test
  is the standard weighted form of its unweighted self, and equals it when every
  weight is the same:

  - *t-test*: ``t = D / se`` with the linearization (sandwich) standard error of a
    weighted mean, ``se**2 = n / (n - 1) * sum(w**2 (d - D)**2) / sum(w)**2`` (the survey
    estimator of a mean with probability weights, Cochran 1977 sec. 6.4; statsmodels'
    ``WLS(d, 1, weights=w).fit(cov_type="HC1")``), on ``n_eff - 1`` degrees of freedom,
    ``n_eff = sum(w)**2 / sum(w**2)`` being Kish's (1965) effective number of queries.
    With the survey default of ``n - 1``, simulated null deltas with heavy-tailed
    (Pareto) traffic weights were rejected 15-19% of the time at a nominal 5% (12 and 40
    queries); with Kish's, 6-8%; the randomization test is exact;
  - *randomization*: the signs of the weighted deltas ``w d`` are flipped (Fisher's and
    Pitman's sign-flip argument holds for any statistic of the signed deltas; the
    statistic here is ``sum(w d)``, which orders the sign vectors as ``D`` does);
  - *bootstrap* (CI and test): queries are resampled uniformly with replacement, each
    keeping its weight, and each resample's statistic is its weighted mean ``sum(w* d*) /
    sum(w*)``: the nonparametric bootstrap of a ratio estimator (Efron and Tibshirani
    1993, sec. 9-10); BCa's jackknife leaves one query (and its weight) out;
  - *Wilcoxon*: no standard weighted form; ``weights=`` raises;
  - Cohen's d_z: ``D`` over the weighted standard deviation
    ``sqrt(n / (n - 1) * sum(w (d - D)**2) / sum(w))``.

Examples
--------
>>> import numpy as np
>>> from irframe.stats import paired_test
>>> x = np.array([0.52, 0.61, 0.40, 0.75, 0.33, 0.68, 0.59, 0.47])
>>> y = np.array([0.48, 0.50, 0.41, 0.62, 0.30, 0.60, 0.51, 0.45])
>>> r = paired_test(x, y, test="t")
>>> round(r.statistic, 4), round(r.p_value, 4)
(3.5496, 0.0093)
>>> paired_test(x, y, test="randomization").p_value  # exact: 2**8 sign vectors
0.015625
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal, cast

import numpy as np
import numpy.typing as npt

from irframe._distributions import norm_cdf, norm_ppf, norm_sf, student_t_sf
from irframe._input.params import MAX_RESAMPLES, check_level, check_resamples, check_seed
from irframe._resample import exact_signs, index_chunks, sign_chunks
from irframe.exceptions import InvalidDataError, InvalidParameterError

__all__ = [
    "CORRECTIONS",
    "MAX_RESAMPLES",
    "TESTS",
    "ConfidenceInterval",
    "PairedTestResult",
    "adjust_p_values",
    "bootstrap_ci",
    "bootstrap_test",
    "cohens_dz",
    "paired_t_test",
    "paired_test",
    "randomization_test",
    "student_t_sf",
    "wilcoxon_test",
]

TestName = Literal["randomization", "t", "wilcoxon", "bootstrap"]
CorrectionName = Literal["holm", "bonferroni", "bh", "none"]
CIMethod = Literal["percentile", "bca"]

#: Accepted ``test=`` names (and their aliases).
TESTS: dict[str, str] = {
    "randomization": "randomization",
    "permutation": "randomization",
    "t": "t",
    "ttest": "t",
    "t-test": "t",
    "paired-t": "t",
    "wilcoxon": "wilcoxon",
    "bootstrap": "bootstrap",
}

#: Accepted ``correction=`` names (and their aliases).
CORRECTIONS: dict[str, str] = {
    "holm": "holm",
    "bonferroni": "bonferroni",
    "bh": "bh",
    "fdr_bh": "bh",
    "benjamini-hochberg": "bh",
    "none": "none",
}

#: Sign vectors are enumerated exactly up to this many non-zero deltas (2**16 rows).
EXACT_MAX_N = 16
_EPS = float(np.finfo(np.float64).eps)

SeedLike = int | np.random.Generator | None
ArrayLike = npt.ArrayLike
FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class PairedTestResult:
    """Outcome of one paired two-sided test.

    Attributes
    ----------
    test : str
        ``"randomization"``, ``"t"``, ``"wilcoxon"`` or ``"bootstrap"``.
    statistic : float
        Mean delta (randomization, bootstrap), t (t-test), ``min(R+, R-)`` (Wilcoxon).
    p_value : float
        Two-sided p-value; ``NaN`` when fewer than two pairs.
    n : int
        Number of paired queries (zero deltas included).
    method : str
        How the p-value was obtained: ``"exact"``, ``"monte-carlo"``,
        ``"asymptotic"``, ``"t-distribution"``, ``"degenerate"``.
    note : str or None
        Why a result is degenerate (``"n < 2"``, ``"all deltas are zero"``), else None.
    """

    test: str
    statistic: float
    p_value: float
    n: int
    method: str
    note: str | None = None


@dataclass(frozen=True)
class ConfidenceInterval:
    """A bootstrap confidence interval for the mean delta.

    Attributes
    ----------
    estimate : float
        Observed mean delta.
    low, high : float
        Interval bounds (``NaN`` when fewer than two pairs).
    level : float
        Confidence level, e.g. 0.95.
    method : str
        ``"percentile"`` or ``"bca"``.
    n : int
        Number of paired queries.
    """

    estimate: float
    low: float
    high: float
    level: float
    method: str
    n: int


# --------------------------------------------------------------------------------------
# input handling
# --------------------------------------------------------------------------------------
def _deltas(x: ArrayLike, y: ArrayLike | None, where: str) -> FloatArray:
    xa = np.asarray(x, dtype=np.float64)
    if xa.ndim != 1:
        msg = f"{where}: x must be a 1-D vector of per-query scores; got shape {xa.shape}."
        raise InvalidDataError(msg)
    if y is None:
        d = xa
    else:
        ya = np.asarray(y, dtype=np.float64)
        if ya.shape != xa.shape:
            msg = (
                f"{where}: x and y must be paired vectors of the same length; got {xa.shape[0]} "
                f"and {ya.shape}.\nHint: align both systems on the same queries first."
            )
            raise InvalidDataError(msg)
        d = xa - ya
    if not np.all(np.isfinite(d)):
        bad = int(np.count_nonzero(~np.isfinite(d)))
        msg = (
            f"{where}: {bad} per-query value(s) are NaN or infinite.\n"
            "Hint: drop unjudged queries (null scores) before testing."
        )
        raise InvalidDataError(msg)
    return d


def _weighted(d: FloatArray, weights: ArrayLike | None, where: str) -> tuple[FloatArray, FloatArray | None]:
    """The deltas and their weights (None: unweighted, or every weight equal), queries of
    weight 0 left out.

    Weights must be one finite number >= 0 per delta, not all 0.
    """
    if weights is None:
        return d, None
    w = np.asarray(weights, dtype=np.float64)
    if w.shape != d.shape:
        msg = (
            f"{where}: weights must hold one weight per query; got shape {w.shape} for "
            f"{d.shape[0]} deltas. Hint: align the weights with the per-query scores."
        )
        raise InvalidDataError(msg)
    bad = ~np.isfinite(w) | (w < 0)
    if np.any(bad):
        msg = (
            f"{where}: {int(np.count_nonzero(bad))} weight(s) are negative, NaN or infinite "
            f"(e.g. {w[bad][0]!r}). Hint: weights are non-negative numbers such as traffic counts."
        )
        raise InvalidDataError(msg)
    if d.size and not np.any(w > 0):
        msg = f"{where}: every weight is 0; a weighted mean needs a positive weight."
        raise InvalidDataError(msg)
    keep = w > 0
    d, w = d[keep], w[keep]
    # equal weights are the unweighted test, exactly (no last-bit drift in the means)
    return (d, None) if np.all(w == w[0]) else (d, w)


def _wmean(d: FloatArray, w: FloatArray | None) -> float:
    """The (weighted) mean; NaN for no deltas."""
    if not d.size:
        return math.nan
    return float(d.mean()) if w is None else float((w * d).sum() / w.sum())


def _check_seed(seed: object, where: str) -> SeedLike:
    return cast("SeedLike", check_seed(seed, where))


def _rng(seed: SeedLike, where: str) -> np.random.Generator:
    checked = _check_seed(seed, where)
    if isinstance(checked, np.random.Generator):
        return checked
    return np.random.default_rng(checked)


def _check_count(value: object, name: str, where: str) -> int:
    return check_resamples(value, name, where)


def _check_level(ci: object, where: str) -> float:
    return check_level(ci, "ci", where)


def _sign_matrix(m: int) -> FloatArray:
    """All 2**m sign vectors as rows of +1.0/-1.0 (the first row all +1), read-only; the
    table is built once per ``m`` up to :data:`EXACT_MAX_N` (:mod:`irframe._resample`)."""
    return exact_signs(m, keep=EXACT_MAX_N)


@lru_cache(maxsize=64)
def _wilcoxon_pmf(n: int) -> FloatArray:
    """Exact null distribution of R+ for n untied non-zero deltas (r = 0..n(n+1)/2).

    A shift-and-add over the ranks 1..n (the generating function prod(1 + z^i) / 2^n):
    at most 50 vector steps, exact in float64, computed once per n (cached, read-only).
    """
    c = np.ones(1, dtype=np.float64)
    for k in range(1, n + 1):
        nxt = np.zeros(k * (k + 1) // 2 + 1, dtype=np.float64)
        nxt[: c.size] = 0.5 * c
        nxt[-c.size :] += 0.5 * c
        c = nxt
    c.flags.writeable = False
    return c


def _average_ranks(a: FloatArray) -> tuple[FloatArray, npt.NDArray[np.int64]]:
    """Average ranks (1-based) of ``a`` and the sizes of its tie groups."""
    _, inverse, counts = np.unique(a, return_inverse=True, return_counts=True)
    ends = np.cumsum(counts)
    avg = ends - (counts - 1) / 2.0
    return avg[inverse].astype(np.float64), counts.astype(np.int64)


# --------------------------------------------------------------------------------------
# tests
# --------------------------------------------------------------------------------------
def _degenerate(test: str, d: FloatArray, statistic: float = math.nan) -> PairedTestResult | None:
    n = int(d.size)
    if n < 2:
        return PairedTestResult(test, statistic, math.nan, n, "degenerate", "n < 2")
    if not np.any(d):
        return PairedTestResult(test, statistic, 1.0, n, "degenerate", "all deltas are zero")
    return None


def _standard_error(d: FloatArray, w: FloatArray | None, mean: float) -> float:
    """The standard error of the (weighted) mean delta: ``sd / sqrt(n)``, or the
    linearization's ``sqrt(n / (n - 1) * sum(w**2 (d - D)**2)) / sum(w)``."""
    n = d.size
    if w is None:
        return float(d.std(ddof=1)) / math.sqrt(n)
    return math.sqrt(n / (n - 1) * float((w**2 * (d - mean) ** 2).sum())) / float(w.sum())


def paired_t_test(
    x: ArrayLike, y: ArrayLike | None = None, *, weights: ArrayLike | None = None
) -> PairedTestResult:
    """Paired two-sided t-test on the deltas ``x - y`` (as ``scipy.stats.ttest_rel``).

    Parameters
    ----------
    x, y : array-like
        Per-query scores of the system and of the baseline, paired by position.
        ``y=None``: ``x`` holds the deltas.
    weights : array-like, optional
        One weight >= 0 per query: the test of the weighted mean delta with the
        linearization standard error, on Kish's effective degrees of freedom (see the
        module's conventions).

    Returns
    -------
    PairedTestResult
        ``statistic`` is t with ``n - 1`` degrees of freedom (weighted: ``n_eff - 1``).

    Examples
    --------
    >>> r = paired_t_test([0.5, 0.7, 0.9, 0.4], [0.4, 0.5, 0.8, 0.4])
    >>> round(r.statistic, 6), round(r.p_value, 6)
    (2.44949, 0.091721)
    >>> paired_t_test([0.5], [0.4]).note
    'n < 2'
    >>> r = paired_t_test([0.1, 0.2, 0.1, 0.0], weights=[1, 1, 1, 1])  # equal weights: unweighted
    >>> round(r.statistic, 6) == round(paired_t_test([0.1, 0.2, 0.1, 0.0]).statistic, 6)
    True
    >>> round(paired_t_test([0.1, 0.2, 0.1, 0.0], weights=[3, 1, 1, 1]).statistic, 4)
    3.6742
    """
    d, w = _weighted(_deltas(x, y, "paired_t_test"), weights, "paired_t_test")
    n = int(d.size)
    mean = _wmean(d, w)
    if n < 2 or not np.any(d):
        return cast("PairedTestResult", _degenerate("t", d, 0.0 if n >= 2 else math.nan))
    se = _standard_error(d, w, mean)
    if se == 0.0:
        return PairedTestResult("t", math.copysign(math.inf, mean), 0.0, n, "t-distribution")
    t = mean / se
    df = n - 1 if w is None else float(w.sum()) ** 2 / float((w**2).sum()) - 1
    p = min(1.0, 2.0 * student_t_sf(abs(t), df))
    return PairedTestResult("t", t, p, n, "t-distribution")


def wilcoxon_test(
    x: ArrayLike, y: ArrayLike | None = None, *, weights: ArrayLike | None = None
) -> PairedTestResult:
    """Wilcoxon signed-rank two-sided test, matching ``scipy.stats.wilcoxon`` defaults.

    ``zero_method='wilcox'`` (zero deltas dropped), ``correction=False``,
    ``method='auto'``: exact null distribution for ``n <= 50`` without ties or zeros;
    exact sign-flip enumeration of ``R+`` with ties or zeros and ``n <= 13``; the
    normal approximation with tie correction otherwise.

    Parameters
    ----------
    x, y : array-like
        Per-query scores, paired by position (``y=None``: ``x`` holds the deltas).

    Returns
    -------
    PairedTestResult
        ``statistic`` is ``min(R+, R-)``; ``method`` says which null distribution was used.

    Examples
    --------
    >>> r = wilcoxon_test([0.9, 0.8, 0.7, 0.75, 0.6, 0.5], [0.1, 0.2, 0.3, 0.4, 0.5, 0.45])
    >>> r.statistic, r.p_value, r.method
    (0.0, 0.03125, 'exact')
    """
    if weights is not None:
        msg = (
            "wilcoxon_test: the signed-rank test has no standard weighted form, so weights= is "
            "refused. Hint: test='randomization', 't' or 'bootstrap' weight the queries."
        )
        raise InvalidParameterError(msg)
    d = _deltas(x, y, "wilcoxon_test")
    n = int(d.size)
    degenerate = _degenerate("wilcoxon", d, 0.0)
    if degenerate is not None:
        return degenerate
    nz = d[d != 0]
    m = int(nz.size)
    ranks, ties = _average_ranks(np.abs(nz))
    r_plus = float(ranks[nz > 0].sum())
    r_minus = float(ranks[nz < 0].sum())
    statistic = min(r_plus, r_minus)
    has_ties = bool(np.any(ties > 1))
    has_zeros = m < n
    if n <= 50 and not (has_ties or has_zeros):
        pmf = _wilcoxon_pmf(m)
        k = round(r_plus)
        sf = float(pmf[k:].sum())
        cdf = float(pmf[: k + 1].sum())
        return PairedTestResult("wilcoxon", statistic, min(1.0, 2.0 * min(sf, cdf)), n, "exact")
    if n <= 13:
        signs = _sign_matrix(m)
        null = (signs > 0).astype(np.float64) @ ranks
        gamma = abs(100 * _EPS * r_plus)
        less = np.count_nonzero(null <= r_plus + gamma) / null.size
        greater = np.count_nonzero(null >= r_plus - gamma) / null.size
        return PairedTestResult("wilcoxon", statistic, float(min(1.0, 2.0 * min(less, greater))), n, "exact")
    mean = m * (m + 1) / 4.0
    var = (m * (m + 1.0) * (2.0 * m + 1.0) - float(np.sum(ties**3 - ties)) / 2.0) / 24.0
    z = (r_plus - mean) / math.sqrt(var)
    return PairedTestResult("wilcoxon", statistic, min(1.0, 2.0 * norm_sf(abs(z))), n, "asymptotic")


def randomization_test(
    x: ArrayLike,
    y: ArrayLike | None = None,
    *,
    n_permutations: int = 10_000,
    seed: SeedLike = 0,
    exact: bool | None = None,
    weights: ArrayLike | None = None,
) -> PairedTestResult:
    """Paired two-sided randomization (sign-flip permutation) test of the mean delta.

    Under the null hypothesis each query's delta is as likely to be ``+d`` as ``-d``.
    The permuted statistics are computed a chunk at a time as (random sign matrix) @
    (delta vector) — no Python loop per permutation.

    Parameters
    ----------
    x, y : array-like
        Per-query scores, paired by position (``y=None``: ``x`` holds the deltas).
    n_permutations : int, default 10_000
        Random sign vectors ``B`` for the Monte-Carlo test.
    seed : int, numpy Generator or None, default 0
        Seed of the random sign vectors; the same seed gives the same p-value.
    exact : bool or None, default None
        ``None``: enumerate all ``2**m`` sign vectors when the number ``m`` of non-zero
        deltas is at most 16, else Monte Carlo. ``True`` forces enumeration (``m <= 24``).
    weights : array-like, optional
        One weight >= 0 per query: the signs of the weighted deltas ``w d`` are flipped and
        the statistic is the weighted mean delta (see the module's conventions).

    Returns
    -------
    PairedTestResult
        ``statistic`` is the mean delta; ``p_value`` is ``#{|T*| >= |T|} / 2**m``
        (exact) or ``(#{|T*| >= |T|} + 1) / (B + 1)`` (Monte Carlo).

    Examples
    --------
    >>> r = randomization_test([0.3, 0.5, 0.6, 0.8], [0.1, 0.2, 0.4, 0.5])
    >>> r.p_value, r.method  # only the all-+ and all-- sign vectors reach |T|
    (0.125, 'exact')
    >>> rng_p = randomization_test(range(30), [0] * 30, exact=False, n_permutations=999).p_value
    >>> rng_p  # (0 + 1) / (999 + 1)
    0.001
    >>> randomization_test([0.3, -0.1, 0.2], weights=[1, 1, 4]).p_value  # 4 of 8 flips of (.3, -.1, .8)
    0.5
    """
    d, w = _weighted(_deltas(x, y, "randomization_test"), weights, "randomization_test")
    n_perm = _check_count(n_permutations, "n_permutations", "randomization_test")
    checked = _check_seed(seed, "randomization_test")
    n = int(d.size)
    stat = _wmean(d, w)
    degenerate = _degenerate("randomization", d, stat)
    if degenerate is not None:
        return degenerate
    signed = d if w is None else w * d
    nz = signed[signed != 0]
    m = int(nz.size)
    # The sum over non-zero deltas orders permutations exactly like the mean over all.
    t_obs = abs(float(nz.sum()))
    gamma = 8.0 * m * _EPS * float(np.abs(nz).sum())
    use_exact = m <= EXACT_MAX_N if exact is None else bool(exact)
    if use_exact:
        if m > 24:
            msg = (
                f"randomization_test: exact=True would enumerate 2**{m} sign vectors. "
                "Hint: use exact=None (auto) or exact=False (Monte Carlo)."
            )
            raise InvalidParameterError(msg)
        null = np.abs(_sign_matrix(m) @ nz)
        count = int(np.count_nonzero(null >= t_obs - gamma))
        return PairedTestResult("randomization", stat, count / null.size, n, "exact")
    count = 0
    for signs in sign_chunks(checked, lambda: _rng(checked, "randomization_test"), n_perm, m):
        count += int(np.count_nonzero(np.abs(signs @ nz) >= t_obs - gamma))
    return PairedTestResult("randomization", stat, (count + 1) / (n_perm + 1), n, "monte-carlo")


def _bootstrap_means(
    d: FloatArray, n_bootstrap: int, seed: SeedLike, where: str, w: FloatArray | None = None
) -> FloatArray:
    """Means of ``n_bootstrap`` resamples of the queries (weighted: each keeps its weight)."""
    out = np.empty(n_bootstrap, dtype=np.float64)
    done = 0
    for idx in index_chunks(seed, lambda: _rng(seed, where), n_bootstrap, d.size):
        c = idx.shape[0]
        if w is None:
            out[done : done + c] = d[idx].mean(axis=1)
        else:
            wi = w[idx]
            out[done : done + c] = (wi * d[idx]).sum(axis=1) / wi.sum(axis=1)
        done += c
    return out


def _jackknife(d: FloatArray, w: FloatArray | None) -> FloatArray:
    """The leave-one-out (weighted) means."""
    n = d.size
    if w is None:
        return cast("FloatArray", (d.sum() - d) / (n - 1))
    return cast("FloatArray", ((w * d).sum() - w * d) / (w.sum() - w))


def bootstrap_ci(
    x: ArrayLike,
    y: ArrayLike | None = None,
    *,
    n_bootstrap: int = 10_000,
    ci: float = 0.95,
    method: CIMethod = "percentile",
    seed: SeedLike = 0,
    weights: ArrayLike | None = None,
) -> ConfidenceInterval:
    """Paired bootstrap confidence interval of the mean delta ``mean(x - y)``.

    Queries are resampled with replacement ``n_bootstrap`` times (in chunks, as an
    index matrix), keeping each query's pair together.

    Parameters
    ----------
    x, y : array-like
        Per-query scores, paired by position (``y=None``: ``x`` holds the deltas).
    n_bootstrap : int, default 10_000
        Number of bootstrap resamples.
    ci : float, default 0.95
        Confidence level.
    method : {"percentile", "bca"}, default "percentile"
        Percentile interval, or bias-corrected and accelerated (BCa).
    seed : int, numpy Generator or None, default 0
        Seed of the resampling.
    weights : array-like, optional
        One weight >= 0 per query: the interval of the weighted mean delta, queries
        resampled with their weights (see the module's conventions).

    Returns
    -------
    ConfidenceInterval

    Examples
    --------
    >>> r = bootstrap_ci([0.3, 0.5, 0.6, 0.8, 0.4], [0.1, 0.2, 0.4, 0.5, 0.5])
    >>> round(r.estimate, 3), r.low < r.estimate < r.high, r.method
    (0.18, True, 'percentile')
    >>> round(bootstrap_ci([0.2, 0.3, 0.2, 0.3, -0.1], weights=[1, 1, 1, 1, 6]).estimate, 3)
    0.04
    """
    d, w = _weighted(_deltas(x, y, "bootstrap_ci"), weights, "bootstrap_ci")
    n_boot = _check_count(n_bootstrap, "n_bootstrap", "bootstrap_ci")
    checked = _check_seed(seed, "bootstrap_ci")
    level = _check_level(ci, "bootstrap_ci")
    if method not in ("percentile", "bca"):
        err = InvalidParameterError.for_value("method", "bootstrap_ci", "'percentile' or 'bca'", method)
        raise err
    n = int(d.size)
    est = _wmean(d, w)
    if n < 2:
        return ConfidenceInterval(est, math.nan, math.nan, level, method, n)
    if not np.any(d != d[0]):  # constant deltas: every resample has the same mean
        return ConfidenceInterval(est, est, est, level, method, n)
    means = _bootstrap_means(d, n_boot, checked, "bootstrap_ci", w)
    alpha = (1.0 - level) / 2.0
    lo_q, hi_q = alpha, 1.0 - alpha
    if method == "bca":
        below = np.count_nonzero(means < est) + np.count_nonzero(means <= est)
        z0 = norm_ppf(below / (2.0 * n_boot))
        jack = _jackknife(d, w)
        u = (n - 1) * (jack.mean() - jack)
        a_hat = float((u**3).sum() / n**3) / (6.0 * float((u**2).sum() / n**2) ** 1.5)
        z_lo, z_hi = norm_ppf(alpha), norm_ppf(1.0 - alpha)
        if not math.isfinite(z0):  # every resample on one side: BCa is undefined (as scipy)
            return ConfidenceInterval(est, math.nan, math.nan, level, method, n)
        lo_q = norm_cdf(z0 + (z0 + z_lo) / (1 - a_hat * (z0 + z_lo)))
        hi_q = norm_cdf(z0 + (z0 + z_hi) / (1 - a_hat * (z0 + z_hi)))
    low, high = np.quantile(means, [lo_q, hi_q])
    return ConfidenceInterval(est, float(low), float(high), level, method, n)


def bootstrap_test(
    x: ArrayLike,
    y: ArrayLike | None = None,
    *,
    n_bootstrap: int = 10_000,
    seed: SeedLike = 0,
    weights: ArrayLike | None = None,
) -> PairedTestResult:
    """Paired two-sided bootstrap test of the mean delta (resampled means shifted to 0).

    ``p = (#{|mean*_b - mean| >= |mean|} + 1) / (B + 1)``; with ``weights``, of the
    weighted means (queries resampled with their weights).

    Examples
    --------
    >>> r = bootstrap_test([0.3, 0.5, 0.6, 0.8, 0.4], [0.1, 0.2, 0.4, 0.5, 0.5], n_bootstrap=999)
    >>> r.method, 0 < r.p_value < 0.2
    ('monte-carlo', True)
    """
    d, w = _weighted(_deltas(x, y, "bootstrap_test"), weights, "bootstrap_test")
    n_boot = _check_count(n_bootstrap, "n_bootstrap", "bootstrap_test")
    checked = _check_seed(seed, "bootstrap_test")
    n = int(d.size)
    stat = _wmean(d, w)
    degenerate = _degenerate("bootstrap", d, stat)
    if degenerate is not None:
        return degenerate
    means = _bootstrap_means(d, n_boot, checked, "bootstrap_test", w)
    gamma = 8.0 * n * _EPS * float(np.abs(d).sum()) / n
    count = int(np.count_nonzero(np.abs(means - stat) >= abs(stat) - gamma))
    return PairedTestResult("bootstrap", stat, (count + 1) / (n_boot + 1), n, "monte-carlo")


def paired_test(
    x: ArrayLike,
    y: ArrayLike | None = None,
    *,
    test: str = "randomization",
    n_permutations: int = 10_000,
    n_bootstrap: int = 10_000,
    seed: SeedLike = 0,
    weights: ArrayLike | None = None,
) -> PairedTestResult:
    """Run the named paired two-sided test.

    Parameters
    ----------
    x, y : array-like
        Per-query scores, paired by position (``y=None``: ``x`` holds the deltas).
    test : {"randomization", "t", "wilcoxon", "bootstrap"}, default "randomization"
        Aliases: ``"permutation"``, ``"ttest"``, ``"t-test"``, ``"paired-t"``.
    n_permutations, n_bootstrap : int
        Resamples of the randomization and bootstrap tests.
    seed : int, numpy Generator or None, default 0
        Seed of the Monte-Carlo tests.
    weights : array-like, optional
        One weight >= 0 per query: the weighted test (not for Wilcoxon; see the module's
        conventions).

    Examples
    --------
    >>> paired_test([1.0, 0.5, 0.25], [0.5, 0.5, 0.0], test="wilcoxon").p_value
    0.5
    >>> paired_test([1.0, 0.5], [0.5, 0.5], test="z")
    Traceback (most recent call last):
    ...
    irframe.exceptions.InvalidParameterError: The 'test' parameter of paired_test must be one of ...
    """
    name = TESTS.get(str(test).lower()) if isinstance(test, str) else None
    if name is None:
        err = InvalidParameterError.for_value(
            "test", "paired_test", "one of 'randomization', 't', 'wilcoxon', 'bootstrap'", test
        )
        raise err
    _check_count(n_permutations, "n_permutations", "paired_test")
    _check_count(n_bootstrap, "n_bootstrap", "paired_test")
    _check_seed(seed, "paired_test")
    if name == "t":
        return paired_t_test(x, y, weights=weights)
    if name == "wilcoxon":
        return wilcoxon_test(x, y, weights=weights)
    if name == "bootstrap":
        return bootstrap_test(x, y, n_bootstrap=n_bootstrap, seed=seed, weights=weights)
    return randomization_test(x, y, n_permutations=n_permutations, seed=seed, weights=weights)


def cohens_dz(x: ArrayLike, y: ArrayLike | None = None, *, weights: ArrayLike | None = None) -> float:
    """Cohen's d_z: mean delta over the standard deviation (ddof=1) of the deltas.

    ``NaN`` for fewer than two pairs or when all deltas are equal (sd = 0).  With
    ``weights``: the weighted mean over ``sqrt(n / (n - 1) * sum(w (d - D)**2) / sum(w))``.

    Examples
    --------
    >>> round(cohens_dz([0.5, 0.7, 0.9, 0.4], [0.4, 0.5, 0.8, 0.4]), 6)
    1.224745
    >>> round(cohens_dz([0.1, 0.2, 0.0, 0.1], weights=[2, 2, 2, 2]), 6)  # equal weights
    1.224745
    """
    d, w = _weighted(_deltas(x, y, "cohens_dz"), weights, "cohens_dz")
    n = d.size
    if n < 2:
        return math.nan
    mean = _wmean(d, w)
    if w is None:
        sd = float(d.std(ddof=1))
    else:
        sd = math.sqrt(n / (n - 1) * float((w * (d - mean) ** 2).sum()) / float(w.sum()))
    return mean / sd if sd > 0 else math.nan


def adjust_p_values(p_values: ArrayLike | Sequence[float], method: str = "holm") -> FloatArray:
    """Adjust a family of p-values for multiple comparisons.

    Parameters
    ----------
    p_values : array-like
        Raw p-values; ``NaN`` entries are left out of the family and stay ``NaN``.
    method : {"holm", "bonferroni", "bh", "none"}, default "holm"
        Holm step-down (family-wise error), Bonferroni, Benjamini-Hochberg step-up
        (false discovery rate, alias ``"fdr_bh"``), or no correction.

    Returns
    -------
    numpy.ndarray
        Adjusted p-values in the input order, monotone in the raw p-values and capped at 1.

    Examples
    --------
    >>> adjust_p_values([0.01, 0.04, 0.03, 0.20], "holm")
    array([0.04, 0.09, 0.09, 0.2 ])
    >>> adjust_p_values([0.01, 0.04, 0.03, 0.20], "bh")
    array([0.04     , 0.0533..., 0.0533..., 0.2      ])
    >>> adjust_p_values([0.01, float("nan"), 0.4], "bonferroni")
    array([0.02, nan, 0.8 ])
    """
    name = CORRECTIONS.get(method.lower()) if isinstance(method, str) else None
    if name is None:
        err = InvalidParameterError.for_value(
            "correction", "adjust_p_values", "one of 'holm', 'bonferroni', 'bh', 'none'", method
        )
        raise err
    p = np.asarray(p_values, dtype=np.float64).ravel()
    out = np.full(p.shape, np.nan)
    ok = np.isfinite(p)
    if np.any((p[ok] < 0) | (p[ok] > 1)):
        msg = "adjust_p_values: p-values must lie in [0, 1]."
        raise InvalidDataError(msg)
    q = p[ok]
    m = q.size
    if m == 0:
        return out
    if name == "none":
        adj = q.copy()
    elif name == "bonferroni":
        adj = np.minimum(q * m, 1.0)
    else:
        order = np.argsort(q, kind="stable")
        sorted_p = q[order]
        ranks = np.arange(1, m + 1, dtype=np.float64)
        if name == "holm":
            steps = np.maximum.accumulate((m - ranks + 1) * sorted_p)
        else:  # Benjamini-Hochberg
            steps = np.minimum.accumulate((m / ranks * sorted_p)[::-1])[::-1]
        adj = np.empty(m)
        adj[order] = np.minimum(steps, 1.0)
    out[ok] = adj
    return out
