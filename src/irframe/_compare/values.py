"""Per-query values computed elsewhere, as compare's and check's input.

A table of per-query values (``system``, ``query_id``, one numeric column per measure:
answer measures from :mod:`irframe.answers`, an ``evaluate(per_query=True)`` output, any
score a user computes) enters compare where evaluated runs do: as compare's long table.
From there the pairing, the paired tests, the correction, the groups (``by=``), the
moved queries and check's gate are the ones runs get.

The rule that tells the two inputs apart is written once, in :func:`value_labels`: a
frame without the document column whose columns include every measure asked for holds
per-query values; a run always has a document column.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import polars as pl

from irframe._input.keys import MEASURE, SYSTEM, VALUE
from irframe._input.options import Options
from irframe.exceptions import (
    ColumnNotFoundError,
    DuplicateRowsError,
    InvalidDataError,
    InvalidParameterError,
)
from irframe.measures import Measure

__all__ = ["refuse_run_options", "value_labels", "values_long"]


def value_labels(schema: pl.Schema, measures: Any, opts: Options, where: str) -> list[str] | None:
    """The measure columns when ``schema`` is a table of per-query values, else None (runs).

    Per-query values: no document column (``opts.doc_col``) and at least one measure asked
    for is a column; then every measure must be a numeric column (did-you-mean otherwise).

    Examples
    --------
    >>> schema = pl.Schema({"system": pl.String, "query_id": pl.String, "V": pl.Float64})
    >>> value_labels(schema, ["V"], Options(), "compare")
    ['V']
    >>> value_labels(pl.Schema({"query_id": pl.String, "doc_id": pl.String}), ["V"], Options(), "compare")
    """
    if opts.doc_col in schema:
        return None
    asked = _asked(measures)
    if not any(m in schema for m in asked):
        return None
    absent = [m for m in asked if m not in schema]
    if absent:
        err = ColumnNotFoundError.from_missing(
            role=absent[0],
            missing=absent[0],
            available=list(schema),
            frame="per-query values",
            parameter="measures",
        )
        msg = (
            f"{where} reads the frame as per-query values (it has no document column {opts.doc_col!r} and "
            f"has columns for {', '.join(m for m in asked if m in schema)}), but it has no column for "
            f"{', '.join(map(repr, absent))}. {str(err).split(chr(10), 1)[-1]}"
        )
        raise ColumnNotFoundError(msg)
    bad = [m for m in asked if not (schema[m].is_numeric() or schema[m] == pl.Null)]
    if bad:
        msg = (
            f"The per-query value column(s) {', '.join(map(repr, bad))} of {where} must be numeric; got "
            f"{', '.join(str(schema[m]) for m in bad)}. Hint: cast them, e.g. "
            f"pl.col({bad[0]!r}).cast(pl.Float64)."
        )
        raise InvalidDataError(msg)
    return asked


def _asked(measures: Any) -> list[str]:
    items: Iterable[Any] = [measures] if isinstance(measures, str | Measure) else measures
    return list(dict.fromkeys(str(m) for m in items))


def refuse_run_options(where: str, **given: Any) -> None:
    """Options that read documents or judgments have no meaning for per-query values."""
    for name, value in given.items():
        if not (value is None or value is False or (isinstance(value, str) and value == "ignore")):
            msg = (
                f"{where}: {name}= reads the runs' documents or the judgments, and per-query values have "
                f"neither (got {name}={value!r}). Hint: leave {name} out, or pass the runs themselves."
            )
            raise InvalidParameterError(msg)


def values_long(
    lf: pl.LazyFrame, labels: Sequence[str], by: Sequence[str], query_col: str, where: str
) -> pl.DataFrame:
    """The values as compare's long table ``[SYSTEM, *by, query, MEASURE, VALUE]`` (the
    query id as text; a null value is no value: that query is not paired); a query given
    twice for one system, a null query id or a NaN value is refused, naming it."""
    schema = lf.collect_schema()
    for col in [query_col, *by]:
        if col not in schema:
            raise ColumnNotFoundError.from_missing(
                role="query_id" if col == query_col else col, missing=col, available=list(schema),
                frame="per-query values", parameter="query_col" if col == query_col else "by",
            )  # fmt: skip
    df = lf.select(
        SYSTEM, *by, pl.col(query_col).cast(pl.String), *(pl.col(m).cast(pl.Float64) for m in labels)
    ).collect()
    null_q = df.filter(pl.col(query_col).is_null())
    if null_q.height:
        msg = (
            f"The per-query values of {where} have {null_q.height} row(s) with a null {query_col!r}. "
            "Hint: drop them."
        )
        raise InvalidDataError(msg)
    nan = df.filter(pl.any_horizontal(pl.col(m).is_nan() for m in labels))
    if nan.height:
        r = nan.row(0, named=True)
        msg = (
            f"The per-query values of {where} have {nan.height} row(s) with a NaN value, e.g. {query_col} "
            f"{r[query_col]!r}. Hint: a query without a value has a null (it is not paired); "
            "replace NaN by null."
        )
        raise InvalidDataError(msg)
    dup = df.group_by(SYSTEM, query_col).len().filter(pl.col("len") > 1)
    if dup.height:
        r = dup.sort(SYSTEM, query_col).row(0, named=True)
        msg = (
            f"The per-query values of {where} give {dup.height} (system, query) more than once: system "
            f"{r[SYSTEM]!r}, {query_col} {r[query_col]!r} has {r['len']} rows. Hint: one row per system and "
            "query (a by= column is a query attribute, one value per query)."
        )
        raise DuplicateRowsError(msg)
    return df.unpivot(
        index=[SYSTEM, *by, query_col], on=list(labels), variable_name=MEASURE, value_name=VALUE
    )
