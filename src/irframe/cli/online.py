"""``irframe online metrics|compare|interleaving LOG ...``: online experiments on impression logs.

The commands call :mod:`irframe.online` (they have no logic of their own).  ``compare`` is a
report, not a gate: it exits 0 whatever it finds, unless ``--fail-on`` names what should fail
(then 1, the code of a failed gate).
"""

from __future__ import annotations

import argparse
import sys
import warnings
from typing import Any

from irframe.cli._common import (
    CORRECTIONS,
    SubParsers,
    _common,
    _mapping,
    _number,
    _progress,
    action_usage,
    add_bootstrap,
    add_level,
    add_table_output,
    write_frame,
)
from irframe.cli._exit import Exit
from irframe.cli._inputs import add_log_argument, add_memory_limit, named_runs, scan_log
from irframe.exceptions import SampleRatioMismatchWarning

__all__ = ["add_parser"]

FORMATS = ("table", "tsv", "csv", "json", "markdown", "html")


def _shared(p: argparse.ArgumentParser, *, unit: bool = True) -> None:
    add_log_argument(p)
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
    add_level(p)
    add_memory_limit(
        p, "read the log", "the same numbers", "the log is", whole="impressions, sessions or queries"
    )
    add_table_output(p, FORMATS)


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
    add_bootstrap(m, 1000, "cluster bootstrap resamples")
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
    c.add_argument("--correction", choices=CORRECTIONS, default="holm")
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
    i.add_argument("--correction", choices=CORRECTIONS, default="holm")
    add_bootstrap(i, 1000, "bootstrap resamples")
    i.set_defaults(func=cmd_interleaving)


def _usage(p: argparse.ArgumentParser) -> int:
    return action_usage("online", ("metrics", "compare", "interleaving"))


def _split(text: str) -> tuple[str, float]:
    arm, share = _mapping(text)
    try:
        return arm, float(share)
    except ValueError:
        msg = f"expected ARM=SHARE with a number, got {text!r}"
        raise argparse.ArgumentTypeError(msg) from None


def _columns(args: argparse.Namespace) -> dict[str, str]:
    return dict(args.map)


def _metrics(args: argparse.Namespace) -> list[str]:
    return args.metric or ["CTR@3", "Abandonment", "RRFirstClick"]


def cmd_metrics(args: argparse.Namespace) -> int:
    """Run ``irframe online metrics``."""
    from irframe import online

    with _progress("online metrics", enabled=sys.stderr.isatty()):
        out = online.metrics(
            scan_log(args.log), _metrics(args), unit=args.unit, by=args.by or None, variance=args.variance,
            level=args.level, n_bootstrap=args.bootstrap, seed=args.seed, columns=_columns(args),
            memory_limit=args.memory_limit,
        )  # fmt: skip
    write_frame(out.collect(), args, "online metrics")
    return 0


def _render(report: Any, table: Any, args: argparse.Namespace) -> None:
    renderers = {"table": report.to_text, "markdown": report.to_markdown, "html": report.html_page}
    write_frame(table, args, f"online {args.action}", renderers)


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
            scan_log(args.log), _metrics(args), arm=args.arm, control=args.control, unit=args.unit,
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


def cmd_interleaving(args: argparse.Namespace) -> int:
    """Run ``irframe online interleaving``."""
    from irframe import online

    with _progress("online interleaving", enabled=sys.stderr.isatty()):
        res = online.interleaving(
            scan_log(args.log), runs=named_runs(args.run), systems=args.systems, method=args.method,
            per=args.per, tau=args.tau, level=args.level, n_bootstrap=args.bootstrap, seed=args.seed,
            correction=args.correction, columns=_columns(args), memory_limit=args.memory_limit,
        )  # fmt: skip
    _render(res, res.pairs, args)
    return 0
