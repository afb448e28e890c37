"""The in-process backend: pandas, polars (eager or lazy) in, the same type out."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import polars as pl

from irframe import _engine as engine
from irframe._engine import diversity, ties
from irframe._engine.compiler import N_ROWS
from irframe._engine.facts import log_plan, log_rules
from irframe._engine.repeats import kept_every_row, roles, warn_dropped
from irframe._input import weights
from irframe._input.frames import Origin, from_lazy, in_memory_rows, to_lazy
from irframe._input.options import Options
from irframe._input.queries import with_query_attributes
from irframe.progress import Progress

__all__ = ["evaluate_options", "evaluate_pair"]


def _evaluated(
    run: Any, measures: Any, qrels: Any, opts: Options, queries: Any, *, progress: Progress = None
) -> tuple[engine.Plan, pl.LazyFrame | pl.DataFrame, Origin]:
    """The plan and its per-query table with flags: collected once (lazy for a lazy run).

    A pandas or pyarrow run evaluated in query buckets is converted a bucket at a time
    (:func:`irframe._input.frames.in_memory_rows`), unless query attributes are joined onto it.
    ``progress``: the steps of :func:`irframe._engine.collect_in_memory` (a lazy run is
    computed when collected: no step).
    """
    run_lf, origin, rows, n_rows = engine.run_input(run)
    given_qrels = qrels
    if opts.by:
        run_lf, qrels, opts, same_run = _with_attributes(run_lf, qrels, queries, opts, rows is not None)
        if not same_run:
            rows = None  # (the joined run is converted whole, once)
    # tie-aware values (ties=) and the diversity measures are computed apart, and joined
    # onto the main plan's table
    tied = ties.split(measures, opts)
    given = opts
    if tied is not None:
        measures, opts = tied.main, replace(opts, ties="docid")
    div = diversity.split(measures, qrels, opts, run_lf.collect_schema().names())
    if div is not None:
        measures, qrels = div.main, div.qrels
    if n_rows is None:  # a LazyFrame: the plan stays lazy
        plan = engine.build(run_lf, measures, qrels, opts)
        log_plan(plan, None, 1)
        table: pl.LazyFrame | pl.DataFrame = engine.checked(plan)
    else:
        plan, table = engine.collect_in_memory(
            run_lf, measures, qrels, opts, n_rows=n_rows, rows=rows, progress=progress
        )
    log_rules(plan, opts, run_lf, n_rows)
    if opts.duplicates == "first" and n_rows is not None:  # (a lazy run: counted at INFO)
        known = plan.repeats
        if known is None and opts.depth is None and isinstance(table, pl.DataFrame):  # none dropped?
            known = kept_every_row(table.get_column(N_ROWS), n_rows)
        warn_dropped(run_lf, plan.cols.keys, plan.cols.doc, roles(plan.cols), repeats=known)
    if div is not None:
        plan, table = diversity.attach(plan, table.lazy(), div, run_lf, opts)
    if tied is not None:
        plan, table = ties.attach(plan, table.lazy(), tied, given)
    if opts.weights is not None:
        found = weights.weights_for(run_lf, given_qrels, queries, opts)
        table = weights.attach(table, plan.cols.query, found)
    return plan, table, origin


def _with_attributes(
    run_lf: pl.LazyFrame, qrels: Any, queries: Any, opts: Options, bucketed: bool
) -> tuple[pl.LazyFrame, Any, Options, bool]:  # fmt: skip
    """The ``by`` columns the run lacks copied onto run and qrels (see
    :func:`~irframe._input.queries.with_query_attributes`), the options with the detected
    column convention, and whether the run came back as it was given.

    For a run converted by buckets (``bucketed``), pandas or Arrow qrels are read lazily
    (converted only if an attribute is read from them) and come back as given when
    nothing was joined onto them: the buckets convert them by parts too.
    """
    found = None if qrels is None or not bucketed else in_memory_rows(qrels, "qrels")
    qrels_lf = None if qrels is None else found[0].lazy() if found else to_lazy(qrels, "qrels")[0]
    qnames = None if qrels_lf is None else qrels_lf.collect_schema().names()
    opts = opts.detect(list(run_lf.collect_schema()), qrels_schema=qnames)
    run_out, qrels_out = with_query_attributes(run_lf, qrels_lf, queries, opts)
    if found is not None and qrels_out is qrels_lf:
        qrels_out = qrels
    return run_out, qrels_out, opts, run_out is run_lf


def evaluate_options(
    run: Any, measures: Any, qrels: Any, opts: Options, per_query: bool, *, queries: Any = None,
    progress: Progress = None,
) -> Any:  # fmt: skip
    """Evaluate a pandas or polars frame with validated options (see ``irframe.evaluate``)."""
    plan, table, origin = _evaluated(run, measures, qrels, opts, queries, progress=progress)
    return from_lazy(_result(plan, table, opts, per_query), origin)


def _result(plan: engine.Plan, table: pl.LazyFrame | pl.DataFrame, opts: Options, per_query: bool) -> Any:
    """The per-query table (with the weights column, when weighted) or the means."""
    if not per_query:
        return engine.summary(plan, table)
    out = engine.per_query_table(plan, table)
    return out if opts.weights is None else out.rename({weights.WEIGHT: opts.weights})


def evaluate_pair(
    run: Any,
    measures: Any,
    qrels: Any = None,
    *,
    queries: Any = None,
    progress: Progress = None,
    **options: Any,
) -> tuple[Any, Any]:
    """``irframe.evaluate(..., per_query=True)`` and ``irframe.evaluate(...)`` (the means)
    of a run evaluated in process (pandas, polars), from one pass of the engine: the
    one-pass code under :func:`irframe.functions.evaluate_both` (which evaluates other
    backends' runs twice).

    ``options`` are ``evaluate``'s keyword options (``by``, ``missing``, ``columns``...);
    ``progress`` as for ``evaluate``.  A lazy run gives two lazy frames (each collects
    its own pass, as ``evaluate`` does).

    Examples
    --------
    >>> import polars as pl
    >>> run = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "a"],
    ...                     "rank": [1, 2, 1], "relevance": [0, 1, 1]})
    >>> per_query, means = evaluate_pair(run, ["RR"])
    >>> per_query["RR"].to_list(), means["RR"].item()
    ([0.5, 1.0], 0.75)
    """
    opts = Options.build(**options)
    plan, table, origin = _evaluated(run, measures, qrels, opts, queries, progress=progress)
    per_query = from_lazy(engine.per_query_table(plan, table), origin)
    return per_query, from_lazy(engine.summary(plan, table), origin)
