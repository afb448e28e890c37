"""Compare systems against a baseline: paired tests, corrections, CIs, and the queries that moved.

The package is split by job: :mod:`.pairing` stacks the runs and pairs them per query,
:mod:`.table` runs the tests and the correction, :mod:`.report` holds the
:class:`ComparisonReport` model (shared with the CLI) and its renderings, and :mod:`.movers`
lists the queries that moved.

Everything is built on :func:`irframe.evaluate` (``per_query=True``) and the plain numpy
statistics of :mod:`irframe.stats`.  Runs are given as a ``{name: frame}`` mapping or as
one stacked frame with a system column; results come back in the caller's frame type.

Which queries are compared
--------------------------
For every (system, measure[, group]) the baseline and the system are paired on the
queries that have a value for both under the same ``missing`` rule: with
``missing="zero"`` (default) judged queries absent from a run count as 0 for that run,
with ``missing="drop"`` they are left out (and so the pair is left out); queries that
are in a run but have no judgments (null values) never count.  Deltas smaller than
``1e-12`` in absolute value are float noise and count as ties (zero).  Two systems
that share no judged query (no query id in both runs and in the qrels) cannot be
paired: compare and moved raise an error naming them, whatever ``missing`` says.

Multiple testing
----------------
The correction family is the whole table: every non-baseline system x every measure x
every ``by`` group (with ``pairs="all"``: every pair of systems x every measure x every
group).  Its size is in the ``family_size`` column and in the report text.

Examples
--------
>>> import polars as pl, irframe
>>> from irframe._compare import compare
>>> qrels = pl.DataFrame({"query_id": ["q1", "q2", "q3", "q4"],
...                       "doc_id": ["a", "b", "c", "d"], "relevance": [1, 1, 1, 1]})
>>> def run(first):  # the relevant document at rank 1 for the queries in `first`
...     q = ["q1", "q2", "q3", "q4"]
...     return pl.DataFrame({"query_id": q * 2,
...                          "doc_id": [*"abcd", *"xyzw"],
...                          "rank": [1 if x in first else 2 for x in q]
...                                + [2 if x in first else 1 for x in q]})
>>> runs = {"bm25": run({"q1"}), "dense": run({"q1", "q2", "q3"})}
>>> t = compare(runs, qrels, ["RR"], baseline="bm25")
>>> t.select("system", "measure", "mean", "baseline_mean", "delta", "wins", "ties", "losses")
shape: (1, 8)
┌────────┬─────────┬───────┬───────────────┬───────┬──────┬──────┬────────┐
│ system ┆ measure ┆ mean  ┆ baseline_mean ┆ delta ┆ wins ┆ ties ┆ losses │
│ ---    ┆ ---     ┆ ---   ┆ ---           ┆ ---   ┆ ---  ┆ ---  ┆ ---    │
│ str    ┆ str     ┆ f64   ┆ f64           ┆ f64   ┆ i64  ┆ i64  ┆ i64    │
╞════════╪═════════╪═══════╪═══════════════╪═══════╪══════╪══════╪════════╡
│ dense  ┆ RR      ┆ 0.875 ┆ 0.625         ┆ 0.25  ┆ 2    ┆ 2    ┆ 0      │
└────────┴─────────┴───────┴───────────────┴───────┴──────┴──────┴────────┘
"""

from __future__ import annotations

from irframe._compare.movers import moved, moved_frame
from irframe._compare.pairing import TIE_TOLERANCE, MeasureLike, system_means, system_names
from irframe._compare.report import ComparisonReport
from irframe._compare.table import DEFAULT_MEASURES, compare, compare_report

__all__ = [
    "DEFAULT_MEASURES",
    "TIE_TOLERANCE",
    "ComparisonReport",
    "MeasureLike",
    "compare",
    "compare_report",
    "moved",
    "moved_frame",
    "system_means",
    "system_names",
]
