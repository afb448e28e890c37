"""Kernels: pure polars expressions evaluated inside one ``group_by(query).agg(...)``.

Every expression here runs in the aggregation context of one query.  The ranking
kernels read ``g``, the grades of the query's retrieved documents in ranking order
(Float64, null = not judged): :func:`grades` gives it, either the prepared column
``REL`` as it is or, for ``judged_only`` measures, with the unjudged documents removed
(trec_eval ``-J``).  The same expressions applied to a query's judgments in any order
(``g`` left at its default, the column ``REL``) give the denominators (R, N, ideal DCG).

Kernels never validate, read files or import pandas; they return numerators whose
denominators (number of relevant documents, ideal DCG) the engine joins per query.
"""

from __future__ import annotations

import functools

import polars as pl

__all__ = [
    "GRADES",
    "REL",
    "Gain",
    "ap_terms",
    "at_cutoff",
    "bpref_clipped",
    "discounted",
    "first_relevant",
    "gain",
    "grades",
    "ideal_dcg_terms",
    "judged",
    "judged_nonrelevant",
    "positive_gains",
    "relevant",
    "rprec_hits",
    "top",
]

REL = "__ir_rel"
GRADES = pl.col(REL)
"""The grades as prepared: every retrieved document in ranking order (or every judgment)."""

Gain = str | tuple[tuple[float, float], ...]
"""A gain setting: ``"exp"`` (2^rel - 1), ``"linear"`` (rel) or explicit (grade, gain) pairs."""


def grades(judged_only: bool = False, g: pl.Expr = GRADES) -> pl.Expr:
    """The ranked grades ``g``; with ``judged_only`` without the unjudged documents.

    ``g`` is where the grades are read: the prepared column (the engine's group_by) or a
    list's elements (``pl.element()``, :mod:`irframe.expr`); see ``Ctx.grades``.

    As trec_eval's ``-J`` (and ir_measures' ``judged_only``, through pytrec_eval), a
    document is dropped when it has no judgment or a negative grade; the others keep
    their relative order and are re-ranked 1, 2, ... before any cutoff applies.

    Examples
    --------
    >>> import polars as pl
    >>> df = pl.DataFrame({REL: [1.0, None, -1.0, 0.0, 2.0]})
    >>> df.select(grades(judged_only=True))[REL].to_list()
    [1.0, 0.0, 2.0]
    """
    return g.filter(g >= 0) if judged_only else g


def positions(g: pl.Expr = GRADES) -> pl.Expr:
    """1-based rank positions of ``g``'s rows."""
    return pl.int_range(1, g.len() + 1, dtype=pl.UInt32)


def relevant(t: float, g: pl.Expr = GRADES) -> pl.Expr:
    """Boolean: the document's grade is at least ``t`` (unjudged: False)."""
    return (g >= t).fill_null(False)


def judged_nonrelevant(t: float, g: pl.Expr = GRADES) -> pl.Expr:
    """Boolean: judged with ``0 <= grade < t`` (negative grades are skipped, as by trec_eval)."""
    return ((g >= 0) & (g < t)).fill_null(False)


def gain(gn: Gain, g: pl.Expr = GRADES) -> pl.Expr:
    """Gain of a grade: ``exp`` 2^rel - 1, ``linear`` rel, or explicit per-grade gains.

    Grades <= 0 and unjudged documents get 0 under ``exp``/``linear``; explicit gains
    apply to every grade >= 0 and grades not listed keep their linear gain (as
    trec_eval's ``-m ndcg.g=v``).
    """
    if isinstance(gn, tuple):
        mapping = dict(gn)
        value = g.replace_strict(list(mapping), list(mapping.values()), default=g, return_dtype=pl.Float64)
        return pl.when(g >= 0).then(value).otherwise(0.0).fill_null(0.0)
    value = pl.lit(2.0).pow(g) - 1.0 if gn == "exp" else g
    return pl.when(g > 0).then(value).otherwise(0.0).fill_null(0.0)


def _over_log2(rank_plus_one: pl.Expr) -> pl.Expr:
    """DCG's discount, 1 / log2(rank + 1), from rank + 1 (UInt32)."""
    return 1.0 / rank_plus_one.log(2)


_TABLE_ROWS = 10_000  # discounts of up to this many ranks come from a table


def _first_discounts(n: int | pl.Expr) -> pl.Expr:
    """The discounts of ranks 1 .. n."""
    return _over_log2(pl.int_range(2, n + 2, dtype=pl.UInt32))


@functools.cache
def _all_discounts() -> pl.Series:
    """The discounts of ranks 1 .. ``_TABLE_ROWS``, computed once by the expression used
    per group (so every slice of it holds the very values that expression gives)."""
    return pl.select(_first_discounts(_TABLE_ROWS).alias("discount")).to_series()


def _discount_table(n: int) -> pl.Series:
    """The first ``n`` discounts (``n <= _TABLE_ROWS``): a slice of one table, not one
    polars query per cutoff (1,000 cutoffs cost 1,000 queries)."""
    return _all_discounts().head(n)


def discount(g: pl.Expr = GRADES, n: int | None = None) -> pl.Expr:
    """1 / log2(rank + 1) for ``g``'s rows; ``n``: ``g`` has at most ``n`` rows.

    With ``n`` (up to 10,000), the discounts are the first rows of a table computed once,
    not logarithms per query: nDCG@10's kernel took 7 against 18 ms at 1e6 rows
    (10,000 queries), with the same values.

    Examples
    --------
    >>> df = pl.DataFrame({REL: [3.0, 2.0, 1.0]})
    >>> df.select(discount(GRADES.head(2), 2)).to_series().round(6).to_list()
    [1.0, 0.63093]
    """
    if n is None or n > _TABLE_ROWS:
        return _first_discounts(g.len())
    return pl.lit(_discount_table(n)).head(g.len())


def first_relevant(t: float, g: pl.Expr = GRADES) -> pl.Expr:
    """The 1-based rank of the first relevant document; 0 if there is none."""
    # arg_max of the flags as UInt8 (the first maximum), times their max (0: none is
    # relevant): faster than arg_true().first() (benchmarks/results/decisions.md, first-relevant).  Not
    # arg_max of the Boolean itself: polars 2.1's streaming engine returns the last index
    # for [True, True] in a group_by (tests/engine/test_kernels_engines.py checks both).
    flags = relevant(t, g).cast(pl.UInt8)
    return ((flags.arg_max().cast(pl.Float64) + 1.0) * flags.max().cast(pl.Float64)).fill_null(0.0)


def top(g: pl.Expr, n: int | None) -> pl.Expr:
    """The first ``n`` ranked grades (every one for None): kernels given to
    ``Ctx.cumulative`` as a function of the row limit read them.

    Examples
    --------
    >>> pl.DataFrame({REL: [2.0, 0.0, 1.0]}).select(discounted("linear", top(GRADES, 2)).sum()).item()
    2.0
    """
    return g if n is None else g.head(n)


def ap_terms(t: float, g: pl.Expr = GRADES) -> pl.Expr:
    """Per rank: precision at the rank if the document is relevant, else 0 (AP's terms)."""
    flags = relevant(t, g)
    # the count of relevant documents so far, summed as integers (exact; 31 against 40
    # ms for Float64 flags at 1e6 rows), times the flag
    return flags.cast(pl.UInt32).cum_sum().cast(pl.Float64) * flags.cast(pl.Float64) / positions(g)


def discounted(gn: Gain, g: pl.Expr = GRADES, n: int | None = None) -> pl.Expr:
    """Per rank: the gain over log2(rank + 1) (DCG's terms); ``n``: as for :func:`discount`."""
    return gain(gn, g) * discount(g, n)


def positive_gains(gn: Gain, g: pl.Expr = GRADES) -> pl.Expr:
    """The positive gains of a query's judgments, in no order: the ideal ranking's entries.

    A gain <= 0 never helps the ideal ranking (a negative custom gain would only lower it),
    so only positive gains enter it.  Aggregated per query, this is a list per query, for
    :func:`ideal_dcg_cumulative`.

    Examples
    --------
    >>> import polars as pl
    >>> pl.DataFrame({REL: [2.0, 0.0, None, 1.0]}).select(positive_gains("exp")).to_series().to_list()
    [3.0, 1.0]
    """
    value = gain(gn, g)
    return value.filter(value > 0)


def ideal_dcg_terms(gains: pl.Expr, n: int | None = None) -> pl.Expr:
    """The ideal ranking's DCG terms at its first ``n`` ranks (every rank for None), from
    a list column of each query's positive gains: the gains sorted in descending order,
    each over log2(rank + 1).

    List operations on the per-query table (one sort per query, no per-group
    evaluation).  Summed, they give IDCG@n; summed cumulatively, IDCG at every rank
    (:func:`at_cutoff` reads it).  Cutting the list before the discounts keeps IDCG@10
    cheap where queries have many judgments: 11 against 46 ms for 10,500 queries of
    28 positive gains on average.

    Examples
    --------
    >>> import polars as pl
    >>> df = pl.DataFrame({"g": [[1.0, 3.0, 1.0], []]})
    >>> terms = df.select(ideal_dcg_terms(pl.col("g"), 2))["g"]
    >>> [round(v, 6) for v in terms[0]], terms[1].to_list()  # 3/log2(2), 1/log2(3)
    ([3.0, 0.63093], [])
    """
    ideal = gains.list.sort(descending=True)
    if n is not None:
        ideal = ideal.list.head(n)
    ranks = pl.int_ranges(2, ideal.list.len() + 2, dtype=pl.UInt32)
    return ideal * ranks.list.eval(_over_log2(pl.element()))


def at_cutoff(cumulative: pl.Expr, k: int | None) -> pl.Expr:
    """A per-query cumulative sum (a list) read at rank ``k``: its element ``min(k, len)``,
    the last for ``k=None``, 0 for an empty list; Float64.

    Examples
    --------
    >>> import polars as pl
    >>> df = pl.DataFrame({"c": [[1, 3, 6], []]})
    >>> df.select(at_cutoff(pl.col("c"), 2), at_cutoff(pl.col("c"), 10).alias("k10"))
    shape: (2, 2)
    ┌─────┬─────┐
    │ c   ┆ k10 │
    │ --- ┆ --- │
    │ f64 ┆ f64 │
    ╞═════╪═════╡
    │ 3.0 ┆ 6.0 │
    │ 0.0 ┆ 0.0 │
    └─────┴─────┘
    """
    if k is None:
        return cumulative.list.last().fill_null(0).cast(pl.Float64)
    at = cumulative.list.len().cast(pl.Int64).clip(upper_bound=k) - 1
    return cumulative.list.get(at, null_on_oob=True).fill_null(0).cast(pl.Float64)


def judged(g: pl.Expr = GRADES) -> pl.Expr:
    """Boolean: the document is judged."""
    return g.is_not_null()


def rprec_hits(t: float, r: pl.Expr, g: pl.Expr = GRADES) -> pl.Expr:
    """Relevant documents in the top R (R = judged relevant, a per-query scalar)."""
    return relevant(t, g).head(r.fill_null(0)).sum()


def bpref_clipped(t: float, r: pl.Expr, g: pl.Expr = GRADES) -> pl.Expr:
    """The sum, over the relevant retrieved documents, of ``min(n, R)``: ``n`` counts the
    judged non-relevant documents ranked above (unjudged documents and negative grades
    are skipped), ``r`` is the query's R.

    trec_eval's bpref numerator, the sum of ``1 - min(n, R) / min(N, R)`` over those
    documents, is their count minus this sum over ``min(N, R)`` (0 when this sum is 0:
    then no judged non-relevant document is ranked above a relevant one).  Summed here
    as one number per query (the division is done once per query), the kernel costs
    ~40% less than the per-document terms.

    Examples
    --------
    >>> df = pl.DataFrame({REL: [0.0, 1.0, None, 0.0, 0.0, 1.0]})  # R = 2
    >>> df.select(bpref_clipped(1, pl.lit(2))).item()  # n = 1 and min(3, 2) = 2
    3.0
    """
    above = judged_nonrelevant(t, g).cum_sum().filter(relevant(t, g)).cast(pl.Float64)
    return above.clip(upper_bound=r.cast(pl.Float64)).sum()
