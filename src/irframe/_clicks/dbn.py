"""DBN (Chapelle and Zhang, WWW 2009) fitted by EM, as PyClick's ``DBN`` with its slip fixed.

The log is reduced to its distinct sessions (a query's documents in position order and
their clicks; identical sessions become one row with a weight), laid out as a matrix of
sessions x ranks, and each EM iteration is a few passes over the rank columns, vectorised
over the sessions:

- ``exam_u[r]``: PyClick's unconditional examination, the product over the ranks above of
  gamma * (1 - a * s);
- ``car[r] = a_r + (1 - a_r) * gamma * car[r + 1]``: a click at or below r, given r examined;
- ``ex[r]``: examination given the clicks above (1 at the top; gamma * (1 - s) after a
  click; ``ex * gamma * (1 - a) / (1 - a * ex)`` after a skip);
- ``tail[r]``: the probability of the clicks from rank r down, given r examined (a backward
  recursion; PyClick multiplies the conditional click probabilities from r, which is the
  same number).

PyClick's ``_get_tail_clicks(session, start_rank, ...)`` reads the parameters of ranks 0,
1, ... for the results at ranks start_rank, start_rank + 1, ...: for the continuation
update it computes the tail below rank r with the parameters of the wrong documents.  Here
the tail reads each rank's own parameters (the deviation is named in
:func:`irframe.clicks.click_judgments`'s Notes and tested against PyClick with that one
line corrected).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from irframe._clicks.em import key_sums, posterior_mean, start_value

__all__ = ["DBNFit", "Sessions", "fit_dbn"]

Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.int64]


@dataclass(frozen=True)
class Sessions:
    """Distinct sessions: ``pair`` (sessions x ranks, -1 past the end), ``click`` (0/1) and
    the ``weight`` (how many impressions were that session)."""

    pair: Ints
    click: Floats
    weight: Floats

    @property
    def shown(self) -> npt.NDArray[np.bool_]:
        return self.pair >= 0


@dataclass(frozen=True)
class DBNFit:
    attractiveness: Floats
    satisfaction: Floats
    continuation: float
    iterations: int
    last_change: float
    converged: bool


def _last_click(s: Sessions) -> Ints:
    """The 0-based rank of each session's last click; the session's length when none."""
    ranks = np.arange(s.pair.shape[1])
    last = np.where(s.click > 0, ranks[None, :], -1).max(axis=1)
    return np.asarray(np.where(last >= 0, last, s.shown.sum(axis=1)), dtype=np.int64)


def _forward(a: Floats, sat: Floats, gamma: float, s: Sessions) -> tuple[Floats, Floats]:
    """(unconditional examination, examination given the clicks above) of every rank."""
    n, k = s.pair.shape
    exam_u, ex = np.ones((n, k + 1)), np.ones((n, k + 1))
    for r in range(k):
        exam_u[:, r + 1] = exam_u[:, r] * gamma * ((1 - sat[:, r]) * a[:, r] + (1 - a[:, r]))
        skip = ex[:, r] * gamma * (1 - a[:, r]) / (1 - a[:, r] * ex[:, r])
        ex[:, r + 1] = np.where(s.click[:, r] > 0, gamma * (1 - sat[:, r]), skip)
    return exam_u, ex


def _backward(a: Floats, sat: Floats, gamma: float, s: Sessions) -> tuple[Floats, Floats, Floats]:
    """(car, tail, no click from r down) of every rank; 0, 1 and 1 past the session's end."""
    n, k = s.pair.shape
    car, tail, none = np.zeros((n, k + 1)), np.ones((n, k + 1)), np.ones((n, k + 1))
    for r in range(k - 1, -1, -1):
        shown, c = s.shown[:, r], s.click[:, r] > 0
        car[:, r] = np.where(shown, a[:, r] + (1 - a[:, r]) * gamma * car[:, r + 1], 0.0)
        after_click = gamma * (1 - sat[:, r])
        clicked = a[:, r] * (after_click * tail[:, r + 1] + (1 - after_click) * none[:, r + 1])
        skipped = (1 - a[:, r]) * (gamma * tail[:, r + 1] + (1 - gamma) * none[:, r + 1])
        tail[:, r] = np.where(shown, np.where(c, clicked, skipped), 1.0)
        none[:, r] = np.where(shown & c, 0.0, none[:, r + 1])
    return car, tail, none


def _step(
    attr: Floats, sat: Floats, gamma: float, s: Sessions, last: Ints
) -> tuple[Floats, Floats, Floats, Floats, float, float]:
    """One E step: the numerators and denominators of attractiveness, satisfaction, gamma."""
    k = s.pair.shape[1]
    idx = np.where(s.shown, s.pair, 0)
    a, sv = attr[idx], sat[idx]
    exam_u, ex = _forward(a, sv, gamma, s)
    car, tail, none = _backward(a, sv, gamma, s)
    ranks = np.arange(k)[None, :]
    c, w = s.click > 0, s.weight[:, None] * s.shown
    has_click = last[:, None] < s.shown.sum(axis=1)[:, None]
    after = ~c & has_click & (ranks > last[:, None])
    eu, cr = exam_u[:, :k], car[:, :k]
    a_num = np.where(c, 1.0, np.where(after, (1 - eu) * a / (1 - eu * cr), 0.0))
    is_last = c & (ranks == last[:, None])
    s_num = np.where(is_last, sv / (1 - (1 - sv) * gamma * car[:, 1:]), 0.0)
    # the continuation: P(E_r=1, S_r=0, E_r+1=z | clicks), from the nonzero factors
    no_more = (last[:, None] < ranks + 1) & has_click  # PyClick: z=0 impossible without a click
    e, t = ex[:, :k], tail[:, 1:]
    stay = np.where(c, a * (1 - sv), 1 - a) * e
    f101 = stay * gamma * t
    f100 = stay * (1 - gamma) * no_more
    other = np.where(c, a * sv * e, (1 - a) * (1 - e)) * no_more
    total = f101 + f100 + other
    with np.errstate(invalid="ignore", divide="ignore"):
        g_num = np.where(s.shown, f101 / total, 0.0)
        g_den = np.where(s.shown, (f100 + f101) / total, 0.0)
    del none
    flat = idx[s.shown]
    return (
        key_sums(flat, (a_num * w)[s.shown], attr.size),
        key_sums(flat, w[s.shown], attr.size),
        key_sums(flat, (s_num * w)[s.shown], attr.size),
        key_sums(flat, (c * w)[s.shown], attr.size),
        float((g_num * w).sum()),
        float((g_den * w).sum()),
    )


def fit_dbn(
    s: Sessions, n_pairs: int, prior: tuple[float, float], iterations: int, tol: float | None
) -> DBNFit:
    """EM of DBN over the distinct sessions (see the module's docstring)."""
    start = start_value(prior)
    attr, sat, gamma = np.full(n_pairs, start), np.full(n_pairs, start), start
    last = _last_click(s)
    change, done = np.inf, 0
    for done in range(1, iterations + 1):  # noqa: B007 (done is read after the loop)
        a_num, a_den, s_num, s_den, g_num, g_den = _step(attr, sat, gamma, s, last)
        new_attr = posterior_mean(a_num, a_den, prior, attr)
        new_sat = posterior_mean(s_num, s_den, prior, sat)
        new_gamma = float(posterior_mean(np.array([g_num]), np.array([g_den]), prior, np.array([gamma]))[0])
        change = max(
            float(np.max(np.abs(new_attr - attr), initial=0.0)),
            float(np.max(np.abs(new_sat - sat), initial=0.0)),
            abs(new_gamma - gamma),
        )
        attr, sat, gamma = new_attr, new_sat, new_gamma
        if tol is not None and change <= tol:
            break
    return DBNFit(attr, sat, gamma, done, float(change), tol is None or change <= tol)
