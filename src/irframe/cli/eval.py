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
    terminal_width,
)
from irframe.cli._inputs import Inputs, add_run_options, read_inputs

if TYPE_CHECKING:
    import polars as pl

    from irframe.measures.trec_m import Asked

__all__ = ["add_parser", "cmd_eval"]

# -f trec without -m: trec_eval's own default (its 'official' measures, runid and num_q included)
TREC_DEFAULT = ("official",)

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
            "'irframe measures'. Default format: 'table' on a terminal (a table wider than the "
            "terminal is shown long: one row per measure), 'tsv' when piped. "
            "'trec' is trec_eval's output: measure, query, value (4 decimals), trec_eval's lines "
            "in trec_eval's order, one block per system ('all' rows: means; NumRet/NumRel/NumRelRet "
            "summed), and trec_eval's default measures (-m official) when -m is not given; runid and "
            "num_q are printed when asked for (official and all_trec include them) or when there "
            "are several runs. trec_eval's flags: -q, -m, -c (irframe's default, --missing zero), "
            "-l N (--rel N), -J (--judged-only), -M N (--depth N), -n (no 'all' lines). "
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
    _add_trec_eval_flags(p)
    p.add_argument(
        "-M",
        "--depth",
        type=_depth,
        metavar="N",
        help="at most N documents per query, the first in ranking order (trec_eval -M)",
    )
    p.add_argument(
        "-l",
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


# trec_eval's other flags: what irframe does instead (a usage error that says it, not "unrecognized")
_NOT_HERE = {
    "-N": "trec_eval -N (documents in the collection) is a measure parameter here: Utility(n_docs=N)",
    "-R": "trec_eval -R (the qrels format): irframe reads TREC qrels, parquet, CSV/TSV and JSON by content",
    "-T": "trec_eval -T (the results format): irframe reads TREC runs, parquet, CSV/TSV and JSON by content",
    "-Z": "trec_eval -Z (z-scores against a file of means) has no irframe counterpart",
    "-o": "trec_eval -o (its old output layout) has no irframe counterpart; -f trec is its default layout",
    "-D": "trec_eval -D (debug levels): irframe's --debug shows the traceback of an error",
}


class _Refused(argparse.Action):
    """A trec_eval flag irframe does not take: the usage error says what to use instead."""

    def __init__(self, *args: Any, said: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.said = said

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        parser.error(self.said)


def _add_trec_eval_flags(p: argparse.ArgumentParser) -> None:
    """trec_eval's -c, -n and -J (-q, -m, -l and -M are irframe's options too); its other flags
    say what irframe does instead."""
    p.add_argument(
        "-c",
        dest="missing",
        action="store_const",
        const="zero",
        help="trec_eval -c: judged queries absent from the run score 0 (irframe's default, --missing zero)",
    )
    p.add_argument(
        "-n",
        "--no-summary",
        action="store_true",
        help="trec_eval -n: no 'all' lines (with -f trec; the per-query lines are -q)",
    )
    for flag, said in _NOT_HERE.items():
        p.add_argument(flag, nargs="?", action=_Refused, help=argparse.SUPPRESS, said=said)
    p.add_argument(
        "-J",
        "--judged-only",
        action="store_true",
        help="trec_eval -J: unjudged documents leave every ranking (judged_only=True in each "
        "measure that takes it)",
    )


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
        what = "trec_eval's per-query string" if explicit_text[0] == "relstring" else "trec_eval's run tag"
        msg = f"{explicit_text[0]} is text ({what}): only with --format trec"
        raise CliError(msg)
    if args.no_summary and fmt != "trec":
        msg = "-n (trec_eval's no summary) is for --format trec; -q alone gives the per-query table"
        raise CliError(msg)
    if fmt == "trec" and len(by) > 1:
        msg = "--format trec cannot show --by breakdowns; use table, tsv, csv or json"
        raise CliError(msg)


def cmd_eval(args: argparse.Namespace) -> int:
    """Run ``irframe eval``."""
    fmt = args.format or _default_format(sys.stdout)
    by = ["system", *[b for b in args.by if b != "system"]]
    _check_options(args, fmt, by)
    from irframe.measures.trec_m import text_measures

    default = TREC_DEFAULT if fmt == "trec" else DEFAULT_MEASURES
    inputs = read_inputs(args, default, lazy=args.memory_limit is not None)
    if args.judged_only:
        inputs = _judged_only(inputs, args)
    per_query, summary = _evaluate(inputs, by, args, fmt == "trec")
    asked = inputs.asked
    if fmt == "trec":
        texts = _texts(inputs, args)
        del inputs  # (the run is not read again: the formatting below reuses its memory)
        runid = "runid" in text_measures(args.measures or TREC_DEFAULT) or summary.height > 1
        _print_trec(
            asked, args.per_query, per_query, summary, texts, runid=runid, all_rows=not args.no_summary
        )
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
        import textwrap

        width = terminal_width(sys.stdout)
        _write(textwrap.fill(note, width) if width else note, sys.stdout)
    return 0


_KEYS = ("query_id", "doc_id")


def _judged_only(inputs: Inputs, args: argparse.Namespace) -> Inputs:
    """trec_eval's ``-J``: the run's documents without a judgment >= 0 leave the run
    before anything is computed (every measure, ranks counted among the judged); how
    many rows left is said on stderr."""
    import dataclasses

    import polars as pl

    qrels, runs = inputs.qrels, inputs.runs
    have = set(runs.collect_schema().names())
    if qrels is None or not {*_KEYS, "relevance"} <= set(qrels.columns) or not set(_KEYS) <= have:
        msg = (
            "-J needs the qrels (query_id, doc_id, relevance) and the run's query_id and doc_id "
            "columns. Hint: name them with --map (e.g. --map qid=query_id)."
        )
        raise CliError(msg)
    judged = qrels.lazy().filter(pl.col("relevance") >= 0).select(pl.col(k).cast(pl.String) for k in _KEYS)
    key = [pl.col(k).cast(pl.String).alias(f"__{k}") for k in _KEYS]
    kept: Any = (
        _top(runs.lazy(), inputs, args.depth)
        .with_columns(key)
        .join(
            judged, left_on=[f"__{k}" for k in _KEYS], right_on=list(_KEYS), how="semi", maintain_order="left"
        )
        .drop([f"__{k}" for k in _KEYS])
    )
    if isinstance(runs, pl.DataFrame):
        kept = kept.collect()
        if not args.quiet:
            within = f", within the first {args.depth} of each ranking" if args.depth else ""
            note = (
                f"-J: {kept.height} of {runs.height} run rows kept (documents with a judgment >= 0{within})"
            )
            print(f"irframe: note: {note}", file=sys.stderr)
    return dataclasses.replace(inputs, runs=kept)


def _top(runs: pl.LazyFrame, inputs: Inputs, depth: int | None) -> pl.LazyFrame:
    """The first ``depth`` documents of each ranking (trec_eval cuts at ``-M`` before ``-J``
    removes the unjudged), in :func:`irframe._input.columns.ranking_order`."""
    from irframe._input.columns import ranking_order

    if depth is None:
        return runs
    order = inputs.columns.order
    if order == "auto":
        order = "rank" if "rank" in runs.collect_schema().names() else "score"
    by, descending = ranking_order(order, order, "doc_id")  # type: ignore[arg-type]
    keys = [c for c in ("system", "query_id") if c in runs.collect_schema().names()]
    return (
        runs.sort([*keys, *by], descending=[False] * len(keys) + descending)
        .group_by(keys, maintain_order=True)
        .head(depth)
    )


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
    *,
    runid: bool,
    all_rows: bool = True,
) -> None:
    """trec_eval's lines, in trec_eval's order (:func:`irframe.measures.trec_m.in_trec_order`):
    ``relstring`` where trec_eval prints it, ``runid`` and ``num_q`` when asked for."""
    from irframe.io.trec_output import trec_blocks, write_block
    from irframe.measures.trec_m import in_trec_order, trec_position

    asked = in_trec_order(asked)
    where = trec_position("relstring") or (0, 0.0)
    text_at = sum(1 for a in asked if (trec_position(a.printed) or where) < where)
    blocks = trec_blocks(
        per_query,
        summary,
        [a.label for a in asked],
        {a.label for a in asked if a.counted},
        show_queries=per_query_rows,
        names=[a.printed for a in asked],
        all_only={a.label for a in asked if a.all_only},
        texts=texts,
        text_at=text_at,
        runid=runid,
        num_q=False,
        all_rows=all_rows,
    )
    for block in blocks:  # written one by one: at 1e7 run lines, 4.7 million lines with -q
        write_block(block, sys.stdout)
