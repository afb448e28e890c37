"""power: the smallest change a golden set can see, and the queries a given change needs.

The test, the variance and what is left out are written once, in :func:`power`'s Notes.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from functools import lru_cache
from numbers import Integral, Real
from typing import Any

import numpy as np
import numpy.typing as npt
import polars as pl

from irframe._distributions import norm_cdf_array, t_critical, threshold
from irframe._input.frames import from_lazy, to_lazy
from irframe.exceptions import ColumnNotFoundError, InvalidDataError, InvalidParameterError

__all__ = [
    "detectable_effect",
    "gate_level",
    "power",
    "power_sentence",
    "queries_needed",
    "t_test_power",
]

_WHERE = "power"
# Simpson points over the chi distribution: power within 2e-7 of statsmodels' at n = 2, 1e-9 from n = 4
_GRID = 801
_MAX_N = 10_000_000  # queries_needed gives up beyond this many queries
FloatArray = npt.NDArray[np.float64]


# --- the paired t-test's power --------------------------------------------------------------------
@lru_cache(maxsize=256)
def _chi_grid(df: float) -> tuple[FloatArray, FloatArray]:
    """Points ``s`` and Simpson weights of the density of ``S = sqrt(chi2_df / df)``."""
    spread = 12.0 / math.sqrt(2.0 * df)
    lo, hi = max(0.0, 1.0 - spread), 1.0 + max(spread, 6.0 if df < 3 else 0.0)
    s = np.linspace(lo, hi, _GRID)
    half = df / 2.0
    log_s = np.log(np.maximum(s, np.finfo(np.float64).tiny))  # (df - 1) * log(0) is 0 for df = 1
    log_f = math.log(2.0) + half * math.log(half) - math.lgamma(half) + (df - 1) * log_s - half * s * s
    w = np.ones(_GRID)
    w[1:-1:2], w[2:-1:2] = 4.0, 2.0  # Simpson's rule (an odd number of points)
    w *= np.exp(log_f)
    w /= w.sum()  # normalised: the grid's own mass is 1
    s.flags.writeable = False
    w.flags.writeable = False
    return s, w


def t_test_power(effect_size: float, n: int, alpha: float = 0.05) -> float:
    """Power of the two-sided paired t-test with ``n`` pairs for a standardized effect (``delta / sd``).

    Equals ``statsmodels.stats.power.TTestPower().power(effect_size, n, alpha)`` (to ~1e-9).

    Examples
    --------
    >>> round(t_test_power(0.5, 30), 4)
    0.7540
    >>> round(t_test_power(0.0, 30), 4)  # no effect: the test's level
    0.05
    """
    df = n - 1.0
    crit = t_critical(alpha, df)
    nc = abs(effect_size) * math.sqrt(n)
    s, w = _chi_grid(df)
    return float((w * (norm_cdf_array(nc - crit * s) + norm_cdf_array(-nc - crit * s))).sum())


def _standardized_mde(n: int, alpha: float, target: float) -> float:
    """The effect size ``delta / sd`` at which the power with ``n`` pairs reaches ``target``."""
    return threshold(lambda e: t_test_power(e, n, alpha) >= target, 1.0, rel=1e-10, steps=60)


def _queries_for(effect_size: float, alpha: float, target: float) -> int | None:
    """The smallest ``n >= 2`` whose power for ``effect_size`` reaches ``target`` (None past 1e7)."""
    if effect_size == 0:
        return None
    hi = 2
    while t_test_power(effect_size, hi, alpha) < target:
        if hi >= _MAX_N:
            return None
        hi = min(2 * hi, _MAX_N)
    lo = max(2, hi // 2)
    if t_test_power(effect_size, lo, alpha) >= target:
        return lo
    while hi - lo > 1:  # the power grows with n: lo fails, hi passes
        mid = (lo + hi) // 2
        if t_test_power(effect_size, mid, alpha) >= target:
            hi = mid
        else:
            lo = mid
    return hi


# --- on per-query values --------------------------------------------------------------------------
def _check_level(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, Real) or not 0 < float(value) < 1:
        err = InvalidParameterError.for_value(name, _WHERE, "a float in the open interval (0, 1)", value)
        raise err
    return float(value)


def _check_target(alpha: object, target: object) -> tuple[float, float]:
    a, p = _check_level(alpha, "alpha"), _check_level(target, "power")
    if p <= a:
        msg = (
            f"The 'power' parameter of {_WHERE} ({p}) must exceed alpha ({a}): a test rejects "
            "with probability alpha when there is no effect at all. Hint: power=0.8 is usual."
        )
        raise InvalidParameterError(msg)
    return a, p


def _delta_sd(
    values: npt.ArrayLike, paired: bool, correlation: float | None, where: str
) -> tuple[float, int]:
    x = np.asarray(values, dtype=np.float64)
    x = x[np.isfinite(x)]
    if x.size < 2:
        msg = f"{where} needs at least 2 queries with a value to estimate a variance; got {x.size}."
        raise InvalidDataError(msg)
    sd = float(x.std(ddof=1))
    if paired:
        return sd, int(x.size)
    rho = 0.0 if correlation is None else correlation
    return sd * math.sqrt(2.0 * (1.0 - rho)), int(x.size)


def _check_correlation(correlation: object, paired: bool) -> float | None:
    if correlation is None:
        return None
    if paired:
        msg = (
            f"The 'correlation' parameter of {_WHERE} is for one system's values; two systems' "
            "deltas carry their own variance. Hint: leave correlation unset."
        )
        raise InvalidParameterError(msg)
    if isinstance(correlation, bool) or not isinstance(correlation, Real) or not -1 <= float(correlation) < 1:
        err = InvalidParameterError.for_value("correlation", _WHERE, "a float in [-1, 1)", correlation)
        raise err
    return float(correlation)


def _check_n(value: object, name: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, Integral) or value < 2:
        raise InvalidParameterError.for_value(name, _WHERE, "an int in the range [2, inf)", value)
    return int(value)


def detectable_effect(
    values: npt.ArrayLike,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
    paired: bool = True,
    correlation: float | None = None,
    n_queries: int | None = None,
) -> float:
    """The minimum detectable effect (in the measure's units) of per-query deltas or values.

    Parameters
    ----------
    values : array-like of float
        Per-query deltas of two systems (``paired=True``) or one system's per-query
        values (``paired=False``: ``sd_delta = sd * sqrt(2 (1 - correlation))``).
        NaN entries are left out.
    alpha, power : float
        Level of the two-sided test, and the power wanted.
    paired : bool, default True
        Whether ``values`` are deltas.
    correlation : float, optional
        One system only: the assumed correlation of two systems' per-query values (default 0).
    n_queries : int, optional
        The set size to compute it for (default: the number of values).

    Returns
    -------
    float
        ``NaN`` when the values have no variance.

    Examples
    --------
    >>> import numpy as np
    >>> d = np.array([0.1, -0.05, 0.2, 0.0, 0.15, -0.1, 0.05, 0.1, 0.0, 0.05])
    >>> round(detectable_effect(d), 4)  # sd 0.0913 over 10 queries
    0.0909
    >>> round(detectable_effect(d, n_queries=40), 4)
    0.0415
    """
    a, p = _check_target(alpha, power)
    rho = _check_correlation(correlation, paired)
    sd, n = _delta_sd(values, paired, rho, "detectable_effect")
    size = _check_n(n_queries, "n_queries") or n
    if sd == 0:
        return math.nan
    return _standardized_mde(size, a, p) * sd


def queries_needed(
    values: npt.ArrayLike,
    effect: float,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
    paired: bool = True,
    correlation: float | None = None,
) -> int | None:
    """The queries a set needs to detect a change of ``effect`` with the given power.

    Same ``values`` as :func:`detectable_effect`. ``None`` when the values have no
    variance or more than ten million queries would be needed.

    Examples
    --------
    >>> import numpy as np
    >>> d = np.array([0.1, -0.05, 0.2, 0.0, 0.15, -0.1, 0.05, 0.1, 0.0, 0.05])
    >>> queries_needed(d, 0.05)
    29
    """
    a, p = _check_target(alpha, power)
    rho = _check_correlation(correlation, paired)
    if isinstance(effect, bool) or not isinstance(effect, Real) or not math.isfinite(effect) or effect == 0:
        raise InvalidParameterError.for_value("effect", _WHERE, "a non-zero number", effect)
    sd, _ = _delta_sd(values, paired, rho, "queries_needed")
    if sd == 0:
        return None
    return _queries_for(abs(float(effect)) / sd, a, p)


def power_sentence(
    measure: str, n: int, mde: float, power: float = 0.8, alpha: float = 0.05, *, level: str | None = None
) -> str:
    """The line a report states: what change this many queries detect, how often (``level``:
    how the level was derived, :func:`gate_level`'s words; default ``alpha {alpha}``).

    Examples
    --------
    >>> power_sentence("nDCG@10", 40, 0.0523)
    'with 40 queries, changes of 0.0523 nDCG@10 or more are detected 80% of the time (alpha 0.05)'
    """
    if math.isnan(mde):
        return f"with {n} queries, the per-query values of {measure} have no variance: no power analysis"
    return (
        f"with {n} queries, changes of {mde:.3g} {measure} or more are detected "
        f"{100 * power:g}% of the time ({level or f'alpha {alpha:g}'})"
    )


_CORRECTIONS = {"holm": "Holm's", "bonferroni": "Bonferroni's", "bh": "Benjamini-Hochberg's", "none": ""}


def gate_level(alpha: float, correction: str, family: int) -> tuple[float, str]:
    """THE level one comparison must pass in a corrected family, and how it was derived.

    ``alpha / family`` for Holm, Bonferroni and Benjamini-Hochberg (their first step, the
    strictest: a lone change among no other faces it), ``alpha`` without correction or for
    a family of one.  ``check``'s power line and :func:`power` both use it.

    Examples
    --------
    >>> gate_level(0.05, "holm", 12)
    (0.004166666666666667, "alpha 0.00417 = 0.05 / 12: Holm's first step")
    >>> gate_level(0.05, "none", 12)
    (0.05, 'alpha 0.05')
    """
    if correction not in _CORRECTIONS:
        raise InvalidParameterError.for_value(
            "correction", _WHERE, "one of 'holm', 'bonferroni', 'bh', 'none'", correction
        )
    if isinstance(family, bool) or not isinstance(family, Integral) or family < 1:
        raise InvalidParameterError.for_value("family", _WHERE, "an int >= 1", family)
    if correction == "none" or family == 1:
        return alpha, f"alpha {alpha:g}"
    level = alpha / int(family)
    return level, f"alpha {level:.3g} = {alpha:g} / {family}: {_CORRECTIONS[correction]} first step"


# --- the frame function ---------------------------------------------------------------------------
def _labels(measure: Any) -> list[str]:
    items = [measure] if isinstance(measure, str) or not isinstance(measure, Iterable) else list(measure)
    if not items:
        raise InvalidParameterError.for_value("measure", _WHERE, "a measure or a non-empty list", measure)
    return [str(m) for m in items]


def _frame(obj: Any, name: str, labels: list[str], query_col: str, system_col: str) -> pl.DataFrame:
    lf, _ = to_lazy(obj, name)
    names = lf.collect_schema().names()
    for col, role, param in [(query_col, "query_id", "query_col"), *[(m, m, "measure") for m in labels]]:
        if col not in names:
            raise ColumnNotFoundError.from_missing(
                role=role, missing=col, available=names, frame=name, parameter=param
            )
    df = lf.collect()
    if system_col in df.columns and df[system_col].n_unique() > 1:
        systems = df[system_col].unique(maintain_order=True).to_list()
        msg = (
            f"The {name} frame holds {len(systems)} systems in {system_col!r} "
            f"({', '.join(map(repr, systems[:4]))}). "
            "Hint: pass {'baseline': per_query_a, 'candidate': per_query_b} for two systems' deltas, "
            f"or filter one system for its values."
        )
        raise InvalidDataError(msg)
    dup = df.filter(pl.col(query_col).is_duplicated())
    if dup.height:
        msg = f"The {name} frame has {dup.height} rows for repeated query ids (e.g. {dup[query_col][0]!r})."
        raise InvalidDataError(msg)
    return df.select(query_col, *[pl.col(m).cast(pl.Float64).fill_nan(None) for m in labels])


def _vectors(
    per_query: Any, labels: list[str], query_col: str, system_col: str
) -> tuple[bool, dict[str, tuple[FloatArray, int]]]:
    """Whether paired, and per measure the values (or deltas) and the queries left out."""
    if isinstance(per_query, Mapping):
        if len(per_query) != 2:
            msg = (
                f"The 'per_query' parameter of {_WHERE} as a mapping must hold two systems "
                f"(baseline, candidate); got {len(per_query)}. Hint: one frame for one system's values."
            )
            raise InvalidParameterError(msg)
        (na, fa), (nb, fb) = per_query.items()
        a = _frame(fa, f"per_query {na!r}", labels, query_col, system_col)
        b = _frame(fb, f"per_query {nb!r}", labels, query_col, system_col)
        both = a.join(b, on=query_col, how="full", coalesce=True, suffix="__ir_b")
        out = {}
        for m in labels:
            d = both.select((pl.col(f"{m}__ir_b") - pl.col(m)).alias("d"))["d"]
            out[m] = (d.drop_nulls().to_numpy().astype(np.float64), d.null_count())
        return True, out
    df = _frame(per_query, "per_query", labels, query_col, system_col)
    return False, {m: (df[m].drop_nulls().to_numpy().astype(np.float64), df[m].null_count()) for m in labels}


def _row(
    measure: str, values: FloatArray, left_out: int, *, paired: bool, settings: dict[str, Any]
) -> dict[str, Any]:
    a, p, rho, size, effect = (settings[k] for k in ("alpha", "power", "correlation", "n_queries", "effect"))
    sd_delta, n = _delta_sd(values, paired, rho, f"power of {measure}")
    size = size or n
    mde = _standardized_mde(size, a, p) * sd_delta if sd_delta > 0 else math.nan
    needed = _queries_for(abs(effect) / sd_delta, a, p) if effect is not None and sd_delta > 0 else None
    at_effect = t_test_power(effect / sd_delta, n, a) if effect is not None and sd_delta > 0 else None
    note = "no variance in the per-query values: no power analysis" if sd_delta == 0 else None
    if effect is not None and sd_delta > 0 and needed is None:
        note = f"an effect of {effect:g} needs more than {_MAX_N:_} queries"
    return {
        "measure": measure,
        "design": "paired deltas" if paired else "one system",
        "n_queries": n,
        "n_left_out": left_out,
        "mean": float(values.mean()),
        "sd": float(values.std(ddof=1)),
        "correlation": None if paired else (rho or 0.0),
        "sd_delta": sd_delta,
        "alpha": a,
        "family": settings["family"],
        "power": p,
        "n_for_mde": size,
        "mde": None if math.isnan(mde) else mde,
        "effect": effect,
        "n_needed": needed,
        "power_at_effect": at_effect,
        "summary": power_sentence(measure, size, mde, p, a, level=settings["level"]),
        "note": note,
    }


_SCHEMA = {
    "measure": pl.String, "design": pl.String, "n_queries": pl.Int64, "n_left_out": pl.Int64,
    "mean": pl.Float64, "sd": pl.Float64, "correlation": pl.Float64, "sd_delta": pl.Float64,
    "alpha": pl.Float64, "family": pl.Int64, "power": pl.Float64, "n_for_mde": pl.Int64, "mde": pl.Float64,
    "effect": pl.Float64, "n_needed": pl.Int64, "power_at_effect": pl.Float64, "summary": pl.String,
    "note": pl.String,
}  # fmt: skip


def power(
    per_query: Any,
    measure: Any,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
    effect: float | None = None,
    n_queries: int | None = None,
    correlation: float | None = None,
    family: int = 1,
    correction: str = "holm",
    query_col: str = "query_id",
    system_col: str = "system",
) -> Any:
    """What change a golden set can detect for a measure, and how many queries a change needs.

    The test (the paired t-test's power, the standard approximation of compare's
    randomization test), the variance used for one system and the queries left out are
    defined in the Notes below.

    Parameters
    ----------
    per_query : frame, or mapping of two names to frames
        ``irframe.evaluate(..., per_query=True)`` of one system (a baseline: its values'
        variance, see ``correlation``), or ``{baseline: per_query, candidate: per_query}``
        for two systems (their per-query deltas, paired on the queries both have).
    measure : str or list of str
        The measure column(s), e.g. ``"nDCG@10"``.
    alpha : float, default 0.05
        Level of the two-sided test; with ``family`` > 1, the family's level.
    power : float, default 0.8
        The probability of detecting the change.
    effect : float, optional
        A change (in the measure's units) to size the set for: gives ``n_needed`` and
        this set's ``power_at_effect``.
    n_queries : int, optional
        A set size to compute the detectable effect for (default: this set's).
    correlation : float, optional
        One system only: the assumed correlation of two systems' per-query values (default 0).
    family, correction : int, str, default 1, "holm"
        The comparisons the test is corrected over, and how (``"holm"``, ``"bonferroni"``,
        ``"bh"``, ``"none"``): the test then runs at the level a single comparison must pass,
        ``alpha / family`` (:func:`gate_level`), as ``check``'s gate does over its measures
        x (overall + segments).  ``irframe power`` reads both from ``[tool.irframe.check]``.
    query_col, system_col : str
        The query id column, and the system column a stacked frame may have.

    Returns
    -------
    frame
        One row per measure, in the input's frame type: ``design``, ``n_queries``,
        ``n_left_out``, ``mean`` and ``sd`` (of the values or deltas), ``correlation``,
        ``sd_delta``, ``alpha`` (the level the test ran at: ``alpha / family`` with a
        corrected family), ``family``, ``power``, ``n_for_mde``, ``mde`` (the minimum detectable
        effect), ``effect``, ``n_needed``, ``power_at_effect``, ``summary`` (one sentence),
        ``note``.

    Notes
    -----
    *The test and its power.*
    ``compare`` and ``check`` test the per-query deltas of two systems with a two-sided
    paired test (the randomization test by default).  Its power has no closed form; the
    standard approximation is the paired t-test's, computed exactly here from the
    noncentral t distribution: with ``n`` paired queries, deltas of standard deviation
    ``sd`` and a true mean change ``delta``,

        power = P(|T'| > t_{1 - alpha/2, n - 1}),   T' ~ t'(df = n - 1, nc = delta / sd * sqrt(n))

    (as ``statsmodels.stats.power.TTestPower``; the noncentral t is integrated numerically
    over the chi distribution of the standard deviation, so no scipy is needed).  For
    normally distributed deltas the randomization test's rejection rate is within a few
    points of it (the tests simulate both); for heavy-tailed or many-tied deltas (RR on
    few relevant documents) treat the numbers as approximate.

    * **minimum detectable effect** (``mde``): the ``delta`` at which the power reaches
      ``power``, for this set's ``n`` (or a hypothetical ``n_queries``);
    * **queries needed** (``n_needed``, given ``effect=``): the smallest ``n >= 2`` whose
      power for ``delta = effect`` reaches ``power`` (Sakai's topic set size design for
      the paired t-test, solved exactly rather than by his normal approximation).

    *The variance.*
    *Two systems* (a mapping of two per-query frames): ``sd`` is the standard deviation
    (ddof 1) of the per-query deltas on the queries both have a value for.

    *One system* (one per-query frame, a baseline): the deltas of a future change are not
    known, so their variance is taken from the baseline's per-query values ``x``:
    ``sd_delta**2 = 2 * var(x) * (1 - correlation)`` — the variance of the difference of
    two systems with ``x``'s variance whose per-query values correlate by
    ``correlation``.  The default ``correlation=0`` (Sakai 2016 estimates the variance of
    a difference as twice a system's) is conservative: two versions of one system
    usually correlate strongly across queries (0.5-0.9 on TREC data), which shrinks
    ``sd_delta``, and so the detectable effect, by ``sqrt(1 - correlation)``.  Give two
    systems' values when you have them.

    Queries without a value (null: unjudged, or absent from one of the two systems) are
    left out and counted (``n_left_out``).

    Examples
    --------
    >>> import polars as pl, irframe
    >>> base = pl.DataFrame({"query_id": [f"q{i}" for i in range(8)],
    ...                      "nDCG@10": [0.9, 0.4, 0.7, 0.3, 0.8, 0.5, 0.6, 0.2]})
    >>> new = base.with_columns(pl.col("nDCG@10") + pl.Series([0.1, 0.0, 0.05, 0.1, 0.0, 0.05, 0.1, -0.05]))
    >>> r = irframe.power({"base": base, "new": new}, "nDCG@10", effect=0.02)
    >>> r.select("design", "n_queries", "sd_delta", "mde", "n_needed")
    shape: (1, 5)
    ┌───────────────┬───────────┬──────────┬──────────┬──────────┐
    │ design        ┆ n_queries ┆ sd_delta ┆ mde      ┆ n_needed │
    │ ---           ┆ ---       ┆ ---      ┆ ---      ┆ ---      │
    │ str           ┆ i64       ┆ f64      ┆ f64      ┆ i64      │
    ╞═══════════════╪═══════════╪══════════╪══════════╪══════════╡
    │ paired deltas ┆ 8         ┆ 0.0563   ┆ 0.065084 ┆ 65       │
    └───────────────┴───────────┴──────────┴──────────┴──────────┘
    >>> print(r["summary"][0])
    with 8 queries, changes of 0.0651 nDCG@10 or more are detected 80% of the time (alpha 0.05)
    """
    labels = _labels(measure)
    a, p = _check_target(alpha, power)
    a, level = gate_level(a, correction, family)
    size = _check_n(n_queries, "n_queries")
    if effect is not None and (
        isinstance(effect, bool) or not isinstance(effect, Real) or not math.isfinite(effect) or effect == 0
    ):
        raise InvalidParameterError.for_value("effect", _WHERE, "a non-zero number or None", effect)
    first = next(iter(per_query.values())) if isinstance(per_query, Mapping) and per_query else per_query
    _, origin = to_lazy(first, "per_query")
    paired, vectors = _vectors(per_query, labels, query_col, system_col)
    rho = _check_correlation(correlation, paired)
    settings = {"alpha": a, "power": p, "correlation": rho, "n_queries": size, "level": level}
    settings["effect"] = None if effect is None else float(effect)
    settings["family"] = int(family)
    rows = [_row(m, v, left, paired=paired, settings=settings) for m, (v, left) in vectors.items()]
    return from_lazy(pl.DataFrame(rows, schema=_SCHEMA), origin)
