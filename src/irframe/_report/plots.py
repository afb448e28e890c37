"""The figures of the reports, drawn from their data (matplotlib, imported when drawing).

Every function takes results (a :class:`~irframe._compare.ComparisonReport`, a
:class:`~irframe.CheckResult`, deltas) and never computes one: :mod:`irframe.plotting`
(public) computes and calls these, and the HTML pages of compare and check embed them.
This module imports no verb (``_compare``, ``_check``, ``plotting``): no import cycle.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from irframe._report.notes import correction_name, group_text

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from irframe._check.result import CheckResult
    from irframe._compare import ComparisonReport

__all__ = ["GAIN", "LOSS", "TIE", "axes", "check_forest", "delta_bars", "plot_comparison"]

GAIN, LOSS, TIE = "#2a9d8f", "#e76f51", "#adb5bd"
_REGRESSION = "#9b2226"


def pyplot() -> Any:
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:  # matplotlib is an optional dependency
        msg = "Plotting needs matplotlib. Hint: pip install 'irframe[plot]' (or pip install matplotlib)."
        raise ImportError(msg) from exc
    return plt


def axes(ax: Axes | None, figsize: tuple[float, float]) -> Axes:
    if ax is not None:
        return ax
    # constrained layout makes room for the tick labels and titles when the figure is saved
    _, new_ax = pyplot().subplots(figsize=figsize, layout="constrained")
    return new_ax  # type: ignore[no-any-return]


def delta_bars(
    delta: Any,
    queries: Sequence[str],
    *,
    names: tuple[str, str, str],
    ax: Axes | None = None,
    label_queries: bool | None = None,
) -> Axes:
    """:func:`plot_deltas`'s bars from the per-query deltas themselves (``names``: the
    system, the baseline and the measure), for deltas computed elsewhere (a check);
    sorted by the delta, largest gain first, ties in the order given.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> ax = delta_bars([0.5, -0.25, 0.0], ["q1", "q2", "q3"], names=("new", "old", "RR"))
    >>> ax.get_title(), [t.get_text() for t in ax.get_xticklabels()]
    ('new vs old: 1 better, 1 tied, 1 worse (mean Δ +0.0833)', ['q1', 'q3', 'q2'])
    """
    system, base, label = names
    values = np.asarray(delta, dtype=np.float64)
    order = np.argsort(-values, kind="stable")  # largest gain first; ties in the given order
    values = values[order]
    colors = np.where(values > 0, GAIN, np.where(values < 0, LOSS, TIE))
    ax = axes(ax, (max(6.0, 0.18 * len(values) + 2), 4.0))
    x = np.arange(len(values))
    ax.bar(x, values, color=colors.tolist(), width=0.8)
    ax.axhline(0.0, color="black", linewidth=0.8)
    wins, losses = int((values > 0).sum()), int((values < 0).sum())
    ties = len(values) - wins - losses
    mean = float(values.mean()) if len(values) else float("nan")
    ax.set_title(f"{system} vs {base}: {wins} better, {ties} tied, {losses} worse (mean Δ {mean:+.4f})")
    ax.set_ylabel(f"Δ {label} ({system} - {base})")
    show = len(values) <= 40 if label_queries is None else label_queries
    if show:
        ax.set_xticks(x)
        ax.set_xticklabels([str(queries[i]) for i in order], rotation=90, fontsize=7)
        ax.set_xlabel("query")
    else:
        ax.set_xticks([])
        ax.set_xlabel(f"{len(values)} queries, sorted by Δ")
    ax.set_xlim(-0.6, len(values) - 0.4)
    return ax


def plot_comparison(report: ComparisonReport, *, ax: Axes | None = None) -> Axes:
    """Forest plot: each (system, measure[, group]) delta with its CI; filled = significant.

    Parameters
    ----------
    report : ComparisonReport
        From :func:`irframe.compare.compare_report`.
    ax : matplotlib Axes, optional
        Where to draw; default a new figure.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from irframe._compare import compare_report
    >>> from irframe.datasets import golden
    >>> g = golden()
    >>> ax = plot_comparison(compare_report(g.runs, g.qrels, ["nDCG@10", "RR"], baseline="bm25"))
    >>> len(ax.get_yticklabels())
    4
    """
    table = report.to_polars()
    system_col = report.system_col if report.system_col in table.columns else "system"

    def label(r: dict[str, Any]) -> str:
        vs = [] if report.baseline is not None else ["vs", str(r["baseline"])]
        return " ".join([str(r[system_col]), *vs, str(r["measure"]), *[group_text(r[b]) for b in report.by]])

    rows = [(label(r), r["delta"], r["ci_low"], r["ci_high"], bool(r["significant"]), None)
            for r in table.iter_rows(named=True)]  # fmt: skip
    against = report.baseline if report.baseline is not None else "the vs system"
    return _forest(
        rows,
        xlabel=f"Δ vs {against} ({report.ci:.0%} CI)",
        title=f"filled: significant after {correction_name(report.correction)} correction\n"
        f"(family of {report.family_size}, alpha = {report.alpha:g})",
        ax=ax,
    )


_Row = tuple[str, float, float | None, float | None, bool, str | None]


def _forest(rows: Sequence[_Row], *, xlabel: str, title: str, ax: Axes | None) -> Axes:
    """One line per row (label, delta, CI low, CI high, filled, colour or None: by the
    sign), top to bottom, with the CI as a bar and the delta as a dot."""
    n = len(rows)
    ax = axes(ax, (6.0, 0.45 * n + 1.5))
    y = np.arange(n)[::-1]
    for yi, (_, delta, low, high, filled, colour) in zip(y, rows, strict=True):
        lo = low if low is not None else delta
        hi = high if high is not None else delta
        color = colour or (GAIN if delta > 0 else LOSS if delta < 0 else TIE)
        ax.plot([lo, hi], [yi, yi], color=color, linewidth=2)
        ax.plot([delta], [yi], marker="o", markersize=7, color=color,
                markerfacecolor=color if filled else "white")  # fmt: skip
    ax.set_yticks(y)
    ax.set_yticklabels([r[0] for r in rows])
    ax.axvline(0.0, color="black", linewidth=0.8)
    ax.set_xlabel(xlabel)
    ax.set_title(title, fontsize="medium")
    return ax


def check_forest(result: CheckResult, ordered: Iterable[dict[str, Any]], *, ax: Axes | None = None) -> Axes:
    """:func:`irframe.plotting.plot_check`'s figure (its example draws it): each (measure[,
    segment]) delta of ``result`` with its 95% CI, filled when significant after the
    correction, regressions in dark red; ``ordered``: the table's rows in the report's order
    (``CheckResult._ordered_rows``)."""
    rows: list[_Row] = []
    for r in ordered:
        if r["delta"] is None:
            continue
        where = "" if r["group"] == "all" else f" [{r['group']}]"
        regression = bool(r["regression"])
        label = f"{r['measure']}{where}" + (" (regression)" if regression else "")
        rows.append((label, r["delta"], r["ci_low"], r["ci_high"], bool(r["significant"]),
                     _REGRESSION if regression else None))  # fmt: skip
    gate = result.gate
    return _forest(
        rows,
        xlabel=f"Δ {result.candidate} - {result.baseline} (95% CI)",
        title=f"filled: significant after {correction_name(gate.correction)} correction "
        f"(alpha = {gate.alpha:g})",
        ax=ax,
    )
