"""The in-process backend: pandas, polars (eager or lazy) in, the same type out."""

from __future__ import annotations

from typing import Any

from irframe import engine
from irframe._frames import from_lazy, to_lazy
from irframe._options import Options

__all__ = ["evaluate_options"]


def evaluate_options(run: Any, measures: Any, qrels: Any, opts: Options, per_query: bool) -> Any:
    """Evaluate a pandas or polars frame with validated options (see ``irframe.evaluate``)."""
    run_lf, origin = to_lazy(run, "run")
    lazy = origin.kind == "polars-lazy"
    plan = engine.build(run_lf, measures, qrels, opts, detect_order=not lazy)
    if lazy:
        table = engine.checked(plan)
    else:
        plan, collected = engine.collect(plan)
        table = collected.lazy()
    result = engine.per_query_table(plan, table) if per_query else engine.summarize(plan, table)
    return from_lazy(result, origin)
