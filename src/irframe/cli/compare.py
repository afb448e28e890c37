"""``irframe compare QRELS RUN RUN ...``: deltas, CIs and corrected paired tests against a baseline."""

from __future__ import annotations

import argparse
import io
import sys

from irframe.cli._common import (
    SubParsers,
    _add_map,
    _add_measure_option,
    _add_missing_and_duplicates,
    _add_precision,
    _add_queries,
    _common,
    _default_format,
    _emit,
    _number,
    _progress,
    _read_inputs,
    _write,
)
from irframe.cli._report_output import add_output_option, report_format, write_output

__all__ = ["COMPARE_FORMATS", "add_parser", "cmd_compare"]

COMPARE_FORMATS = ("table", "tsv", "csv", "json", "markdown", "latex", "html")


def _add_test_options(p: argparse.ArgumentParser) -> None:
    """Test, correction and alpha (shared with ``irframe check``)."""
    p.add_argument(
        "-t",
        "--test",
        choices=("randomization", "t", "wilcoxon", "bootstrap"),
        default="randomization",
        help="paired two-sided test (default: randomization, exact up to 16 non-zero deltas)",
    )
    p.add_argument(
        "-c",
        "--correction",
        choices=("holm", "bonferroni", "bh", "none"),
        default="holm",
        help="multiple-testing correction over all comparisons (default: holm)",
    )


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
            "one self-contained page (plots included when matplotlib is installed)."
        ),
    )
    p.add_argument("qrels", metavar="QRELS", help="judgments: TREC qrels, parquet, CSV/TSV or -")
    p.add_argument("runs", metavar="RUN", nargs="+", help="runs (two or more, or one stacked table)")
    p.add_argument("-b", "--baseline", metavar="NAME", help="baseline system (default: the first run)")
    _add_measure_option(p, "measure to compare (repeatable; default: nDCG@10 RR R@100)")
    _add_test_options(p)
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
    p.set_defaults(func=cmd_compare)


def _markers_encodable() -> bool:
    """Whether standard output can show ▲▼△▽ (else the report uses ASCII markers)."""
    try:
        "▲▼△▽".encode(sys.stdout.encoding or "ascii")
    except (LookupError, UnicodeEncodeError):
        return False
    return True


def cmd_compare(args: argparse.Namespace) -> int:
    """Run ``irframe compare``."""
    from irframe._compare import DEFAULT_MEASURES as COMPARE_MEASURES
    from irframe._compare import compare_report

    measures, qrels, runs, progress = _read_inputs(args, COMPARE_MEASURES)
    with _progress("comparing", progress):
        report = compare_report(
            runs,
            qrels,
            measures,
            baseline=args.baseline,
            test=args.test,
            correction=args.correction,
            by=[b for b in args.by if b != "system"] or None,
            alpha=args.alpha,
            n_permutations=args.permutations,
            n_bootstrap=args.bootstrap,
            seed=args.seed,
            missing=args.missing,
            duplicates=args.duplicates,
            order=args.order,
            columns=args.convention,
            queries=args.queries_frame,
            progress=progress,
        )
    fmt = report_format(args.format, args.output, _default_format(sys.stdout))
    out = io.StringIO()  # (the report's text and markdown carry the gain note themselves)
    if fmt == "table":
        _write(report.to_text(ascii=args.output is None and not _markers_encodable()), out)
    elif fmt == "markdown":
        _write(report.to_markdown(), out)
    elif fmt == "latex":
        _write(report.to_latex(), out)
    elif fmt == "html":
        _write(report.html_page(), out)
    else:
        _emit(report.table, fmt, out, precision=args.precision)
    write_output(out.getvalue(), args.output)
    return 0
