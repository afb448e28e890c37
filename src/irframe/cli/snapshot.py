"""``irframe snapshot QRELS RUN -o FILE``: store a baseline's per-query values for ``irframe check``."""

from __future__ import annotations

import argparse
import sys

from irframe.cli._common import (
    CliError,
    SubParsers,
    _add_map,
    _add_measure_option,
    _add_missing_and_duplicates,
    _common,
    _progress,
)
from irframe.cli._config import load_config

__all__ = ["add_config_options", "add_parser", "cmd_snapshot", "inputs_with_config"]


def add_config_options(p: argparse.ArgumentParser) -> None:
    """``--config FILE`` and ``--no-config`` (shared with ``irframe check``)."""
    p.add_argument(
        "--config",
        metavar="FILE",
        help="pyproject.toml with a [tool.irframe.check] table (default: found from the cwd upwards)",
    )
    p.add_argument("--no-config", action="store_true", help="ignore [tool.irframe.check]")


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
        epilog="QRELS, --queries and -m default to [tool.irframe.check] in pyproject.toml.",
    )
    p.add_argument(
        "inputs", metavar="[QRELS] RUN", nargs="+", help="judgments (optional with a config) and run"
    )
    p.add_argument("-o", "--output", metavar="FILE", help="write the snapshot there (default: stdout)")
    _add_measure_option(p, "measure to store (repeatable; default: nDCG@10 RR R@100)")
    p.add_argument("--queries", metavar="FILE", help="queries table (TSV/CSV/parquet with query_id)")
    _add_missing_and_duplicates(p)
    _add_map(p)
    add_config_options(p)
    p.set_defaults(func=cmd_snapshot)


def inputs_with_config(args: argparse.Namespace, what: str) -> tuple[str, str, dict[str, object]]:
    """QRELS and the run (or candidate) from the positionals, falling back on the config."""
    config, _ = load_config(args.config, enabled=not args.no_config)
    if len(args.inputs) > 2:
        msg = f"expected [QRELS] {what.upper()}, got {len(args.inputs)} files"
        raise CliError(msg)
    if len(args.inputs) == 2:
        return args.inputs[0], args.inputs[1], config
    if "qrels" not in config:
        msg = (
            f"no QRELS given: pass QRELS {what.upper()}, or set qrels in [tool.irframe.check] "
            "of pyproject.toml"
        )
        raise CliError(msg)
    return str(config["qrels"]), args.inputs[0], config


def cmd_snapshot(args: argparse.Namespace) -> int:
    """Run ``irframe snapshot``."""
    from irframe._check.gate import snapshot
    from irframe.io.sniff import load, load_queries, load_runs

    qrels_path, run_path, config = inputs_with_config(args, "run")
    if [qrels_path, run_path].count("-") > 1:
        msg = "only one input can be read from standard input ('-')"
        raise CliError(msg)
    stdin = sys.stdin.buffer.read() if "-" in (qrels_path, run_path) else None
    mapping = dict(args.map)
    progress = bool(args.progress or sys.stderr.isatty())
    with _progress("reading the inputs", progress):
        qrels, _ = load(qrels_path, "qrels", mapping, stdin)
        run = load_runs([run_path], mapping, stdin)
        queries_path = args.queries or config.get("queries")
        queries = load_queries(str(queries_path), mapping) if queries_path else None
    measures = args.measures or config.get("measures") or None
    kwargs = {"missing": args.missing, "duplicates": args.duplicates}
    with _progress("evaluating", progress):
        snap = (
            snapshot(run, qrels, measures, queries=queries, **kwargs)
            if measures
            else snapshot(run, qrels, queries=queries, **kwargs)
        )
    if args.output:
        snap.write(args.output)
        print(f"irframe: wrote {args.output} ({len(snap.query_ids)} queries, {', '.join(snap.measures)})",
              file=sys.stderr)  # fmt: skip
    else:
        sys.stdout.write(snap.to_json())
    return 0
