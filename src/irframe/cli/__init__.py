"""The ``irframe`` command line: ``eval``, ``compare``, ``snapshot``, ``check``, ``demo``, ``measures``.

``irframe eval QRELS RUN [RUN ...]`` evaluates runs like trec_eval, with irframe's
measure notation and output formats::

    irframe eval qrels.txt bm25.run dense.run -m nDCG@10 -m P@5 -q -f tsv

Inputs may be TREC text files (gzip or not), parquet, CSV, TSV or JSON-lines tables
(by extension, or a CSV/TSV header sniffed from the content, see
:mod:`irframe.io.sniff`), or ``-`` for standard input.  Errors print one line
``irframe: error: ...`` on stderr and exit with code 2 (``--debug`` shows the
traceback instead).

One module per subcommand (``irframe/cli/<name>.py``); shared options, input reading
and rendering live in ``_common.py``.  Adding a subcommand: write a module with
``add_parser(subparsers)`` that calls ``subparsers.add_parser(...)`` with
``parents=[_common()]`` and ``set_defaults(func=<handler>)``, where the handler takes
the parsed ``argparse.Namespace`` and returns the exit code; then append its
``add_parser`` to ``SUBCOMMANDS``.  Subcommand modules import polars and irframe's
readers inside their handlers, so ``irframe --help`` stays fast.

Examples
--------
>>> main(["measures"])  # doctest: +ELLIPSIS
Families (ir_measures notation; @k is the rank cutoff; ...
0
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Callable, Sequence

from irframe.cli import check as _check_cmd
from irframe.cli import compare as _compare_cmd
from irframe.cli import demo as _demo_cmd
from irframe.cli import eval as _eval_cmd
from irframe.cli import measures as _measures_cmd
from irframe.cli import snapshot as _snapshot_cmd
from irframe.cli._common import EXIT_USAGE, CliError, SubParsers, load_plugins, render_table
from irframe.cli._common import _progress as _progress  # used by tests
from irframe.cli._measures_util import render_trec, resolve_measures

__all__ = ["SUBCOMMANDS", "CliError", "main", "render_table", "render_trec", "resolve_measures"]

SUBCOMMANDS: list[Callable[[SubParsers], None]] = [
    _eval_cmd.add_parser,
    _compare_cmd.add_parser,
    _snapshot_cmd.add_parser,
    _check_cmd.add_parser,
    _demo_cmd.add_parser,
    _measures_cmd.add_parser,
]


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("irframe")
    except Exception:  # metadata missing in a source checkout
        return "unknown"


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="irframe",
        description="Information-retrieval evaluation with trec_eval's numbers.",
        epilog="Start with: irframe demo",
    )
    parser.add_argument("--version", action="version", version=f"irframe {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for register in SUBCOMMANDS:
        register(sub)
    return parser


# library hints, said the command line's way
_CLI_SPELLING = {
    "duplicates='first'": "--duplicates first",
    "missing='zero'": "--missing zero",
    "missing='drop'": "--missing drop",
}


# column keywords of the library and the standard column each one names
_COLUMN_ROLES = {
    "query": "query_id", "doc": "doc_id", "rank": "rank", "score": "score",
    "relevance": "relevance", "text": "text",
}  # fmt: skip
_COLUMN_KEYWORD = re.compile(r"\b(?:qrels_)?(query|doc|rank|score|relevance|text)_col=(?:'([^']*)'|\.\.\.)")


def _column_hint(m: re.Match[str]) -> str:
    """``query_col='qid'`` -> ``--map qid=query_id``; ``query_col=...`` -> ``--map COLUMN=query_id``."""
    return f"--map {m.group(2) or 'COLUMN'}={_COLUMN_ROLES[m.group(1)]}"


def _one_line(exc: BaseException) -> str:
    r"""The message on one line, its hints said the command line's way.

    Examples
    --------
    >>> _one_line(ValueError("No column 'query_id'.\nHint: did you mean query_col='qid'?"))
    "No column 'query_id'. Hint: did you mean --map qid=query_id?"
    """
    text = str(exc) or type(exc).__name__
    for library, cli in _CLI_SPELLING.items():
        text = text.replace(library, cli)
    text = _COLUMN_KEYWORD.sub(_column_hint, text)
    return " ".join(part.strip() for part in text.splitlines() if part.strip())


def _report_error(exc: Exception) -> int:
    """Print ``irframe: error: ...`` for an exception; returns the exit code."""
    import polars as pl

    from irframe.exceptions import IrFrameError

    known = (CliError, IrFrameError, OSError, pl.exceptions.PolarsError, UnicodeDecodeError)
    if isinstance(exc, known):
        print(f"irframe: error: {_one_line(exc)}", file=sys.stderr)
    else:
        print(
            f"irframe: error: unexpected {type(exc).__name__}: {_one_line(exc)} "
            "(run with --debug for the traceback)",
            file=sys.stderr,
        )
    return EXIT_USAGE


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``irframe`` command; returns the exit code.

    Parameters
    ----------
    argv : sequence of str, optional
        Arguments without the program name (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        0 on success, 2 on a usage or data error (message on stderr).

    Examples
    --------
    >>> main(["eval", "no-such-qrels.txt", "no-such.run"])
    2
    """
    parser = _build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return EXIT_USAGE
    debug = bool(getattr(args, "debug", False))
    try:
        load_plugins(getattr(args, "plugin", None) or [])
        return int(args.func(args))
    except KeyboardInterrupt:
        print("irframe: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader of our output went away (e.g. `| head`): not an error
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except Exception as exc:
        if debug:
            raise
        return _report_error(exc)
