"""The exit codes of the ``irframe`` command, below both the command line and the library.

:class:`Exit` is the one enum: :mod:`irframe.cli._exit` writes the contract around it
(what each code means, how an error becomes one), and a library result that decides a
command's code, as :attr:`irframe.CheckResult.exit_code` does, returns a member of it
without importing the command line.  An ``IntEnum``: a member is the ``int`` a shell sees.

Examples
--------
>>> Exit.FAILED == 1, isinstance(Exit.OUTPUT, int)
(True, True)
"""

from __future__ import annotations

from enum import IntEnum

__all__ = ["Exit"]


class Exit(IntEnum):
    """The exit codes of the ``irframe`` command."""

    OK = 0
    FAILED = 1  # irframe check: a regression; irframe online compare --fail-on: what it names
    ERROR = 2  # usage or data error, internal error
    OUTPUT = 3  # the output was not (entirely) written
    INTERRUPTED = 130  # 128 + SIGINT, as shells report it
