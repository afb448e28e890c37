"""The guides' pictures, drawn at build time by irframe.plotting on the bundled golden set.

A guide asks for one with an HTML comment on a line of its own (invisible where the markdown is
read raw, ignored by the doctests):

    <!-- irframe:figure compare-forest -->

and the hook puts the SVG next to the page and the image in its place. Without matplotlib the
build still succeeds and the page says which picture is missing and why.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from typing import Any

# name -> (alt text and caption, the function that draws it on the golden set)
Figure = tuple[str, Callable[[Any], Any]]


def _golden() -> Any:
    from irframe.datasets import golden

    return golden()


def _forest(g: Any) -> Any:
    import irframe
    from irframe.plotting import plot_comparison

    report = irframe.compare_report(
        g.runs, g.qrels, ["nDCG@10", "RR", "R@20"], baseline="bm25", n_permutations=2000, n_bootstrap=2000
    )
    return plot_comparison(report)


def _at_k(g: Any) -> Any:
    from irframe.plotting import plot_at_k

    return plot_at_k(g.runs, g.qrels, "nDCG", ks=range(1, 21))


def _deltas(g: Any) -> Any:
    from irframe.plotting import plot_deltas

    return plot_deltas(g.runs, g.qrels, "nDCG@10", baseline="bm25", system="hybrid")


def _deltas_dense(g: Any) -> Any:
    from irframe.plotting import plot_deltas

    return plot_deltas(g.runs, g.qrels, "R@100", baseline="bm25", system="dense")


def _power(g: Any) -> Any:
    from irframe import online
    from irframe.plotting import plot_power_curve

    runs = g.runs.filter(g.runs["system"].is_in(["bm25", "dense"]))
    curve = online.power_curve(
        runs, g.qrels, impressions=[25, 50, 100, 200, 400, 800, 1600, 3200], n_simulations=200,
        click_model="navigational", ab_metric="RRFirstClick", seed=0,
    )  # fmt: skip
    return plot_power_curve(curve)


def _clicks_theta(_: Any) -> Any:
    from irframe.clicks import position_bias
    from irframe.datasets import click_log
    from irframe.plotting import plot_position_bias

    c = click_log()
    return plot_position_bias(position_bias(c.log, "pivot", n_bootstrap=500), truth=c.theta, label="pivot")


def _clicks_verdicts(_: Any) -> Any:
    import matplotlib.pyplot as plt
    import polars as pl

    import irframe
    from irframe.clicks import click_judgments
    from irframe.datasets import click_log

    c = click_log()
    ctr = c.log.group_by("query_id", "doc_id").agg(pl.col("clicked").mean().alias("relevance"))
    grades = {
        "hidden grades": c.truth,
        "clicks as grades (CTR)": ctr,
        "SDBN judgments": click_judgments(c.log),
    }
    _, ax = plt.subplots(figsize=(6.4, 3.6), layout="constrained")
    colors = {"a": "#adb5bd", "old": "#e9c46a", "b": "#2a9d8f"}
    for i, qrels in enumerate(grades.values()):
        out = irframe.evaluate(c.runs, ["nDCG(gain=linear)@10"], qrels, by="system").sort("system")
        for j, (system, value) in enumerate(out.select("system", "nDCG(gain=linear)@10").rows()):
            ax.bar(i + (j - 1) * 0.26, value, 0.24, color=colors[system], label=system if i == 0 else None)
    ax.set_xticks(range(len(grades)), list(grades))
    ax.set_ylim(0.8, 1.0)
    ax.set_ylabel("nDCG@10 (linear gain)")
    ax.legend(title="ranker", loc="upper left", ncols=3)
    return ax


FIGURES: dict[str, Figure] = {
    "compare-forest": (
        "Forest plot: each system's change against bm25 per measure with its 95% CI; filled markers "
        "are significant after Holm's correction",
        _forest,
    ),
    "compare-at-k": ("nDCG at every cutoff k from 1 to 20, one line per system", _at_k),
    "compare-deltas": ("Per-query change of nDCG@10, hybrid minus bm25, sorted by the change", _deltas),
    "online-power": (
        "Power of team-draft interleaving and of an A/B test (RRFirstClick, the same traffic split in two) "
        "to find dense better than bm25, by number of impressions: simulated navigational users on the "
        "golden set",
        _power,
    ),
    "golden-deltas": ("Per-query change of R@100, dense minus bm25, sorted by the change", _deltas_dense),
    "clicks-verdicts": (
        "nDCG@10 of the three rankers of the bundled click log, judged by the hidden grades, by each "
        "document's click-through rate, and by SDBN judgments: clicks as grades put b below a",
        _clicks_verdicts,
    ),
    "clicks-theta": (
        "Position bias of the bundled click log: the pivot estimate with its 95% bootstrap interval over "
        "queries, and the true theta the log was simulated with (dashed)",
        _clicks_theta,
    ),
}

MARKER = re.compile(r"^<!-- irframe:figure (?P<name>[\w-]+) -->$", re.MULTILINE)


def svg(name: str) -> bytes:
    """One figure as SVG (text as paths: the same glyphs on every reader's machine)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    _, draw = FIGURES[name]
    with matplotlib.rc_context({"svg.hashsalt": "irframe-docs", "svg.fonttype": "path"}):
        ax = draw(_golden())
        buf = io.BytesIO()
        ax.figure.savefig(buf, format="svg", metadata={"Date": None})
        plt.close(ax.figure)
    return buf.getvalue()


def available() -> str | None:
    """None when the figures can be drawn, else why not."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return "this build of the docs had no matplotlib (`pip install 'irframe[plot]'`)"
    return None


def render_all() -> dict[str, bytes]:
    """``{name: svg}`` for every figure; empty without matplotlib."""
    if available() is not None:
        return {}
    return {name: svg(name) for name in FIGURES}


def path(name: str) -> str:
    """Where a figure goes in the site, under docs/."""
    return f"img/{name}.svg"


def replace_markers(markdown: str, page_dir_depth: int, drawn: dict[str, bytes]) -> str:
    """The page with each figure marker replaced by the image (or by a note saying why not)."""
    up = "../" * page_dir_depth

    def one(match: re.Match[str]) -> str:
        name = match.group("name")
        if name not in FIGURES:
            msg = f"unknown figure {name!r} in a guide; known: {sorted(FIGURES)} (docs/_gen/figures.py)"
            raise KeyError(msg)
        alt, _ = FIGURES[name]
        if name not in drawn:
            return f'!!! note "Figure not drawn"\n    {alt}: {available() or "not drawn"}.\n'
        image = f"![{alt}]({up}{path(name)})"
        return f'<figure markdown="span">\n  {image}\n  <figcaption>{alt}</figcaption>\n</figure>\n'

    return MARKER.sub(one, markdown)
