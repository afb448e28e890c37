"""The impression log: one row per (impression, shown document), its columns and its checks.

Written once for every reader of search logs (:mod:`irframe.clicks`; online experiments
read the same shape).  An impression is one result page shown for one query: its rows
are the documents shown, each at a 1-based ``position``, with ``clicked`` (0/1, a bool or
a count of clicks).  A row *is clicked* when ``clicked > 0``: the click models model
whether a shown document was clicked, not how often.

:func:`log_columns` resolves the column names on the schema alone (did-you-mean hints,
id and dtype checks); :func:`check_log` reads the data once and refuses what no estimate
can take (a null key, a position below 1, a position shown twice in one impression, an
impression under two queries, a negative or null click); :func:`canonical_log` selects the
columns under the canonical names below, so that the estimators never see the caller's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import polars as pl

from irframe._input.columns import _check_id, _is_numeric, _require
from irframe.exceptions import DuplicateRowsError, EmptyInputError, InvalidDataError

__all__ = [
    "CLICKED",
    "DOC",
    "IMPRESSION",
    "POSITION",
    "QUERY",
    "LogColumns",
    "canonical_log",
    "check_impressions",
    "check_log",
    "clean_sorted_log",
    "impression_checks",
    "is_click",
    "log_columns",
]

IMPRESSION, QUERY, DOC, POSITION, CLICKED = "impression_id", "query_id", "doc_id", "position", "clicked"


@dataclass(frozen=True)
class LogColumns:
    """The caller's names of the log's columns, by role; ``extra`` holds optional roles
    (``session_id``, ``user_id``, ``system``, propensities...) that a caller asked for."""

    impression: str = IMPRESSION
    query: str = QUERY
    doc: str = DOC
    position: str = POSITION
    clicked: str = CLICKED
    extra: Mapping[str, str] = field(default_factory=dict)

    @property
    def renames(self) -> dict[str, str]:
        """The caller's column name -> its canonical name (extras keep their role name)."""
        core = {
            self.impression: IMPRESSION,
            self.query: QUERY,
            self.doc: DOC,
            self.position: POSITION,
            self.clicked: CLICKED,
        }
        return core | {col: role for role, col in self.extra.items()}


def log_columns(
    schema: pl.Schema,
    *,
    impression_col: str = IMPRESSION,
    query_col: str = QUERY,
    doc_col: str = DOC,
    position_col: str = POSITION,
    clicked_col: str = CLICKED,
    extra: Mapping[str, str | None] | None = None,
) -> LogColumns:
    """Check that the log has each role's column with a usable dtype; return the names.

    ``extra`` maps optional roles to their column (``None``: not asked for); a role asked for
    must be there, named by its parameter ``<role>_col`` in the hint.

    Examples
    --------
    >>> schema = pl.Schema({"impression_id": pl.Int64, "query_id": pl.String,
    ...                     "doc_id": pl.String, "rank": pl.Int64, "clicked": pl.Int8})
    >>> log_columns(schema)
    Traceback (most recent call last):
    ...
    irframe.exceptions.ColumnNotFoundError: The log frame has no position column 'position'. ...
    Hint: did you mean position_col='rank'?
    """
    roles = (
        (impression_col, "impression_id", "impression_col"),
        (query_col, "query_id", "query_col"),
        (doc_col, "doc_id", "doc_col"),
        (position_col, "position", "position_col"),
        (clicked_col, "clicked", "clicked_col"),
    )
    for col, role, param in roles:
        _require(schema, col, role, "log", param)
    for col in (impression_col, query_col, doc_col):
        _check_id(schema, col, "log")
    if not schema[position_col].is_integer():
        msg = (
            f"The log's position column {position_col!r} must hold integer positions (1 = top); "
            f"it has dtype {schema[position_col]}. Hint: cast it, e.g. "
            f"pl.col({position_col!r}).cast(pl.Int64) or .astype('int64')."
        )
        raise InvalidDataError(msg)
    if not _is_numeric(schema[clicked_col]):
        msg = (
            f"The log's clicked column {clicked_col!r} must hold 0/1, a bool or a click count; "
            f"it has dtype {schema[clicked_col]}. Hint: cast it, e.g. pl.col({clicked_col!r}).cast(pl.Int64)."
        )
        raise InvalidDataError(msg)
    asked = {role: col for role, col in (extra or {}).items() if col is not None}
    for role, col in asked.items():
        _require(schema, col, role, "log", f"{role.removesuffix('_id')}_col")
    return LogColumns(impression_col, query_col, doc_col, position_col, clicked_col, asked)


def canonical_log(lf: pl.LazyFrame, cols: LogColumns) -> pl.LazyFrame:
    """The log's columns under their canonical names: ``position`` as Int64 and ``clicked`` as
    Float64 (its value; :func:`is_click` says whether the row is clicked)."""
    return lf.select(
        [pl.col(c).alias(n) for c, n in cols.renames.items() if n not in (POSITION, CLICKED)]
        + [
            pl.col(cols.position).cast(pl.Int64).alias(POSITION),
            pl.col(cols.clicked).cast(pl.Float64).alias(CLICKED),
        ]
    )


def is_click() -> pl.Expr:
    """THE click rule of a canonical log: a row is clicked when ``clicked > 0`` (as Int64 0/1)."""
    return (pl.col(CLICKED) > 0).cast(pl.Int64)


def check_log(log: pl.LazyFrame, cols: LogColumns) -> pl.DataFrame:
    """Read the canonical ``log`` once and raise on rows no estimate can take.

    Returns one row of counts: ``n_rows``, ``n_impressions``, ``n_clicked_impressions``.
    The error names the column and one offending impression (and its position), with
    the fix.

    Examples
    --------
    >>> log = pl.LazyFrame({"impression_id": [1, 1], "query_id": ["q", "q"], "doc_id": ["a", "b"],
    ...                     "position": [1, 1], "clicked": [0.0, 1.0]})
    >>> check_log(log, LogColumns())
    Traceback (most recent call last):
    ...
    irframe.exceptions.DuplicateRowsError: The log shows position 1 twice in impression 1 ...
    """
    return check_impressions(log.group_by(IMPRESSION).agg(impression_checks()), log, cols)


def impression_checks(prefix: str = "") -> list[pl.Expr]:
    """The per-impression aggregations :func:`check_log` reads (names prefixed by ``prefix``),
    for a verb that aggregates per impression anyway: add them to its own ``group_by`` and pass
    the result (the prefix stripped) to :func:`check_impressions`, saving a pass over the log."""
    exprs = {
        "n": pl.len(),
        "n_positions": pl.col(POSITION).n_unique(),
        "n_queries": pl.col(QUERY).n_unique(),
        "min_position": pl.col(POSITION).min(),
        "clicks": (pl.col(CLICKED) > 0).sum(),
        "bad_clicks": _bad_click().sum(),
        "null_keys": _null_key().sum(),
    }
    return [e.alias(prefix + name) for name, e in exprs.items()]


def _bad_click() -> pl.Expr:
    """A row whose clicked value no estimate can take: null, NaN or negative."""
    return pl.col(CLICKED).is_null() | pl.col(CLICKED).is_nan() | (pl.col(CLICKED) < 0)


def _null_key() -> pl.Expr:
    """A row without its query, document or position."""
    return pl.col(QUERY).is_null() | pl.col(DOC).is_null() | pl.col(POSITION).is_null()


def clean_sorted_log(schema: pl.Schema, same: Sequence[str] = ()) -> pl.Expr | None:
    """One boolean (a ``select`` over the canonical log's rows, no grouping): True when the
    rows are sorted by (impression, position), positions strictly increasing within an
    impression, and every check of :func:`check_log` passes, and each column of ``same`` has
    one value within each impression (nulls mixed with values count as different).

    A proof by row comparisons with the previous row, cheaper than :func:`check_log`'s
    per-impression ``n_unique``: strictly increasing positions within an impression are
    distinct, a query (or ``same`` column) equal to the previous row's within an impression
    is one value.  False proves nothing: the caller then runs :func:`check_log` (or
    :func:`impression_checks`), which names the offending impression.  ``None`` when the
    impression column's dtype has no order to compare (the caller takes the general path).

    Examples
    --------
    >>> log = pl.LazyFrame({"impression_id": [1, 1, 2], "query_id": ["q", "q", "r"],
    ...                     "doc_id": ["a", "b", "a"], "position": [1, 2, 1], "clicked": [0.0, 1.0, 0.0]})
    >>> proof = clean_sorted_log(log.collect_schema())
    >>> log.select(proof).collect().item()
    True
    >>> log.with_columns(position=pl.lit(1, pl.Int64)).select(proof).collect().item()
    False
    """
    dtype = schema[IMPRESSION]
    if not (dtype.is_integer() or dtype == pl.String):
        return None
    imp, pos = pl.col(IMPRESSION), pl.col(POSITION)
    within = imp == imp.shift()
    ordered = ((imp > imp.shift()) | (within & (pos > pos.shift()))).slice(1).all()
    problems = [imp.is_null(), _null_key(), pos < 1, _bad_click()]
    problems += [within & pl.col(c).ne_missing(pl.col(c).shift()) for c in (QUERY, *same)]
    return (pl.len() > 0) & ordered & ~pl.any_horizontal(problems).any()


def check_impressions(per: pl.LazyFrame, log: pl.LazyFrame, cols: LogColumns) -> pl.DataFrame:
    """:func:`check_log` on the per-impression table of :func:`impression_checks` (one row per
    impression: the ``IMPRESSION`` column and the checks' columns); ``log`` is read again only
    to name an offending row."""
    problem = (
        (pl.col("n_positions") < pl.col("n"))
        | (pl.col("n_queries") > 1)
        | (pl.col("min_position") < 1)
        | (pl.col("bad_clicks") > 0)
        | (pl.col("null_keys") > 0)
        | pl.col(IMPRESSION).is_null()
    )
    totals = per.select(
        n_rows=pl.col("n").sum(),
        n_impressions=pl.len(),
        n_clicked_impressions=(pl.col("clicks") > 0).sum(),
        n_problems=problem.sum(),
    ).collect()
    if totals["n_rows"][0] in (None, 0):
        msg = "The log has no rows. Hint: check the filter or the files read."
        raise EmptyInputError(msg)
    if totals["n_problems"][0]:
        _raise_first(log, per.filter(problem).head(1).collect(), cols)
    return totals.drop("n_problems")


def _raise_first(log: pl.LazyFrame, bad: pl.DataFrame, cols: LogColumns) -> None:
    """Raise the error of the first offending impression (``bad``: its per-impression row)."""
    row = bad.row(0, named=True)
    imp = row[IMPRESSION]
    if imp is None:
        msg = f"The log's impression column {cols.impression!r} has nulls. Hint: drop or fill them."
        raise InvalidDataError(msg)
    rows = log.filter(pl.col(IMPRESSION) == imp).collect()
    if row["null_keys"]:
        keys = ((cols.query, QUERY), (cols.doc, DOC), (cols.position, POSITION))
        nulls = [c for c, n in keys if rows[n].null_count()]
        msg = f"The log's column {nulls[0]!r} has nulls (impression {imp!r}). Hint: drop or fill them."
        raise InvalidDataError(msg)
    if row["min_position"] < 1:
        msg = (
            f"The log's position column {cols.position!r} has position {row['min_position']} in "
            f"impression {imp!r}; positions start at 1 (the top). Hint: if yours start at 0, add 1: "
            f"pl.col({cols.position!r}) + 1."
        )
        raise InvalidDataError(msg)
    if row["n_queries"] > 1:
        queries = sorted(rows[QUERY].unique().cast(pl.String).to_list())
        msg = (
            f"The log's impression {imp!r} has rows of {len(queries)} queries ({queries[:3]}) in "
            f"column {cols.query!r}; an impression is one result page of one query. Hint: check "
            f"impression_col={cols.impression!r}, or make the id from both, e.g. "
            f"pl.concat_str({cols.impression!r}, {cols.query!r})."
        )
        raise InvalidDataError(msg)
    if row["bad_clicks"]:
        msg = (
            f"The log's clicked column {cols.clicked!r} has a null, NaN or negative value in "
            f"impression {imp!r}. Hint: a row shown and not clicked has clicked = 0."
        )
        raise InvalidDataError(msg)
    twice = int(rows.group_by(POSITION).len().filter(pl.col("len") > 1)[POSITION].min())  # type: ignore[arg-type]
    msg = (
        f"The log shows position {twice} twice in impression {imp!r} (column {cols.position!r}); "
        "each (impression, position) is one shown document. Hint: drop the duplicates, e.g. "
        f".unique([{cols.impression!r}, {cols.position!r}]), or check impression_col."
    )
    raise DuplicateRowsError(msg)
