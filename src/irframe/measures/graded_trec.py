"""trec_eval's graded families that read the ideal ranking rank by rank: G, nDCGRel, Rndcg.

``m_G.c``, ``m_ndcg_rel.c``, ``m_Rndcg.c``: gains are the raw grades (linear; unjudged
and negative grades gain 0); the ideal ranking ``I`` is every positive judged grade,
best first (m of them).  ``DCG(i)`` and ``IDCG(i)`` are the prefix sums with discount
1 / log2(rank + 1).  A query absent from the run is 0.
"""

from __future__ import annotations

import polars as pl

from irframe.measures._base import Ctx, Family, Measure, Params, TrecName, register
from irframe.measures._params import REL
from irframe.measures.binary import positions, present, r_in_ranking

__all__: list[str] = []

_KEY = Measure("NumRel")  # the ideal ranking does not depend on the measure: share it


def _gains(rel: pl.Expr) -> pl.Expr:
    return pl.when(rel > 0).then(rel).otherwise(0.0).fill_null(0.0)


def _ideal(ctx: Ctx) -> pl.Expr:
    """The query's positive grades best first, then one 0 (length m + 1), in a ranking kernel."""
    rel = ctx.grades.cast(pl.Float64)
    grades = ctx.judged_grades_in_ranking(_KEY, "ideal", rel.filter(rel > 0).sort(descending=True))
    return grades.drop_nulls().append(pl.lit(0.0))


def _at(prefix: pl.Expr, i: pl.Expr) -> pl.Expr:
    """``prefix[i - 1]`` for 1-based ``i``, clipped into the prefix."""
    return prefix.gather((i.clip(lower_bound=1.0) - 1.0).clip(upper_bound=prefix.len() - 1).cast(pl.Int64))


def _dcg_prefix(rel: pl.Expr) -> pl.Expr:
    """DCG(i) at rank i of the ranking ``rel``."""
    return (_gains(rel) / (positions() + 1.0).log(2)).cum_sum()


def _idcg_prefix(ideal: pl.Expr) -> pl.Expr:
    """IDCG(b) at b = 1 .. m + 1 of the padded ideal."""
    ranks = pl.int_range(1, ideal.len() + 1, dtype=pl.UInt32).cast(pl.Float64)
    return (ideal / (ranks + 1.0).log(2)).cum_sum()


def _g_kernel(ideal: pl.Expr, rel: pl.Expr) -> pl.Expr:
    g = _gains(rel)
    i = positions()
    top = ideal.len().cast(pl.Float64)  # m + 1: the padding 0 counts max(0, 1) = 1
    capped = ideal.clip(lower_bound=1.0).cum_sum()  # sum of max(I_j, 1), j <= b
    c = _at(capped, i.clip(upper_bound=top)) + (i - top).clip(lower_bound=0.0)
    total = pl.when(g != 0).then(g / (2.0 + c - g.cum_sum()).log(2)).otherwise(0.0).sum()
    denom = ideal.sum()
    return pl.when(denom > 0).then(total / denom).otherwise(0.0)


def _ndcg_rel_kernel(ideal: pl.Expr, rel: pl.Expr) -> pl.Expr:
    g = _gains(rel)
    m = ideal.len().cast(pl.Float64) - 1.0
    dcg, idcg = _dcg_prefix(rel), _idcg_prefix(ideal)
    terms = pl.when(g > 0).then(dcg / _at(idcg, positions().clip(upper_bound=m))).otherwise(0.0).sum()
    found = (g > 0).sum().cast(pl.Float64)
    total = terms + (m - found) * dcg.last() / _at(idcg, m).first()
    return pl.when((m > 0) & (total > 0)).then(total / m).otherwise(0.0)


def _rndcg_kernel(ideal: pl.Expr, r: pl.Expr, rel: pl.Expr) -> pl.Expr:
    n = pl.len().cast(pl.Float64)
    m = ideal.len().cast(pl.Float64) - 1.0
    dcg, idcg = _dcg_prefix(rel), _idcg_prefix(ideal)
    b = pl.int_range(1, ideal.len() + 1, dtype=pl.UInt32).cast(pl.Float64)
    boundary = (ideal != ideal.shift(-1)).fill_null(False) & (b <= m)
    terms = (_at(dcg, b.clip(upper_bound=n)) / idcg).filter(boundary)
    extra = (n > m + 1.0).cast(pl.Float64)
    total = terms.sum() + extra * dcg.last() / _at(idcg, m).first()
    value = total / (terms.len().cast(pl.Float64) + extra)
    return pl.when((m > 0) & (r.cast(pl.Float64) > 0)).then(value).otherwise(0.0)


def _g(m: Measure, ctx: Ctx) -> pl.Expr:
    return present(ctx.over_ranking(m, "G", _g_kernel(_ideal(ctx), ctx.grades)), ctx)


def _ndcg_rel(m: Measure, ctx: Ctx) -> pl.Expr:
    return present(ctx.over_ranking(m, "v", _ndcg_rel_kernel(_ideal(ctx), ctx.grades)), ctx)


def _rndcg(m: Measure, ctx: Ctx) -> pl.Expr:
    r = r_in_ranking(m, ctx)
    return present(ctx.over_ranking(m, "v", _rndcg_kernel(_ideal(ctx), r, ctx.grades)), ctx)


register(Family(
    "G", "trec_eval's G: gain over the excess of the ideal's cumulative gain (linear gains)", _g,
    cutoff="none", trec=(TrecName("G"),), kind="graded",
    formula=r"\frac{1}{\sum_j I_j} \sum_{i : g_i > 0} \frac{g_i}{\log_2(2 + C_i - S_i)},\ "
    r"C_i = \sum_{j \le i} \max(I_j, 1),\ S_i = \sum_{j \le i} g_j",
    peers="trec_eval only; ignores the relevance level (-l).",
))  # fmt: skip
register(Family(
    "nDCGRel", "trec_eval's ndcg_rel: nDCG averaged over the ranks of the relevant documents", _ndcg_rel,
    cutoff="none", trec=(TrecName("ndcg_rel"),), kind="graded",
    formula=r"\frac{1}{m} \Big(\sum_{i : g_i > 0} \frac{DCG(i)}{IDCG(\min(i, m))} + "
    r"(m - |\{i : g_i > 0\}|) \frac{DCG(n)}{IDCG(m)}\Big)",
    peers="trec_eval only; relevant = grade > 0 whatever the relevance level (-l).",
))  # fmt: skip
register(Family(
    "Rndcg", "trec_eval's Rndcg: nDCG averaged over the ideal ranking's grade boundaries", _rndcg,
    Params((REL,)), "none", trec=(TrecName("Rndcg"),), kind="graded",
    formula=r"\operatorname{mean}_{b : I_{b+1} \ne I_b} \frac{DCG(\min(b, n))}{IDCG(b)}"
    r" \text{ (plus } DCG(n)/IDCG(m) \text{ when } n > m + 1)",
    peers="trec_eval only; rel (-l) only decides whether the query has a relevant document (else 0).",
))  # fmt: skip
