"""A click log read once: the caller's frame, its columns, its checks, the rows a rule left out.

Every estimator of :mod:`irframe.clicks` starts here, so the column options, the checks
(:mod:`irframe._input.logs`) and the ``max_position`` cut are the same for all of them.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import polars as pl

from irframe._input.frames import Origin, from_lazy, to_lazy
from irframe._input.logs import POSITION, LogColumns, canonical_log, check_log, is_click, log_columns
from irframe.exceptions import ClickLogWarning, InvalidParameterError

__all__ = [
    "CLICK",
    "COUNTS",
    "ClickLog",
    "check_positive_int",
    "check_prior",
    "cut_log",
    "cut_rows",
    "read_log",
    "warn",
    "warn_beyond",
]

#: the canonical log's 0/1 click column (``clicked > 0``, see :func:`irframe._input.logs.is_click`)
CLICK = "__ir_click"
#: the counts every log carries (what was read, and what a documented rule left out)
COUNTS = ("n_rows", "n_impressions", "n_impressions_without_clicks", "n_rows_beyond_max_position")


@dataclass(frozen=True)
class ClickLog:
    """The canonical log (lazy) with what was read and left out on the way.

    ``parts``: the log out of core, as buckets of whole queries (each a canonical lazy
    frame, see :mod:`irframe._clicks.outofcore`); empty in memory (one part: ``rows``).
    """

    rows: pl.LazyFrame
    cols: LogColumns
    origin: Origin
    n_rows: int
    n_impressions: int
    n_impressions_without_clicks: int
    n_rows_beyond_max_position: int
    parts: tuple[pl.LazyFrame, ...] = ()
    n_buckets: int = 0  # out of core: the number of hash buckets (0: in memory)
    #: on a cluster: ``fn`` -> its table on each part (see :mod:`irframe._clicks.ondask`)
    mapper: Callable[[Callable[[pl.LazyFrame], pl.LazyFrame]], list[pl.DataFrame]] | None = None

    def map(self, fn: Callable[[pl.LazyFrame], pl.LazyFrame]) -> pl.DataFrame:
        """``fn`` (a per-query aggregation) collected on each part, the tables concatenated:
        on a log whose parts hold disjoint queries, the table of the whole log (its rows in
        bucket order: sort before reading them in order)."""
        if self.mapper is not None:
            tables = self.mapper(fn)
        else:
            tables = [fn(part).collect() for part in self.parts or (self.rows,)]
        return tables[0] if len(tables) == 1 else pl.concat(tables, how="vertical_relaxed")

    def back(self, frame: pl.DataFrame | pl.LazyFrame) -> Any:
        """``frame`` as the caller's frame type."""
        return from_lazy(frame, self.origin)

    @classmethod
    def on_cluster(
        cls,
        cols: LogColumns,
        totals: Mapping[str, int],
        n_buckets: int,
        mapper: Callable[[Callable[[pl.LazyFrame], pl.LazyFrame]], list[pl.DataFrame]],
    ) -> ClickLog:
        """A log held on a cluster (Dask or Spark): no rows on the client, every estimator
        reads the parts through ``mapper``; ``totals`` the parts' :data:`COUNTS` summed."""
        n_rows, n_impressions, n_without_clicks, n_beyond = (int(totals[k]) for k in COUNTS)
        return cls(
            pl.LazyFrame(), cols, Origin("pandas"), n_rows, n_impressions, n_without_clicks, n_beyond,
            n_buckets=n_buckets, mapper=mapper,
        )  # fmt: skip

    @property
    def summary(self) -> dict[str, int]:
        """The counts, as a result's summary shows them (out of core: and ``n_buckets``)."""
        counts = {k: int(getattr(self, k)) for k in COUNTS}
        return counts | ({"n_buckets": self.n_buckets} if self.n_buckets else {})


def warn(message: str, stacklevel: int = 4) -> None:
    """A :class:`~irframe.exceptions.ClickLogWarning` pointing at the caller of the public function."""
    warnings.warn(message, ClickLogWarning, stacklevel=stacklevel)


def check_positive_int(value: object, name: str, where: str, *, allow_none: bool = False) -> int | None:
    """An int >= 1 (or None when allowed)."""
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        expected = "an int in the range [1, inf)" + (" or None" if allow_none else "")
        raise InvalidParameterError.for_value(name, where, expected, value)
    return value


def check_prior(prior: object, where: str) -> tuple[float, float]:
    """A Beta prior ``(alpha, beta)`` of two numbers >= 0."""
    ok = isinstance(prior, tuple | list) and len(prior) == 2
    values: tuple[object, ...] = tuple(prior) if isinstance(prior, tuple | list) and ok else ()
    if not ok or not all(isinstance(v, int | float) and not isinstance(v, bool) and v >= 0 for v in values):
        raise InvalidParameterError.for_value(
            "prior", where, "a pair (alpha, beta) of numbers >= 0, e.g. (1, 1) or (0, 0)", prior
        )
    return float(values[0]), float(values[1])  # type: ignore[arg-type]


def read_log(
    log: object,
    *,
    where: str,
    columns: Mapping[str, str],
    max_position: int | None = None,
    extra: Mapping[str, str | None] | None = None,
) -> ClickLog:
    """Read, check and cut the log; ``columns`` holds the ``*_col`` parameters by name."""
    check_positive_int(max_position, "max_position", where, allow_none=True)
    lf, origin = to_lazy(log, "log")
    cols = log_columns(lf.collect_schema(), **columns, extra=extra)
    clog = cut_log(canonical_log(lf, cols), cols, origin, max_position)
    warn_beyond(where, clog, max_position)
    return clog


def warn_beyond(where: str, clog: ClickLog, max_position: int | None) -> None:
    """The warning counting the rows ``max_position`` left out (none: no warning)."""
    if clog.n_rows_beyond_max_position:
        warn(
            f"{where}: {clog.n_rows_beyond_max_position} of {clog.n_rows} log rows are beyond "
            f"max_position={max_position} and were left out (as if never shown). Hint: "
            "max_position=None keeps every position.",
            stacklevel=5,
        )


def cut_rows(rows: pl.LazyFrame, max_position: int | None) -> pl.LazyFrame:
    """The canonical ``rows`` (checked) cut at ``max_position``, with the 0/1 click column."""
    if max_position is not None:
        rows = rows.filter(pl.col(POSITION) <= max_position)
    return rows.with_columns(is_click().alias(CLICK))


def cut_log(rows: pl.LazyFrame, cols: LogColumns, origin: Origin, max_position: int | None) -> ClickLog:
    """The canonical ``rows`` checked (:func:`~irframe._input.logs.check_log`), counted and cut
    at ``max_position``, with the 0/1 click column; no warning (see :func:`warn_beyond`)."""
    counts = check_log(rows, cols).row(0, named=True)
    beyond = 0
    if max_position is not None:
        beyond = int(rows.filter(pl.col(POSITION) > max_position).select(pl.len()).collect().item())
    return ClickLog(
        cut_rows(rows, max_position),
        cols,
        origin,
        counts["n_rows"],
        counts["n_impressions"],
        counts["n_impressions"] - counts["n_clicked_impressions"],
        beyond,
    )
