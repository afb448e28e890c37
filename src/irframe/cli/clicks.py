"""``irframe clicks bias|judgments|counterfactual LOG ...``: search logs without judgments.

The commands call :mod:`irframe.clicks` (they have no logic of their own): the position bias
of a log, click-model judgments (a qrels table), and the counterfactual value of new rankings
on the logged clicks.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from irframe.cli._common import (
    SubParsers,
    _common,
    _mapping,
    _progress,
    action_usage,
    add_bootstrap,
    add_table_output,
    write_frame,
)
from irframe.cli._inputs import add_log_argument, add_memory_limit, named_runs, scan_log
from irframe.exceptions import ClickLogWarning, CliError

__all__ = ["add_parser"]

_ROLES = {
    "impression_id": "impression_col", "query_id": "query_col", "doc_id": "doc_col",
    "position": "position_col", "clicked": "clicked_col",
}  # fmt: skip


def _shared(p: argparse.ArgumentParser) -> None:
    add_log_argument(p)
    p.add_argument(
        "--map", type=_mapping, action="append", default=[], metavar="ROLE=COLUMN",
        help="the log's column for a role (impression_id, query_id, doc_id, position, clicked), e.g. "
        "--map position=rank (repeatable)",
    )  # fmt: skip
    p.add_argument("--max-position", type=int, metavar="K", help="leave out rows below position K (counted)")
    add_table_output(p)


def _memory(p: argparse.ArgumentParser) -> None:
    add_memory_limit(p, "read the log", "the same numbers", "the log is")


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
    add_bootstrap(b, 200, "bootstrap resamples (0: none)", level=True)
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
    add_bootstrap(c, 1000, "bootstrap resamples (0: none)", level=True)
    c.set_defaults(func=cmd_counterfactual)


def _usage() -> int:
    return action_usage("clicks", ("bias", "judgments", "counterfactual"))


def _columns(args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for role, column in args.map:
        if role not in _ROLES:
            msg = f"--map {role}={column}: the roles are {', '.join(_ROLES)}"
            raise CliError(msg)
        out[_ROLES[role]] = column
    return out | {"max_position": args.max_position}


@contextmanager
def _running(label: str, quiet: bool) -> Iterator[None]:
    """A progress note on a terminal; the log's warnings on stderr (none with ``--quiet``)."""
    with _progress(label, enabled=sys.stderr.isatty()), warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always", ClickLogWarning)
        yield
    for w in seen:
        if not quiet:
            sys.stderr.write(f"irframe: warning: {w.message}\n")


def cmd_bias(args: argparse.Namespace) -> int:
    """Run ``irframe clicks bias``."""
    from irframe import clicks

    with _running("clicks bias", args.quiet):
        out = clicks.position_bias(
            scan_log(args.log), args.method, n_bootstrap=args.bootstrap, ci=args.level, seed=args.seed,
            memory_limit=args.memory_limit, **_columns(args),
        )  # fmt: skip
    write_frame(out.collect(), args, f"clicks {args.action}")
    return 0


def cmd_judgments(args: argparse.Namespace) -> int:
    """Run ``irframe clicks judgments``."""
    from irframe import clicks

    with _running("clicks judgments", args.quiet):
        out = clicks.click_judgments(
            scan_log(args.log), args.model, prior=tuple(args.prior), iterations=args.iterations,
            min_impressions=args.min_impressions, coec_expected=args.coec_expected,
            memory_limit=args.memory_limit, **_columns(args),
        )  # fmt: skip
    write_frame(out.collect(), args, f"clicks {args.action}")
    return 0


def cmd_counterfactual(args: argparse.Namespace) -> int:
    """Run ``irframe clicks counterfactual``."""
    from irframe import clicks

    log, columns, runs = scan_log(args.log), _columns(args), named_runs(args.run)
    if args.estimator == "ips" and runs is None:
        msg = (
            "irframe clicks counterfactual: name the new ranking(s) with --run NAME=PATH (or use --estimator)"
        )
        raise CliError(msg)
    with _running("clicks counterfactual", args.quiet):
        theta = None
        if args.estimator == "ips":
            theta = _propensities(args, log, columns)
        out = clicks.counterfactual(
            log, runs, args.measure or ["DCG@10", "Clicks@10"], propensities=theta, clip=args.clip,
            estimator=args.estimator, per_query=args.per_query, n_bootstrap=args.bootstrap, ci=args.level,
            seed=args.seed, memory_limit=args.memory_limit, **columns,
        )  # fmt: skip
    write_frame(out.collect(), args, f"clicks {args.action}")
    return 0


def _propensities(args: argparse.Namespace, log: Any, columns: dict[str, Any]) -> Any:
    from irframe import clicks
    from irframe.io import read_table

    if args.propensities:
        return read_table(args.propensities)
    return clicks.position_bias(
        log, args.bias_method, n_bootstrap=0, memory_limit=args.memory_limit, **columns
    ).collect()
