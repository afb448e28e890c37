"""``irframe clicks bias|judgments|counterfactual LOG ...``: search logs without judgments.

The commands call :mod:`irframe.clicks` (they have no logic of their own): the position bias
of a log, click-model judgments (a qrels table), and the counterfactual value of new rankings
on the logged clicks.
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
    _progress,
)
from irframe.cli._report_output import add_output_option, report_format, write_output
from irframe.exceptions import ClickLogWarning, CliError

__all__ = ["add_parser"]

FORMATS = ("table", "tsv", "csv", "json")
_ROLES = {
    "impression_id": "impression_col", "query_id": "query_col", "doc_id": "doc_col",
    "position": "position_col", "clicked": "clicked_col",
}  # fmt: skip
_LOG_HELP = (
    "the impression log: parquet, CSV/TSV or JSON-lines files, quoted globs or directories (one table)"
)


def _shared(p: argparse.ArgumentParser) -> None:
    p.add_argument("log", metavar="LOG", nargs="+", help=_LOG_HELP)
    p.add_argument(
        "--map", type=_mapping, action="append", default=[], metavar="ROLE=COLUMN",
        help="the log's column for a role (impression_id, query_id, doc_id, position, clicked), e.g. "
        "--map position=rank (repeatable)",
    )  # fmt: skip
    p.add_argument("--max-position", type=int, metavar="K", help="leave out rows below position K (counted)")
    p.add_argument(
        "-f", "--format", choices=FORMATS, help="output format (default: table on a terminal, else tsv)"
    )
    add_output_option(p)
    _add_precision(p)


def _memory(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--memory-limit",
        metavar="SIZE",
        help="read the log out of core within SIZE (e.g. 2GB), bucket by bucket of whole queries (the "
        "same numbers); default: the log is read into memory",
    )


def add_parser(sub: SubParsers) -> None:
    """Register ``irframe clicks`` and its ``bias``, ``judgments`` and ``counterfactual`` actions."""
    p = sub.add_parser(
        "clicks", help="search logs: position bias, click-model judgments, counterfactual evaluation",
        description="Search logs without judgments (an impression log: one row per shown result).",
    )  # fmt: skip
    p.set_defaults(func=lambda _args: _usage())
    actions = p.add_subparsers(dest="action", metavar="ACTION")
    b = actions.add_parser(
        "bias", parents=[_common()], help="examination probability by position, relative to position 1",
        description="Position bias (theta by position) with a bootstrap interval over queries.",
    )  # fmt: skip
    _shared(b)
    _memory(b)
    b.add_argument("--method", choices=("pivot", "adjacent", "allpairs", "em", "ctr"), default="pivot")
    b.add_argument("--bootstrap", type=int, default=200, metavar="N", help="bootstrap resamples (0: none)")
    b.add_argument("--level", type=float, default=0.95, help="confidence level (default: 0.95)")
    b.add_argument("--seed", type=int, default=0)
    b.set_defaults(func=cmd_bias)
    j = actions.add_parser(
        "judgments", parents=[_common()], help="a qrels table from a click model",
        description="Per (query, document) relevance from a click model, with its parameters and counts.",
    )  # fmt: skip
    _shared(j)
    _memory(j)
    j.add_argument("--model", choices=("coec", "cm", "dcm", "sdbn", "pbm", "ubm", "dbn"), default="sdbn")
    j.add_argument("--prior", type=float, nargs=2, default=(1.0, 1.0), metavar=("ALPHA", "BETA"))
    j.add_argument("--iterations", type=int, default=50, help="EM iterations (pbm, ubm, dbn; default 50)")
    j.add_argument(
        "--min-impressions", type=int, default=1, metavar="N", help="leave out pairs shown fewer times"
    )
    j.add_argument(
        "--coec-expected", choices=("rows", "best_position"), default="rows",
        help="coec: expected clicks over the pair's rows (default), or at its best position (OpenSearch's)",
    )  # fmt: skip
    j.set_defaults(func=cmd_judgments)
    _add_counterfactual(actions)


def _add_counterfactual(actions: Any) -> None:
    c = actions.add_parser(
        "counterfactual", parents=[_common()], help="what new rankings would score on the logged clicks",
        description=(
            "IPS (or clipped IPS) of additive click measures for new rankings, with propensities from a "
            "file or estimated from the log; or a slate estimator on logged propensities (--estimator)."
        ),
    )  # fmt: skip
    _shared(c)
    _memory(c)
    c.add_argument(
        "--run",
        type=_mapping,
        action="append",
        default=[],
        metavar="NAME=PATH",
        help="a new ranking (TREC run or table; repeatable; the first is the baseline)",
    )
    c.add_argument(
        "-m",
        "--measure",
        action="append",
        default=[],
        metavar="MEASURE",
        help="DCG@k or Clicks@k (repeatable; default: DCG@10 Clicks@10)",
    )
    c.add_argument("--propensities", metavar="FILE", help="a table with columns position and theta")
    c.add_argument(
        "--bias-method",
        choices=("pivot", "adjacent", "allpairs", "em"),
        default="pivot",
        help="without --propensities: estimate theta from the log this way (default: pivot)",
    )
    c.add_argument("--clip", type=float, metavar="M", help="cap each weight at M (clipped IPS)")
    c.add_argument(
        "--estimator", choices=("ips", "sips", "iips", "rips", "snsips", "sniips", "snrips"), default="ips"
    )
    c.add_argument("--per-query", action="store_true", help="one row per (system, query)")
    c.add_argument("--bootstrap", type=int, default=1000, metavar="N", help="bootstrap resamples (0: none)")
    c.add_argument("--level", type=float, default=0.95, help="confidence level (default: 0.95)")
    c.add_argument("--seed", type=int, default=0)
    c.set_defaults(func=cmd_counterfactual)


def _usage() -> int:
    msg = "irframe clicks: name an action: bias, judgments or counterfactual (see irframe clicks --help)"
    raise CliError(msg)


def _log(paths: Sequence[str]) -> Any:
    from irframe.io import scan_table

    return scan_table(list(paths) if len(paths) > 1 else paths[0])


def _columns(args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for role, column in args.map:
        if role not in _ROLES:
            msg = f"--map {role}={column}: the roles are {', '.join(_ROLES)}"
            raise CliError(msg)
        out[_ROLES[role]] = column
    return out | {"max_position": args.max_position}


def _output(df: Any, args: argparse.Namespace) -> None:
    fmt = report_format(args.format, args.output, _default_format(sys.stdout))
    if fmt not in FORMATS:
        msg = f"irframe clicks: -f {fmt} is not a format of this command; use table, tsv, csv or json"
        raise CliError(msg)
    out = io.StringIO()
    _emit(df, fmt, out, precision=args.precision)
    write_output(out.getvalue(), args.output)


def _warnings(seen: list[warnings.WarningMessage], quiet: bool) -> None:
    for w in seen:
        if not quiet:
            sys.stderr.write(f"irframe: warning: {w.message}\n")


def cmd_bias(args: argparse.Namespace) -> int:
    """Run ``irframe clicks bias``."""
    from irframe import clicks

    with _progress("clicks bias", enabled=sys.stderr.isatty()), warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always", ClickLogWarning)
        out = clicks.position_bias(
            _log(args.log), args.method, n_bootstrap=args.bootstrap, ci=args.level, seed=args.seed,
            memory_limit=args.memory_limit, **_columns(args),
        )  # fmt: skip
    _warnings(seen, args.quiet)
    _output(out.collect(), args)
    return 0


def cmd_judgments(args: argparse.Namespace) -> int:
    """Run ``irframe clicks judgments``."""
    from irframe import clicks

    with (
        _progress("clicks judgments", enabled=sys.stderr.isatty()),
        warnings.catch_warnings(record=True) as seen,
    ):
        warnings.simplefilter("always", ClickLogWarning)
        out = clicks.click_judgments(
            _log(args.log), args.model, prior=tuple(args.prior), iterations=args.iterations,
            min_impressions=args.min_impressions, coec_expected=args.coec_expected,
            memory_limit=args.memory_limit, **_columns(args),
        )  # fmt: skip
    _warnings(seen, args.quiet)
    _output(out.collect(), args)
    return 0


def _runs(specs: Sequence[tuple[str, str]]) -> dict[str, Any] | None:
    if not specs:
        return None
    from irframe.io import read_table, read_trec_run
    from irframe.io.tables import detect_format

    return {name: read_table(path) if detect_format(path) else read_trec_run(path) for name, path in specs}


def cmd_counterfactual(args: argparse.Namespace) -> int:
    """Run ``irframe clicks counterfactual``."""
    from irframe import clicks

    log, columns, runs = _log(args.log), _columns(args), _runs(args.run)
    if args.estimator == "ips" and runs is None:
        msg = (
            "irframe clicks counterfactual: name the new ranking(s) with --run NAME=PATH (or use --estimator)"
        )
        raise CliError(msg)
    label = "clicks counterfactual"
    with _progress(label, enabled=sys.stderr.isatty()), warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always", ClickLogWarning)
        theta = None
        if args.estimator == "ips":
            theta = _propensities(args, log, columns)
        out = clicks.counterfactual(
            log, runs, args.measure or ["DCG@10", "Clicks@10"], propensities=theta, clip=args.clip,
            estimator=args.estimator, per_query=args.per_query, n_bootstrap=args.bootstrap, ci=args.level,
            seed=args.seed, memory_limit=args.memory_limit, **columns,
        )  # fmt: skip
    _warnings(seen, args.quiet)
    _output(out.collect(), args)
    return 0


def _propensities(args: argparse.Namespace, log: Any, columns: dict[str, Any]) -> Any:
    from irframe import clicks
    from irframe.io import read_table

    if args.propensities:
        return read_table(args.propensities)
    return clicks.position_bias(
        log, args.bias_method, n_bootstrap=0, memory_limit=args.memory_limit, **columns
    ).collect()
