"""``irframe pool QRELS RUN... -o to_judge.tsv``: what to judge next, as a judging sheet."""

from __future__ import annotations

import argparse
import contextlib
import sys
from typing import Any

from irframe.cli._common import (
    CliError,
    SubParsers,
    _add_map,
    _common,
    _progress,
    refuse_overwriting_inputs,
    shown,
    write_table,
)
from irframe.cli._exit import writing

__all__ = ["add_parser", "cmd_pool"]


def add_parser(sub: SubParsers) -> None:
    """Register ``irframe pool``."""
    p = sub.add_parser(
        "pool",
        parents=[_common()],
        help="what to judge next: the unjudged documents of the runs' top --depth, as a judging sheet",
        description=(
            "Pool the runs' top --depth documents per query and write the (query, document) pairs "
            "the qrels do not judge, most useful first, as a sheet with an empty grade column "
            "(TSV, CSV, parquet) or a TREC qrels stub ('query 0 doc ?'). Priority: the sum over the "
            "runs that rank a pair of 1/log2(position + 1), the nDCG discount its gain would carry; "
            "ties by the number of runs, the best position, the query and the doc id."
        ),
        epilog=(
            "Fill the sheet's grade column, then merge it: irframe judgments merge QRELS SHEET -o NEW. "
            "A summary (pooled, already judged, to judge) goes to stderr."
        ),
    )
    p.add_argument(
        "inputs", metavar="QRELS RUN", nargs="+", help="the judgments so far, then one or more runs"
    )
    p.add_argument("--no-qrels", action="store_true", help="nothing judged yet: every argument is a run")
    p.add_argument(
        "-d", "--depth", type=int, default=10, help="top documents of each ranking pooled (default 10)"
    )
    p.add_argument("-o", "--output", metavar="FILE", help="the sheet (default: TSV on stdout)")
    p.add_argument(
        "-f",
        "--format",
        choices=("tsv", "csv", "parquet", "trec"),
        help="sheet format (default: from -o's name)",
    )
    p.add_argument(
        "--sort", choices=("priority", "query"), default="priority", help="whole pool, or query by query"
    )
    p.add_argument(
        "--queries", metavar="FILE",
        help="the queries to pool (e.g. irframe sample's output): a table with query_id (and "
        "--query-text-col, copied when present); the runs' other queries are left out and counted",
    )  # fmt: skip
    p.add_argument(
        "--all-queries", action="store_true",
        help="pool every query of the runs; --queries then only gives the texts",
    )  # fmt: skip
    p.add_argument("--query-text-col", default="text", metavar="COLUMN", help="default: text")
    p.add_argument(
        "--documents", metavar="FILE", help="document texts: a table with doc_id and --doc-text-col"
    )
    p.add_argument(
        "--doc-text-col",
        action="append",
        metavar="COLUMN",
        help="document column to copy (repeatable; default: text)",
    )
    p.add_argument("--no-judge-columns", action="store_true", help="no empty judge and judged_at columns")
    p.add_argument("--coverage", metavar="FILE", help="also write the per-(system, query) coverage as TSV")
    p.add_argument(
        "--duplicates", choices=("error", "first"), default="error",
        help="a document twice in one ranking: error (default) or keep its best-ranked row",
    )  # fmt: skip
    _add_map(p)
    p.set_defaults(func=cmd_pool)


def _inputs(args: argparse.Namespace) -> tuple[str | None, list[str]]:
    if args.no_qrels:
        return None, list(args.inputs)
    if len(args.inputs) < 2:
        msg = "expected QRELS RUN [RUN ...]; with nothing judged yet, pass --no-qrels RUN [RUN ...]"
        raise CliError(msg)
    return args.inputs[0], list(args.inputs[1:])


def _read(
    args: argparse.Namespace, qrels_path: str | None, run_paths: list[str]
) -> tuple[Any, Any, dict[str, Any]]:
    """Qrels (or None), stacked runs, and pool()'s keyword arguments (texts, order, columns)."""
    from irframe.cli._inputs import Columns
    from irframe.io.sniff import load, load_queries, load_runs

    paths = [p for p in (qrels_path, *run_paths) if p is not None]
    if paths.count("-") > 1:
        msg = "only one input can be read from standard input ('-')"
        raise CliError(msg)
    stdin = sys.stdin.buffer.read() if "-" in paths else None
    columns = Columns.of(args)
    mapping = columns.mapping
    qrels = None if qrels_path is None else load(qrels_path, "qrels", columns.renames("qrels"), stdin)[0]
    notes: list[str] = []
    runs = load_runs(run_paths, columns.renames("run"), stdin, None, notes)
    for note in notes if not args.quiet else []:
        print(f"irframe: note: {shown(note)}", file=sys.stderr)
    kwargs: dict[str, Any] = {"order": columns.order, "duplicates": args.duplicates}
    if args.queries:
        kwargs["queries"] = load_queries(args.queries, mapping)
        kwargs["all_queries"] = args.all_queries
        kwargs["query_text_col"] = args.query_text_col
    elif args.all_queries:
        msg = "--all-queries goes with --queries FILE (without it, every query is pooled)"
        raise CliError(msg)
    if args.documents:
        kwargs["documents"] = load_queries(args.documents, mapping, role="documents")
        kwargs["doc_text_col"] = args.doc_text_col or "text"
    return qrels, runs, kwargs


def cmd_pool(args: argparse.Namespace) -> int:
    """Run ``irframe pool``."""
    from irframe import pool
    from irframe.io.sheets import sheet_format, write_judging_sheet

    qrels_path, run_paths = _inputs(args)
    refuse_overwriting_inputs(args.output, [qrels_path, *run_paths, args.queries, args.documents])
    refuse_overwriting_inputs(
        args.coverage, [qrels_path, *run_paths, args.queries, args.documents, args.output]
    )
    fmt = args.format or ("tsv" if args.output is None else sheet_format(args.output, None, "irframe pool"))
    if fmt == "parquet" and args.output is None:
        msg = "a parquet sheet needs -o FILE"
        raise CliError(msg)
    progress = not args.quiet and bool(args.progress or sys.stderr.isatty())
    with _progress("reading the inputs", progress):
        qrels, runs, kwargs = _read(args, qrels_path, run_paths)
    with _progress("pooling", progress):
        result = pool(runs, qrels, args.depth, sort=args.sort, **kwargs)
    judge = not args.no_judge_columns
    target: Any = sys.stdout if args.output is None else args.output
    with writing(args.output) if args.output else contextlib.nullcontext():
        write_judging_sheet(
            result.to_judge, target, format=fmt, judge_col="judge" if judge else None,
            timestamp_col="judged_at" if judge else None,
        )  # fmt: skip
    if args.coverage:
        write_table(result.coverage, args.coverage, "tsv")
    if not args.quiet:
        where = f"; wrote {args.output}" if args.output else ""
        print(f"irframe: {shown(str(result))}{where}", file=sys.stderr)
    return 0
