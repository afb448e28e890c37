"""``irframe compare QRELS RUN RUN ...``: deltas, CIs and corrected paired tests against a baseline."""

from __future__ import annotations

import argparse
from typing import Any

from irframe.cli._common import (
    DEFAULT_MEASURES,
    SubParsers,
    _add_map,
    _add_measure_option,
    _add_missing_and_duplicates,
    _add_precision,
    _add_queries,
    _common,
    _number,
    _progress,
    add_test_options,
    markers_encodable,
    write_frame,
)
from irframe.cli._inputs import add_run_options, read_inputs
from irframe.cli._report_output import add_output_option
from irframe.exceptions import CliError

__all__ = ["COMPARE_FORMATS", "add_parser", "cmd_compare"]

COMPARE_FORMATS = ("table", "tsv", "csv", "json", "markdown", "latex", "html")


def add_parser(sub: SubParsers) -> None:
    """Register ``irframe compare``."""
    p = sub.add_parser(
        "compare",
        parents=[_common()],
        help="compare runs with a baseline: deltas, CIs, corrected significance tests",
        description=(
            "Compare every run with the baseline run on each measure: paired means, delta, "
            "bootstrap CI of the delta, two-sided paired test per query, p-values corrected "
            "over all the comparisons in the table, wins/ties/losses."
        ),
        epilog=(
            "Markers in the table format: ▲/▼ significantly better/worse after the correction, "
            "△/▽ p < alpha before the correction only. Formats tsv, csv and json give the tidy "
            "table of irframe.compare(); markdown and latex the report table; html the whole report as "
            "one self-contained page (plots included when matplotlib is installed). RUN arguments as "
            "for 'irframe eval' (--run-files-are, --no-qrels). Exit codes: see 'irframe --help'."
        ),
    )
    p.add_argument("qrels", metavar="QRELS", help="judgments: TREC qrels, parquet, CSV/TSV or -")
    p.add_argument("runs", metavar="RUN", nargs="*", help="runs (two or more, or one stacked table)")
    p.add_argument("-b", "--baseline", metavar="NAME", help="baseline system (default: the first run)")
    _add_measure_option(p, f"measure to compare (repeatable; default: {' '.join(DEFAULT_MEASURES)})")
    add_test_options(p)
    p.add_argument("--alpha", type=float, default=0.05, help="significance level (default: 0.05)")
    p.add_argument(
        "--by",
        action="append",
        default=[],
        metavar="COLUMN",
        help="compare within groups of queries, e.g. a query-type column (repeatable)",
    )
    _add_missing_and_duplicates(p)
    p.add_argument("--permutations", type=int, default=10_000, metavar="N", help="random sign vectors")
    p.add_argument("--bootstrap", type=int, default=10_000, metavar="N", help="bootstrap resamples")
    p.add_argument("--seed", type=int, default=0, help="seed of the Monte-Carlo steps (default: 0)")
    p.add_argument("--rel", type=_number, metavar="N", help="relevance threshold (trec_eval -l)")
    p.add_argument("--gain", choices=("exp", "linear"), help="nDCG gain (default exp: 2^rel-1)")
    p.add_argument("-f", "--format", choices=COMPARE_FORMATS, help="output format (see below)")
    add_output_option(p)
    _add_precision(p)
    _add_map(p)
    _add_queries(p)
    add_run_options(p)
    p.add_argument(
        "--values", action="store_true",
        help="the inputs are tables of per-query values (system, query_id, one column per measure, e.g. "
        "answer measures from 'irframe answers ... --per-query'): no QRELS; -m names the columns",
    )  # fmt: skip
    p.set_defaults(func=cmd_compare)


def cmd_compare(args: argparse.Namespace) -> int:
    """Run ``irframe compare``."""
    from irframe import compare_report

    if args.values:
        return _compare_values(args)
    inputs = read_inputs(args, DEFAULT_MEASURES)
    with _progress(f"comparing {inputs.names}", inputs.progress):
        report = compare_report(
            inputs.runs,
            inputs.qrels,
            inputs.as_labelled,
            baseline=args.baseline,
            test=args.test,
            correction=args.correction,
            by=[b for b in args.by if b != "system"] or None,
            alpha=args.alpha,
            n_permutations=args.permutations,
            n_bootstrap=args.bootstrap,
            seed=args.seed,
            progress=inputs.progress,
            **inputs.options(args),
        )
    _render(report, args)
    return 0


def _compare_values(args: argparse.Namespace) -> int:
    """``irframe compare --values TABLE...``: per-query values compared as they are."""
    from irframe import compare_report
    from irframe.io.sniff import load_queries, load_runs

    if not args.measures:
        msg = "compare --values: name the value columns to compare with -m (e.g. -m nDCG@10 -m A)"
        raise CliError(msg)
    tables = [args.qrels, *args.runs]  # (every positional argument is a table of values)
    values = load_runs(tables, dict(args.map), None)
    report = compare_report(
        values, None, args.measures, baseline=args.baseline, test=args.test, correction=args.correction,
        by=[b for b in args.by if b != "system"] or None, alpha=args.alpha, n_permutations=args.permutations,
        n_bootstrap=args.bootstrap, seed=args.seed,
        queries=load_queries(args.queries, {}) if args.queries else None,
    )  # fmt: skip
    _render(report, args)
    return 0


def _render(report: Any, args: argparse.Namespace) -> None:
    # (the report's text and markdown carry the gain note themselves)
    renderers = {
        "table": lambda: report.to_text(ascii=args.output is None and not markers_encodable()),
        "markdown": report.to_markdown, "latex": report.to_latex, "html": report.html_page,
    }  # fmt: skip
    write_frame(report.table, args, "compare", renderers)
