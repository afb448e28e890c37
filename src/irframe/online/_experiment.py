"""``metrics`` and ``compare``: online search metrics per randomization unit, and the A/B test."""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypedDict

import numpy as np
import polars as pl

from irframe._distributions import t_quantile
from irframe._input.frames import from_lazy
from irframe._input.logs import POSITION
from irframe._input.params import check_level, check_resamples, check_seed
from irframe._report.online import ab_html, ab_report
from irframe.exceptions import InvalidParameterError, SampleRatioMismatchWarning
from irframe.functions import options_of
from irframe.online._log import ARM, UNIT, OnlineLog, check_arms, eager_origin, to_caller
from irframe.online._metrics import OnlineMetric, parse_metrics
from irframe.online._outofcore import online_log
from irframe.online._stats import (
    FloatArray,
    delta_columns,
    ratio_bootstrap,
    ratio_bootstrap_columns,
    srm_p_value,
    welch_row,
)
from irframe.online._tables import Tables, group_tables
from irframe.stats import CORRECTIONS, adjust_p_values

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = ["ABReport", "compare", "compare_report", "metrics"]

_OUT = ("value", "se", "ci_low", "ci_high", "n_units", "n_impressions", "numerator", "denominator")


def _needs(ms: Sequence[OnlineMetric]) -> list[str]:
    return list(dict.fromkeys(r for m in ms for r in m.needs))


def _bucket_key(ms: Sequence[OnlineMetric]) -> str:
    """Out of core, the role whose buckets keep what the metrics read whole."""
    sessions = any(m.family in ("Reformulation", "SuccessfulSession") for m in ms)
    return "session_id" if sessions else "impression_id"


def metrics(
    log: Any,
    metrics: str | Sequence[str],
    *,
    unit: str = "user_id",
    by: str | Sequence[str] | None = None,
    variance: Literal["delta", "bootstrap"] = "delta",
    level: float = 0.95,
    n_bootstrap: int = 1000,
    seed: int | None = 0,
    columns: Mapping[str, str] | None = None,
    memory_limit: int | str | None = None,
    buckets: int | None = None,
    tmp_dir: str | os.PathLike[str] | None = None,
) -> Any:
    """Online search metrics from an impression log, per group, with the unit's variance.

    Each metric is a ratio of per-unit sums (the table in :mod:`irframe.online._metrics`);
    its standard error is the delta method over the randomization units (Deng et al.,
    KDD 2018; sample moments, ``ddof=1``) or, with ``variance="bootstrap"``, the standard
    deviation of the ratio over ``n_bootstrap`` resamples of the units (a cluster bootstrap;
    the interval is then its percentile interval).  The delta interval is
    ``value +- t_{n-1} se``.

    Parameters
    ----------
    log : frame
        One row per (impression, shown document): ``impression_id``, ``query_id``,
        ``doc_id``, ``position``, ``clicked``; the unit column; ``session_id``,
        ``timestamp``, ``click_time`` and ``dwell`` (seconds) for the metrics that read them.
    metrics : str or list of str
        ``CTR@k``, ``CTR``, ``Abandonment``, ``ClicksPerQuery``, ``RRFirstClick``,
        ``TimeToFirstClick``, ``SATClick@t``, ``Reformulation@w``, ``SuccessfulSession@t``,
        ``PositionCTR``.
    unit : str, default "user_id"
        The randomization unit's column: the variance treats units, not impressions, as
        independent.
    by : str or list of str, optional
        Segments (an arm column, a device...); units may appear in several segments.
    variance : {"delta", "bootstrap"}
    level : float, default 0.95
        The confidence level of the intervals.
    n_bootstrap, seed : int
        The cluster bootstrap's resamples and seed.
    columns : mapping, optional
        The log's column names by role, e.g. ``{"query_id": "qid", "dwell": "dwell_s"}``.
    memory_limit, buckets, tmp_dir
        Out of core: the log (a frame, a scan, or parquet files, a glob, a directory) is
        written once into hash buckets of its impression id (of its session id for the
        session metrics), under ``memory_limit`` (e.g. ``"2GB"``) or into ``buckets``
        buckets, in ``tmp_dir``; each bucket is checked and summed per unit in turn, the
        sums added: the same numbers as in memory (see :mod:`irframe.online._outofcore`).


    Returns
    -------
    frame
        One row per segment, metric (and position for ``PositionCTR``): ``value``, ``se``,
        ``ci_low``, ``ci_high``, ``n_units``, ``n_impressions``, ``numerator`` and
        ``denominator`` (the sums), in the caller's frame type.

    Examples
    --------
    >>> import polars as pl
    >>> import irframe.online as online
    >>> log = pl.DataFrame({
    ...     "impression_id": [1, 1, 2, 2, 3, 3, 4, 4],
    ...     "query_id": ["a", "a", "b", "b", "a", "a", "c", "c"],
    ...     "doc_id": ["d1", "d2"] * 4,
    ...     "position": [1, 2] * 4,
    ...     "clicked": [1, 0, 0, 1, 0, 0, 1, 1],
    ...     "user_id": ["u1", "u1", "u1", "u1", "u2", "u2", "u3", "u3"],
    ... })
    >>> out = online.metrics(log, ["CTR@1", "RRFirstClick"])
    >>> out.select("metric", "value", "n_units").rows()
    [('CTR@1', 0.5, 3), ('RRFirstClick', 0.625, 3)]
    """
    where = "irframe.online.metrics"
    ms = parse_metrics(metrics, where)
    level = check_level(level, "level", where)
    if variance not in ("delta", "bootstrap"):
        raise InvalidParameterError.for_value("variance", where, "'delta' or 'bootstrap'", variance)
    with online_log(
        log, key=_bucket_key(ms), memory_limit=memory_limit, buckets=buckets, tmp_dir=tmp_dir, where=where,
        unit=unit, by=by, need=_needs(ms), columns=columns, check=False,
    ) as olog:  # fmt: skip
        tables = group_tables(olog, ms, olog.by)
    stats = tables.stats.with_columns(delta_columns())
    if variance == "delta":
        stats = _t_intervals(stats, level)
    else:
        n_boot = check_resamples(n_bootstrap, "n_bootstrap", where)
        seed_ = check_seed(seed, where)
        stats = _bootstrap(stats, tables, ms=ms, groups=olog.by, level=level, n_boot=n_boot, seed=seed_)  # type: ignore[arg-type]
    out = stats.select([*olog.by, "metric", POSITION, *_OUT])
    return to_caller(out, olog)


def _t_intervals(stats: pl.DataFrame, level: float) -> pl.DataFrame:
    qs = [t_quantile(level, n - 1) for n in stats["n_units"].to_list()]
    q = pl.Series("_q", qs, dtype=pl.Float64)
    return stats.with_columns(
        (pl.col("value") - q * pl.col("se")).alias("ci_low"),
        (pl.col("value") + q * pl.col("se")).alias("ci_high"),
    )


def _bootstrap(
    stats: pl.DataFrame,
    tables: Tables,
    *,
    ms: Sequence[OnlineMetric],
    groups: Sequence[str],
    level: float,
    n_boot: int,
    seed: int | None,
) -> pl.DataFrame:
    """The cluster bootstrap: per group, ``n_boot`` resamples of its units (the same draws for
    every metric of the group, and for PositionCTR's positions, from the seed)."""
    key = {str(m): m.key for m in ms}
    se, lo, hi = [], [], []
    units = tables.units.sort(UNIT)  # (the draws index the units: one order, whatever the group_by's)
    parts = units.partition_by(list(groups), as_dict=True) if groups else {(): units}
    position_draws: dict[tuple[Any, ...], FloatArray] = {}
    positions = sorted(stats[POSITION].drop_nulls().unique().to_list())
    for row in stats.iter_rows(named=True):
        group = tuple(row[g] for g in groups)
        part = parts[group]
        if row["metric"] == "PositionCTR":
            if group not in position_draws:
                assert tables.positions is not None
                rows = tables.positions.join(part.select(*groups, UNIT), on=[*groups, UNIT], nulls_equal=True)
                position_draws[group] = _position_draws(rows, part, positions, n_boot=n_boot, seed=seed)
            draws = position_draws[group][:, positions.index(row[POSITION])]
        else:
            k = key[row["metric"]]
            draws = ratio_bootstrap(part[f"_num_{k}"].to_numpy(), part[f"_den_{k}"].to_numpy(), n_boot, seed)
        ok = draws[np.isfinite(draws)]
        se.append(float(ok.std(ddof=1)) if ok.size > 1 else math.nan)
        tail = (1 - level) / 2
        lo.append(float(np.quantile(ok, tail)) if ok.size else math.nan)
        hi.append(float(np.quantile(ok, 1 - tail)) if ok.size else math.nan)
    return stats.with_columns(
        pl.Series("se", se, dtype=pl.Float64), pl.Series("ci_low", lo, dtype=pl.Float64),
        pl.Series("ci_high", hi, dtype=pl.Float64),
    )  # fmt: skip


def _position_draws(
    rows: pl.DataFrame, units: pl.DataFrame, positions: list[Any], *, n_boot: int, seed: int | None
) -> FloatArray:
    """PositionCTR's bootstrap ratios of one group (``rows``: its sums per (unit, position);
    ``units``: its unit table): the units x positions sums (0 where a unit never saw a
    position), resampled by unit with one draw set for every position."""
    index = units.select(UNIT).with_row_index("_r")
    cells = rows.join(index, on=UNIT, how="inner").with_columns(
        pl.col(POSITION)
        .replace_strict({p: i for i, p in enumerate(positions)}, return_dtype=pl.Int64)
        .alias("_c")
    )
    r, c = cells["_r"].to_numpy(), cells["_c"].to_numpy()
    x, y = np.zeros((units.height, len(positions))), np.zeros((units.height, len(positions)))
    np.add.at(x, (r, c), cells["_num_PositionCTR"].to_numpy())
    np.add.at(y, (r, c), cells["_den_PositionCTR"].to_numpy())
    return ratio_bootstrap_columns(x, y, n_boot, seed)


def _ab_table(
    log: Any,
    metrics: str | Sequence[str],
    *,
    arm: str = "arm",
    control: Any = None,
    unit: str = "user_id",
    by: str | Sequence[str] | None = None,
    level: float = 0.95,
    correction: str = "holm",
    expected_split: Mapping[Any, float] | None = None,
    srm_alpha: float = 0.001,
    columns: Mapping[str, str] | None = None,
    memory_limit: int | str | None = None,
    buckets: int | None = None,
    tmp_dir: str | os.PathLike[str] | None = None,
) -> tuple[pl.DataFrame, OnlineLog, dict[str, Any]]:
    """compare's table (polars), the log read, and the facts its report prints: the one list
    of :func:`compare`'s keyword options, which it and :func:`compare_report` show."""
    where = "irframe.online.compare"
    ms = parse_metrics(metrics, where)
    level = check_level(level, "level", where)
    if not isinstance(correction, str) or correction.lower() not in CORRECTIONS:
        raise InvalidParameterError.for_value(
            "correction", where, f"one of {sorted(set(CORRECTIONS.values()))}", correction
        )
    with online_log(
        log, key=_bucket_key(ms), memory_limit=memory_limit, buckets=buckets, tmp_dir=tmp_dir, where=where,
        unit=unit, arm=arm, by=by, need=_needs(ms), columns=columns, check=False,
    ) as olog:  # fmt: skip
        tables = group_tables(olog, ms, [*olog.by, ARM])
    arms = check_arms(tables.units.select(ARM, UNIT).unique(), arm, where)
    if control not in arms:
        msg = f"{where}: control={control!r} is not a value of the arm column {arm!r}; name one of {arms}."
        raise InvalidParameterError(msg)
    stats = tables.stats.with_columns(delta_columns())
    srm = _srm(tables.units, olog.by, arms=arms, expected=expected_split, alpha=srm_alpha, where=where)
    out = _comparisons(stats, olog.by, control, level)
    out = (
        out.join(srm, on=list(olog.by), how="left", nulls_equal=True)
        if olog.by
        else out.with_columns(srm_p_value=srm["srm_p_value"][0])
    )
    p_adj = adjust_p_values(out["p_value"].to_numpy(), correction)
    out = out.with_columns(pl.Series("p_adjusted", p_adj, dtype=pl.Float64))
    out = out.with_columns((pl.col("p_adjusted") < 1 - level).alias("significant"))
    cols = [*olog.by, "metric", POSITION, "arm", *_COMPARE_COLS]
    facts = {"control": str(control), "unit": unit, "correction": CORRECTIONS[correction.lower()],
             "level": level, "srm_alpha": srm_alpha, "notes": list(tables.notes)}  # fmt: skip
    return out.select(cols), olog, facts


class ABOptions(TypedDict, total=False):
    """The keyword options of :func:`compare` and :func:`compare_report` (their one list is
    ``_ab_table``'s signature, which both show: :func:`irframe.functions.options_of`), for
    the type checkers; ``tests/meta/test_signatures.py`` keeps them equal."""

    arm: str
    control: Any
    unit: str
    by: str | Sequence[str] | None
    level: float
    correction: str
    expected_split: Mapping[Any, float] | None
    srm_alpha: float
    columns: Mapping[str, str] | None
    memory_limit: int | str | None
    buckets: int | None
    tmp_dir: str | os.PathLike[str] | None


@options_of(_ab_table)
def compare(log: Any, metrics: str | Sequence[str], **options: Unpack[ABOptions]) -> Any:
    """An A/B test on an impression log: each arm against the control, per metric.

    The numbers are tea-tasting's ``RatioOfMeans`` defaults on the table of per-unit sums
    (one row per unit: the metric's numerator and denominator): the ratio per arm, the
    delta-method variance (``ddof=1``), Welch's t (unequal variances, Welch-Satterthwaite
    degrees of freedom), the absolute difference with its t interval, and the relative lift
    (a fraction) with tea-tasting's interval, computed on the log scale:
    ``ratio * exp(+-t se_log) - 1`` with ``se_log**2 = s2_c / (n_c r_c**2) + s2_t / (n_t r_t**2)``.
    The p-values are corrected over the whole table (``correction=``, as
    :func:`irframe.compare`: Holm, Bonferroni, BH or none).

    A sample-ratio mismatch (SRM) check runs per segment: Pearson's chi-square of the units
    per arm against ``expected_split`` (equal by default); its p-value is the column
    ``srm_p_value`` and a :class:`~irframe.exceptions.SampleRatioMismatchWarning` is issued
    below ``srm_alpha``.  A unit seen in two arms is refused (a broken randomization),
    as is an arm column with one value.  This is the comparison for arms that saw
    different units; :func:`irframe.compare` pairs systems on the same queries.

    Parameters
    ----------
    log : frame
        The impression log (see :func:`metrics`) with an arm column.
    metrics : str or list of str
        As :func:`metrics`.
    arm : str, default "arm"
        The arm column.
    control : value
        The control arm's value in ``arm`` (required: every other arm is compared with it).
    unit : str, default "user_id"
        The randomization unit.
    by : str or list of str, optional
        Segments; each segment is compared on its own.
    level : float, default 0.95
    correction : {"holm", "bonferroni", "bh", "none"}
    expected_split : mapping, optional
        The designed share of units per arm, e.g. ``{"A": 0.5, "B": 0.5}``.
    srm_alpha : float, default 0.001
    columns : mapping, optional
        The log's column names by role.
    memory_limit, buckets, tmp_dir
        Out of core (or the partitions of a Spark log), as :func:`metrics`: the same numbers
        as in memory.

    Returns
    -------
    frame
        One row per segment, metric, (position) and treatment arm: ``control_value``,
        ``treatment_value``, ``diff`` and ``lift`` with their ``_ci_low``/``_ci_high``,
        ``statistic``, ``df``, ``p_value``, ``p_adjusted``, ``significant`` (``p_adjusted <
        1 - level``), ``n_control``, ``n_treatment`` (units) and ``srm_p_value``.

    Examples
    --------
    >>> import polars as pl
    >>> import irframe.online as online
    >>> log = pl.DataFrame({
    ...     "impression_id": [1, 2, 3, 4, 5, 6, 7, 8],
    ...     "query_id": ["a"] * 8, "doc_id": ["d"] * 8, "position": [1] * 8,
    ...     "clicked": [1, 0, 1, 1, 1, 1, 0, 1],
    ...     "user_id": ["u1", "u1", "u2", "u3", "u4", "u4", "u5", "u6"],
    ...     "arm": ["A", "A", "A", "A", "B", "B", "B", "B"],
    ... })
    >>> out = online.compare(log, "CTR", control="A")
    >>> out.select("arm", "control_value", "treatment_value", "diff").rows()
    [('B', 0.75, 0.75, 0.0)]
    """
    out, olog, _ = _ab_table(log, metrics, **options)
    return to_caller(out, olog)


@dataclass(frozen=True)
class ABReport:
    """An A/B comparison and its renderings (:func:`compare_report`).

    Attributes
    ----------
    table : frame
        :func:`compare`'s table, in the log's frame type.
    by : tuple of str
        The segments.
    facts : dict
        The control, unit, correction, level, SRM threshold and the notes of the metrics' rules.
    """

    table: Any
    by: tuple[str, ...]
    facts: dict[str, Any]
    _polars: pl.DataFrame = field(repr=False)

    def to_text(self) -> str:
        """The report as plain text (a table per comparison, the SRM check, the notes)."""
        return ab_report(self._polars, self.by, self.facts, "text")

    def to_markdown(self) -> str:
        """The report as Markdown."""
        return ab_report(self._polars, self.by, self.facts, "markdown")

    def html_page(self) -> str:
        """The report as one self-contained HTML page (a lift plot when matplotlib is installed)."""
        return ab_html(self._polars, self.by, self.facts)

    def __str__(self) -> str:
        return self.to_text()


@options_of(_ab_table)
def compare_report(log: Any, metrics: str | Sequence[str], **options: Unpack[ABOptions]) -> ABReport:
    """:func:`compare` as a report: the same keywords, the table and its text, Markdown and HTML.

    It is a report, not a gate: nothing in it raises on the result.

    Examples
    --------
    >>> import polars as pl
    >>> from irframe import online
    >>> log = pl.DataFrame({
    ...     "impression_id": [1, 2, 3, 4, 5, 6], "query_id": ["a"] * 6, "doc_id": ["d"] * 6,
    ...     "position": [1] * 6, "clicked": [1, 0, 1, 1, 1, 0],
    ...     "user_id": ["u1", "u2", "u3", "u4", "u5", "u6"], "arm": ["A", "A", "A", "B", "B", "B"],
    ... })
    >>> report = online.compare_report(log, "CTR", control="A")
    >>> print(report.to_text().splitlines()[0])
    irframe online compare
    """
    out, olog, facts = _ab_table(log, metrics, **options)
    return ABReport(from_lazy(out, eager_origin(olog.origin)), olog.by, facts, out)


_COMPARE_COLS = (
    "control_value", "treatment_value", "diff", "diff_ci_low", "diff_ci_high", "lift", "lift_ci_low",
    "lift_ci_high", "statistic", "df", "p_value", "p_adjusted", "significant", "n_control", "n_treatment",
    "srm_p_value",
)  # fmt: skip


def _comparisons(stats: pl.DataFrame, by: Sequence[str], control: Any, level: float) -> pl.DataFrame:
    keys = [*by, "metric", POSITION]
    ctrl = stats.filter(pl.col(ARM) == control).select(
        *keys,
        pl.col("value").alias("_cv"),
        pl.col("unit_var").alias("_cs2"),
        pl.col("n_units").alias("n_control"),
    )
    treat = stats.filter(pl.col(ARM) != control)
    # left: a segment without the control arm keeps its rows (NaN; the SRM check flags it)
    pairs = treat.join(ctrl, on=keys, how="left", nulls_equal=True).with_columns(
        pl.col("_cv", "_cs2").fill_null(float("nan")), pl.col("n_control").fill_null(0)
    )
    rows = [
        welch_row(
            r["_cv"],
            r["_cs2"] if r["_cs2"] is not None else float("nan"),
            r["n_control"],
            t_mean=r["value"],
            t_var=r["unit_var"],
            t_n=r["n_units"],
            level=level,
        )
        for r in pairs.iter_rows(named=True)
    ]
    cols = {k: pl.Series(k, [r[k] for r in rows], dtype=pl.Float64) for k in _COMPARE_COLS[2:11]}
    return pairs.select(
        *keys,
        pl.col(ARM).alias("arm"),
        pl.col("_cv").alias("control_value"),
        pl.col("value").alias("treatment_value"),
        *[pl.lit(s) for s in cols.values()],
        "n_control",
        pl.col("n_units").alias("n_treatment"),
    )


def _srm(
    units: pl.DataFrame,
    by: Sequence[str],
    *,
    arms: list[Any],
    expected: Mapping[Any, float] | None,
    alpha: float,
    where: str,
) -> pl.DataFrame:
    """Per segment: the chi-square p-value of units per arm against the designed split."""
    if expected is None:
        weights = [1.0] * len(arms)
    else:
        if (
            not isinstance(expected, Mapping)
            or set(expected) != set(arms)
            or any(not isinstance(v, int | float) or v <= 0 for v in expected.values())
        ):
            raise InvalidParameterError.for_value(
                "expected_split", where, f"a mapping from each arm ({arms}) to its positive share", expected
            )
        weights = [float(expected[a]) for a in arms]
    counts = units.group_by([*by, ARM]).agg(pl.len().alias("n"))
    groups = counts.partition_by(list(by), as_dict=True) if by else {(): counts}
    rows = []
    for key, part in groups.items():
        n_of = dict(zip(part[ARM].to_list(), part["n"].to_list(), strict=True))
        observed = [int(n_of.get(a, 0)) for a in arms]
        p = srm_p_value(observed, weights)
        rows.append((*key, p))
        if p < alpha:
            seg = f" in segment {dict(zip(by, key, strict=True))}" if by else ""
            shown = ", ".join(f"{a}: {o}" for a, o in zip(arms, observed, strict=True))
            warnings.warn(
                f"{where}: sample-ratio mismatch{seg}: units per arm {shown} against the expected split "
                f"{dict(zip(arms, weights, strict=True))} (chi-square p = {p:.3g} < {alpha}). The arms may "
                "not be comparable: check the assignment and the logging before reading the effects.",
                SampleRatioMismatchWarning,
                stacklevel=3,
            )
    schema: dict[str, pl.DataType] = {b: units.schema[b] for b in by}
    schema["srm_p_value"] = pl.Float64()
    return pl.DataFrame(rows, schema=schema, orient="row")
