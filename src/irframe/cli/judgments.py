"""``irframe judgments merge QRELS SHEET -o NEW``: add a filled judging sheet to the qrels."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

from irframe.cli._common import CliError, SubParsers, _common, refuse_overwriting_inputs, shown, write_table
from irframe.cli._exit import Exit, writing

__all__ = ["add_parser", "cmd_merge", "parse_scale"]

_OUT_SUFFIXES = {".tsv": "tsv", ".tab": "tsv", ".csv": "csv", ".parquet": "parquet", ".pq": "parquet"}
_RANGE = re.compile(r"^(-?\d+)\.\.(-?\d+)$|^(-?\d+)-(-?\d+)$")


def parse_scale(text: str) -> list[float] | range:
    """``--scale``: ``0-3`` or ``0..3`` (every integer grade from 0 to 3) or ``0,1,2,3``.

    Examples
    --------
    >>> parse_scale("0-3"), parse_scale("-1..2"), parse_scale("0,0.5,1")
    (range(0, 4), range(-1, 3), [0, 0.5, 1])
    """
    m = _RANGE.match(text.strip())
    if m:
        lo, hi = (int(g) for g in m.groups() if g is not None)
        if lo > hi:
            msg = f"expected LOW-HIGH with LOW <= HIGH, got {text!r}"
            raise argparse.ArgumentTypeError(msg)
        return range(lo, hi + 1)
    try:
        values = [float(v) for v in text.split(",") if v.strip()]
    except ValueError:
        msg = f"expected grades like 0-3 or 0,1,2,3, got {text!r}"
        raise argparse.ArgumentTypeError(msg) from None
    if not values:
        msg = f"expected grades like 0-3 or 0,1,2,3, got {text!r}"
        raise argparse.ArgumentTypeError(msg)
    return [int(v) if v.is_integer() else v for v in values]


def add_parser(sub: SubParsers) -> None:
    """Register ``irframe judgments`` and its ``merge`` subcommand."""
    p = sub.add_parser(
        "judgments",
        help="grow the qrels: merge a filled judging sheet (irframe judgments merge)",
        description="Work with judgments. 'irframe judgments merge QRELS SHEET -o NEW' adds a filled sheet.",
    )
    p.set_defaults(func=lambda _args: _usage(p))
    actions = p.add_subparsers(dest="action", metavar="ACTION")
    m = actions.add_parser(
        "merge",
        parents=[_common()],
        help="add a filled judging sheet (from irframe pool) to the qrels",
        description=(
            "Merge a filled judging sheet into the qrels: grades checked (numbers, within --scale), "
            "a pair graded differently in the qrels and the sheet refused unless --on-conflict says "
            "which wins, a pair graded twice in the sheet refused, empty grades counted and left out. "
            "The result is sorted by query (natural order) then doc id, so that it diffs cleanly."
        ),
        epilog=(
            "What happened to each sheet row (added, changed, kept, unchanged, not judged) is counted "
            "on stderr; --changes FILE lists them. Output format: -f, else from -o's name (.tsv, .csv, "
            ".parquet keep the judge and judged_at columns), else TREC qrels."
        ),
    )
    m.add_argument(
        "inputs", metavar="QRELS SHEET", nargs="+", help="the judgments so far, then the filled sheet"
    )
    m.add_argument("--no-qrels", action="store_true", help="no judgments yet: the one argument is the sheet")
    m.add_argument("-o", "--output", metavar="FILE", help="the merged qrels (default: stdout)")
    m.add_argument("-f", "--format", choices=("trec", "tsv", "csv", "parquet"), help="output format")
    m.add_argument("--sheet-format", choices=("tsv", "csv", "parquet", "trec"), help="default: from its name")
    m.add_argument(
        "--on-conflict", choices=("error", "sheet", "qrels"), default="error",
        help="a pair the qrels and the sheet grade differently: error (default), keep the sheet's "
        "or the qrels' grade",
    )  # fmt: skip
    m.add_argument("--scale", type=parse_scale, metavar="GRADES", help="allowed grades: 0-3 or 0,1,2,3")
    m.add_argument("--empty", choices=("skip", "error"), default="skip", help="rows without a grade")
    m.add_argument(
        "--unasked", choices=("error", "add"), default="error",
        help="graded pairs the pool did not ask for (rows whose n_systems is empty): error or add",
    )  # fmt: skip
    m.add_argument("--grade-col", default="grade", metavar="COLUMN", help="the sheet's grade column")
    m.add_argument("--changes", metavar="FILE", help="also write every sheet row and its action as TSV")
    m.set_defaults(func=cmd_merge)


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return Exit.ERROR


def _output_format(args: argparse.Namespace) -> str:
    if args.format:
        return str(args.format)
    if args.output is None:
        return "trec"
    return _OUT_SUFFIXES.get(Path(args.output).suffix.lower(), "trec")


def _write(merged: Any, args: argparse.Namespace, fmt: str) -> None:
    """The merged qrels as ``fmt``, atomically to -o or to stdout."""
    from irframe.io import write_trec_qrels

    if fmt == "parquet" and args.output is None:
        msg = "a parquet output needs -o FILE"
        raise CliError(msg)
    if args.output is None:
        if fmt == "trec":
            sys.stdout.write(_trec_text(merged))
        else:
            sys.stdout.write(merged.write_csv(separator="\t" if fmt == "tsv" else ","))
        return
    if fmt != "trec":
        write_table(merged, args.output, fmt)  # type: ignore[arg-type]
        return
    with writing(args.output):  # (atomic itself: an error names the output, not a temporary file)
        write_trec_qrels(merged, args.output)


def _trec_text(merged: Any) -> str:
    """The merged qrels as TREC text (in memory: no temporary file for a kill to leave)."""
    from irframe.io.trec import trec_qrels_text

    return trec_qrels_text(merged)


def cmd_merge(args: argparse.Namespace) -> int:
    """Run ``irframe judgments merge``."""
    from irframe import add_judgments
    from irframe.io.sheets import read_judging_sheet
    from irframe.io.sniff import load

    expected = 1 if args.no_qrels else 2
    if len(args.inputs) != expected:
        msg = (
            "expected SHEET with --no-qrels"
            if args.no_qrels
            else "expected QRELS SHEET (or --no-qrels SHEET)"
        )
        msg += f", got {len(args.inputs)} files"
        raise CliError(msg)
    qrels_path, sheet_path = (None, args.inputs[0]) if args.no_qrels else args.inputs
    refuse_overwriting_inputs(args.output, [qrels_path, sheet_path])
    refuse_overwriting_inputs(args.changes, [qrels_path, sheet_path, args.output])
    stdin = sys.stdin.buffer.read() if qrels_path == "-" else None
    qrels = None if qrels_path is None else load(qrels_path, "qrels", {}, stdin)[0]
    sheet = read_judging_sheet(sheet_path, format=args.sheet_format, grade_col=args.grade_col)
    merge = add_judgments(
        qrels, sheet, on_conflict=args.on_conflict, scale=args.scale, empty=args.empty, unasked=args.unasked,
        grade_col=args.grade_col,
    )  # fmt: skip
    fmt = _output_format(args)
    _write(merge.qrels, args, fmt)
    if args.changes:
        write_table(merge.changes, args.changes, "tsv")
    if not args.quiet:
        print(f"irframe: {shown(str(merge))}", file=sys.stderr)
        extra = [c for c in merge.qrels.columns if c not in ("query_id", "doc_id", "relevance")]
        if fmt == "trec" and extra:
            print(f"irframe: note: TREC qrels hold no {', '.join(extra)} column(s); -f tsv keeps them",
                  file=sys.stderr)  # fmt: skip
    return 0
