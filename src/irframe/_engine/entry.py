"""The engine's entry point: validated options + frames -> a plan (no data is read)."""

from __future__ import annotations

from typing import Any

import polars as pl

from irframe._engine.aggregate import COUNTS
from irframe._engine.plan import Plan
from irframe._engine.strategy import build_plan
from irframe._input.columns import RunColumns, resolve_qrels, resolve_run
from irframe._input.frames import to_lazy
from irframe._input.options import PRESETS, Options
from irframe.exceptions import ColumnNotFoundError, InvalidParameterError
from irframe.measures import parse_measures
from irframe.measures._conventions import warn_conventions
from irframe.measures._parse import Measures

__all__ = ["build", "check_output_names"]


def _resolve(schema: pl.Schema, opts: Options, *, need_relevance: bool) -> RunColumns:
    """The run's columns; a missing one hints at the column convention that fits, if any."""
    try:
        return resolve_run(
            schema,
            query_col=opts.query_col,
            doc_col=opts.doc_col,
            rank_col=opts.rank_col,
            score_col=opts.score_col,
            relevance_col=opts.relevance_col,
            by=list(opts.by),
            need_relevance=need_relevance,
            order_rule=opts.order,
        )
    except ColumnNotFoundError as exc:
        fits = [n for n, p in PRESETS.items() if p.get("query_col") in schema or p.get("doc_col") in schema]
        if not fits or opts.columns is not None:
            raise
        msg = f"{exc} Or name the column convention: columns={fits[0]!r}."
        raise ColumnNotFoundError(msg) from None


def build(
    run_lf: pl.LazyFrame,
    measures: Measures,
    qrels: Any,
    opts: Options,
    *,
    partition_values: pl.LazyFrame | None = None,
    allow_empty: bool = False,
    detect_order: bool = False,
    n_rows: int | None = None,
) -> Plan:
    """Parse the measures, resolve the columns (a column convention is detected when the
    default names are absent), and build the engine's plan (``detect_order``: the run is
    in memory, of ``n_rows`` rows when known; see :mod:`~irframe._engine.strategy`)."""
    if opts.ties != "docid":  # (the tie-aware values are computed beside the plan)
        msg = f"irframe bug: build got ties={opts.ties!r}; compose the evaluation (irframe._engine.compose)"
        raise AssertionError(msg)
    parsed = parse_measures(measures)
    warn_conventions(m for _, m in parsed)  # nDCG's gain...: once per process per measure
    qrels_lf = None if qrels is None else to_lazy(qrels, "qrels")[0]
    qrels_names = None if qrels_lf is None else qrels_lf.collect_schema().names()
    opts = opts.detect(run_lf.collect_schema().names(), qrels_schema=qrels_names)
    check_output_names(opts, [label for label, _ in parsed])
    run_lf = _untyped_empty_ids(run_lf, (opts.query_col, opts.doc_col))
    cols = _resolve(run_lf.collect_schema(), opts, need_relevance=qrels is None)
    qrels_cols = None
    if qrels_lf is not None:
        q, d, r = opts.qrels_columns
        qrels_lf = _untyped_empty_ids(qrels_lf, (q, d))
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
        n_rows=n_rows,
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

    Float ids are refused (see :mod:`irframe._input.columns`), but a frame without rows (a
    filter that selected nothing) has no id to misread. Rows are counted only when an id
    column is float.
    """
    schema = lf.collect_schema()
    floats = [c for c in ids if c in schema and schema[c].is_float()]
    if floats and lf.head(1).collect().height == 0:
        return lf.with_columns(pl.col(floats).cast(pl.String))
    return lf
