"""``irframe online metrics|compare|interleaving LOG ...``: online experiments on impression logs.

The commands call :mod:`irframe.online` (they have no logic of their own).  ``compare`` is a
report, not a gate: it exits 0 whatever it finds, unless ``--fail-on`` names what should fail
(then 1, the code of a failed gate).
"""

from __future__ import annotations

import argparse
import io
import sys
import warnings
from collections.abc import Sequence
from typing import Any

from irframe.cli._common import (
    SubParsers,
    _add_precision,
    _common,
    _default_format,
    _emit,
    _mapping,
    _number,
    _progress,
    _write,
)
from irframe.cli._exit import Exit
from irframe.cli._report_output import add_output_option, report_format, write_output
from irframe.exceptions import CliError, SampleRatioMismatchWarning

__all__ = ["add_parser"]

FORMATS = ("table", "tsv", "csv", "json", "markdown", "html")
_LOG_HELP = (
    "the impression log: parquet, CSV/TSV or JSON-lines files, quoted globs or directories (one table)"
)


def _shared(p: argparse.ArgumentParser, *, unit: bool = True) -> None:
    p.add_argument("log", metavar="LOG", nargs="+", help=_LOG_HELP)
    if unit:
        p.add_argument(
            "--unit", default="user_id", metavar="COLUMN", help="randomization unit (default: user_id)"
        )
        p.add_argument(
            "--by", action="append", default=[], metavar="COLUMN", help="segment column (repeatable)"
        )
        help_m = "online metric (repeatable; default: CTR@3 Abandonment RRFirstClick)"
        p.add_argument("-m", "--metric", action="append", default=[], metavar="METRIC", help=help_m)
    p.add_argument(
        "--map", type=_mapping, action="append", default=[], metavar="ROLE=COLUMN",
        help="the log's column for a role, e.g. --map query_id=qid --map dwell=dwell_s (repeatable)",
    )  # fmt: skip
    p.add_argument("--level", type=float, default=0.95, help="confidence level (default: 0.95)")
    p.add_argument(
        "--memory-limit", metavar="SIZE",
        help="read the log out of core within SIZE (e.g. 2GB), bucket by bucket (the same numbers); "
        "default: the log's passes run in polars' streaming engine, the per-impression table in memory",
    )  # fmt: skip
    p.add_argument(
        "-f", "--format", choices=FORMATS, help="output format (default: table on a terminal, else tsv)"
    )
    add_output_option(p)
    _add_precision(p)


def add_parser(sub: SubParsers) -> None:
    """Register ``irframe online`` and its ``metrics``, ``compare`` and ``interleaving`` actions."""
    p = sub.add_parser(
        "online",
        help="online experiments on impression logs: metrics, A/B tests, interleaving",
        description="Online experiments on an impression log (one row per shown result).",
    )
    p.set_defaults(func=lambda _args: _usage(p))
    actions = p.add_subparsers(dest="action", metavar="ACTION")
    m = actions.add_parser(
        "metrics", parents=[_common()], help="click metrics per segment with the unit's variance",
        description="Online metrics (ratios of per-unit sums) with delta-method or bootstrap intervals.",
    )  # fmt: skip
    _shared(m)
    m.add_argument("--variance", choices=("delta", "bootstrap"), default="delta")
    m.add_argument("--bootstrap", type=int, default=1000, metavar="N", help="cluster bootstrap resamples")
    m.add_argument("--seed", type=int, default=0)
    m.set_defaults(func=cmd_metrics)
    c = actions.add_parser(
        "compare", parents=[_common()], help="an A/B test: each arm against the control",
        description=(
            "Each arm against the control per metric: values, difference and relative lift with intervals, "
            "Welch's t on the delta-method variance over units (tea-tasting's RatioOfMeans), corrected "
            "p-values, and a sample-ratio-mismatch check. A report, not a gate: exit 0 unless --fail-on."
        ),
        epilog="For systems evaluated offline on the same queries use 'irframe compare'.",
    )  # fmt: skip
    _shared(c)
    c.add_argument("--arm", default="arm", metavar="COLUMN", help="the arm column (default: arm)")
    c.add_argument("--control", required=True, metavar="ARM", help="the control arm's value")
    c.add_argument("--correction", choices=("holm", "bonferroni", "bh", "none"), default="holm")
    c.add_argument("--expected-split", type=_split, action="append", default=[], metavar="ARM=SHARE",
                   help="designed share of units per arm (repeatable; default: equal)")  # fmt: skip
    c.add_argument(
        "--srm-alpha", type=float, default=0.001, help="flag a sample-ratio mismatch below (0.001)"
    )
    c.add_argument("--fail-on", choices=("srm", "drop", "any"),
                   help="exit 1 on a sample-ratio mismatch, a significant drop, or either (any)")  # fmt: skip
    c.set_defaults(func=cmd_compare)
    _add_interleaving(actions)


def _add_interleaving(actions: Any) -> None:
    i = actions.add_parser(
        "interleaving", parents=[_common()], help="credit, wins and the sign test of an interleaved log",
        description=(
            "Per query (or impression) each system's credit (team draft: the clicks on its team; balanced "
            "and probabilistic read the runs), wins and ties, delta with a bootstrap interval, and the "
            "sign test per pair (team-draft multileaving for three or more systems)."
        ),
    )  # fmt: skip
    _shared(i, unit=False)
    i.add_argument("--run", type=_mapping, action="append", default=[], metavar="NAME=PATH",
                   help="an interleaved run (TREC run or table; repeatable, in order)")  # fmt: skip
    i.add_argument("--systems", nargs="+", metavar="NAME", help="team draft: the team labels, in order")
    i.add_argument("--method", choices=("team_draft", "balanced", "probabilistic"), default="team_draft")
    i.add_argument("--per", choices=("query", "impression"), default="query")
    i.add_argument("--tau", type=_number, default=3.0, help="probabilistic: softmax exponent (default 3)")
    i.add_argument("--correction", choices=("holm", "bonferroni", "bh", "none"), default="holm")
    i.add_argument("--bootstrap", type=int, default=1000, metavar="N", help="bootstrap resamples")
    i.add_argument("--seed", type=int, default=0)
    i.set_defaults(func=cmd_interleaving)


def _usage(p: argparse.ArgumentParser) -> int:
    msg = "irframe online: name an action: metrics, compare or interleaving (see irframe online --help)"
    raise CliError(msg)


def _split(text: str) -> tuple[str, float]:
    arm, share = _mapping(text)
    try:
        return arm, float(share)
    except ValueError:
        msg = f"expected ARM=SHARE with a number, got {text!r}"
        raise argparse.ArgumentTypeError(msg) from None


def _log(paths: Sequence[str]) -> Any:
    from irframe.io import scan_table

    return scan_table(list(paths) if len(paths) > 1 else paths[0])


def _columns(args: argparse.Namespace) -> dict[str, str]:
    return dict(args.map)


def _metrics(args: argparse.Namespace) -> list[str]:
    return args.metric or ["CTR@3", "Abandonment", "RRFirstClick"]


def _table_out(df: Any, args: argparse.Namespace) -> None:
    fmt = report_format(args.format, args.output, _default_format(sys.stdout))
    if fmt in ("markdown", "html"):
        msg = f"irframe online metrics: -f {fmt} is a report format; use table, tsv, csv or json"
        raise CliError(msg)
    out = io.StringIO()
    _emit(df, fmt, out, precision=args.precision)
    write_output(out.getvalue(), args.output)


def cmd_metrics(args: argparse.Namespace) -> int:
    """Run ``irframe online metrics``."""
    from irframe import online

    with _progress("online metrics", enabled=sys.stderr.isatty()):
        out = online.metrics(
            _log(args.log), _metrics(args), unit=args.unit, by=args.by or None, variance=args.variance,
            level=args.level, n_bootstrap=args.bootstrap, seed=args.seed, columns=_columns(args),
            memory_limit=args.memory_limit,
        )  # fmt: skip
    _table_out(out.collect(), args)
    return 0


def _render(report: Any, table: Any, args: argparse.Namespace) -> None:
    fmt = report_format(args.format, args.output, _default_format(sys.stdout))
    out = io.StringIO()
    if fmt == "table":
        _write(report.to_text(), out)
    elif fmt == "markdown":
        _write(report.to_markdown(), out)
    elif fmt == "html":
        _write(report.html_page(), out)
    else:
        _emit(table, fmt, out, precision=args.precision)
    write_output(out.getvalue(), args.output)


def cmd_compare(args: argparse.Namespace) -> int:
    """Run ``irframe online compare``."""
    import polars as pl

    from irframe import online

    with (
        _progress("online compare", enabled=sys.stderr.isatty()),
        warnings.catch_warnings(record=True) as seen,
    ):
        warnings.simplefilter("always", SampleRatioMismatchWarning)
        report = online.compare_report(
            _log(args.log), _metrics(args), arm=args.arm, control=args.control, unit=args.unit,
            by=args.by or None, level=args.level, correction=args.correction,
            expected_split=dict(args.expected_split) or None, srm_alpha=args.srm_alpha,
            columns=_columns(args), memory_limit=args.memory_limit,
        )  # fmt: skip
    for w in seen:  # the mismatch is printed on stderr (the report says it too)
        sys.stderr.write(f"irframe: warning: {w.message}\n")
    table = report.table
    _render(report, table, args)
    srm = bool((table["srm_p_value"] < args.srm_alpha).any())
    drop = bool(table.filter(pl.col("significant") & (pl.col("diff") < 0)).height)
    failed = {"srm": srm, "drop": drop, "any": srm or drop}.get(args.fail_on or "", False)
    return Exit.FAILED if failed else Exit.OK


def _runs(specs: Sequence[tuple[str, str]]) -> dict[str, Any] | None:
    if not specs:
        return None
    from irframe.io import read_table, read_trec_run
    from irframe.io.tables import detect_format

    return {name: read_table(path) if detect_format(path) else read_trec_run(path) for name, path in specs}


def cmd_interleaving(args: argparse.Namespace) -> int:
    """Run ``irframe online interleaving``."""
    from irframe import online

    with _progress("online interleaving", enabled=sys.stderr.isatty()):
        res = online.interleaving(
            _log(args.log), runs=_runs(args.run), systems=args.systems, method=args.method, per=args.per,
            tau=args.tau, level=args.level, n_bootstrap=args.bootstrap, seed=args.seed,
            correction=args.correction, columns=_columns(args), memory_limit=args.memory_limit,
        )  # fmt: skip
    _render(res, res.pairs, args)
    return 0
