"""What an ``irframe.expr`` expression checks by itself, with ``evaluate``'s rules.

An expression has no frame: it learns the dtypes and the values when the caller collects.
The checks are built into the expression :func:`irframe.expr.measures` returns:

* when polars resolves the plan (at no cost per row), the grade's dtype against THE grade
  rule (:data:`~irframe._input.columns.GRADE_DTYPES`: a string grade is refused, never
  parsed as a number), with ``evaluate``'s message (polars' ``StructFieldNotFoundError``
  whose text it is) (attached judgments lacking the constants of a measure: polars names
  the field, whose name says how to attach it: :func:`~irframe.expr._compile.key`);
* per query, a document twice in the ranking (``duplicates="error"``, evaluate's default)
  and an exp gain that overflows float64 (:func:`~irframe._engine.checks.gain_overflows`,
  evaluate's rule): polars cannot raise a Python error from inside a group at no cost, so
  these make polars' collect fail with an ``InvalidOperationError`` whose text is
  irframe's message and hint (``irframe.expr.validate`` raises evaluate's error, naming
  the query).
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl
import polars.selectors as cs

from irframe._engine.checks import GAIN_OVERFLOW_HINT, gain_overflows
from irframe._input.columns import GRADE_DTYPES, grade_dtype_error
from irframe.exceptions import InvalidParameterError

__all__ = ["doc_key", "duplicates_guard", "gain_guard", "graded", "lacking_constants_error"]


def graded(grade: str | pl.Expr) -> pl.Expr:
    """The grade as Float64 when its dtype follows THE grade rule, else a plan that fails
    with evaluate's message (the rule picks the column by dtype when polars resolves the
    plan, at no cost per row; a string grade is never parsed as a number).

    A column name is tested as a column; an expression (``pl.col("label") * 2``) is the
    caller's and is cast as it is.
    """
    if not isinstance(grade, str):
        return grade.cast(pl.Float64)
    message = str(grade_dtype_error("frame's", grade, "other than numeric")) + " (irframe.expr)"
    kept = (cs.by_name(grade) & GRADE_DTYPES).as_expr().cast(pl.Float64).name.map(lambda _: message)
    return pl.struct(pl.lit(None).alias("_"), kept).struct.field(message).alias(grade)


def lacking_constants_error(
    judgments: str, lacking: Sequence[str], labels: Sequence[str]
) -> InvalidParameterError:
    """The error for an attached column lacking the constants ``labels`` read."""
    shown = [k.split(" (", 1)[0] for k in lacking[:3]]
    msg = (
        f"The column {judgments!r} lacks the judgments' constants {shown} that {list(labels)} read: "
        "it was attached for other measures. Hint: irframe.expr.attach(run, qrels, measures) with "
        "every measure the expression asks."
    )
    return InvalidParameterError(msg)


def _fails_when(bad: pl.Expr, message: str) -> pl.Expr:
    """True per group, or polars' collect fails with ``message`` (a strict cast of it)."""
    return pl.when(bad).then(pl.lit(message)).otherwise(pl.lit("0")).cast(pl.Int8).eq(0)


def duplicates_guard(doc: str, where: str) -> pl.Expr:
    """Per query: a document twice in the ranking fails the collect (evaluate's default)."""
    message = (
        f"{where}: a document appears twice in one query's ranking ({doc!r}; duplicates='error', "
        "as irframe.evaluate). Hint: duplicates='first' keeps its best-ranked row (evaluate's "
        "duplicates='first'); irframe.expr.validate(frame, ...) names the query."
    )
    return _fails_when(doc_key(doc).is_duplicated().any(), message)


def doc_key(doc: str) -> pl.Expr:
    """The document id as a 64-bit hash: what the duplicate rules compare (hashing once is
    cheaper inside a group than comparing strings; evaluate's duplicate probe counts
    distinct key hashes too)."""
    return pl.col(doc).hash()


def gain_guard(grade: pl.Expr, labels: Sequence[str], where: str) -> pl.Expr:
    """Per query: grades whose exp gain overflows float64 fail the collect (evaluate's rule)."""
    measures = ", ".join(repr(label) for label in labels)
    message = (
        f"{where}: a query's grades are too large for the exp gain 2^grade - 1 of {measures} "
        f"(it overflows float64: 2^1024 is infinite), and the values would be NaN. {GAIN_OVERFLOW_HINT} "
        "irframe.expr.validate(frame, measures, ...) names the query."
    )
    return _fails_when(gain_overflows(grade.max(), grade.len()), message)
