"""What an in-process evaluation did, for the ``irframe.engine`` logger (:mod:`irframe._log`).

The sizes, the executor and the buckets at INFO; the queries a documented rule leaves out
(judged queries missing from the run, run queries without judgments) at INFO from the
counts the input checks compute anyway; the rows ``depth`` cuts and the repeats
``duplicates="first"`` drops at INFO, counted only when INFO is enabled.  Nothing here
costs a small evaluation anything while the logger is off.
"""

from __future__ import annotations

from collections.abc import Mapping

import polars as pl

from irframe._engine.plan import Plan, dup_probe
from irframe._input.options import Options
from irframe._log import DEBUG, INFO, engine

__all__ = ["log_plan", "log_queries", "log_rules"]

_MISSING = {"zero": "scored 0", "drop": "left out", "error": "an error"}


def log_plan(plan: Plan, n_rows: int | None, buckets: int) -> None:
    """INFO: the run's size, the measures, the executor and the passes.

    Examples
    --------
    >>> import logging
    >>> logging.getLogger("irframe.engine").isEnabledFor(logging.INFO)  # (off by default)
    False
    """
    if not engine.isEnabledFor(INFO):
        return
    rows = "a LazyFrame run" if n_rows is None else f"{n_rows:,} run rows"
    passes = "in one pass" if buckets == 1 else f"in {buckets} buckets of whole queries"
    engine.info(
        "evaluating %s, %d measures (%s): executor %r, %s",
        rows, len(plan.measures), ", ".join(plan.labels[:5]) + ("..." if len(plan.labels) > 5 else ""),
        plan.executor, passes,
    )  # fmt: skip


def log_queries(plan: Plan, flags: Mapping[str, int]) -> None:
    """INFO (DEBUG for one partition of a larger run): the queries evaluated and those a
    rule left out, from the input checks' counts (``flags``: see
    :func:`irframe._engine.checks.check`)."""
    level = INFO if not plan.allow_empty else DEBUG
    if not engine.isEnabledFor(level):
        return
    grades = "qrels" if plan.has_qrels else "the run's grades"
    engine.log(
        level,
        "%d queries in the run, %d judged (%s); left out of the means: %d run queries without "
        "judgments (null values), %d judged queries missing from the run (missing=%r: %s)",
        flags["in_run"], flags["judged"], grades, flags["n_unjudged"], flags["n_missing"],
        plan.missing, _MISSING.get(plan.missing, plan.missing),
    )  # fmt: skip


def log_rules(plan: Plan, opts: Options, run: pl.LazyFrame, n_rows: int | None) -> None:
    """INFO: the run rows ``depth`` cut and the repeated documents ``duplicates="first"``
    dropped (counted here, only when INFO is enabled: one pass over the run)."""
    if not engine.isEnabledFor(INFO) or (opts.depth is None and opts.duplicates != "first"):
        return
    keys = [*plan.cols.keys, plan.cols.doc]
    kept = plan.run.select(pl.len().alias("n"), dup_probe(keys).alias("repeats"))
    total = run.select(pl.len()) if n_rows is None else pl.LazyFrame({"len": [n_rows]})
    counts, given = pl.collect_all([kept, total])
    n_kept, repeats, n_given = int(counts.item(0, "n")), int(counts.item(0, "repeats")), int(given.item())
    if opts.depth is not None:
        also = (
            " (and the repeated documents above it: duplicates='first')" if opts.duplicates == "first" else ""
        )
        engine.info(
            "depth=%d: %d of %d run rows below the depth left out%s",
            opts.depth,
            n_given - n_kept,
            n_given,
            also,
        )
    elif repeats:
        engine.info(
            "duplicates='first': %d repeated (%s) rows left out, the best-ranked of each kept",
            repeats, ", ".join(keys),
        )  # fmt: skip
