"""The steps of every partitioned backend, written once; each backend supplies primitives.

Out of core (parquet buckets), Dask, Spark and a backend of yours evaluate the same way;
only how rows are moved differs.  :func:`evaluate` runs the steps:

1. the inputs as the backend's frames (:meth:`Primitives.run_input`,
   :meth:`~Primitives.qrels_input`), the column convention detected on their schemas;
2. the ``by`` columns the run lacks joined on from ``queries`` or the qrels (the rule is
   :func:`irframe._input.queries.query_attributes`'s);
3. the engine's plan built on the schemas (measures, parameters and columns validated
   before any data is read), and only the columns it reads kept;
4. each query's run rows and judgments co-located in one partition
   (:meth:`~Primitives.colocate`), with every system's values (:meth:`~Primitives.values`)
   so that a partition lacking a system still gets that system's missing queries;
5. every partition evaluated by :func:`irframe.partition.evaluate_partition` and reduced
   (:meth:`Job.partition`): per-query rows with their flags, or partial sums and counts
   (:func:`irframe.partition.partial_sums`), and one summary row for the global checks;
6. all of it gathered in one place (:meth:`~Primitives.gather`) and finished
   (:meth:`Job.finish`): the global checks (qrels without a judged query; a ``by`` column
   that is a segment, not a system, under ``missing="zero"``), then the per-query rows
   in natural order (:func:`irframe._input.columns.natural_order`) or the means
   (:func:`irframe.partition.combine_partials`).

A backend subclasses :class:`Primitives`.  On its own frames it supplies the schema,
the distinct rows of a few columns, a column selection and the join of a small
attribute table (polars frames have them here already); and the four moves: colocate,
values, map (call a function on every partition) and gather (call one on all the
partitions' outputs).  A local qrels frame (polars) may be kept as it is, next to the
backend's own run.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import Any

import polars as pl
import pyarrow as pa

from irframe import _engine as engine
from irframe._backends.partition import (
    IN_RUN,
    JUDGED,
    combine_partials,
    evaluate_partition,
    output_columns,
    partial_sums,
)
from irframe._engine import compose
from irframe._engine.aggregate import aggregates_of, check_not_empty
from irframe._input import weights
from irframe._input.columns import natural_order
from irframe._input.frames import PolarsFrame
from irframe._input.options import Options
from irframe._input.queries import join_attributes, query_attributes
from irframe._log import INFO, timed
from irframe._log import backends as log
from irframe.measures import Family
from irframe.measures.user import ensure_registered, user_families
from irframe.progress import Progress, Steps, reporter

__all__ = ["Job", "Primitives", "evaluate"]

# (run, qrels or None, partition values or None) -> one partition's output
PartitionFn = Callable[[Any, Any, "pl.DataFrame | None"], pl.DataFrame]
Finish = Callable[[pl.LazyFrame], pl.LazyFrame]  # all partitions' outputs -> the result

# Each partition's output ends with one summary row (null in the rows' columns, the rows
# null in these): what the global checks add up over every partition.
N_RUN = "__irframe_n_run"  # per-query rows of the run
N_JUDGED = "__irframe_n_judged"  # per-query rows that are judged
N_STAT = "__irframe_n_stat"  # queries of the run (for the segment check)


def _max(i: int) -> str:  # the most values of checked column i that one query has
    return f"__irframe_max_{i}"


def _distinct(i: int) -> str:  # the values of checked column i in the whole run
    return f"__irframe_distinct_{i}"


class Primitives:
    """What a partitioned backend supplies to :func:`evaluate` (subclass and override).

    The frame methods (:meth:`schema`, :meth:`rows`, :meth:`select`, :meth:`join`) are
    only called with the backend's own frames: polars frames are handled here.  The
    moves are called in order, inside :meth:`session`: ``placed = colocate(run, qrels,
    ...)``, ``values(placed, columns)`` (when systems must be filled in),
    ``mapped = map(placed, fn, values, schema)``, ``gather(mapped, finish, schema)``,
    whose value :func:`evaluate` returns.
    """

    where = "evaluate"  # the function named in messages about the options
    label = "partitioned"  # the backend, as messages name it
    weighs = True  # whether it takes weights= (else refused, naming it)
    eager = False  # whether map and gather compute (else they build a lazy result)
    # the progress of the current evaluation: a move may report steps of its own
    # (``steps.expect(n)`` first, then ``steps(info)`` after each)
    steps: Steps = Steps(0)

    def is_native(self, obj: object) -> bool:
        """Whether ``obj`` is one of this backend's frames (a ``queries`` table, say)."""
        return False

    def run_input(self, run: Any) -> Any:
        """The run as this backend's frame (or a polars frame); refuse what it cannot take."""
        return run

    def qrels_input(self, qrels: Any) -> Any:
        """The qrels as this backend's frame, or as a polars frame kept local."""
        return qrels

    def schema(self, frame: Any) -> pl.Schema:
        """The polars schema of one of this backend's frames."""
        raise NotImplementedError

    def rows(self, frame: Any, columns: Sequence[str]) -> pl.DataFrame:
        """The distinct rows of these columns, collected (they are few)."""
        raise NotImplementedError

    def select(self, frame: Any, columns: Sequence[str]) -> Any:
        """Only these columns of the frame."""
        raise NotImplementedError

    def join(self, frame: Any, key: str, table: pl.DataFrame) -> Any:
        """A small attribute table left-joined by query id (as
        :func:`irframe._input.queries.join_attributes` does on polars frames)."""
        raise NotImplementedError

    def session(self) -> AbstractContextManager[Any]:
        """Wraps the four moves (spill files, say); nothing by default."""
        return nullcontext()

    def colocate(self, run: Any, qrels: Any, query: str, qrels_query: str) -> Any:
        """Place each query's run rows (by ``query``) and judgments (by ``qrels_query``) in
        one partition: hash the id as a string (:func:`irframe.outofcore.bucket_expr`)."""
        raise NotImplementedError

    def values(self, placed: Any, columns: list[str]) -> Any:
        """The distinct rows of these run columns (the systems), as ``map`` passes them."""
        raise NotImplementedError

    def map(self, placed: Any, fn: PartitionFn, values: Any, schema: pl.Schema) -> Any:
        """``fn(run, qrels, values)`` on every partition (polars frames in; the values as a
        polars frame or None); its output has ``schema``."""
        raise NotImplementedError

    def gather(self, mapped: Any, finish: Finish, schema: pl.Schema) -> Any:
        """``finish`` on all partitions' outputs in one place (a LazyFrame of them); the
        result, of ``schema``, in this backend's kind of frame."""
        raise NotImplementedError


def _local(frame: Any) -> bool:
    return isinstance(frame, pl.DataFrame | pl.LazyFrame)


@dataclass(frozen=True)
class _Frames:
    """The frame primitives for the backend's frames and for local polars frames."""

    backend: Primitives

    def schema(self, frame: Any) -> pl.Schema:
        return frame.collect_schema() if _local(frame) else self.backend.schema(frame)

    def names(self, frame: Any) -> list[str] | None:
        return None if frame is None else list(self.schema(frame))

    def stand_in(self, frame: Any) -> pl.LazyFrame:
        """A polars frame to build the plan on: the frame, or an empty one of its schema."""
        return frame.lazy() if _local(frame) else pl.LazyFrame(schema=self.schema(frame))

    def rows(self, frame: Any, columns: list[str]) -> pl.LazyFrame | pl.DataFrame:
        return frame.lazy().select(columns) if _local(frame) else self.backend.rows(frame, columns)

    def select(self, frame: Any, columns: Sequence[str]) -> Any:
        return frame.select(list(columns)) if _local(frame) else self.backend.select(frame, columns)

    def join(self, frame: Any, key: str, table: pl.DataFrame) -> Any:
        if not _local(frame):
            return self.backend.join(frame, key, table)
        joined = join_attributes(frame.lazy(), key, table)
        return joined.collect() if isinstance(frame, pl.DataFrame) else joined


def _with_attributes(f: _Frames, run: Any, qrels: Any, queries: Any, opts: Options) -> tuple[Any, Any]:
    """The ``by`` columns the run lacks joined onto run and qrels."""

    def qrels_rows(cols: list[str]) -> pl.LazyFrame | pl.DataFrame:
        return f.rows(qrels, cols)

    attrs = query_attributes(
        f.names(run) or [], f.names(qrels), queries, opts, qrels_rows=None if qrels is None else qrels_rows
    )
    return (run, qrels) if attrs is None else attrs.attach(run, qrels, opts, f.join)


def _weights(f: _Frames, run: Any, qrels: Any, queries: Any, opts: Options) -> pl.DataFrame:
    """The weights table (:func:`irframe._input.weights.weights_for`, the one rule), from
    the distinct query ids (and weights) of the backend's frames, built where
    :func:`evaluate` runs and sent to every partition."""

    def stub(frame: Any, key: str) -> pl.LazyFrame:
        if _local(frame):
            return frame.lazy()  # type: ignore[no-any-return]
        names = list(f.schema(frame))
        wanted = [key, *([opts.weights] if opts.weights in names else [])] if key in names else []
        got = f.rows(frame, wanted).lazy() if wanted else pl.LazyFrame()
        return got.with_columns(pl.lit(None).alias(c) for c in names if c not in wanted)

    qrels_stub = None if qrels is None else stub(qrels, opts.qrels_columns[0])
    return weights.weights_for(stub(run, opts.query_col), qrels_stub, queries, opts, f.backend.where)


def evaluate(
    backend: Primitives,
    run: Any,
    measures: Any,
    qrels: Any,
    opts: Options,
    *,
    per_query: bool,
    queries: Any = None,
    evaluate: Callable[..., pa.Table] = evaluate_partition,
    progress: Progress = None,
) -> Any:
    """Evaluate ``run`` on ``backend``: the steps of the module docstring.

    ``evaluate``: the partition function (:func:`irframe.partition.evaluate_partition`;
    the out-of-core backend passes its module's name for it, which tests replace).
    ``progress`` (:mod:`irframe.progress`): a step per stage, and the steps a backend's
    moves report themselves (:attr:`Primitives.steps`: the out-of-core buckets).
    """
    if not backend.weighs:
        weights.refuse(opts, backend.label)
    with reporter(progress, 5, f"evaluating ({backend.label})") as step:
        backend.steps = step
        with timed(log, f"{backend.label}: the inputs' schemas"):
            f = _Frames(backend)
            run = backend.run_input(run)
            qrels = None if qrels is None else backend.qrels_input(qrels)
            opts = opts.detect(f.names(run) or [], backend.where, qrels_schema=f.names(qrels))
        step("read the inputs' schemas")
        if queries is not None and (opts.by or opts.weights) and backend.is_native(queries):
            queries = backend.rows(queries, list(backend.schema(queries)))  # small: one row per query
        if opts.by:  # query attributes: validated now, joined on before the rows move
            given = run
            run, qrels = _with_attributes(f, run, qrels, queries, opts)
            if run is not given:
                step.expect(1)
                step("joined the query attributes")
        # validate measures, parameters and columns on the schemas (no data is read)
        stand_in = None if qrels is None else f.stand_in(qrels)
        plan = compose.plan(f.stand_in(run), measures, stand_in, opts)
        _log_plan(backend, plan, per_query)
        table = None if opts.weights is None else _weights(f, run, qrels, queries, opts)
        step.expect(1 if plan.partitions and qrels is not None else 0)  # (values, below)
        step(f"planned {len(plan.measures)} measure(s)")
        run = f.select(run, plan.read[0])
        qrels = None if qrels is None else f.select(qrels, plan.read[1])
        job = Job.of(plan, measures, opts, per_query, evaluate, weight_table=table)
        part_schema = job.part_schema(output_columns(plan, plan.frame.lazy()).collect_schema())
        with backend.session():
            return _moves(backend, step, (run, qrels), plan, job=job, schema=part_schema)


def _log_plan(backend: Primitives, plan: engine.Plan, per_query: bool) -> None:
    if log.isEnabledFor(INFO):
        log.info(
            "evaluating on %s: %d measures (%s), by %s, %s", backend.label, len(plan.measures),
            ", ".join(plan.labels[:5]) + ("..." if len(plan.labels) > 5 else ""),
            list(plan.cols.by) or "nothing", "per query" if per_query else "the means",
        )  # fmt: skip


def _moves(
    backend: Primitives, step: Steps, inputs: tuple[Any, Any], plan: engine.Plan, *, job: Job,
    schema: pl.Schema,
) -> Any:  # fmt: skip
    """The four moves, a step each (inside the backend's session)."""
    run, qrels = inputs
    with timed(log, f"{backend.label}: colocate"):
        placed = backend.colocate(run, qrels, plan.cols.query, job.opts.qrels_columns[0])
    step("placed each query's rows in one partition")
    values = None
    if plan.partitions and qrels is not None:
        values = backend.values(placed, list(plan.partitions))
        step(f"listed the values of {', '.join(plan.partitions)}")
    with timed(log, f"{backend.label}: map"):
        mapped = backend.map(placed, job.partition, values, schema)
    step("evaluated the partitions" if backend.eager else "mapped the partitions (lazily)")
    with timed(log, f"{backend.label}: gather"):
        out = backend.gather(mapped, job.finish, job.out_schema(schema))
    step("gathered the result" if backend.eager else "gathered the result (lazily: computed when asked)")
    return out


@dataclass(frozen=True)
class Job:
    """What every partition and the final step need (sent to the workers as it is)."""

    measures: Any
    opts: Options
    per_query: bool
    keys: tuple[str, ...]  # the per-query keys: the by columns, then the query
    labels: tuple[str, ...]
    aggregates: dict[str, str]
    checked: tuple[str, ...]  # the run-partitioning by columns checked for segments
    has_qrels: bool
    evaluate: Callable[..., pa.Table]
    families: tuple[Family, ...]  # user-defined measures, registered on the workers
    weights: pl.DataFrame | None  # the queries' weights (weights=), joined onto each partition

    @classmethod
    def of(
        cls, plan: engine.Plan, measures: Any, opts: Options, per_query: bool, evaluate: Any, *,
        weight_table: pl.DataFrame | None = None,
    ) -> Job:  # fmt: skip
        """The job of this plan; the segment check applies as in process (see
        :func:`irframe._engine.checks.attribute_like`): with qrels, unless ``missing="drop"``."""
        checked = plan.partitions if plan.has_qrels and opts.missing != "drop" else ()
        return cls(
            measures, opts, per_query, plan.keys, plan.labels, aggregates_of(plan.measures), checked,
            plan.has_qrels, evaluate, user_families(measures), weight_table,
        )  # fmt: skip

    def partition(self, run: Any, qrels: Any, values: pl.DataFrame | None) -> pl.DataFrame:
        """One partition (each query whole): evaluated, then reduced (:meth:`reduce`)."""
        ensure_registered(self.families)
        table = self.evaluate(run, self.measures, qrels, partition_values=values, options=self.opts)
        return self.reduce(pl.DataFrame(table), values)

    def reduce(self, table: PolarsFrame, values: pl.DataFrame | None) -> PolarsFrame:
        """Per-query rows (keys, measures, flags, the weight) or partial sums (weighted
        when the rows have weights), then the summary row (eager or lazy alike: on an
        empty lazy table it gives the schema)."""
        if self.weights is not None:
            table = weights.attach(table, self.keys[-1], self.weights)
        if self.per_query:
            weight = [] if self.weights is None else [weights.WEIGHT]
            rows = table.select(*self.keys, *self.labels, *weight, IN_RUN, JUDGED)
        else:
            rows = partial_sums(
                table, self.labels, self.keys[:-1], self.opts.missing, aggregates=self.aggregates
            )
        return pl.concat([rows, self._summary(table, values)], how="diagonal")

    def _summary(self, table: PolarsFrame, values: pl.DataFrame | None) -> PolarsFrame:
        counts = table.select(
            pl.col(IN_RUN).sum().cast(pl.Int64).alias(N_RUN),
            pl.col(JUDGED).sum().cast(pl.Int64).alias(N_JUDGED),
        )
        if not self.checked:
            return counts
        ran = table.filter(pl.col(IN_RUN))
        # (partition_stats is typed for DataFrames; its group_by runs lazily alike)
        stats: Any = engine.partition_stats(ran, self.keys[-1], self.checked)  # type: ignore[arg-type]
        distinct = [None if values is None else values.get_column(c).n_unique() for c in self.checked]
        stats = stats.select(
            pl.col("n").alias(N_STAT),
            *(pl.col(c).alias(_max(i)) for i, c in enumerate(self.checked)),
            *(pl.lit(n, pl.Int64).alias(_distinct(i)) for i, n in enumerate(distinct)),
        )
        summary: PolarsFrame = pl.concat([counts, stats], how="horizontal")
        return summary

    def part_schema(self, table: pl.Schema) -> pl.Schema:
        """The schema of :meth:`partition`'s output, for :func:`evaluate_partition`'s
        table of this schema (nothing computed: no Arrow or polars work before the rows
        move, whose peak memory is the out-of-core backend's)."""
        return self.reduce(pl.LazyFrame(schema=table), None).collect_schema()

    def finish(self, parts: pl.LazyFrame) -> pl.LazyFrame:
        """Every partition's output -> the result, after the global checks."""
        self.check(parts.filter(pl.col(N_RUN).is_not_null()).collect())
        return self.result(parts.filter(pl.col(N_RUN).is_null()))

    def check(self, summary: pl.DataFrame) -> None:
        """The checks no partition can make alone, on the partitions' summary rows."""
        n_judged = int(summary.get_column(N_JUDGED).sum())
        check_not_empty(int(summary.get_column(N_RUN).sum()), n_judged if self.has_qrels else None)
        if not self.checked:
            return
        stats = summary.select(
            pl.col(N_STAT).alias("n"), *(pl.col(_max(i)).alias(c) for i, c in enumerate(self.checked))
        )
        distinct = {c: int(summary.get_column(_distinct(i)).max() or 0) for i, c in enumerate(self.checked)}  # type: ignore[arg-type]
        flagged = engine.attribute_like(stats, distinct)
        if flagged:
            raise engine.partitions_error(flagged)

    def result(self, rows: pl.LazyFrame) -> pl.LazyFrame:
        """The per-query table in natural key order, or the means."""
        if not self.per_query:
            return combine_partials(  # type: ignore[no-any-return]
                rows, self.labels, self.keys[:-1], aggregates=self.aggregates
            )
        if self.opts.missing == "drop":
            rows = rows.filter(pl.col(IN_RUN))
        weight = [] if self.weights is None else [pl.col(weights.WEIGHT).alias(str(self.opts.weights))]
        rows = rows.select(*self.keys, *self.labels, *weight)
        return rows.sort(natural_order(rows.collect_schema(), self.keys), nulls_last=True)

    def out_schema(self, part_schema: pl.Schema) -> pl.Schema:
        """The schema of the result."""
        return self.result(pl.LazyFrame(schema=part_schema)).collect_schema()
