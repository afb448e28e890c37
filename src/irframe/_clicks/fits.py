"""The EM click models' sufficient statistics (polars) and fits (:mod:`~irframe._clicks.em`,
:mod:`~irframe._clicks.dbn`), returned as per-pair and per-position tables."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from irframe._clicks.dbn import Sessions, fit_dbn
from irframe._clicks.em import Observations, fit_em, key_sums
from irframe._clicks.prepare import CLICK, ClickLog
from irframe._input.logs import DOC, IMPRESSION, POSITION, QUERY

__all__ = ["PREV", "EMTables", "fit_dbn_model", "fit_em_model", "with_previous_click"]

PAIR_ID, PREV = "__ir_pair", "previous_click"


@dataclass(frozen=True)
class EMTables:
    """An EM model's fit as tables, and how its iterations ended."""

    pairs: pl.DataFrame
    positions: pl.DataFrame | None
    continuation: float | None
    iterations: int
    last_change: float


def with_previous_click(rows: pl.LazyFrame) -> pl.LazyFrame:
    """``rows`` with UBM's ``previous_click``: the position of the impression's last click
    above the row, 0 when there is none (its own key, never a real position)."""
    clicked = pl.when(pl.col(CLICK) == 1).then(pl.col(POSITION)).otherwise(0)
    prev = clicked.cum_max().shift(1, fill_value=0).over(IMPRESSION, order_by=POSITION)
    return rows.with_columns(prev.alias(PREV))


def _pairs(stats: pl.DataFrame) -> pl.DataFrame:
    return (
        stats.group_by([QUERY, DOC], maintain_order=True)
        .agg(pl.col("n").sum().alias("n_impressions"), pl.col("clicks").sum().alias("n_clicks"))
        .with_row_index(PAIR_ID)
    )


def _em_observations(log: ClickLog, ubm: bool) -> tuple[pl.DataFrame, Observations, int]:
    """(the pairs, with ``PAIR_ID`` their index; the observations; the deepest position) of PBM
    (UBM: keyed by the previous click too).  Each part's statistics are sorted in the part (a
    part holds whole queries, so a pair's rows are one run of the concatenated table and the
    pair index is that run's number): no global sort or join, and only numbers kept for EM."""
    keys = [QUERY, DOC, POSITION, *([PREV] if ubm else [])]

    def grouped(rows: pl.LazyFrame) -> pl.LazyFrame:
        rows = with_previous_click(rows) if ubm else rows
        stats = rows.group_by(keys).agg(pl.col(CLICK).sum().alias("clicks"), pl.len().alias("n"))
        return stats.sort(keys)  # a fixed order: the same sums, bit for bit, on every run

    stats = log.map(grouped).with_columns(pl.struct(QUERY, DOC).rle_id().cast(pl.Int64).alias(PAIR_ID))
    pairs = stats.group_by(PAIR_ID, maintain_order=True).agg(
        pl.col(QUERY, DOC).first(),
        pl.col("n").sum().alias("n_impressions"),
        pl.col("clicks").sum().alias("n_clicks"),
    )
    stats = stats.drop(QUERY, DOC)
    top = int(stats[POSITION].max())  # type: ignore[arg-type]
    e_key = pl.col(POSITION) - 1
    if ubm:
        e_key = e_key * (top + 1) + pl.col(PREV)
    e = stats.select(e_key.cast(pl.Int64)).to_series().to_numpy()
    clicks = stats["clicks"].cast(pl.Float64).to_numpy()
    skips = stats["n"].cast(pl.Float64).to_numpy() - clicks
    size = top * (top + 1) if ubm else top
    obs = Observations(stats[PAIR_ID].to_numpy(), e, clicks, skips, (pairs.height, size))
    return pairs, obs, top


def fit_em_model(log: ClickLog, model: str, prior: tuple[float, float], iterations: int) -> EMTables:
    """PBM (``model="pbm"``) or UBM (``"ubm"``) fitted by EM on the log's sufficient statistics
    (summed per part of the log, then fitted in memory)."""
    ubm = model == "ubm"
    pairs, obs, top = _em_observations(log, ubm)
    e, clicks, skips = obs.e_key, obs.clicks, obs.skips
    size = obs.sizes[1]
    fit = fit_em(obs, prior=prior, iterations=iterations, tol=None)
    n = key_sums(e, clicks + skips, size).astype(np.int64)
    positions = pl.DataFrame({POSITION: np.arange(size) // (top + 1) + 1 if ubm else np.arange(1, top + 1)})
    if ubm:
        positions = positions.with_columns(pl.Series(PREV, np.arange(size) % (top + 1)))
    positions = positions.with_columns(
        pl.Series("n", n), pl.Series("examination", fit.examination).alias("examination")
    ).with_columns(pl.when(pl.col("n") > 0).then(pl.col("examination")).alias("examination"))
    if ubm:  # a previous click at or below the row's position cannot happen: not a parameter
        positions = positions.filter(pl.col(PREV) < pl.col(POSITION))
    attr = pl.Series("attractiveness", fit.attractiveness)
    return EMTables(pairs.with_columns(attr), positions, None, fit.iterations, fit.last_change)


def _session_lists(rows: pl.LazyFrame, pairs: pl.DataFrame) -> pl.LazyFrame:
    """The distinct sessions of ``rows`` (pairs in position order, clicks), with their counts."""
    return (
        rows.join(pairs.lazy().select(QUERY, DOC, PAIR_ID), on=[QUERY, DOC])
        .sort(IMPRESSION, POSITION)
        .group_by(IMPRESSION, maintain_order=True)
        .agg(pl.col(PAIR_ID).cast(pl.Int64), pl.col(CLICK).cast(pl.Float64))
        .group_by([PAIR_ID, CLICK])
        .agg(pl.len().alias("weight"))
    )


def _sessions(log: ClickLog, pairs: pl.DataFrame) -> Sessions:
    """The distinct sessions of the log as arrays (a session's pairs are one query's: the
    parts' sessions are distinct)."""
    lists = log.map(lambda rows: _session_lists(rows, pairs)).sort(PAIR_ID, CLICK)
    k = int(lists[PAIR_ID].list.len().max())  # type: ignore[arg-type]
    wide = lists.select(
        *[pl.col(PAIR_ID).list.get(i, null_on_oob=True).fill_null(-1).alias(f"p{i}") for i in range(k)],
        *[pl.col(CLICK).list.get(i, null_on_oob=True).fill_null(0.0).alias(f"c{i}") for i in range(k)],
    )
    pair = wide.select([f"p{i}" for i in range(k)]).to_numpy().astype(np.int64).reshape(-1, k)
    click = wide.select([f"c{i}" for i in range(k)]).to_numpy().astype(np.float64).reshape(-1, k)
    return Sessions(pair, click, lists["weight"].cast(pl.Float64).to_numpy())


def fit_dbn_model(log: ClickLog, prior: tuple[float, float], iterations: int) -> EMTables:
    """DBN fitted by EM on the log's distinct sessions."""
    stats = log.map(
        lambda rows: rows.group_by([QUERY, DOC]).agg(pl.col(CLICK).sum().alias("clicks"), pl.len().alias("n"))
    )
    pairs = _pairs(stats.sort(QUERY, DOC))
    fit = fit_dbn(_sessions(log, pairs), pairs.height, prior, iterations, None)
    out = pairs.with_columns(
        pl.Series("attractiveness", fit.attractiveness), pl.Series("satisfaction", fit.satisfaction)
    )
    return EMTables(out, None, fit.continuation, fit.iterations, fit.last_change)
