"""The slate estimators of logs that record the logging policy's propensities (obp 0.4.1's).

Per row (slot) the importance weight is iw = evaluation propensity / logging propensity,
and the estimated reward is reward x iw; the policy value is the sum of the estimated
rewards over the number of slates (impressions).  The propensities are obp's columns:

- ``sips`` (``SlateStandardIPS``): the whole slate's, ``pscore`` and
  ``evaluation_policy_pscore`` (one value per slate);
- ``iips`` (``SlateIndependentIPS``): the item at its position's,
  ``pscore_item_position``, ``evaluation_policy_pscore_item_position``;
- ``rips`` (``SlateRewardInteractionIPS``): the prefix up to the slot's, cumulative,
  ``pscore_cascade``, ``evaluation_policy_pscore_cascade``.

The self-normalized versions (``snsips``, ``sniips``, ``snrips``) divide each estimated
reward by the mean importance weight: over all rows for SNSIPS, over the rows at the same
position for SNIIPS and SNRIPS (obp's ``BaseSlateSelfNormalizedInverseProbabilityWeighting``).
"""

from __future__ import annotations

import numpy as np
import polars as pl

from irframe._clicks.ips import effective_sample_size
from irframe._clicks.prepare import ClickLog
from irframe._input.logs import CLICKED, IMPRESSION, POSITION
from irframe.exceptions import InvalidDataError

__all__ = ["SLATE_ESTIMATORS", "slate_columns", "slate_values"]

#: estimator -> (logging propensity column, evaluation propensity column): obp's names
_COLUMNS = {
    "sips": ("pscore", "evaluation_policy_pscore"),
    "iips": ("pscore_item_position", "evaluation_policy_pscore_item_position"),
    "rips": ("pscore_cascade", "evaluation_policy_pscore_cascade"),
}
SLATE_ESTIMATORS: tuple[str, ...] = ("sips", "iips", "rips", "snsips", "sniips", "snrips")
LOGGING, EVALUATION = "pscore", "evaluation_pscore"  # their roles: pscore_col=, evaluation_pscore_col=


def slate_columns(estimator: str, pscore_col: str | None, evaluation_col: str | None) -> dict[str, str]:
    """The log's propensity columns of ``estimator`` (obp's names unless given), by role."""
    logging, evaluation = _COLUMNS[estimator.removeprefix("sn")]
    return {LOGGING: pscore_col or logging, EVALUATION: evaluation_col or evaluation}


def _check(rows: pl.DataFrame, estimator: str, names: dict[str, str]) -> None:
    checks = (
        (LOGGING, ~(pl.col(LOGGING) > 0) | (pl.col(LOGGING) > 1) | pl.col(LOGGING).is_null(), "in (0, 1]"),
        (
            EVALUATION,
            ~(pl.col(EVALUATION) >= 0) | (pl.col(EVALUATION) > 1) | pl.col(EVALUATION).is_null(),
            "in [0, 1]",
        ),
    )
    for role, bad, domain in checks:
        hit = rows.filter(bad).head(1)
        if hit.height:
            imp, pos, value = hit.select(IMPRESSION, POSITION, role).row(0)
            msg = (
                f"The log's propensity column {names[role]!r} has {value} at impression {imp!r}, "
                f"position {pos}; a propensity must be {domain}. Hint: check the column "
                f"(pscore_col= / evaluation_pscore_col= name them)."
            )
            raise InvalidDataError(msg)
    if estimator.removeprefix("sn") == "sips":
        varies = (
            rows.group_by(IMPRESSION)
            .agg(pl.col(LOGGING, EVALUATION).n_unique().max())
            .filter(pl.max_horizontal(LOGGING, EVALUATION) > 1)
        )
        if varies.height:
            msg = (
                f"SIPS weighs whole slates: {names[LOGGING]!r} and {names[EVALUATION]!r} must be one value "
                f"per impression, but impression {varies[IMPRESSION][0]!r} has several. Hint: for "
                "per-slot propensities use estimator='iips' or 'rips'."
            )
            raise InvalidDataError(msg)


def _position_sums(rows: pl.LazyFrame) -> pl.LazyFrame:
    """Per position: the weights' sum, squares and count."""
    rows = rows.select(POSITION, pl.col(LOGGING).cast(pl.Float64), pl.col(EVALUATION).cast(pl.Float64))
    iw = pl.col(EVALUATION) / pl.col(LOGGING)
    return (
        rows.group_by(POSITION)
        .agg(iw.sort().alias("iw"), (iw * iw).sort().alias("iw2"), pl.len().alias("n"))
        .with_columns(pl.col("iw", "iw2").list.sum())
    )


def _slate_rewards(rows: pl.LazyFrame, means: pl.DataFrame) -> pl.LazyFrame:
    """One part's per-impression estimated reward: the sum over its slots (in position order)
    of reward x iw / the mean weight (``means``: 1 unless self-normalized)."""
    iw = pl.col(EVALUATION).cast(pl.Float64) / pl.col(LOGGING).cast(pl.Float64)
    return (
        rows.join(means.lazy(), on=POSITION, how="left")
        .sort(IMPRESSION, POSITION)
        .group_by(IMPRESSION, maintain_order=True)
        .agg((pl.col(CLICKED) * iw / pl.col("mean")).alias("value"))
        .with_columns(pl.col("value").list.sum())
    )


def slate_values(clog: ClickLog, estimator: str, names: dict[str, str]) -> tuple[pl.DataFrame, float]:
    """(per impression, in impression order: its estimated reward, the sum over its slots;
    Kish's effective sample size of every row's weight), each part of the log checked and
    aggregated on its own (:meth:`~irframe._clicks.prepare.ClickLog.map`)."""

    def checked(rows: pl.LazyFrame) -> pl.LazyFrame:
        _check(rows.select(IMPRESSION, POSITION, LOGGING, EVALUATION).collect(), estimator, names)
        return _position_sums(rows)

    sums = clog.map(checked).sort(POSITION)
    per = sums.group_by(POSITION, maintain_order=True).agg(pl.col("iw", "iw2", "n").sum())
    total, squares = float(np.sum(per["iw"].to_numpy())), float(np.sum(per["iw2"].to_numpy()))
    if estimator == "snsips":
        mean = pl.lit(total / float(per["n"].sum()))
    elif estimator.startswith("sn"):
        mean = pl.col("iw") / pl.col("n")
    else:
        mean = pl.lit(1.0)
    means = per.select(POSITION, mean.alias("mean"))
    per_slate = clog.map(lambda rows: _slate_rewards(rows, means)).sort(IMPRESSION)
    return per_slate, effective_sample_size(total, squares)
