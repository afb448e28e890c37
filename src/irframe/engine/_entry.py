"""The engine's entry point: validated options + frames -> a plan (no data is read)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import polars as pl

from irframe._columns import resolve_qrels, resolve_run
from irframe._frames import to_lazy
from irframe._options import Options
from irframe.engine._aggregate import COUNTS
from irframe.engine._plan import Plan, build_plan
from irframe.exceptions import InvalidParameterError
from irframe.measures import Measure, parse_measures

__all__ = ["build", "check_output_names"]


def build(
    run_lf: pl.LazyFrame,
    measures: str | Measure | Iterable[str | Measure],
    qrels: Any,
    opts: Options,
    *,
    partition_values: pl.LazyFrame | None = None,
    allow_empty: bool = False,
    detect_order: bool = False,
) -> Plan:
    """Parse the measures, resolve the columns, and build the engine's plan."""
    parsed = parse_measures(measures)
    check_output_names(opts, [label for label, _ in parsed])
    run_lf = _untyped_empty_ids(run_lf, (opts.query_col, opts.doc_col))
    cols = resolve_run(
        run_lf.collect_schema(),
        query_col=opts.query_col,
        doc_col=opts.doc_col,
        rank_col=opts.rank_col,
        score_col=opts.score_col,
        relevance_col=opts.relevance_col,
        by=list(opts.by),
        need_relevance=qrels is None,
    )
    qrels_lf: pl.LazyFrame | None = None
    qrels_cols = None
    if qrels is not None:
        q, d, r = opts.qrels_columns
        qrels_lf = _untyped_empty_ids(to_lazy(qrels, "qrels")[0], (q, d))
        qrels_cols = resolve_qrels(qrels_lf.collect_schema(), query_col=q, doc_col=d, relevance_col=r)
    return build_plan(
        run_lf,
        cols,
        parsed,
        qrels_lf,
        qrels_cols,
        opts=opts,
        partition_values=partition_values,
        allow_empty=allow_empty,
        detect_order=detect_order,
    )


def check_output_names(opts: Options, labels: list[str]) -> None:
    """The key columns (``by``, ``query_col``) become output columns next to the measures
    and the counts: a key named like one of them would make two columns of one name."""
    taken = {**dict.fromkeys(COUNTS, "the name of a count column of the means"),
             **{label: f"the output column of measure {label!r}" for label in labels}}  # fmt: skip
    for param, names in (("by", opts.by), ("query_col", (opts.query_col,))):
        for name in names:
            if name in taken:
                msg = (
                    f"The {param!r} parameter names column {name!r}, which is also {taken[name]}"
                    ": the result cannot hold both. Hint: rename the column first, "
                    f"e.g. df.rename({{{name!r}: '{name}_'}}), and pass {param}= the new name."
                )
                raise InvalidParameterError(msg)


def _untyped_empty_ids(lf: pl.LazyFrame, ids: tuple[str, ...]) -> pl.LazyFrame:
    """An empty frame's float id columns as strings: pandas gives empty lists float64.

    Float ids are refused (see :mod:`irframe._columns`), but a frame without rows (a
    filter that selected nothing) has no id to misread. Rows are counted only when an id
    column is float.
    """
    schema = lf.collect_schema()
    floats = [c for c in ids if c in schema and schema[c].is_float()]
    if floats and lf.head(1).collect().height == 0:
        return lf.with_columns(pl.col(floats).cast(pl.String))
    return lf
