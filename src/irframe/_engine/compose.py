"""One evaluation, composed: the main plan, the tie-aware and diversity measures, the weights.

Every path that evaluates a run composes it here, once:

- :func:`evaluate`, a whole run in process (the in-process backend, ``check``,
  ``compare``): the query attributes joined on, the main plan collected (in query buckets
  when large), the measures computed beside it joined on, the queries' weights attached;
- :func:`evaluate_part`, one partition of whole queries (:func:`irframe.partition.evaluate_partition`,
  which the out-of-core, Dask and Spark backends call on every partition): the same
  steps but the attributes and the weights, which their skeleton joins
  (:mod:`irframe._backends.skeleton`: the weights table is built once, where the
  evaluation runs, by the same rule, :func:`irframe._input.weights.weights_for`);
- :func:`plan`, the same composition on the inputs' schemas only (what the partitioned
  backends validate and size before any row moves).

The composition (:func:`split`, then :func:`attach`): the measures are parsed once and
split into what the main plan computes (the registry's engine measures, and the helpers
the others need: ``NumRel`` and ``IDCG`` for tie-aware R, AP and nDCG) and the measures
computed beside it (:mod:`~irframe._engine.ties` for ``ties=`` other than ``"docid"``,
:mod:`~irframe._engine.diversity` for the diversity families on subtopic qrels), whose
columns are then joined onto the main plan's per-query table by the query keys.  Every
measure is defined once, in the registry (:mod:`irframe.measures`); the rules for
missing and unjudged queries, ``by=``, the input checks and the means are the main
plan's.  Each step reads only the rows of the queries it evaluates: a partition holding
whole queries and their judgments gives the rows the whole run gives.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, NamedTuple

import polars as pl

from irframe._engine import diversity, ties
from irframe._engine.buckets import collect_in_memory, run_input
from irframe._engine.checks import checked
from irframe._engine.compiler import N_ROWS
from irframe._engine.entry import build
from irframe._engine.facts import log_plan, log_rules
from irframe._engine.plan import Plan
from irframe._engine.repeats import kept_every_row, roles, warn_dropped
from irframe._input import weights
from irframe._input.frames import Origin, in_memory_rows, to_lazy
from irframe._input.options import Options
from irframe._input.queries import with_query_attributes
from irframe.measures._parse import Measures, Parsed, parse_measures
from irframe.progress import Progress

__all__ = ["Composed", "Parts", "attach", "evaluate", "evaluate_part", "plan", "split"]


@dataclass(frozen=True)
class Parts:
    """What the main plan computes, and what is computed beside it and joined on."""

    main: Parsed  # the main plan's measures
    qrels: Any  # the qrels the main plan reads
    opts: Options  # the main plan's options (ties="docid": the tie-aware values are beside it)
    given: Options  # the caller's options
    tied: ties.Split | None
    div: diversity.Split | None

    def read(self, plan: Plan) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The run's and the qrels' columns read: the main plan's, and the subtopics."""
        if self.div is None or not plan.read[1]:
            return plan.read
        sub = self.given.qrels_subtopic_col
        return plan.read[0], (*plan.read[1], *((sub,) if sub not in plan.read[1] else ()))


def split(measures: Measures, qrels: Any, opts: Options, run_names: list[str]) -> Parts:
    """The measures, parsed once, set apart: the tie-aware and the diversity ones."""
    main = parsed = parse_measures(measures)
    tied = ties.split(parsed, opts)
    given = opts
    if tied is not None:
        main, opts = tied.main, replace(opts, ties="docid")
    div = diversity.split(main, qrels, opts, run_names)
    if div is not None:
        main, qrels = div.main, div.qrels
    return Parts(main, qrels, opts, given, tied, div)


def attach(parts: Parts, plan: Plan, table: pl.LazyFrame, run: pl.LazyFrame) -> tuple[Plan, pl.LazyFrame]:
    """The main plan's per-query table with the measures computed beside it joined on
    (lazily: computed when the table is collected, after the main plan's input checks)."""
    if parts.div is not None:
        plan, table = diversity.attach(plan, table, parts.div, run, parts.opts)
    if parts.tied is not None:
        plan, table = ties.attach(plan, table, parts.tied, parts.given)
    return plan, table


class Composed(NamedTuple):
    """An evaluation: its plan, the per-query table with flags (lazy for a lazy run), and
    the run's origin (to give the caller's type back)."""

    plan: Plan
    table: pl.LazyFrame | pl.DataFrame
    origin: Origin


def evaluate(
    run: Any, measures: Measures, qrels: Any, opts: Options, *, queries: Any = None, progress: Progress = None
) -> Composed:
    """A whole run evaluated in process: the plan and its per-query table with flags,
    collected once (lazy for a lazy run).

    A pandas or pyarrow run evaluated in query buckets is converted a bucket at a time
    (:func:`irframe._input.frames.in_memory_rows`), unless query attributes are joined onto it.
    ``progress``: the steps of :func:`irframe._engine.collect_in_memory` (a lazy run is
    computed when collected: no step).  With ``opts.weights``, the table holds each query's
    weight (:data:`irframe._input.weights.WEIGHT`).
    """
    run_lf, origin, rows, n_rows = run_input(run)
    given_qrels = qrels
    if opts.by:
        run_lf, qrels, opts, same_run = _with_attributes(run_lf, qrels, queries, opts, rows is not None)
        if not same_run:
            rows = None  # (the joined run is converted whole, once)
    parts = split(measures, qrels, opts, run_lf.collect_schema().names())
    main_opts = parts.opts
    if n_rows is None:  # a LazyFrame: the plan stays lazy
        main = build(run_lf, parts.main, parts.qrels, main_opts)
        log_plan(main, None, 1)
        table: pl.LazyFrame | pl.DataFrame = checked(main)
    else:
        main, table = collect_in_memory(
            run_lf, parts.main, parts.qrels, main_opts, n_rows=n_rows, rows=rows, progress=progress
        )
    log_rules(main, main_opts, run_lf, n_rows)
    if main_opts.duplicates == "first" and n_rows is not None:  # (a lazy run: counted at INFO)
        known = main.repeats
        if known is None and main_opts.depth is None and isinstance(table, pl.DataFrame):  # none dropped?
            known = kept_every_row(table.get_column(N_ROWS), n_rows)
        warn_dropped(run_lf, main.cols.keys, main.cols.doc, roles(main.cols), repeats=known)
    composed, table = attach(parts, main, table.lazy(), run_lf) if _beside(parts) else (main, table)
    if opts.weights is not None:
        found = weights.weights_for(run_lf, given_qrels, queries, opts)
        table = weights.attach(table, composed.cols.query, found)
    return Composed(composed, table, origin)


def _beside(parts: Parts) -> bool:
    return parts.div is not None or parts.tied is not None


def evaluate_part(
    run: Any, measures: Measures, qrels: Any, opts: Options, *, partition_values: pl.LazyFrame | None
) -> tuple[Plan, pl.DataFrame]:
    """One partition holding whole queries (and their judgments): the plan and its
    per-query table with flags, collected (see :func:`irframe.partition.evaluate_partition`)."""
    run_lf, _, rows, n_rows = run_input(run, count_lazy=True)
    parts = split(measures, qrels, opts, run_lf.collect_schema().names())
    main, df = collect_in_memory(
        run_lf, parts.main, parts.qrels, parts.opts, n_rows=n_rows or 0, rows=rows,
        partition_values=partition_values, allow_empty=True,
    )  # fmt: skip
    if not _beside(parts):
        return main, df
    composed, table = attach(parts, main, df.lazy(), run_lf)
    return composed, table.collect()


def plan(
    run: pl.LazyFrame, measures: Measures, qrels: pl.LazyFrame | None, opts: Options, *,
    partition_values: pl.LazyFrame | None = None,
) -> Plan:  # fmt: skip
    """The composed plan on these (empty, or not collected) frames: every measure, option
    and column validated, nothing read.  Its ``frame`` has the columns of the per-query
    table; its ``read``, the columns every step reads (the subtopics too)."""
    parts = split(measures, qrels, opts, run.collect_schema().names())
    main = build(
        run, parts.main, parts.qrels, parts.opts, partition_values=partition_values, allow_empty=True
    )
    if not _beside(parts):
        return main
    composed, frame = attach(parts, main, main.frame.lazy(), run)
    return replace(composed, frame=frame, read=parts.read(main))


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
