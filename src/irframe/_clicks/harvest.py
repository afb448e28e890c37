"""The position-bias estimators as per-query statistics and a theta function of query weights.

Every estimator is reduced (by polars aggregations over the log) to a few per-query
matrices (queries x positions, or x position pairs); its theta is a function of one weight
per query, so that the estimate is ``theta(ones)`` and each bootstrap replicate is
``theta(counts of each query in the resample)``.  The intervention sets are those of
Agarwal et al. (WSDM 2019) as ultr-bias-toolkit 0.0.5 builds them: for each (query,
document) and position, its CTR there; pairs of positions a (query, document) was shown at.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt
import polars as pl

from irframe._clicks.em import EMFit, Observations, fit_em
from irframe._clicks.prepare import CLICK, ClickLog
from irframe._input.logs import DOC, POSITION, QUERY

__all__ = ["Estimate", "estimator"]

Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.int64]
QUERY_IDX, K0 = "__ir_query_index", "__ir_k0"
#: a per-query aggregation of the rows (with their query index), taken on the whole log
Indexed = Callable[[Callable[[pl.LazyFrame], pl.LazyFrame]], pl.DataFrame]


@dataclass(frozen=True)
class Estimate:
    """An estimator ready to run: ``theta(weights)`` maps (replicates x queries) query weights
    to (replicates x positions) thetas; ``n`` the observations or pairs of each position."""

    top: int
    n: Ints
    n_queries: int
    theta: Callable[[Floats], Floats]
    #: the EM fits' (last change, converged), in the order theta ran them
    fits: list[tuple[float, bool]] = field(default_factory=list)


def _dense(df: pl.DataFrame, value: str, n_q: int, top: int, col: str = POSITION) -> Floats:
    """A (queries x positions) matrix of ``value`` from rows (query index, position)."""
    out = np.zeros((n_q, top), dtype=np.float64)
    q = df[QUERY_IDX].to_numpy()
    k = df[col].to_numpy() - 1
    np.add.at(out, (q, k), df[value].cast(pl.Float64).to_numpy())
    return out


def _ratio(num: Floats, den: Floats) -> Floats:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


def _ctr(log: Indexed, n_q: int, top: int) -> Estimate:
    per = log(
        lambda rows: rows.group_by(QUERY_IDX, POSITION).agg(
            pl.col(CLICK).sum().alias("c"), pl.len().alias("n")
        )
    )
    clicks, shown = _dense(per, "c", n_q, top), _dense(per, "n", n_q, top)

    def theta(w: Floats) -> Floats:
        ctr = _ratio(w @ clicks, w @ shown)
        return _ratio(ctr, np.repeat(ctr[:, :1], top, axis=1))

    return Estimate(top, shown.sum(axis=0).astype(np.int64), n_q, theta)


def _cells(rows: pl.LazyFrame) -> pl.LazyFrame:
    """Each (query, document, position): its CTR ``c`` there."""
    return rows.group_by(QUERY_IDX, QUERY, DOC, POSITION).agg(pl.col(CLICK).mean().alias("c"))


def _ordered_sums(rows: pl.LazyFrame, keys: list[str], values: list[pl.Expr]) -> pl.LazyFrame:
    """Per ``keys``: the sums of the float ``values`` and the rows (``n``), each sum taken in
    document order (sorted lists, summed in order; a ``group_by`` sum adds threads' partial
    sums in any order, and EM amplifies the last bits): the same bits on every run, and in
    memory as out of core (a query's rows are in one part)."""
    names = [v.meta.output_name() for v in values]
    return (
        rows.sort(*keys, DOC)
        .group_by(keys, maintain_order=True)
        .agg(*values, pl.len().alias("n"))
        .with_columns(pl.col(*names).list.sum())
    )


def _pivot_sets(rows: pl.LazyFrame, adjacent: bool) -> pl.LazyFrame:
    """Per query and position: the sums of the intervention sets' CTRs at the reference and at k."""
    cells = _cells(rows)
    if adjacent:  # the (query, document) at k - 1 and at k; at 1, itself (ultr-bias-toolkit's (1, 1))
        shifted = cells.select(QUERY, DOC, (pl.col(POSITION) + 1).alias(POSITION), pl.col("c").alias("c0"))
        top_row = cells.filter(pl.col(POSITION) == 1).select(QUERY, DOC, POSITION, pl.col("c").alias("c0"))
        base, on = pl.concat([top_row, shifted]), [QUERY, DOC, POSITION]
    else:  # the (query, document) at 1 and at k
        base = cells.filter(pl.col(POSITION) == 1).select(QUERY, DOC, pl.col("c").alias("c0"))
        on = [QUERY, DOC]
    return _ordered_sums(cells.join(base, on=on), [QUERY_IDX, POSITION], [pl.col("c0"), pl.col("c")])


def _pivot(log: Indexed, n_q: int, top: int, adjacent: bool) -> Estimate:
    sets = log(lambda rows: _pivot_sets(rows, adjacent)).sort(QUERY_IDX, POSITION)
    s0, s1, n = _dense(sets, "c0", n_q, top), _dense(sets, "c", n_q, top), _dense(sets, "n", n_q, top)

    def theta(w: Floats) -> Floats:
        ratio = _ratio(w @ s1, w @ s0)
        ratio[:, 0] = np.where(np.isnan(ratio[:, 0]), np.nan, 1.0)  # (1, 1): c / c
        return np.asarray(np.cumprod(ratio, axis=1), dtype=np.float64) if adjacent else ratio

    return Estimate(top, n.sum(axis=0).astype(np.int64), n_q, theta)


_CHUNK = 4_000_000  # replicates x observations fitted at once


def _fit_theta(
    obs: Observations, iterations: int, tol: float, first: dict[int, EMFit], fits: list[tuple[float, bool]]
) -> Floats:
    """Theta of each replicate of ``obs``; the first call's fit is where later ones start."""
    fit = fit_em(obs, prior=(0.0, 0.0), iterations=iterations, tol=tol, theta=True, start=first.get(0))
    if 0 not in first:
        first[0] = EMFit(
            fit.attractiveness[0], fit.examination[0], fit.iterations, fit.last_change, fit.converged
        )
    fits.append((fit.last_change, fit.converged))
    exam = np.atleast_2d(fit.examination)
    return _ratio(exam, np.repeat(exam[:, :1], exam.shape[1], axis=1))


def _allpairs_sets(rows: pl.LazyFrame, top: int) -> pl.LazyFrame:
    """Per query and pair of positions (k, k'): the sums of the pairs' CTRs at k."""
    cells = _cells(rows)
    other = cells.select(QUERY, DOC, pl.col(POSITION).alias(K0))
    pairs = (
        cells.join(other, on=[QUERY, DOC])
        .filter(pl.col(POSITION) != pl.col(K0))
        .with_columns(((pl.col(POSITION) - 1) * top + pl.col(K0) - 1).alias("cell"))
    )
    return _ordered_sums(pairs, [QUERY_IDX, "cell"], [pl.col("c"), (1 - pl.col("c")).alias("not_c")])


def _allpairs(log: Indexed, n_q: int, top: int, iterations: int, tol: float) -> Estimate:
    sets = log(lambda rows: _allpairs_sets(rows, top)).sort(QUERY_IDX, "cell")
    size = top * top
    c, nc = _dense(sets, "c", n_q, size, "cell"), _dense(sets, "not_c", n_q, size, "cell")
    n = _dense(sets, "n", n_q, size, "cell").sum(axis=0)
    used = np.flatnonzero(n > 0)
    k, k0 = used // top, used % top
    a_key = np.minimum(k, k0) * top + np.maximum(k, k0)  # the relevance of the set {k, k'}
    fits: list[tuple[float, bool]] = []
    first: dict[int, EMFit] = {}  # the full sample's fit: where each resample starts

    def theta(w: Floats) -> Floats:
        obs = Observations(a_key, k, (w @ c)[:, used], (w @ nc)[:, used], (size, top))
        return _fit_theta(obs, iterations, tol, first, fits)

    per_position = np.bincount(k, weights=n[used], minlength=top).astype(np.int64)
    return Estimate(top, per_position, n_q, theta, fits)


def _em(log: Indexed, n_q: int, top: int, iterations: int, tol: float) -> Estimate:
    stats = (
        log(
            lambda rows: rows.group_by(QUERY_IDX, QUERY, DOC, POSITION).agg(
                pl.col(CLICK).sum().alias("c"), pl.len().alias("n")
            )
        )
        .with_columns(pl.struct(QUERY, DOC).rank("dense").cast(pl.Int64).alias("pair") - 1)
        .sort(QUERY_IDX, QUERY, DOC, POSITION)
    )
    q = stats[QUERY_IDX].to_numpy()
    a_key, e_key = stats["pair"].to_numpy(), stats[POSITION].to_numpy() - 1
    clicks = stats["c"].cast(pl.Float64).to_numpy()
    skips = stats["n"].cast(pl.Float64).to_numpy() - clicks
    sizes = (int(a_key.max()) + 1, top)
    fits: list[tuple[float, bool]] = []
    first: dict[int, EMFit] = {}  # the full sample's fit: where each resample starts

    def theta(w: Floats) -> Floats:
        out = []
        step = max(1, _CHUNK // max(1, q.size))
        for lo in range(0, w.shape[0], step):
            wq = w[lo : lo + step, q]
            obs = Observations(a_key, e_key, wq * clicks, wq * skips, sizes)
            out.append(_fit_theta(obs, iterations, tol, first, fits))
        return np.vstack(out)

    n = np.bincount(e_key, weights=clicks + skips, minlength=top).astype(np.int64)
    return Estimate(top, n, n_q, theta, fits)


def estimator(log: ClickLog, method: str, *, iterations: int, tol: float) -> Estimate:
    """The ``method``'s per-query statistics of the canonical log, each a per-query aggregation
    taken on every part of the log (:meth:`~irframe._clicks.prepare.ClickLog.map`)."""
    # sorted: the same query index (so the same bootstrap resamples for a seed) on every run
    found = log.map(lambda rows: rows.group_by(QUERY).agg(pl.col(POSITION).max()))  # (one pass)
    queries = found.select(QUERY).unique().sort(QUERY).with_row_index(QUERY_IDX)
    queries = queries.with_columns(pl.col(QUERY_IDX).cast(pl.Int64))
    top = int(found[POSITION].max())  # type: ignore[arg-type]
    n_q = queries.height

    def indexed(fn: Callable[[pl.LazyFrame], pl.LazyFrame]) -> pl.DataFrame:
        return log.map(lambda rows: fn(rows.join(queries.lazy(), on=QUERY)))

    if method == "ctr":
        return _ctr(indexed, n_q, top)
    if method in ("pivot", "adjacent"):
        return _pivot(indexed, n_q, top, adjacent=method == "adjacent")
    if method == "allpairs":
        return _allpairs(indexed, n_q, top, iterations, tol)
    return _em(indexed, n_q, top, iterations, tol)
