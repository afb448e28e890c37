"""The gate's table: compare's comparisons of {baseline, candidate}, overall and per segment, decided.

The baseline (a run's per-query values, or a snapshot's) and the candidate enter
:mod:`irframe._compare` as long tables (:func:`~irframe._compare.long_values`); pairing (the
queries valued on both sides, per-query deltas under the tie tolerance counting 0), each
comparison's statistics, the correction over the whole table, the shared-query rule and
the top documents are compare's code.  This module puts the rows in the report's order
(``"all"``, then each segment in natural order, the measures as asked; a comparison
without a paired query gets a row saying so), takes each row's means as polars computes
them (as the gate always has: compare's are numpy's, which can differ in the last bit),
and decides each row.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import polars as pl

from irframe._compare import (
    LONG,
    check_shared_queries,
    compare_one,
    correct_family,
    group_pairs,
    long_values,
    pair_values,
    top_documents,
)
from irframe._compare.weighted import W
from irframe._golden.holes import HOLE_COLUMNS, SUMMARY_SCHEMA, hole_summary
from irframe._input.columns import natural_key
from irframe._input.keys import SYSTEM
from irframe._input.queries import KEY, query_attributes
from irframe._input.runs import stack_runs
from irframe.exceptions import EmptyInputError, InvalidDataError

if TYPE_CHECKING:
    from irframe._check.result import _Gate
    from irframe._compare import Settings
    from irframe._input.options import Options

__all__ = [
    "BASE",
    "CAND",
    "TABLE_SCHEMA",
    "attributes",
    "comparisons",
    "decide",
    "documents",
    "long_table",
    "moved_queries",
    "paired",
    "refuse_uncompared",
]

BASE, CAND = "baseline", "candidate"  # the two systems of compare's long table
NO_PAIRS = "no query valued on both sides"
_Q = "query_id"
_STATS = ("delta", "ci_low", "ci_high", "p_value", "wins", "ties", "losses", "note")

TABLE_SCHEMA: dict[str, Any] = {
    "group": pl.String, "measure": pl.String, "n_queries": pl.Int64, "baseline_mean": pl.Float64,
    "mean": pl.Float64, "delta": pl.Float64, "ci_low": pl.Float64, "ci_high": pl.Float64,
    "p_value": pl.Float64, "p_adjusted": pl.Float64, "significant": pl.Boolean, "wins": pl.Int64,
    "ties": pl.Int64, "losses": pl.Int64, "regression": pl.Boolean, "status": pl.String,
    "note": pl.String,
}  # fmt: skip


# --- pairs --------------------------------------------------------------------------------
def long_table(base: pl.DataFrame, cand: pl.DataFrame, labels: Sequence[str]) -> pl.DataFrame:
    """Both sides' per-query values (``query_id`` and one column per measure) as compare's
    long table: a snapshot's values enter exactly as an evaluated run's."""
    parts = [long_values(BASE, base, labels, _Q), long_values(CAND, cand, labels, _Q)]
    return pl.concat(parts, how="vertical_relaxed")


def paired(long: pl.DataFrame, keep: set[str] | None, attrs: pl.DataFrame | None) -> pl.DataFrame:
    """compare's pairs of the candidate with the baseline (one row per query and measure), on
    the ``keep`` queries (None: all), with the segment attributes ``attrs`` joined on."""
    out = pair_values(long, [(CAND, BASE)], [_Q])
    if keep is not None:
        out = out.filter(pl.col(_Q).is_in(sorted(keep)))
    if attrs is not None:
        out = out.join(attrs, on=_Q, how="left", maintain_order="left")
        _refuse_unmatched(out, attrs)
    return out


def _refuse_unmatched(out: pl.DataFrame, attrs: pl.DataFrame) -> None:
    """Refuse attributes that match none of the compared queries: every query would fall in
    one segment "(none)" (query ids spelled otherwise: 1 against 'q01')."""
    by = [c for c in attrs.columns if c != _Q]
    if (
        out.height == 0
        or attrs.height == 0
        or not out.select(pl.all_horizontal(pl.col(by).is_null()).all()).item()
    ):
        return
    theirs = ", ".join(repr(q) for q in attrs[_Q].head(3).to_list())
    ours = ", ".join(repr(q) for q in out[_Q].unique(maintain_order=True).head(3).to_list())
    msg = (
        f"by={by}: the query ids of the attributes ({theirs} ...) match none of the compared queries "
        f"({ours} ...), so every query would fall in one segment '(none)'. Hint: give the queries "
        "table the runs' query ids, spelled and typed alike (e.g. 'q01', not 1)."
    )
    raise InvalidDataError(msg)


def attributes(
    by: Sequence[str], queries: pl.DataFrame | None, qrels: pl.LazyFrame, opts: Options
) -> pl.DataFrame | None:
    """``query_id`` and the ``by`` columns, from the queries table or the qrels (THE rule:
    :func:`irframe._input.queries.query_attributes`)."""
    if not by:
        return None
    found = query_attributes(
        [], qrels.collect_schema().names(), queries, replace(opts, by=tuple(by)), qrels_rows=qrels.select,
        where="check",
    )  # fmt: skip
    return None if found is None else found.table.rename({KEY: _Q})


# --- the comparisons ----------------------------------------------------------------------
def _segment_order(key: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(natural_key("" if v is None else str(v)) for v in key)


def _cells(
    pairs: pl.DataFrame, labels: Sequence[str], by: Sequence[str]
) -> list[tuple[str, str, dict[str, Any] | None]]:
    """(group, measure, compare's group of paired values or None), in the report's order."""
    systems = [BASE, CAND]
    overall = {r[LONG.measure]: r for r in group_pairs(pairs, systems, labels, []).iter_rows(named=True)}
    cells = [("all", m, overall.get(m)) for m in labels]
    if not by:
        return cells
    segments: dict[tuple[Any, ...], dict[str, dict[str, Any]]] = {}
    for r in group_pairs(pairs, systems, labels, by).iter_rows(named=True):
        segments.setdefault(tuple(r[b] for b in by), {})[r[LONG.measure]] = r
    for key in sorted(segments, key=_segment_order):
        label = ", ".join(f"{c}={'(none)' if v is None else v}" for c, v in zip(by, key, strict=True))
        cells += [(label, m, segments[key].get(m)) for m in labels]
    return cells


def _mean(values: Sequence[float]) -> float:
    """The mean as polars computes it (the gate's means; see the module's docstring)."""
    return float(pl.Series(values, dtype=pl.Float64).mean())  # type: ignore[arg-type]


def comparisons(
    pairs: pl.DataFrame, labels: Sequence[str], by: Sequence[str], settings: Settings
) -> list[dict[str, Any]]:
    """One row per (group, measure) with compare's statistics, in the report's order
    (the Monte-Carlo steps run in that order too; draws of one shape made once)."""
    from irframe._resample import reusing_draws

    rows = []
    with reusing_draws():
        for group, measure, cell in _cells(pairs, labels, by):
            rows.append(_comparison(group, measure, cell, settings))
    return rows


def _comparison(group: str, measure: str, cell: dict[str, Any] | None, settings: Settings) -> dict[str, Any]:
    """One row of the table: compare's statistics of one (group, measure) cell."""
    row: dict[str, Any] = {"group": group, "measure": measure}
    if cell is None:
        return {**row, "n_queries": 0, "p_value": None, "note": NO_PAIRS}
    stats = compare_one(cell, [], settings)
    if W in cell:  # weighted: compare's weighted means
        row |= {k: stats.get(k) for k in ("n_queries", "baseline_mean", "mean", "sum_weights")}
    else:
        row |= {"n_queries": stats["n_queries"], "baseline_mean": _mean(cell[LONG.baseline_value]),
                "mean": _mean(cell[LONG.value])}  # fmt: skip
    if HOLE_COLUMNS[0] in cell:
        row |= hole_summary(cell, cell.get(W))
    return row | {k: stats.get(k) for k in _STATS}


def decide(
    rows: list[dict[str, Any]], rule: _Gate, settings: Settings, holes: str = "ignore"
) -> tuple[pl.DataFrame, int]:
    """Correct the p-values over the whole table (compare's correction) and mark regressions;
    with ``holes`` ("report" or "fail"), mark the possible judgment holes (a possible hole
    passes under "report").  The table and the correction's family size."""
    family = correct_family(rows, settings)
    for r in rows:
        delta = r.get("delta")
        dropped = delta is not None and -delta > rule.max_drop
        failing = bool(dropped and (rule.fail_on == "any-drop" or r["significant"]))
        if holes != "ignore":
            r["possible_hole"] = failing and possible_hole(r, rule.max_drop)
            failing = failing and not (holes == "report" and r["possible_hole"])
        r["regression"] = failing
        r["status"] = _status(r, delta)
    schema = {**TABLE_SCHEMA}
    if any("sum_weights" in r for r in rows):
        schema["sum_weights"] = pl.Float64
    if holes != "ignore":
        schema |= {**SUMMARY_SCHEMA, "possible_hole": pl.Boolean}
    return pl.DataFrame([{k: r.get(k) for k in schema} for r in rows], schema=schema), family


def possible_hole(row: Mapping[str, Any], max_drop: float) -> bool:
    """Whether judging the holes could bring the row's drop within ``max_drop``
    (``delta_high >= -max_drop``)."""
    high = row.get("delta_high")
    return high is not None and high >= -max_drop


def refuse_uncompared(table: pl.DataFrame, left_out: Sequence[str]) -> None:
    """Only a gate that compared something can pass: a measure with no query valued on both
    sides overall (0 queries, or no values) is a data error, not a pass."""
    rows = table.filter((pl.col("group") == "all") & (pl.col("n_queries") == 0))
    if rows.height == 0:
        return
    names = ", ".join(rows["measure"].to_list())
    why = (
        f"the {len(left_out)} queries whose judgments changed were left out"
        if left_out
        else "no query has a value on both sides (no judged query in both runs, or no values)"
    )
    msg = (
        f"check compared no query on {names}: {why}; a check over 0 queries cannot pass. "
        "Hint: check that the candidate, the baseline and the qrels share query ids"
        + (", or take a new snapshot of the baseline." if left_out else ".")
    )
    raise EmptyInputError(msg)


def _status(r: Mapping[str, Any], delta: float | None) -> str:
    if r.get("possible_hole") and not r["regression"]:
        return "possible hole"
    if r["regression"]:
        return "regression"
    if r["significant"] and delta is not None and delta != 0:
        return "better" if delta > 0 else "worse"
    return ""


# --- the queries that moved ---------------------------------------------------------------
def moved_queries(
    pairs: pl.DataFrame, measure: str, n: int, queries: pl.DataFrame | None, attrs: pl.DataFrame | None = None
) -> pl.DataFrame:
    """The ``n`` queries whose ``measure`` changed most (ties: natural query order), with text
    and, with ``by``, their segment columns (``attrs``: :func:`attributes`)."""
    sub = pairs.filter((pl.col(LONG.measure) == measure) & (pl.col(LONG.delta) != 0))
    rows = sorted(sub.iter_rows(named=True), key=lambda r: (-abs(r[LONG.delta]), natural_key(r[_Q])))[:n]
    out = pl.DataFrame(
        [{_Q: r[_Q], "baseline": r[LONG.baseline_value], "value": r[LONG.value], "delta": r[LONG.delta]}
         for r in rows],
        schema={_Q: pl.String, "baseline": pl.Float64, "value": pl.Float64, "delta": pl.Float64},
    )  # fmt: skip
    if queries is not None and "text" in queries.columns:
        text = queries.select(_Q, pl.col("text").cast(pl.String)).unique(_Q, keep="first")
        out = out.join(text, on=_Q, how="left", maintain_order="left").select(
            _Q, "text", pl.exclude(_Q, "text")
        )
    if attrs is not None:  # the segments, after the query (and its text)
        first = [_Q, *(["text"] if "text" in out.columns else [])]
        segments = [c for c in attrs.columns if c not in out.columns]
        out = out.join(attrs.select(_Q, *segments), on=_Q, how="left", maintain_order="left")
        out = out.select(*first, *segments, pl.exclude(*first, *segments))
    return out


def documents(
    runs: Mapping[str, pl.LazyFrame],
    baseline_queries: pl.LazyFrame,
    qrels: Any,
    shown: bool,
    query_ids: Sequence[str],
    *,
    k: int,
    opts: Options,
) -> pl.DataFrame | None:
    """``query_id`` and the top ``k`` documents (with grades) of each of ``runs`` (``BASE``
    and ``CAND``, or ``CAND`` alone for a snapshot baseline) as ``<name>_docs``.

    First compare's rule: the baseline (``baseline_queries``: its query column) and the
    candidate must share a judged query.  None when no documents are shown: ``k`` is 0 or
    nothing is ``shown`` (no query is paired on the measure).
    """
    if k <= 0:
        return None
    q = opts.query_col
    sides = [(BASE, baseline_queries), (CAND, runs[CAND])]
    stacked = stack_runs(dict(sides), None, "check").lf.select(SYSTEM, pl.col(q).cast(pl.String))
    check_shared_queries(stacked, qrels, [(CAND, BASE)], where="check", opts=opts)
    if not shown:
        return None
    docs = top_documents(runs, qrels, query_ids, k=k, opts=opts, where="check")
    return None if docs is None else docs.rename({q: _Q} if q != _Q else {})
