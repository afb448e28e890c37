"""EM for the models whose click is attractiveness x examination (PBM, UBM, AllPairs).

The log is first reduced by a polars ``group_by`` to its sufficient statistics: one row per
(attractiveness key, examination key) with the clicked and the unclicked count.  Each EM
iteration is then one pass over that table (a gather and two ``bincount`` sums), however
long the log: a row of the log and a row of the table with weight w give the same sums.

The update is PyClick's (``PBMAttrEM``/``PBMExamEM``): for a clicked observation both
posteriors are 1; for an unclicked one, P(attractive | no click) = (1-e)a / (1-ea) and
P(examined | no click) = (1-a)e / (1-ea); a parameter is (alpha + sum of posteriors) /
(alpha + beta + observations), read back capped at 1 - 1e-6 as PyClick's ``ParamEM`` does
(the cap keeps 1 - ea above 0).  Every parameter starts at alpha / (alpha + beta) (0.5
without a prior) and all are updated together from the previous iteration's values.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

__all__ = ["PROB_MAX", "EMFit", "Observations", "fit_em", "key_sums", "posterior_mean", "start_value"]

#: PyClick's ``1 - ParamEM.PROB_MIN``: the largest value a parameter is read back as
PROB_MAX = 1.0 - 1e-6

Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.int64]


@dataclass(frozen=True)
class Observations:
    """Weighted observations: their attractiveness and examination keys (0-based), their
    clicked and unclicked counts, and the number of keys of each kind."""

    a_key: Ints
    e_key: Ints
    clicks: Floats
    skips: Floats
    sizes: tuple[int, int]


def key_sums(keys: Ints, weights: Floats, size: int) -> Floats:
    """The sum of ``weights`` by key, for keys ``0 .. size - 1``."""
    return np.asarray(np.bincount(keys, weights=weights, minlength=size), dtype=np.float64)


@dataclass(frozen=True)
class EMFit:
    """The fitted parameters, indexed as the keys were, and how the iterations ended."""

    attractiveness: Floats
    examination: Floats
    iterations: int
    last_change: float
    converged: bool


def start_value(prior: tuple[float, float]) -> float:
    """Where every parameter starts: alpha / (alpha + beta), 0.5 without a prior (PyClick: 1/2)."""
    alpha, beta = prior
    return min(alpha / (alpha + beta) if alpha + beta > 0 else 0.5, PROB_MAX)


def posterior_mean(num: Floats, den: Floats, prior: tuple[float, float], old: Floats) -> Floats:
    """The Beta posterior mean where there are observations; the old value elsewhere."""
    alpha, beta = prior
    total = den + (alpha + beta)
    with np.errstate(invalid="ignore", divide="ignore"):
        value = np.where(total > 0, (num + alpha) / total, old)
    return np.minimum(value, PROB_MAX)


def _batch_sums(keys: Ints, weights: Floats, size: int) -> Floats:
    """(replicates x size) sums of (replicates x observations) ``weights`` by key."""
    b = weights.shape[0]
    flat = (np.arange(b)[:, None] * size + keys[None, :]).ravel()
    sums = np.bincount(flat, weights=weights.ravel(), minlength=b * size)
    return np.asarray(sums, dtype=np.float64).reshape(b, size)


Pair = tuple[Floats, Floats]


def _em_map(obs: Observations, prior: tuple[float, float]) -> Callable[[Pair], Pair]:
    """The EM update (attractiveness, examination) -> the next, for every replicate at once."""
    clicks, skips = np.atleast_2d(obs.clicks), np.atleast_2d(obs.skips)
    a_key, e_key = obs.a_key, obs.e_key
    n_a, n_e = obs.sizes
    shown = clicks + skips
    a_den, e_den = _batch_sums(a_key, shown, n_a), _batch_sums(e_key, shown, n_e)

    def step(params: Pair) -> Pair:
        attr, exam = params
        a, e = attr[:, a_key], exam[:, e_key]
        rest = skips / (1.0 - e * a)
        a_num = _batch_sums(a_key, clicks + rest * (1.0 - e) * a, n_a)
        e_num = _batch_sums(e_key, clicks + rest * (1.0 - a) * e, n_e)
        return posterior_mean(a_num, a_den, prior, attr), posterior_mean(e_num, e_den, prior, exam)

    return step


def _squarem(step: Callable[[Pair], Pair], x0: Pair) -> Pair:
    """One SQUAREM step (Varadhan and Roland 2008, the step length clamped to <= -1): two EM
    updates, an extrapolation along them per replicate, one EM update from there."""
    x1 = step(x0)
    x2 = step(x1)
    r = [b - a for a, b in zip(x0, x1, strict=True)]
    v = [c - 2 * b + a for a, b, c in zip(x0, x1, x2, strict=True)]
    rr = sum((d * d).sum(axis=1) for d in r)
    vv = sum((d * d).sum(axis=1) for d in v)
    with np.errstate(invalid="ignore", divide="ignore"):
        alpha = np.where(vv > 0, -np.sqrt(rr / vv), -1.0)
    alpha = np.minimum(alpha, -1.0)[:, None]
    jump = [
        np.clip(a - 2 * alpha * d + alpha * alpha * w, 1e-9, PROB_MAX)
        for a, d, w in zip(x0, r, v, strict=True)
    ]
    return step((jump[0], jump[1]))


def fit_em(
    obs: Observations,
    *,
    prior: tuple[float, float],
    iterations: int,
    tol: float | None,
    theta: bool = False,
    start: EMFit | None = None,
) -> EMFit:
    """EM of click = attractiveness[a_key] x examination[e_key] on weighted observations.

    ``clicks`` and ``skips`` are one vector, or a matrix of replicates x observations (a
    bootstrap: every replicate fitted at once; the fit's arrays then have a leading
    replicate axis).  ``theta=True`` measures the change on examination / examination[0]
    alone (the model is identified only up to that ratio when attractiveness is free) and
    accelerates the iterations (SQUAREM: the same fixed point in far fewer passes; each
    counts as three iterations); ``start`` starts from a previous fit's parameters (a
    resample from the full sample's).  ``tol=None`` runs exactly ``iterations`` plain EM
    updates (PyClick's); otherwise the iterations stop once no parameter of any replicate
    moves by more than ``tol`` (``converged``).

    Examples
    --------
    >>> obs = Observations(np.array([0, 0]), np.array([0, 1]), np.array([3.0, 1.0]),
    ...                    np.array([1.0, 3.0]), (1, 2))
    >>> fit = fit_em(obs, prior=(0.0, 0.0), iterations=500, tol=1e-12)
    >>> round(float(fit.examination[1] / fit.examination[0]), 6), fit.converged
    (0.333333, True)
    """
    one = obs.clicks.ndim == 1
    b = np.atleast_2d(obs.clicks).shape[0]
    n_a, n_e = obs.sizes
    if start is None:
        attr, exam = np.full((b, n_a), start_value(prior)), np.full((b, n_e), start_value(prior))
    else:
        attr = np.broadcast_to(start.attractiveness, (b, n_a)).copy()
        exam = np.broadcast_to(start.examination, (b, n_e)).copy()
    if theta and tol is not None:
        return _fit_each(obs, (attr, exam), prior=prior, iterations=iterations, tol=tol, one=one)
    step = _em_map(obs, prior)
    change, done = np.inf, 0
    while done < iterations:
        new_attr, new_exam = step((attr, exam))
        done += 1
        change = max(_max_change(new_attr, attr), _max_change(new_exam, exam))
        attr, exam = new_attr, new_exam
        if tol is not None and change <= tol:
            break
    converged = tol is None or change <= tol
    if one:
        attr, exam = attr[0], exam[0]
    return EMFit(attr, exam, done, float(change), converged)


def _fit_each(
    obs: Observations, start: Pair, *, prior: tuple[float, float], iterations: int, tol: float, one: bool
) -> EMFit:
    """Accelerated EM until each replicate's theta moves by at most ``tol``: a converged
    replicate is set aside, so a slow one costs its own passes, not every replicate's."""
    attr, exam = start[0].copy(), start[1].copy()
    clicks, skips = np.atleast_2d(obs.clicks), np.atleast_2d(obs.skips)
    active = np.arange(attr.shape[0])
    changes = np.full(attr.shape[0], np.inf)
    done = 0
    while done < iterations and active.size:
        sub = Observations(obs.a_key, obs.e_key, clicks[active], skips[active], obs.sizes)
        step, x = _em_map(sub, prior), (attr[active], exam[active])
        while done < iterations:
            new = _squarem(step, x)
            done += 3
            moved = np.max(np.abs(new[1] / new[1][:, :1] - x[1] / x[1][:, :1]), axis=1, initial=0.0)
            x = new
            if np.any(moved <= tol) or done >= iterations:
                break
        attr[active], exam[active], changes[active] = x[0], x[1], moved
        active = active[moved > tol]
    change = float(np.max(changes, initial=0.0))
    if one:
        attr, exam = attr[0], exam[0]
    return EMFit(attr, exam, done, change, change <= tol)


def _max_change(new: Floats, old: Floats) -> float:
    return float(np.max(np.abs(new - old))) if new.size else 0.0
