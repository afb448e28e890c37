"""The performance page: the latest benchmark table and plot from benchmarks/results, read at build time."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "benchmarks" / "results"
PLOT = "scaling.png"  # copied next to guides/performance.md by the hook


def page() -> str:
    """The page in markdown; the benchmark file's own title is replaced by the page's."""
    latest = (RESULTS / "latest.md").read_text(encoding="utf-8").splitlines()
    body = latest[1:] if latest and latest[0].startswith("# ") else latest
    return "\n".join(
        [
            "# Performance",
            "",
            "irframe builds one polars plan per call: the qrels are joined once, each query's grades are",
            "ordered inside one `group_by`, and every measure and cutoff is computed in that pass. A",
            "frame of more than 1.5 million rows is evaluated in buckets of whole queries, one at a time.",
            "`benchmarks/` measures it side by side with pytrec_eval, ir_measures, ranx and a naive pandas",
            "`groupby().apply` on seeded synthetic runs (`python benchmarks/run.py --rows 1e6`).",
            "This page embeds the latest committed results, `benchmarks/results/latest.md`, at build time.",
            "",
            f"![Time and memory against the number of rows, per contender]({Path(PLOT).name})",
            "",
            *body,
            "",
        ]
    )


def plot_bytes() -> bytes:
    """The scaling plot, copied into the site next to the page."""
    return (RESULTS / "scaling.png").read_bytes()
