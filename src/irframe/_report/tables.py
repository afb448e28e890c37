"""The tables and numbers every text and Markdown report prints, written once.

The check, compare and online reports (and any new one) build their rows as text with
:func:`num`, :func:`p_text` and :func:`ci_text`, then lay them out with :func:`text_table`
(the terminal) or :func:`markdown_table`; the HTML page's table is
:func:`irframe._report.page.table`.  User text in a cell is escaped for its format here
(:mod:`irframe._escape`), so a renderer never forgets it.

Examples
--------
>>> print(text_table(["system", "AP"], [["bm25", num(0.25)], ["dense\\x1b", num(None)]], numeric={1}))
system          AP
---------  ------
bm25       0.2500
dense\\x1b       -
>>> print(markdown_table(["system", "AP"], [["a|b", p_text(0.0004)]], right_from=1))
| system | AP |
|:---|---:|
| a\\|b | \\<0.001 |
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from irframe._escape import markdown, terminal

__all__ = ["ci_text", "markdown_table", "num", "p_text", "text_table"]


def _missing(x: float | None) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def num(x: float | None, *, sign: bool = False) -> str:
    """A mean, a delta or a value with four decimals (``sign``: ``+`` or ``-`` always);
    ``-`` for a missing one (None or NaN).

    Examples
    --------
    >>> num(0.5), num(-0.03125, sign=True), num(float("nan")), num(None, sign=True)
    ('0.5000', '-0.0312', '-', '-')
    """
    if _missing(x):
        return "-"
    return f"{x:+.4f}" if sign else f"{x:.4f}"


def p_text(p: float | None, digits: int = 3) -> str:
    """A p-value with ``digits`` decimals; below ``10**-digits`` as ``<0.001`` (it is no
    more precise than its resamples); ``-`` when there is none.

    Examples
    --------
    >>> p_text(0.0312), p_text(0.00002), p_text(0.00002, digits=4), p_text(None)
    ('0.031', '<0.001', '<0.0001', '-')
    """
    if _missing(p):
        return "-"
    floor = 10.0**-digits
    return f"<{floor:.{digits}f}" if p < floor else f"{p:.{digits}f}"  # type: ignore[operator]


def ci_text(low: float | None, high: float | None) -> str:
    """An interval of deltas, ``[-0.1000, +0.2500]``; ``-`` when there is none.

    Examples
    --------
    >>> ci_text(-0.1, 0.25), ci_text(None, None)
    ('[-0.1000, +0.2500]', '-')
    """
    if _missing(low) or _missing(high):
        return "-"
    return f"[{low:+.4f}, {high:+.4f}]"


def text_table(
    header: Sequence[str], rows: Sequence[Sequence[str]], *, numeric: Iterable[int] = (), rule: bool = True
) -> str:
    """A table for the terminal: cells escaped (:func:`irframe._escape.terminal`), columns
    padded to their widest cell, the ``numeric`` ones right-aligned, a line of dashes under
    the header (``rule``), no trailing spaces."""
    nums = set(numeric)
    header = [terminal(h) for h in header]
    rows = [[terminal(c) for c in r] for r in rows]
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(header)]

    def line(cells: Sequence[str]) -> str:
        out = (
            c.rjust(w) if i in nums else c.ljust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        )
        return "  ".join(out).rstrip()

    dashes = [line(["-" * w for w in widths])] if rule else []
    return "\n".join([line(header), *dashes, *map(line, rows)])


def markdown_table(
    header: Sequence[str], rows: Sequence[Sequence[str]], *, right_from: int | None = None
) -> str:
    """A GitHub Markdown table, cells escaped (:func:`irframe._escape.markdown`: a ``|`` or
    ``<details>`` in a cell is text); ``right_from``: the columns from this one on
    right-aligned, the ones before left-aligned (None: no alignment given)."""
    if right_from is None:
        rule = "|" + "---|" * len(header)
    else:
        rule = "|" + "|".join(":---" if i < right_from else "---:" for i in range(len(header))) + "|"
    lines = ["| " + " | ".join(markdown(h) for h in header) + " |", rule]
    lines += ["| " + " | ".join(markdown(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)
