"""Repeated (query, document) rows: why a run has them, and what ``duplicates="first"`` dropped.

A document listed twice in one ranking (the chunks of a RAG answer, a bug) is what
``duplicates="first"`` is for: the best-ranked row of each document is kept.  A search
log is another thing: one query text shown in many impressions (sessions) repeats every
document it showed, and keeping one row per (query text, document) merges rankings that
no user saw into a table with p-values.  The evidence is in the data: a column that
splits each query's rows into rankings of their own (a session or impression id), where
each document appears once.  Both the duplicate-rows error and the
:class:`~irframe.exceptions.DuplicatesWarning` of ``duplicates="first"`` say so from it;
the sentence is written here once.
"""

from __future__ import annotations

import warnings
from collections.abc import Collection, Sequence
from dataclasses import dataclass

import polars as pl

from irframe._input.columns import RunColumns
from irframe.exceptions import DuplicatesWarning

__all__ = ["Repeats", "count_repeats", "impression_column", "kept_every_row", "likely_cause", "warn_dropped"]

_MAX_CANDIDATES = 8  # columns tried as an impression id (the names that say so first)
_IMPRESSION_NAMES = ("session", "impression", "search", "serp", "request", "visit", "page_view", "event")


@dataclass(frozen=True)
class Repeats:
    """The repeated rows of a run: ``dropped`` rows beyond the first of each (query,
    document), in ``n_queries`` queries, out of ``n_rows``; ``most``: the most rows one
    document has in one query."""

    dropped: int
    n_queries: int
    n_rows: int
    most: int

    @property
    def share(self) -> float:
        return self.dropped / self.n_rows if self.n_rows else 0.0


def count_repeats(run: pl.LazyFrame, keys: Sequence[str], doc: str) -> Repeats:
    """Count the repeated (``keys``, ``doc``) rows of ``run`` (one group_by, one query).

    Examples
    --------
    >>> run = pl.LazyFrame({"q": ["a", "a", "a", "b"], "d": ["x", "x", "x", "y"]})
    >>> count_repeats(run, ["q"], "d")
    Repeats(dropped=2, n_queries=1, n_rows=4, most=3)
    """
    n = pl.col("len")
    dup = (
        run.group_by([*keys, doc])
        .len()
        .select(
            n.sum().alias("rows"), (n - 1).sum().alias("dropped"), n.max().alias("most"),
            pl.struct(list(keys)).filter(n > 1).n_unique().alias("queries"),
        )
        .collect()
    )  # fmt: skip
    return Repeats(
        dropped=int(dup.item(0, "dropped") or 0),
        n_queries=int(dup.item(0, "queries") or 0),
        n_rows=int(dup.item(0, "rows") or 0),
        most=int(dup.item(0, "most") or 1),
    )


def _candidates(schema: pl.Schema, skip: Collection[str]) -> list[str]:
    """Id-like columns (strings, integers, categoricals) other than ``skip``, the ones named
    like a session or impression first."""
    found = [
        c for c, t in schema.items()
        if c not in skip and not c.startswith("__ir_")
        and (t == pl.String or t.is_integer() or t == pl.Categorical or isinstance(t, pl.Enum))
    ]  # fmt: skip
    found.sort(key=lambda c: not any(name in c.lower() for name in _IMPRESSION_NAMES))
    return found[:_MAX_CANDIDATES]


def impression_column(run: pl.LazyFrame, keys: Sequence[str], doc: str, skip: Collection[str]) -> str | None:
    """A column that splits each query's rows into rankings of their own: with it, every
    (query, column, document) is one row, and it makes more rankings than there are queries
    with at least two rows each on average (a row id is no ranking).  None when no column
    does.

    Examples
    --------
    >>> log = pl.LazyFrame({"query": ["tv"] * 4, "session_id": ["s1", "s1", "s2", "s2"],
    ...                     "row": [1, 2, 3, 4], "doc": ["a", "b", "b", "a"]})
    >>> impression_column(log, ["query"], "doc", skip=["query", "doc"])
    'session_id'
    """
    candidates = _candidates(run.collect_schema(), {*skip, *keys, doc})
    if not candidates:
        return None
    # first the rankings each column makes (a row id makes one per row: out at once), then,
    # for the columns left, whether a document appears once per ranking (hashes: a hint)
    groups = [pl.struct([*keys, c]).hash().n_unique().alias(c) for c in candidates]
    counts = run.select(
        pl.len().alias("__ir_rows"), pl.struct(list(keys)).hash().n_unique().alias("__ir_q"), *groups
    )
    got = counts.collect().row(0, named=True)
    left = [c for c in candidates if got["__ir_q"] < got[c] <= got["__ir_rows"] / 2]
    if not left:
        return None
    pairs = run.select(pl.struct([*keys, c, doc]).hash().n_unique().alias(c) for c in left).collect()
    return next((c for c in left if pairs.item(0, c) == got["__ir_rows"]), None)


def likely_cause(column: str | None, repeats: Repeats, query: str) -> str:
    """The sentence on the likely cause and its hint: an impression column found, or many repeats.

    Examples
    --------
    >>> print(likely_cause("session_id", Repeats(880, 20, 1000, 11), "query"))
    These rows look like a search log: the same query shown in many impressions (88% of the rows \
repeat a (query, document) pair, up to 11 times), each 'session_id' holding one ranking. Hint: \
each impression is a query: query_col='session_id' (and by='query' to group them by 'query'); \
for clicks as feedback see irframe.clicks. duplicates='first' is for documents listed twice in \
one ranking (chunks of a document): here it would merge rankings no user saw.
    """
    share = f"{repeats.share:.0%} of the rows repeat a ({query}, document) pair, up to {repeats.most} times"
    tail = (
        "for clicks as feedback see irframe.clicks. duplicates='first' is for documents listed twice "
        "in one ranking (chunks of a document): here it would merge rankings no user saw."
    )
    if column is not None:
        return (
            f"These rows look like a search log: the same query shown in many impressions ({share}), "
            f"each {column!r} holding one ranking. Hint: each impression is a query: "
            f"query_col={column!r} (and by={query!r} to group them by {query!r}); {tail}"
        )
    return (
        f"Many repeats ({share}). Hint: if these are impressions of a search log, each impression "
        f"is a query: give each its own id (a session or impression column) as query_col=...; {tail}"
    )


def _is_log(repeats: Repeats) -> bool:
    """Repeats beyond what chunks of documents give: most rows repeated, or many per pair."""
    return repeats.share >= 0.5 or repeats.most >= 10


def roles(cols: RunColumns) -> list[str]:
    """The run's columns that play a role besides the keys: never an impression id."""
    return [c for c in (cols.order_col, cols.relevance, cols.check_score) if c is not None]


def explain(run: pl.LazyFrame, cols: RunColumns) -> str | None:
    """The likely-cause sentence for the repeats of ``run``, when they look like a log (an
    impression column found, or :func:`_is_log`); None: they look like documents listed
    twice, which ``duplicates="first"`` is for."""
    keys, doc = cols.keys, cols.doc
    repeats = count_repeats(run, keys, doc)
    column = impression_column(run, keys, doc, roles(cols))
    if column is None and not _is_log(repeats):
        return None
    return likely_cause(column, repeats, keys[-1])


def kept_every_row(rows_per_query: pl.Series, n_rows: int) -> Repeats | None:
    """No repeated row, read off an evaluation's per-query row counts: when they sum to the
    run's ``n_rows`` (nothing was dropped; no ``depth`` cut), the repeats are known without
    a pass over the run.  None: some rows were left out (count them).

    Examples
    --------
    >>> kept_every_row(pl.Series([2, 1, 0]), 3)
    Repeats(dropped=0, n_queries=0, n_rows=3, most=1)
    >>> kept_every_row(pl.Series([2, 1]), 4) is None
    True
    """
    return Repeats(0, 0, n_rows, 1) if rows_per_query.sum() == n_rows else None


def warn_dropped(
    run: pl.LazyFrame, keys: Sequence[str], doc: str, role_cols: Collection[str], *,
    repeats: Repeats | None = None,
) -> Repeats:  # fmt: skip
    """``duplicates="first"``: a :class:`~irframe.exceptions.DuplicatesWarning` saying how many
    rows were dropped (and the likely cause when they look like a log); nothing when none was.

    ``keys``: the per-query keys (the query last); ``role_cols``: the order and grade columns
    (:func:`roles`), never taken for an impression id.  Internal key names (a stacked run's
    system) are not shown.  ``repeats``: the run's repeats when already known (else counted).
    """
    if repeats is None:
        repeats = count_repeats(run, keys, doc)
    if not repeats.dropped:
        return repeats
    shown = [k for k in keys if not k.startswith("__ir_")]
    msg = (
        f"duplicates='first' dropped {repeats.dropped:,} of {repeats.n_rows:,} run rows "
        f"({repeats.share:.0%}): repeated ({', '.join(shown)}, {doc}) rows in {repeats.n_queries:,} "
        "queries, the best-ranked row of each document kept."
    )
    column = impression_column(run, keys, doc, role_cols)
    if column is not None or _is_log(repeats):
        msg += " " + likely_cause(column, repeats, keys[-1])
    from irframe.measures._conventions import stacklevel

    warnings.warn(msg, DuplicatesWarning, stacklevel=stacklevel())
    return repeats
