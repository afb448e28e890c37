"""Interleaving credit per impression, as mpkato/interleaving computes it.

* team draft (and multileaving): a system's credit is the number of clicked rows of its
  team (``team`` column of the log);
* balanced (Joachims, 2003): with ``d`` the lowest clicked document, ``k`` the smaller of
  its 0-based ranks in the two runs (a run's length when it does not rank it), a run's
  credit is the number of clicked documents among its top ``k + 1``;
* probabilistic (Hofmann et al., 2011): the probability, over the team assignments that
  could have produced the shown list (each document's probability under each run's softmax
  over its ranks, ``1 / rank**tau``, renormalised over the documents not yet shown), that
  one run's clicks outnumber the other's.  mpkato sums ``P(list, assignment)`` over the
  assignments where A (or B) wins; dividing by ``P(list)`` (the sum over every assignment)
  gives these probabilities, which compare the same way; the assignments factor over the
  positions, so the sum is a Poisson-binomial over the clicked rows (no ``2**k`` loop).
  A shown list that no assignment could produce (a document in neither run) scores 0, 0.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

from irframe._input.keys import SYSTEM
from irframe._input.logs import CLICKED, DOC, IMPRESSION, POSITION, QUERY
from irframe.online._runs import RANK0, Rankings

__all__ = ["balanced_credit", "probabilistic_credit", "team_credit"]


def _click() -> pl.Expr:
    return pl.col(CLICKED) > 0


def team_credit(lf: pl.LazyFrame, systems: Sequence[str]) -> pl.LazyFrame:
    """Per impression: the clicks on each system's team (``credit_0``, ``credit_1``...)."""
    return lf.group_by(IMPRESSION).agg(
        pl.col(QUERY).first(),
        *[
            (_click() & (pl.col("team") == s)).sum().cast(pl.Float64).alias(f"credit_{i}")
            for i, s in enumerate(systems)
        ],
    )


def _with_ranks(lf: pl.LazyFrame, rank: Rankings) -> pl.LazyFrame:
    """The log's rows with each run's 0-based rank of the row's document (null: not ranked)
    and the run's length for the query (``_r0``, ``_r1``, ``_n0``, ``_n1``)."""
    table = rank.table.lazy()
    out = lf
    for i, s in enumerate(rank.systems[:2]):
        ranks = table.filter(pl.col(SYSTEM) == s).select(
            pl.col("query_id").alias(QUERY), pl.col("doc_id").alias(DOC), pl.col(RANK0).alias(f"_r{i}")
        )
        sizes = ranks.group_by(QUERY).agg(pl.len().cast(pl.Int64).alias(f"_n{i}"))
        out = out.join(ranks, on=[QUERY, DOC], how="left").join(sizes, on=QUERY, how="left")
        out = out.with_columns(pl.col(f"_n{i}").fill_null(0))
    return out


def balanced_credit(lf: pl.LazyFrame, rank: Rankings) -> pl.LazyFrame:
    """Per impression: balanced interleaving's credit of the two runs."""
    rows = _with_ranks(lf, rank)
    lowest = pl.col(POSITION).filter(_click()).max()
    at_lowest = pl.col(POSITION) == lowest
    k0 = pl.col("_r0").filter(at_lowest).first().fill_null(pl.col("_n0").first())
    k1 = pl.col("_r1").filter(at_lowest).first().fill_null(pl.col("_n1").first())
    k = pl.min_horizontal(k0, k1)
    return rows.group_by(IMPRESSION).agg(
        pl.col(QUERY).first(),
        (_click() & (pl.col("_r0") <= k)).sum().cast(pl.Float64).alias("credit_0"),
        (_click() & (pl.col("_r1") <= k)).sum().cast(pl.Float64).alias("credit_1"),
    )


def probabilistic_credit(lf: pl.LazyFrame, rank: Rankings, tau: float) -> pl.DataFrame:
    """Per impression: the probabilities that run 0's (run 1's) clicks outnumber the other's."""
    rows = _with_ranks(lf, rank).sort(IMPRESSION, POSITION)
    weights = [(1.0 / (pl.col(f"_r{i}").cast(pl.Float64) + 1.0) ** tau).fill_null(0.0) for i in (0, 1)]
    rows = rows.with_columns(
        *[w.alias(f"_w{i}") for i, w in enumerate(weights)],
        *[(w.cum_sum() - w).over(IMPRESSION).alias(f"_b{i}") for i, w in enumerate(weights)],
    )
    sizes = rank.table.group_by(SYSTEM, "query_id").agg(pl.len().alias("_len"))
    rows = rows.join(_softmax_totals(sizes, rank, tau).lazy(), on=QUERY, how="left")
    p = []
    for i in (0, 1):
        left = pl.col(f"_t{i}").fill_null(0.0) - pl.col(f"_b{i}")  # the softmax's mass not yet shown
        p.append(pl.when(left > 0).then(pl.col(f"_w{i}") / left).otherwise(0.0))
    per = (
        rows.with_columns(p[0].alias("_p0"), p[1].alias("_p1"))
        .group_by(IMPRESSION)
        .agg(
            pl.col(QUERY).first(),
            ((pl.col("_p0") + pl.col("_p1")) == 0).any().alias("_impossible"),
            (pl.col("_p0") / (pl.col("_p0") + pl.col("_p1"))).filter(_click()).alias("_q"),
        )
        .collect()
    )
    return win_probabilities(per)


def _softmax_totals(sizes: pl.DataFrame, rank: Rankings, tau: float) -> pl.DataFrame:
    """Per query: each run's softmax denominator over its whole ranking (``_t0``, ``_t1``)."""
    longest = int(sizes["_len"].cast(pl.Int64).max() or 0)
    cum = np.concatenate(([0.0], np.cumsum(1.0 / np.arange(1, longest + 1, dtype=np.float64) ** tau)))
    out = None
    for i, s in enumerate(rank.systems[:2]):
        part = sizes.filter(pl.col(SYSTEM) == s).select(
            pl.col("query_id").alias(QUERY), pl.col("_len").alias(f"_t{i}")
        )
        part = part.with_columns(pl.Series(f"_t{i}", cum[part[f"_t{i}"].to_numpy()], dtype=pl.Float64))
        out = part if out is None else out.join(part, on=QUERY, how="full", coalesce=True)
    return out.with_columns(pl.col("_t0", "_t1").fill_null(0.0)) if out is not None else sizes


def win_probabilities(per: pl.DataFrame) -> pl.DataFrame:
    """``credit_0``/``credit_1``: P(more clicks for run 0 / run 1) from each impression's
    clicked rows' ``_q`` (the probability run 0 drew that row): a Poisson-binomial."""
    q_lists = per["_q"].to_list()
    impossible = per["_impossible"].to_numpy()
    c0 = np.zeros(per.height)
    c1 = np.zeros(per.height)
    sizes = np.array([len(q) for q in q_lists])
    for m in np.unique(sizes):
        if m == 0:
            continue
        idx = np.flatnonzero(sizes == m)
        q = np.array([q_lists[i] for i in idx], dtype=np.float64)
        dist = np.zeros((idx.size, m + 1))  # dist[:, j] = P(j clicks drawn by run 0)
        dist[:, 0] = 1.0
        for col in range(m):
            qc = q[:, col : col + 1]
            dist = dist * (1 - qc) + np.concatenate((np.zeros((idx.size, 1)), dist[:, :-1]), axis=1) * qc
        j = np.arange(m + 1)
        c0[idx] = dist[:, 2 * j > m].sum(axis=1)
        c1[idx] = dist[:, 2 * j < m].sum(axis=1)
    c0[impossible] = 0.0
    c1[impossible] = 0.0
    return per.select(IMPRESSION, QUERY).with_columns(
        pl.Series("credit_0", c0, dtype=pl.Float64), pl.Series("credit_1", c1, dtype=pl.Float64)
    )
