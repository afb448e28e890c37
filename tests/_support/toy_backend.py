"""A toy partitioned backend: a run given as a list of polars partitions.

It shows what a new backend is: the primitives of
:class:`irframe._backends.skeleton.Primitives` on its own kind of frame (here
:class:`Partitions`, whose partitions split queries arbitrarily), registered with
``register_backend``.  The steps -- options, query attributes, the plan, the global
checks, the natural order, the means -- are the skeleton's, not written here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl

from irframe._backends import skeleton
from irframe._backends.registry import Backend
from irframe._input.frames import to_lazy
from irframe._input.options import Options
from irframe._input.queries import join_attributes
from irframe.exceptions import IrFrameError
from irframe.outofcore import bucket_expr

Placed = list[tuple[pl.DataFrame, pl.DataFrame | None]]  # partition b: (run rows, judgments)


@dataclass(frozen=True)
class Partitions:
    """A frame made of polars partitions (at least one; a query's rows may be in several)."""

    parts: tuple[pl.DataFrame, ...]

    @classmethod
    def split(cls, frame: pl.DataFrame, n: int) -> Partitions:
        """``frame`` cut into ``n`` slices of consecutive rows."""
        size = -(-frame.height // n) or 1
        return cls(tuple(frame.slice(i * size, size) for i in range(n)))


class Toy(skeleton.Primitives):
    """The primitives on :class:`Partitions`: every partition is a polars DataFrame."""

    def __init__(self, n: int = 4) -> None:
        self.n = n  # partitions after the shuffle

    def is_native(self, obj: object) -> bool:
        return isinstance(obj, Partitions)

    def run_input(self, run: Any) -> Partitions:
        if not isinstance(run, Partitions):
            msg = f"The toy backend takes Partitions; got {type(run)!r}."
            raise IrFrameError(msg)
        return run

    def qrels_input(self, qrels: Any) -> Partitions:
        if isinstance(qrels, Partitions):
            return qrels
        return Partitions((to_lazy(qrels, "qrels")[0].collect(),))

    def schema(self, frame: Partitions) -> pl.Schema:
        return frame.parts[0].schema

    def rows(self, frame: Partitions, columns: Sequence[str]) -> pl.DataFrame:
        return pl.concat([p.select(columns) for p in frame.parts]).unique()

    def select(self, frame: Partitions, columns: Sequence[str]) -> Partitions:
        return Partitions(tuple(p.select(columns) for p in frame.parts))

    def join(self, frame: Partitions, key: str, table: pl.DataFrame) -> Partitions:
        return Partitions(tuple(join_attributes(p.lazy(), key, table).collect() for p in frame.parts))

    def _shuffle(self, frame: Partitions, query: str) -> list[pl.DataFrame]:
        """Partition ``b`` gets the rows whose query id hashes to ``b``, from every part."""
        pieces = [p.with_columns(bucket_expr(query, self.n).alias("_b")) for p in frame.parts]
        return [pl.concat([p.filter(pl.col("_b") == b).drop("_b") for p in pieces]) for b in range(self.n)]

    def colocate(self, run: Partitions, qrels: Partitions | None, query: str, qrels_query: str) -> Placed:
        runs = self._shuffle(run, query)
        judgments = [None] * self.n if qrels is None else self._shuffle(qrels, qrels_query)
        return list(zip(runs, judgments, strict=True))

    def values(self, placed: Placed, columns: list[str]) -> pl.DataFrame:
        return pl.concat([run.select(columns) for run, _ in placed]).unique()

    def map(
        self, placed: Placed, fn: skeleton.PartitionFn, values: Any, schema: pl.Schema
    ) -> list[pl.DataFrame]:
        outputs = [fn(run, qrels, values) for run, qrels in placed]
        assert all(o.schema == schema for o in outputs)  # the declared schema
        return outputs

    def gather(self, mapped: list[pl.DataFrame], finish: skeleton.Finish, schema: pl.Schema) -> pl.DataFrame:
        result = finish(pl.concat(mapped).lazy()).collect()
        assert result.schema == schema
        return result


def evaluate_options(
    run: Any, measures: Any, qrels: Any, opts: Options, per_query: bool, *, n: int = 4, queries: Any = None
) -> pl.DataFrame:
    """What the registry calls: the skeleton with the toy's primitives."""
    return skeleton.evaluate(Toy(n), run, measures, qrels, opts, per_query=per_query, queries=queries)  # type: ignore[no-any-return]


BACKEND = Backend("toy", lambda obj: isinstance(obj, Partitions), evaluate_options, ("n", "queries"))
