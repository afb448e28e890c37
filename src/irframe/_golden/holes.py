"""Judgment holes in compare and check: the unjudged documents of each top ``depth``, and
the range each per-query delta could take once they are judged.

*The holes.*  Per system and judged query, the documents of its top ``depth`` (ranked as
:func:`irframe.evaluate` ranks) that the qrels do not judge (:func:`irframe._golden.ranked.holes`).
Queries without any judgment are not compared, so their documents are not holes here.

*The bounds.*  For a pair (system ``s``, baseline ``b``) and a query with holes ``H_s``
and ``H_b``, both runs are evaluated again on the qrels with the holes filled in three
ways (``g`` is the stated grade, ``holes_grade``):

* ``none``: every hole judged non-relevant (grade 0);
* ``system``: the system's holes ``H_s`` relevant at ``g``, the baseline's others at 0;
* ``baseline``: the baseline's holes ``H_b`` at ``g``, the system's others at 0 (not for a
  snapshot baseline, which has no ranking: its values stay the snapshot's).

The delta's range is ``[min, max]`` of the three deltas.  For measures that rise when a
document a system ranks turns relevant and fall (or stay) when one it does not rank does
(P, R, nDCG, AP, RR...), the ``system`` and ``baseline`` fillings are the extremes when
the two tops share no hole; a shared hole is relevant in both, so the range is then an
approximation (judging it could help one side more).  A query without holes keeps its
delta.  A comparison's bounds are the means (weighted, with weights) of its queries' bounds:
each query's holes are judged independently of the others'.

All fillings of all pairs are one :func:`irframe.evaluate` call: each (pair, filling,
query) gets its own query id, ``"<pair>\\x1f<filling>\\x1f<query>"``, in the runs and in a copy
of its judgments (only the queries with holes are evaluated again).

*The grade.*  ``holes_grade=None`` (default) is the qrels' highest grade (1 when no grade
is above 0): the bound must cover any grade a judge could give, and for a graded measure
(nDCG) the highest grade is the extreme; binary measures count every grade >= 1 the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Integral, Real
from typing import Any

import polars as pl

from irframe._golden.ranked import holes, judged_pairs
from irframe._input.frames import to_lazy
from irframe._input.keys import DOC_KEY, GRADE, QUERY_KEY, SYSTEM
from irframe._input.options import Options
from irframe.exceptions import InvalidParameterError

__all__ = [
    "HI", "HOLE_COLUMNS", "LO", "MODES", "N_BASE", "N_SYS", "N_UNION", "check_depth", "check_grade",
    "check_mode", "delta_bounds", "fill_grade", "hole_docs", "hole_summary", "hole_table", "with_holes",
]  # fmt: skip

MODES = ("report", "fail", "ignore")
# the pair rows' hole columns (per query): the delta's bounds, the holes of each side, their union
LO, HI = "__ir_hole_lo", "__ir_hole_hi"
N_SYS, N_BASE, N_UNION = "__ir_holes_s", "__ir_holes_b", "__ir_holes_u"
HOLE_COLUMNS = (LO, HI, N_SYS, N_BASE, N_UNION)
# the comparison table's columns (compare and check, when holes are looked at)
SUMMARY_SCHEMA: dict[str, Any] = {
    "n_holes": pl.Int64, "n_holes_baseline": pl.Int64, "n_to_judge": pl.Int64,
    "delta_low": pl.Float64, "delta_high": pl.Float64,
}  # fmt: skip
_PAIR, _FILL, _VALUE = "__ir_pair", "__ir_fill", "__ir_hv"
_SEP = "\x1f"
_TIE = 1e-12  # as compare: smaller deltas are float noise


def check_mode(mode: object, where: str) -> str:
    """``holes=`` of check: ``"report"``, ``"fail"`` or ``"ignore"``."""
    if mode not in MODES:
        raise InvalidParameterError.for_value("holes", where, "one of 'report', 'fail', 'ignore'", mode)
    return str(mode)


def check_depth(depth: object, where: str) -> int:
    """``holes_depth=``: an int >= 1."""
    if isinstance(depth, bool) or not isinstance(depth, Integral) or depth < 1:
        raise InvalidParameterError.for_value("holes_depth", where, "an int in the range [1, inf)", depth)
    return int(depth)


def check_grade(grade: object, where: str) -> float | None:
    """``holes_grade=``: None (the qrels' highest) or a number > 0."""
    if grade is None:
        return None
    if isinstance(grade, bool) or not isinstance(grade, Real) or not 0 < float(grade) < float("inf"):
        raise InvalidParameterError.for_value("holes_grade", where, "a number > 0 or None", grade)
    return float(grade)


def fill_grade(qrels: Any, opts: Options, grade: float | None) -> float:
    """The grade a hole judged relevant gets: ``grade``, or the qrels' highest (1 if none > 0).

    Examples
    --------
    >>> qrels = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "relevance": [0, 3]})
    >>> fill_grade(qrels, Options(), None), fill_grade(qrels, Options(), 1)
    (3.0, 1.0)
    """
    if grade is not None:
        return float(grade)
    relevance = opts.qrels_columns[2]
    top = to_lazy(qrels, "qrels")[0].select(pl.col(relevance).cast(pl.Float64).max()).collect().item()
    return float(top) if top is not None and top > 0 else 1.0


def hole_table(runs: Sequence[pl.LazyFrame], qrels: Any, opts: Options, depth: int) -> pl.DataFrame:
    """Per (system, judged query): the top ``depth``'s judged and unjudged documents
    (:func:`irframe._golden.ranked.holes`), queries the qrels do not judge left out.

    ``runs``: the stacked runs in groups ranked alike (:meth:`irframe._input.runs.Stack.alike`),
    each group by its own order column."""
    if qrels is None:
        msg = "Judgment holes need the qrels: without them every document is unjudged. Hint: pass qrels."
        raise InvalidParameterError(msg)
    parts = [holes(lf, qrels, opts, depth) for lf in runs]
    found = parts[0] if len(parts) == 1 else _by_system_and_query(pl.concat(parts), opts.query_col)
    judged = judged_pairs(qrels, opts).select(QUERY_KEY).unique().collect()
    keys = found.get_column(opts.query_col).cast(pl.String)
    return found.filter(keys.is_in(judged.get_column(QUERY_KEY).implode()))


def _by_system_and_query(df: pl.DataFrame, query_col: str) -> pl.DataFrame:
    """As :func:`irframe._golden.ranked.holes` sorts: by system, then query id as text."""
    return df.sort(pl.col(SYSTEM), pl.col(query_col).cast(pl.String), maintain_order=True)


def hole_docs(table: pl.DataFrame, query_col: str) -> pl.DataFrame:
    """(:data:`SYSTEM`, :data:`QUERY_KEY`, :data:`DOC_KEY`): one row per hole."""
    return (
        table.select(SYSTEM, pl.col(query_col).cast(pl.String).alias(QUERY_KEY), pl.col("unjudged"))
        .explode("unjudged")
        .drop_nulls("unjudged")
        .select(SYSTEM, QUERY_KEY, pl.col("unjudged").cast(pl.String).alias(DOC_KEY))
    )


def _fillings(
    docs: pl.DataFrame, pairs: Sequence[tuple[str, str]], grade: float, base_ranked: bool
) -> pl.DataFrame:
    """Per (pair, filling, query, hole): the grade it gets (see the module's docstring)."""
    frame = pl.DataFrame(
        {_PAIR: list(range(len(pairs))), "s": [s for s, _ in pairs], "b": [b for _, b in pairs]},
        schema={_PAIR: pl.Int64, "s": pl.String, "b": pl.String},
    )
    side = docs.rename({SYSTEM: "who"})
    in_s = frame.join(side, left_on="s", right_on="who").select(_PAIR, QUERY_KEY, DOC_KEY, in_s=pl.lit(True))
    in_b = frame.join(side, left_on="b", right_on="who").select(_PAIR, QUERY_KEY, DOC_KEY, in_b=pl.lit(True))
    union = in_s.join(in_b, on=[_PAIR, QUERY_KEY, DOC_KEY], how="full", coalesce=True).with_columns(
        pl.col("in_s", "in_b").fill_null(False)
    )
    fills = pl.DataFrame({_FILL: ["none", "system", *(["baseline"] if base_ranked else [])]})
    rel = (pl.col(_FILL) == "system") & pl.col("in_s") | (pl.col(_FILL) == "baseline") & pl.col("in_b")
    return union.join(fills, how="cross").with_columns(pl.when(rel).then(grade).otherwise(0.0).alias("grade"))


def _key() -> pl.Expr:
    return pl.concat_str(pl.col(_PAIR).cast(pl.String), pl.col(_FILL), pl.col(QUERY_KEY), separator=_SEP)


def _inputs(
    runs: pl.LazyFrame, qrels: Any, fills: pl.DataFrame, pairs: Sequence[tuple[str, str]], opts: Options
) -> tuple[pl.LazyFrame, pl.LazyFrame]:
    """The runs and the qrels of every (pair, filling, query with holes), each its own query id."""
    keys = fills.select(_PAIR, _FILL, QUERY_KEY).unique().with_columns(_key().alias("__ir_key"))
    members = pl.DataFrame(
        {
            SYSTEM: [x for s, b in pairs for x in (s, b)],
            _PAIR: [i for i in range(len(pairs)) for _ in (0, 1)],
        },
        schema={SYSTEM: pl.String, _PAIR: pl.Int64},
    )
    q, d = opts.query_col, opts.doc_col
    names = runs.collect_schema().names()
    keep = [c for c in dict.fromkeys([SYSTEM, q, d, opts.rank_col, opts.score_col]) if c and c in names]
    rows = (
        runs.select(keep)
        .with_columns(pl.col(q).cast(pl.String).alias(QUERY_KEY))
        .join(members.lazy(), on=SYSTEM)
        .join(keys.lazy(), on=[_PAIR, QUERY_KEY])
        .with_columns(pl.col("__ir_key").alias(q))
        .select(keep)
    )
    qq, qd, qr = opts.qrels_columns
    judged = judged_pairs(qrels, opts)  # (QUERY_KEY, DOC_KEY, GRADE): checked once
    given = judged.join(keys.lazy(), on=QUERY_KEY).select("__ir_key", DOC_KEY, pl.col(GRADE).alias("g"))
    added = (
        fills.lazy()
        .with_columns(_key().alias("__ir_key"))
        .select("__ir_key", DOC_KEY, pl.col("grade").alias("g"))
    )
    filled = pl.concat([given, added]).select(
        pl.col("__ir_key").alias(qq), pl.col(DOC_KEY).alias(qd), pl.col("g").alias(qr)
    )
    return rows, filled


def delta_bounds(
    runs: Sequence[pl.LazyFrame],
    table: pl.DataFrame,
    qrels: Any,
    *,
    pairs: Sequence[tuple[str, str]],
    labels: Sequence[str],
    opts: Options,
    grade: float,
    base_ranked: bool = True,
) -> pl.DataFrame:
    """Per (system, baseline, query with holes, measure): the system's and the baseline's values
    under each filling, as (``system``, ``baseline``, :data:`QUERY_KEY`, ``measure``, ``fill``,
    ``value``, ``baseline_value``); ``baseline_value`` is null for a baseline without a ranking
    (``base_ranked=False``).  ``table`` is :func:`hole_table`'s; ``runs`` as for it (each group
    evaluated by its own order column)."""

    fills = _fillings(hole_docs(table, opts.query_col), pairs, grade, base_ranked)
    out_schema = {"system": pl.String, "baseline": pl.String, QUERY_KEY: pl.String, "measure": pl.String,
                  _FILL: pl.String, "value": pl.Float64, "baseline_value": pl.Float64}  # fmt: skip
    if fills.height == 0:
        return pl.DataFrame(schema=out_schema)
    pq = _filled_values(runs, qrels, fills, pairs=pairs, labels=labels, opts=opts)
    parts = pl.col(opts.query_col).str.splitn(_SEP, 3)
    long = pq.with_columns(
        parts.struct.field("field_0").cast(pl.Int64).alias(_PAIR),
        parts.struct.field("field_1").alias(_FILL),
        parts.struct.field("field_2").alias(QUERY_KEY),
    ).unpivot(
        index=[SYSTEM, _PAIR, _FILL, QUERY_KEY], on=list(labels), variable_name="measure", value_name=_VALUE
    )
    frame = pl.DataFrame({_PAIR: list(range(len(pairs))), "system": [s for s, _ in pairs],
                          "baseline": [b for _, b in pairs]}, schema={_PAIR: pl.Int64, "system": pl.String,
                          "baseline": pl.String})  # fmt: skip
    on = [_PAIR, _FILL, QUERY_KEY, "measure"]
    sys_v = long.join(frame, left_on=[_PAIR, SYSTEM], right_on=[_PAIR, "system"]).select(
        *on, "baseline", pl.col(_VALUE).alias("value")
    )
    base_v = long.join(frame, left_on=[_PAIR, SYSTEM], right_on=[_PAIR, "baseline"]).select(
        *on, pl.col(_VALUE).alias("baseline_value")
    )
    wanted = fills.select(_PAIR, _FILL, QUERY_KEY).unique()
    out = wanted.join(sys_v, on=[_PAIR, _FILL, QUERY_KEY]).join(base_v, on=on, how="left")
    return out.join(frame.select(_PAIR, "system"), on=_PAIR).select(list(out_schema))


def _filled_values(
    runs: Sequence[pl.LazyFrame], qrels: Any, fills: pl.DataFrame, *, pairs: Sequence[tuple[str, str]],
    labels: Sequence[str], opts: Options,
) -> pl.DataFrame:  # fmt: skip
    """Every group's per-query values under the fillings (query ids: :func:`_inputs`' keys)."""
    from irframe.functions import evaluate

    kwargs = opts.with_(by=[SYSTEM], weights=None).as_kwargs()
    values = []
    for lf in runs:
        rows, filled = pl.collect_all(_inputs(lf, qrels, fills, pairs, opts))  # (in memory: the fast path)
        if rows.height or len(runs) == 1:
            pq = evaluate(rows, list(labels), filled, per_query=True, progress=False, **kwargs)
            values.append(pq.collect() if isinstance(pq, pl.LazyFrame) else pq)
    return values[0] if len(values) == 1 else pl.concat(values, how="vertical_relaxed")


def per_query_bounds(values: pl.DataFrame) -> pl.DataFrame:
    """Per (system, baseline, :data:`QUERY_KEY`, measure) of :func:`delta_bounds`' values, with
    each filling's baseline value (its own, or the caller's ``current_baseline`` column):
    the lowest and highest delta (:data:`LO`, :data:`HI`), float noise at 0."""
    delta = pl.col("value") - pl.coalesce("baseline_value", "current_baseline")
    delta = pl.when(delta.abs() <= _TIE).then(0.0).otherwise(delta)
    return values.group_by("system", "baseline", QUERY_KEY, "measure").agg(
        delta.min().alias(LO), delta.max().alias(HI)
    )


def hole_counts(table: pl.DataFrame, pairs: Sequence[tuple[str, str]], query_col: str) -> pl.DataFrame:
    """Per (system, baseline, :data:`QUERY_KEY`): the system's holes (:data:`N_SYS`), the
    baseline's (:data:`N_BASE`, 0 without a ranking) and their union (:data:`N_UNION`: what to judge)."""
    docs = hole_docs(table, query_col)
    frame = pl.DataFrame({"system": [s for s, _ in pairs], "baseline": [b for _, b in pairs]},
                         schema={"system": pl.String, "baseline": pl.String})  # fmt: skip
    sides = []
    for who, col in (("system", N_SYS), ("baseline", N_BASE)):
        counted = frame.join(docs, left_on=who, right_on=SYSTEM)
        sides.append(
            counted.group_by("system", "baseline", QUERY_KEY).agg(pl.len().cast(pl.Int64).alias(col))
        )
    both = [
        frame.join(docs, left_on=who, right_on=SYSTEM).select("system", "baseline", QUERY_KEY, DOC_KEY)
        for who in ("system", "baseline")
    ]
    union = pl.concat(both).unique().group_by("system", "baseline", QUERY_KEY).agg(pl.len().alias(N_UNION))
    union = union.with_columns(pl.col(N_UNION).cast(pl.Int64))
    keys = ["system", "baseline", QUERY_KEY]
    out = union.join(sides[0], on=keys, how="left").join(sides[1], on=keys, how="left")
    return out.with_columns(pl.col(N_SYS, N_BASE).fill_null(0))


def with_holes(
    pair_rows: pl.DataFrame,
    runs: Sequence[pl.LazyFrame],
    qrels: Any,
    *,
    names: tuple[str, str, str, str, str, str],
    pairs: Sequence[tuple[str, str]],
    labels: Sequence[str],
    opts: Options,
    depth: int,
    grade: float | None,
    base_ranked: bool = True,
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """compare's pair rows with each query's delta bounds and hole counts
    (:data:`HOLE_COLUMNS`; a query without holes keeps its delta, with 0 holes), and the
    per-(system, query) hole table.

    ``names``: the pair rows' system, baseline, measure, baseline-value, delta and query columns;
    ``runs``: the stacked runs (a String :data:`SYSTEM` column) of the ranked systems, in groups
    ranked alike (:meth:`irframe._input.runs.Stack.alike`).
    """
    system, baseline, measure, base_value, delta, query = names
    table = hole_table(runs, qrels, opts, depth)
    g = fill_grade(qrels, opts, grade)
    values = delta_bounds(
        runs, table, qrels, pairs=pairs, labels=labels, opts=opts, grade=g, base_ranked=base_ranked
    )
    keys = [system, baseline, QUERY_KEY, measure]
    rows = pair_rows.with_columns(pl.col(query).cast(pl.String).alias(QUERY_KEY))
    ours = {system: "system", baseline: "baseline", measure: "measure"}
    current = rows.select(*keys, pl.col(base_value).alias("current_baseline")).rename(ours)
    joined = values.join(current, on=["system", "baseline", QUERY_KEY, "measure"], how="inner")
    bounds = per_query_bounds(joined).rename({v: k for k, v in ours.items()})
    counts = hole_counts(table, pairs, opts.query_col).rename({"system": system, "baseline": baseline})
    out = rows.join(bounds, on=keys, how="left", maintain_order="left").join(
        counts, on=[system, baseline, QUERY_KEY], how="left", maintain_order="left"
    )
    out = out.with_columns(
        pl.col(LO).fill_null(pl.col(delta)), pl.col(HI).fill_null(pl.col(delta)),
        pl.col(N_SYS, N_BASE, N_UNION).fill_null(0),
    ).drop(QUERY_KEY)  # fmt: skip
    return out, table


def hole_summary(row: Any, weights: Any = None) -> dict[str, Any]:
    """A comparison's hole columns (:data:`SUMMARY_SCHEMA`) from its grouped pair rows:
    the holes summed over its queries, the bounds of its (weighted) mean delta.

    Examples
    --------
    >>> hole_summary({LO: [-0.5, 0.0], HI: [0.5, 0.0], N_SYS: [2, 0], N_BASE: [1, 0], N_UNION: [3, 0]})
    {'n_holes': 2, 'n_holes_baseline': 1, 'n_to_judge': 3, 'delta_low': -0.25, 'delta_high': 0.25}
    """
    import numpy as np

    lo, hi = (np.asarray(row[c], dtype=np.float64) for c in (LO, HI))
    w = None if weights is None else np.asarray(weights, dtype=np.float64)
    if lo.size == 0 or (w is not None and not np.any(w > 0)):
        low = high = None
    else:
        low, high = (float(np.average(v, weights=w)) for v in (lo, hi))
    return {
        "n_holes": int(np.sum(row[N_SYS])), "n_holes_baseline": int(np.sum(row[N_BASE])),
        "n_to_judge": int(np.sum(row[N_UNION])), "delta_low": low, "delta_high": high,
    }  # fmt: skip
