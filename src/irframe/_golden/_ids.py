"""The rules every golden-set step shares (one place each); the column names are in
:mod:`irframe._input.keys`."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from irframe._input.columns import natural_order
from irframe._input.keys import DOC_KEY, QUERY_KEY

__all__ = ["examples", "judgment_order"]


def judgment_order(query: str = QUERY_KEY, doc: str = DOC_KEY) -> list[pl.Expr]:
    """THE order of judgments written back (qrels that diff cleanly in git).

    Query ids in natural order (``q2`` before ``q10``, see
    :func:`irframe._input.columns.natural_order`), then doc ids as text in byte order.
    ``query`` and ``doc`` must be String columns.

    Examples
    --------
    >>> import polars as pl
    >>> df = pl.DataFrame({"q": ["q10", "q2", "q2"], "d": ["b", "b", "a"]})
    >>> df.sort(judgment_order("q", "d")).rows()
    [('q2', 'a'), ('q2', 'b'), ('q10', 'b')]
    """
    schema = pl.Schema({query: pl.String})
    return [*natural_order(schema, [query]), pl.col(doc)]


def examples(rows: Sequence[Sequence[object]], total: int, limit: int = 5) -> str:
    """Up to ``limit`` rows shown as tuples (one-field rows as their value), with the number left out.

    Examples
    --------
    >>> examples([("q1", "d1"), ("q2", "d9")], total=7, limit=2)
    "('q1', 'd1'), ('q2', 'd9') (and 5 more)"
    """
    shown = ", ".join(repr(r[0]) if len(r) == 1 else repr(tuple(r)) for r in rows[:limit])
    more = total - min(len(rows), limit)
    return shown + (f" (and {more} more)" if more > 0 else "")
