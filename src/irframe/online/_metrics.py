"""The online metrics: each a ratio of per-unit sums, defined once as per-impression
numerators and denominators.

=====================  ===========================================  ============================
metric                 numerator (per impression)                   denominator (per impression)
=====================  ===========================================  ============================
``CTR@k``              1 if a result in the top k was clicked       1
``CTR``                1 if any result was clicked                  1
``Abandonment``        1 if no result was clicked                   1
``ClicksPerQuery``     the clicked results (rows with clicked > 0)  1
``RRFirstClick``       1 / position of the top-most click (0: none) 1
``TimeToFirstClick``   first click_time - timestamp (0: no click)   1 if clicked (else 0)
``SATClick@t``         1 if a click had dwell >= t seconds          1
``Reformulation@w``    1 if the session's next impression, within   1
                       w seconds (default 300), is another query
``SuccessfulSession``  1 if the session had a click of dwell >= t   1 per session (its first
``@t``                 (default 30), on the session's first         impression)
                       impression
``PositionCTR``        clicks at position p                         impressions showing p
=====================  ===========================================  ============================

A unit's value is the ratio of its sums; the metric's value over a group of units is
``sum(numerators) / sum(denominators)`` (a ratio of means), so a unit without clicks adds 0
to both sums of ``TimeToFirstClick`` (and counts in ``n_units``).  A row is clicked when
``clicked > 0`` (:func:`irframe._input.logs.is_click`).  ``Reformulation``: an impression
whose session has no next impression, or whose next one comes after the window, is not a
reformulation (and stays in the denominator); how many impressions end their session and
how many were cut by the window is logged (``irframe.online``) and in the report.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import polars as pl

from irframe._input.logs import CLICKED, IMPRESSION, POSITION, QUERY, is_click
from irframe.exceptions import InvalidParameterError, UnknownMeasureError, closest

__all__ = ["METRICS", "OnlineMetric", "impression_table", "parse_metrics"]

#: name -> (default parameter or None when it takes none, the optional log roles it needs)
METRICS: dict[str, tuple[float | None, tuple[str, ...]]] = {
    "CTR": (None, ()),
    "Abandonment": (None, ()),
    "ClicksPerQuery": (None, ()),
    "RRFirstClick": (None, ()),
    "TimeToFirstClick": (None, ("timestamp", "click_time")),
    "SATClick": (30.0, ("dwell",)),
    "Reformulation": (300.0, ("session_id", "timestamp")),
    "SuccessfulSession": (30.0, ("session_id", "timestamp", "dwell")),  # (timestamp: the first impression)
    "PositionCTR": (None, ()),
}
_PARAM_OPTIONAL = {"CTR"}  # CTR without @k: any click
_NAME = re.compile(r"^([A-Za-z]+)(?:@(\d+(?:\.\d+)?))?$")


@dataclass(frozen=True)
class OnlineMetric:
    """A parsed online metric: its family and parameter; ``str()`` is its canonical name."""

    family: str
    param: float | None

    def __str__(self) -> str:
        if self.param is None:
            return self.family
        p = int(self.param) if float(self.param).is_integer() else self.param
        return f"{self.family}@{p}"

    @property
    def key(self) -> str:
        """A column-safe name for the per-impression columns."""
        return str(self).replace("@", "_at_").replace(".", "_")

    @property
    def needs(self) -> tuple[str, ...]:
        return METRICS[self.family][1]


def _parse_one(name: object, where: str) -> OnlineMetric:
    if isinstance(name, OnlineMetric):
        return name
    m = _NAME.match(name) if isinstance(name, str) else None
    fam = m.group(1) if m else None
    if m is None or fam not in METRICS:
        near = closest(str(name).split("@")[0], METRICS)
        hint = f" Did you mean {near[0]!r}?" if near else ""
        msg = f"{where}: unknown online metric {name!r}. Known: {', '.join(METRICS)}.{hint}"
        raise UnknownMeasureError(msg)
    default = METRICS[fam][0]
    raw = m.group(2)
    if raw is None:
        return OnlineMetric(fam, default)
    if default is None and fam not in _PARAM_OPTIONAL:
        msg = f"{where}: the online metric {fam!r} takes no parameter; got {name!r}."
        raise UnknownMeasureError(msg)
    value = float(raw)
    if value <= 0 or (fam == "CTR" and not value.is_integer()):
        expected = "a positive integer k" if fam == "CTR" else "a positive number of seconds"
        raise InvalidParameterError.for_value("metrics", where, f"{fam}@ with {expected}", name)
    return OnlineMetric(fam, value)


def parse_metrics(metrics: str | Sequence[str], where: str) -> list[OnlineMetric]:
    """Parse ``metrics`` (a name or a list), in order, without repeats."""
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    if not names:
        raise InvalidParameterError.for_value("metrics", where, "a non-empty list of online metrics", metrics)
    return list(dict.fromkeys(_parse_one(n, where) for n in names))


def _impression_aggs(metrics: Sequence[OnlineMetric], keep: Sequence[str]) -> list[pl.Expr]:
    click = is_click() == 1
    aggs = [pl.col(c).first() for c in keep]
    # (pl.when(...).then(x).min(): nulls where not clicked; faster than x.filter(...) in a group_by)
    aggs += [click.sum().alias("_clicks"), pl.when(click).then(pl.col(POSITION)).min().alias("_first_pos")]
    fams = {m.family for m in metrics}
    for m in metrics:
        if m.family == "CTR":
            top = click if m.param is None else click & (pl.col(POSITION) <= m.param)
            aggs.append(top.any().cast(pl.Float64).alias(f"_hit_{m.key}"))
        elif m.family in ("SATClick", "SuccessfulSession"):
            sat = click & (pl.col("dwell") >= m.param)
            aggs.append(sat.any().cast(pl.Float64).alias(f"_hit_{m.key}"))
    if "TimeToFirstClick" in fams:
        first_click = pl.when(click).then(pl.col("click_time")).min()
        aggs.append((first_click - pl.col("timestamp").first()).alias("_ttfc"))
    return aggs


def _ratio_columns(m: OnlineMetric) -> tuple[pl.Expr, pl.Expr]:
    """(numerator, denominator) of ``m`` per impression, from the impression table."""
    one = pl.lit(1.0)
    clicked = (pl.col("_clicks") > 0).cast(pl.Float64)
    if m.family in ("CTR", "SATClick"):
        return pl.col(f"_hit_{m.key}"), one
    if m.family == "Abandonment":
        return 1.0 - clicked, one
    if m.family == "ClicksPerQuery":
        return pl.col("_clicks").cast(pl.Float64), one
    if m.family == "RRFirstClick":
        return (1.0 / pl.col("_first_pos")).fill_null(0.0), one
    if m.family == "TimeToFirstClick":
        return pl.col("_ttfc").cast(pl.Float64).fill_null(0.0), clicked
    if m.family == "Reformulation":
        return pl.col(f"_ref_{m.key}"), one
    # SuccessfulSession: the session's outcome on its first impression
    first = pl.col("_first_of_session").cast(pl.Float64)
    return pl.col(f"_hit_{m.key}").max().over("session_id") * first, first


def _session_columns(imp: pl.LazyFrame, metrics: Sequence[OnlineMetric]) -> pl.LazyFrame:
    """Reformulation and the sessions' first impressions, in each session's time order."""
    fams = {m.family for m in metrics}
    if not fams & {"Reformulation", "SuccessfulSession"}:
        return imp
    imp = imp.sort("session_id", "timestamp")
    nxt_t = pl.col("timestamp").shift(-1).over("session_id")
    nxt_q = pl.col(QUERY).shift(-1).over("session_id")
    cols = [(pl.col("timestamp").rank("ordinal").over("session_id") == 1).alias("_first_of_session")]
    for m in metrics:
        if m.family == "Reformulation":
            within = (nxt_t - pl.col("timestamp")) <= m.param
            ref = (within & (nxt_q != pl.col(QUERY))).fill_null(value=False)
            cols.append(ref.cast(pl.Float64).alias(f"_ref_{m.key}"))
            cols.append((nxt_t.is_not_null() & ~within.fill_null(value=False)).alias(f"_cut_{m.key}"))
    return imp.with_columns(cols).with_columns(nxt_t.is_null().alias("_last_of_session"))


def impression_table(
    lf: pl.LazyFrame, metrics: Sequence[OnlineMetric], keep: Sequence[str], checks: Sequence[pl.Expr] = ()
) -> pl.LazyFrame:
    """One row per impression with ``_num_<metric>``/``_den_<metric>`` (and the session rules'
    columns, ``_ttfc``, and the ``checks`` aggregated in the same pass).

    ``keep``: the per-impression columns carried (unit, arm, segments, session, time).
    """
    scalar = [m for m in metrics if m.family != "PositionCTR"]
    imp = lf.group_by(IMPRESSION).agg([*_impression_aggs(scalar, [QUERY, *keep]), *checks])
    imp = _session_columns(imp, scalar)
    cols = []
    for m in scalar:
        num, den = _ratio_columns(m)
        cols += [num.alias(f"_num_{m.key}"), den.alias(f"_den_{m.key}")]
    return imp.with_columns(cols)


def position_rows(lf: pl.LazyFrame) -> pl.LazyFrame:
    """PositionCTR per row: numerator = the row is clicked, denominator = 1, by position."""
    return lf.with_columns(
        (pl.col(CLICKED) > 0).cast(pl.Float64).alias("_num_PositionCTR"),
        pl.lit(1.0).alias("_den_PositionCTR"),
    )
