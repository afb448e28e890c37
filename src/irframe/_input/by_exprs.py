"""``by=`` expressions: a polars expression grouping like a column, as in polars' ``group_by``.

``evaluate(run, ..., by=[pl.col("query_len") >= 5])``, ``compare`` and ``check`` accept
polars expressions among their ``by`` items.  Each is computed once, as a column named
by the expression's output name (``query_len`` here, as polars names that key; ``.alias``
names it otherwise), on every input frame that holds all the columns it reads: the
run(s), the qrels, the queries table.  After that it is a ``by`` column like any other,
with the rules of :mod:`irframe._input.queries`: computed from query attributes (a
queries table, the qrels) it is a query attribute; from the run's own columns it is
computed on the run.

The readings that are not guessed raise: an expression with no name (``pl.lit(1)``), one
whose name is a column the evaluation reads (``pl.col("score") > 0.5`` would replace the
score that ranks the documents: alias it), one whose name another frame already holds
for something else, one no frame can compute, and a frame polars cannot compute it on
(a dask or Spark frame, a path: add the column first).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import polars as pl

from irframe._input.frames import from_lazy, is_arrow_table, is_pandas_frame, to_lazy
from irframe._input.options import PRESETS, Options
from irframe.exceptions import ColumnNotFoundError, InvalidParameterError

__all__ = ["has_expressions", "protected_columns", "with_by_columns"]

ByArg = Any  # str | pl.Expr | Sequence[str | pl.Expr] | None


def has_expressions(by: ByArg) -> bool:
    """Whether ``by`` holds a polars expression (without importing polars when it cannot)."""
    if by is None or isinstance(by, str):
        return False
    items = [by] if isinstance(by, pl.Expr) else by
    return isinstance(items, Sequence) and any(isinstance(b, pl.Expr) for b in items)


def _columns(frame: Any) -> list[str]:
    if isinstance(frame, pl.DataFrame | pl.LazyFrame):
        return list(frame.collect_schema().names())
    if is_pandas_frame(frame):
        return [str(c) for c in frame.columns]
    if is_arrow_table(frame):
        return list(frame.column_names)
    return []


def _computable(frame: Any) -> bool:
    return isinstance(frame, pl.DataFrame | pl.LazyFrame) or is_pandas_frame(frame) or is_arrow_table(frame)


def protected_columns(options: Mapping[str, Any]) -> set[str]:
    """The columns an evaluation reads under ``options`` (``evaluate``'s keyword options)
    or any column convention: a ``by`` expression may not be named like one."""
    opts = Options.build(**{k: v for k, v in options.items() if k != "by"})
    names = {opts.query_col, opts.doc_col, opts.score_col, opts.relevance_col, *opts.qrels_columns}
    if opts.rank_col is not None:
        names.add(opts.rank_col)
    for preset in PRESETS.values():
        names.update(v for v in preset.values() if isinstance(v, str))
    return names


def _name(expr: pl.Expr, where: str) -> str:
    name = expr.meta.output_name(raise_if_undetermined=False)
    if not name or not expr.meta.root_names():
        msg = (
            f"The by expression {expr} of {where} reads no column or has no name. Hint: group by "
            "an expression over columns, named with .alias('segment') if needed."
        )
        raise InvalidParameterError(msg)
    return name


def with_by_columns(
    by: ByArg, frames: Mapping[str, Any], *, where: str, protected: set[str]
) -> tuple[list[str] | str | None, dict[str, Any]]:
    """``by`` with every expression replaced by its name, and ``frames`` (role -> frame or
    None) with the expressions' columns added where they can be computed.

    Examples
    --------
    >>> run = pl.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["a", "b"], "n_terms": [2, 7]})
    >>> by, out = with_by_columns([(pl.col("n_terms") >= 5).alias("long")], {"run": run, "qrels": None},
    ...                           where="evaluate", protected={"query_id", "doc_id"})
    >>> by, out["run"]["long"].to_list()
    (['long'], [False, True])
    """
    if not has_expressions(by):
        return by, dict(frames)
    items = [by] if isinstance(by, pl.Expr) else list(by)
    out = dict(frames)
    names: list[str] = []
    for item in items:
        if not isinstance(item, pl.Expr):
            names.append(item)
            continue
        name = _name(item, where)
        if name in protected:
            msg = (
                f"The by expression {item} of {where} is named {name!r}, a column the evaluation "
                f"reads (ids, ranking, grades). Hint: name it, e.g. ({item}).alias('segment')."
            )
            raise InvalidParameterError(msg)
        out = _computed(item, name, out, where)
        names.append(name)
    return names, out


def _computed(expr: pl.Expr, name: str, frames: dict[str, Any], where: str) -> dict[str, Any]:
    """``frames`` with the column ``name`` = ``expr`` on each frame that has its inputs."""
    roots = set(expr.meta.root_names())
    out = dict(frames)
    done = []
    for role, frame in frames.items():
        if frame is None:
            continue
        cols = set(_columns(frame))
        if roots <= cols:
            if not _computable(frame):
                msg = (
                    f"The by expression {expr} of {where} is computed by polars, and the {role} is a "
                    f"{type(frame).__name__}. Hint: add the column to the {role} first and pass its name."
                )
                raise InvalidParameterError(msg)
            lf, origin = to_lazy(frame, role)
            out[role] = from_lazy(lf.with_columns(expr.alias(name)), origin)
            done.append(role)
        elif name in cols:
            msg = (
                f"The by expression {expr} of {where} is named {name!r}, and the {role} has another "
                f"column {name!r} (it lacks the expression's inputs {sorted(roots - cols)}). "
                "Hint: name the expression otherwise with .alias(...)."
            )
            raise InvalidParameterError(msg)
    if not done:
        present = {role: _columns(f) for role, f in frames.items() if f is not None}
        msg = (
            f"The by expression {expr} of {where} reads {sorted(roots)}, which no input holds "
            f"entirely (columns: {present}). Hint: give a queries table (queries=...) with them."
        )
        raise ColumnNotFoundError(msg)
    return out
