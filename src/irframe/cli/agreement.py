"""``irframe agreement QRELS... [--judge-col judge] [--run RUN...]``: how far judges agree."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from irframe.cli._common import (
    CliError,
    SubParsers,
    _add_map,
    _add_measure_option,
    _add_precision,
    _common,
    _default_format,
    _emit,
    _write,
    say_verdict,
    shown,
    write_table,
)

if TYPE_CHECKING:
    import polars as pl

__all__ = ["add_parser", "cmd_agreement"]


def add_parser(sub: SubParsers) -> None:
    """Register ``irframe agreement``."""
    p = sub.add_parser(
        "agreement",
        parents=[_common()],
        help="how far judges agree (kappas, Krippendorff's alpha) and whether they rank systems alike",
        description=(
            "Compare judges on the (query, document) pairs both judged: raw agreement, Cohen's kappa, "
            "linearly and quadratically weighted kappa, Krippendorff's ordinal alpha, the pairs they "
            "disagree on most; with --run, evaluate the systems under each judge and compare the "
            "rankings (Kendall's tau, tau_AP, Spearman)."
        ),
        epilog=(
            "Each QRELS file with a judge column (--judge-col) gives its judges; a file without one "
            "(e.g. a TREC qrels file) is one judge, named after the file."
        ),
    )
    p.add_argument(
        "qrels", metavar="QRELS", nargs="+", help="judgments: one file per judge, or with a judge column"
    )
    p.add_argument("--judge-col", default="judge", metavar="COLUMN", help="the judge column (default: judge)")
    p.add_argument(
        "--scale", metavar="GRADES", help="the declared grades, e.g. 0,1,2,3 (default: those given)"
    )
    p.add_argument("--run", action="append", default=[], metavar="RUN", help="a run to rank (repeatable)")
    _add_measure_option(p, "measure the runs are ranked by (repeatable; default: nDCG@10)")
    p.add_argument(
        "--ranking-on",
        choices=("common", "all"),
        default="common",
        help="evaluate on the pairs every judge judged (default) or on each judge's own",
    )
    p.add_argument(
        "--top", type=int, default=5, metavar="N", help="disagreements shown per pair (default: 5)"
    )
    p.add_argument("--per-query", metavar="FILE", help="write the per-query table there")
    p.add_argument("--disagreements", metavar="FILE", help="write every disagreement there")
    p.add_argument(
        "-f", "--format", choices=("table", "tsv", "csv", "json"), help="table: the report; else the pairs"
    )
    _add_precision(p)
    _add_map(p)
    p.set_defaults(func=cmd_agreement)


def _scale(text: str | None) -> list[float] | None:
    if text is None:
        return None
    try:
        return [float(v) for v in text.split(",") if v.strip()]
    except ValueError:
        msg = f"--scale expects comma-separated grades, e.g. 0,1,2,3; got {text!r}"
        raise CliError(msg) from None


def _judge_names(paths: list[str]) -> list[str]:
    stems = [Path(p).name.split(".")[0] or p for p in paths]
    return stems if len(set(stems)) == len(stems) else list(paths)


def read_judgments(paths: list[str], judge_col: str, mapping: dict[str, str]) -> pl.DataFrame:
    """The QRELS files stacked with a judge column (a file without one is one judge)."""
    import polars as pl

    from irframe.io.sniff import load

    if paths.count("-") > 1:
        msg = "only one input can be read from standard input ('-')"
        raise CliError(msg)
    stdin = sys.stdin.buffer.read() if "-" in paths else None
    parts = []
    for path, name in zip(paths, _judge_names(paths), strict=True):
        df, _ = load(path, "qrels", mapping, stdin)
        if judge_col not in df.columns:
            if len(paths) == 1:
                msg = (
                    f"{path} has no judge column {judge_col!r}: give one QRELS file per judge, or name "
                    "the column with --judge-col"
                )
                raise CliError(msg)
            df = df.with_columns(pl.lit(name, pl.String).alias(judge_col))
        parts.append(df.with_columns(pl.col(judge_col).cast(pl.String)))
    return pl.concat(parts, how="diagonal_relaxed")


def cmd_agreement(args: argparse.Namespace) -> int:
    """Run ``irframe agreement``."""
    from irframe import agreement
    from irframe.cli._inputs import asked_measures
    from irframe.io.sniff import load_runs

    mapping = dict(args.map)
    qrels = read_judgments(args.qrels, args.judge_col, mapping)
    runs = load_runs(args.run, mapping, None) if args.run else None
    asked = asked_measures(args.measures or ["nDCG@10"]) if runs is not None else None
    measures: Any = [a.engine_input for a in asked] if asked is not None else "nDCG@10"
    result = agreement(
        qrels, judge_col=args.judge_col, scale=_scale(args.scale), runs=runs, measures=measures,
        ranking_on=args.ranking_on,
    )  # fmt: skip
    if args.per_query:
        write_table(result.per_query, args.per_query)
    if args.disagreements:
        write_table(result.disagreements, args.disagreements)
    fmt = args.format or _default_format(sys.stdout)
    if fmt == "table":
        _write(shown(result.to_text(top=args.top)), sys.stdout)
    else:
        _emit(result.pairs, fmt, sys.stdout, precision=args.precision)
        say_verdict([result.to_text(top=0).split("\n", 1)[0], *result.verdicts], args)
    return 0
