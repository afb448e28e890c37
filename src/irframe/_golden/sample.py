"""sample_queries: the queries of a golden set drawn from a log, rare segments included.

The rules (traffic, allocation, the draw, weights back to the log) are written once, in
:func:`sample_queries`' Notes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from numbers import Integral
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import polars as pl

from irframe._input.frames import from_lazy, to_lazy
from irframe._report.tables import text_table
from irframe.exceptions import ColumnNotFoundError, InvalidDataError, InvalidParameterError

__all__ = ["QuerySample", "allocate", "sample_queries"]

_WHERE = "sample_queries"
_NROWS, _TRAFFIC, _KEY, _RANK = "n_rows", "traffic", "__ir_key", "__ir_rank"
FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True, repr=False)
class QuerySample:
    """The queries :func:`sample_queries` chose, and each segment's share of the log and of them.

    Attributes
    ----------
    queries : frame
        One row per chosen query, in the log's frame type: the query id, the ``by``
        columns, ``traffic`` (rows, or the sum of the weight column), ``n_rows``,
        ``segment_weight`` and every other column of the log that is constant within
        each query (its attributes, e.g. the query text).  Ordered by segment, then
        traffic (largest first), then query id.
    segments : frame
        One row per segment: ``n_available`` (distinct queries in the log),
        ``traffic``, ``log_share``, ``floor``, ``quota`` (before rounding), ``n_sampled``,
        ``sample_share``, ``floor_met``.
    n : int
        Queries asked for (and chosen).
    by : tuple of str
        The segment columns.
    seed : int or None
        The seed given.
    n_log_rows, n_log_queries : int
        Rows and distinct queries of the log.
    left_out_columns : tuple of str
        Columns of the log that vary within a query (a timestamp, a session id): they
        describe rows, not queries, and are not in ``queries``.
    """

    queries: Any
    segments: Any
    n: int
    by: tuple[str, ...]
    seed: int | None
    min_per_segment: int
    n_log_rows: int
    n_log_queries: int
    left_out_columns: tuple[str, ...] = ()
    _segments: pl.DataFrame = field(default_factory=pl.DataFrame, compare=False)

    def to_text(self) -> str:
        """The segments' shares as an aligned text table, with the counts the rules left out.

        Examples
        --------
        >>> import polars as pl, irframe
        >>> log = pl.DataFrame({"query_id": ["a", "a", "a", "b", "c"],
        ...                     "segment": ["head", "head", "head", "head", "rare"]})
        >>> print(irframe.sample_queries(log, 2, by="segment", seed=1).to_text())
        2 of 3 queries (5 log rows), by segment, at least 1 per segment, seed 1
        segment  queries  traffic  log share  floor  quota  sampled  sample share
        head           2        4      80.0%      1   1.00        1         50.0%
        rare           1        1      20.0%      1   1.00        1         50.0%
        """
        seg = self._segments
        floor = f"at least {self.min_per_segment} per segment"
        by = f"by {', '.join(self.by)}, {floor}" if self.by else "one segment (no by)"
        seed = f"seed {self.seed}" if self.seed is not None else "no seed (not reproducible)"
        lines = [
            f"{self.n} of {self.n_log_queries} queries ({self.n_log_rows} log rows), {by}, {seed}",
            _render(seg, list(self.by)),
        ]
        short = seg.filter(~pl.col("floor_met"))
        if short.height:
            names = ", ".join(_segment_name(r, self.by) for r in short.iter_rows(named=True))
            lines.append(
                f"{short.height} segment(s) had fewer queries than the floor of "
                f"{self.min_per_segment} and gave all they have: {names}"
            )
        if self.left_out_columns:
            cols = ", ".join(self.left_out_columns)
            lines.append(f"columns that vary within a query, not in the sample: {cols}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.to_text()

    def __repr__(self) -> str:
        return f"QuerySample(n={self.n}, segments={self._segments.height}, by={list(self.by)!r})"


def _segment_name(row: dict[str, Any], by: Sequence[str]) -> str:
    return "/".join("null" if row[b] is None else str(row[b]) for b in by) or "all"


def _render(seg: pl.DataFrame, by: list[str]) -> str:
    head = ["/".join(by) or "segment", "queries", "traffic", "log share", "floor", "quota", "sampled"]
    head.append("sample share")
    rows = [head]
    for r in seg.iter_rows(named=True):
        traffic = r["traffic"]
        rows.append([
            _segment_name(r, by),
            str(r["n_available"]),
            f"{traffic:g}" if isinstance(traffic, float) else str(traffic),
            f"{100 * r['log_share']:.1f}%",
            str(r["floor"]),
            f"{r['quota']:.2f}",
            str(r["n_sampled"]),
            f"{100 * r['sample_share']:.1f}%",
        ])  # fmt: skip
    return text_table(head, rows[1:], numeric=range(1, len(head)), rule=False)


# --- allocation ---------------------------------------------------------------------------
def allocate(
    traffic: npt.ArrayLike, available: npt.ArrayLike, n: int, min_per_segment: int = 1
) -> tuple[FloatArray, IntArray]:
    """Split ``n`` queries over segments: proportional to traffic, a floor each, by largest remainder.

    Parameters
    ----------
    traffic : array-like of float
        Each segment's traffic (> 0).
    available : array-like of int
        Each segment's distinct queries (>= 1).
    n : int
        Queries to allocate, at least the sum of the floors and at most ``sum(available)``.
    min_per_segment : int, default 1
        The floor; a segment with fewer queries gives them all.

    Returns
    -------
    quota : numpy.ndarray of float
        ``clip(lambda * traffic, floor, available)``, summing to ``n``.
    counts : numpy.ndarray of int
        The quotas rounded by largest remainder (ties: larger traffic, then lower index).

    Examples
    --------
    Proportional shares 3.5, 2.1, 1.4 of 7: floors of 3, 2, 1 and the one left over to
    the largest remainder (0.5):

    >>> quota, counts = allocate([50, 30, 20], [9, 9, 9], 7)
    >>> quota.round(2).tolist(), counts.tolist()
    ([3.5, 2.1, 1.4], [4, 2, 1])

    The rare segment is lifted to its floor of 2; the head gives up what it costs:

    >>> allocate([90, 9, 1], [10, 5, 1], 10, min_per_segment=2)[1].tolist()
    [7, 2, 1]
    """
    t = np.asarray(traffic, dtype=np.float64)
    hi = np.asarray(available, dtype=np.float64)
    lo = np.minimum(float(min_per_segment), hi)
    lam = _scale(t, lo, hi, float(n))
    quota = np.clip(lam * t, lo, hi)
    base = np.clip(np.floor(quota + 1e-9), lo, hi)
    left = round(n - float(base.sum()))
    remainder = np.where(base < hi, quota - base, -np.inf)
    order = np.lexsort((np.arange(t.size), -t, -remainder))  # last key sorts first
    base[order[:left]] += 1
    return quota, base.astype(np.int64)


def _scale(t: FloatArray, lo: FloatArray, hi: FloatArray, n: float) -> float:
    """The ``lambda`` with ``sum(clip(lambda * t, lo, hi)) == n`` (exact: g is piecewise linear).

    ``g(lambda)`` bends only at the breakpoints ``lo / t`` and ``hi / t``: bisect over
    the sorted breakpoints for the first one where ``g >= n``, then solve the linear
    piece before it.
    """
    points = np.unique(np.concatenate([lo / t, hi / t]))

    def g(lam: float) -> float:
        return float(np.clip(lam * t, lo, hi).sum())

    first, last = 0, points.size - 1
    while first < last:  # over the breakpoints (two per segment), not over queries
        mid = (first + last) // 2
        if g(float(points[mid])) >= n:
            last = mid
        else:
            first = mid + 1
    b1 = float(points[first])
    if first == 0:
        return b1
    b0 = float(points[first - 1])
    g0, g1 = g(b0), g(b1)
    return b1 if g1 == g0 else b0 + (n - g0) * (b1 - b0) / (g1 - g0)


# --- input ---------------------------------------------------------------------------------
def _check_int(value: object, name: str, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, Integral) or value < low:
        err = InvalidParameterError.for_value(name, _WHERE, f"an int in the range [{low}, inf)", value)
        raise err
    return int(value)


def _check_columns(schema: pl.Schema, query_col: str, by: list[str], weight: str | None) -> None:
    names = list(schema.names())
    wanted = [(query_col, "query_id", "query_col"), *[(b, "segment", "by") for b in by]]
    if weight is not None:
        wanted.append((weight, "weight", "weight"))
    for col, role, param in wanted:
        if col not in names:
            raise ColumnNotFoundError.from_missing(
                role=role, missing=col, available=names, frame="log", parameter=param
            )
    if weight is not None and not schema[weight].is_numeric():
        msg = (
            f"The log's weight column {weight!r} must be numeric (a count or a traffic weight per "
            f"row); got {schema[weight]}. Hint: cast it, e.g. pl.col({weight!r}).cast(pl.Float64)."
        )
        raise InvalidDataError(msg)
    if query_col in by or (weight is not None and weight in [query_col, *by]):
        msg = f"{_WHERE}: query_col, by and weight must name different columns."
        raise InvalidParameterError(msg)


def _check_by(by: str | Sequence[str] | None) -> list[str]:
    if by is None:
        return []
    cols = [by] if isinstance(by, str) else list(by)
    if not all(isinstance(c, str) for c in cols) or len(set(cols)) != len(cols):
        err = InvalidParameterError.for_value("by", _WHERE, "a column name or a list of distinct names", by)
        raise err
    return cols


def _refuse_bad_rows(lf: pl.LazyFrame, query_col: str, weight: str | None) -> None:
    exprs = [pl.col(query_col).is_null().sum().alias("null_ids")]
    if weight is not None:
        w = pl.col(weight).cast(pl.Float64)
        bad = w.is_null() | ~w.is_finite() | (w <= 0)
        exprs += [bad.sum().alias("bad"), pl.col(query_col).filter(bad).first().alias("query")]
        exprs.append(pl.col(weight).filter(bad).first().cast(pl.String).alias("value"))
    found = lf.select(exprs).collect().row(0, named=True)
    if found["null_ids"]:
        msg = f"The log has {found['null_ids']} row(s) with a null query id ({query_col!r}). Hint: drop them."
        raise InvalidDataError(msg)
    if weight is not None and found["bad"]:
        msg = (
            f"The log's weight column {weight!r} has {found['bad']} value(s) that are null, not finite "
            f"or <= 0 (query {found['query']!r}: {found['value']}). Hint: weights count traffic; drop "
            "the rows of queries nobody issued."
        )
        raise InvalidDataError(msg)


def _per_query(
    lf: pl.LazyFrame, query_col: str, by: list[str], weight: str | None
) -> tuple[pl.DataFrame, tuple[str, ...]]:
    """One row per query: segment, traffic, rows, and the columns constant within each query."""
    others = [c for c in lf.collect_schema().names() if c not in (query_col, weight, *by)]
    traffic = pl.col(weight).cast(pl.Float64).sum() if weight is not None else pl.len().cast(pl.Int64)
    agg = [
        pl.len().cast(pl.Int64).alias(_NROWS),
        traffic.alias(_TRAFFIC),
        *[pl.col(c).n_unique().alias(f"__ir_nu_{c}") for c in [*by, *others]],
        *[pl.col(c).first() for c in [*by, *others]],
    ]
    pq = lf.group_by(query_col).agg(agg).collect()
    for b in by:
        split = pq.filter(pl.col(f"__ir_nu_{b}") > 1)
        if split.height:
            qid = split[query_col][0]
            values = lf.filter(pl.col(query_col) == qid).select(pl.col(b).unique().sort()).collect()
            shown = ", ".join(repr(v) for v in values[b].to_list()[:5])
            msg = (
                f"{split.height} query(ies) of the log are in several segments of {b!r}: query {qid!r} "
                f"has {b} {shown}. Hint: segment by a query attribute, or make the segment part of "
                f"the query id (e.g. pl.concat_str([{query_col!r}, {b!r}]))."
            )
            raise InvalidDataError(msg)
    varying = tuple(c for c in others if pq[f"__ir_nu_{c}"].max() not in (None, 0, 1))
    kept = [c for c in others if c not in varying]
    pq = pq.select(query_col, *by, _TRAFFIC, _NROWS, *kept)
    return pq.sort([*by, query_col], nulls_last=True), varying


def _segments(pq: pl.DataFrame, by: list[str], n: int, floor: int) -> pl.DataFrame:
    """The segments table (allocation included), sorted by the ``by`` values."""
    if by:
        seg = pq.group_by(by).agg(pl.len().cast(pl.Int64).alias("n_available"), pl.col(_TRAFFIC).sum())
        seg = seg.sort(by, nulls_last=True)
    else:
        seg = pl.DataFrame({"n_available": [pq.height], _TRAFFIC: [pq[_TRAFFIC].sum()]})
        seg = seg.with_columns(pl.col(_TRAFFIC).cast(pq.schema[_TRAFFIC]))
    t = seg[_TRAFFIC].cast(pl.Float64).to_numpy()
    avail = seg["n_available"].to_numpy()
    floors = np.minimum(floor, avail)
    total = int(avail.sum())
    if n > total:
        hint = f"n={total} takes them all." if total else "the log is empty: check the file or its filter."
        msg = (
            f"The 'n' parameter of {_WHERE} asks for {n} queries; the log has {total} distinct "
            f"queries. Hint: {hint}"
        )
        raise InvalidParameterError(msg)
    if int(floors.sum()) > n:
        msg = (
            f"The 'n' parameter of {_WHERE} ({n}) cannot give {seg.height} segments a floor of "
            f"{floor} queries each: the floors need n >= {int(floors.sum())}. Hint: raise n, lower "
            "min_per_segment, or merge rare segments."
        )
        raise InvalidParameterError(msg)
    quota, counts = allocate(t, avail, n, floor)
    return seg.with_columns(
        (pl.col(_TRAFFIC).cast(pl.Float64) / float(t.sum())).alias("log_share"),
        pl.Series("floor", floors, dtype=pl.Int64),
        pl.Series("quota", quota, dtype=pl.Float64),
        pl.Series("n_sampled", counts, dtype=pl.Int64),
        pl.Series("sample_share", counts / n, dtype=pl.Float64),
        pl.Series("floor_met", avail >= floor, dtype=pl.Boolean),
    )


def _draw(
    pq: pl.DataFrame, seg: pl.DataFrame, by: list[str], *, within: str, seed: int | None
) -> pl.DataFrame:
    """The chosen queries: the ``n_s`` largest keys of each segment."""
    rng = np.random.default_rng(seed)
    u = 1.0 - rng.random(pq.height)  # in (0, 1]
    # the log of u ** (1 / traffic) (Efraimidis and Spirakis), or u alone
    keys = np.log(u) / pq[_TRAFFIC].cast(pl.Float64).to_numpy() if within == "traffic" else u
    rank = pl.col(_KEY).rank("ordinal", descending=True)
    counts = seg.select(*by, "n_sampled", "sample_share", "log_share")
    chosen = pq.with_columns(pl.Series(_KEY, keys)).with_columns((rank.over(by) if by else rank).alias(_RANK))
    if by:
        chosen = chosen.join(counts, on=by, how="left", nulls_equal=True)
    else:
        chosen = chosen.join(counts, how="cross")
    chosen = chosen.filter(pl.col(_RANK) <= pl.col("n_sampled"))
    weight = (pl.col("log_share") / pl.col("sample_share")).alias("segment_weight")
    chosen = chosen.with_columns(weight).sort(
        [*by, _TRAFFIC, chosen.columns[0]], descending=[False] * len(by) + [True, False], nulls_last=True
    )
    kept = [c for c in pq.columns if c not in (_TRAFFIC, _NROWS)]
    return chosen.select(*kept[: 1 + len(by)], _TRAFFIC, _NROWS, "segment_weight", *kept[1 + len(by) :])


def sample_queries(
    log: Any,
    n: int,
    *,
    by: str | Sequence[str] | None = None,
    min_per_segment: int = 1,
    seed: int | None = 0,
    weight: str | None = None,
    within: Literal["traffic", "uniform"] = "traffic",
    query_col: str = "query_id",
) -> QuerySample:
    """Sample ``n`` queries from a log, proportional to traffic with a floor per segment.

    How traffic is counted, how the floor and the proportional shares combine, what a
    segment too small for its floor gives, and how queries are drawn are the Notes below.

    Parameters
    ----------
    log : pandas.DataFrame, polars.DataFrame or polars.LazyFrame
        One row per issued query (or per query and day with a ``weight`` count), with
        the query id, the segment columns and any query attributes (text...).
    n : int
        Queries to choose (>= 1, at most the log's distinct queries).
    by : str or list of str, optional
        Segment columns (intent, locale, product...); a query must have one value each.
    min_per_segment : int, default 1
        The floor per segment, so rare intents appear; 0 gives plain proportional
        allocation. A segment with fewer queries gives all of them (counted).
    seed : int or None, default 0
        Seed of the draw: the same seed and log give the same sample, whatever the row order.
    weight : str, optional
        A numeric column of traffic per row (> 0); default: every row counts 1.
    within : {"traffic", "uniform"}, default "traffic"
        Inside a segment, choose proportional to traffic or uniformly over distinct queries.
    query_col : str, default "query_id"
        The query id column.

    Returns
    -------
    QuerySample
        ``.queries`` (the chosen queries with their attributes, in the log's frame type),
        ``.segments`` (each segment's share in the log and in the sample) and
        ``str(sample)``, the same as text.

    Raises
    ------
    InvalidParameterError
        ``n < 1``, ``n`` above the log's distinct queries or below the sum of the floors.
    ColumnNotFoundError
        ``query_col``, a ``by`` column or ``weight`` missing from the log.
    InvalidDataError
        Null query ids, weights that are null or <= 0, a query in two segments.

    Notes
    -----
    *Traffic.* A query's traffic is its number of rows in the log, or the sum of its
    ``weight`` column (a count per row, e.g. an aggregated log); weights must be finite
    and > 0.  A segment's traffic is the sum over its queries; its queries are the distinct
    query ids with its ``by`` values.  A query whose ``by`` values differ between rows is
    refused (name the segment in the query id, or segment by a query attribute).  Null
    ``by`` values form a segment of their own.

    *Allocation.* Segment ``s`` with traffic ``T_s`` and ``N_s`` distinct queries gets
    ``n_s`` of the ``n`` queries:

    1. its floor is ``f_s = min(min_per_segment, N_s)``: a segment with fewer queries than
       the floor gives all of them (``floor_met`` is false in the segments table and the
       text counts it);
    2. its quota is ``x_s = clip(lambda * T_s, f_s, N_s)``, with the one scale ``lambda``
       that makes the quotas sum to ``n``: every segment gets its traffic share of ``n``
       unless that is below its floor (then the floor) or above what it has (then all of
       it), and the others share the rest in proportion to their traffic;
    3. the quotas are rounded by largest remainder (Hamilton): each segment first gets
       ``floor(x_s)``, then the queries still missing go one each to the largest
       fractional parts (ties: the larger traffic, then the segment that sorts first).

    ``n`` larger than the log's distinct queries, and ``n`` below the sum of the floors
    (``n < segments x min_per_segment`` when every segment has that many queries), raise
    :class:`~irframe.exceptions.InvalidParameterError` saying the largest and smallest
    ``n`` that can be met.

    *Choice within a segment.* ``within="traffic"`` (default): weighted sampling without
    replacement, probability proportional to traffic (Efraimidis and Spirakis 2006: the
    ``n_s`` largest keys ``u ** (1 / traffic)``, ``u`` uniform), so a query issued ten
    times as often is about ten times as likely to be chosen (exactly so for the first
    draw).  ``within="uniform"``: every distinct query alike, the tail's chance.  The
    random numbers are drawn over the queries sorted by segment and query id, so the
    sample depends on the seed and the log's content, not on its row order.

    *Weights back to the log.* The floors over-represent rare segments on purpose; each
    chosen query carries ``segment_weight = (T_s / T) / (n_s / n)``, the factor that
    weights a segment's mean back to its share of the traffic.

    Examples
    --------
    >>> import polars as pl, irframe
    >>> log = pl.DataFrame({
    ...     "query_id": [*"aaaaabbbbccdef"],
    ...     "intent": ["nav"] * 9 + ["info"] * 3 + ["rare", "rare"]})
    >>> s = irframe.sample_queries(log, 4, by="intent", min_per_segment=1, seed=0)
    >>> s.queries.select("query_id", "intent", "traffic", "segment_weight")
    shape: (4, 4)
    ┌──────────┬────────┬─────────┬────────────────┐
    │ query_id ┆ intent ┆ traffic ┆ segment_weight │
    │ ---      ┆ ---    ┆ ---     ┆ ---            │
    │ str      ┆ str    ┆ i64     ┆ f64            │
    ╞══════════╪════════╪═════════╪════════════════╡
    │ d        ┆ info   ┆ 1       ┆ 0.857143       │
    │ a        ┆ nav    ┆ 5       ┆ 1.285714       │
    │ b        ┆ nav    ┆ 4       ┆ 1.285714       │
    │ e        ┆ rare   ┆ 1       ┆ 0.571429       │
    └──────────┴────────┴─────────┴────────────────┘
    >>> s.segments.select("intent", "log_share", "quota", "n_sampled")
    shape: (3, 4)
    ┌────────┬───────────┬───────┬───────────┐
    │ intent ┆ log_share ┆ quota ┆ n_sampled │
    │ ---    ┆ ---       ┆ ---   ┆ ---       │
    │ str    ┆ f64       ┆ f64   ┆ i64       │
    ╞════════╪═══════════╪═══════╪═══════════╡
    │ info   ┆ 0.214286  ┆ 1.0   ┆ 1         │
    │ nav    ┆ 0.642857  ┆ 2.0   ┆ 2         │
    │ rare   ┆ 0.142857  ┆ 1.0   ┆ 1         │
    └────────┴───────────┴───────┴───────────┘
    """
    lf, origin = to_lazy(log, "log")
    n = _check_int(n, "n", 1)
    floor = _check_int(min_per_segment, "min_per_segment", 0)
    cols = _check_by(by)
    checked_seed = None if seed is None else _check_int(seed, "seed", 0)
    if within not in ("traffic", "uniform"):
        raise InvalidParameterError.for_value("within", _WHERE, "'traffic' or 'uniform'", within)
    _check_columns(lf.collect_schema(), query_col, cols, weight)
    _refuse_bad_rows(lf, query_col, weight)
    pq, varying = _per_query(lf, query_col, cols, weight)
    seg = _segments(pq, cols, n, floor)
    chosen = _draw(pq, seg, cols, within=within, seed=checked_seed)
    n_rows = int(pq[_NROWS].sum()) if pq.height else 0
    return QuerySample(
        queries=from_lazy(chosen, origin),
        segments=from_lazy(seg, origin),
        n=n,
        by=tuple(cols),
        seed=checked_seed,
        min_per_segment=floor,
        n_log_rows=n_rows,
        n_log_queries=pq.height,
        left_out_columns=varying,
        _segments=seg,
    )
