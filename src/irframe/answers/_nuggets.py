"""Nugget scores of answers: V_strict, V, A_strict, A (nuggetizer's) and the weighted W.

The definitions, the defaults and where the public implementations depart are written
once, in :func:`nugget_scores`'s Notes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import polars as pl

from irframe._input.columns import natural_sorted
from irframe._input.frames import from_lazy
from irframe.answers._tables import (
    ASSIGNMENT_SCORES,
    IMPORTANCE_WEIGHTS,
    Empty,
    Table,
    check_empty,
    columns_arg,
    describe_row,
    labels_to_values,
    ratio,
    read_table,
    refuse_duplicates,
)
from irframe.exceptions import InvalidDataError, InvalidParameterError, MissingQueriesError

__all__ = ["NUGGET_MEASURES", "nugget_scores"]

_WHERE = "nugget_scores"
NUGGET_MEASURES = ("V_strict", "V", "A_strict", "A", "W")
_MISSING = ("zero", "drop", "error")


def nugget_scores(
    assignments: Any,
    nuggets: Any,
    per_query: bool = False,
    *,
    columns: str | Mapping[str, str] | None = None,
    missing: Literal["zero", "drop", "error"] = "zero",
    no_vital: Empty = "zero",
    no_nuggets: Literal["error", "drop"] = "error",
) -> Any:
    """Nugget scores of each system's answers (TREC 2024 RAG track; nuggetizer's four and W).

    Parameters
    ----------
    assignments : frame
        One row per (system, query, nugget) judged: ``system`` (optional: one system without
        it), ``query_id``, ``nugget_id``, ``assignment`` (``support``, ``partial_support`` or
        ``not_support``) and optionally ``judge`` (then every score is per judge too).
    nuggets : frame
        ``query_id``, ``nugget_id``, ``importance`` (``vital`` or ``okay``); nuggets are keyed by
        (query, nugget), so nugget ids may repeat across queries.
    per_query : bool
        One row per (judge, system, query) instead of the means per (judge, system).
    columns : str or mapping, optional
        The column of each role (``{"query": "qid", "system": "run_id"}``) or a preset
        (``"trec_rag"``, ``"nuggetizer"``).
    missing : {"zero", "drop", "error"}
        A system with no assignment at all for a query that has nuggets: scored as if
        every nugget were not supported (``"zero"``, the default, counted in ``n_missing``),
        left out of the mean (``"drop"``, counted in ``n_missing``), or refused.
    no_vital : {"zero", "null"}
        V and V_strict of a query without a vital nugget: 0 (nuggetizer's), or null (left
        out of the means, counted in ``n_no_vital``).
    no_nuggets : {"error", "drop"}
        Assignments for a query the nugget table does not hold: refused, or left out
        (counted in ``n_without_nuggets``).

    Returns
    -------
    frame
        The caller's frame type (of ``assignments``).  Per system: ``V_strict``, ``V``,
        ``A_strict``, ``A``, ``W`` (means over queries), ``n_queries``, ``n_missing``,
        ``n_unassigned``, ``n_no_vital``, ``n_without_nuggets``.  Per query: the five scores,
        ``n_nuggets``, ``n_vital``, ``n_unassigned``, ``missing`` (the answer had no
        assignment).

    Notes
    -----
    Each nugget n of a query has a score s_n: 1 for ``support``, 0.5 for ``partial_support``,
    0 for ``not_support`` and for a nugget without an assignment (counted in
    ``n_unassigned``).  Strict scores count support only.  Over the query's vital nuggets V,
    over all its nuggets A:

    - ``V_strict`` = |vital supported| / |vital|, ``V`` = sum of s over vital / |vital|
    - ``A_strict`` = |supported| / |all|, ``A`` = sum of s / |all|
    - ``W`` = sum(w_n s_n) / sum(w_n), with w = 1 for vital and 0.5 for okay nuggets.

    The four are castorini/nuggetizer's ``calculate_nugget_scores`` (strict_vital_score,
    vital_score, strict_all_score, all_score), and the means over queries its
    ``calculate_global_metrics``.  nuggetizer has no W and no statistics; the TREC 2024 RAG
    overview's weighted score is W; an ir_measures-style fork divides the weighted sum by
    the number of nuggets instead of the sum of the weights, which is not W (it is below
    W whenever an okay nugget is there).

    Examples
    --------
    >>> import polars as pl
    >>> from irframe.answers import nugget_scores
    >>> nuggets = pl.DataFrame({"query_id": ["q1"] * 3, "nugget_id": ["n1", "n2", "n3"],
    ...                         "importance": ["vital", "vital", "okay"]})
    >>> assignments = pl.DataFrame({"system": ["rag"] * 3, "query_id": ["q1"] * 3,
    ...     "nugget_id": ["n1", "n2", "n3"], "assignment": ["support", "partial_support", "support"]})
    >>> nugget_scores(assignments, nuggets).select("system", "V_strict", "V", "A_strict", "A", "W")
    shape: (1, 6)
    ┌────────┬──────────┬──────┬──────────┬──────────┬─────┐
    │ system ┆ V_strict ┆ V    ┆ A_strict ┆ A        ┆ W   │
    │ ---    ┆ ---      ┆ ---  ┆ ---      ┆ ---      ┆ --- │
    │ str    ┆ f64      ┆ f64  ┆ f64      ┆ f64      ┆ f64 │
    ╞════════╪══════════╪══════╪══════════╪══════════╪═════╡
    │ rag    ┆ 0.5      ┆ 0.75 ┆ 0.666667 ┆ 0.833333 ┆ 0.8 │
    └────────┴──────────┴──────┴──────────┴──────────┴─────┘
    """
    for name, value, allowed in (
        ("missing", missing, _MISSING),
        ("no_nuggets", no_nuggets, ("error", "drop")),
    ):
        if value not in allowed:
            raise InvalidParameterError.for_value(
                name, _WHERE, "one of " + ", ".join(map(repr, allowed)), value
            )
    check_empty(no_vital, _WHERE)
    cols = columns_arg(columns, _WHERE)
    nug = read_table(nuggets, "nuggets", cols, ["query", "nugget", "importance"], ids=["query", "nugget"])
    asg = read_table(
        assignments, "assignments", cols, ["query", "nugget", "assignment"], ["judge", "system"],
        ids=["judge", "system", "query", "nugget"],
    )  # fmt: skip
    keys = [r for r in ("judge", "system") if asg.has(r)]
    weights = labels_to_values(nug, "importance", IMPORTANCE_WEIGHTS, ["query", "nugget"])
    refuse_duplicates(nug, weights, ["query", "nugget"], "nuggets", "importance")
    scores = labels_to_values(asg, "assignment", ASSIGNMENT_SCORES, [*keys, "query", "nugget"])
    refuse_duplicates(asg, scores, [*keys, "query", "nugget"], "assignments", "assignment")
    scores, n_without = _known_queries(asg, scores, weights, keys, no_nuggets)
    answers = _answers(asg, scores, weights, keys, missing)
    table = _per_answer(answers, weights, scores, keys, no_vital)
    if per_query:
        out = table.rename({**{k: asg.columns[k] for k in keys}, "query": nug.columns["query"]})
        return from_lazy(out, asg.origin)
    return from_lazy(
        _means(table, keys, n_without, missing).rename({k: asg.columns[k] for k in keys}), asg.origin
    )


def _known_queries(
    asg: Table, scores: pl.DataFrame, weights: pl.DataFrame, keys: list[str], no_nuggets: str
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The assignments of known nuggets; those of queries without nuggets refused or left out
    (their count per system); a nugget unknown to its query always refused."""
    known_q = weights.select("query").unique()
    stray = scores.join(known_q, on="query", how="anti")
    if stray.height and no_nuggets == "error":
        r = stray.row(0, named=True)
        n_q = stray["query"].n_unique()
        msg = (
            f"The assignments hold {stray.height} row(s) for {n_q} query(ies) the nuggets frame does not "
            f"hold, e.g. {describe_row(asg, r, [*keys, 'query', 'nugget'])}. Hint: add the queries' "
            "nuggets, or pass no_nuggets='drop' to leave those answers out (they are counted in "
            "n_without_nuggets)."
        )
        raise InvalidDataError(msg)
    n_without = stray.group_by(keys or pl.lit(0)).agg(pl.col("query").n_unique().alias("n_without_nuggets"))
    scores = scores.join(known_q, on="query", how="semi")
    unknown = scores.join(weights, on=["query", "nugget"], how="anti")
    if unknown.height:
        r = unknown.row(0, named=True)
        msg = (
            f"The assignments name {unknown.height} nugget(s) the nuggets frame does not hold for their "
            f"query, e.g. {describe_row(asg, r, [*keys, 'query', 'nugget'])}. Hint: check the nugget ids "
            "(nuggets are keyed by query and nugget id), or add the nugget to the nuggets frame."
        )
        raise InvalidDataError(msg)
    return scores, n_without


def _answers(
    asg: Table, scores: pl.DataFrame, weights: pl.DataFrame, keys: list[str], missing: str
) -> pl.DataFrame:
    """Every (judge, system, query) scored: the answers assigned, and (``missing`` "zero" or
    "drop") the queries with nuggets a system has no assignment for, flagged ``missing``."""
    given = scores.select(*keys, "query").unique().with_columns(pl.lit(False).alias("missing"))
    queries = weights.select("query").unique()
    groups = scores.select(keys).unique() if keys else pl.DataFrame({"__ir_one": [0]})
    every = groups.join(queries, how="cross")
    absent = (
        every.join(given, on=[*keys, "query"], how="anti")
        if keys
        else every.drop("__ir_one").join(given, on="query", how="anti")
    )
    if absent.height and missing == "error":
        r = absent.sort([*keys, "query"]).row(0, named=True)
        msg = (
            f"{absent.height} answer(s) have no assignment although their query has nuggets, e.g. "
            f"{describe_row(asg, r, [*keys, 'query'])}. Hint: pass missing='zero' to score them 0 or "
            "missing='drop' to leave them out (both count them in n_missing)."
        )
        raise MissingQueriesError(msg)
    return pl.concat([given, absent.select(*keys, "query").with_columns(pl.lit(True).alias("missing"))])


def _per_answer(
    answers: pl.DataFrame, weights: pl.DataFrame, scores: pl.DataFrame, keys: list[str], no_vital: Empty
) -> pl.DataFrame:
    """One row per answer: the five scores and the counts."""
    rows = answers.join(weights, on="query").join(
        scores.select(*keys, "query", "nugget", "assignment"), on=[*keys, "query", "nugget"], how="left"
    )
    s = pl.col("assignment").fill_null(0.0)
    vital = pl.col("importance") == 1.0
    support = (s == 1.0).cast(pl.Float64)
    n_vital = vital.sum()
    table = rows.group_by(*keys, "query", "missing").agg(
        ratio((support * vital).sum(), n_vital, no_vital).alias("V_strict"),
        ratio((s * vital).sum(), n_vital, no_vital).alias("V"),
        (support.sum() / pl.len()).alias("A_strict"),
        (s.sum() / pl.len()).alias("A"),
        ((pl.col("importance") * s).sum() / pl.col("importance").sum()).alias("W"),
        pl.len().cast(pl.Int64).alias("n_nuggets"),
        n_vital.cast(pl.Int64).alias("n_vital"),
        pl.col("assignment").null_count().cast(pl.Int64).alias("n_unassigned"),
    )
    order = [*keys, "query", *NUGGET_MEASURES, "n_nuggets", "n_vital", "n_unassigned", "missing"]
    return natural_sorted(table, [*keys, "query"], order)


def _means(table: pl.DataFrame, keys: list[str], n_without: pl.DataFrame, missing: str) -> pl.DataFrame:
    """The scores' means per (judge, system) over the answers kept, and the counts."""
    kept = table.filter(~pl.col("missing")) if missing == "drop" else table
    group: list[str | pl.Expr] = [*keys] if keys else [pl.lit(0).alias("literal")]
    out = kept.group_by(group).agg(
        *(pl.col(m).mean() for m in NUGGET_MEASURES),
        pl.len().cast(pl.Int64).alias("n_queries"),
        pl.col("n_unassigned").sum().cast(pl.Int64),
        (pl.col("n_vital") == 0).sum().cast(pl.Int64).alias("n_no_vital"),
    )
    counted = table.group_by(group).agg(pl.col("missing").sum().cast(pl.Int64).alias("n_missing"))
    on = keys or ["literal"]
    out = out.join(counted, on=on, how="full", coalesce=True).join(n_without, on=on, how="left")
    out = out.with_columns(
        pl.col("n_without_nuggets").fill_null(0).cast(pl.Int64), pl.col("n_queries").fill_null(0)
    )
    names = [
        *keys,
        *NUGGET_MEASURES,
        "n_queries",
        "n_missing",
        "n_unassigned",
        "n_no_vital",
        "n_without_nuggets",
    ]
    return natural_sorted(out, keys, names) if keys else out.select(names)
