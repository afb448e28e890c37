"""``irframe check [QRELS] CANDIDATE --baseline BASELINE``: fail CI on a golden-set regression.

Exit codes: 0 pass, 1 regression found, 2 usage or data error (including judgments
that changed under a snapshot baseline, unless ``--allow-changed-qrels``).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from irframe._input.options import CHOICES, Options
from irframe.cli._common import (
    DEFAULT_MEASURES,
    CliError,
    SubParsers,
    _add_map,
    _add_measure_option,
    _common,
    _progress,
    add_config_options,
    add_test_options,
    inputs_with_config,
    markers_encodable,
)
from irframe.cli._config import config_help, load_config
from irframe.cli._report_output import add_output_option, report_format, write_output

__all__ = ["add_parser", "cmd_check"]

CHECK_FORMATS = ("text", "markdown", "json", "html")
# option -> built-in default, used when neither the flag nor the config sets it
_DEFAULTS: dict[str, Any] = {
    "max_drop": 0.0,
    "alpha": 0.05,
    "fail_on": "significant",
    "test": "randomization",
    "correction": "holm",
}


def _add_gate_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--max-drop", type=float, metavar="X", help="largest tolerated drop of a mean (default: 0)"
    )
    p.add_argument("--alpha", type=float, help="level of the corrected p-value (default: 0.05)")
    p.add_argument(
        "--fail-on",
        choices=("significant", "any-drop"),
        help="fail on a significant drop beyond --max-drop (default) or on any drop beyond it",
    )
    add_test_options(p, defaults=False)  # (the config may set them: None when not given)


def _add_holes_options(p: argparse.ArgumentParser) -> None:
    """The judgment holes options of ``irframe check``."""
    p.add_argument(
        "--holes", choices=("report", "fail", "ignore"), default="ignore",
        help="judgment holes (unjudged documents in each run's top --holes-depth): a regression that "
        "judging them could undo passes with a note ('report') or fails with it ('fail'); default: ignore",
    )  # fmt: skip
    p.add_argument(
        "--holes-depth", type=int, default=10, metavar="K", help="top documents looked at (default: 10)"
    )
    p.add_argument(
        "--holes-grade",
        type=float,
        metavar="G",
        help="grade of a hole judged relevant (default: the highest)",
    )


def add_parser(sub: SubParsers) -> None:
    """Register ``irframe check``."""
    p = sub.add_parser(
        "check",
        parents=[_common()],
        help="compare a candidate run with a baseline run or snapshot; exit 1 on a regression",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=(
            "Evaluate the candidate (and the baseline if it is a run), compare them per measure,\n"
            "overall and per segment (--by), with a paired test and a correction over the table,\n"
            "and fail on a regression. Exit codes: 0 pass, 1 regression, 2 usage or data error\n"
            "(a check that compared no query, or a measure without values, is a data error),\n"
            "3 the report was not written (a broken pipe: 'check ... | head' never passes)."
        ),
        epilog=config_help(),
    )
    p.add_argument(
        "inputs",
        metavar="[QRELS] CANDIDATE",
        nargs="+",
        help="judgments (optional with a config) and the run to check",
    )
    p.add_argument(
        "-b", "--baseline", metavar="FILE", help="baseline: a run file or a snapshot (irframe snapshot)"
    )
    _add_measure_option(
        p, f"gated measure (repeatable; default: the snapshot's, else {' '.join(DEFAULT_MEASURES)})"
    )
    p.add_argument("--queries", metavar="FILE", help="queries table: query_id, text, attributes for --by")
    p.add_argument(
        "--by", action="append", metavar="COLUMN", help="also compare and gate per segment (repeatable)"
    )
    _add_gate_options(p)
    p.add_argument("--allow-changed-qrels", action="store_true",
                   help="compare a snapshot on the queries whose judgments did not change")  # fmt: skip
    p.add_argument(
        "--missing",
        choices=CHOICES["missing"],
        help="judged queries absent from a run (default: the snapshot's, else zero)",
    )
    p.add_argument(
        "--duplicates",
        choices=CHOICES["duplicates"],
        default=Options.duplicates,
        help="a document twice in a ranking",
    )
    p.add_argument(
        "-f", "--format", choices=CHECK_FORMATS,
        help="report format (default: text; html with -o FILE.html): html is one self-contained page",
    )  # fmt: skip
    add_output_option(p)
    p.add_argument(
        "--moved", type=int, default=10, metavar="N", help="queries that moved most to list (default: 10)"
    )
    p.add_argument(
        "--docs", type=int, default=3, metavar="K", help="top documents shown per query (default: 3)"
    )
    p.add_argument("--permutations", type=int, default=10_000, metavar="N", help="random sign vectors")
    p.add_argument("--bootstrap", type=int, default=10_000, metavar="N", help="bootstrap resamples")
    p.add_argument("--seed", type=int, default=0, help="seed of the Monte-Carlo steps (default: 0)")
    p.add_argument(
        "--weights", metavar="COLUMN",
        help="weigh the queries by this column of --queries (or of the qrels): weighted means, tests, CIs",
    )  # fmt: skip
    _add_holes_options(p)
    _add_map(p)
    add_config_options(p)
    p.add_argument(
        "--values", action="store_true",
        help="CANDIDATE and --baseline are tables of per-query values (system, query_id, one column per "
        "measure, e.g. answer measures): no QRELS; -m names the gated columns",
    )  # fmt: skip
    p.set_defaults(func=cmd_check)


def _setting(args: argparse.Namespace, config: dict[str, Any], name: str) -> Any:
    value = getattr(args, name, None)
    if value is not None:
        return value
    return config.get(name, _DEFAULTS.get(name))


def _baseline(path: str, mapping: dict[str, str], stdin: bytes | None) -> Any:
    """A snapshot (read here: the report names it by ``path`` as given, relative to the
    working directory for a config's path) or a run read like the candidate.

    A baseline that can be read only once (``-``, a pipe such as ``<(cat base.json)``) is
    read once and recognised by its content, as :func:`irframe.check` does.
    """
    from pathlib import Path

    from irframe import Snapshot, read_snapshot
    from irframe._check.snapshot import is_snapshot, is_snapshot_file
    from irframe.io.sniff import load_runs

    p = Path(path)
    pipe = path != "-" and p.exists() and not (p.is_file() or p.is_dir())
    once = stdin if path == "-" else p.read_bytes() if pipe else None
    if once is not None:
        if is_snapshot(once[:65536]):
            return Snapshot.from_json(once, name="<stdin>" if path == "-" else path)
        return load_runs(["-"], mapping, once)  # (its rows named as standard input's)
    if is_snapshot_file(path):
        return read_snapshot(path)
    return load_runs([path], mapping, stdin)


def _load(args: argparse.Namespace) -> tuple[dict[str, Any], dict[str, Any]]:
    """The frames check() takes (a snapshot baseline as a Snapshot), and the config table."""
    from irframe.cli._inputs import Columns
    from irframe.io.sniff import load, load_queries, load_runs

    config, _ = load_config(args.config, enabled=not args.no_config)
    qrels_path, cand_path = inputs_with_config(args.inputs, config, "candidate")
    base_path = args.baseline or config.get("baseline")
    if not base_path:
        msg = (
            "no baseline: pass --baseline FILE (a run or a snapshot) or set baseline in [tool.irframe.check]"
        )
        raise CliError(msg)
    paths = [qrels_path, cand_path, str(base_path)]
    if paths.count("-") > 1:
        msg = "only one input can be read from standard input ('-')"
        raise CliError(msg)
    stdin = sys.stdin.buffer.read() if "-" in paths else None
    columns = Columns.of(args)
    run_map = columns.renames("run")
    queries_path = args.queries or config.get("queries")
    qrels = load(qrels_path, "qrels", columns.renames("qrels"), stdin)[0]
    frames = {
        "qrels": qrels,
        "candidate": load_runs([cand_path], run_map, stdin),
        "baseline": _baseline(str(base_path), run_map, stdin),
        "queries": load_queries(str(queries_path), columns.mapping) if queries_path else None,
        "paths": (qrels_path, cand_path, str(base_path)),
        "columns": columns,
        "names": f"{cand_path} against {base_path} and {qrels_path}",
    }
    return frames, config


def _print(result: Any, fmt: str | None, output: str | None) -> None:
    fmt = report_format(fmt, output, "text")
    if fmt == "json":
        text = json.dumps(result.to_dict(), indent=2)
    elif fmt == "markdown":
        text = result.to_markdown()
    elif fmt == "html":
        text = result.html_page()
    else:
        text = result.report(ascii=output is None and not markers_encodable())
    write_output(text, output)


def _with_pool_command(result: Any, paths: tuple[str, str, str], depth: int) -> Any:
    """The result with ``irframe pool`` of these files (the baseline unless a snapshot)."""
    import dataclasses

    from irframe._check.extras import pool_command

    qrels, candidate, baseline = paths
    runs = [candidate] if result.baseline_kind == "snapshot" else [baseline, candidate]
    return dataclasses.replace(result, pool_command=pool_command(qrels, runs, depth))


def cmd_check(args: argparse.Namespace) -> int:
    """Run ``irframe check``; returns 0 (pass) or 1 (regression)."""
    from irframe import Snapshot, check

    if args.values:
        return _check_values(args)
    progress = not args.quiet and bool(args.progress or sys.stderr.isatty())
    with _progress("reading the inputs", progress):
        frames, config = _load(args)
    snapshot_baseline = isinstance(frames["baseline"], Snapshot)
    measures = (
        args.measures or config.get("measures") or (None if snapshot_baseline else list(DEFAULT_MEASURES))
    )
    with _progress(f"checking {frames['names']}", progress):
        result = check(
            frames["candidate"],
            frames["qrels"],
            frames["baseline"],
            measures,
            queries=frames["queries"],
            by=args.by or config.get("by"),
            allow_changed_qrels=args.allow_changed_qrels,
            missing=_setting(args, config, "missing"),
            duplicates=args.duplicates,
            n_moved=args.moved,
            docs_top=args.docs,
            n_permutations=args.permutations,
            n_bootstrap=args.bootstrap,
            seed=args.seed,
            progress=None if progress else False,  # (None: a bar on a terminal for long work)
            weights=args.weights,
            holes=args.holes,
            holes_depth=args.holes_depth,
            holes_grade=args.holes_grade,
            **frames["columns"].evaluate_kwargs,
            **{k: _setting(args, config, k) for k in _DEFAULTS},
        )
    if result.pool_command is not None:  # the files of this command line
        result = _with_pool_command(result, frames["paths"], args.holes_depth)
    _print(result, args.format, args.output)
    return result.exit_code


def _check_values(args: argparse.Namespace) -> int:
    """``irframe check --values CANDIDATE -b BASELINE -m ...``: per-query values gated as they are."""
    from irframe import check
    from irframe.io.sniff import load_queries, load_runs

    if len(args.inputs) != 1 or not args.baseline or not args.measures:
        msg = "check --values takes one CANDIDATE table, --baseline TABLE and the gated columns with -m"
        raise CliError(msg)
    config, _ = load_config(args.config, enabled=not args.no_config)
    read = [load_runs([path], {}, None) for path in (args.inputs[0], args.baseline)]
    queries = load_queries(args.queries, {}) if args.queries else None
    result = check(
        read[0], None, read[1], args.measures, queries=queries,
        by=args.by, n_moved=args.moved, docs_top=0, n_permutations=args.permutations,
        n_bootstrap=args.bootstrap, seed=args.seed, **{k: _setting(args, config, k) for k in _DEFAULTS},
    )  # fmt: skip
    _print(result, args.format, args.output)
    return result.exit_code
