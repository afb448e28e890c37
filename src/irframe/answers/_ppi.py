"""Prediction-powered means: many items scored by an LLM, a few of them also by people.

The estimator, its variance and the power tuning are written once, in :func:`ppi_mean`'s
Notes; :func:`ppi_mean_difference` applies them to the paired differences of two systems.
Every statistic is a per-group aggregation (means, variances, a covariance) followed by
arithmetic on the groups' columns: no loop over groups.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import polars as pl

from irframe._distributions import norm_ppf
from irframe._input.columns import natural_sorted
from irframe._input.frames import Origin, from_lazy, to_lazy
from irframe.exceptions import (
    ColumnNotFoundError,
    DuplicateRowsError,
    InvalidDataError,
    InvalidParameterError,
)

__all__ = ["PPI_COLUMNS", "ppi_mean", "ppi_mean_difference"]

PPI_COLUMNS = (
    "estimate", "ci_low", "ci_high", "lam", "classical", "classical_low", "classical_high", "llm_only",
    "n_human", "n_unlabeled", "n_effective",
)  # fmt: skip
_Y, _YH = "__ir_y", "__ir_yhat"


def ppi_mean(
    llm: Any,
    human: Any,
    value: str = "score",
    *,
    label: str = "human",
    on: str | Sequence[str] = "query_id",
    by: str | Sequence[str] | None = None,
    lam: float | None = 1.0,
    ci: float = 0.95,
) -> Any:
    """The mean of a score over all items, from every item's LLM score and a few human ones.

    Parameters
    ----------
    llm : frame
        One row per item: the item's key (``on``, and the ``by`` columns) and its LLM
        score ``value``.
    human : frame
        The human-labelled items (a subset of ``llm``'s): their key and the human score
        ``label`` (and, if present, ``value``, which must equal ``llm``'s).
    value, label : str
        The LLM score's column and the human score's column.
    on : str or list of str
        The columns that name an item within a group (a query, a (query, document) pair...).
    by : str or list of str, optional
        One mean per group (a system, a segment).
    lam : float or None
        1: prediction-powered inference (PPI); 0: the human-only (classical) mean; None:
        PPI++ power tuning (the lam that minimises the variance, clipped to [0, 1]).
    ci : float
        The confidence level of the intervals (normal intervals).

    Returns
    -------
    frame
        The caller's frame type (of ``llm``), one row per group: ``estimate``, ``ci_low``,
        ``ci_high``, ``lam``, the human-only ``classical`` mean with its interval, the
        biased ``llm_only`` mean of every LLM score, ``n_human``, ``n_unlabeled`` and
        ``n_effective`` = n * Var(human-only mean) / Var(estimate): how many human labels
        the estimate is worth.

    Notes
    -----
    With Y the n human scores, Yhat the LLM scores of those items and Yhat_u the N LLM
    scores of the items without a human label (ppi_py's ``Y``, ``Yhat``,
    ``Yhat_unlabeled``; Angelopoulos et al. 2023, PPI++ 2024):

    - estimate = lam * mean(Yhat_u) + mean(Y - lam * Yhat);
    - its variance: lam^2 * var(Yhat_u) / N + var(Y - lam * Yhat) / n (population
      variances, as ``ppi_py.ppi_mean_ci``); the interval is estimate +- z * sqrt(variance);
    - PPI++ (``lam=None``): lam = cov(Y, Yhat) / ((1 + n / N) * var([Yhat, Yhat_u])),
      the covariance a population one and the variance over all LLM scores with ddof 1
      (as ppi_py's ``_calc_lam_glm``), clipped to [0, 1]; 0 when the LLM scores are all equal.

    The estimate is unbiased whatever the LLM's bias, as long as the human-labelled items
    are a random sample of the items.  For a retrieval measure under LLM qrels, ``llm`` is
    the per-query values under the LLM's qrels and ``human`` those under the human
    judgments of the golden set (see :func:`irframe.agreement` for how far they agree).

    Examples
    --------
    >>> import polars as pl
    >>> from irframe.answers import ppi_mean
    >>> llm = pl.DataFrame({"query_id": [f"q{i}" for i in range(8)],
    ...                     "score": [0.9, 0.8, 0.7, 0.9, 0.6, 0.8, 0.9, 0.7]})
    >>> human = pl.DataFrame({"query_id": ["q0", "q1", "q2", "q3"], "human": [0.7, 0.6, 0.6, 0.8]})
    >>> # 0.75 (LLM mean of q4..q7) + 0.675 (human mean of q0..q3) - 0.825 (LLM mean of q0..q3)
    >>> ppi_mean(llm, human).select("estimate", "classical", "llm_only", "n_human", "n_unlabeled")
    shape: (1, 5)
    ┌──────────┬───────────┬──────────┬─────────┬─────────────┐
    │ estimate ┆ classical ┆ llm_only ┆ n_human ┆ n_unlabeled │
    │ ---      ┆ ---       ┆ ---      ┆ ---     ┆ ---         │
    │ f64      ┆ f64       ┆ f64      ┆ i64     ┆ i64         │
    ╞══════════╪═══════════╪══════════╪═════════╪═════════════╡
    │ 0.6      ┆ 0.675     ┆ 0.7875   ┆ 4       ┆ 4           │
    └──────────┴───────────┴──────────┴─────────┴─────────────┘
    """
    where = "ppi_mean"
    keys, groups = _names(on, "on", where), _names(by, "by", where) if by is not None else []
    _check_lam_ci(lam, ci, where)
    lf, origin = to_lazy(llm, "llm")
    scored = _read(lf, "llm", [*groups, *keys], [value], where)
    hf, _ = to_lazy(human, "human")
    hschema = hf.collect_schema()
    wanted = [label, *([value] if value in hschema else [])]
    labelled = _read(hf, "human", [*groups, *keys], wanted, where)
    pairs, unlabelled = _split(scored, labelled, [*groups, *keys], value, label)
    return _result(pairs, unlabelled, scored.rename({value: _YH}), groups, lam=lam, ci=ci, origin=origin)


def ppi_mean_difference(
    llm: Any,
    human: Any,
    systems: tuple[str, str],
    value: str = "score",
    *,
    label: str = "human",
    system_col: str = "system",
    on: str | Sequence[str] = "query_id",
    by: str | Sequence[str] | None = None,
    lam: float | None = 1.0,
    ci: float = 0.95,
) -> Any:
    """The mean difference between two systems on the same items (``systems[0]`` minus
    ``systems[1]``), from every item's LLM scores and a few human ones: :func:`ppi_mean`
    on the paired differences.

    ``llm`` holds both systems' LLM scores of every item (stacked by ``system_col``);
    ``human`` both systems' human scores of the labelled items.  An item one system lacks
    is refused: the difference is paired.

    Examples
    --------
    >>> import polars as pl
    >>> from irframe.answers import ppi_mean_difference
    >>> llm = pl.DataFrame({"system": ["a"] * 4 + ["b"] * 4, "query_id": ["q1", "q2", "q3", "q4"] * 2,
    ...                     "score": [0.9, 0.8, 0.7, 0.9, 0.5, 0.6, 0.7, 0.6]})
    >>> human = pl.DataFrame({"system": ["a", "a", "b", "b"], "query_id": ["q1", "q2"] * 2,
    ...                       "human": [0.8, 0.6, 0.5, 0.5]})
    >>> ppi_mean_difference(llm, human, ("a", "b")).select("estimate", "classical", "llm_only")
    shape: (1, 3)
    ┌──────────┬───────────┬──────────┐
    │ estimate ┆ classical ┆ llm_only │
    │ ---      ┆ ---       ┆ ---      │
    │ f64      ┆ f64       ┆ f64      │
    ╞══════════╪═══════════╪══════════╡
    │ 0.05     ┆ 0.2       ┆ 0.225    │
    └──────────┴───────────┴──────────┘
    """
    where = "ppi_mean_difference"
    if not (isinstance(systems, tuple | list) and len(systems) == 2 and systems[0] != systems[1]):
        raise InvalidParameterError.for_value("systems", where, "a pair of two system names", systems)
    keys, groups = _names(on, "on", where), _names(by, "by", where) if by is not None else []
    _check_lam_ci(lam, ci, where)
    lf, origin = to_lazy(llm, "llm")
    scored = _read(lf, "llm", [system_col, *groups, *keys], [value], where)
    hf, _ = to_lazy(human, "human")
    labelled = _read(hf, "human", [system_col, *groups, *keys], [label], where)
    a, b = systems
    item = [*groups, *keys]
    llm_diff = _paired(scored, system_col, (a, b), item, col=value, frame="llm")
    human_diff = _paired(labelled, system_col, (a, b), item, col=label, frame="human")
    pairs, unlabelled = _split(llm_diff, human_diff, item, value, label)
    return _result(pairs, unlabelled, llm_diff.rename({value: _YH}), groups, lam=lam, ci=ci, origin=origin)


def _names(cols: str | Sequence[str], name: str, where: str) -> list[str]:
    items = [cols] if isinstance(cols, str) else list(cols)
    if not items or not all(isinstance(c, str) and c for c in items) or len(set(items)) != len(items):
        raise InvalidParameterError.for_value(name, where, "a column name or a list of distinct names", cols)
    return items


def _check_lam_ci(lam: float | None, ci: float, where: str) -> None:
    if lam is not None and (
        isinstance(lam, bool) or not isinstance(lam, int | float) or not math.isfinite(lam)
    ):
        raise InvalidParameterError.for_value(
            "lam", where, "a finite number (1: PPI, 0: classical) or None", lam
        )
    if isinstance(ci, bool) or not isinstance(ci, int | float) or not 0.0 < ci < 1.0:
        raise InvalidParameterError.for_value("ci", where, "a float in the range (0, 1)", ci)


def _read(lf: pl.LazyFrame, frame: str, keys: list[str], values: list[str], where: str) -> pl.DataFrame:
    """The key columns (as strings) and the numeric value columns; nulls, NaN and repeated
    items refused with the item that holds them."""
    names = list(lf.collect_schema().names())
    for col in [*keys, *values]:
        if col not in names:
            param = "on" if col in keys else "value" if frame == "llm" or col != values[0] else "label"
            raise ColumnNotFoundError.from_missing(
                role=col, missing=col, available=names, frame=frame, parameter=param
            )
    df = lf.select(*(pl.col(k).cast(pl.String) for k in keys), *values).collect()
    for col in values:
        if not df.schema[col].is_numeric():
            msg = (
                f"The {frame} column {col!r} must hold numbers (scores); it has dtype {df.schema[col]}. "
                f"Hint: cast it, e.g. pl.col({col!r}).cast(pl.Float64)."
            )
            raise InvalidDataError(msg)
    df = df.with_columns(pl.col(v).cast(pl.Float64) for v in values)
    bad = df.with_row_index("__row").filter(
        pl.any_horizontal(
            *(pl.col(v).is_null() | pl.col(v).is_nan() for v in values), *(pl.col(k).is_null() for k in keys)
        )
    )
    if bad.height:
        r = bad.row(0, named=True)
        msg = (
            f"The {frame} frame has {bad.height} row(s) with a null or NaN key or score, first at "
            f"row {r['__row']} "
            f"({_item(r, keys)}). Hint: drop the items nobody scored ({where} needs a score per item)."
        )
        raise InvalidDataError(msg)
    dup = df.group_by(keys).agg(
        pl.len().alias("__n"), *(pl.col(v).n_unique().alias(f"__u_{v}") for v in values)
    )
    dup = dup.filter(pl.col("__n") > 1)
    if dup.height:
        r = dup.sort(keys).row(0, named=True)
        differ = any(r[f"__u_{v}"] > 1 for v in values)
        msg = (
            f"The {frame} frame scores {dup.height} item(s) more than once: {_item(r, keys)} has "
            f"{r['__n']} rows"
            f"{' with different scores' if differ else ''}. Hint: one score per item (with several judges, "
            "average them first or keep one judge's)."
        )
        raise DuplicateRowsError(msg)
    return df


def _item(row: dict[str, Any], keys: list[str]) -> str:
    return ", ".join(f"{k} {row[k]!r}" for k in keys)


def _split(
    scored: pl.DataFrame, labelled: pl.DataFrame, item: list[str], value: str, label: str
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(the human-labelled items with both scores, the LLM scores of the others); a human
    item the LLM did not score, or whose LLM score differs from ``llm``'s, refused."""
    stray = labelled.join(scored, on=item, how="anti")
    if stray.height:
        r = stray.sort(item).row(0, named=True)
        msg = (
            f"The human frame labels {stray.height} item(s) the llm frame does not score, e.g. "
            f"{_item(r, item)}. "
            "Hint: the human-labelled items must be a subset of the LLM-scored ones (same key "
            "columns and ids)."
        )
        raise InvalidDataError(msg)
    joined = labelled.join(scored, on=item, how="left", suffix="__llm")
    if value in labelled.columns and value != label:
        other = joined.filter(pl.col(value) != pl.col(f"{value}__llm"))
        if other.height:
            r = other.sort(item).row(0, named=True)
            msg = (
                f"The human frame's {value!r} differs from the llm frame's for {other.height} item(s), e.g. "
                f"{_item(r, item)}: {r[value]!r} vs {r[f'{value}__llm']!r}. Hint: drop {value!r} "
                "from the human "
                "frame (the llm frame's is used) or fix it."
            )
            raise InvalidDataError(msg)
    llm_col = f"{value}__llm" if f"{value}__llm" in joined.columns else value
    pairs = joined.select(*item, pl.col(label).alias(_Y), pl.col(llm_col).alias(_YH))
    return pairs, scored.join(labelled, on=item, how="anti").select(*item, pl.col(value).alias(_YH))


def _paired(
    df: pl.DataFrame, system_col: str, systems: tuple[str, str], item: list[str], *, col: str, frame: str
) -> pl.DataFrame:
    """Per item, ``col`` of system a minus system b; an item one of them lacks refused."""
    a, b = systems
    have = set(df.get_column(system_col).unique().to_list())
    for s in systems:
        if s not in have:
            msg = (
                f"The {frame} frame has no rows of system {s!r} in {system_col!r} (it holds "
                f"{', '.join(map(repr, sorted(have)[:5]))}). Hint: name two systems it holds."
            )
            raise InvalidDataError(msg)
    sides = [
        df.filter(pl.col(system_col) == s).select(*item, pl.col(col).alias(f"__{i}"))
        for i, s in enumerate(systems)
    ]
    both = sides[0].join(sides[1], on=item, how="full", coalesce=True)
    lone = both.filter(pl.col("__0").is_null() | pl.col("__1").is_null())
    if lone.height:
        r = lone.sort(item).row(0, named=True)
        which = b if r["__1"] is None else a
        msg = (
            f"The {frame} frame scores {lone.height} item(s) for one system only, e.g. "
            f"{_item(r, item)} has no "
            f"score of system {which!r}. Hint: a paired difference needs both systems' scores of every item."
        )
        raise InvalidDataError(msg)
    return both.select(*item, (pl.col("__0") - pl.col("__1")).alias(col))


def _result(
    pairs: pl.DataFrame, unlabelled: pl.DataFrame, everything: pl.DataFrame, groups: list[str],
    *, lam: float | None, ci: float, origin: Origin,
) -> Any:  # fmt: skip
    """The estimates per group, from the groups' means, variances and covariance."""
    by: list[str | pl.Expr] = [*groups] if groups else [pl.lit(0).alias("__g")]
    on = groups or ["__g"]
    y, yh = pl.col(_Y), pl.col(_YH)
    lab = pairs.group_by(by).agg(
        pl.len().cast(pl.Int64).alias("n_human"), y.mean().alias("my"), yh.mean().alias("myh"),
        y.var(ddof=0).alias("vy"), yh.var(ddof=0).alias("vyh"), pl.cov(y, yh, ddof=0).alias("cov"),
    )  # fmt: skip
    unl = unlabelled.group_by(by).agg(
        pl.len().cast(pl.Int64).alias("n_unlabeled"), yh.mean().alias("mu"), yh.var(ddof=0).alias("vu")
    )
    naive = everything.group_by(by).agg(yh.mean().alias("llm_only"))
    table = naive.join(lab, on=on, how="left").join(unl, on=on, how="left")
    _refuse_thin(table, groups)
    out = _estimates(table.sort(on), lam, ci)
    names = [*groups, *PPI_COLUMNS]
    out = natural_sorted(out, groups, names) if groups else out.select(names)
    return from_lazy(out, origin)


def _refuse_thin(table: pl.DataFrame, groups: list[str]) -> None:
    thin = table.filter((pl.col("n_human").fill_null(0) < 2) | (pl.col("n_unlabeled").fill_null(0) < 1))
    if thin.height:
        r = thin.row(0, named=True)
        where = f" in group {_item(r, groups)}" if groups else ""
        n_h, n_u = r["n_human"] or 0, r["n_unlabeled"] or 0
        msg = (
            f"PPI needs at least 2 human-labelled items and 1 item without a human label{where}; there are "
            f"{n_h} and {n_u}. Hint: label more items by hand, or (every item labelled) use the "
            "human mean itself."
        )
        raise InvalidDataError(msg)


def _estimates(t: pl.DataFrame, lam: float | None, ci: float) -> pl.DataFrame:
    """PPI (or PPI++) estimate, interval, classical interval and effective n per row of ``t``."""
    n = t["n_human"].to_numpy().astype(np.float64)
    big_n = t["n_unlabeled"].to_numpy().astype(np.float64)
    my, myh, vy, vyh, cov, mu, vu = (
        t[c].to_numpy().astype(np.float64) for c in ("my", "myh", "vy", "vyh", "cov", "mu", "vu")
    )
    if lam is None:
        m_all = (n * myh + big_n * mu) / (n + big_n)
        ss = n * vyh + big_n * vu + n * (myh - m_all) ** 2 + big_n * (mu - m_all) ** 2
        var_all = ss / (n + big_n - 1.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            tuned = np.where(var_all > 0, cov / ((1.0 + n / big_n) * var_all), 0.0)
        lams = np.clip(tuned, 0.0, 1.0)
    else:
        lams = np.full(n.shape, float(lam))
    est = lams * mu + my - lams * myh
    var_rect = np.maximum(vy + lams**2 * vyh - 2.0 * lams * cov, 0.0)
    se = np.sqrt(lams**2 * vu / big_n + var_rect / n)
    se_classical = np.sqrt(vy / n)
    z = norm_ppf(1.0 - (1.0 - ci) / 2.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        n_eff = np.where(se > 0, n * se_classical**2 / se**2, np.nan)
    return t.with_columns(
        pl.Series("estimate", est), pl.Series("ci_low", est - z * se), pl.Series("ci_high", est + z * se),
        pl.Series("lam", lams), pl.Series("classical", my), pl.Series("classical_low", my - z * se_classical),
        pl.Series("classical_high", my + z * se_classical), pl.Series("n_effective", n_eff),
    )  # fmt: skip
