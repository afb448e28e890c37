"""The answer tables in: column roles, labels and the checks every answer measure shares.

An answer table (nuggets, assignments, citations, sentences) is read once here: its
columns found by role (``columns={role: column}`` or a preset, with did-you-mean on a
missing one), ids cast to strings, null ids and unknown labels refused with the row that
holds them.  The label scales are written here and nowhere else.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import polars as pl

from irframe._input.frames import Origin, to_lazy
from irframe.exceptions import (
    ColumnNotFoundError,
    DuplicateRowsError,
    InvalidDataError,
    InvalidParameterError,
    closest,
)

__all__ = [
    "ASSIGNMENT_SCORES", "IMPORTANCE_WEIGHTS", "PRESETS", "ROLES", "SUPPORT_WEIGHTS", "Empty", "Table",
    "check_empty", "columns_arg", "describe_row", "labels_to_values", "read_table", "refuse_duplicates",
]  # fmt: skip

# role -> default column name
ROLES: dict[str, str] = {
    "system": "system", "query": "query_id", "nugget": "nugget_id", "importance": "importance",
    "assignment": "assignment", "judge": "judge", "sentence": "sentence_id",
    "citation_rank": "citation_rank", "doc": "doc_id", "support": "support",
}  # fmt: skip
# column conventions: role -> column (the TREC RAG tracks' run files name the system run_id,
# the query topic_id; nuggetizer's records name the query qid)
PRESETS: dict[str, dict[str, str]] = {
    "irframe": {},
    "trec_rag": {"system": "run_id", "query": "topic_id"},
    "nuggetizer": {"query": "qid"},
}
# a nugget's assignment: its score s (nuggetizer's: 1, 0.5 for partial support, else 0)
ASSIGNMENT_SCORES: dict[str, float] = {"support": 1.0, "partial_support": 0.5, "not_support": 0.0}
# a nugget's importance: its weight in W (vital 1, okay 0.5)
IMPORTANCE_WEIGHTS: dict[str, float] = {"vital": 1.0, "okay": 0.5}
# a citation's support label (or the 2/1/0 grade) -> its weight (full 1, partial 0.5, none 0)
SUPPORT_WEIGHTS: dict[str, float] = {"full": 1.0, "partial": 0.5, "none": 0.0}
_SUPPORT_GRADES: dict[int, str] = {2: "full", 1: "partial", 0: "none"}

Empty = Literal["zero", "null"]


def columns_arg(columns: str | Mapping[str, str] | None, where: str) -> dict[str, str]:
    """``columns=`` (a preset name or a ``{role: column}`` mapping) as role -> column name.

    Examples
    --------
    >>> columns_arg({"query": "qid"}, "nugget_scores")["query"]
    'qid'
    >>> columns_arg("trec_rag", "support_scores")["system"]
    'run_id'
    """
    if columns is None:
        return dict(ROLES)
    if isinstance(columns, str):
        if columns not in PRESETS:
            err = InvalidParameterError.for_value(
                "columns", where, "one of " + ", ".join(repr(p) for p in PRESETS) + " or a mapping", columns
            )
            hint = closest(columns, PRESETS)
            raise InvalidParameterError(str(err) + (f" Hint: did you mean {hint[0]!r}?" if hint else ""))
        return {**ROLES, **PRESETS[columns]}
    if not isinstance(columns, Mapping):
        raise InvalidParameterError.for_value(
            "columns", where, "a preset name or a {role: column} mapping", columns
        )
    out = dict(ROLES)
    for role, col in columns.items():
        key = str(role).removesuffix("_col").removesuffix("_id")
        key = {"doc": "doc", "qid": "query"}.get(key, key)
        if key not in ROLES:
            hint = closest(str(role), ROLES)
            err = InvalidParameterError.for_value("columns", where, "roles among " + ", ".join(ROLES), role)
            raise InvalidParameterError(str(err) + (f" Hint: did you mean {hint[0]!r}?" if hint else ""))
        if not isinstance(col, str) or not col:
            raise InvalidParameterError.for_value("columns", where, "column names (non-empty str)", col)
        out[key] = col
    return out


@dataclass(frozen=True)
class Table:
    """One answer table read: the rows (columns renamed to their roles), its name, its origin."""

    rows: pl.DataFrame
    name: str
    origin: Origin
    columns: dict[str, str]  # role -> the caller's column name (for messages and the output)

    def has(self, role: str) -> bool:
        return role in self.rows.columns


def read_table(  # noqa: PLR0917 (the table, its name, its columns and its three lists of roles)
    obj: object,
    name: str,
    columns: Mapping[str, str],
    required: Sequence[str],
    optional: Sequence[str] = (),
    ids: Sequence[str] = (),
) -> Table:
    """The table ``obj`` with its ``required`` roles (and the ``optional`` ones it has) as
    columns named by role; the ``ids`` roles cast to strings and refused when null.

    Examples
    --------
    >>> t = read_table(pl.DataFrame({"qid": [1], "nugget_id": ["n1"]}), "nuggets",
    ...                columns_arg({"query": "qid"}, "x"), ["query", "nugget"], ids=["query", "nugget"])
    >>> t.rows.columns, t.rows.schema["query"]
    (['query', 'nugget'], String)
    >>> read_table(pl.DataFrame({"qid": [1]}), "nuggets", ROLES, ["query"])
    Traceback (most recent call last):
    ...
    irframe.exceptions.ColumnNotFoundError: The nuggets frame has no query_id column 'query_id'. ...
    """
    lf, origin = to_lazy(obj, name)
    schema = lf.collect_schema()
    names = list(schema.names())
    for role in required:
        if columns[role] not in names:
            raise _missing_column(name, role, columns[role], names)
    present = [r for r in optional if columns[r] in names]
    roles = [*required, *present]
    df = lf.select([pl.col(columns[r]).alias(r) for r in roles]).collect()
    for role in (r for r in ids if r in roles):
        if df.schema[role].is_float() or df.schema[role].is_nested():
            msg = (
                f"The {name} id column {columns[role]!r} has dtype {df.schema[role]}; ids must be str or "
                "int. "
                f"Hint: cast it, e.g. pl.col({columns[role]!r}).cast(pl.Int64)."
            )
            raise InvalidDataError(msg)
        df = df.with_columns(pl.col(role).cast(pl.String))
        nulls = df.with_row_index("__row").filter(pl.col(role).is_null())
        if nulls.height:
            msg = (
                f"The {name} frame has {nulls.height} row(s) with a null {columns[role]!r} (first at row "
                f"{nulls['__row'][0]}). Hint: drop those rows or fill the id."
            )
            raise InvalidDataError(msg)
    return Table(df, name, origin, {r: columns[r] for r in roles})


def _missing_column(frame: str, role: str, col: str, names: list[str]) -> ColumnNotFoundError:
    """The missing-column error of the library, its hint spelled as this module's ``columns=``."""
    shown = {"query": "query_id", "doc": "doc_id", "nugget": "nugget_id", "sentence": "sentence_id"}
    err = ColumnNotFoundError.from_missing(
        role=shown.get(role, role), missing=col, available=names, frame=frame, parameter="__ir_param"
    )
    text = re.sub(r"__ir_param=('[^']*'|\.\.\.)", lambda m: f"columns={{{role!r}: {m[1]}}}", str(err))
    return ColumnNotFoundError(text)


def describe_row(table: Table, row: Mapping[str, Any], roles: Sequence[str]) -> str:
    """``system 'a', query_id 'q1', nugget_id 'n2'``: a row named by the caller's columns."""
    return ", ".join(f"{table.columns[r]} {row[r]!r}" for r in roles if r in table.columns and r in row)


def labels_to_values(
    table: Table, role: str, scale: Mapping[str, float], keys: Sequence[str], *, grades: bool = False
) -> pl.DataFrame:
    """The table with ``role``'s labels replaced by their values on ``scale`` (labels compared
    case-insensitively; ``grades``: also the integer grades 2/1/0 of the support scale, and
    null kept as null: not judged); an unknown label raises with the first row holding it."""
    df = table.rows
    col = pl.col(role)
    dtype = df.schema[role]
    if grades and (dtype.is_integer() or dtype.is_float()):
        # (pandas reads grades with a missing one as floats, NaN for the missing one)
        df = df.with_columns(col.cast(pl.Float64).fill_nan(None))
        whole = pl.when(col == col.round(0)).then(col).cast(pl.Int64)
        text = whole.replace_strict(_SUPPORT_GRADES, default=None, return_dtype=pl.String)
        bad = col.is_not_null() & text.is_null()
    elif dtype in (pl.String, pl.Categorical) or isinstance(dtype, pl.Enum) or dtype == pl.Null:
        text = col.cast(pl.String).str.strip_chars().str.to_lowercase()
        bad = col.is_not_null() & ~text.is_in(list(scale))
    else:
        allowed = list(scale) + (["2", "1", "0"] if grades else [])
        msg = (
            f"The {table.name} column {table.columns[role]!r} has dtype {dtype}; it must hold the labels "
            f"{', '.join(repr(a) for a in allowed)}. Hint: map the values to those labels first."
        )
        raise InvalidDataError(msg)
    found = df.with_row_index("__row").filter(bad)
    if found.height:
        r = found.row(0, named=True)
        known = ", ".join(repr(a) for a in scale) + (" (or the grades 2, 1, 0)" if grades else "")
        null = "; a null label means not judged" if grades else ""
        hint = closest(str(r[role]), scale)
        msg = (
            f"The {table.name} column {table.columns[role]!r} has {found.height} unknown label(s): "
            f"{r[role]!r} at row {r['__row']} ({describe_row(table, r, keys)}). Known labels: "
            f"{known}{null}."
            + (f" Hint: did you mean {hint[0]!r}?" if hint else " Hint: map the labels to the known ones.")
        )
        raise InvalidDataError(msg)
    if not grades:
        nulls = df.with_row_index("__row").filter(col.is_null())
        if nulls.height:
            r = nulls.row(0, named=True)
            msg = (
                f"The {table.name} column {table.columns[role]!r} has {nulls.height} null label(s), first "
                "at row "
                f"{r['__row']} ({describe_row(table, r, keys)}). Hint: drop the row or give it a label."
            )
            raise InvalidDataError(msg)
    value = text.replace_strict(dict(scale), default=None, return_dtype=pl.Float64)
    return df.with_columns(value.alias(role))


def refuse_duplicates(table: Table, df: pl.DataFrame, keys: Sequence[str], what: str, value: str) -> None:
    """One row per ``keys``: a repeated key raises, saying whether its values differ."""
    dup = df.group_by(keys).agg(pl.len().alias("__n"), pl.col(value).n_unique().alias("__values"))
    dup = dup.filter(pl.col("__n") > 1)
    if not dup.height:
        return
    r = dup.sort(keys).row(0, named=True)
    differ = "with different values" if r["__values"] > 1 else "twice with the same value"
    msg = (
        f"The {table.name} frame has {dup.height} {what} given more than once: "
        f"{describe_row(table, r, keys)} "
        f"appears {r['__n']} times ({differ}). Hint: keep one row per "
        f"({', '.join(table.columns[k] for k in keys)}); with several judges, name them in a "
        f"{table.columns.get('judge', 'judge')!r} column."
    )
    raise DuplicateRowsError(msg)


def check_empty(empty: object, where: str) -> None:
    """``empty=``: what a 0/0 score is (``"zero"`` or ``"null"``)."""
    if empty not in ("zero", "null"):
        raise InvalidParameterError.for_value("empty", where, "one of 'zero', 'null'", empty)


def ratio(num: pl.Expr, den: pl.Expr, empty: Empty) -> pl.Expr:
    """``num / den``, and for ``den == 0``: 0.0 (``empty="zero"``) or null."""
    fallback = pl.lit(0.0) if empty == "zero" else pl.lit(None, pl.Float64)
    return pl.when(den > 0).then(num / den).otherwise(fallback)
