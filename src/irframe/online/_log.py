"""The online verbs' log: the shared impression log (:mod:`irframe._input.logs`) plus the
columns an experiment adds (the randomization unit, the arm, segments, sessions, times).

Internal names: the unit is ``_unit``, the arm ``_arm``, the optional roles keep their role
names (``session_id``, ``timestamp``, ``click_time``, ``dwell``, ``team``), ``by=`` columns
keep theirs.  The checks of the experiment's rules live here, once:

* the arm column has at least two values (one value: nothing to compare);
* a unit appears in one arm only (a unit in two arms is a broken randomization; the error
  lists examples); ``by=`` segments may share units;
* within an impression, the unit, the arm, the session, the timestamp and every ``by=``
  column have one value;
* times: a click earlier than its impression, or two impressions of one session at the
  same timestamp (then "the next query" has two readings), are refused with the session
  named.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl

from irframe._backends.dask import is_dask_frame
from irframe._input.frames import Origin, from_lazy, to_lazy
from irframe._input.logs import IMPRESSION, LogColumns, canonical_log, check_log, log_columns
from irframe.exceptions import ColumnNotFoundError, InvalidDataError, InvalidParameterError

__all__ = ["ARM", "UNIT", "OnlineLog", "read_online_log"]

UNIT, ARM = "_unit", "_arm"
OPTIONAL = ("session_id", "timestamp", "click_time", "dwell", "team")


@dataclass(frozen=True)
class OnlineLog:
    """The canonical log, where it came from, the caller's names and the segments."""

    lf: pl.LazyFrame
    origin: Origin
    names: Mapping[str, str]  # role -> the caller's column
    by: tuple[str, ...]
    counts: Mapping[str, int]  # n_rows, n_impressions, n_clicked_impressions (empty: not checked yet)
    cols: LogColumns
    prepare: Callable[[pl.LazyFrame], pl.LazyFrame]  # the caller's rows -> the canonical log
    dask: Any = None  # a dask DataFrame log (then ``lf`` is its empty meta, prepared)
    raw: pl.LazyFrame | None = None  # the caller's rows, as read
    buckets: tuple[pl.LazyFrame, ...] | None = None  # out of core: each bucket's canonical rows
    bucket_key: str = ""  # out of core: the role whose column the buckets hash
    spark: Any = None  # a Spark log: (the Spark DataFrame, the Spark backend); ``lf`` is empty


def _as_names(value: str | Sequence[str] | None, name: str, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, Sequence) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise InvalidParameterError.for_value(name, where, "a column name or a list of them", value)


def read_online_log(
    log: Any,
    *,
    where: str,
    unit: str | None = None,
    arm: str | None = None,
    by: str | Sequence[str] | None = None,
    need: Sequence[str] = (),
    columns: Mapping[str, str] | None = None,
    check: bool = True,
) -> OnlineLog:
    """Read ``log`` for an online verb; ``need``: the optional roles the verb needs.

    ``check=False``: the caller runs the log's checks in its own pass over the impressions
    (:func:`irframe._input.logs.impression_checks`, :func:`attribute_checks`).
    """
    dask = log if is_dask_frame(log) else None
    lf, origin = (
        (pl.from_pandas(log._meta).lazy(), Origin("pandas")) if dask is not None else to_lazy(log, "log")
    )
    if dask is not None and check:
        msg = f"{where}: a dask log is checked in its partitions; .compute() it first."
        raise InvalidParameterError(msg)
    schema = lf.collect_schema()
    names = {r: r for r in ("impression_id", "query_id", "doc_id", "position", "clicked", *OPTIONAL)}
    for role, col in (columns or {}).items():
        if role not in names or not isinstance(col, str):
            expected = f"a mapping from the log's roles ({', '.join(names)}) to column names"
            raise InvalidParameterError.for_value("columns", where, expected, dict(columns or {}))
        names[role] = col
    segs = _as_names(by, "by", where)
    extra: dict[str, str | None] = {
        r: names[r] if (r in need or names[r] in schema) else None for r in OPTIONAL
    }
    special: dict[str, str | None] = {UNIT: unit, ARM: arm} | {f"_by_{c}": c for c in segs}
    for param, spec in special.items():
        if spec is not None and spec not in schema:
            name = "unit" if param == UNIT else "arm" if param == ARM else "by"
            raise ColumnNotFoundError.from_missing(
                role=spec, missing=spec, available=list(schema), frame="log", parameter=name
            )
    added = {k: v for k, v in special.items() if v is not None}
    clash = [c for c in segs if c in names.values() or c in names]
    if clash:
        msg = f"{where}: by={clash[0]!r} is one of the log's roles; segment by another column."
        raise InvalidParameterError(msg)
    cols = log_columns(
        lf.with_columns(pl.col(v).alias(k) for k, v in added.items()).collect_schema(),
        impression_col=names["impression_id"],
        query_col=names["query_id"],
        doc_col=names["doc_id"],
        position_col=names["position"],
        clicked_col=names["clicked"],
        extra=extra | {k: k for k in added},
    )
    for role in ("timestamp", "click_time", "dwell"):
        if role in cols.extra:
            _numeric(schema[cols.extra[role]], role, cols.extra[role])

    def prepare(rows: pl.LazyFrame) -> pl.LazyFrame:
        rows = rows.with_columns(pl.col(v).alias(k) for k, v in added.items())
        return canonical_log(rows, cols).rename({f"_by_{c}": c for c in segs})

    canon = prepare(lf)
    counts = check_log(canon, cols).row(0, named=True) if check else {}
    role_names = {"impression_id": cols.impression, "query_id": cols.query, "doc_id": cols.doc}
    role_names |= {"position": cols.position, "clicked": cols.clicked}
    role_names |= {r: c for r, c in cols.extra.items() if r in OPTIONAL}
    if unit is not None:
        role_names["unit"] = unit
    if arm is not None:
        role_names["arm"] = arm
    return OnlineLog(canon, origin, role_names, segs, counts, cols, prepare, dask, lf)


def to_caller(df: pl.DataFrame, olog: OnlineLog) -> Any:
    """A result in the log's frame type: a dask log gets a dask DataFrame (one partition)."""
    if olog.dask is None:
        return from_lazy(df, olog.origin)
    import dask.dataframe

    dd: Any = dask.dataframe  # (partly annotated)
    return dd.from_pandas(df.to_pandas(), npartitions=1)


def eager_origin(origin: Origin) -> Origin:
    """The origin a small result table goes back as: a lazy caller's gets an eager polars frame."""
    return Origin("polars") if origin.kind == "polars-lazy" else origin


def _numeric(dtype: pl.DataType, role: str, col: str) -> None:
    if not (dtype.is_numeric() or dtype == pl.Null):
        msg = (
            f"The log's {role} column {col!r} must be numeric (seconds); it has dtype {dtype}. Hint: "
            f"convert it, e.g. pl.col({col!r}).dt.epoch('s') for a datetime, or pd.to_numeric."
        )
        raise InvalidDataError(msg)


def attribute_checks(cols: Sequence[str]) -> list[pl.Expr]:
    """Per impression: whether its rows disagree on each of ``cols`` (``_multi_<col>``), for
    :func:`check_impression_attributes`; nulls mixed with values count as disagreeing.

    The values are compared by their 64-bit hashes (min != max): on text columns this is 2-3x
    faster than comparing the strings; two different values with one hash (probability about
    2**-64 per pair) would go unnoticed.
    """
    out = []
    for c in cols:
        nulls = pl.col(c).null_count()
        mixed = (nulls > 0) & (nulls < pl.len())
        h = pl.col(c).hash()
        out.append(((h.min() != h.max()).fill_null(value=False) | mixed).alias(f"_multi_{c}"))
    return out


def check_impression_attributes(imp: pl.DataFrame, olog: OnlineLog, cols: Sequence[str]) -> None:
    """Refuse an impression whose rows disagree on one of ``cols`` (unit, arm, session, by...);
    ``imp``: one row per impression with :func:`attribute_checks`' columns."""
    if not cols:
        return
    bad = imp.filter(pl.any_horizontal([pl.col(f"_multi_{c}") for c in cols])).head(1)
    if bad.height == 0:
        return
    row = bad.row(0, named=True)
    col = next(c for c in cols if row[f"_multi_{c}"])
    shown = olog.names.get({UNIT: "unit", ARM: "arm"}.get(col, col), col)
    msg = (
        f"The log's impression {row[IMPRESSION]!r} has different values of {shown!r} over its rows; an "
        "impression has one. Hint: check impression_id names one result page."
    )
    raise InvalidDataError(msg)


def check_arms(units: pl.DataFrame, arm_col: str, where: str) -> list[Any]:
    """The arms (natural order), refusing one arm and units in two arms (``units``: one row
    per (segments, arm, unit) of the unit table)."""
    arms = units.get_column(ARM).unique()
    if arms.null_count():
        msg = f"{where}: the arm column {arm_col!r} has null values; every impression needs its arm."
        raise InvalidDataError(msg)
    if arms.len() < 2:
        msg = (
            f"{where}: the arm column {arm_col!r} has one value ({arms.to_list()}); an A/B comparison "
            "needs at least two arms. Hint: check the filter, or name the arm column with arm=..."
        )
        raise InvalidDataError(msg)
    many = units.group_by(UNIT).agg(pl.col(ARM).n_unique().alias("n")).filter(pl.col("n") > 1)
    twice = (
        units.join(many.select(UNIT), on=UNIT, how="semi")
        .group_by(UNIT)
        .agg(pl.col(ARM).unique().sort().alias("arms"))
    )
    if twice.height:
        ex = twice.sort(UNIT).head(3)
        shown = "; ".join(f"{u!r} in {a}" for u, a in ex.iter_rows())
        msg = (
            f"{where}: {twice.height} unit(s) appear in more than one arm of {arm_col!r} ({shown}); a unit "
            "must see one arm (a broken randomization, or the wrong unit=). Hint: check the assignment, or "
            "pass the unit that was randomized (unit='user_id' or 'session_id')."
        )
        raise InvalidDataError(msg)
    return sorted(arms.to_list(), key=str)


def check_times(imp: pl.LazyFrame) -> None:
    """Refuse a click before its impression, or two impressions of a session at one time
    (``imp``: one row per impression with ``session_id``, ``timestamp``, ``_ttfc``)."""
    schema = imp.collect_schema()
    if "_ttfc" in schema:
        early = imp.filter(pl.col("_ttfc") < 0).head(1).collect()
        if early.height:
            msg = (
                f"The log's impression {early[IMPRESSION][0]!r} has a click_time before its timestamp "
                f"({early['_ttfc'][0]} s); timestamps out of order. Hint: check both columns are seconds "
                "on the same clock."
            )
            raise InvalidDataError(msg)
    if "session_id" in schema and "timestamp" in schema:
        same = (
            imp.group_by("session_id", "timestamp")
            .agg(pl.len().alias("n"), pl.col(IMPRESSION).sort().head(2).alias("imps"))
            .filter(pl.col("n") > 1)
            .head(1)
            .collect()
        )
        if same.height:
            s, t, _, imps = same.row(0)
            msg = (
                f"The log's session {s!r} has {same['n'][0]} impressions at timestamp {t} (e.g. {imps}); "
                "their order (and so each one's next query) is undefined: timestamps out of order. "
                "Hint: use a finer timestamp, or order them and add a sequence number to the timestamp."
            )
            raise InvalidDataError(msg)
