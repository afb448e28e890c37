"""Polars queries run in the background, each one waited for before its block exits.

The keyed path (:mod:`~irframe._engine.keyed`) spends much of its time in
single-threaded numpy (the sort, the runs of ties); polars' threads meanwhile compute
what does not depend on the order: the qrels' per-query table, the duplicate probe,
the exact check of the joined ids.

The trap this module exists for: ``LazyFrame.collect(background=True)`` returns an
``InProcessQuery`` whose worker *unwraps* the send of its result (polars 2.1,
``crates/polars-lazy/src/frame/exitable.rs``).  If the handle is dropped before the
query finishes, that send fails and the whole process aborts.  And ``fetch_blocking``
may be called once: a second call unwraps a closed channel.  So every query started in
a :class:`Background` block is fetched exactly once, at the latest when the block
exits, whichever way it exits (a fallback, an error).
"""

from __future__ import annotations

import contextlib
from types import TracebackType
from typing import Any

import polars as pl

__all__ = ["Background", "Pending"]


class Pending:
    """One background query: :meth:`result` waits for its frame (fetched once, kept)."""

    def __init__(self, query: Any) -> None:
        self._query = query  # a polars InProcessQuery
        self._fetched = False
        self._frame: pl.DataFrame | None = None

    @property
    def fetched(self) -> bool:
        """Whether the query's result has been received (its handle may be dropped)."""
        return self._fetched

    def result(self) -> pl.DataFrame:
        """The query's frame (waits for it); raises the query's error, if any."""
        if not self._fetched:
            self._fetched = True  # (before the call: a failed fetch is not repeated)
            self._frame = self._query.fetch_blocking()
        if self._frame is None:
            msg = "this background query failed; its error was raised by the first result()"
            raise RuntimeError(msg)
        return self._frame


class Background:
    """Start polars queries in the background; on exit, wait for those not fetched.

    Examples
    --------
    >>> import polars as pl
    >>> with Background() as bg:
    ...     total = bg.start(pl.LazyFrame({"x": [1, 2, 3]}).select(pl.col("x").sum()))
    ...     total.result().item()
    6
    """

    def __init__(self) -> None:
        self.started: list[Pending] = []

    def start(self, query: pl.LazyFrame) -> Pending:
        """Collect ``query`` on polars' threads; the caller goes on at once."""
        pending = Pending(query.collect(background=True))
        self.started.append(pending)
        return pending

    def __enter__(self) -> Background:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        for pending in self.started:
            if not pending.fetched:
                with contextlib.suppress(Exception):  # (its answer is not needed any more)
                    pending.result()
