"""The ``irframe`` command line: eval, compare, snapshot, check, sample, pool, judgments,
agreement, power, fuse, demo, measures.

``irframe eval QRELS RUN [RUN ...]`` evaluates runs like trec_eval, with irframe's
measure notation and output formats::

    irframe eval qrels.txt bm25.run dense.run -m nDCG@10 -m P@5 -q -f tsv

Inputs may be TREC text files (gzip or not), parquet, CSV, TSV or JSON-lines tables
(by extension, or a CSV/TSV header sniffed from the content, see
:mod:`irframe.io.sniff`), or ``-`` for standard input.  Errors print one line
``irframe: error: ...`` on stderr and exit with code 2 for a usage error (a bad option
or combination of options) or 1 for a data or measure error (an unreadable file, an
unknown measure, bad rows); ``irframe check`` exits 2 on any error since its 1 means a
regression. ``--debug`` shows the traceback instead.

One module per subcommand (``irframe/cli/<name>.py``); shared options, input reading
and rendering live in ``_common.py``.  Adding a subcommand: write a module with
``add_parser(subparsers)`` that calls ``subparsers.add_parser(...)`` with
``parents=[_common()]`` and ``set_defaults(func=<handler>)``, where the handler takes
the parsed ``argparse.Namespace`` and returns the exit code; then add its name to
``_COMMANDS`` (or append any ``add_parser`` callable to ``SUBCOMMANDS``).  A command
line that names a subcommand imports that subcommand's module only, and subcommand
modules import polars and irframe's readers inside their handlers, so ``irframe
--help`` and ``irframe eval`` import only what they use.

Examples
--------
>>> main(["measures"])  # doctest: +ELLIPSIS
Families (ir_measures notation; @k is the rank cutoff...
0
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Callable, Sequence

from irframe.cli._common import EXIT_DATA, EXIT_USAGE, CliError, SubParsers, load_plugins, render_table
from irframe.cli._common import _progress as _progress  # used by tests
from irframe.cli._measures_util import render_trec, resolve_measures

__all__ = ["SUBCOMMANDS", "CliError", "main", "render_table", "render_trec", "resolve_measures"]

# the subcommands in --help order; irframe.cli.<name>.add_parser registers each
_COMMANDS = (
    "eval", "compare", "snapshot", "check", "sample", "pool", "judgments", "agreement", "power",
    "fuse", "demo", "measures",
)  # fmt: skip


class _Subcommand:
    """``add_parser`` of ``irframe.cli.<command>``, importing that module only when called."""

    __slots__ = ("command",)

    def __init__(self, command: str) -> None:
        self.command = command

    def __call__(self, sub: SubParsers) -> None:
        name = f"irframe.cli.{self.command}"
        __import__(name)  # not importlib.import_module: -X importtime does not see that one
        sys.modules[name].add_parser(sub)


SUBCOMMANDS: list[Callable[[SubParsers], None]] = [_Subcommand(name) for name in _COMMANDS]


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("irframe")
    except Exception:  # metadata missing in a source checkout
        return "unknown"


class _VersionAction(argparse.Action):
    """``--version``: the package metadata is read only when asked (it costs ~40 ms)."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS) -> None:
        help_text = "show program's version number and exit"  # argparse's own words
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help=help_text)

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        print(f"irframe {_version()}")
        parser.exit()


def _command_of(argv: Sequence[str] | None) -> str | None:
    """The subcommand ``argv`` names, if it is one of ``_COMMANDS`` (the top level options
    take no value, so it is the first argument unless that is an option).

    Examples
    --------
    >>> _command_of(["eval", "qrels", "run"]), _command_of(["--version"]), _command_of(["evl"])
    ('eval', None, None)
    """
    args = sys.argv[1:] if argv is None else list(argv)
    return args[0] if args and args[0] in _COMMANDS else None


def _build_parser(argv: Sequence[str] | None = None, *, every: bool = True) -> argparse.ArgumentParser:
    """The ``irframe`` parser; with ``every=False``, of the subcommand ``argv`` names only
    (when it names one), so that only its module is imported."""
    command = None if every else _command_of(argv)
    parser = argparse.ArgumentParser(
        prog="irframe",
        description="Information-retrieval evaluation with trec_eval's numbers.",
        epilog="Start with: irframe demo",
    )
    parser.add_argument("--version", action=_VersionAction)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for register in SUBCOMMANDS:
        if command is None or getattr(register, "command", command) == command:
            register(sub)
    return parser


# library hints, said the command line's way
_CLI_SPELLING = {
    "order='rank'": "--order rank",
    "order='score'": "--order score",
    "duplicates='first'": "--duplicates first",
    "missing='zero'": "--missing zero",
    "missing='drop'": "--missing drop",
    "on_conflict='sheet'": "--on-conflict sheet",
    "on_conflict='qrels'": "--on-conflict qrels",
    "unasked='add'": "--unasked add",
    "empty='skip'": "--empty skip",
}


# column keywords of the library and the standard column each one names
_COLUMN_ROLES = {
    "query": "query_id", "doc": "doc_id", "rank": "rank", "score": "score",
    "relevance": "relevance", "text": "text",
}  # fmt: skip
_COLUMN_KEYWORD = re.compile(r"\b(?:qrels_)?(query|doc|rank|score|relevance|text)_col=(?:'([^']*)'|\.\.\.)")


_COLUMNS_PRESET = re.compile(r"\b(?:[a-z_]+\(\.\.\., )?columns='([a-z_]+)'\)?")


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
    text = _COLUMNS_PRESET.sub(r"--columns \1", text)
    return " ".join(part.strip() for part in text.splitlines() if part.strip())


def _report_error(exc: Exception, data_exit: int = EXIT_DATA) -> int:
    """Print ``irframe: error: ...`` for an exception; returns the exit code.

    A :class:`CliError` or an option value out of its domain (``InvalidParameterError``,
    e.g. ``--baseline`` naming no system) is a usage error (2); anything else is about
    the data or the measures (``data_exit``: 1, or 2 for ``check`` whose 1 means a
    regression).
    """
    import polars as pl

    from irframe.exceptions import InvalidParameterError, IrFrameError

    known = (CliError, IrFrameError, OSError, pl.exceptions.PolarsError, UnicodeDecodeError)
    if isinstance(exc, known):
        print(f"irframe: error: {_one_line(exc)}", file=sys.stderr)
    else:
        print(
            f"irframe: error: unexpected {type(exc).__name__}: {_one_line(exc)} "
            "(run with --debug for the traceback)",
            file=sys.stderr,
        )
    usage = isinstance(exc, CliError | InvalidParameterError)
    return EXIT_USAGE if usage else data_exit


# polars' allocator (jemalloc) keeps freed pages (muzzy: 1 s) before returning them to the
# system; a command that reads whole files, evaluates once and exits gains nothing from
# that. Returning muzzy pages at once lowers the peak RSS by 10-17% at the same wall time
# (MS MARCO-dev-shaped files, 47 measures: 265-300 MB against 315-320 MB, 1.61-1.68 s
# against 1.68-1.71 s); also returning dirty pages at once (dirty_decay_ms:0) gave 198 MB
# but took 18% longer. polars reads this variable when it loads and appends it to its own
# defaults (pola-rs/polars#18088): set before that, never over a value already set.
_ALLOCATOR_ENV = "_RJEM_MALLOC_CONF"
_ALLOCATOR_CONF = "muzzy_decay_ms:0"


def _return_freed_memory() -> None:
    if "polars" not in sys.modules and not os.environ.get(_ALLOCATOR_ENV):
        os.environ[_ALLOCATOR_ENV] = _ALLOCATOR_CONF


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``irframe`` command; returns the exit code.

    Parameters
    ----------
    argv : sequence of str, optional
        Arguments without the program name (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        0 on success, 2 on a usage error, 1 on a data or measure error (message on
        stderr); ``check`` returns 1 for a regression and 2 for any error.

    Examples
    --------
    >>> main(["eval", "no-such-qrels.txt", "no-such.run"])
    1
    >>> main(["eval", "-", "-"])
    2
    """
    _return_freed_memory()
    parser = _build_parser(argv, every=False)
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return EXIT_USAGE
    debug = bool(getattr(args, "debug", False))
    try:
        load_plugins(getattr(args, "plugin", None) or [])
        from irframe.measures._conventions import shown_as_notes

        with shown_as_notes():  # the commands print the conventions (nDCG's gain) as notes
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
        return _report_error(exc, int(getattr(args, "data_error_exit", EXIT_DATA)))
