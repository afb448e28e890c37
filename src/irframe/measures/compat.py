"""Compat: compatibility with an ideal ranking (Clarke, Vtyurina and Smucker 2021).

Compat is the rank-biased overlap (RBO) of the run with the ideal ranking: every document with
a positive grade, best grade first, and among equal grades in the order the run retrieved them
(then the ones it did not retrieve), the ideal most compatible with the run.  At depth i the
overlap is the number of documents in both top-i lists; RBO is
``sum_i p^(i-1) overlap_i / i`` over ``sum_i p^(i-1)``, to the depth of the longer list, and
``normalize`` divides it by the ideal ranking's RBO with itself.
"""

from __future__ import annotations

import polars as pl

from irframe.measures._base import Ctx, Family, Measure, Params, number_param, register
from irframe.measures._params import bool_param
from irframe.measures.binary import positions, present

__all__: list[str] = []

_KEY = Measure("NumRel")  # the query's positive grades do not depend on the measure: shared


def _ideal_positions(positive: pl.Expr, g: pl.Expr) -> pl.Expr:
    """For each retrieved document with a positive grade (in ranking order), its rank in the
    ideal ranking; ``positive``: the query's positive grades, sorted ascending."""
    rank = positions().filter(g > 0)
    grade = g.filter(g > 0)
    # judged documents with a higher grade come first in the ideal ranking ...
    above = positive.len() - positive.search_sorted(grade, side="right")
    # ... then, among this grade, the retrieved ones in ranking order: its place among the
    # retrieved positives sorted by (grade descending, rank), less those of a higher grade
    ideal = rank.sort_by([grade, rank], descending=[True, False])  # ranks, in the ideal's order
    order = ideal.arg_sort() + 1  # (rank is ascending: the i-th smallest is the i-th row)
    higher = grade.len() - grade.sort().search_sorted(grade, side="right")
    return (above + order.cast(pl.Int64) - higher.cast(pl.Int64)).cast(pl.Float64)


def _compat_kernel(p: float, normalize: bool, positive: pl.Expr, g: pl.Expr) -> pl.Expr:
    m = positive.len().cast(pl.Float64)
    depth = pl.max_horizontal(pl.len(), positive.len())
    i = pl.int_range(1, depth + 1, dtype=pl.UInt32).cast(pl.Float64)
    weight = pl.lit(p, dtype=pl.Float64).pow(i - 1.0)
    tail = (weight / i).cum_sum()  # S(j) = sum_{i <= j} p^(i-1) / i
    # a shared document adds p^(i-1) / i at every depth i from max(its rank, its ideal rank) on
    start = pl.max_horizontal(positions().filter(g > 0), _ideal_positions(positive, g))
    before = tail.gather((start - 2.0).clip(lower_bound=0.0).cast(pl.Int64)) * (start > 1).cast(pl.Float64)
    score = (tail.last() - before).sum()
    if normalize:
        best = (weight * pl.min_horizontal(i, m) / i).sum()
        # at most 1 (overlap_i <= min(i, |I|) <= i); sums in another order can round 1 ulp above
        return pl.when(best > 0).then((score / best).clip(upper_bound=1.0)).otherwise(0.0)
    return (score / weight.sum()).clip(upper_bound=1.0)


def _compat(m: Measure, ctx: Ctx) -> pl.Expr:
    rel = ctx.grades.cast(pl.Float64)
    positive = ctx.judged_grades_in_ranking(_KEY, "positive_grades", rel.filter(rel > 0).sort())
    p, normalize = float(m.params["p"]), bool(m.params["normalize"])
    kernel = _compat_kernel(p, normalize, positive.drop_nulls(), ctx.grades)
    return present(ctx.over_ranking(m, "compat", kernel), ctx)


register(Family(
    "Compat", "compatibility: rank-biased overlap of the run with the ideal ranking (normalised)", _compat,
    Params((
        number_param("p", 0.95, "persistence of the rank-biased overlap", low=0, high=1, closed="right"),
        bool_param("normalize", True, "divide by the ideal ranking's overlap with itself (finite ideal)"),
    )),
    "none", kind="graded",
    formula=r"\frac{\sum_{i=1}^{d} p^{i-1} |R_{:i} \cap I_{:i}| / i}{\sum_{i=1}^{d} p^{i-1} "
    r"\min(i, |I|) / i},\ d = \max(|R|, |I|)",
    ir_measures="Compat(p=0.95)",
    peers="ir_measures' compat provider orders tied scores by doc id ascending (irframe: trec_eval's "
    "order, descending) and its ideal ranking puts a retrieved document with a negative score after "
    "the documents the run did not retrieve; the values agree otherwise. Relevant means grade > 0.",
))  # fmt: skip
