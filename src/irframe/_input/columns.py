"""Column-name resolution and dtype checks, done on schemas only (no data is read)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import polars as pl
import polars.selectors as cs

from irframe._input.options import DEFAULT_RANK
from irframe.exceptions import ColumnNotFoundError, InvalidDataError, InvalidParameterError

__all__ = [
    "DEFAULT_RANK",
    "GRADE_DTYPES",
    "RunColumns",
    "grade_dtype_error",
    "natural_key",
    "natural_order",
    "natural_sorted",
    "ranking_order",
    "resolve_qrels",
    "resolve_run",
]


@dataclass(frozen=True)
class RunColumns:
    """The resolved roles of the run's columns."""

    query: str
    doc: str
    order: Literal["rank", "score"]
    order_col: str
    relevance: str | None  # grades on the run rows (no qrels)
    by: tuple[str, ...]
    check_score: str | None = None  # order="auto" with rank and score: the score to check

    @property
    def keys(self) -> tuple[str, ...]:
        """Group keys of the per-query table: the ``by`` columns, then the query."""
        return (*self.by, self.query)

    def ranking(self) -> tuple[list[pl.Expr], list[bool]]:
        """This run's ranking order as sort expressions and directions: see :func:`ranking_order`."""
        return ranking_order(self.order, self.order_col, self.doc)


def ranking_order(
    order: Literal["rank", "score"], order_col: str, doc_col: str
) -> tuple[list[pl.Expr], list[bool]]:
    """THE ranking rule, used by everything that orders documents (engine, moved, writers).

    Rank ascending, or score descending; ties (of rank or of score alike) are broken by
    the doc id in descending byte order, integer ids compared as their decimal strings
    ("9" before "10"), as trec_eval's ``strcmp(docno2, docno1)`` does.

    Returns the sort expressions and their ``descending`` flags, for ``sort``/``sort_by``.

    Examples
    --------
    >>> import polars as pl
    >>> df = pl.DataFrame({"doc": [10, 9, 7], "score": [1.0, 1.0, 2.0]})
    >>> by, desc = ranking_order("score", "score", "doc")
    >>> df.sort(by, descending=desc)["doc"].to_list()
    [7, 9, 10]
    """
    return [pl.col(order_col), pl.col(doc_col).cast(pl.String)], [order == "score", True]


_FEW = 2000  # up to this many rows, natural_sorted sorts in Python (no polars query)
_RUNS = re.compile(r"\d+|\D+")  # maximal runs of digits and of other characters
_WIDTH = 5  # a run of digits is encoded as its length (this many digits) and the digits


def natural_key(value: str | None) -> tuple[int, str, str]:
    """THE natural order of one id, in Python: the key :func:`natural_order` sorts by.

    Every run of digits compares as a number (of any length: ``q2`` before ``q10``,
    ``q1-9`` before ``q1-10``), the text between them as text, a number before text at the
    same place; ids equal so (``q01``, ``q1``) then by their whole text.  None sorts last.

    Examples
    --------
    >>> sorted(["q1-10", "q10", "q1-9", "q2", "q1-2", "b", "10", "9"], key=natural_key)
    ['9', '10', 'b', 'q1-2', 'q1-9', 'q1-10', 'q2', 'q10']
    """
    if value is None:
        return (1, "", "")
    parts = []
    for run in _RUNS.findall(value):
        if run[0].isdigit():
            digits = run.lstrip("0")
            parts.append(f"\x01{len(digits):0{_WIDTH}d}{digits}")
        else:
            parts.append(f"\x02{run}")
    return (0, "".join(parts), value)


def _natural_text(c: pl.Expr) -> pl.Expr:
    """:func:`natural_key`'s encoded text, as a polars expression (the same text)."""
    run = pl.element()
    digits = run.str.strip_chars_start("0")
    size = digits.str.len_chars().cast(pl.String).str.zfill(_WIDTH)
    encoded = (
        pl.when(run.str.contains(r"^\d"))
        .then(pl.concat_str([pl.lit("\x01"), size, digits]))
        .otherwise(pl.concat_str([pl.lit("\x02"), run]))
    )
    return c.str.extract_all(_RUNS.pattern).list.eval(encoded).list.join("")


def natural_sorted(
    df: pl.DataFrame, keys: Sequence[str], columns: Sequence[str] | None = None, *, where: str | None = None
) -> pl.DataFrame:
    """``df`` (its ``columns``, default all) sorted by :func:`natural_order` (nulls last);
    ``where``: only the rows whose Boolean column of that name is true.

    A small frame with string keys is sorted in Python, in the same order (strings compare
    by code point as UTF-8 bytes do), which saves a polars query of ~0.5 ms; only the
    columns kept are gathered.

    Examples
    --------
    >>> df = pl.DataFrame({"query_id": ["q10", "q2", None, "301", "q01"]})
    >>> natural_sorted(df, ["query_id"])["query_id"].to_list()
    ['301', 'q01', 'q2', 'q10', None]
    """
    strings = all(df.get_column(k).dtype == pl.String for k in keys)
    names = list(df.columns if columns is None else columns)
    if df.height > _FEW or not strings:
        kept = df if where is None else df.filter(pl.col(where))
        return kept.select(names).sort(natural_order(df.schema, keys), nulls_last=True)
    values = [df.get_column(k).to_list() for k in keys]
    rows: Sequence[int] = range(df.height)
    if where is not None:
        rows = [i for i, keep in enumerate(df.get_column(where).to_list()) if keep]
    rows = sorted(rows, key=lambda i: tuple(natural_key(c[i]) for c in values))
    picked = pl.DataFrame([df.get_column(n) for n in names])
    return picked if rows == list(range(df.height)) else picked[pl.Series(rows, dtype=pl.UInt32)]


def natural_order(schema: Mapping[str, pl.DataType], keys: Sequence[str]) -> list[pl.Expr]:
    """Sort expressions that put per-query rows in natural order, the same on every backend.

    String keys sort as :func:`natural_key` says (every run of digits as a number: ``q2``
    before ``q10``, ``q1-9`` before ``q1-10``, ``"9"`` before ``"10"``), then by the
    whole string; other keys sort by value.

    Examples
    --------
    >>> import polars as pl
    >>> df = pl.DataFrame({"query_id": ["q10", "q2", "301", "q1b", "q01", "27", "q1-10", "q1-9"]})
    >>> df.sort(natural_order(df.schema, ["query_id"]))["query_id"].to_list()
    ['27', '301', 'q01', 'q1-9', 'q1-10', 'q1b', 'q2', 'q10']
    """
    out: list[pl.Expr] = []
    for k in keys:
        c = pl.col(k)
        if schema[k] in (pl.String, pl.Categorical) or isinstance(schema[k], pl.Enum):
            c = c.cast(pl.String)
            out += [_natural_text(c), c]
        else:
            out.append(c)
    return out


def _require(schema: pl.Schema, col: str, role: str, frame: str, parameter: str) -> None:
    if col not in schema:
        raise ColumnNotFoundError.from_missing(
            role=role, missing=col, available=list(schema), frame=frame, parameter=parameter
        )


GRADE_DTYPES = cs.numeric() | cs.boolean() | cs.by_dtype(pl.Null)  # Null: a column of nulls only
"""THE grade rule (also of scores and ranks): numeric, boolean, or all null; as a selector, so
that an expression can test it on a dtype it only learns at collect time (``irframe.expr``)."""


def _require_roles(
    schema: pl.Schema, ids: tuple[str, str], rank: str | None, score: str, *, rule: str, grades: str | None
) -> None:
    """Raise one error naming every role the run lacks: its ids, (order ``auto``) both the
    rank and the score (``order="rank"``/``"score"``: :func:`_order` names the one asked),
    and the ``grades`` column when no qrels were given and it is missing."""
    wanted = [("query_id", ids[0], "query_col"), ("doc_id", ids[1], "doc_col")]
    roles = [role for role in wanted if role[1] not in schema]
    no_order = rule == "auto" and (rank is None or rank not in schema) and score not in schema
    if rank is not None and rank != DEFAULT_RANK and no_order:  # a named rank column is missing
        roles.append(("rank", rank, "rank_col"))
        no_order = False
    if grades is not None:
        roles.append(("relevance", grades, "relevance_col"))
    if roles or no_order:
        order = (rank or DEFAULT_RANK, score) if no_order else None
        err = ColumnNotFoundError.from_missing_roles(roles, list(schema), order=order)
        if grades is not None:
            err = ColumnNotFoundError(f"{err} (Or pass a separate qrels frame: qrels=...)")
        raise err


def _is_numeric(dtype: pl.DataType) -> bool:
    """:data:`GRADE_DTYPES` tested on a dtype without a polars query (the selector would run
    one); ``tests/robustness/test_expressions.py`` checks that the two agree on every dtype."""
    return dtype.is_numeric() or dtype in (pl.Boolean, pl.Null)


def _check_id(schema: pl.Schema, col: str, frame: str) -> None:
    dtype = schema[col]
    if dtype.is_decimal():  # (Decimal('1.00') is text '1.00', which never matches an id 1)
        msg = (
            f"The {frame} id column {col!r} has decimal dtype {dtype}; ids must be str or int. "
            f"Hint: cast it, e.g. pl.col({col!r}).cast(pl.Int64) or .astype('int64')."
        )
        raise InvalidDataError(msg)
    if dtype.is_float():
        msg = (
            f"The {frame} id column {col!r} has float dtype {dtype}; ids must be str or int. "
            f"Hint: cast it, e.g. pl.col({col!r}).cast(pl.Int64) or .astype('int64')."
        )
        raise InvalidDataError(msg)
    if dtype.is_nested():
        msg = f"The {frame} id column {col!r} has nested dtype {dtype}; ids must be str or int."
        raise InvalidDataError(msg)
    if dtype == pl.Binary:  # (pandas UUID objects arrive as bytes; cast as text, invalid UTF-8)
        msg = (
            f"The {frame} id column {col!r} holds bytes (binary dtype: bytes values, or objects such "
            "as UUIDs); ids must be str or int. Hint: convert them to text first, e.g. "
            f"df[{col!r}] = df[{col!r}].astype(str) for UUIDs, or pl.col({col!r}).cast(pl.String) for "
            "UTF-8 bytes."
        )
        raise InvalidDataError(msg)
    if isinstance(dtype, pl.BaseExtension) or dtype == pl.Object:
        what = "Python objects" if dtype == pl.Object else f"the extension type {dtype}"
        msg = (
            f"The {frame} id column {col!r} holds {what} (a pandas Period or Interval column, "
            "say), which cannot be compared as ids; ids must be str or int. Hint: convert it "
            f"first, e.g. df[{col!r}] = df[{col!r}].astype(str)."
        )
        raise InvalidDataError(msg)


def resolve_run(
    schema: pl.Schema,
    *,
    query_col: str,
    doc_col: str,
    rank_col: str | None,
    score_col: str,
    relevance_col: str | None,
    by: Sequence[str],
    need_relevance: bool,
    order_rule: Literal["auto", "rank", "score"] = "auto",
) -> RunColumns:
    """Decide which columns of the run play which role; raise on missing or mistyped ones
    (every missing role in one message)."""
    missing_grades = need_relevance and (relevance_col is None or relevance_col not in schema)
    grades = (relevance_col or "relevance") if missing_grades else None
    _require_roles(schema, (query_col, doc_col), rank_col, score_col, rule=order_rule, grades=grades)
    _check_id(schema, query_col, "run")
    _check_id(schema, doc_col, "run")
    order, order_col, check_score = _order(schema, rank_col, score_col, order_rule)
    if not _is_numeric(schema[order_col]):
        msg = (
            f"The run's {order} column {order_col!r} must be numeric; it has dtype {schema[order_col]}. "
            f"Hint: cast it, e.g. pl.col({order_col!r}).cast(pl.Float64) or pd.to_numeric."
        )
        raise InvalidDataError(msg)
    rel: str | None = None
    if need_relevance and relevance_col is not None:
        _check_grade(schema, relevance_col, "run")
        rel = relevance_col
    for col in by:
        if not isinstance(col, str):
            raise InvalidParameterError.for_value("by", "evaluate", "a column name or a list of them", col)
        _require(schema, col, col, "run", "by")
    if query_col in by or doc_col in by:
        raise InvalidParameterError.for_value(
            "by", "evaluate", "columns other than the query and document ids", list(by)
        )
    return RunColumns(query_col, doc_col, order, order_col, rel, tuple(by), check_score)


def _order(
    schema: pl.Schema, rank_col: str | None, score_col: str, rule: Literal["auto", "rank", "score"]
) -> tuple[Literal["rank", "score"], str, str | None]:
    """(order, its column, the score column to check against the rank) for ``order=rule``.

    ``auto``: the rank column when present, else the score; with both, the engine checks
    that the score never increases along the rank order within a query.
    """
    has_rank = rank_col is not None and rank_col in schema
    has_score = score_col in schema
    if rule == "rank" and not has_rank:
        raise ColumnNotFoundError.from_missing(
            role="rank", missing=rank_col or DEFAULT_RANK, available=list(schema), parameter="rank_col"
        )
    if rule == "score" and not has_score:
        raise ColumnNotFoundError.from_missing(
            role="score", missing=score_col, available=list(schema), parameter="score_col"
        )
    if has_rank and rule != "score":
        check = score_col if rule == "auto" and has_score and _is_numeric(schema[score_col]) else None
        return "rank", str(rank_col), check
    if has_score:
        return "score", score_col, None
    order = (rank_col or DEFAULT_RANK, score_col)
    raise ColumnNotFoundError.from_missing_roles([], list(schema), order=order)


def grade_dtype_error(frame: str, col: str, dtype: object) -> InvalidDataError:
    """The error for a grade column of another dtype than :data:`GRADE_DTYPES`."""
    msg = (
        f"The {frame} relevance column {col!r} must hold numeric grades; it has dtype "
        f"{dtype}. Hint: map labels to numbers first, e.g. "
        f"pl.col({col!r}).cast(pl.Int64) or pd.to_numeric(df[{col!r}])."
    )
    return InvalidDataError(msg)


def _check_grade(schema: pl.Schema, col: str, frame: str) -> None:
    if not _is_numeric(schema[col]):
        raise grade_dtype_error(frame, col, schema[col])


def resolve_qrels(
    schema: pl.Schema, *, query_col: str, doc_col: str, relevance_col: str
) -> tuple[str, str, str]:
    """Check the qrels frame's columns; return (query, doc, relevance) names."""
    roles = [("query_id", query_col, "qrels_query_col"), ("doc_id", doc_col, "qrels_doc_col"),
             ("relevance", relevance_col, "qrels_relevance_col")]  # fmt: skip
    missing = [role for role in roles if role[1] not in schema]
    if missing:
        raise ColumnNotFoundError.from_missing_roles(missing, list(schema), frame="qrels")
    _check_id(schema, query_col, "qrels")
    _check_id(schema, doc_col, "qrels")
    _check_grade(schema, relevance_col, "qrels")
    return query_col, doc_col, relevance_col
