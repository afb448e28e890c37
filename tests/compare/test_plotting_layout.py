"""Saved plots keep every label inside the canvas, and plot_at_k ticks only at whole cutoffs."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from irframe._compare import compare_report
from irframe.datasets import golden

matplotlib = pytest.importorskip("matplotlib", reason="the plots need pip install matplotlib")
matplotlib.use("Agg")
plt = pytest.importorskip("matplotlib.pyplot")

from irframe.plotting import plot_at_k, plot_comparison, plot_deltas  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures() -> Iterator[None]:
    yield
    plt.close("all")


def _outside(ax: Any, tmp_path: Path) -> list[str]:
    """The drawn texts (labels, ticks, title, legend) whose box leaves the saved figure."""
    fig = ax.figure
    fig.savefig(tmp_path / "figure.png")  # draws with the figure's layout, as a user's savefig does
    renderer = fig.canvas.get_renderer()
    width, height = fig.bbox.width, fig.bbox.height
    out = []
    for artist in fig.findobj(matplotlib.text.Text):
        if not artist.get_visible() or not artist.get_text():
            continue
        if artist in ax.xaxis.get_ticklabels() + ax.yaxis.get_ticklabels():
            # matplotlib keeps labels for ticks beyond the view limits: they are not drawn
            axis = ax.xaxis if artist in ax.xaxis.get_ticklabels() else ax.yaxis
            lo, hi = sorted(axis.get_view_interval())
            pos = artist.get_position()[0 if axis is ax.xaxis else 1]
            if not lo <= pos <= hi:
                continue
        box = artist.get_window_extent(renderer)
        if box.x0 < -0.5 or box.y0 < -0.5 or box.x1 > width + 0.5 or box.y1 > height + 0.5:
            out.append(artist.get_text())
    return out


def test_forest_plot_labels_inside_the_saved_figure(tmp_path: Path) -> None:
    g = golden()
    report = compare_report(
        g.runs, g.qrels, ["nDCG@10", "RR", "R@20"], baseline="bm25", n_permutations=200, n_bootstrap=200
    )
    ax = plot_comparison(report)
    # the long system-measure labels on the left and the x label below were cut before
    assert ax.get_yticklabels()[0].get_text() == "dense nDCG@10"
    assert _outside(ax, tmp_path) == []


def test_at_k_and_deltas_labels_inside_the_saved_figure(tmp_path: Path) -> None:
    g = golden()
    assert _outside(plot_at_k(g.runs, g.qrels, "nDCG"), tmp_path) == []
    assert _outside(plot_deltas(g.runs, g.qrels, "nDCG@10", baseline="bm25", system="hybrid"), tmp_path) == []


@pytest.mark.parametrize("ks", [range(1, 21), [1, 5, 10], [1, 3, 100]])
def test_at_k_ticks_are_whole_cutoffs(ks: Any, tmp_path: Path) -> None:
    g = golden()
    ax = plot_at_k(g.runs, g.qrels, "P", ks=ks)
    ax.figure.savefig(tmp_path / "at_k.png")
    lo, hi = ax.get_xlim()
    ticks = [t for t in ax.get_xticks() if lo <= t <= hi]
    assert ticks
    assert all(float(t).is_integer() for t in ticks), ticks  # 2.5, 7.5 were drawn before
    if len(list(ks)) <= 12:
        assert ticks == sorted(ks)  # few cutoffs: a tick at each one drawn, none between
