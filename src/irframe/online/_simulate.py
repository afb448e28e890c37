"""Planning: how many impressions an interleaving, and an A/B test, need to see a difference.

:func:`power_curve` simulates users on judged queries (a cascade click model driven by the
qrels' grades, as Hofmann et al., 2011 and Chuklin et al., 2015 simulate them) shown either
the team-draft interleaving of two runs or, in an A/B test, one run per half of the
impressions; at each number of impressions it reports the share of simulated experiments
that found the true winner significant (two-sided, ``alpha``).  The true winner is the sign
of the expected outcome, estimated from a long simulation (``truth_impressions``).

Click models (``click`` and ``stop`` probability by grade 0, 1, 2; grades above 2 are 2,
negative grades 0; an unjudged document is grade 0):

=================  ===================  ===================
model              P(click | grade)      P(stop | click, grade)
=================  ===================  ===================
``perfect``        0.0, 0.5, 1.0         0.0, 0.0, 0.0
``navigational``   0.05, 0.5, 0.95       0.2, 0.5, 0.9
``informational``  0.4, 0.7, 0.9         0.1, 0.3, 0.5
=================  ===================  ===================

The interleaving side credits clicks per impression (team draft) and runs the sign test on
the impressions one team won; the A/B side compares the chosen metric (``ClicksPerQuery``,
``CTR``, ``RRFirstClick`` or ``Abandonment``) per impression with Welch's t (each impression
its own unit: the simulated users are independent).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import polars as pl

from irframe._distributions import binomial_two_sided
from irframe._input.columns import resolve_qrels
from irframe._input.frames import from_lazy, to_lazy
from irframe._input.params import check_level, check_resamples, check_seed
from irframe.exceptions import InvalidDataError, InvalidParameterError
from irframe.online._interleave import team_draft
from irframe.online._log import eager_origin
from irframe.online._outofcore import in_memory_only
from irframe.online._runs import read_rankings
from irframe.online._stats import welch_row

__all__ = ["CLICK_MODELS", "power_curve"]

CLICK_MODELS: dict[str, tuple[tuple[float, ...], tuple[float, ...]]] = {
    "perfect": ((0.0, 0.5, 1.0), (0.0, 0.0, 0.0)),
    "navigational": ((0.05, 0.5, 0.95), (0.2, 0.5, 0.9)),
    "informational": ((0.4, 0.7, 0.9), (0.1, 0.3, 0.5)),
}
_AB_METRICS = ("ClicksPerQuery", "CTR", "RRFirstClick", "Abandonment")
_VARIANTS = 64  # team-draft lists drawn per query, from which each impression picks one
IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


def _grades(qrels: Any, docs: dict[Any, list[list[Any]]]) -> dict[tuple[Any, Any], int]:
    lf, _ = to_lazy(qrels, "qrels")
    q, d, r = resolve_qrels(
        lf.collect_schema(), query_col="query_id", doc_col="doc_id", relevance_col="relevance"
    )
    table = lf.select(
        pl.col(q), pl.col(d), pl.col(r).cast(pl.Float64).clip(0, 2).round().cast(pl.Int64)
    ).collect()
    return {(a, b): int(g) for a, b, g in table.iter_rows() if a in docs}


def _cascade(grades: IntArray, model: tuple[FloatArray, FloatArray], rng: np.random.Generator) -> FloatArray:
    """Clicks (0/1) of simulated users over ``grades`` (impressions x positions; -1: nothing shown)."""
    p_click, p_stop = model
    shown = grades >= 0
    g = np.clip(grades, 0, None)
    clicks = np.zeros(grades.shape)
    looking = np.ones(grades.shape[0], dtype=bool)
    draws = rng.random((2, *grades.shape))
    for j in range(grades.shape[1]):
        c = looking & shown[:, j] & (draws[0, :, j] < p_click[g[:, j]])
        clicks[:, j] = c
        looking &= ~(c & (draws[1, :, j] < p_stop[g[:, j]]))
    return clicks


def _ab_values(clicks: FloatArray, metric: str) -> FloatArray:
    any_click: npt.NDArray[np.bool_] = np.asarray(clicks.any(axis=1))
    if metric == "ClicksPerQuery":
        return np.asarray(clicks.sum(axis=1), dtype=np.float64)
    if metric == "CTR":
        return np.asarray(any_click, dtype=np.float64)
    if metric == "Abandonment":
        return np.asarray(~any_click, dtype=np.float64)
    first = np.argmax(clicks > 0, axis=1) + 1.0
    return np.where(any_click, 1.0 / first, 0.0)


class _Sim:
    """The shown lists of the two sides, as grade and team matrices per query."""

    def __init__(
        self, lists: dict[Any, list[list[Any]]], grades: dict[tuple[Any, Any], int], k: int, seed: int | None
    ):
        rng = np.random.default_rng(seed)
        self.queries = list(lists)
        nq = len(self.queries)
        self.il_grades = np.full((nq, _VARIANTS, k), -1, dtype=np.int64)
        self.il_team = np.full((nq, _VARIANTS, k), -1, dtype=np.int64)
        self.ab_grades = np.full((2, nq, k), -1, dtype=np.int64)
        for qi, q in enumerate(self.queries):
            runs = [r[:k] for r in lists[q]]
            for s in (0, 1):
                for j, d in enumerate(runs[s]):
                    self.ab_grades[s, qi, j] = grades.get((q, d), 0)
            for v in range(_VARIANTS):
                docs, teams = team_draft(runs, k, rng)
                for j, (d, t) in enumerate(zip(docs, teams, strict=True)):
                    self.il_grades[qi, v, j] = grades.get((q, d), 0)
                    self.il_team[qi, v, j] = t

    def interleaved(self, n: int, model: Any, rng: np.random.Generator) -> IntArray:
        """+1 (A won), -1 (B won), 0 (tie) for ``n`` simulated impressions."""
        qi = rng.integers(len(self.queries), size=n)
        vi = rng.integers(_VARIANTS, size=n)
        clicks = _cascade(self.il_grades[qi, vi], model, rng)
        team = self.il_team[qi, vi]
        diff = (clicks * (team == 0)).sum(axis=1) - (clicks * (team == 1)).sum(axis=1)
        return np.asarray(np.sign(diff), dtype=np.int64)

    def ab(self, n: int, model: Any, metric: str, rng: np.random.Generator) -> tuple[FloatArray, FloatArray]:
        """The metric per impression for the two arms (``n`` impressions each)."""
        out = []
        for s in (0, 1):
            qi = rng.integers(len(self.queries), size=n)
            out.append(_ab_values(_cascade(self.ab_grades[s, qi], model, rng), metric))
        return out[0], out[1]


def _model(click_model: str | Mapping[str, Sequence[float]], where: str) -> tuple[FloatArray, FloatArray]:
    if isinstance(click_model, str) and click_model in CLICK_MODELS:
        c, s = CLICK_MODELS[click_model]
    elif isinstance(click_model, Mapping) and set(click_model) == {"click", "stop"}:
        c, s = tuple(click_model["click"]), tuple(click_model["stop"])
        if len(c) != 3 or len(s) != 3 or not all(0 <= x <= 1 for x in (*c, *s)):
            raise InvalidParameterError.for_value("click_model", where, "3 probabilities each", click_model)
    else:
        expected = f"one of {list(CLICK_MODELS)} or {{'click': [p0, p1, p2], 'stop': [s0, s1, s2]}}"
        raise InvalidParameterError.for_value("click_model", where, expected, click_model)
    return np.asarray(c, dtype=np.float64), np.asarray(s, dtype=np.float64)


def _sizes(impressions: Sequence[int], where: str) -> list[int]:
    sizes = sorted({int(n) for n in impressions}) if not isinstance(impressions, str | int) else []
    if not sizes or sizes[0] < 2 or any(isinstance(n, bool) for n in impressions):
        raise InvalidParameterError.for_value("impressions", where, "a list of ints >= 2", impressions)
    return sizes


def power_curve(
    runs: Any,
    qrels: Any,
    *,
    impressions: Sequence[int] = (50, 100, 200, 500, 1000, 2000, 5000),
    n_simulations: int = 200,
    click_model: str | Mapping[str, Sequence[float]] = "informational",
    ab_metric: str = "ClicksPerQuery",
    k: int = 10,
    alpha: float = 0.05,
    truth_impressions: int = 200_000,
    seed: int | None = 0,
    memory_limit: None = None,
) -> Any:
    """The power of team-draft interleaving and of an A/B test, by number of impressions.

    Parameters
    ----------
    runs : dict of two runs, or a stacked frame with a ``system`` column
        The two rankers; documents beyond ``k`` are not shown.
    qrels : frame
        ``query_id``, ``doc_id``, ``relevance``: the simulated users' grades (see
        :mod:`irframe.online._simulate`); the judged queries the runs rank are simulated.
    impressions : list of int
        The experiment sizes: impressions in all (the A/B test serves half of them to
        each arm, the interleaving serves every one to both rankers).
    n_simulations : int, default 200
        Simulated experiments per size.
    click_model : str or dict
        ``"perfect"``, ``"navigational"``, ``"informational"`` or ``{"click": [...], "stop": [...]}``.
    ab_metric : str
        The A/B test's metric per impression.
    k, alpha, truth_impressions, seed
        The list length, the test level, the simulation that finds the true winners, the seed.
    memory_limit : None
        Refused: a simulation reads no log.  Its inputs are two runs' top ``k`` and their
        judgments (in memory), and what it computes are simulated experiments: there is
        nothing to read out of core or to spread over Dask partitions.

    Returns
    -------
    frame
        One row per method (``"interleaving"``, ``"ab"``) and size: ``impressions``,
        ``power`` (the share of experiments that found the true winner significant),
        ``n_simulations``, ``winner`` (the true winner's name, or ``"none"``), ``effect`` (the
        long-run effect: delta for interleaving, the metric's difference for A/B).

    Examples
    --------
    >>> import polars as pl
    >>> from irframe import online
    >>> qrels = pl.DataFrame({"query_id": ["q"] * 3, "doc_id": ["a", "b", "c"], "relevance": [2, 0, 0]})
    >>> good = pl.DataFrame({"query_id": ["q"] * 3, "doc_id": ["a", "b", "c"], "rank": [1, 2, 3]})
    >>> bad = pl.DataFrame({"query_id": ["q"] * 3, "doc_id": ["c", "b", "a"], "rank": [1, 2, 3]})
    >>> curve = online.power_curve({"good": good, "bad": bad}, qrels, impressions=[20, 200],
    ...                            n_simulations=50, truth_impressions=20_000)
    >>> curve.filter(pl.col("method") == "interleaving")["winner"].to_list()
    ['good', 'good']
    """
    where = "irframe.online.power_curve"
    in_memory_only(memory_limit, where, "a simulation reads no log (two runs' top k and their judgments).")
    sizes = _sizes(impressions, where)
    n_sim = check_resamples(n_simulations, "n_simulations", where)
    alpha = 1 - check_level(1 - alpha, "alpha", where)
    model = _model(click_model, where)
    if ab_metric not in _AB_METRICS:
        raise InvalidParameterError.for_value("ab_metric", where, f"one of {list(_AB_METRICS)}", ab_metric)
    rank = read_rankings(runs, where=where, at_most=2)
    grades = _grades(qrels, rank.lists)
    judged = {
        q: rank.lists[q] for q in rank.queries if any((q, d) in grades for r in rank.lists[q] for d in r)
    }
    if not judged:
        msg = f"{where}: no query of the runs has a judged document in the qrels; nothing to simulate."
        raise InvalidDataError(msg)
    rng = np.random.default_rng(check_seed(seed, where))  # type: ignore[arg-type]
    sim = _Sim(judged, grades, k, int(rng.integers(2**31)))
    rows = _curve(
        sim,
        model,
        sizes,
        n_sim=n_sim,
        metric=ab_metric,
        alpha=alpha,
        truth=truth_impressions,
        rng=rng,
        systems=rank.systems,
    )
    names = ["method", "impressions", "power", "rejected", "n_simulations", "winner", "effect"]
    out = pl.DataFrame(rows, schema=names, orient="row")
    return from_lazy(out, eager_origin(rank.origin))


def _curve(
    sim: _Sim, model: Any, sizes: list[int], *, n_sim: int, metric: str, alpha: float, truth: int,
    rng: np.random.Generator, systems: list[str],
) -> list[tuple[Any, ...]]:  # fmt: skip
    long = sim.interleaved(truth, model, rng)
    il_effect = float((long > 0).mean() + (long == 0).mean() / 2 - 0.5)
    a, b = sim.ab(truth, model, metric, rng)
    ab_effect = float(a.mean() - b.mean())
    il_sign = int(np.sign(il_effect)) if abs(il_effect) > 3 * 0.5 / np.sqrt(truth) else 0
    ab_sd = np.sqrt((a.var(ddof=1) + b.var(ddof=1)) / truth)
    ab_sign = int(np.sign(ab_effect)) if abs(ab_effect) > 3 * ab_sd else 0
    rows: list[tuple[Any, ...]] = []
    top = sizes[-1]
    hits_il, hits_ab = np.zeros(len(sizes)), np.zeros(len(sizes))
    rej_il, rej_ab = np.zeros(len(sizes)), np.zeros(len(sizes))
    for _ in range(n_sim):
        out = sim.interleaved(top, model, rng)
        xa, xb = sim.ab(max(top // 2, 2), model, metric, rng)
        for i, n in enumerate(sizes):
            o = out[:n]
            wa, wb = int((o > 0).sum()), int((o < 0).sum())
            p = binomial_two_sided(wa, wa + wb)
            hits_il[i] += il_sign != 0 and p < alpha and np.sign(wa - wb) == il_sign
            rej_il[i] += p < alpha
            h = max(n // 2, 2)  # the A/B test splits the same traffic in two arms
            r = welch_row(float(xb[:h].mean()), float(xb[:h].var(ddof=1)), h, t_mean=float(xa[:h].mean()),
                          t_var=float(xa[:h].var(ddof=1)), t_n=h, level=1 - alpha)  # fmt: skip
            hits_ab[i] += ab_sign != 0 and r["p_value"] < alpha and np.sign(r["diff"]) == ab_sign
            rej_ab[i] += r["p_value"] < alpha
    names = {1: systems[0], -1: systems[1], 0: "none"}
    for i, n in enumerate(sizes):
        rows.append(
            ("interleaving", n, hits_il[i] / n_sim, rej_il[i] / n_sim, n_sim, names[il_sign], il_effect)
        )
    for i, n in enumerate(sizes):
        rows.append(("ab", n, hits_ab[i] / n_sim, rej_ab[i] / n_sim, n_sim, names[ab_sign], ab_effect))
    return rows
