"""The ``irframe`` command line: eval, compare, snapshot, check, sample, pool, judgments,
agreement, power, fuse, demo, measures.

``irframe eval QRELS RUN [RUN ...]`` evaluates runs like trec_eval, with irframe's
measure notation and output formats::

    irframe eval qrels.txt bm25.run dense.run -m nDCG@10 -m P@5 -q -f tsv

Inputs may be TREC text files (gzip or not), parquet, CSV, TSV or JSON-lines tables
(by extension, or a CSV/TSV header sniffed from the content, see
:mod:`irframe.io.sniff`), or ``-`` for standard input; a run may also be several files
(a quoted glob, a directory, ``--run-files-are one``: see :mod:`irframe.cli._inputs`).
Every subcommand follows one exit-code contract (:mod:`irframe.cli._exit`): 0 success,
1 a regression (``check``), 2 a usage or data error, 3 the output was not written, 130
interrupted; errors print one line ``irframe: error: ...`` on stderr (``--debug``
shows the traceback instead).

One module per subcommand (``irframe/cli/<name>.py``); shared options and rendering
live in ``_common.py``, reading the inputs in ``_inputs.py``.  Adding a subcommand: write a module with
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
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from irframe.cli._common import CliError, SubParsers, load_plugins, render_table
from irframe.cli._common import _progress as _progress  # used by tests
from irframe.cli._exit import Exit, epilog, guarded_stdout, report, warnings_as_notes

if TYPE_CHECKING:
    from irframe.io.trec_output import render_trec
    from irframe.measures.trec_m import resolve_measures

__all__ = ["SUBCOMMANDS", "CliError", "main", "render_table", "render_trec", "resolve_measures"]

# public names kept here, imported when asked for (they import polars)
_LAZY = {"render_trec": "irframe.io.trec_output", "resolve_measures": "irframe.measures.trec_m"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        __import__(_LAZY[name])
        return getattr(sys.modules[_LAZY[name]], name)
    msg = f"module 'irframe.cli' has no attribute {name!r}"
    raise AttributeError(msg)


# the subcommands in --help order; irframe.cli.<name>.add_parser registers each
_COMMANDS = (
    "eval", "compare", "snapshot", "check", "sample", "pool", "judgments", "agreement", "power",
    "fuse", "demo", "measures", "online", "answers", "clicks",
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
        epilog=f"{epilog()}\n\nStart with: irframe demo",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action=_VersionAction)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for register in SUBCOMMANDS:
        if command is None or getattr(register, "command", command) == command:
            register(sub)
    return parser


# polars' allocator (jemalloc) keeps freed pages (muzzy ones: a second) before returning them to the
# system; a command that reads whole files, evaluates once and exits gains nothing from
# that. Returning muzzy pages at once lowers the peak RSS at the same wall time; also
# returning dirty pages at once (dirty_decay_ms:0) lowers it more but takes longer
# (decisions.md, cli-allocator). polars reads this variable when it loads and appends it to its own
# defaults (pola-rs/polars#18088): set before that, never over a value already set.
_ALLOCATOR_ENV = "_RJEM_MALLOC_CONF"
_ALLOCATOR_CONF = "muzzy_decay_ms:0"


def _return_freed_memory() -> None:
    if "polars" not in sys.modules and not os.environ.get(_ALLOCATOR_ENV):
        os.environ[_ALLOCATOR_ENV] = _ALLOCATOR_CONF


def _stderr_closed() -> None:
    """Standard error closed (``2>&-``: Python's ``sys.stderr`` is None): messages and
    progress go nowhere, the exit code still tells what happened (it crashed on ``isatty``)."""
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w")  # noqa: SIM115 (for the rest of the process)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``irframe`` command; returns the exit code.

    Parameters
    ----------
    argv : sequence of str, optional
        Arguments without the program name (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit code of :mod:`irframe.cli._exit`'s contract: 0 success, 1 a regression
        (``check`` only), 2 a usage or data error (message on stderr), 3 the output was
        not written (a broken pipe, a full disk), 130 interrupted.

    Examples
    --------
    >>> main(["eval", "no-such-qrels.txt", "no-such.run"])
    2
    >>> main(["eval", "-", "-"])
    2
    """
    _return_freed_memory()
    _stderr_closed()
    parser = _build_parser(argv, every=False)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse: --help, --version (0) or a usage error (2)
        return exc.code if isinstance(exc.code, int) else Exit.ERROR
    if args.command is None:
        parser.print_help()
        return Exit.ERROR
    try:
        from irframe.measures._conventions import shown_as_notes

        quiet = bool(getattr(args, "quiet", False))
        # the commands print the conventions as notes, and irframe's other warnings too
        with guarded_stdout(), shown_as_notes(), warnings_as_notes(quiet=quiet):
            load_plugins(getattr(args, "plugin", None) or [])
            return int(args.func(args))
    except BaseException as exc:
        if isinstance(exc, SystemExit | GeneratorExit) or (
            getattr(args, "debug", False) and not isinstance(exc, BrokenPipeError)
        ):
            raise
        return int(report(exc))
