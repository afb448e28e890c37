"""``irframe eval QRELS RUN [RUN ...]``: evaluate runs like trec_eval."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import polars as pl

from irframe.cli._common import (
    DEFAULT_MEASURES,
    FORMATS,
    CliError,
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
    gain_note,
)
from irframe.cli._measures_util import (
    all_only_labels,
    count_labels,
    relstrings,
    text_measures,
    trec_blocks,
    trec_labels,
    write_block,
)

__all__ = ["add_parser", "cmd_eval"]


def add_parser(sub: SubParsers) -> None:
    """Register ``irframe eval``."""
    p = sub.add_parser(
        "eval",
        parents=[_common()],
        help="evaluate runs against qrels (like trec_eval)",
        description=(
            "Evaluate one or more runs against judgments. Several runs give one table "
            "with a system column (the run tag, or the file name when tags collide)."
        ),
        epilog=(
            "Measures: ir_measures notation (nDCG@10, P(rel=2)@5, nDCG(gain=linear)@10, RR, "
            "AP@100) or trec_eval names (ndcg_cut_10, P_5, map, recip_rank); see "
            "'irframe measures'. Default format: 'table' on a terminal, 'tsv' when piped. "
            "'trec' is trec_eval's layout: measure, query, value (4 decimals), one block per "
            "system with runid, num_q and 'all' rows (means; NumRet/NumRel/NumRelRet summed)."
        ),
    )
    p.add_argument("qrels", metavar="QRELS", help="judgments: TREC qrels, parquet, CSV/TSV or -")
    p.add_argument("runs", metavar="RUN", nargs="+", help="runs: TREC run, parquet, CSV/TSV or -")
    _add_measure_option(p, f"measure to compute (repeatable; default: {' '.join(DEFAULT_MEASURES)})")
    p.add_argument("-q", "--per-query", action="store_true", help="one row per query")
    p.add_argument(
        "--by",
        action="append",
        default=[],
        metavar="COLUMN",
        help="also break down by this column of the run or qrels table (repeatable)",
    )
    _add_missing_and_duplicates(p)
    p.add_argument(
        "-M",
        "--depth",
        type=_depth,
        metavar="N",
        help="at most N documents per query, the first in ranking order (trec_eval -M)",
    )
    p.add_argument(
        "--rel",
        type=_number,
        metavar="N",
        help="relevance threshold for measures that do not set rel= (trec_eval -l; nDCG unaffected)",
    )
    p.add_argument(
        "--gain",
        choices=("exp", "linear"),
        help="nDCG gain for nDCG measures that do not set gain= (default exp: 2^rel-1)",
    )
    p.add_argument("-f", "--format", choices=FORMATS, help="output format (see below)")
    _add_precision(p)
    _add_map(p)
    _add_queries(p)
    p.set_defaults(func=cmd_eval)


def _depth(text: str) -> int:
    """``-M N``: a positive integer."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        msg = f"-M/--depth takes a positive integer, got {text!r}"
        raise argparse.ArgumentTypeError(msg)
    return value


def _evaluate_runs(runs: pl.DataFrame, measures: Any, qrels: Any, kwargs: dict[str, Any]) -> tuple[Any, Any]:
    """Per-query rows and means from one engine pass.  One system (one run file) is
    evaluated without its constant ``system`` column (a string per row to carry, hash and
    group by), which is put back in front of both tables."""
    import polars as pl

    from irframe._backends.local import evaluate_pair

    col = runs.get_column("system")
    if runs.height == 0 or col.null_count() or not bool((col == col[0]).all()):
        return evaluate_pair(runs, measures, qrels, **kwargs)
    name = col[0]
    rest = {**kwargs, "by": [b for b in kwargs["by"] if b != "system"]}
    per_query, summary = evaluate_pair(runs.drop("system"), measures, qrels, **rest)
    system = pl.lit(name, dtype=pl.String).alias("system")
    return per_query.select(system, pl.all()), summary.select(system, pl.all())


def cmd_eval(args: argparse.Namespace) -> int:
    """Run ``irframe eval``."""
    measures, qrels, runs, progress = _read_inputs(args, DEFAULT_MEASURES)
    by = ["system", *[b for b in args.by if b != "system"]]
    labels = [m if isinstance(m, str) else str(m) for m in measures]
    fmt = args.format or _default_format(sys.stdout)
    explicit_text = [t for t in text_measures(args.measures or []) if t in args.measures]
    if explicit_text and fmt != "trec":
        msg = f"{explicit_text[0]} is text (trec_eval's per-query string): only with --format trec -q"
        raise CliError(msg)
    if fmt == "trec" and len(by) > 1:
        msg = "--format trec cannot show --by breakdowns; use table, tsv, csv or json"
        raise CliError(msg)
    with _progress("evaluating", progress):
        kwargs: dict[str, Any] = {
            "by": by, "missing": args.missing, "duplicates": args.duplicates, "order": args.order,
            "columns": args.convention, "depth": args.depth,
            "queries": args.queries_frame,
        }  # fmt: skip
        per_query, summary = _evaluate_runs(runs, measures, qrels, kwargs)  # one engine pass
    if fmt == "trec":
        counts = count_labels(labels, measures)
        specs = args.measures or list(DEFAULT_MEASURES)
        names = trec_labels(specs, labels, measures)
        wanted = text_measures(specs) if args.per_query else []
        texts = {"relstring": relstrings(runs, qrels)} if "relstring" in wanted else {}
        del runs, qrels  # (not read again: the formatting below reuses their memory)
        blocks = trec_blocks(
            per_query,
            summary,
            labels,
            counts,
            show_queries=args.per_query,
            names=names,
            all_only=all_only_labels(labels, measures),
            texts=texts,
        )
        for block in blocks:  # written one by one: at 1e7 run lines, 4.7 million lines with -q
            write_block(block, sys.stdout)
        return 0
    table = per_query if args.per_query else summary
    if fmt == "table" and not args.per_query:
        best = labels if table.height > 1 and len(by) == 1 else ()
        _emit(table, fmt, sys.stdout, mark_best=best, precision=args.precision)
    else:
        _emit(table, fmt, sys.stdout, precision=args.precision)
    note = gain_note(measures) if fmt == "table" else None
    if note:
        _write(note, sys.stdout)
    return 0
