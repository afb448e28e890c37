"""``irframe measures``: the known measures, their parameters and aliases."""

from __future__ import annotations

import argparse

from irframe.cli._common import SubParsers, _common
from irframe.cli._measures_util import measures_data, measures_listing

__all__ = ["add_parser", "cmd_measures"]


def add_parser(sub: SubParsers) -> None:
    """Register ``irframe measures``."""
    p = sub.add_parser(
        "measures",
        parents=[_common()],
        help="list the known measures, their parameters and aliases",
    )
    p.add_argument(
        "-f",
        "--format",
        choices=("text", "json"),
        default="text",
        help="text (default) or json: every family with parameters, defaults, trec_eval names, aggregation",
    )
    p.set_defaults(func=cmd_measures)


def cmd_measures(args: argparse.Namespace) -> int:
    """Run ``irframe measures``: the registry, as text or JSON."""
    if args.format == "json":
        import json

        print(json.dumps(measures_data(), indent=2))
    else:
        print(measures_listing())
    return 0
