"""``irframe eval QRELS RUN [RUN ...]``: evaluate runs like trec_eval."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

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
    _write,
    gain_note,
)
from irframe.cli._inputs import Inputs, add_run_options, read_inputs

if TYPE_CHECKING:
    import polars as pl

    from irframe.measures.trec_m import Asked

__all__ = ["add_parser", "cmd_eval"]

_RUNS_HELP = (
    "A RUN is a file (TREC run, parquet, CSV/TSV, JSON lines, or - for stdin), or ONE run in several "
    "files: a quoted glob ('log/*.parquet') or a directory (a parquet directory's key=value folders "
    "are columns, usable in --by). Several RUN arguments are several systems (trec_eval's "
    "'irframe eval qrels runs/*.run'), named by their run tags or file names; --run-files-are one "
    "reads them as one run. A table with a system column holds several systems. With --no-qrels "
    "the grades are the run's relevance column. --memory-limit evaluates out of core."
)


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
            f"{_RUNS_HELP} Measures: ir_measures notation (nDCG@10, P(rel=2)@5, nDCG(gain=linear)@10, "
            "RR, AP@100) or trec_eval names (ndcg_cut_10, P_5, map, recip_rank); see "
            "'irframe measures'. Default format: 'table' on a terminal, 'tsv' when piped. "
            "'trec' is trec_eval's layout: measure, query, value (4 decimals), one block per "
            "system with runid, num_q and 'all' rows (means; NumRet/NumRel/NumRelRet summed). "
            "Exit codes: see 'irframe --help'."
        ),
    )
    p.add_argument(
        "qrels", metavar="QRELS", help="judgments: TREC qrels, parquet, CSV/TSV or - (with --no-qrels: a run)"
    )
    p.add_argument("runs", metavar="RUN", nargs="*", help="runs (see below)")
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
    add_run_options(p, memory=True)
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


def _in_memory(inputs: Inputs, by: list[str], opts: dict[str, Any]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Per-query rows and means from one engine pass (:func:`irframe.functions.evaluate_both`).
    One system (one run file) is evaluated without its constant ``system`` column (a
    string per row to carry, hash and group by), which is put back in front of both tables."""
    import polars as pl

    from irframe.functions import evaluate_both

    runs, measures, qrels = inputs.runs, inputs.measures, inputs.qrels
    col = runs.get_column("system")
    if runs.height == 0 or col.null_count() or not bool((col == col[0]).all()):
        return evaluate_both(runs, measures, qrels, by=by, **opts)
    rest = [b for b in by if b != "system"]
    per_query, summary = evaluate_both(runs.drop("system"), measures, qrels, by=rest, **opts)
    system = pl.lit(col[0], dtype=pl.String).alias("system")
    return per_query.select(system, pl.all()), summary.select(system, pl.all())


def _out_of_core(
    inputs: Inputs, by: list[str], opts: dict[str, Any], args: argparse.Namespace, per_query: bool
) -> pl.DataFrame:
    """Per-query rows or means, bucket by bucket within ``--memory-limit`` (evaluate_parquet)."""
    from irframe import evaluate_parquet

    kwargs = {**opts, "by": by, "memory_limit": args.memory_limit, "progress": inputs.progress}
    return evaluate_parquet(inputs.runs, inputs.measures, inputs.qrels, per_query=per_query, **kwargs)  # type: ignore[return-value]


def _evaluate(
    inputs: Inputs, by: list[str], args: argparse.Namespace, trec: bool
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The per-query rows and the means, relabelled as asked (out of core: only the one
    the output shows, unless ``trec`` needs both)."""
    opts = {**inputs.options(args), "depth": args.depth}
    if not inputs.progress:  # (--quiet, or no terminal: no bar either; else the library's default)
        opts["progress"] = False
    with _progress(f"evaluating {inputs.names}", inputs.progress):
        if args.memory_limit is None:
            per_query, means = _in_memory(inputs, by, opts)  # one engine pass
        elif trec:  # two passes: the per-query lines and the means
            per_query = _out_of_core(inputs, by, opts, args, True)
            means = _out_of_core(inputs, by, opts, args, False)
        else:  # the one shown (the other is not read)
            per_query = means = _out_of_core(inputs, by, opts, args, args.per_query)
    return inputs.relabel(per_query), inputs.relabel(means)


def _check_options(args: argparse.Namespace, fmt: str, by: list[str]) -> None:
    from irframe.measures.trec_m import text_measures

    explicit_text = [t for t in text_measures(args.measures or []) if t in args.measures]
    if explicit_text and fmt != "trec":
        msg = f"{explicit_text[0]} is text (trec_eval's per-query string): only with --format trec -q"
        raise CliError(msg)
    if fmt == "trec" and len(by) > 1:
        msg = "--format trec cannot show --by breakdowns; use table, tsv, csv or json"
        raise CliError(msg)


def cmd_eval(args: argparse.Namespace) -> int:
    """Run ``irframe eval``."""
    fmt = args.format or _default_format(sys.stdout)
    by = ["system", *[b for b in args.by if b != "system"]]
    _check_options(args, fmt, by)
    inputs = read_inputs(args, DEFAULT_MEASURES, lazy=args.memory_limit is not None)
    per_query, summary = _evaluate(inputs, by, args, fmt == "trec")
    asked = inputs.asked
    if fmt == "trec":
        texts = _texts(inputs, args)
        del inputs  # (the run is not read again: the formatting below reuses its memory)
        _print_trec(asked, args.per_query, per_query, summary, texts)
        return 0
    table = per_query if args.per_query else summary
    best = (
        [a.label for a in asked]
        if fmt == "table" and not args.per_query and table.height > 1 and len(by) == 1
        else ()
    )
    _emit(table, fmt, sys.stdout, mark_best=best, precision=args.precision)
    note = gain_note(asked) if fmt == "table" else None
    if note:
        _write(note, sys.stdout)
    return 0


def _texts(inputs: Inputs, args: argparse.Namespace) -> dict[str, dict[tuple[str, str], str]]:
    """trec_eval's text measures asked for (``relstring``), per (system, query)."""
    from irframe.io.trec_output import relstrings
    from irframe.measures.trec_m import text_measures

    if not args.per_query or "relstring" not in text_measures(args.measures or []):
        return {}
    if args.memory_limit is not None:
        msg = "relstring needs the run in memory: drop --memory-limit or -m relstring"
        raise CliError(msg)
    order = inputs.columns.order
    if order == "auto":
        order = "rank" if "rank" in inputs.runs.columns else "score"
    return {"relstring": relstrings(inputs.runs, inputs.qrels, order)}  # type: ignore[arg-type]


def _print_trec(
    asked: list[Asked],
    per_query_rows: bool,
    per_query: pl.DataFrame,
    summary: pl.DataFrame,
    texts: dict[str, dict[tuple[str, str], str]],
) -> None:
    from irframe.io.trec_output import trec_blocks, write_block

    blocks = trec_blocks(
        per_query,
        summary,
        [a.label for a in asked],
        {a.label for a in asked if a.counted},
        show_queries=per_query_rows,
        names=[a.printed for a in asked],
        all_only={a.label for a in asked if a.all_only},
        texts=texts,
    )
    for block in blocks:  # written one by one: at 1e7 run lines, 4.7 million lines with -q
        write_block(block, sys.stdout)
