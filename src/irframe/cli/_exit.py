"""The exit codes of every ``irframe`` subcommand, and how an error becomes one line and a code.

One contract, decided here and nowhere else (``irframe --help`` prints :func:`epilog`,
and the CLI reference page is generated from that help); its codes are the members of
:class:`irframe._exit.Exit` (re-exported here), which the library's results return too:

====  ===========================================================================
code  meaning
====  ===========================================================================
0     success (``irframe check``: the gate passed)
1     ``irframe check``: the gate failed, a regression; ``irframe online compare
      --fail-on``: what it names was found; no other command exits 1
2     a usage or data error: a bad option, an unknown measure, a missing or
      unreadable input, bad rows, a check that compared nothing, an internal error
3     the output was not written: standard output closed early (a broken pipe,
      ``| head``), a full disk, an unwritable ``-o`` file, an encoding that cannot
      show the text
130   interrupted (Ctrl-C)
====  ===========================================================================

Every error prints one line ``irframe: error: ...`` on stderr (``--debug``: the
traceback instead), except a broken pipe, which ends the command quietly (the reader
went away: ``| head`` is not an error worth a line, but the code says the output was
cut).  Errors that are not irframe's own (a polars panic, which derives from
``BaseException``, included) say so and name the step they interrupted, e.g. ``reading
run log.parquet``.

Examples
--------
>>> int(exit_code(BrokenPipeError())), int(exit_code(ValueError())), int(exit_code(KeyboardInterrupt()))
(3, 2, 130)
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Any, TextIO, cast

from irframe._exit import Exit
from irframe.exceptions import CliError

__all__ = ["CONTRACT", "Exit", "OutputError", "epilog", "exit_code", "report", "stage", "writing"]


CONTRACT: tuple[tuple[Exit, str], ...] = (
    (Exit.OK, "success (irframe check: the gate passed)"),
    (
        Exit.FAILED,
        "irframe check: the gate failed (a regression); irframe online compare --fail-on: what it names "
        "was found; no other command exits 1",
    ),
    (
        Exit.ERROR,
        "usage or data error: a bad option, an unknown measure, a missing or unreadable input, "
        "bad rows, a check that compared nothing, an internal error",
    ),
    (
        Exit.OUTPUT,
        "the output was not written: stdout closed early (a broken pipe: its reader, e.g. head, "
        "quit), a full disk, an unwritable -o file",
    ),
    (Exit.INTERRUPTED, "interrupted (Ctrl-C)"),
)


def epilog() -> str:
    """The contract as ``irframe --help`` prints it (kept as laid out: a raw formatter).

    Examples
    --------
    >>> print(epilog().splitlines()[0])
    exit codes (every subcommand):
    """
    import textwrap

    lines = ["exit codes (every subcommand):"]
    for code, text in CONTRACT:
        lines += textwrap.wrap(text, 79, initial_indent=f"  {int(code):<4} ", subsequent_indent=" " * 7)
    lines.append("errors are one line 'irframe: error: ...' on stderr; --debug shows the traceback")
    return "\n".join(lines)


class OutputError(Exception):
    """The output could not be written (exit code 3): not the data's fault nor the user's options."""


def exit_code(exc: BaseException) -> Exit:
    """The exit code of a command that raised ``exc``."""
    if isinstance(exc, KeyboardInterrupt):
        return Exit.INTERRUPTED
    from irframe.exceptions import OutputFileError

    if isinstance(exc, BrokenPipeError | OutputError | OutputFileError):
        return Exit.OUTPUT
    return Exit.ERROR


# --- what the command was doing -----------------------------------------------------------
_STAGES: list[str] = []
_FAILED: list[tuple[BaseException, str]] = []  # the error on its way out and its innermost step


@contextmanager
def stage(label: str) -> Iterator[None]:
    """Name the step under way (``reading run a.run``): an error that does not name its input
    is reported with it."""
    _STAGES.append(label)
    try:
        yield
    except BaseException as exc:
        if not _FAILED or _FAILED[-1][0] is not exc:
            _FAILED[:] = [(exc, label)]
        raise
    finally:
        _STAGES.pop()


def _stage_of(exc: BaseException) -> str | None:
    if _FAILED and _FAILED[-1][0] is exc:
        return _FAILED[-1][1]
    return _STAGES[-1] if _STAGES else None


@contextmanager
def writing(path: str | os.PathLike[str]) -> Iterator[None]:
    """Writing the file ``path``: an operating-system error is an :class:`OutputError`
    (the library's :class:`~irframe.exceptions.OutputFileError` keeps its message)."""
    from irframe.exceptions import OutputFileError

    try:
        yield
    except OutputFileError as exc:
        raise OutputError(str(exc)) from exc
    except OSError as exc:
        reason = exc.strerror or str(exc)
        msg = f"cannot write {os.fspath(path)!r}: {reason}"
        raise OutputError(msg) from exc


# --- standard output ----------------------------------------------------------------------
def _output_error(exc: Exception, encoding: str | None) -> OutputError:
    if isinstance(exc, UnicodeEncodeError):
        msg = (
            f"standard output ({encoding or exc.encoding}) cannot show {exc.object[exc.start : exc.end]!r}. "
            "Hint: set PYTHONIOENCODING=utf-8, or write to a file."
        )
    else:
        msg = f"cannot write to standard output: {getattr(exc, 'strerror', None) or exc}"
    return OutputError(msg)


class _Guarded:
    """A stream whose write errors are :class:`OutputError` (a broken pipe stays itself)."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, data: Any) -> int:
        try:
            return int(self._stream.write(data))
        except BrokenPipeError:
            raise
        except (OSError, UnicodeEncodeError) as exc:
            raise _output_error(exc, getattr(self._stream, "encoding", None)) from exc

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise _output_error(exc, getattr(self._stream, "encoding", None)) from exc

    @property
    def buffer(self) -> Any:
        return _Guarded(self._stream.buffer)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@contextmanager
def guarded_stdout() -> Iterator[TextIO]:
    """``sys.stdout`` for the command's run: its write errors are output errors, and it is
    flushed before the command's exit code is decided."""
    original = sys.stdout
    guarded = cast(TextIO, _Guarded(original))
    sys.stdout = guarded
    try:
        yield guarded
        guarded.flush()
    finally:
        sys.stdout = original


def silence_stdout() -> None:
    """After a broken pipe: point standard output's file descriptor at /dev/null so that the
    interpreter's last flush does not fail again (when it is a file descriptor at all)."""
    stream: IO[str] | None = sys.stdout
    try:
        fd = stream.fileno() if stream is not None else -1
    except (OSError, ValueError):  # (io.UnsupportedOperation is both)
        return
    if fd >= 0:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, fd)
        os.close(devnull)


# --- the error line -----------------------------------------------------------------------
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


# "each impression is a query": on the command line the query column is query_id, which the
# impression column takes over, so the query text moves aside (two --map are one rename)
_IMPRESSION_HINT = re.compile(r"query_col='([^']*)' \(and by='query_id' to group them by 'query_id'\)")
_IMPRESSION_CLI = r"--map query_id=query --map \1=query_id (and --by query to group them by the query text)"


def _column_hint(m: re.Match[str]) -> str:
    """``query_col='qid'`` -> ``--map qid=query_id``; ``query_col=...`` -> ``--map COLUMN=query_id``."""
    return f"--map {m.group(2) or 'COLUMN'}={_COLUMN_ROLES[m.group(1)]}"


def one_line(exc: BaseException) -> str:
    r"""The message on one line, its hints said the command line's way.

    Examples
    --------
    >>> one_line(ValueError("No column 'query_id'.\nHint: did you mean query_col='qid'?"))
    "No column 'query_id'. Hint: did you mean --map qid=query_id?"
    """
    text = str(exc) or type(exc).__name__
    for library, cli in _CLI_SPELLING.items():
        text = text.replace(library, cli)
    text = _IMPRESSION_HINT.sub(_IMPRESSION_CLI, text)
    text = _COLUMN_KEYWORD.sub(_column_hint, text)
    text = _COLUMNS_PRESET.sub(r"--columns \1", text)
    from irframe._escape import terminal

    return terminal(" ".join(part.strip() for part in text.splitlines() if part.strip()))


@contextmanager
def warnings_as_notes(*, quiet: bool) -> Iterator[None]:
    """irframe's own warnings (a :class:`~irframe.exceptions.DuplicatesWarning`...) printed as
    ``irframe: note: ...`` lines on stderr, each once (none with ``--quiet``); other warnings
    as Python shows them."""
    import warnings

    from irframe import exceptions

    ours = tuple(
        v for v in vars(exceptions).values()
        if isinstance(v, type) and issubclass(v, UserWarning) and v is not exceptions.ConventionWarning
    )  # fmt: skip
    shown = warnings.showwarning

    def show(message: Warning | str, category: type[Warning], *args: Any, **kwargs: Any) -> None:
        if not issubclass(category, ours):
            shown(message, category, *args, **kwargs)
        elif not quiet:
            print(f"irframe: note: {one_line(Exception(str(message)))}", file=sys.stderr)

    with warnings.catch_warnings():
        for category in ours:
            warnings.filterwarnings("default", category=category)
        warnings.showwarning = show
        yield


def _known(exc: BaseException) -> bool:
    """irframe's own errors and the errors of reading inputs: their message is the message."""
    from irframe.exceptions import IrFrameError

    polars = sys.modules.get("polars")
    polars_error = polars is not None and isinstance(exc, polars.exceptions.PolarsError)
    return polars_error or isinstance(
        exc, CliError | IrFrameError | OSError | UnicodeDecodeError | OutputError
    )


def describe(exc: BaseException) -> str:
    """The ``irframe: error: ...`` line for ``exc``.

    Examples
    --------
    >>> with stage("reading run log.parquet"):
    ...     print(describe(RuntimeError("boom")))  # doctest: +NORMALIZE_WHITESPACE
    irframe: error: unexpected RuntimeError while reading run log.parquet: boom
    (run with --debug for the traceback)
    """
    from irframe.exceptions import IrFrameError

    step = _stage_of(exc)
    where = f" while {step}" if step else ""
    if _known(exc):
        if isinstance(exc, CliError | IrFrameError | OutputError) or not where:
            return f"irframe: error: {one_line(exc)}"
        return f"irframe: error: {one_line(exc)} ({where.strip()})"
    kind = type(exc).__name__
    # (polars' panics derive from BaseException: no except Exception catches them)
    kind = "internal error (polars panicked)" if kind == "PanicException" else f"unexpected {kind}"
    return f"irframe: error: {kind}{where}: {one_line(exc)} (run with --debug for the traceback)"


def report(exc: BaseException) -> Exit:
    """Print the error line of ``exc`` on stderr (nothing for a broken pipe); its exit code."""
    code = exit_code(exc)
    if isinstance(exc, BrokenPipeError):
        silence_stdout()
    elif isinstance(exc, KeyboardInterrupt):
        print("irframe: interrupted", file=sys.stderr)
    else:
        print(describe(exc), file=sys.stderr)
    _FAILED.clear()
    return code
