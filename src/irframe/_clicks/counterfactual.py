"""counterfactual: what new rankings would score on the logged clicks (IPS), or a logged
slate policy's estimators."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any, Literal

import numpy as np
import polars as pl

from irframe._clicks.ips import parse_click_measures, per_query_values, theta_table
from irframe._clicks.outofcore import open_log
from irframe._clicks.prepare import ClickLog
from irframe._clicks.slate import EVALUATION, LOGGING, SLATE_ESTIMATORS, slate_columns, slate_values
from irframe._input.keys import QUERY_KEY, SYSTEM
from irframe._input.logs import CLICKED, DOC, IMPRESSION, POSITION, QUERY
from irframe._input.params import check_level, check_resamples, check_seed
from irframe._input.runs import stack_runs
from irframe.exceptions import InvalidParameterError

__all__ = ["ESTIMATORS", "counterfactual"]

ESTIMATORS: tuple[str, ...] = ("ips", *SLATE_ESTIMATORS)
_WHERE = "counterfactual"


def _check_estimator(estimator: object, runs: object, propensities: object) -> str:
    if estimator not in ESTIMATORS:
        raise InvalidParameterError.not_one_of("estimator", _WHERE, ESTIMATORS, estimator)
    if estimator == "ips" and (runs is None or propensities is None):
        msg = (
            f"{_WHERE}(estimator='ips') needs the new ranking(s) (runs=) and the position bias "
            "(propensities=: position_bias's result or a {position: theta} dict). Hint: "
            "theta = irframe.clicks.position_bias(log); counterfactual(log, runs, propensities=theta)."
        )
        raise InvalidParameterError(msg)
    if estimator != "ips" and runs is not None:
        msg = (
            f"{_WHERE}(estimator={estimator!r}) reads the evaluation policy's propensities from the "
            "log's columns; runs= is for estimator='ips'. Hint: drop runs=, or use estimator='ips'."
        )
        raise InvalidParameterError(msg)
    return str(estimator)


def _system_col(runs: object, system_col: str | None) -> str | None:
    """``system_col`` for a stacked frame that has it; None for one run without it."""
    if system_col is None or isinstance(runs, Mapping):
        return system_col
    from irframe._input.frames import to_lazy

    return system_col if system_col in to_lazy(runs, "runs")[0].collect_schema() else None


def _bootstrap(values: np.ndarray, n_bootstrap: int, ci: float, seed: object) -> tuple[float, float]:
    """Percentile interval of the mean of ``values`` (rows resampled)."""
    from irframe.stats import bootstrap_ci

    if values.size < 2 or n_bootstrap == 0:
        return float("nan"), float("nan")
    r = bootstrap_ci(values, n_bootstrap=n_bootstrap, ci=ci, seed=seed)  # type: ignore[arg-type]
    return r.low, r.high


def _ips_summary(
    table: pl.DataFrame, measures: list[str], systems: list[str], ess: float, opts: dict[str, Any]
) -> pl.DataFrame:
    from irframe.stats import adjust_p_values, bootstrap_ci, paired_test

    rows: list[dict[str, Any]] = []
    base = systems[0]
    values = {s: table.filter(pl.col(SYSTEM) == s).sort(QUERY_KEY) for s in systems}
    for system in systems:
        part = values[system]
        for m in measures:
            x = part[m].to_numpy()
            low, high = _bootstrap(x, opts["n_bootstrap"], opts["ci"], opts["seed"])
            row = {"system": system, "measure": m, "value": float(x.mean()), "ci_low": low, "ci_high": high}
            row |= {"n_queries": part.height, "n_missing": int((~part["in_run"]).sum())}
            row |= {"n_impressions": int(part["n_impressions"].sum()), "ess": ess}
            if len(systems) > 1 and system != base:
                y = values[base][m].to_numpy()
                d = bootstrap_ci(
                    x, y, n_bootstrap=max(1, opts["n_bootstrap"]), ci=opts["ci"], seed=opts["seed"]
                )
                p = paired_test(x, y, test=opts["test"], seed=opts["seed"]).p_value
                row |= {
                    "baseline": base,
                    "delta": d.estimate,
                    "delta_ci_low": d.low,
                    "delta_ci_high": d.high,
                    "p_value": p,
                }
            rows.append(row)
    out = pl.DataFrame(rows)
    if len(systems) > 1:
        compared = out.filter(pl.col("p_value").is_not_null())
        adjusted = adjust_p_values(compared["p_value"].to_numpy(), method=opts["correction"])
        out = out.join(
            compared.select("system", "measure").with_columns(pl.Series("p_adjusted", adjusted)),
            on=["system", "measure"], how="left",
        )  # fmt: skip
    return out.with_columns(pl.col("value", "ci_low", "ci_high").fill_nan(None))


def _slate(clog: ClickLog, estimator: str, opts: dict[str, Any]) -> pl.DataFrame:
    per_slate, ess = slate_values(clog, estimator, opts["names"])
    x = per_slate["value"].to_numpy()
    low, high = _bootstrap(x, opts["n_bootstrap"], opts["ci"], opts["seed"])
    return pl.DataFrame(
        {
            "estimator": [estimator], "value": [float(x.sum() / x.size)], "ci_low": [low], "ci_high": [high],
            "n_impressions": [int(x.size)], "ess": [ess],
        }
    )  # fmt: skip


def counterfactual(
    log: Any,
    runs: Any = None,
    measures: Sequence[str] | str = ("DCG@10", "Clicks@10"),
    *,
    propensities: Any = None,
    clip: float | None = None,
    estimator: Literal["ips", "sips", "iips", "rips", "snsips", "sniips", "snrips"] = "ips",
    per_query: bool = False,
    n_bootstrap: int = 1000,
    ci: float = 0.95,
    seed: int | None = 0,
    test: str = "randomization",
    correction: str = "holm",
    system_col: str | None = "system",
    run_query_col: str = QUERY,
    run_doc_col: str = DOC,
    rank_col: str | None = "rank",
    score_col: str = "score",
    pscore_col: str | None = None,
    evaluation_pscore_col: str | None = None,
    max_position: int | None = None,
    impression_col: str = IMPRESSION,
    query_col: str = QUERY,
    doc_col: str = DOC,
    position_col: str = POSITION,
    clicked_col: str = CLICKED,
    memory_limit: int | str | None = None,
    buckets: int | None = None,
    tmp_dir: str | os.PathLike[str] | None = None,
) -> Any:
    """Estimate what new rankings would score on a click log (counterfactual, off-policy).

    Parameters
    ----------
    log : pandas.DataFrame, polars.DataFrame or polars.LazyFrame
        The impression log (see :func:`irframe.clicks.click_judgments`).
    runs : frame or dict of frames, optional
        ``estimator="ips"``: the new ranking(s), as ``evaluate`` takes runs: one run, a dict
        ``{name: run}`` or a stacked frame with ``system_col`` (stacked by the rules of
        :mod:`irframe._input.runs`); ordered by rank, or score (ties by doc id, as everywhere).
    measures : list of str, default ("DCG@10", "Clicks@10")
        Additive click measures: ``DCG@k`` (lambda(r) = 1/log2(r + 1)) and ``Clicks@k``
        (lambda(r) = 1), 0 past rank k.
    propensities : frame or dict
        ``estimator="ips"``: theta by position, :func:`position_bias`'s result or a
        ``{position: theta}`` dict; every clicked position needs a positive theta.
    clip : float, optional
        Cap each weight at ``clip`` (clipped IPS: min(1/theta, clip)).
    estimator : {"ips", "sips", "iips", "rips", "snsips", "sniips", "snrips"}
        ``"ips"`` (Joachims et al. 2017) for new rankings; the slate estimators for logs that
        record the logging and evaluation policies' propensities (see Notes).
    per_query : bool, default False
        ``"ips"``: one row per (system, logged query) with the measures instead.
    n_bootstrap, ci, seed : int, float, int
        The percentile bootstrap: over queries for ``"ips"``, over impressions (slates) for
        the slate estimators (as obp does).
    test, correction : str
        With several systems, each is compared with the first (``irframe.stats.paired_test``
        over queries) and the p-values corrected together (``adjust_p_values``).
    system_col, run_query_col, run_doc_col, rank_col, score_col : str
        The runs' columns.
    pscore_col, evaluation_pscore_col : str, optional
        The log's logging and evaluation propensity columns (default: obp's names for the
        estimator: ``pscore``/``evaluation_policy_pscore``, ``pscore_item_position``/...,
        ``pscore_cascade``/...).
    max_position : int, optional
        Rows below this position are left out first (counted, with a warning).
    impression_col, query_col, doc_col, position_col, clicked_col : str
        The log's columns.
    memory_limit, buckets, tmp_dir
        Out of core (or a dask frame's buckets), as for
        :func:`irframe.clicks.click_judgments`: each bucket of whole queries is checked and
        aggregated on its own (IPS: per (system, query) sums of the clicks' weighted gains;
        the slate estimators: per-position weight sums, then per-impression rewards), the
        small tables then reduced: the same numbers as in memory.  The runs and the
        propensities stay in memory.

    Returns
    -------
    frame
        ``"ips"``: one row per (system, measure): ``system``, ``measure``, ``value``,
        ``ci_low``, ``ci_high``, ``n_queries`` (logged queries), ``n_missing`` (logged
        queries the run does not rank: value 0), ``n_impressions``, ``ess`` (Kish's effective
        sample size of the clicks' weights); with several systems also ``baseline``,
        ``delta``, ``delta_ci_low``, ``delta_ci_high``, ``p_value``, ``p_adjusted``.  A slate
        estimator: one row, ``estimator``, ``value``, ``ci_low``, ``ci_high``,
        ``n_impressions``, ``ess``.

    Notes
    -----
    IPS: a new ranking's value on an impression is the sum over its clicked documents of
    lambda(the document's rank in the new ranking) / theta(its logged position) (a document
    the ranking does not return counts 0); a query's value is the mean over its logged
    impressions, the system's the mean over the logged queries.  Unbiased when theta is the
    true examination probability and every relevant document was shown with theta > 0.

    Slate estimators (obp 0.4.1's ``SlateStandardIPS``, ``SlateIndependentIPS``,
    ``SlateRewardInteractionIPS`` and their self-normalized versions): the reward is the
    ``clicked`` value of each slot, weighted by evaluation / logging propensity, summed and
    divided by the number of impressions; self-normalized: each weight divided by the mean
    weight (over all rows for SNSIPS, over the position's rows for SNIIPS and SNRIPS).

    Examples
    --------
    >>> import polars as pl
    >>> log = pl.DataFrame({"impression_id": [1, 1, 2, 2], "query_id": "q",
    ...                     "doc_id": ["a", "b", "a", "b"], "position": [1, 2, 1, 2],
    ...                     "clicked": [0, 1, 1, 0]})
    >>> run = pl.DataFrame({"query_id": "q", "doc_id": ["b", "a"], "rank": [1, 2]})
    >>> out = counterfactual(log, run, ["Clicks@1"], propensities={1: 1.0, 2: 0.5}, n_bootstrap=0)
    >>> out.select("measure", "value", "n_impressions").rows()
    [('Clicks@1', 1.0, 2)]
    """
    name = _check_estimator(estimator, runs, propensities)
    opts: dict[str, Any] = {
        "n_bootstrap": 0 if n_bootstrap == 0 else check_resamples(n_bootstrap, "n_bootstrap", _WHERE),
        "ci": check_level(ci, "ci", _WHERE), "seed": check_seed(seed, _WHERE), "test": test,
        "correction": correction,
    }  # fmt: skip
    if clip is not None and not (isinstance(clip, int | float) and clip > 0):
        raise InvalidParameterError.for_value("clip", _WHERE, "a number > 0 or None", clip)
    reading: dict[str, Any] = {
        "where": _WHERE, "max_position": max_position, "memory_limit": memory_limit, "buckets": buckets,
        "tmp_dir": tmp_dir, "columns": {
            "impression_col": impression_col, "query_col": query_col, "doc_col": doc_col,
            "position_col": position_col, "clicked_col": clicked_col,
        },
    }  # fmt: skip
    if name != "ips":
        opts["names"] = slate_columns(name, pscore_col, evaluation_pscore_col)
        extra = {LOGGING: opts["names"][LOGGING], EVALUATION: opts["names"][EVALUATION]}
        with open_log(log, extra=extra, **reading) as clog:
            return clog.back(_slate(clog, name, opts))
    measure_list = parse_click_measures(measures, _WHERE)
    theta = theta_table(propensities, _WHERE)
    stack = stack_runs(runs, _system_col(runs, system_col), _WHERE)
    run_cols = {
        "query_col": run_query_col, "doc_col": run_doc_col, "rank_col": rank_col, "score_col": score_col,
        "system_col": system_col,
    }  # fmt: skip
    with open_log(log, **reading) as clog:
        table, ess = per_query_values(clog, stack, measure_list, theta, clip=clip, columns=run_cols)
    return clog.back(
        _ips_result(
            table,
            clog,
            stack.systems,
            ess,
            opts
            | {"per_query": per_query, "system_col": system_col, "measures": [m.name for m in measure_list]},
        )
    )


def _ips_result(
    table: pl.DataFrame, clog: ClickLog, systems: list[str], ess: float, opts: dict[str, Any]
) -> pl.DataFrame:
    """The per-query table (``per_query``) or the per-system summary, with the log's names."""
    names, system = opts["measures"], opts["system_col"] or "system"
    if opts["per_query"]:
        out = table.select(pl.col(SYSTEM).alias(system), QUERY, "n_impressions", "in_run", *names)
        return out.rename({QUERY: clog.cols.query}).sort(system, clog.cols.query)
    return _ips_summary(table, names, systems, ess, opts).rename({"system": system})
