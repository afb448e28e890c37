"""The in-process backend: pandas, polars (eager or lazy) in, the same type out.

The evaluation is composed by :func:`irframe._engine.compose.evaluate` (the main plan,
the tie-aware and diversity measures, the weights), as for ``check`` and ``compare``.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from irframe import _engine as engine
from irframe._engine import compose
from irframe._input import weights
from irframe._input.frames import from_lazy
from irframe._input.options import Options
from irframe.progress import Progress

__all__ = ["evaluate_options", "evaluate_pair"]


def evaluate_options(
    run: Any, measures: Any, qrels: Any, opts: Options, per_query: bool, *, queries: Any = None,
    progress: Progress = None,
) -> Any:  # fmt: skip
    """Evaluate a pandas or polars frame with validated options (see ``irframe.evaluate``)."""
    plan, table, origin = compose.evaluate(run, measures, qrels, opts, queries=queries, progress=progress)
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
    plan, table, origin = compose.evaluate(run, measures, qrels, opts, queries=queries, progress=progress)
    per_query = from_lazy(engine.per_query_table(plan, table), origin)
    return per_query, from_lazy(engine.summary(plan, table), origin)
