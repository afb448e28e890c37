"""Run the ``irframe`` command in this process, as a subprocess would see it.

``run_cli(*args, stdin=...)`` calls :func:`irframe.cli.main` with standard input,
output and error replaced by byte streams (UTF-8, not a terminal: what ``subprocess.run(...,
capture_output=True, text=True)`` gives the command) and returns the same three things as
a ``CompletedProcess``: ``returncode``, ``stdout``, ``stderr``.  An exception that leaves
``main`` (``--debug``) is printed as Python prints it and gives code 1, as the
interpreter would.  A few tests still start real processes: the entry point, a broken
pipe, a signal, the modules a command imports.
"""

from __future__ import annotations

import io
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path

from irframe.cli import main

__all__ = ["ClosedStdout", "Result", "run_cli"]


@dataclass(frozen=True)
class Result:
    """What ``subprocess.run(..., capture_output=True, text=True)`` returns, in short."""

    returncode: int
    stdout: str
    stderr: str


class _ClosedBuffer:
    def write(self, data: object) -> int:
        raise BrokenPipeError(32, "Broken pipe")

    def flush(self) -> None:
        return None


class ClosedStdout(io.TextIOBase):
    """A standard output whose reader went away (``| true``): every write is a broken pipe."""

    encoding = "utf-8"  # type: ignore[assignment]
    buffer = _ClosedBuffer()

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")


def _stream(data: bytes = b"", encoding: str = "utf-8") -> io.TextIOWrapper:
    return io.TextIOWrapper(io.BytesIO(data), encoding=encoding, write_through=True)


def _text(stream: io.TextIOBase) -> str:
    raw = getattr(stream, "buffer", None)
    if not isinstance(raw, io.BytesIO):
        return ""
    stream.flush()
    return raw.getvalue().decode(stream.encoding)


def run_cli(*args: str | Path, stdin: str | None = None, stdout: io.TextIOBase | None = None) -> Result:
    """``irframe ARGS`` in this process: its exit code, stdout and stderr (``stdout``: write
    to that stream instead, e.g. a :class:`ClosedStdout` or a cp1252 one)."""
    saved = sys.stdin, sys.stdout, sys.stderr
    out: io.TextIOBase = stdout if stdout is not None else _stream()
    err = _stream()
    sys.stdin, sys.stdout, sys.stderr = _stream((stdin or "").encode()), out, err
    try:
        code = main([str(a) for a in args])
    except KeyboardInterrupt:
        raise
    except BaseException:
        traceback.print_exc(file=err)
        code = 1
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved
    return Result(code, _text(out), _text(err))
