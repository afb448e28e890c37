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

__all__ = ["FIRST", "LAST", "beta_mean", "coec", "counts", "mle_model", "with_click_position"]

FIRST, LAST = "__ir_first_click", "__ir_last_click"
PAIR = [QUERY, DOC]


def with_click_position(rows: pl.LazyFrame, edge: str) -> pl.LazyFrame:
    """``rows`` with the impression's first (``FIRST``) or last (``LAST``) clicked position
    (null: no click)."""
    clicked = pl.when(pl.col(CLICK) == 1).then(pl.col(POSITION))
    return rows.with_columns((clicked.min() if edge == FIRST else clicked.max()).over(IMPRESSION).alias(edge))


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
    """(per-pair parameters, per-position parameters or None) of ``cm``, ``dcm`` or ``sdbn``.

    The counts are columns first (0/1 per row), then plain sums: a ``group_by`` of sums is
    polars' fast path, filters inside the aggregation are not.
    """
    edge = FIRST if model == "cm" else LAST
    click = pl.col(CLICK)
    seen = _upto(edge).cast(pl.Int64)
    last = ((pl.col(POSITION) == pl.col(edge)).fill_null(value=False) & (click == 1)).cast(pl.Int64)
    rows = with_click_position(rows, edge).with_columns(
        seen.alias("__ir_seen"), (click * seen).alias("__ir_seen_click"), last.alias("__ir_last")
    )
    sums = [pl.col("__ir_seen", "__ir_seen_click", "__ir_last").sum()]
    attr = beta_mean(pl.col("__ir_seen_click"), pl.col("__ir_seen"), prior).alias("attractiveness")
    pairs = rows.group_by(PAIR).agg(*counts(), *sums)
    if model == "sdbn":
        sat = beta_mean(pl.col("__ir_last"), pl.col("n_clicks"), prior).alias("satisfaction")
        pairs = pairs.with_columns(attr, sat).with_columns(
            (pl.col("attractiveness") * pl.col("satisfaction")).alias("relevance")
        )
    else:
        pairs = pairs.with_columns(attr).with_columns(pl.col("attractiveness").alias("relevance"))
    pairs = pairs.drop("__ir_seen", "__ir_seen_click", "__ir_last")
    if model != "dcm":
        return pairs, None
    positions = rows.group_by(POSITION).agg(click.sum().alias("n_clicks"), pl.col("__ir_last").sum())
    cont = beta_mean(pl.col("n_clicks") - pl.col("__ir_last"), pl.col("n_clicks"), prior)
    return pairs, positions.with_columns(cont.alias("continuation")).drop("__ir_last")
