"""The families compiled for one sorted list per query: two more :class:`~irframe.measures.Ctx`.

:func:`compile_list` turns measures into expressions over the elements of ONE list per
query, the query's grades in ranking order, evaluated by ``list.agg`` inside the
caller's own ``group_by(query).agg(...)`` (or ``.over(query)``).  The family
definitions are the engine's own: each family's ``compile(measure, ctx)`` runs with a
:class:`ListCtx` instead of the engine's compiler, and reads the grades through
``ctx.grades`` (here ``pl.element()``, in the engine the prepared column).

What the engine spreads over three per-query tables (the judgments' denominators, the
ranking's numerators, the per-query columns made from them) is here one expression per
measure, inlined: every value comes from the same list, so nothing is joined.  polars
does not share common sub-expressions inside an aggregation, but inside ``list.agg``
a repeated sub-expression costs a pass over the query's list, not another sort.

With the judgments attached from a separate qrels frame (:func:`irframe.expr.attach`),
the list's elements are structs: the row's grade, and the query's constants computed
from the qrels (R, N, ideal DCG ... keyed as :class:`JudgmentsCtx` names them);
``ListCtx(attached=True)`` reads those instead of computing them from the list.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import polars as pl

from irframe import kernels as K
from irframe.measures import Measure
from irframe.measures._base import PerRow, per_registry

__all__ = ["GRADE", "JUDGED", "JUDGMENTS", "JudgmentsCtx", "ListCtx", "compile_list", "key"]

GRADE = "grade"  # the field of a list element holding the row's grade (attached judgments)
JUDGMENTS = "judgments"  # ... and the one holding the query's constants
JUDGED = "__ir_judged"  # a constant: the query has judgments (True), else the struct is null


def key(m: Measure, name: str) -> str:
    """The name of ``m``'s per-query constant ``name``: keyed by the canonical string."""
    return f"__ir_{m}:{name}"


def _top(expr: PerRow, n: int | None) -> pl.Expr:
    """``expr`` over the first ``n`` ranked elements (all for None); see ``Ctx.cumulative``."""
    if callable(expr):
        return expr(n)
    return expr if n is None else expr.head(n)


class ListCtx:
    """:class:`irframe.measures.Ctx` over the elements of one sorted list per query.

    Every method returns the expression itself, to be evaluated inside ``list.agg``
    (numbers as Float64, and 0 where the engine fills a missing per-query value with 0).
    With ``attached``, the values over the judgments are read from the elements'
    ``judgments`` field instead (the constants :func:`irframe.expr.attach` computed).
    """

    def __init__(self, *, attached: bool) -> None:
        self.attached = attached
        self.grades = pl.element().struct.field(GRADE) if attached else pl.element()
        self.placeholders: set[str] = set()  # judged lists read only by per-query constants
        self._values: dict[Measure, pl.Expr] = {}

    def _constant(self, m: Measure, name: str) -> pl.Expr:
        return pl.element().struct.field(JUDGMENTS).struct.field(key(m, name)).first()

    def judged(self) -> pl.Expr:
        """True when the query has judgments (else its measures are null, as evaluate's)."""
        if self.attached:
            return pl.element().struct.field(JUDGMENTS).struct.field(JUDGED).first().fill_null(False)
        return self.grades.is_not_null().any()

    def over_judgments(self, m: Measure, name: str, expr: pl.Expr) -> pl.Expr:
        value = self._constant(m, name) if self.attached else expr
        return value.cast(pl.Float64).fill_null(0.0)

    def judgments_in_ranking(self, m: Measure, name: str, expr: pl.Expr) -> pl.Expr:
        return self._constant(m, name) if self.attached else expr

    def over_ranking(self, m: Measure, name: str, expr: pl.Expr) -> pl.Expr:
        return expr.cast(pl.Float64).fill_null(0.0)

    def cumulative(self, m: Measure, name: str, expr: PerRow, k: int | None) -> pl.Expr:
        return _top(expr, k).sum().cast(pl.Float64)

    def judged_list(self, m: Measure, name: str, expr: pl.Expr) -> pl.Expr:
        if self.attached:  # only the per-query constants made from it read it
            self.placeholders.add(key(m, name))
            return pl.col(key(m, name))
        return expr.implode()

    def per_query(self, m: Measure, name: str, expr: pl.Expr) -> pl.Expr:
        if self.attached and set(expr.meta.root_names()) <= self.placeholders:
            return self._constant(m, name)
        return expr

    def per_query_cumulative(
        self, m: Measure, name: str, terms: Callable[[int | None], pl.Expr], k: int | None
    ) -> pl.Expr:
        if self.attached:
            return self._constant(m, name).cast(pl.Float64)
        return terms(k).list.sum().cast(pl.Float64)

    def judged_grades_in_ranking(self, m: Measure, name: str, expr: pl.Expr) -> pl.Expr:
        return self._constant(m, name).explode() if self.attached else expr

    def value(self, m: Measure) -> pl.Expr:
        if m not in self._values:
            self._values[m] = m.definition.compile(m, self).cast(pl.Float64)
        return self._values[m]

    def n_retrieved(self) -> pl.Expr:
        return pl.len().cast(pl.Float64)


class JudgmentsCtx:
    """:class:`irframe.measures.Ctx` that only collects the per-query constants over the
    judgments, as aggregations over a qrels frame's grade column (``kernels.REL``),
    under the names :class:`ListCtx` (``attached``) reads them by.

    ``aggs`` are aggregations for ``qrels.group_by(query)``; ``post`` are computed from
    them afterwards (the ideal DCG at k from the sorted positive gains); ``attached`` are
    the names the measures read.
    """

    grades = K.GRADES

    def __init__(self) -> None:
        self.aggs: dict[str, pl.Expr] = {}
        self.post: dict[str, pl.Expr] = {}
        self.attached: list[str] = []
        self._values: dict[Measure, pl.Expr] = {}

    def _keep(self, m: Measure, name: str, expr: pl.Expr, *, post: bool = False) -> pl.Expr:
        k = key(m, name)
        (self.post if post else self.aggs)[k] = expr
        if k not in self.attached:
            self.attached.append(k)
        return pl.lit(0.0)  # (the ranking side is not evaluated here)

    def over_judgments(self, m: Measure, name: str, expr: pl.Expr) -> pl.Expr:
        return self._keep(m, name, expr)

    def judgments_in_ranking(self, m: Measure, name: str, expr: pl.Expr) -> pl.Expr:
        return self._keep(m, name, expr)

    def over_ranking(self, m: Measure, name: str, expr: pl.Expr) -> pl.Expr:
        return pl.lit(0.0)

    def cumulative(self, m: Measure, name: str, expr: PerRow, k: int | None) -> pl.Expr:
        return pl.lit(0.0)

    def judged_list(self, m: Measure, name: str, expr: pl.Expr) -> pl.Expr:
        self.aggs[key(m, name)] = expr
        return pl.col(key(m, name))

    def per_query(self, m: Measure, name: str, expr: pl.Expr) -> pl.Expr:
        if set(expr.meta.root_names()) <= set(self.aggs):
            return self._keep(m, name, expr, post=True)
        return pl.lit(0.0)

    def per_query_cumulative(
        self, m: Measure, name: str, terms: Callable[[int | None], pl.Expr], k: int | None
    ) -> pl.Expr:
        return self._keep(m, name, terms(k).list.sum(), post=True)

    def judged_grades_in_ranking(self, m: Measure, name: str, expr: pl.Expr) -> pl.Expr:
        return self._keep(m, name, expr)

    def value(self, m: Measure) -> pl.Expr:
        if m not in self._values:
            self._values[m] = m.definition.compile(m, self)
        return self._values[m]

    def n_retrieved(self) -> pl.Expr:
        return pl.lit(0.0)


_Compiled = tuple[tuple[str, pl.Expr], ...]
_MEMO_SIZE = 32
_memo: Callable[[], dict[tuple[tuple[tuple[str, Measure], ...], bool], _Compiled]] = per_registry(dict)


def compile_list(measures: Sequence[tuple[str, Measure]], *, attached: bool) -> _Compiled:
    """``(label, expression)`` per measure, over the elements of one list per query in
    ranking order: null for a query without judgments, as ``evaluate``'s per-query values.

    The expressions read no column (only the list's elements), so they are memoised
    per measure list while the registry is unchanged, whatever columns the caller names.

    Examples
    --------
    >>> import polars as pl
    >>> from irframe.measures import parse_measures
    >>> (label, expr), = compile_list(parse_measures(["P@2"]), attached=False)
    >>> pl.DataFrame({"g": [[1.0, 0.0, 1.0]]}).select(pl.col("g").list.agg(expr)).item()
    0.5
    """
    memo = _memo()
    memo_key = (tuple(measures), attached)
    out = memo.get(memo_key)
    if out is None:
        ctx = ListCtx(attached=attached)
        judged = ctx.judged()
        out = tuple(
            (label, pl.when(judged).then(ctx.value(m)).otherwise(None).alias(label)) for label, m in measures
        )
        if len(memo) >= _MEMO_SIZE:
            memo.clear()
        memo[memo_key] = out
    return out
