"""The engine's entry point: validated options + frames -> a plan (no data is read)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import polars as pl

from irframe._columns import RunColumns, resolve_qrels, resolve_run
from irframe._frames import to_lazy
from irframe._options import PRESETS, Options
from irframe.engine._plan import Plan, build_plan
from irframe.exceptions import ColumnNotFoundError
from irframe.measures import Measure, parse_measures

__all__ = ["build"]


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
    measures: str | Measure | Iterable[str | Measure],
    qrels: Any,
    opts: Options,
    *,
    partition_values: pl.LazyFrame | None = None,
    allow_empty: bool = False,
    detect_order: bool = False,
) -> Plan:
    """Parse the measures, resolve the columns (a column convention is detected when the
    default names are absent), and build the engine's plan."""
    parsed = parse_measures(measures)
    schema = run_lf.collect_schema()
    qrels_lf = None if qrels is None else to_lazy(qrels, "qrels")[0]
    qrels_names = None if qrels_lf is None else qrels_lf.collect_schema().names()
    opts = opts.detect(list(schema), qrels_schema=qrels_names)
    cols = _resolve(schema, opts, need_relevance=qrels is None)
    qrels_cols = None
    if qrels_lf is not None:
        q, d, r = opts.qrels_columns
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
