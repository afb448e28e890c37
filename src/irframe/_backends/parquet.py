"""Out-of-core evaluation: runs larger than memory, bucket by bucket, on one machine.

Per-query measures only need one query's rows at a time.  :func:`evaluate_parquet`

1. scans the run (parquet files, a glob, or any ``polars.LazyFrame``) and estimates its
   in-memory size from the row count and a sample;
2. picks a number of buckets ``B`` so that one bucket's evaluation fits ``memory_limit``;
3. in ONE streaming pass writes the run, and the qrels, into ``B`` parquet files keyed by
   ``hash(query id as string) % B`` (the same rule on both sides, so a query's rows and
   its judgments land in the same bucket);
4. evaluates the buckets one after the other with
   :func:`irframe.partition.evaluate_partition` (the engine, run once per bucket) and adds
   up per-group sums and counts for the means.

The steps around these are :mod:`irframe._backends.skeleton`'s (options, query
attributes, the plan, the global checks, the natural order, the means); this module
supplies the primitives of the bucket files (:class:`Parquet`).

The result is exactly :func:`irframe.evaluate`'s (per query, or the means); only the time
and the peak memory differ.  Peak memory follows ``memory_limit``, not the data size
(measured on 1e8 rows, 3.8 GB in memory: 0.85 GB peak with ``"2GB"``); settings below
~0.5 GB are not honoured (the interpreter, polars and the streaming writers need that).
"""

from __future__ import annotations

import math
import os
import re
import signal
import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from irframe._backends import skeleton
from irframe._backends.output import check_output
from irframe._backends.partition import evaluate_partition
from irframe._backends.spill import spill_directory, writing_spill
from irframe._engine.checks import duplicated_rows, duplicates_error
from irframe._input.frames import to_lazy
from irframe._input.options import Options
from irframe._log import DEBUG, timed
from irframe._log import backends as log
from irframe.exceptions import DuplicateRowsError, InvalidParameterError, OutputFileError
from irframe.io._atomic import atomic_write
from irframe.io._files import TableFileError, check_parquet_files, expand_paths, polars_reason
from irframe.progress import Progress, check_progress

__all__ = ["Parquet", "bucket_expr", "choose_buckets", "evaluate_options", "parse_bytes"]


BUCKET = "__irframe_bucket"
# Model of the peak memory, measured on synthetic logs (benchmarks/outofcore.py; decisions.md,
# parquet-memory-model): a base for the interpreter, polars and its thread pools, plus a
# multiple of one bucket's in-memory size (the joined rows, the per-query lists and their
# exploded copy); the bucketing pass needs one open parquet writer per bucket more.
_BASE_BYTES = 512 * 2**20
_EXPANSION = 3.0
_WRITER_BYTES = 5 * 2**20
_MIN_BUCKET_BYTES = 16 * 2**20
# Buckets of this size are also the fastest (the per-query sort and explode stay in cache:
# benchmarks/results/decisions.md, parquet-fast-buckets).
_FAST_BUCKET_BYTES = 64 * 2**20
# Every bucket holding a query costs a pass (empty ones are skipped); the automatic choice
# stays far below this (benchmarks/results/decisions.md, max-buckets).
MAX_BUCKETS = 65536
# A bucket's output (per-query rows, or sums) is kept in memory up to this size, and
# written next to the bucket files above it: the means' sums stay in memory, in bucket
# order; per-query rows of large buckets go to disk.
_KEEP_BYTES = 2**20
_SAMPLE_ROWS = 20_000
_UNITS = {
    "": 1, "b": 1,
    "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
    "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40,
    "k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40,
}  # fmt: skip


def parse_bytes(value: int | str, where: str = "evaluate_parquet") -> int:
    """A memory size in bytes from ``4GB``, ``512MiB``, ``1.5G`` (binary) or an int
    (the error names the ``memory_limit`` parameter of ``where``).

    Examples
    --------
    >>> parse_bytes("4GB"), parse_bytes("512MiB"), parse_bytes(1024)
    (4000000000, 536870912, 1024)
    """
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    if isinstance(value, str):
        m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([a-zA-Z]*)\s*", value)
        if m and m.group(2).lower() in _UNITS and float(m.group(1)) > 0:
            return int(float(m.group(1)) * _UNITS[m.group(2).lower()])
    raise InvalidParameterError.for_value(
        "memory_limit", where, "a positive size such as '4GB' or '512MiB'", value
    )


def choose_buckets(size: int, memory_limit: int) -> int:
    """The number of hash buckets for ``size`` bytes of input (in memory) under a limit.

    Enough buckets for one bucket's evaluation to fit ``memory_limit``; more, up to what
    the bucketing pass's writers can afford, to keep buckets near the fastest size.

    Examples
    --------
    >>> choose_buckets(10 * 2**20, 4 * 10**9)          # small input: evaluated at once
    1
    >>> choose_buckets(4 * 2**30, 2 * 10**9)           # 1e8-row log: ~64 MB buckets
    64
    >>> choose_buckets(4 * 2**30, 600 * 2**20)         # tight: memory decides
    140
    """
    per_bucket = max((memory_limit - _BASE_BYTES) / _EXPANSION, _MIN_BUCKET_BYTES)
    needed = math.ceil(size / per_bucket)
    affordable = max(1, int((memory_limit - _BASE_BYTES) // _WRITER_BYTES))
    fast = math.ceil(size / _FAST_BUCKET_BYTES)
    return max(1, needed, min(fast, affordable))


def bucket_expr(column: str, buckets: int) -> pl.Expr:
    """The bucket of a query: ``hash(id as string, seed=0) % buckets`` (UInt64).

    Run and qrels ids are hashed as strings so that ``1`` and ``"1"`` (which the engine
    compares as strings) share a bucket; the hash is stable across processes.

    Examples
    --------
    >>> import polars as pl
    >>> df = pl.DataFrame({"a": [1, 2], "b": ["1", "2"]})
    >>> df.select(bucket_expr("a", 8).alias("a"), bucket_expr("b", 8).alias("b")).to_dicts() == [
    ...     {"a": a, "b": a} for a in df.select(bucket_expr("a", 8)).to_series()]
    True
    """
    return pl.col(column).cast(pl.String).hash(seed=0) % buckets


def is_paths(source: Any) -> bool:
    """Whether ``source`` names files (a path, a glob, a list of them) rather than a frame."""
    if isinstance(source, str | os.PathLike):
        return True
    return isinstance(source, list | tuple) and all(isinstance(s, str | os.PathLike) for s in source)


def _scan(source: Any, role: str) -> pl.LazyFrame:
    """A lazy frame over ``source``; parquet files are checked (footers, schemas) first."""
    if not is_paths(source):
        return to_lazy(source, role)[0]
    files = expand_paths(source)
    check_parquet_files(files, role)
    log.info("out of core: the %s is %d parquet file(s) of %s", role, len(files), source)
    if isinstance(source, str):
        return pl.scan_parquet(source)
    if isinstance(source, os.PathLike):
        return pl.scan_parquet(Path(source))
    return pl.scan_parquet(list(source))


def _label(source: Any, role: str) -> str:
    return f"the {role} {str(source)!r}" if is_paths(source) else f"the {role}"


@contextmanager
def _reading(label: str) -> Iterator[None]:
    """Name the input when polars fails while reading it (a corrupt data page, say)."""
    try:
        yield
    except OutputFileError:  # (a full disk under the spill files: named by writing_spill)
        raise
    except (pl.exceptions.ComputeError, pl.exceptions.SchemaError, OSError) as exc:
        msg = f"Cannot read {label}: {polars_reason(exc)}"
        raise TableFileError(msg) from exc


class _Terminated(BaseException):
    """SIGTERM arrived: unwind (removing the spill files), then die of the signal."""


@contextmanager
def _cleanup_on_sigterm() -> Iterator[None]:
    """While the spill files exist, SIGTERM unwinds the stack like SIGINT does.

    Only when SIGTERM has its default action (a handler installed by the caller is left
    alone) and in the main thread (the only one that may set handlers).  After the
    ``with`` blocks inside have removed their files, the process dies of SIGTERM as it
    would have without irframe.
    """
    if (
        threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL
    ):
        yield
        return

    def _raise(signum: int, frame: object) -> None:
        raise _Terminated

    signal.signal(signal.SIGTERM, _raise)
    try:
        yield
    except _Terminated:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)
        raise SystemExit(128 + signal.SIGTERM) from None  # if the signal is not delivered at once
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _estimate_bytes(lf: pl.LazyFrame) -> tuple[int, int]:
    """(rows, estimated in-memory bytes) of a lazy frame: row count and a sample's width."""
    rows = int(lf.select(pl.len()).collect(engine="streaming").item())
    sample = lf.head(_SAMPLE_ROWS).collect()
    if sample.height == 0:
        return rows, 0
    return rows, int(rows * sample.estimated_size() / sample.height)


def _auto_buckets(
    run_lf: pl.LazyFrame, qrels_lf: pl.LazyFrame | None, limit: int, labels: tuple[str, str]
) -> int:
    """:func:`choose_buckets` for the estimated in-memory size of the run and the qrels."""
    with _reading(labels[0]):
        rows, size = _estimate_bytes(run_lf)
    if qrels_lf is not None:
        with _reading(labels[1]):
            size += _estimate_bytes(qrels_lf)[1]
    n = choose_buckets(size, limit)
    log.info(
        "out of core: %d run rows, ~%.0f MB in memory with the qrels: %d bucket(s) under memory_limit=%d B",
        rows, size / 1e6, n, limit,
    )  # fmt: skip
    return n


def _rows(lf: pl.LazyFrame) -> int:
    """The rows of one bucket's run (its files' metadata)."""
    return int(lf.select(pl.len()).collect().item())


def _write_buckets(lf: pl.LazyFrame, query: str, buckets: int, path: Path) -> None:
    """One streaming pass: ``lf`` into ``path/<BUCKET>=<b>/*.parquet``."""
    lf.with_columns(bucket_expr(query, buckets).alias(BUCKET)).sink_parquet(
        pl.PartitionBy(path, key=BUCKET, include_key=False), mkdir=True, compression="lz4"
    )


def _scan_files(files: list[Path], schema: pl.Schema) -> pl.LazyFrame:
    if not files:
        return pl.LazyFrame(schema=schema)
    return pl.scan_parquet(files, hive_partitioning=False)


def _bucket_inputs(
    b: int,
    tmp: Path,
    inputs: tuple[pl.LazyFrame, pl.LazyFrame | None],
    schemas: tuple[pl.Schema, pl.Schema | None],
    *,
    buckets: int,
    skip_empty: bool,
) -> tuple[pl.LazyFrame, pl.LazyFrame | None] | None:
    """Bucket ``b``'s run and qrels (for one bucket: the inputs as they are).

    ``None`` for a bucket without a run row or a judgment when ``skip_empty``: it would add
    no row (no query: nothing to evaluate, nothing missing), yet cost a pass (~10 ms).
    """
    if buckets == 1:
        return inputs
    run_schema, qrels_schema = schemas  # (no qrels schema: no qrels)
    run_files = sorted((tmp / "run" / f"{BUCKET}={b}").glob("*.parquet"))
    qrels_files = [] if qrels_schema is None else sorted((tmp / "qrels" / f"{BUCKET}={b}").glob("*.parquet"))
    if skip_empty and not run_files and not qrels_files:
        return None
    qrels_b = None if qrels_schema is None else _scan_files(qrels_files, qrels_schema)
    return _scan_files(run_files, run_schema), qrels_b


def evaluate_options(
    source: Any,
    measures: Any,
    qrels: Any,
    opts: Options,
    per_query: bool,
    *,
    memory_limit: int | str = "4GB",
    buckets: int | None = None,
    output: str | os.PathLike[str] | None = None,
    tmp_dir: str | os.PathLike[str] | None = None,
    progress: Progress = None,
    queries: Any = None,
) -> pl.DataFrame | pl.LazyFrame:
    """:func:`evaluate_parquet` with validated options (the backend registry calls this for paths)."""
    if output is not None:  # (refused before anything is read)
        check_output(output, {"run": source, "qrels": qrels, "queries": queries})
    backend = Parquet(memory_limit, buckets, output=output, tmp_dir=tmp_dir)
    # (evaluate_partition read here, from this module: tests count and delay its calls)
    return skeleton.evaluate(  # type: ignore[no-any-return]
        backend,
        source,
        measures,
        qrels,
        opts,
        per_query=per_query,
        queries=queries,
        evaluate=evaluate_partition,
        progress=check_progress(progress, backend.where),
    )


@dataclass(frozen=True)
class _Buckets:
    """The inputs written to their buckets (one bucket: the inputs as they are)."""

    run: pl.LazyFrame
    qrels: pl.LazyFrame | None
    schemas: tuple[pl.Schema, pl.Schema | None]
    n: int
    tmp: Path

    def inputs(self, b: int) -> tuple[pl.LazyFrame, pl.LazyFrame | None] | None:
        """Bucket ``b``'s run and qrels; None for an empty one after the first (whose
        output is evaluated even when empty)."""
        inputs = (self.run, self.qrels)
        return _bucket_inputs(b, self.tmp, inputs, self.schemas, buckets=self.n, skip_empty=b > 0)


@contextmanager
def _counted_over_every_bucket(placed: _Buckets) -> Iterator[None]:
    """A bucket's duplicate rows, re-counted over every bucket before they are reported
    (the first bucket holding some raises: the error counts all of them, not its own)."""
    try:
        yield
    except DuplicateRowsError as exc:
        keys, doc = exc.duplicate_keys or ((), "")
        if not keys or placed.n == 1 or not {*keys, doc} <= set(placed.schemas[0].names()):
            raise  # (one bucket: its count is the whole; columns renamed on the way: as found)
        found = (placed.inputs(b) for b in range(placed.n))
        parts = [duplicated_rows(f[0], keys, doc).collect(engine="streaming") for f in found if f is not None]
        raise duplicates_error(pl.concat(parts), keys, doc) from exc


class Parquet(skeleton.Primitives):
    """The primitives of the bucket files: every frame is a polars ``LazyFrame``."""

    where = "evaluate_parquet"
    label = "out-of-core (parquet)"
    eager = True

    def __init__(
        self, memory_limit: int | str = "4GB", buckets: int | None = None, *, output: Any = None,
        tmp_dir: Any = None, where: str | None = None,
    ) -> None:  # fmt: skip
        """``where``: the function whose parameters the errors name (default ``evaluate_parquet``)."""
        self.where = where or self.where
        self.limit = parse_bytes(memory_limit, self.where)
        if buckets is not None and (isinstance(buckets, bool) or not isinstance(buckets, int) or buckets < 1):
            raise InvalidParameterError.for_value("buckets", self.where, "a positive int", buckets)
        if buckets is not None and buckets > MAX_BUCKETS:
            raise InvalidParameterError.for_value("buckets", self.where, f"at most {MAX_BUCKETS}", buckets)
        self.buckets, self.output, self.tmp_dir = buckets, output, tmp_dir
        self.labels = ["the run", "the qrels"]
        self.stack = ExitStack()

    def run_input(self, run: Any) -> pl.LazyFrame:
        self.labels[0] = _label(run, "run")
        return _scan(run, "run")

    def qrels_input(self, qrels: Any) -> pl.LazyFrame:
        self.labels[1] = _label(qrels, "qrels")
        return _scan(qrels, "qrels")

    def session(self) -> ExitStack:
        """The spill files' directory and the SIGTERM cleanup."""
        return self.stack

    def colocate(self, run: Any, qrels: Any, query: str, qrels_query: str) -> _Buckets:
        """In one streaming pass each, run and qrels into ``tmp/{run,qrels}/<bucket>=<b>/``
        (a progress step each, and one for the size estimate that chose their number)."""
        n = self.buckets
        if n is None:
            self.steps.expect(1)
            n = _auto_buckets(run, qrels, self.limit, labels=(self.labels[0], self.labels[1]))
            self.steps(f"estimated the size: {n} buckets")
        self.stack.enter_context(_cleanup_on_sigterm())
        tmp = self.stack.enter_context(spill_directory(self.tmp_dir))
        if n > 1:
            self.steps.expect(1 if qrels is None else 2)
            for role, frame, key in (("run", run, query), ("qrels", qrels, qrels_query)):
                if frame is not None:
                    with (
                        _reading(f"the {role}"),
                        writing_spill(tmp),
                        timed(log, f"the {role} written to {n} buckets"),
                    ):
                        _write_buckets(frame, key, n, tmp / role)
                    self.steps(f"wrote the {role} into {n} buckets")
        schemas = (run.collect_schema(), None if qrels is None else qrels.collect_schema())
        return _Buckets(run, qrels, schemas, n, tmp)

    def values(self, placed: _Buckets, columns: list[str]) -> pl.DataFrame:
        """Read from the bucket files (the input is not scanned again)."""
        source = placed.run
        if placed.n > 1:
            written = any((placed.tmp / "run").glob("*/*.parquet"))
            source = pl.scan_parquet(placed.tmp / "run" / "**" / "*.parquet") if written else source.clear()
        return source.select(columns).unique().collect(engine="streaming")

    def map(self, placed: _Buckets, fn: skeleton.PartitionFn, values: Any, schema: pl.Schema) -> Any:
        """The buckets one after the other; large outputs go to files."""
        kept: list[pl.DataFrame] = []
        files: list[Path] = []
        self.steps.expect(placed.n)
        described = self.steps.active or log.isEnabledFor(DEBUG)
        for b in range(placed.n):
            found = placed.inputs(b)
            info = f"bucket {b + 1}/{placed.n}"
            if found is not None:
                info += f": {_rows(found[0]):,} rows" if described and placed.n > 1 else ""
                with timed(log, info), _counted_over_every_bucket(placed):
                    out = fn(found[0], found[1], values)
                if out.estimated_size() <= _KEEP_BYTES:
                    kept.append(out)
                else:
                    files.append(placed.tmp / f"out-{b:05d}.parquet")
                    with writing_spill(placed.tmp):
                        out.write_parquet(files[-1])
            self.steps(info)
        return kept, files

    def gather(self, mapped: Any, finish: skeleton.Finish, schema: pl.Schema) -> Any:
        kept, files = mapped
        parts = [*([pl.scan_parquet(files)] if files else []), *([pl.concat(kept).lazy()] if kept else [])]
        result = finish(pl.concat(parts) if len(parts) > 1 else parts[0])
        if self.output is None:
            return result.collect()
        with atomic_write(self.output) as tmp:  # (the old file stays whole on any error)
            result.sink_parquet(tmp)
        return pl.scan_parquet(Path(self.output), glob=False)
