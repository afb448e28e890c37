"""Compiling measures into the engine's three kinds of per-query columns.

A family's ``compile(measure, ctx)`` asks this :class:`Compiler` (the engine's
:class:`~irframe.measures.Ctx`) for per-query columns:

- over the judgments (any order): denominators such as R or the ideal DCG;
- over the ranking (the retrieved documents' grades, in ranking order): numerators;
- other measures' values (``ctx.value``), compiled once and shared.

Every intermediate column is keyed by the canonical string of the measure it belongs
to, so two measures that differ in any parameter never share a column, and the same
quantity asked twice is computed once.
"""

from __future__ import annotations

import polars as pl

from irframe.measures import Measure

__all__ = ["N_ROWS", "PREFIX", "Compiler"]

PREFIX = "__ir_"
N_ROWS = PREFIX + "n"


class Compiler:
    """Collects what the measures need; implements :class:`irframe.measures.Ctx`.

    ``inline_rn``: judgment values used inside ranking kernels are computed in the same
    aggregation, from the grades on the run rows (presorted input without qrels),
    instead of read from the joined per-query columns.
    """

    def __init__(self, *, inline_rn: bool) -> None:
        self.inline_rn = inline_rn
        self.dens: dict[str, pl.Expr] = {}  # over the judgments, any order
        self.ranked: dict[str, pl.Expr] = {}  # over the ranking, in order
        self.rn: set[str] = set()  # judgment columns the ranking kernels read
        self._values: dict[Measure, pl.Expr] = {}

    @staticmethod
    def key(m: Measure, name: str) -> str:
        """The column of ``m``'s intermediate ``name``: keyed by the canonical string."""
        return f"{PREFIX}{m}:{name}"

    def over_judgments(self, m: Measure, name: str, expr: pl.Expr) -> pl.Expr:
        key = self.key(m, name)
        self.dens[key] = expr
        return pl.col(key).cast(pl.Float64)

    def judgments_in_ranking(self, m: Measure, name: str, expr: pl.Expr) -> pl.Expr:
        key = self.key(m, name)
        self.dens[key] = expr
        if self.inline_rn:
            return expr
        self.rn.add(key)
        return pl.col(key).first()

    def over_ranking(self, m: Measure, name: str, expr: pl.Expr) -> pl.Expr:
        key = self.key(m, name)
        self.ranked[key] = expr
        return pl.col(key).cast(pl.Float64)

    def value(self, m: Measure) -> pl.Expr:
        if m not in self._values:
            self._values[m] = m.definition.compile(m, self).cast(pl.Float64)
        return self._values[m]

    def n_retrieved(self) -> pl.Expr:
        return pl.col(N_ROWS).cast(pl.Float64)
