"""``irframe demo``: the bundled golden set, evaluated."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from irframe.cli._common import (
    DEFAULT_MEASURES,
    SubParsers,
    _add_measure_option,
    _common,
    markers_encodable,
    render_table,
)

if TYPE_CHECKING:
    import polars as pl

__all__ = ["add_parser", "cmd_demo"]

_SEGMENT_ORDER = ["navigational", "informational", "long-tail"]


def add_parser(sub: SubParsers) -> None:
    """Register ``irframe demo``."""
    p = sub.add_parser(
        "demo",
        parents=[_common()],
        help="evaluate the bundled golden set (3 systems, 40 queries)",
        description=(
            "Evaluate the three bundled golden runs (bm25, dense, hybrid) against the golden "
            "qrels: measures side by side, then nDCG@10 per query segment, the golden-set check of "
            "hybrid against bm25, and the next step: what to judge in hybrid's top 10."
        ),
    )
    _add_measure_option(p, f"measures to show (default: {' '.join(DEFAULT_MEASURES)})")
    p.set_defaults(func=cmd_demo)


def _by_segment(
    per_query: pl.DataFrame, queries: pl.DataFrame, measure: str, order: list[str]
) -> pl.DataFrame:
    """Mean of ``measure`` per system and query segment, one column per segment."""
    import polars as pl

    by_segment = (
        per_query.join(queries.select("query_id", "segment"), on="query_id", how="left")
        .group_by("system", "segment")
        .agg(pl.col(measure).mean())
        .pivot(on="segment", index="system", values=measure)
        .sort("system")
    )
    return by_segment.select("system", *[s for s in order if s in by_segment.columns])


def _print_evaluation(g: Any, measures: list[str]) -> None:
    from irframe.functions import evaluate_both

    labels = [str(m) for m in measures]
    per_query, summary = evaluate_both(g.runs, measures, g.qrels, by="system")
    counts = dict(g.queries.group_by("segment").len().iter_rows())
    order = _SEGMENT_ORDER + sorted(s for s in counts if s not in _SEGMENT_ORDER)
    first = labels[0]
    by_segment = _by_segment(per_query, g.queries, first, order)
    out = sys.stdout
    n_judged = g.qrels.height
    systems = ", ".join(sorted(g.runs["system"].unique()))
    print(
        "The golden set bundled with irframe: an invented help-center search (Voltmart).\n"
        f"{g.queries.height} queries in {len(counts)} segments, {n_judged} graded judgments (0-3), "
        f"3 systems ({systems}).\n",
        file=out,
    )
    print(f"Means over {summary['n_queries'][0]} queries (* = best):", file=out)
    print(render_table(summary.select("system", *labels).sort("system"), mark_best=labels), file=out)
    seg_names = ", ".join(f"{counts[s]} {s}" for s in order if s in counts)
    print(f"\n{first} by query segment ({seg_names}):", file=out)
    print(render_table(by_segment, mark_best=by_segment.columns[1:]), file=out)


def _files(g: Any) -> str:
    """The bundled files' folder as a shell word: the commands the demo suggests read them where
    they are installed and write nothing there (an output goes to the current directory)."""
    import shlex

    return shlex.quote(str(g.paths.qrels.parent))


def _print_check(g: Any, measures: list[str]) -> None:
    """The golden-set loop on the bundled set: hybrid checked against bm25."""
    from irframe import check

    runs = {s: g.runs.filter(g.runs["system"] == s) for s in ("bm25", "hybrid")}
    result = check(runs["hybrid"], g.qrels, baseline=runs["bm25"], measures=measures, queries=g.queries,
                   n_moved=5)  # fmt: skip
    at = _files(g)
    print(
        "\nThe golden-set loop: does hybrid regress against bm25? (irframe check; exit code "
        f"{int(result.exit_code)})\n  irframe check {at}/qrels.txt {at}/runs/hybrid.run "
        f"--baseline {at}/runs/bm25.run --queries {at}/queries.tsv\n",
        file=sys.stdout,
    )
    print(result.report(ascii=not markers_encodable()), file=sys.stdout)


def _print_pool(g: Any, n: int = 5) -> None:
    """The next step of the loop: what hybrid ranks in its top 10 that nobody judged."""
    from irframe._golden.pool import pool

    run = g.runs.filter(g.runs["system"] == "hybrid")
    p = pool(run, g.qrels, depth=10, queries=g.queries, documents=g.docs, doc_text_col="title")
    at = _files(g)
    print(
        "\nThe next step of the loop: judge what hybrid ranks in its top 10 that nobody judged\n"
        f"  irframe pool {at}/qrels.txt {at}/runs/hybrid.run --depth 10 -o to_judge.tsv"
        "   # (writes to_judge.tsv here)",
        file=sys.stdout,
    )
    if p.to_judge.height == 0:
        print("Nothing to judge: every document of hybrid's top 10 has a grade.", file=sys.stdout)
        return
    print(f"{p.to_judge.height} pairs to judge, most useful first; the first {n}:", file=sys.stdout)
    sheet = p.to_judge.head(n).select("query_id", "doc_id", "doc_title", "priority", "best_rank")
    print(render_table(sheet), file=sys.stdout)


def cmd_demo(args: argparse.Namespace) -> int:
    """Run ``irframe demo``."""
    from irframe.datasets import golden

    g = golden()
    measures = list(args.measures or DEFAULT_MEASURES)
    _print_evaluation(g, measures)
    print(
        f"\nThe files (TREC qrels and runs, TSV queries and docs) are in {g.paths.qrels.parent}\n"
        f"Per query, from the files:  irframe eval {_files(g)}/qrels.txt {_files(g)}/runs/*.run -q",
        file=sys.stdout,
    )
    _print_check(g, measures)
    _print_pool(g)
    return 0
