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
from irframe.exceptions import InvalidParameterError
from irframe.measures import Measure
from irframe.measures._base import PerRow, per_registry

__all__ = [
    "GRADE",
    "JUDGED",
    "JUDGMENTS",
    "MAX_SCALAR_CUTOFFS",
    "JudgmentsCtx",
    "ListCtx",
    "attached_constants",
    "compile_list",
    "key",
]

MAX_SCALAR_CUTOFFS = 3  # a sum read at more cutoffs is one cumulative list (as the engine's)
GRADE = "grade"  # the field of a list element holding the row's grade (attached judgments)
JUDGMENTS = "judgments"  # ... and the one holding the query's constants
JUDGED = "__ir_judged"  # a constant: the query has judgments (True), else the struct is null


def key(m: Measure, name: str) -> str:
    """The name of ``m``'s per-query constant ``name``: keyed by the canonical string, and
    readable, as polars names a field an attached struct lacks (attached for other measures).

    Examples
    --------
    >>> key(Measure("nDCG", 10), "ideal")
    'ideal of nDCG@10 (attached for other measures? attach with every measure asked adds it)'
    """
    return f"{name} of {m} (attached for other measures? attach with every measure asked adds it)"


def attached_constants(measures: Sequence[tuple[str, Measure]]) -> list[str]:
    """The fields an attached judgments struct holds for ``measures`` (:func:`irframe.expr.attach`)."""
    ctx = JudgmentsCtx()
    for _, m in measures:
        ctx.value(m)
    return [JUDGED, *ctx.attached]


def check_computable(measures: Sequence[tuple[str, Measure]]) -> None:
    """Every measure can be computed from a query's rows (one grade per document), else
    :class:`~irframe.exceptions.InvalidParameterError` naming it and the alternative.

    The diversity families read subtopic judgments (a grade per (subtopic, document)),
    which rows with one grade each do not hold.

    Examples
    --------
    >>> from irframe.measures import parse_measures
    >>> check_computable(parse_measures(["nDCG@10", "alpha_nDCG@10"]))
    Traceback (most recent call last):
    ...
    irframe.exceptions.InvalidParameterError: 'alpha_nDCG@10' (alpha_nDCG) is a diversity measure: ...
    """
    for label, m in measures:
        if m.definition.kind == "diversity":
            msg = (
                f"{label!r} ({m.family}) is a diversity measure: it reads subtopic judgments (a grade "
                "per (subtopic, document)), which a query's rows, one grade each, do not hold, so "
                f"irframe.expr cannot compute it. Hint: irframe.evaluate(run, [{label!r}], "
                "subtopic_qrels, per_query=True) gives it per query; join that table to yours."
            )
            raise InvalidParameterError(msg)


def _top(expr: PerRow, n: int | None) -> pl.Expr:
    """``expr`` over the first ``n`` ranked elements (all for None); see ``Ctx.cumulative``."""
    if callable(expr):
        return expr(n)
    return expr if n is None else expr.head(n)


class ListCtx:
    """:class:`irframe.measures.Ctx` over the elements of one sorted list per query.

    Compiled as the engine compiles (:class:`irframe._engine.compiler.Compiler`): what a
    family computes over the grades (the judgments' counts, the ranking's sums) is a
    per-query value keyed by the canonical string of its measure, computed once per
    query however many measures read it (:attr:`leaves`, the first stage: ``list.agg``
    over the grades, one struct per query); what the family then makes of those
    per-query values (its final arithmetic, ``value``) reads them as the fields of that
    struct (the second stage).  polars does not share common sub-expressions inside an
    aggregation: nDCG's ``when(ideal > 0).then(dcg / ideal)`` would compute the ideal
    DCG twice; read from the first stage, each value is computed once.

    Numbers are Float64, and 0 where the engine fills a missing per-query value with 0.
    With ``attached``, the values over the judgments are read from the elements'
    ``judgments`` field (the constants :func:`irframe.expr.attach` computed).
    """

    N = "__ir_n"

    def __init__(self, *, attached: bool, cutoffs: dict[str, set[int | None]] | None = None) -> None:
        self.attached = attached
        self._planned = cutoffs or {}  # the cutoffs each sum is read at (compile_list's first pass)
        self.cutoffs: dict[str, set[int | None]] = {}
        self.grades = pl.element().struct.field(GRADE) if attached else pl.element()
        self.leaves: dict[str, pl.Expr] = {}  # the first stage, over the list's elements
        self.placeholders: set[str] = set()  # judged lists read only by per-query constants
        self._values: dict[Measure, pl.Expr] = {}

    def _constant(self, m: Measure, name: str) -> pl.Expr:
        """A constant attach computed, in the first stage (the same on every element)."""
        return pl.element().struct.field(JUDGMENTS).struct.field(key(m, name)).first()

    def _leaf(self, name: str, expr: pl.Expr) -> pl.Expr:
        """``expr`` computed once per query in the first stage; read in the second."""
        self.leaves[name] = expr
        return pl.element().struct.field(name)

    def _number(self, name: str, expr: pl.Expr) -> pl.Expr:
        return self._leaf(name, expr).cast(pl.Float64).fill_null(0.0)

    def judged(self) -> pl.Expr:
        """True when the query has judgments (else its measures are null, as evaluate's)."""
        if self.attached:
            head = pl.element().struct.field(JUDGMENTS).struct.field(JUDGED).first()
            return self._leaf(JUDGED, head.fill_null(False))
        return self._leaf(JUDGED, self.grades.is_not_null().any())

    def over_judgments(self, m: Measure, name: str, expr: pl.Expr) -> pl.Expr:
        return self._number(key(m, name), self._constant(m, name) if self.attached else expr)

    def judgments_in_ranking(self, m: Measure, name: str, expr: pl.Expr) -> pl.Expr:
        return self._constant(m, name) if self.attached else expr

    def over_ranking(self, m: Measure, name: str, expr: pl.Expr) -> pl.Expr:
        return self._number(key(m, name), expr)

    def _plan(self, m: Measure, name: str, k: int | None) -> tuple[str, int | None, bool]:
        """As the engine plans a sum read at several cutoffs: keyed by ``m`` without its
        cutoff, a sum over the first k each for up to ``MAX_SCALAR_CUTOFFS`` cutoffs, else
        one cumulative list (up to the largest cutoff, or over everything when the total
        is read too) read at every cutoff.  Returns the leaf's name, the row limit and
        whether it is a list; records that the sum is read at ``k``."""
        text = str(m)
        base = f"__ir_{text.rpartition('@')[0] if m.cutoff is not None else text}:{name}"
        self.cutoffs.setdefault(base, set()).add(k)
        planned = self._planned.get(base, {k})
        cuts = sorted(c for c in planned if c is not None)
        if len(cuts) > MAX_SCALAR_CUTOFFS:
            return f"{base}:cum", None if None in planned else cuts[-1], True
        return f"{base}@{k}", k, False

    def cumulative(self, m: Measure, name: str, expr: PerRow, k: int | None) -> pl.Expr:
        leaf, limit, is_list = self._plan(m, name, k)
        if is_list:
            return K.at_cutoff(self._leaf(leaf, _top(expr, limit).cum_sum().implode()), k)
        return self._number(leaf, _top(expr, k).sum())

    def judged_list(self, m: Measure, name: str, expr: pl.Expr) -> pl.Expr:
        if self.attached:  # only the per-query constants made from it read it
            self.placeholders.add(key(m, name))
            return pl.col(key(m, name))
        return expr.implode()  # (read by per_query_cumulative in the first stage)

    def per_query(self, m: Measure, name: str, expr: pl.Expr) -> pl.Expr:
        if self.attached and set(expr.meta.root_names()) <= self.placeholders:
            return self._number(key(m, name), self._constant(m, name))
        return expr

    def per_query_cumulative(
        self, m: Measure, name: str, terms: Callable[[int | None], pl.Expr], k: int | None
    ) -> pl.Expr:
        if self.attached:
            return self._number(key(m, name), self._constant(m, name))
        leaf, limit, is_list = self._plan(m, name, k)
        if is_list:
            return K.at_cutoff(self._leaf(leaf, terms(limit).list.eval(pl.element().cum_sum())), k)
        return self._number(leaf, terms(k).list.sum())

    def judged_grades_in_ranking(self, m: Measure, name: str, expr: pl.Expr) -> pl.Expr:
        return self._constant(m, name).explode() if self.attached else expr

    def value(self, m: Measure) -> pl.Expr:
        if m not in self._values:
            self._values[m] = m.definition.compile(m, self).cast(pl.Float64)
        return self._values[m]

    def n_retrieved(self) -> pl.Expr:
        return self._number(self.N, pl.len())


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


_Compiled = tuple[tuple[str, ...], pl.Expr, pl.Expr]
_MEMO_SIZE = 32
_memo: Callable[[], dict[tuple[tuple[tuple[str, Measure], ...], bool], _Compiled]] = per_registry(dict)


def compile_list(measures: Sequence[tuple[str, Measure]], *, attached: bool) -> _Compiled:
    """The labels and the two stages, each for ``list.agg`` over a list of one element per
    query: the first over the query's list of grades in ranking order (``ranked.implode()``),
    a struct of per-query values; the second over the first (imploded), a struct of the
    measures from its fields: null for a query without judgments, as ``evaluate``'s.

    The expressions read no column (only the list's elements), so they are memoised
    per measure list while the registry is unchanged, whatever columns the caller names.

    Examples
    --------
    >>> import polars as pl
    >>> from irframe.measures import parse_measures
    >>> labels, first, second = compile_list(parse_measures(["P@2"]), attached=False)
    >>> pl.DataFrame({"g": [[1.0, 0.0, 1.0]]}).select(
    ...     pl.col("g").implode().list.agg(first).implode().list.agg(second).struct.field("P@2")
    ... ).item()
    0.5
    """
    memo = _memo()
    memo_key = (tuple(measures), attached)
    out = memo.get(memo_key)
    if out is None:
        probe = ListCtx(attached=attached)  # (learns the cutoffs each sum is read at)
        for _, m in measures:
            probe.value(m)
        ctx = ListCtx(attached=attached, cutoffs=probe.cutoffs)
        judged = ctx.judged()
        finals = [pl.when(judged).then(ctx.value(m)).otherwise(None).alias(label) for label, m in measures]
        # each value its own list.agg over the list (a struct of aggregations in ONE list.agg
        # is slower: benchmarks/results/decisions.md, expr-list-agg)
        first = pl.struct([pl.element().list.agg(e).alias(k) for k, e in ctx.leaves.items()]).first()
        out = (tuple(label for label, _ in measures), first, pl.struct(finals).first())
        if len(memo) >= _MEMO_SIZE:
            memo.clear()
        memo[memo_key] = out
    return out
