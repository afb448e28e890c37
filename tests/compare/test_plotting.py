"""Plots render and save with the Agg backend (skipped without matplotlib)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pytest

from irframe._compare import compare_report
from irframe.datasets import golden
from irframe.exceptions import InvalidParameterError

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
plt = pytest.importorskip("matplotlib.pyplot")

from irframe.plotting import plot_at_k, plot_comparison, plot_deltas  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures() -> Iterator[None]:
    yield
    plt.close("all")


def test_plot_deltas_saves_and_sorts(tmp_path: Path) -> None:
    g = golden()
    ax = plot_deltas(g.runs, g.qrels, "nDCG@10", baseline="bm25", system="hybrid")
    heights = [p.get_height() for p in ax.patches]
    assert len(heights) == 40
    assert heights == sorted(heights, reverse=True)
    assert "better" in ax.get_title()
    out = tmp_path / "deltas.png"
    ax.figure.savefig(out)
    assert out.stat().st_size > 1000


def test_plot_deltas_pandas_and_own_axes(tmp_path: Path) -> None:
    g = golden(backend="pandas")
    two = g.runs[g.runs["system"].isin(["bm25", "dense"])]
    fig, ax = plt.subplots()
    got = plot_deltas(two, g.qrels, "RR", label_queries=False, ax=ax)  # one other system
    assert got is ax
    assert ax.get_xlabel() == "40 queries, sorted by Δ"
    fig.savefig(tmp_path / "deltas.svg")
    assert (tmp_path / "deltas.svg").exists()


def test_plot_deltas_needs_a_system_when_several() -> None:
    g = golden()
    with pytest.raises(InvalidParameterError, match="system="):
        plot_deltas(g.runs, g.qrels, "RR", baseline="bm25")


def test_plot_at_k_values_match_evaluate(tmp_path: Path) -> None:
    import irframe

    g = golden()
    ax = plot_at_k(g.runs, g.qrels, "nDCG", ks=range(1, 21))
    lines = {line.get_label(): line for line in ax.get_lines()}
    assert list(lines) == ["bm25", "dense", "hybrid"]
    want = irframe.evaluate(g.runs.filter(pl.col("system") == "dense"), ["nDCG@5", "nDCG@20"], g.qrels)
    ydata = list(lines["dense"].get_ydata())
    assert ydata[4] == pytest.approx(want.item(0, "nDCG@5"))
    assert ydata[19] == pytest.approx(want.item(0, "nDCG@20"))
    ax.figure.savefig(tmp_path / "at_k.pdf")
    assert (tmp_path / "at_k.pdf").stat().st_size > 1000
    with pytest.raises(InvalidParameterError, match="without cutoff"):
        plot_at_k(g.runs, g.qrels, "nDCG@10")


def test_plot_comparison_forest(tmp_path: Path) -> None:
    g = golden()
    rep = compare_report(g.runs, g.qrels, ["nDCG@10", "RR", "R@100"], baseline="bm25")
    ax = plot_comparison(rep)
    assert len(ax.get_yticklabels()) == 6
    assert "family of 6" in ax.get_title()
    ax.figure.savefig(tmp_path / "forest.png")
    assert (tmp_path / "forest.png").exists()


def test_importing_irframe_does_not_import_matplotlib() -> None:
    import subprocess

    code = "import irframe, irframe.stats, irframe.plotting, sys; irframe.compare; irframe.check; "
    code += "print('matplotlib' in sys.modules, 'scipy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]
