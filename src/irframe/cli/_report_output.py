"""``-o FILE`` of ``irframe compare`` and ``irframe check``: the output written atomically
(:func:`irframe._report.page.write_text`), the format ``html`` when the file ends so and
no ``-f`` is given; without ``-o``, standard output (one final newline either way)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

__all__ = ["add_output_option", "report_format", "write_output"]


def add_output_option(p: argparse.ArgumentParser) -> None:
    """Register ``-o/--output FILE``."""
    p.add_argument(
        "-o", "--output", metavar="FILE",
        help="write the output to FILE, atomically (default: standard output); FILE.html implies -f html",
    )  # fmt: skip


def report_format(fmt: str | None, output: str | None, default: str) -> str:
    """The format asked, else ``html`` for an ``.html``/``.htm`` output file, else ``default``.

    Examples
    --------
    >>> report_format(None, "report.html", "text"), report_format("json", "x.html", "text")
    ('html', 'json')
    """
    if fmt is not None:
        return fmt
    if output is not None and Path(output).suffix.lower() in (".html", ".htm"):
        return "html"
    return default


def write_output(text: str, output: str | None) -> None:
    """``text`` with exactly one final newline, to ``output`` (atomically) or standard output."""
    from irframe._report.page import write_text

    text = text.rstrip("\n") + "\n"
    if output is None or output == "-":
        sys.stdout.write(text)
    else:
        write_text(output, text)
