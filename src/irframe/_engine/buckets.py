"""Large in-memory input, evaluated in query buckets: the same table at a lower peak.

The plan's intermediates (the joined rows, the sort permutation, each kernel's columns)
are each about as long as the run, and several are alive at once: at 1e7 rows they add
up to ~3x the input.  Queries are independent, so a large run is cut into buckets of
whole queries (a hash of the query id; a query's judgments go to its bucket), each
bucket is collected by the ordinary plan, and the per-query tables are concatenated.
Only one bucket's intermediates are alive at a time.

The input checks then run once, on the whole table, with the duplicate probes summed,
so that an error counts and names rows over the whole input as it would unbucketed.

A pandas frame or a pyarrow Table (:class:`~irframe._input.frames.ArrowRows`) is converted to
polars a bucket at a time, only the columns the plan reads: the whole input is never
copied into polars (at 1e7 rows that copy alone was ~0.7x the pandas input).  The next
bucket is cut in a worker thread while the current one is evaluated.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, NamedTuple

import polars as pl

from irframe._engine.checks import check, collect, collect_unchecked
from irframe._engine.entry import build
from irframe._engine.facts import log_plan
from irframe._engine.plan import Plan, ids_compare_as_is
from irframe._input.frames import (
    Origin,
    PolarsRows,
    Rows,
    in_memory_rows,
    is_arrow_table,
    is_pandas_frame,
    to_lazy,
)
from irframe._input.options import Options
from irframe._log import engine as engine_log
from irframe._log import timed
from irframe.measures._parse import Measures
from irframe.progress import AUTO_ROWS, Progress, reporter

__all__ = ["BUCKET_ROWS", "MAX_BUCKETS", "RunInput", "bucket_count", "collect_in_memory", "run_input"]

# Run rows per bucket: buckets need far less memory than one pass and about its time
# (every bucket costs a scan of the whole input and fixed costs per pass, while smaller
# sorts and hash tables stay closer to the caches); below this size buckets only cost
# time, so input up to BUCKET_ROWS is evaluated in one pass (benchmarks/results/decisions.md, engine-buckets).
BUCKET_ROWS = 1_500_000
MAX_BUCKETS = 256  # (a bucket number fits a UInt8)
PREFETCH = True  # cut the next bucket in a worker thread (converted parts only)


def bucket_count(n_rows: int) -> int:
    """The number of query buckets for a run of ``n_rows`` rows (1: one pass).

    Examples
    --------
    >>> bucket_count(1_000_000), bucket_count(10_000_000)
    (1, 7)
    """
    return max(1, min(math.ceil(n_rows / BUCKET_ROWS), MAX_BUCKETS))


def _bucket_ids(rows: Rows, column: str, as_is: bool, n: int) -> pl.Series:
    """Each row's bucket: its id's hash modulo ``n``, the id as it is or as a string.

    Run and qrels ids hash in the form in which the plan joins them
    (:func:`~irframe._engine.plan.ids_compare_as_is`), so that a query's judgments land
    in its bucket.  A pandas column is converted a slice at a time for this.
    """
    parts: list[pl.Series] = []
    for ids in rows.slices(column, BUCKET_ROWS):
        hashed = (ids if as_is else ids.cast(pl.String)).hash(seed=0)
        parts.append((hashed % n).cast(pl.UInt8))
    return pl.concat(parts) if len(parts) > 1 else parts[0]


class RunInput(NamedTuple):
    """A run as :func:`collect_in_memory` reads it (see :func:`run_input`)."""

    lf: pl.LazyFrame
    origin: Origin
    rows: Rows | None  # a large pandas or Arrow run: converted a bucket at a time
    n_rows: int | None  # None: a polars LazyFrame, not counted


def run_input(run: Any, *, count_lazy: bool = False) -> RunInput:
    """The run's lazy frame, its origin, its rows and their count.

    A pandas frame or pyarrow Table of more than :data:`BUCKET_ROWS` rows comes as
    :class:`~irframe._input.frames.Rows`, converted to polars a bucket at a time; anything else
    is converted whole, once, by :func:`~irframe._input.frames.to_lazy`.  A polars LazyFrame is
    counted (one pass) only with ``count_lazy``.

    Examples
    --------
    >>> import pandas as pd
    >>> found = run_input(pd.DataFrame({"query_id": ["q1"], "doc_id": ["d1"]}))
    >>> found.rows is None, found.n_rows, found.origin.kind
    (True, 1, 'pandas')
    """
    if (is_pandas_frame(run) or is_arrow_table(run)) and bucket_count(len(run)) > 1:
        found = in_memory_rows(run, "run")
        if found is not None:
            return RunInput(found[0].lazy(), found[1], found[0], found[0].height)
    lf, origin = to_lazy(run, "run")
    if origin.kind == "polars-lazy" and not count_lazy:
        return RunInput(lf, origin, None, None)
    if isinstance(run, pl.DataFrame) or is_pandas_frame(run) or is_arrow_table(run):
        return RunInput(lf, origin, None, len(run))  # (counted without a polars query)
    return RunInput(lf, origin, None, int(lf.select(pl.len()).collect().item()))


def _qrels_rows(qrels: Any) -> Rows:
    found = in_memory_rows(qrels, "qrels")
    return found[0] if found is not None else PolarsRows(to_lazy(qrels, "qrels")[0].collect())


@dataclass(frozen=True)
class _Cut:
    """Cuts bucket ``b`` out of the run and the qrels (only the columns read)."""

    run: Rows
    judged: Rows | None
    run_cols: list[str]
    qrels_cols: list[str]
    run_b: pl.Series
    qrels_b: pl.Series | None

    def __call__(self, b: int) -> tuple[pl.DataFrame, pl.DataFrame | None]:
        run_part = self.run.part(self.run_cols, self.run_b == b)
        if self.judged is None or self.qrels_b is None:
            return run_part, None
        return run_part, self.judged.part(self.qrels_cols, self.qrels_b == b)


def _prefetched(cut: _Cut, n: int) -> Iterator[tuple[pl.DataFrame, pl.DataFrame | None]]:
    """Buckets ``0 .. n-1`` in order.  When a part is converted (pandas, Arrow), the next
    one is cut in a worker thread while the caller evaluates the current one (pyarrow and
    polars release the GIL; much of a bucket's evaluation is single-threaded): at most two
    buckets' inputs are alive at once.

    At 1e7 rows (fresh processes, 4 rounds): pandas input 8.91 s -> 8.42 s; polars input
    (a filter per bucket, no conversion) gained ~1% for ~60 MB more at the peak, so it is
    cut in turn."""
    if not (PREFETCH and (cut.run.converts or (cut.judged is not None and cut.judged.converts))):
        yield from (cut(b) for b in range(n))
        return
    with ThreadPoolExecutor(max_workers=1) as pool:
        pending = pool.submit(cut, 0)
        for b in range(n):
            current = pending.result()
            if b + 1 < n:
                pending = pool.submit(cut, b + 1)
            yield current
            del current


def collect_in_memory(
    run_lf: pl.LazyFrame,
    measures: Measures,
    qrels: Any,
    opts: Options,
    *,
    n_rows: int,
    rows: Rows | None = None,
    partition_values: pl.LazyFrame | None = None,
    allow_empty: bool = False,
    progress: Progress = None,
) -> tuple[Plan, pl.DataFrame]:
    """Build and collect the plan of an in-memory run: in one pass, or bucket by bucket
    when the run has more than :data:`BUCKET_ROWS` rows (see the module's docstring).

    ``rows``: the run as :class:`~irframe._input.frames.Rows` (``run_lf`` is then its
    ``lazy()``): a pandas or Arrow run is then converted a bucket at a time, and so are
    pandas or Arrow qrels.  Each bucket converts only the columns the plan reads.
    ``partition_values`` and ``allow_empty``: as for
    :func:`~irframe._engine.entry.build` (a partition of a larger run).  ``progress``
    (:mod:`irframe.progress`): one step per bucket and one for the checks, or one for a
    single pass (automatic above :data:`~irframe.progress.AUTO_ROWS` rows).
    """
    n = bucket_count(n_rows)
    large = n_rows > AUTO_ROWS
    if n > 1:
        return _collect_buckets(
            run_lf, measures, qrels, opts, n, rows=rows, partition_values=partition_values,
            allow_empty=allow_empty, progress=progress, large=large,
        )  # fmt: skip
    with reporter(progress, 1, "evaluating", large=large) as step, timed(engine_log, "one pass"):
        plan = build(run_lf, measures, qrels, opts, partition_values=partition_values,
                     allow_empty=allow_empty, detect_order=True, n_rows=n_rows)  # fmt: skip
        log_plan(plan, n_rows, 1)
        done = collect(plan)
        step(f"{n_rows:,} rows, {done[1].height:,} queries ({plan.executor})")
    return done


def _collect_buckets(
    run_lf: pl.LazyFrame,
    measures: Measures,
    qrels: Any,
    opts: Options,
    n: int,
    *,
    rows: Rows | None,
    partition_values: pl.LazyFrame | None,
    allow_empty: bool,
    progress: Progress,
    large: bool,
) -> tuple[Plan, pl.DataFrame]:
    """:func:`collect_in_memory` in ``n`` buckets of whole queries."""
    run = rows if rows is not None else PolarsRows(run_lf.collect())
    judged = None if qrels is None else _qrels_rows(qrels)
    # the whole input's plan, never collected: it validates and resolves the columns
    # up front, and the checks read the whole run through it
    whole = build(run.lazy(), measures, None if judged is None else judged.lazy(), opts,
                  partition_values=partition_values, allow_empty=allow_empty)  # fmt: skip
    log_plan(whole, run.height, n)
    run_cols, qrels_cols = (list(c) for c in whole.read)
    as_is = judged is None or ids_compare_as_is(
        whole.run.collect_schema()[whole.cols.query], judged.lazy().collect_schema()[whole.qrels_query]
    )
    run_b = _bucket_ids(run, whole.cols.query, as_is, n)
    qrels_b = None if judged is None else _bucket_ids(judged, whole.qrels_query, as_is, n)
    values = partition_values
    if values is None and whole.partitions and judged is not None:
        # every system is expected to answer every judged query, in every bucket
        values = run.distinct(whole.partitions).lazy()
    frames: list[pl.DataFrame] = []
    probes: Counter[str] = Counter()
    cut = _Cut(run, judged, run_cols, qrels_cols, run_b, qrels_b)
    with reporter(progress, n + 1, "evaluating buckets", large=large) as step:
        for b, (run_part, qrels_part) in enumerate(_prefetched(cut, n)):
            info = f"bucket {b + 1}/{n}: {run_part.height:,} rows"
            if frames and run_part.height == 0 and (qrels_part is None or qrels_part.height == 0):
                step(info)
                continue
            with timed(engine_log, info):
                plan = build(run_part.lazy(), measures, qrels_part, opts, partition_values=values,
                             allow_empty=True, detect_order=True)  # fmt: skip
                if plan.cols != whole.cols:  # (the bucket holds only the columns read: same roles)
                    msg = f"irframe bug: a bucket's columns {plan.cols} differ from {whole.cols}"
                    raise AssertionError(msg)
                df, found = collect_unchecked(plan)[1:]
            frames.append(df)
            probes.update(found)
            step(f"{info} ({plan.executor})")
            del plan, run_part, qrels_part
        table = pl.concat(frames, how="diagonal_relaxed")  # (paths order columns differently)
        check(whole, table, dict(probes))
        step(f"checked {table.height:,} queries")
    return whole, table
