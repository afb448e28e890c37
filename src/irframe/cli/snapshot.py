"""``irframe snapshot QRELS RUN -o FILE``: store a baseline's per-query values for ``irframe check``."""

from __future__ import annotations

import argparse
import sys

from irframe.cli._common import (
    DEFAULT_MEASURES,
    CliError,
    SubParsers,
    _add_map,
    _add_measure_option,
    _add_missing_and_duplicates,
    _common,
    _progress,
    add_config_options,
    inputs_with_config,
    refuse_overwriting_inputs,
)
from irframe.cli._config import load_config
from irframe.cli._exit import writing

__all__ = ["add_parser", "cmd_snapshot"]


def add_parser(sub: SubParsers) -> None:
    """Register ``irframe snapshot``."""
    p = sub.add_parser(
        "snapshot",
        parents=[_common()],
        help="store a run's per-query values and fingerprints as a baseline for 'irframe check'",
        description=(
            "Evaluate one run and store its per-query values, the measures' canonical names, "
            "irframe's version and fingerprints of the judgments (per query), the queries table "
            "and the run, as JSON with one query per line (commit it next to the golden set)."
        ),
        epilog="QRELS, --queries and -m default to [tool.irframe.check] in pyproject.toml (see "
        "'irframe check --help'). Exit codes: see 'irframe --help'.",
    )
    p.add_argument(
        "inputs", metavar="[QRELS] RUN", nargs="+", help="judgments (optional with a config) and run"
    )
    p.add_argument("-o", "--output", metavar="FILE", help="write the snapshot there (default: stdout)")
    _add_measure_option(p, f"measure to store (repeatable; default: {' '.join(DEFAULT_MEASURES)})")
    p.add_argument("--queries", metavar="FILE", help="queries table (TSV/CSV/parquet with query_id)")
    _add_missing_and_duplicates(p)
    _add_map(p)
    add_config_options(p)
    p.set_defaults(func=cmd_snapshot)


def cmd_snapshot(args: argparse.Namespace) -> int:
    """Run ``irframe snapshot``."""
    from irframe import snapshot
    from irframe.cli._inputs import Columns
    from irframe.io.sniff import load, load_queries, load_runs

    config, _ = load_config(args.config, enabled=not args.no_config)
    qrels_path, run_path = inputs_with_config(args.inputs, config, "run")
    if [qrels_path, run_path].count("-") > 1:
        msg = "only one input can be read from standard input ('-')"
        raise CliError(msg)
    queries_path = args.queries or config.get("queries")
    refuse_overwriting_inputs(args.output, [qrels_path, run_path, queries_path])
    stdin = sys.stdin.buffer.read() if "-" in (qrels_path, run_path) else None
    columns = Columns.of(args)
    progress = not args.quiet and bool(args.progress or sys.stderr.isatty())
    with _progress("reading the inputs", progress):
        qrels, _ = load(qrels_path, "qrels", columns.renames("qrels"), stdin)
        run = load_runs([run_path], columns.renames("run"), stdin)
        queries = load_queries(str(queries_path), columns.mapping) if queries_path else None
    measures = args.measures or config.get("measures") or list(DEFAULT_MEASURES)
    kwargs = {"missing": args.missing, "duplicates": args.duplicates, **columns.evaluate_kwargs}
    if not progress:  # (--quiet, or no terminal: no bar either; else the library's default)
        kwargs["progress"] = False
    with _progress(f"evaluating {run_path} against {qrels_path}", progress):
        snap = snapshot(run, qrels, measures, queries=queries, **kwargs)
    if args.output:
        with writing(args.output):
            snap.write(args.output)
        print(f"irframe: wrote {args.output} ({len(snap.query_ids)} queries, {', '.join(snap.measures)})",
              file=sys.stderr)  # fmt: skip
    else:
        sys.stdout.write(snap.to_json())
    return 0
