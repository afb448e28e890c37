"""Counterfactual (IPS) evaluation of new rankings on a click log: per query, per system.

Joachims et al. (WSDM 2017): for an additive click measure with weight lambda(rank), a new
ranking's value on one logged impression is the sum over its clicked documents of
lambda(the document's rank in the new ranking) / theta(the position it was logged at);
a query's value is the mean over its logged impressions (those without clicks count 0),
and a system's the mean over the logged queries.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl

from irframe._clicks.prepare import CLICK, ClickLog
from irframe._input.columns import resolve_run
from irframe._input.keys import DOC_KEY, QUERY_KEY, SYSTEM
from irframe._input.keys import POSITION as RANK
from irframe._input.logs import DOC, IMPRESSION, POSITION, QUERY
from irframe._input.runs import Stack, user_terms
from irframe.exceptions import (
    DuplicateRowsError,
    InvalidDataError,
    InvalidParameterError,
    UnknownMeasureError,
    closest,
)

__all__ = ["ClickMeasure", "effective_sample_size", "parse_click_measures", "per_query_values", "theta_table"]

_MEASURE = re.compile(r"^(DCG|Clicks)@(\d+)$")
WEIGHT = "__ir_weight"
_W_SUM, _W_SQUARES, _UNCOVERED = "__ir_w_sum", "__ir_w_squares", "__ir_uncovered"
_CLICKED = "__ir_clicked_rows"


@dataclass(frozen=True)
class ClickMeasure:
    """``DCG@k`` (lambda(r) = 1 / log2(r + 1)) or ``Clicks@k`` (lambda(r) = 1), 0 past k."""

    name: str
    kind: str
    cutoff: int

    def gain(self) -> pl.Expr:
        """lambda of the new ranking's rank (null rank: not retrieved, 0)."""
        rank = pl.col(RANK)
        value = 1.0 / (rank + 1).cast(pl.Float64).log(2) if self.kind == "DCG" else pl.lit(1.0)
        return pl.when(rank <= self.cutoff).then(value).otherwise(0.0)


def parse_click_measures(measures: object, where: str) -> list[ClickMeasure]:
    """``["DCG@10", "Clicks@10"]`` as :class:`ClickMeasure` values (did-you-mean otherwise)."""
    names = [measures] if isinstance(measures, str) else measures
    if not isinstance(names, Sequence) or not names:
        raise InvalidParameterError.for_value("measures", where, "a list of 'DCG@k' / 'Clicks@k'", measures)
    out = []
    for name in names:
        found = _MEASURE.match(str(name))
        if found is None or int(found[2]) < 1:
            near = closest(str(name), ["DCG@10", "Clicks@10", "DCG@5", "Clicks@5"])
            hint = f" Hint: did you mean {near[0]!r}?" if near else " Hint: e.g. 'DCG@10' or 'Clicks@10'."
            msg = (
                f"{where} estimates additive click measures: 'DCG@k' (1/log2(rank+1) per click in the "
                f"top k) and 'Clicks@k' (clicks in the top k); got {name!r}.{hint}"
            )
            raise UnknownMeasureError(msg)
        out.append(ClickMeasure(str(name), found[1], int(found[2])))
    return out


def theta_table(propensities: object, where: str) -> pl.DataFrame:
    """``position``, ``theta`` from a :func:`position_bias` frame or a {position: theta} mapping;
    theta must be a positive finite number."""
    if isinstance(propensities, Mapping):
        table = pl.DataFrame(
            {POSITION: list(propensities), "theta": [float(v) for v in propensities.values()]},
            schema={POSITION: pl.Int64, "theta": pl.Float64},
        )
    else:
        from irframe._input.frames import to_lazy

        lf, _ = to_lazy(propensities, "propensities")
        schema = lf.collect_schema()
        if POSITION not in schema or "theta" not in schema:
            msg = (
                f"{where}: propensities must have columns 'position' and 'theta' (position_bias's "
                f"result) or be a {{position: theta}} dict; got columns {list(schema)}."
            )
            raise InvalidParameterError(msg)
        table = lf.select(pl.col(POSITION).cast(pl.Int64), pl.col("theta").cast(pl.Float64)).collect()
    bad = table.filter(~(pl.col("theta") > 0) | pl.col("theta").is_null() | pl.col("theta").is_infinite())
    if bad.height:
        pos, value = bad.row(0)
        msg = (
            f"{where}: the propensity (theta) of position {pos} is {value}; IPS divides by it, so it "
            "must be a positive number. Hint: estimate it from more data, cut the log with "
            "max_position, or cap the weights with clip=."
        )
        raise InvalidDataError(msg)
    return table


def _ranked(stack: Stack, columns: Mapping[str, str | None]) -> pl.LazyFrame:
    """Every run's (system, query, doc) with its rank in THE ranking order."""
    schema = stack.lf.collect_schema()
    rc = resolve_run(
        schema, query_col=str(columns["query_col"]), doc_col=str(columns["doc_col"]),
        rank_col=columns["rank_col"], score_col=str(columns["score_col"]), relevance_col=None,
        by=[], need_relevance=False,
    )  # fmt: skip
    by, desc = rc.ranking()
    keys = [SYSTEM, QUERY_KEY]
    lf = stack.lf.with_columns(
        pl.col(rc.query).cast(pl.String).alias(QUERY_KEY), pl.col(rc.doc).cast(pl.String).alias(DOC_KEY)
    )
    dup = lf.group_by(*keys, DOC_KEY).len().filter(pl.col("len") > 1).head(1).collect()
    if dup.height:
        system, query, doc, n = dup.row(0)
        msg = (
            f"The run of system {system!r} ranks document {doc!r} {n} times for query {query!r}. "
            "Hint: keep one row per (query, document), e.g. .unique([query_col, doc_col])."
        )
        raise DuplicateRowsError(msg)
    ordered = lf.sort([SYSTEM, QUERY_KEY, *by], descending=[False, False, *desc])
    return ordered.select(*keys, DOC_KEY, (pl.int_range(pl.len()) + 1).over(keys).alias(RANK))


def _part_values(
    rows: pl.LazyFrame,
    *,
    ranked: pl.DataFrame,
    systems: pl.DataFrame,
    theta: pl.DataFrame,
    measures: list[ClickMeasure],
    clip: float | None,
) -> pl.LazyFrame:
    """One part of the log (whole queries): per (system, logged query) the measures' sums,
    ``n_impressions``, and the query's click-weight sums and uncovered clicked positions
    (repeated on each system's row)."""
    # one pass over the rows (both tables below read this one): per query its impressions and
    # its clicked rows
    per_query_rows = (
        rows.with_columns(pl.col(QUERY).cast(pl.String).alias(QUERY_KEY))
        .group_by(QUERY_KEY)
        .agg(
            pl.col(QUERY).first(),
            pl.col(IMPRESSION).n_unique().alias("n_impressions"),
            pl.struct(IMPRESSION, POSITION, DOC).filter(pl.col(CLICK) == 1).alias(_CLICKED),
        )
        .cache()  # (else the optimizer splits it in two scans, each projected its own way)
    )
    impressions = per_query_rows.select(QUERY_KEY, QUERY, "n_impressions")
    weight = (
        (1.0 / pl.col("theta")) if clip is None else pl.min_horizontal(1.0 / pl.col("theta"), pl.lit(clip))
    )
    # sorted, then summed as lists in that order (a group_by sum adds threads' partial sums in
    # any order): the same values, bit for bit, on every run and however the log is split
    clicks = (
        per_query_rows.select(QUERY_KEY, _CLICKED)
        .explode(_CLICKED)
        .unnest(_CLICKED)
        .drop_nulls(IMPRESSION)
        .join(theta.lazy(), on=POSITION, how="left")
        .with_columns(weight.alias(WEIGHT), pl.col(DOC).cast(pl.String).alias(DOC_KEY))
        .sort(QUERY_KEY, IMPRESSION, POSITION)
    )
    per_query = clicks.group_by(QUERY_KEY, maintain_order=True).agg(
        pl.col(WEIGHT).alias(_W_SUM),
        (pl.col(WEIGHT) * pl.col(WEIGHT)).alias(_W_SQUARES),
        pl.col(POSITION).filter(pl.col("theta").is_null()).unique().alias(_UNCOVERED),
    )
    scored = (
        clicks.join(systems.lazy(), how="cross")
        .join(ranked.lazy(), on=[SYSTEM, QUERY_KEY, DOC_KEY], how="left")
        .sort(SYSTEM, QUERY_KEY, IMPRESSION, POSITION)
        .group_by(SYSTEM, QUERY_KEY, maintain_order=True)
        .agg(*[(m.gain() * pl.col(WEIGHT)).alias(m.name) for m in measures])
    )
    lists = [*[m.name for m in measures], _W_SUM, _W_SQUARES]
    return (
        systems.lazy()
        .join(impressions, how="cross")
        .join(scored, on=[SYSTEM, QUERY_KEY], how="left")
        .join(per_query, on=QUERY_KEY, how="left")
        .with_columns(pl.col(*lists).list.sum().fill_null(0.0))
    )


def _uncovered(table: pl.DataFrame) -> None:
    """The clicked positions the propensities do not cover: an error naming them."""
    found = table.select(pl.col(_UNCOVERED).explode().drop_nulls().unique().sort())[_UNCOVERED]
    if found.len():
        msg = (
            f"The log has clicks at position(s) {found.to_list()[:10]} that the propensities do not "
            "cover. Hint: estimate theta for every position (position_bias on the same log), or cut "
            "the log with max_position."
        )
        raise InvalidDataError(msg)


def per_query_values(
    clog: ClickLog,
    stack: Stack,
    measures: list[ClickMeasure],
    theta: pl.DataFrame,
    *,
    clip: float | None,
    columns: Mapping[str, str | None],
) -> tuple[pl.DataFrame, float]:
    """(per (system, logged query), in that order: the measures, ``n_impressions``,
    ``in_run``; Kish's effective sample size of the clicks' IPS weights), each part of the
    log aggregated on its own (:meth:`~irframe._clicks.prepare.ClickLog.map`)."""
    with user_terms(str(columns.get("system_col") or "system")):
        ranked = _ranked(stack, columns).collect()
    systems = pl.DataFrame({SYSTEM: stack.systems})
    table = clog.map(
        lambda rows: _part_values(
            rows, ranked=ranked, systems=systems, theta=theta, measures=measures, clip=clip
        )
    ).sort(SYSTEM, QUERY_KEY)
    _uncovered(table)
    first = table.filter(pl.col(SYSTEM) == stack.systems[0])
    total, squares = (float(np.sum(first[c].to_numpy())) for c in (_W_SUM, _W_SQUARES))
    in_run = ranked.select(SYSTEM, QUERY_KEY).unique().with_columns(pl.lit(value=True).alias("in_run"))
    out = (
        table.join(in_run, on=[SYSTEM, QUERY_KEY], how="left", maintain_order="left")
        .with_columns(
            *[(pl.col(m.name) / pl.col("n_impressions")).alias(m.name) for m in measures],
            pl.col("in_run").fill_null(value=False),
        )
        .drop(_W_SUM, _W_SQUARES, _UNCOVERED)
    )
    return out, effective_sample_size(total, squares)


def effective_sample_size(total: float, squares: float) -> float:
    """Kish's effective sample size of IPS weights from their sum and their sum of squares:
    (sum w)^2 / sum w^2 (nan without a weight)."""
    return total * total / squares if squares > 0 else math.nan
