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

__all__ = [
    "FIRST", "LAST", "beta_mean", "coec", "continuation", "counts", "ctr_sums", "dcm_sums", "mle_pairs",
    "position_ctr", "with_click_position",
]  # fmt: skip

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


def ctr_sums(rows: pl.LazyFrame) -> pl.LazyFrame:
    """Per position: its clicked rows and its rows (a per-bucket sum, see :func:`position_ctr`)."""
    return rows.group_by(POSITION).agg(pl.col(CLICK).sum().alias("__ir_clicks"), pl.len().alias("__ir_rows"))


def position_ctr(sums: pl.DataFrame) -> pl.DataFrame:
    """The CTR of each position over the whole log, from the :func:`ctr_sums` of its parts."""
    total = sums.group_by(POSITION).agg(pl.col("__ir_clicks", "__ir_rows").sum())
    return total.select(POSITION, (pl.col("__ir_clicks") / pl.col("__ir_rows")).alias("__ir_ctr"))


def coec(rows: pl.LazyFrame, ctr: pl.DataFrame, *, best_position: bool = False) -> pl.LazyFrame:
    """Clicks over expected clicks per pair (``ctr``: :func:`position_ctr` of the whole log):
    expected clicks are the sum of CTR(position) over the pair's rows, or with
    ``best_position`` CTR(the best position the pair was shown at) x its rows (OpenSearch's
    variant, see :func:`irframe.clicks.click_judgments`), its COEC 0 where that is 0."""
    rows = rows.join(ctr.lazy(), on=POSITION, how="left")
    if not best_position:
        pairs = rows.group_by(PAIR).agg(*counts(), pl.col("__ir_ctr").sum().alias("expected_clicks"))
        ratio = pl.col("n_clicks") / pl.col("expected_clicks")
    else:
        best = pl.col(POSITION).min()
        pairs = rows.group_by(PAIR).agg(
            *counts(),
            best.alias("best_position"),
            pl.col("__ir_ctr").filter(pl.col(POSITION) == best).first(),
        )
        expected = (pl.col("__ir_ctr") * pl.col("n_impressions")).alias("expected_clicks")
        pairs = pairs.with_columns(expected).drop("__ir_ctr")
        ratio = pl.when(pl.col("expected_clicks") > 0).then(pl.col("n_clicks") / pl.col("expected_clicks"))
        ratio = ratio.otherwise(0.0)
    return pairs.with_columns(ratio.alias("coec")).with_columns(pl.col("coec").alias("relevance"))


def _counted(rows: pl.LazyFrame, edge: str) -> pl.LazyFrame:
    """``rows`` with 0/1 columns: seen (at or above ``edge``), seen and clicked, the last click.

    The counts are columns first, then plain sums: a ``group_by`` of sums is polars' fast
    path, filters inside the aggregation are not.
    """
    click = pl.col(CLICK)
    seen = _upto(edge).cast(pl.Int64)
    last = ((pl.col(POSITION) == pl.col(edge)).fill_null(value=False) & (click == 1)).cast(pl.Int64)
    return with_click_position(rows, edge).with_columns(
        seen.alias("__ir_seen"), (click * seen).alias("__ir_seen_click"), last.alias("__ir_last")
    )


def mle_pairs(rows: pl.LazyFrame, model: str, prior: tuple[float, float]) -> pl.LazyFrame:
    """The per-pair parameters of ``cm``, ``dcm`` or ``sdbn`` (a per-query aggregation)."""
    rows = _counted(rows, FIRST if model == "cm" else LAST)
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
    return pairs.drop("__ir_seen", "__ir_seen_click", "__ir_last")


def dcm_sums(rows: pl.LazyFrame) -> pl.LazyFrame:
    """Per position: DCM's clicked rows and last clicks (a per-bucket sum, see :func:`continuation`)."""
    rows = _counted(rows, LAST)
    return rows.group_by(POSITION).agg(pl.col(CLICK).sum().alias("n_clicks"), pl.col("__ir_last").sum())


def continuation(sums: pl.DataFrame, prior: tuple[float, float]) -> pl.DataFrame:
    """DCM's continuation per position from the :func:`dcm_sums` of the log's parts."""
    positions = sums.group_by(POSITION).agg(pl.col("n_clicks", "__ir_last").sum())
    cont = beta_mean(pl.col("n_clicks") - pl.col("__ir_last"), pl.col("n_clicks"), prior)
    return positions.with_columns(cont.alias("continuation")).drop("__ir_last")
