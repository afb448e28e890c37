"""Position bias: how often each position is examined, relative to position 1."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypedDict

import numpy as np
import polars as pl

from irframe._clicks.harvest import Estimate, Floats, estimator
from irframe._clicks.outofcore import open_log
from irframe._clicks.prepare import ClickLog, check_positive_int, warn
from irframe._input.logs import CLICKED, DOC, IMPRESSION, POSITION, QUERY
from irframe._input.params import check_level, check_seed
from irframe._resample import index_chunks
from irframe.exceptions import InvalidParameterError
from irframe.functions import options_of

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = ["METHODS", "Method", "PositionBias", "PositionBiasOptions", "position_bias", "position_bias_fit"]

Method = Literal["ctr", "pivot", "adjacent", "allpairs", "em"]
METHODS: tuple[str, ...] = ("ctr", "pivot", "adjacent", "allpairs", "em")
_WHERE = "position_bias"


def _check_method(method: object) -> str:
    if method not in METHODS:
        raise InvalidParameterError.not_one_of("method", _WHERE, METHODS, method)
    return str(method)


def _replicates(est: Estimate, n_bootstrap: int, seed: object) -> Floats:
    """Theta of ``n_bootstrap`` resamples of the queries (replicates x positions)."""
    rng = lambda: np.random.default_rng(seed)  # type: ignore[arg-type]  # noqa: E731
    out = []
    for idx in index_chunks(seed, rng, n_bootstrap, est.n_queries):
        rows = np.repeat(np.arange(idx.shape[0]), idx.shape[1])
        flat = np.bincount(rows * est.n_queries + idx.ravel(), minlength=idx.shape[0] * est.n_queries)
        out.append(est.theta(flat.reshape(idx.shape[0], est.n_queries).astype(np.float64)))
    return np.vstack(out)


def _randomized(log: ClickLog) -> bool:
    """Whether the log looks randomized: most pairs shown twice or more were shown at more
    than one position."""
    per = log.map(
        lambda rows: rows.group_by(QUERY, DOC).agg(
            pl.len().alias("n"), pl.col(POSITION).n_unique().alias("k")
        )
    )
    got = per.filter(pl.col("n") > 1).select((pl.col("k") > 1).mean()).item()
    return got is not None and got >= 0.5


@dataclass(frozen=True)
class PositionBias:
    """Position bias estimated on a log.

    Attributes
    ----------
    method : str
        The estimator (``"pivot"``...).
    theta : frame
        One row per position: ``position``, ``theta``, ``ci_low``, ``ci_high``, ``n`` (the
        caller's frame type; see :func:`position_bias_fit`).
    summary : dict
        ``n_rows``, ``n_impressions``, ``n_impressions_without_clicks``,
        ``n_rows_beyond_max_position``, ``n_queries``; ``"em"`` and ``"allpairs"`` also
        ``last_change`` (the full sample's fit: the largest move of a theta in its last
        iteration); out of core (or on a cluster) ``n_buckets``.
    """

    method: str
    theta: Any
    summary: dict[str, float | int]


def position_bias_fit(
    log: Any,
    method: Method = "pivot",
    *,
    n_bootstrap: int = 200,
    ci: float = 0.95,
    seed: int | None = 0,
    iterations: int = 5000,
    tol: float = 1e-6,
    max_position: int | None = None,
    impression_col: str = IMPRESSION,
    query_col: str = QUERY,
    doc_col: str = DOC,
    position_col: str = POSITION,
    clicked_col: str = CLICKED,
    memory_limit: int | str | None = None,
    buckets: int | None = None,
    tmp_dir: str | os.PathLike[str] | None = None,
) -> PositionBias:
    """Estimate the examination probability of each position relative to position 1 (theta).

    Parameters
    ----------
    log : pandas.DataFrame, polars.DataFrame or polars.LazyFrame
        An impression log (see :func:`irframe.clicks.click_judgments`).
    method : {"pivot", "adjacent", "allpairs", "em", "ctr"}, default "pivot"
        How theta is estimated (see Notes).
    n_bootstrap : int, default 200
        Resamples of the queries for the confidence interval (``"em"`` and ``"allpairs"``
        refit once per resample); 0 gives no interval (null bounds).
    ci : float, default 0.95
        Level of the percentile interval.
    seed : int or None, default 0
        Seed of the resampling.
    iterations, tol : int, float
        ``"em"`` and ``"allpairs"``: EM stops when no theta moves by more than ``tol``, or
        after ``iterations`` (then a :class:`~irframe.exceptions.ClickLogWarning` gives
        the last change).
    max_position : int, optional
        Rows below this position are left out first (counted, with a warning).
    impression_col, query_col, doc_col, position_col, clicked_col : str
        The log's column names.
    memory_limit, buckets, tmp_dir
        Out of core, as for :func:`irframe.clicks.click_judgments`: each method's per-query
        statistics are taken bucket by bucket (buckets of whole queries), then reduced;
        the same thetas, intervals and counts as in memory.

    Returns
    -------
    PositionBias
        ``theta``: one row per position from 1 to the deepest: ``position``, ``theta`` (1 at position
        1), ``ci_low``, ``ci_high`` and ``n``: the rows (``"ctr"``, ``"em"``) or the
        (query, document) pairs (``"pivot"``, ``"adjacent"``, ``"allpairs"``) it rests on.  A
        position no pair reaches has a null theta, n = 0, and a warning names it.

    Notes
    -----
    - ``"ctr"``: the CTR of position k over the CTR of position 1.  Valid only on a
      randomized log (each document shown at random positions); on any other log it
      mixes position bias with the ranker's quality, and a warning says so when most
      (query, document) pairs shown twice never changed position.
    - ``"pivot"``, ``"adjacent"``, ``"allpairs"``: intervention harvesting (Agarwal et al.,
      WSDM 2019): the same (query, document) shown at different positions (by different
      rankers, or over time).  With c(q, d, k) its CTR at position k: pivot's theta_k is
      the sum of c(q, d, k) over the pairs shown at 1 and at k, over the sum of their
      c(q, d, 1); adjacent chains the ratios of neighbouring positions (theta_k = product of
      the ratios from 2 to k; past a missing link, null); these are ultr-bias-toolkit
      0.0.5's ``PivotEstimator`` and ``AdjacentChainEstimator``.  AllPairs maximises the
      weighted likelihood of every pair of positions, c ~ theta_k x r_{k,k'} with one
      relevance per set {k, k'}, by EM (ultr-bias-toolkit's runs Adam on it, indexing
      the sets by k x k', which merges e.g. {1, 6} and {2, 3}).
    - ``"em"``: the position-based model (click = attractiveness x examination), fitted
      by EM without a prior; theta_k = examination_k / examination_1.

    The interval is the percentile bootstrap over queries (``n_bootstrap`` resamples).

    Examples
    --------
    >>> import polars as pl
    >>> log = pl.DataFrame({"impression_id": [1, 1, 2, 2, 3, 3], "query_id": "q",
    ...                     "doc_id": ["a", "b", "b", "a", "a", "b"],
    ...                     "position": [1, 2, 1, 2, 1, 2], "clicked": [1, 0, 1, 1, 0, 0]})
    >>> fit = position_bias_fit(log, "pivot", n_bootstrap=0)
    >>> fit.theta.select("position", "theta", "n").rows(), fit.summary["n_impressions"]
    ([(1, 1.0, 2), (2, 0.6666666666666666, 2)], 3)
    """
    name = _check_method(method)
    n_boot = 0 if n_bootstrap == 0 else int(check_positive_int(n_bootstrap, "n_bootstrap", _WHERE) or 0)
    level, checked_seed = check_level(ci, "ci", _WHERE), check_seed(seed, _WHERE)
    check_positive_int(iterations, "iterations", _WHERE)
    columns = {
        "impression_col": impression_col, "query_col": query_col, "doc_col": doc_col,
        "position_col": position_col, "clicked_col": clicked_col,
    }  # fmt: skip
    with open_log(
        log, where=_WHERE, columns=columns, max_position=max_position, memory_limit=memory_limit,
        buckets=buckets, tmp_dir=tmp_dir,
    ) as clog:  # fmt: skip
        randomized = name != "ctr" or _randomized(clog)
        est = estimator(clog, name, iterations=iterations, tol=tol)
    if not randomized:
        warn(
            f"{_WHERE}(method='ctr'): the log does not look randomized (most (query, document) pairs "
            "shown more than once were always shown at the same position), so CTR by position mixes "
            "position bias with the ranker's quality. Hint: use method='pivot' or 'em' on a log of "
            "several rankers, or 'ctr' only on a randomized log."
        )
    point = est.theta(np.ones((1, est.n_queries)))[0]
    if est.fits and not est.fits[0][1]:
        warn(
            f"{_WHERE}(method={name!r}): EM did not converge within iterations={iterations}: the last "
            f"iteration changed a parameter by {est.fits[0][0]:.3g} (> tol={tol:g}). Hint: raise iterations."
        )
    summary: dict[str, float | int] = {**clog.summary, "n_queries": est.n_queries}
    if est.fits:
        summary |= {"last_change": est.fits[0][0]}
    table = _table(est, point, n_boot=n_boot, level=level, seed=checked_seed, name=name)
    return PositionBias(name, clog.back(table), summary)


class PositionBiasOptions(TypedDict, total=False):
    """The keyword options of :func:`position_bias` (and :func:`position_bias_fit`), for the
    type checkers (``tests/meta/test_signatures.py`` keeps them equal to the fit's)."""

    n_bootstrap: int
    ci: float
    seed: int | None
    iterations: int
    tol: float
    max_position: int | None
    impression_col: str
    query_col: str
    doc_col: str
    position_col: str
    clicked_col: str
    memory_limit: int | str | None
    buckets: int | None
    tmp_dir: str | os.PathLike[str] | None


@options_of(position_bias_fit)
def position_bias(log: Any, method: Method = "pivot", **options: Unpack[PositionBiasOptions]) -> Any:
    """Estimate the examination probability of each position relative to position 1 (theta).

    The parameters, methods and result are :func:`position_bias_fit`'s, whose ``theta``
    this returns; :func:`position_bias_fit` also returns the counts (``summary``: the log's
    rows and impressions, the rows ``max_position`` left out, the queries, out of core the
    number of buckets).

    Returns
    -------
    frame
        One row per position from 1 to the deepest: ``position``, ``theta`` (1 at position
        1), ``ci_low``, ``ci_high`` and ``n`` (see :func:`position_bias_fit`).

    Examples
    --------
    >>> import polars as pl
    >>> log = pl.DataFrame({"impression_id": [1, 1, 2, 2, 3, 3], "query_id": "q",
    ...                     "doc_id": ["a", "b", "b", "a", "a", "b"],
    ...                     "position": [1, 2, 1, 2, 1, 2], "clicked": [1, 0, 1, 1, 0, 0]})
    >>> position_bias(log, "pivot", n_bootstrap=0).select("position", "theta", "n").rows()
    [(1, 1.0, 2), (2, 0.6666666666666666, 2)]
    """
    return position_bias_fit(log, method, **options).theta


def _table(
    est: Estimate, point: Floats, *, n_boot: int, level: float, seed: object, name: str
) -> pl.DataFrame:
    low, high = np.full(est.top, np.nan), np.full(est.top, np.nan)
    if n_boot:
        reps = _replicates(est, n_boot, seed)
        alpha = (1 - level) / 2
        for k in range(est.top):
            finite = reps[:, k][np.isfinite(reps[:, k])]
            if finite.size:
                low[k], high[k] = np.quantile(finite, [alpha, 1 - alpha])
    unreached = [k + 1 for k in range(est.top) if est.n[k] == 0 or not np.isfinite(point[k])]
    if unreached:
        warn(
            f"{_WHERE}(method={name!r}): theta is undefined at position(s) {unreached[:10]}: no "
            "(query, document) pair reaches them, or the pairs that do were never clicked at the "
            "reference position; their theta is null. Hint: a log of several rankers (or randomized "
            "positions) shows documents at more positions; method='em' pools all of them."
        )
    table = pl.DataFrame(
        {
            POSITION: np.arange(1, est.top + 1, dtype=np.int64),
            "theta": point,
            "ci_low": low,
            "ci_high": high,
            "n": est.n,
        }
    )
    return table.with_columns(pl.col("theta", "ci_low", "ci_high").fill_nan(None))
