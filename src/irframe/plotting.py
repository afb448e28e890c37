"""Plots for comparing systems (matplotlib, imported only when a plot is drawn).

* :func:`plot_deltas` — per-query change of one system against the baseline, as bars
  sorted by the change: how many queries gained or lost, and how much.
* :func:`plot_at_k` — a measure at every cutoff ``k`` (``nDCG@1 ... nDCG@20``), one line
  per system.
* :func:`plot_comparison` — every (system, measure) delta with its confidence interval,
  significant ones filled (a forest plot of a :func:`irframe.compare.compare_report`).
* :func:`plot_power_curve` — the power of interleaving and of an A/B test by number of
  impressions (a :func:`irframe.online.power_curve`).
* :func:`plot_position_bias` — theta by position with its interval (a
  :func:`irframe.clicks.position_bias`), beside a known truth.
* :func:`plot_check` — the same forest plot of a :func:`irframe.check` (overall and per
  segment), the regressions in red.

Each function draws on ``ax`` when given (else on a new figure) and returns the Axes;
save it with ``ax.figure.savefig(path)``.  Install matplotlib with
``pip install 'irframe[plot]'``.

Examples
--------
>>> import matplotlib
>>> matplotlib.use("Agg")
>>> from irframe.datasets import golden
>>> from irframe.plotting import plot_at_k, plot_deltas
>>> g = golden()
>>> ax = plot_deltas(g.runs, g.qrels, "nDCG@10", baseline="bm25", system="hybrid")
>>> ax.get_ylabel()
'Δ nDCG@10 (hybrid - bm25)'
>>> ax = plot_at_k(g.runs, g.qrels, "nDCG", ks=range(1, 11))
>>> [line.get_label() for line in ax.get_lines()]
['bm25', 'dense', 'hybrid']
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from irframe._compare import moved_frame, system_means, system_names
from irframe._input.options import Missing, Options
from irframe._report.plots import GAIN as _GAIN
from irframe._report.plots import LOSS as _LOSS
from irframe._report.plots import TIE as _TIE
from irframe._report.plots import axes as _axes
from irframe._report.plots import check_forest, delta_bars, plot_comparison
from irframe.exceptions import InvalidParameterError
from irframe.measures import Measure, parse_measure

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from irframe._check.result import CheckResult

__all__ = [
    "plot_at_k",
    "plot_check",
    "plot_comparison",
    "plot_deltas",
    "plot_position_bias",
    "plot_power_curve",
]


def plot_deltas(
    runs: Any,
    qrels: Any = None,
    measure: str | Measure = "nDCG@10",
    *,
    baseline: str | None = None,
    system: str | None = None,
    ax: Axes | None = None,
    label_queries: bool | None = None,
    system_col: str = "system",
    missing: Missing = "zero",
    **column_kwargs: Any,
) -> Axes:
    """Bar chart of the per-query change ``system - baseline``, sorted by the change.

    Parameters
    ----------
    runs, qrels, measure, baseline, system_col, missing, **column_kwargs
        As for :func:`irframe.moved` (one measure).
    system : str, optional
        The system to plot; may be omitted when there is only one besides the baseline.
    ax : matplotlib Axes, optional
        Where to draw; default a new figure.
    label_queries : bool, optional
        Write the query ids under the bars (default: when there are at most 40).

    Returns
    -------
    matplotlib.axes.Axes
        Bars coloured by gain/loss; the title gives wins/ties/losses and the mean delta.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from irframe.datasets import golden
    >>> g = golden()
    >>> ax = plot_deltas(g.runs, g.qrels, "RR", baseline="bm25", system="dense")
    >>> len(ax.patches)  # one bar per query
    40
    """
    stacked_systems = system_names(runs, system_col=system_col)
    base = baseline or stacked_systems[0]
    if system is None:
        others = [s for s in stacked_systems if s != base]
        if len(others) != 1:
            msg = (
                f"plot_deltas draws one system against the baseline {base!r}; the runs hold "
                f"{others}. Hint: pass system=..., e.g. system={others[0]!r}."
            )
            raise InvalidParameterError(msg)
        system = others[0]
    label = str(measure) if isinstance(measure, Measure) else measure
    frame = moved_frame(
        runs,
        qrels,
        measure,
        baseline=base,
        system=system,
        n=None,
        docs_top=0,
        system_col=system_col,
        missing=missing,
        **column_kwargs,
    )
    query_col = Options.build("plot_deltas", **column_kwargs).query_col
    frame = frame.sort(["delta", query_col], descending=[True, False])
    return delta_bars(
        frame.get_column("delta").to_numpy(),
        frame.get_column(query_col).cast(pl.String).to_list(),
        names=(system, base, label),
        ax=ax,
        label_queries=label_queries,
    )


def plot_at_k(
    runs: Any,
    qrels: Any = None,
    measure: str | Measure = "nDCG",
    *,
    ks: Iterable[int] = range(1, 21),
    systems: Sequence[str] | None = None,
    ax: Axes | None = None,
    system_col: str = "system",
    missing: Missing = "zero",
    **column_kwargs: Any,
) -> Axes:
    """A measure at each cutoff ``k`` (e.g. nDCG@1 ... nDCG@20), one line per system.

    Parameters
    ----------
    runs : dict of name -> frame, or one stacked frame
        As for :func:`irframe.compare.compare`.
    qrels : frame, optional
        Judgments.
    measure : str or Measure, default "nDCG"
        A family with its parameters but no cutoff: ``"nDCG"``, ``"P"``, ``"R"``,
        ``"P(rel=2)"``, ``"nDCG(gain=linear)"``...
    ks : iterable of int, default 1..20
        Cutoffs.
    systems : list of str, optional
        Systems to draw (default all, in input order).
    ax : matplotlib Axes, optional
        Where to draw; default a new figure.
    system_col, missing, **column_kwargs
        As for :func:`irframe.compare.compare`.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from irframe.datasets import golden
    >>> ax = plot_at_k(golden().runs, golden().qrels, "P", ks=[1, 5, 10])
    >>> ax.get_xlabel(), ax.get_ylabel()
    ('k', 'P@k')
    """
    ks_list = [int(k) for k in ks]
    if not ks_list or any(k < 1 for k in ks_list):
        err = InvalidParameterError.for_value("ks", "plot_at_k", "cutoffs k >= 1", ks_list)
        raise err
    text = str(measure)
    if "@" in text:
        family = text.split("@", maxsplit=1)[0]
        msg = f"plot_at_k takes a measure without cutoff; got {text!r}. Hint: measure={family!r}."
        raise InvalidParameterError(msg)
    base_measure = parse_measure(f"{text}@1")  # validates the family and its parameters
    family_text = str(base_measure).rsplit("@", 1)[0]
    labels = [f"{family_text}@{k}" for k in ks_list]
    df = system_means(runs, qrels, labels, system_col=system_col, missing=missing, **column_kwargs)
    names = df.get_column(system_col).to_list()
    wanted = list(systems) if systems is not None else names
    ax = _axes(ax, (6.0, 4.0))
    for name in wanted:
        row = df.filter(pl.col(system_col) == name)
        if row.height == 0:
            msg = f"plot_at_k: no system {name!r} in the runs {names}."
            raise InvalidParameterError(msg)
        values = [row.item(0, label) for label in labels]
        ax.plot(ks_list, values, marker="o", markersize=3, label=name)
    from matplotlib.ticker import MaxNLocator

    if len(ks_list) <= 12:  # cutoffs are whole numbers: tick at the ones drawn, or at integers
        ax.set_xticks(sorted(set(ks_list)))
    else:
        ax.xaxis.set_major_locator(MaxNLocator(integer=True, steps=[1, 2, 5, 10]))
    ax.set_xlabel("k")
    ax.set_ylabel(f"{family_text}@k")
    ax.set_title(f"{family_text}@k by system")
    ax.grid(True, alpha=0.3)
    ax.legend()
    return ax


def plot_check(result: CheckResult, *, ax: Axes | None = None) -> Axes:
    """Forest plot of a check: each (measure[, segment]) delta with its 95% CI, filled when
    significant after the correction, regressions in dark red, the regressions first.

    Parameters
    ----------
    result : CheckResult
        From :func:`irframe.check`.
    ax : matplotlib Axes, optional
        Where to draw; default a new figure.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import irframe
    >>> from irframe.datasets import golden
    >>> g = golden()
    >>> run = lambda name: g.runs.filter(system=name).drop("system")
    >>> ax = plot_check(irframe.check(run("dense"), g.qrels, baseline=run("bm25")))
    >>> [t.get_text() for t in ax.get_yticklabels()]
    ['R@100 (regression)', 'nDCG@10', 'RR']
    """
    return check_forest(result, result._ordered_rows(), ax=ax)


def plot_power_curve(curve: Any, *, target: float = 0.8, ax: Axes | None = None) -> Axes:
    """The power of each method by number of impressions, from :func:`irframe.online.power_curve`.

    Parameters
    ----------
    curve : frame
        The power curve (``method``, ``impressions``, ``power``, ``winner``).
    target : float, default 0.8
        A horizontal line at this power.
    ax : matplotlib Axes, optional
        Where to draw; default a new figure.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import polars as pl
    >>> curve = pl.DataFrame({"method": ["interleaving", "interleaving", "ab", "ab"],
    ...                       "impressions": [100, 1000] * 2, "power": [0.4, 0.95, 0.1, 0.3],
    ...                       "winner": ["b"] * 4})
    >>> ax = plot_power_curve(curve)
    >>> [line.get_label() for line in ax.get_lines()][:2]
    ['team-draft interleaving', 'A/B test']
    """
    table = curve if isinstance(curve, pl.DataFrame) else pl.from_pandas(curve)
    ax = _axes(ax, (6.4, 3.8))
    labels = {"interleaving": "team-draft interleaving", "ab": "A/B test"}
    colors = {"interleaving": _GAIN, "ab": _LOSS}
    for method in ("interleaving", "ab"):
        part = table.filter(pl.col("method") == method).sort("impressions")
        if part.height:
            ax.plot(part["impressions"].to_list(), part["power"].to_list(), marker="o", color=colors[method],
                    label=labels[method])  # fmt: skip
    ax.axhline(target, color=_TIE, lw=1, ls="--")
    ax.set_xscale("log")
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("impressions (the A/B test: half per arm)")
    ax.set_ylabel("power (true winner significant)")
    winner = table["winner"][0] if "winner" in table.columns and table.height else None
    ax.set_title(f"finding {winner} better" if winner not in (None, "none") else "power by experiment size")
    ax.legend(loc="upper left")
    return ax


def plot_position_bias(
    bias: Any, *, truth: Any = None, label: str = "estimate", ax: Axes | None = None
) -> Axes:
    """Theta by position with its confidence interval, from :func:`irframe.clicks.position_bias`.

    Parameters
    ----------
    bias : frame
        ``position``, ``theta``, ``ci_low``, ``ci_high`` (a null theta is left out).
    truth : frame, optional
        ``position``, ``theta``: a known truth (a simulation's) drawn as a dashed line.
    label : str, default "estimate"
        The legend label of ``bias`` (e.g. the method).
    ax : matplotlib Axes, optional
        Where to draw; default a new figure.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import polars as pl
    >>> bias = pl.DataFrame({"position": [1, 2, 3], "theta": [1.0, 0.6, 0.4],
    ...                      "ci_low": [1.0, 0.5, 0.3], "ci_high": [1.0, 0.7, 0.5]})
    >>> ax = plot_position_bias(bias, label="pivot")
    >>> [line.get_label() for line in ax.get_lines()][:1], ax.get_xlabel()
    (['pivot'], 'position')
    """
    table = bias if isinstance(bias, pl.DataFrame) else pl.from_pandas(bias)
    table = table.filter(pl.col("theta").is_not_null()).sort("position")
    ax = _axes(ax, (6.4, 3.8))
    pos = table["position"].to_numpy()
    theta = table["theta"].to_numpy()
    low = table["ci_low"].fill_null(np.nan).to_numpy()
    high = table["ci_high"].fill_null(np.nan).to_numpy()
    ax.fill_between(pos, low, high, color=_GAIN, alpha=0.2, lw=0, label=f"{label}: 95% CI")
    ax.plot(pos, theta, marker="o", color=_GAIN, label=label)
    if truth is not None:
        known = truth if isinstance(truth, pl.DataFrame) else pl.from_pandas(truth)
        known = known.sort("position")
        ax.plot(known["position"].to_list(), known["theta"].to_list(), color=_LOSS, ls="--", label="truth")
    ax.set_xticks(pos)
    ax.set_ylim(0, 1.05)
    ax.set_xlabel("position")
    ax.set_ylabel("θ: examination relative to position 1")
    ax.legend(loc="upper right")
    return ax
