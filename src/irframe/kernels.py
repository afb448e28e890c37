"""Kernels: pure polars expressions evaluated inside one ``group_by(query).agg(...)``.

Every expression here runs in the aggregation context of one query, over its
documents already in ranking order, reading one prepared column ``REL``: the grade
of each retrieved document (Float64, null = not judged).  The same expressions,
applied to a query's judgments in any order, give the denominators (R, N, ideal DCG).

Kernels never validate, read files or import pandas; they return numerators whose
denominators (number of relevant documents, ideal DCG) the engine joins per query.
"""

from __future__ import annotations

import polars as pl

__all__ = [
    "REL",
    "Gain",
    "ap_sum",
    "bpref_sum",
    "dcg",
    "gain",
    "idcg",
    "judged",
    "reciprocal_rank",
    "rel_ret",
    "relevant",
    "rprec_hits",
]

REL = "__ir_rel"

Gain = str | tuple[tuple[float, float], ...]
"""A gain setting: ``"exp"`` (2^rel - 1), ``"linear"`` (rel) or explicit (grade, gain) pairs."""


def _rel() -> pl.Expr:
    return pl.col(REL)


def _cut(expr: pl.Expr, k: int | None) -> pl.Expr:
    return expr if k is None else expr.head(k)


def _positions() -> pl.Expr:
    """1-based rank positions of the group's rows."""
    return pl.int_range(1, pl.len() + 1, dtype=pl.UInt32)


def relevant(t: float) -> pl.Expr:
    """Boolean: the document's grade is at least ``t`` (unjudged: False)."""
    return (_rel() >= t).fill_null(False)


def judged_nonrelevant(t: float) -> pl.Expr:
    """Boolean: judged with ``0 <= grade < t`` (negative grades are skipped, as by trec_eval)."""
    r = _rel()
    return ((r >= 0) & (r < t)).fill_null(False)


def gain(g: Gain) -> pl.Expr:
    """Gain of a grade: ``exp`` 2^rel - 1, ``linear`` rel, or explicit per-grade gains.

    Grades <= 0 and unjudged documents get 0 under ``exp``/``linear``; explicit gains
    apply to every grade >= 0 and grades not listed keep their linear gain (as
    trec_eval's ``-m ndcg.g=v``).
    """
    r = _rel()
    if isinstance(g, tuple):
        mapping = dict(g)
        value = r.replace_strict(list(mapping), list(mapping.values()), default=r, return_dtype=pl.Float64)
        return pl.when(r >= 0).then(value).otherwise(0.0).fill_null(0.0)
    value = pl.lit(2.0).pow(r) - 1.0 if g == "exp" else r
    return pl.when(r > 0).then(value).otherwise(0.0).fill_null(0.0)


def _discount() -> pl.Expr:
    """1 / log2(rank + 1) for the group's rows."""
    return 1.0 / (pl.int_range(2, pl.len() + 2, dtype=pl.UInt32).log(2))


def rel_ret(t: float, k: int | None) -> pl.Expr:
    """Number of relevant documents in the top ``k``."""
    return _cut(relevant(t), k).sum()


def reciprocal_rank(t: float, k: int | None) -> pl.Expr:
    """1 / rank of the first relevant document within ``k``; 0 if none."""
    hits = _cut(relevant(t), k)
    # arg_true().first(), not arg_max(): polars 2.1's streaming engine returns the last
    # index for a boolean arg_max over [True, True] in a group_by.
    first = hits.arg_true().first().cast(pl.Float64)
    return pl.when(hits.any()).then(1.0 / (first + 1.0)).otherwise(0.0)


def ap_sum(t: float, k: int | None) -> pl.Expr:
    """Sum of precision at each relevant rank within ``k`` (AP before dividing by R)."""
    b = relevant(t).cast(pl.Float64)
    return _cut(b * b.cum_sum() / _positions(), k).sum()


def dcg(g: Gain, k: int | None) -> pl.Expr:
    """Discounted cumulative gain of the ranking, cut at ``k``."""
    return _cut(gain(g) * _discount(), k).sum()


def idcg(g: Gain, k: int | None) -> pl.Expr:
    """Ideal DCG from a query's judged grades (every judged document), cut at ``k``.

    Only positive gains enter the ideal ranking (a negative custom gain never helps).
    """
    ideal = gain(g).clip(lower_bound=0.0).sort(descending=True)
    return _cut(ideal * _discount(), k).sum()


def judged(k: int | None) -> pl.Expr:
    """Number of judged documents in the top ``k``."""
    return _cut(_rel().is_not_null(), k).sum()


def rprec_hits(t: float, r: pl.Expr) -> pl.Expr:
    """Relevant documents in the top R (R = judged relevant, a per-query scalar)."""
    return relevant(t).head(r.fill_null(0)).sum()


def bpref_sum(t: float, r: pl.Expr, n: pl.Expr) -> pl.Expr:
    """trec_eval's bpref numerator: sum over relevant retrieved docs of 1 - min(n, R)/min(N, R).

    ``n`` counts judged non-relevant documents ranked above; unjudged documents and
    negative grades are skipped. ``r`` and ``n`` are the query's R and N.
    """
    r = r.cast(pl.Float64)
    above = judged_nonrelevant(t).cum_sum().cast(pl.Float64)
    denom = pl.min_horizontal(n.cast(pl.Float64), r)
    term = pl.when(above == 0).then(1.0).otherwise(1.0 - above.clip(upper_bound=r) / denom)
    return pl.when(relevant(t)).then(term).otherwise(0.0).sum()
