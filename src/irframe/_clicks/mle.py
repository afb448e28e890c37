"""The click models with closed forms: COEC, CM, DCM and SDBN as ``group_by`` aggregations.

Each model's counting rule is written out in :func:`irframe.clicks.click_judgments`'s
Notes; here they are polars expressions over the canonical log (``prepare.CLICK`` is the
0/1 click).  An impression without clicks counts all its rows as examined: its "first"
and "last" click default to past the last position (PyClick's convention).
"""

from __future__ import annotations

import polars as pl

from irframe._clicks.prepare import CLICK
from irframe._input.logs import DOC, IMPRESSION, POSITION, QUERY

__all__ = ["FIRST", "LAST", "beta_mean", "coec", "counts", "mle_model", "with_click_positions"]

FIRST, LAST = "__ir_first_click", "__ir_last_click"
PAIR = [QUERY, DOC]


def with_click_positions(rows: pl.LazyFrame) -> pl.LazyFrame:
    """``rows`` with the impression's first and last clicked positions (null: no click)."""
    clicked = pl.when(pl.col(CLICK) == 1).then(pl.col(POSITION))
    return rows.with_columns(
        clicked.min().over(IMPRESSION).alias(FIRST), clicked.max().over(IMPRESSION).alias(LAST)
    )


def _upto(col: str) -> pl.Expr:
    """Rows at or above the impression's ``col`` click position (all rows when it has no click)."""
    return (pl.col(POSITION) <= pl.col(col)).fill_null(value=True)


def beta_mean(num: pl.Expr, den: pl.Expr, prior: tuple[float, float]) -> pl.Expr:
    """``(alpha + num) / (alpha + beta + den)``: the posterior mean under a Beta prior (null for 0/0)."""
    alpha, beta = prior
    total = den + (alpha + beta)
    return pl.when(total > 0).then((num + alpha) / total)


def counts() -> list[pl.Expr]:
    """The pair's ``n_impressions`` (rows showing it) and ``n_clicks`` (clicked rows)."""
    return [pl.len().alias("n_impressions"), pl.col(CLICK).sum().alias("n_clicks")]


def coec(rows: pl.LazyFrame) -> pl.LazyFrame:
    """Clicks over expected clicks per pair: clicks / sum of CTR(position) over its rows."""
    ctr = rows.group_by(POSITION).agg(pl.col(CLICK).mean().alias("__ir_ctr"))
    return (
        rows.join(ctr, on=POSITION, how="left")
        .group_by(PAIR)
        .agg(*counts(), pl.col("__ir_ctr").sum().alias("expected_clicks"))
        .with_columns((pl.col("n_clicks") / pl.col("expected_clicks")).alias("coec"))
        .with_columns(pl.col("coec").alias("relevance"))
    )


def mle_model(
    rows: pl.LazyFrame, model: str, prior: tuple[float, float]
) -> tuple[pl.LazyFrame, pl.LazyFrame | None]:
    """(per-pair parameters, per-position parameters or None) of ``cm``, ``dcm`` or ``sdbn``."""
    rows = with_click_positions(rows)
    click = pl.col(CLICK)
    if model == "cm":
        seen = _upto(FIRST)
        pairs = rows.group_by(PAIR).agg(
            *counts(),
            beta_mean(click.filter(seen).sum(), seen.sum(), prior).alias("attractiveness"),
        )
        return pairs.with_columns(pl.col("attractiveness").alias("relevance")), None
    seen = _upto(LAST)
    attr = beta_mean(click.filter(seen).sum(), seen.sum(), prior).alias("attractiveness")
    last = (pl.col(POSITION) == pl.col(LAST)).filter(click == 1)
    if model == "sdbn":
        sat = beta_mean(last.sum(), click.sum(), prior).alias("satisfaction")
        pairs = rows.group_by(PAIR).agg(*counts(), attr, sat)
        return pairs.with_columns(
            (pl.col("attractiveness") * pl.col("satisfaction")).alias("relevance")
        ), None
    pairs = rows.group_by(PAIR).agg(*counts(), attr).with_columns(pl.col("attractiveness").alias("relevance"))
    positions = rows.group_by(POSITION).agg(
        pl.len().alias("n"),
        click.sum().alias("n_clicks"),
        beta_mean((~last).sum(), click.sum(), prior).alias("continuation"),
    )
    return pairs, positions
