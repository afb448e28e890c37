"""From the canonical log to the statistics table: per unit sums, then per group sums.

One row per (segments, arm, metric, position) with ``n_units``, ``n_impressions``,
``numerator``, ``denominator`` and the sums the delta method needs (``_sx``...).  Every
step is a polars aggregation; the unit table (one row per (segments, arm, unit)) is kept
for the cluster bootstrap and the arm checks.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import Literal

import polars as pl

from irframe._input.columns import natural_order
from irframe._input.logs import IMPRESSION, POSITION, check_impressions, clean_sorted_log, impression_checks
from irframe.exceptions import InvalidDataError
from irframe.online._dask import dask_rows, per_partition
from irframe.online._log import (
    ARM,
    UNIT,
    OnlineLog,
    attribute_checks,
    check_impression_attributes,
    check_times,
)
from irframe.online._metrics import OnlineMetric, impression_table, position_rows
from irframe.online._outofcore import bucket_log, split_impressions, whole_rows
from irframe.online._spark import pack, spark_tasks, unpack
from irframe.online._stats import moment_aggs

__all__ = ["Tables", "group_tables"]

logger = logging.getLogger("irframe.online")
_ALL = "_all"
_SUMS = ("_sx", "_sy", "_sxx", "_syy", "_sxy")
_CHK = "_chk_"
_SESSION_FAMILIES = ("Reformulation", "SuccessfulSession")
_TIMES = (IMPRESSION, "session_id", "timestamp", "_ttfc")


@dataclass(frozen=True)
class Tables:
    """The statistics (one row per group, metric, position) and the unit table."""

    stats: pl.DataFrame
    units: pl.DataFrame
    notes: tuple[str, ...]
    positions: pl.DataFrame | None = None  # PositionCTR's sums per (group, unit, position)


def _needed(olog: OnlineLog, metrics: Sequence[OnlineMetric], groups: Sequence[str]) -> list[str]:
    keep = [UNIT, *groups]
    roles = {r for m in metrics for r in m.needs if m.family != "PositionCTR"}
    keep += [r for r in ("session_id", "timestamp") if r in roles]
    return list(dict.fromkeys(keep))


def _session_counts(imp: pl.LazyFrame, metrics: Sequence[OnlineMetric]) -> dict[str, int]:
    """The session rules' counts (additive over buckets): impressions, last of their session,
    next query after each Reformulation window."""
    refs = [m for m in metrics if m.family == "Reformulation"]
    if not refs:
        return {}
    aggs = [pl.col("_last_of_session").sum().alias("last"), pl.len().alias("n")]
    aggs += [pl.col(f"_cut_{m.key}").sum().alias(m.key) for m in refs]
    return {k: int(v) for k, v in imp.select(aggs).collect().row(0, named=True).items()}


def _session_notes(row: dict[str, int], metrics: Sequence[OnlineMetric]) -> list[str]:
    notes = [
        f"{m}: of {row['n']} impressions, {row['last']} end their session (no next query) and "
        f"{row[m.key]} have their next query after the {m.param:g} s window; both count as not reformulated."
        for m in metrics
        if m.family == "Reformulation"
    ]
    for n in notes:
        logger.info(n)
    return notes


def _engine(olog: OnlineLog) -> Literal["auto", "streaming"]:
    """A lazy log (a scan of files) is read by polars' streaming engine: the passes over the rows
    run out of core; only the per-impression and per-unit tables are held in memory."""
    return "streaming" if olog.origin.kind == "polars-lazy" else "auto"


def _impressions(olog: OnlineLog, metrics: Sequence[OnlineMetric], keep: Sequence[str]) -> pl.DataFrame:
    """One pass over the log: the impression table, the log's checks and the experiment's
    (:func:`irframe._input.logs.impression_checks`, :func:`attribute_checks`) run on it."""
    if _clean_sorted(olog, keep):
        # every check proved on the rows: the impression table without them, on sorted keys
        lf = olog.lf.with_columns(pl.col(IMPRESSION).set_sorted())
        imp = impression_table(lf, metrics, keep).collect(engine=_engine(olog))
        check_times(imp.lazy().select(c for c in _TIMES if c in imp.columns))
        return imp
    checks = [*impression_checks(_CHK), *attribute_checks(keep)]
    if olog.dask is None:
        imp = impression_table(olog.lf, metrics, keep, checks).collect(engine=_engine(olog))
    else:
        sessions = "session_id" in keep and any(m.family in _SESSION_FAMILIES for m in metrics)
        on = olog.names["session_id" if sessions else "impression_id"]
        imp = per_partition(olog, lambda lf: impression_table(lf, metrics, keep, checks), on)
    per = imp.select(IMPRESSION, pl.col(f"^{_CHK}.*$").name.map(lambda c: c.removeprefix(_CHK)))
    check_impressions(per.lazy(), olog.lf if olog.dask is None else dask_rows(olog), olog.cols)
    check_impression_attributes(imp, olog, keep)
    if imp.get_column(UNIT).null_count():
        msg = f"The log's unit column {olog.names.get('unit')!r} has nulls; every impression needs its unit."
        raise InvalidDataError(msg)
    check_times(imp.lazy().select(c for c in _TIMES if c in imp.columns))
    return imp


def _clean_sorted(olog: OnlineLog, keep: Sequence[str]) -> bool:
    """Whether the log is sorted by (impression, position) and passes every check of the
    general path (:func:`irframe._input.logs.clean_sorted_log`, one row-wise pass, with the
    unit, arm, segments and session constant within an impression and the unit never null).
    Then the impression table needs no per-impression checks: no ``n_unique``, no hashes; a
    log that is not sorted (or has a problem) takes the general path, which names it.

    A lazy log (a scan, a bucket) is proved by its own streaming pass before the impression
    table's: a constant-memory select of row comparisons, cheaper than the general path's
    checks (a tenth of its time on a 1e7-row scan), so a failed proof costs little."""
    if olog.dask is not None:
        return False
    proof = clean_sorted_log(olog.lf.collect_schema(), keep)
    if proof is None:
        return False
    ok = olog.lf.select(proof & pl.col(UNIT).is_not_null().all()).collect(engine=_engine(olog))
    return bool(ok.item())


@dataclass(frozen=True)
class _Chunk:
    """A log's (or a bucket's) per-unit sums, PositionCTR's per (unit, position), the session
    counts: every one additive over buckets."""

    units: pl.DataFrame
    per_unit: pl.DataFrame | None
    counts: dict[str, int]


def _chunk(olog: OnlineLog, metrics: Sequence[OnlineMetric], keep: Sequence[str], keys: list[str]) -> _Chunk:
    imp = _impressions(olog, metrics, keep)
    sums = [pl.len().alias("_imps")]
    scalar = [m for m in metrics if m.family != "PositionCTR"]
    sums += [pl.col(f"_{p}_{m.key}").sum() for m in scalar for p in ("num", "den")]
    units = imp.lazy().with_columns(pl.lit(True).alias(_ALL)).group_by([*keys, UNIT]).agg(sums).collect()
    per_unit = None
    if any(m.family == "PositionCTR" for m in metrics):
        if olog.dask is None:
            per_unit = _position_per_unit(olog.lf, keys).collect(engine=_engine(olog))
        else:
            on = olog.names["impression_id"]
            partial = per_partition(olog, lambda lf: _position_per_unit(lf, keys), on)
            per_unit = partial.group_by([*keys, UNIT, POSITION]).agg(pl.col("^_(num|den)_.*$").sum())
    return _Chunk(units, per_unit, _session_counts(imp.lazy(), metrics))


def _buckets(
    olog: OnlineLog, metrics: Sequence[OnlineMetric], keep: Sequence[str], keys: list[str]
) -> _Chunk:
    """Out of core: each bucket's chunk, the sums added per unit (and position)."""
    if olog.spark is not None:
        task = partial(_packed_chunk, metrics=metrics, keep=keep, keys=keys)
        chunks = [_unpacked_chunk(row) for row in spark_tasks(olog, task)]
    else:
        chunks = [_chunk(bucket_log(olog, lf), metrics, keep, keys) for lf in olog.buckets or ()]
    chunks = chunks or [_chunk(bucket_log(olog, olog.lf), metrics, keep, keys)]  # (an empty log: its error)
    units = pl.concat([c.units for c in chunks]).group_by([*keys, UNIT]).agg(pl.all().sum())
    if olog.bucket_key != "impression_id" and split_impressions(olog, int(units["_imps"].sum())):
        _impressions(bucket_log(olog, whole_rows(olog)), metrics, keep)  # (raises, naming the impression)
        msg = "The log has an impression whose rows disagree on its session; an impression has one session."
        raise InvalidDataError(msg)
    per_unit = None
    if chunks[0].per_unit is not None:
        per = pl.concat([c.per_unit for c in chunks if c.per_unit is not None])
        per_unit = per.group_by([*keys, UNIT, POSITION]).agg(pl.all().sum())
    counts = {k: sum(c.counts[k] for c in chunks) for k in chunks[0].counts}
    return _Chunk(units, per_unit, counts)


def _packed_chunk(
    olog: OnlineLog, *, metrics: Sequence[OnlineMetric], keep: Sequence[str], keys: list[str]
) -> pl.DataFrame:
    """A Spark task: a partition's chunk as one row."""
    chunk = _chunk(olog, metrics, keep, keys)
    return pack({"units": chunk.units, "per_unit": chunk.per_unit}, chunk.counts)


def _unpacked_chunk(row: pl.DataFrame) -> _Chunk:
    frames, counts = unpack(row)
    assert frames["units"] is not None
    return _Chunk(frames["units"], frames["per_unit"], counts)


def group_tables(olog: OnlineLog, metrics: Sequence[OnlineMetric], groups: Sequence[str]) -> Tables:
    """The unit table and the per-group sums of every metric (``groups``: segments and arm)."""
    keep = _needed(olog, metrics, groups)
    keys = [_ALL, *groups]
    local = olog.buckets is None and olog.spark is None
    chunk = _chunk(olog, metrics, keep, keys) if local else _buckets(olog, metrics, keep, keys)
    notes = _session_notes(chunk.counts, metrics)
    units = chunk.units
    counts = units.group_by(keys).agg(pl.len().alias("n_units"), pl.col("_imps").sum().alias("n_impressions"))
    parts = [_scalar_stats(units, m, keys) for m in metrics if m.family != "PositionCTR"]
    if chunk.per_unit is not None:
        per_unit = chunk.per_unit
        # every group gets every position some group saw (a position an arm never showed: sums
        # of 0, value NaN), so that no comparison drops out of the table
        pos = _position_stats(per_unit, keys)
        grid = counts.select(keys).join(pos.select(POSITION).unique(), how="cross")
        pos = grid.join(pos, on=[*keys, POSITION], how="left", nulls_equal=True)
        parts.append(pos.with_columns(pl.lit("PositionCTR").alias("metric")))
    stats = pl.concat(parts, how="diagonal_relaxed") if parts else pl.DataFrame()
    stats = counts.join(stats, on=keys, how="left", nulls_equal=True)
    order = {str(m): i for i, m in enumerate(metrics)}
    stats = stats.with_columns(
        pl.col("metric").replace_strict(order, return_dtype=pl.Int64).alias("_m"),
        *[pl.col(s).fill_null(0.0) for s in (*_SUMS, "numerator", "denominator")],
    )
    segs = [g for g in groups if g != ARM]
    arm = natural_order(stats.schema, [ARM]) if ARM in groups else []
    sort = [*(natural_order(stats.schema, segs) if segs else []), pl.col("_m"), pl.col(POSITION), *arm]
    stats = stats.sort(sort, nulls_last=False).drop("_m", _ALL)
    stats = stats.with_columns(pl.col("n_units", "n_impressions").cast(pl.Int64))
    positions = None if chunk.per_unit is None else chunk.per_unit.drop(_ALL)
    return Tables(stats, units.drop(_ALL), tuple(notes), positions)


def _scalar_stats(units: pl.DataFrame, m: OnlineMetric, keys: Sequence[str]) -> pl.DataFrame:
    num, den = f"_num_{m.key}", f"_den_{m.key}"
    return (
        units.group_by(keys)
        .agg(moment_aggs(num, den))
        .with_columns(
            pl.lit(str(m)).alias("metric"),
            pl.lit(None, dtype=pl.Int64).alias(POSITION),
            pl.col("_sx").alias("numerator"),
            pl.col("_sy").alias("denominator"),
        )
    )


def _position_per_unit(lf: pl.LazyFrame, keys: Sequence[str]) -> pl.LazyFrame:
    """PositionCTR's sums per (group, unit, position): additive over any split of the rows."""
    rows = position_rows(lf.with_columns(pl.lit(True).alias(_ALL)))
    return rows.group_by([*keys, UNIT, POSITION]).agg(
        pl.col("_num_PositionCTR").sum(), pl.col("_den_PositionCTR").sum()
    )


def _position_stats(per_unit: pl.DataFrame, keys: Sequence[str]) -> pl.DataFrame:
    """PositionCTR: per (group, position); a unit that never saw a position adds 0 to both
    sums (it still counts in ``n_units``, joined from the unit table)."""
    out = per_unit.group_by([*keys, POSITION]).agg(moment_aggs("_num_PositionCTR", "_den_PositionCTR"))
    return out.with_columns(
        pl.lit("PositionCTR").alias("metric"),
        pl.col("_sx").alias("numerator"),
        pl.col("_sy").alias("denominator"),
    )
