"""Compare systems against a baseline: paired tests, corrections, CIs, and the queries that moved.

The package is split by job: :mod:`.pairing` stacks the runs and pairs them per query,
:mod:`.table` runs the tests and the correction, :mod:`.report` holds the
:class:`ComparisonReport` model (shared with the CLI; its renderings are
:mod:`irframe._report.compare`'s), and :mod:`.movers` lists the queries that moved.

Its steps are also the golden-set gate's (:func:`irframe.check`), written once: per-query
values computed elsewhere (a snapshot's) enter as a long table (:func:`long_values`), next
to evaluated runs; :func:`pair_values` pairs them (ties under :data:`TIE_TOLERANCE`),
:func:`group_pairs` groups the pairs (overall or per ``by`` group), :func:`compare_one`
computes one comparison's statistics with compare's :class:`Settings`, and
:func:`correct_family` corrects the p-values over a family; :func:`check_shared_queries`
refuses two systems that share no judged query and :func:`top_documents` lists a run's top
documents with their grades.

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

from irframe._compare.movers import moved, moved_frame, top_documents
from irframe._compare.pairing import (
    LONG,
    TIE_TOLERANCE,
    MeasureLike,
    check_missing,
    check_shared_queries,
    long_values,
    pair_values,
    system_means,
    system_names,
)
from irframe._compare.report import ComparisonReport
from irframe._compare.table import (
    DEFAULT_MEASURES,
    Settings,
    check_choice,
    compare,
    compare_one,
    compare_report,
    correct_family,
    group_pairs,
)

__all__ = [
    "DEFAULT_MEASURES",
    "LONG",
    "TIE_TOLERANCE",
    "ComparisonReport",
    "MeasureLike",
    "Settings",
    "check_choice",
    "check_missing",
    "check_shared_queries",
    "compare",
    "compare_one",
    "compare_report",
    "correct_family",
    "group_pairs",
    "long_values",
    "moved",
    "moved_frame",
    "pair_values",
    "system_means",
    "system_names",
    "top_documents",
]
