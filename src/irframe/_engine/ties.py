"""Tie-aware values (McSherry and Najork 2008): P, R, RR, AP and nDCG under tied scores.

trec_eval breaks a tie by doc id, an order that means nothing to the system.  With
``ties=`` another value is computed for the documents of equal score (or rank) in each
query, a *tie group*:

- ``"expected"``: the mean over every order of every tie group (all orders equally
  likely), in closed form per group (the paper's formulas).  For a group of ``t``
  documents at ranks ``s+1 .. s+t`` holding ``r`` relevant ones (gain sum ``G``), each
  of its ranks holds a relevant document with probability ``r/t`` (gain ``G/t``), so
  P@k, R@k and DCG@k count ``r/t`` (``G/t``) at each rank of the group within k.  AP adds
  at rank ``i`` of the group ``E[rel_i * hits_i] / i = ((h+1) r/t + (i-s-1) r(r-1)/(t(t-1))) / i``
  (``h`` the relevant documents above the group); RR is ``E[1/(s+X)]`` for the first
  group holding a relevant document, ``X`` the rank of its first relevant document
  within the group (``P(X > j) = prod_{m<j} (t-r-m)/(t-m)``).
- ``"optimistic"`` / ``"pessimistic"``: the value when each tie group puts its relevant
  documents first / last (for nDCG, its gains in descending / ascending order): the
  bounds of every order.

R's and AP's denominator R and nDCG's IDCG do not depend on the order: the main plan
computes them (``NumRel``, ``IDCG`` of the same parameters), with its input checks and
its rules for missing and unjudged queries; this module computes the numerators and
joins them onto the main plan's table, as :mod:`~irframe._engine.diversity` does
(:mod:`irframe._engine.compose` composes both, on every backend: the tie groups of a
query are within one partition).
The documents kept are the main plan's (``depth``: the first by trec_eval's order, so a
tie group cut by the depth is averaged over the documents kept).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import polars as pl

from irframe import kernels as K
from irframe._engine.diversity import FLAGS_ONLY
from irframe._engine.plan import JUDGED, Plan, at_depth, best_ranked
from irframe._input.columns import RunColumns, natural_sorted, ranking_order, resolve_run
from irframe._input.options import Options
from irframe.exceptions import InvalidParameterError
from irframe.measures import Measure, parse_measures
from irframe.measures._conventions import warn_conventions
from irframe.measures._parse import Parsed

__all__ = ["TIED", "TIE_AWARE", "Split", "attach", "split", "straddles", "tie_groups"]

TIE_AWARE = ("P", "R", "RR", "AP", "nDCG")
_ORDER = "__tie_order"
_GRADE = "__tie_grade"
_V = "__tie_v"  # the measure's value of a document: relevant (1/0) or its gain
_QID = "__tie_qid"  # the query (keys), as an integer
_POS = "__tie_pos"  # 1-based rank
_GRP = "__tie_grp"  # tie group (of the query), as an integer
_T = "__tie_t"  # documents in the group
_S = "__tie_s"  # documents above the group
_VG = "__tie_vg"  # relevant documents (gains) in the group
_H = "__tie_h"  # relevant documents above the group
_SURV = "__tie_surv"  # RR: chance that the group's first relevant document is below this rank
_FIRST = "__tie_first"  # RR: chance that it is at this rank


@dataclass(frozen=True)
class Split:
    """What the main plan computes (the denominators) and every measure asked."""

    main: Parsed  # NumRel / IDCG measures (FLAGS_ONLY alone: none needed)
    measures: tuple[tuple[str, Measure], ...]


def _helpers(m: Measure) -> list[Measure]:
    """The order-free parts of ``m`` that the main plan computes: R and IDCG."""
    if m.family in ("R", "AP"):
        return [Measure("NumRel", rel=m.params["rel"])]
    if m.family == "nDCG":
        return [Measure("IDCG", m.cutoff, gain=m.params["gain"])]
    return []


def split(measures: Any, opts: Options) -> Split | None:
    """The measures for tie-aware values (None: ``ties="docid"``, nothing changes)."""
    if opts.ties == "docid":
        return None
    parsed = parse_measures(measures)
    other = [label for label, m in parsed if m.family not in TIE_AWARE]
    if other:
        msg = (
            f"ties={opts.ties!r}: {other} have no tie-aware form; the tie-aware measures are "
            f"{', '.join(TIE_AWARE)} (McSherry and Najork 2008). Hint: evaluate {other} in a call "
            "of their own, with the default ties='docid' (trec_eval's tie-break by doc id)."
        )
        raise InvalidParameterError(msg)
    warn_conventions(m for _, m in parsed)  # (the main plan sees only the helper measures)
    helpers = list(dict.fromkeys(h for _, m in parsed for h in _helpers(m)))
    return Split(parse_measures(helpers or FLAGS_ONLY), tuple(parsed))


def attach(plan: Plan, table: pl.LazyFrame, parts: Split, opts: Options) -> tuple[Plan, pl.LazyFrame]:
    """The main plan's per-query table with the tie-aware measures' columns joined on
    (computed when ``table`` is collected, after the main plan's input checks)."""
    schema = table.collect_schema()
    labels = [label for label, _ in parts.measures]

    def add(df: pl.DataFrame) -> pl.DataFrame:
        keys = list(plan.keys)
        nums = _numerators(plan, opts, parts.measures)
        nums = nums.with_columns(pl.col(k).cast(df.schema[k]) for k in keys)
        out = df.drop([c for c in labels if c in df.columns]).join(
            nums, on=keys, how="left", nulls_equal=True
        )
        finals = (pl.when(pl.col(JUDGED)).then(_final(label, m)).alias(label) for label, m in parts.measures)
        return out.with_columns(finals).drop([f"{label}:num" for label in labels])

    out_schema = pl.Schema([*schema.items(), *((label, pl.Float64) for label in labels)])
    frame = table.map_batches(
        add, schema=out_schema, predicate_pushdown=False, projection_pushdown=False, slice_pushdown=False
    )
    return replace(plan, measures=parts.measures), frame


def _final(label: str, m: Measure) -> pl.Expr:
    """The measure from its numerator (0 for a judged query absent from the run)."""
    num = pl.col(f"{label}:num").fill_null(0.0)
    if m.family == "P":
        return num / (num * 0 + float(m.cutoff or 1))  # (by a column: see binary.per_k)
    if m.family == "RR":
        return num
    den = pl.col(str(_helpers(m)[0]))
    return pl.when(den > 0).then(num / den).otherwise(0.0)


# --- the rows ---------------------------------------------------------------------------------
def _rows(plan: Plan, opts: Options) -> pl.DataFrame:
    """The run rows the main plan read, each with its grade (null: not judged), in ranking
    order within each query; ``_ORDER`` is the score or rank that makes ties."""
    cols: RunColumns = plan.cols
    keys = list(cols.keys)
    run = plan.run  # (already cut at the depth)
    if opts.duplicates == "first":
        run = best_ranked(run, cols)
    grade = [] if cols.relevance is None else [pl.col(cols.relevance).alias(_GRADE)]
    r = run.select(*keys, cols.doc, pl.col(cols.order_col).cast(pl.Float64).alias(_ORDER), *grade).collect()
    if r.schema[cols.doc].is_integer():
        r = r.with_columns(pl.col(cols.doc).cast(pl.String))  # (the tie-break compares strings)
    if plan.qrels_rows is not None:
        qkeys = list(plan.qrels_keys)
        q = plan.qrels_rows.select(*qkeys, cols.doc, pl.col(K.REL).alias(_GRADE)).collect()
        r = r.with_columns(
            pl.col(c).cast(q.schema[c]) for c in (*qkeys, cols.doc) if r.schema[c] != q.schema[c]
        )
        r = r.join(q, on=[*qkeys, cols.doc], how="left")
    r = r.with_columns(pl.col(_GRADE).cast(pl.Float64).fill_nan(None))
    by, desc = ranking_order(cols.order, _ORDER, cols.doc)  # THE ranking rule
    return r.sort([*keys, *by], descending=[False] * len(keys) + desc)


def tie_groups(rows: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    """``rows`` (in ranking order, each query's rows contiguous, with ``_ORDER``) with an
    integer query id ``_QID``, each row's rank ``_POS``, and its tie group (the rows of one
    query and one score): the group's id ``_GRP``, size ``_T`` and start ``_S``.

    Examples
    --------
    >>> rows = pl.DataFrame({"q": ["a", "a", "a", "b"], _ORDER: [2.0, 1.0, 1.0, 1.0]})
    >>> tie_groups(rows, ["q"]).select(_QID, _POS, _GRP, _T, _S).rows()
    [(0, 1, 0, 1, 0), (0, 2, 1, 2, 1), (0, 3, 1, 2, 1), (1, 1, 2, 1, 0)]
    """
    new_query = pl.any_horizontal((pl.col(k) != pl.col(k).shift(1)).fill_null(True) for k in keys)
    order = pl.col(_ORDER)
    rows = rows.with_columns(
        (new_query.cum_sum() - 1).cast(pl.Int64).alias(_QID),
        ((new_query | (order != order.shift(1)).fill_null(True)).cum_sum() - 1).cast(pl.Int64).alias(_GRP),
    )
    rows = rows.with_columns(pl.int_range(1, pl.len() + 1, dtype=pl.Int64).over(_QID).alias(_POS))
    return rows.with_columns(
        pl.len().over(_GRP).cast(pl.Int64).alias(_T), (pl.col(_POS).min().over(_GRP) - 1).alias(_S)
    )


def _value(m: Measure) -> pl.Expr:
    """A document's part in ``m``: relevant or not (P, R, RR, AP), its gain (nDCG)."""
    if m.family == "nDCG":
        return K.gain(m.params["gain"], pl.col(_GRADE))
    return (pl.col(_GRADE) >= float(m.params["rel"])).fill_null(False).cast(pl.Float64)


def _ordered(base: pl.DataFrame, mode: str, descending: bool) -> pl.DataFrame:
    """``"optimistic"``/``"pessimistic"``: each tie group in ``_V`` order (descending /
    ascending), every row then its own group: the engine's values of that order.
    ``"expected"``: the groups as they are, with ``_VG``, the group's ``_V`` sum."""
    if mode == "expected":
        return base.with_columns(pl.col(_V).sum().over(_GRP).alias(_VG))
    rows = base.sort([_GRP, _V], descending=[False, mode == "optimistic"], maintain_order=True)
    # (each query keeps its block of rows, so the ranks stay where they were)
    pos = base.get_column(_POS)
    return rows.with_columns(
        pos, pl.int_range(pl.len(), dtype=pl.Int64).alias(_GRP), pl.lit(1, dtype=pl.Int64).alias(_T),
        (pos - 1).alias(_S), pl.col(_V).alias(_VG),
    )  # fmt: skip


def _terms(m: Measure) -> pl.Expr:
    """Each rank's expected part in ``m``'s numerator (see the module docstring)."""
    t, s, r, pos = pl.col(_T).cast(pl.Float64), pl.col(_S), pl.col(_VG), pl.col(_POS).cast(pl.Float64)
    share = r / t
    if m.family in ("P", "R"):
        return share
    if m.family == "nDCG":
        return share / (pos + 1.0).log(2)
    h = pl.col(_H)
    if m.family == "AP":
        pairs = pl.when(t > 1).then(r * (r - 1) / (t * (t - 1))).otherwise(0.0)
        return ((h + 1.0) * share + (pos - s - 1) * pairs) / pos
    return pl.col(_FIRST) / pos  # RR: the rows of the first group holding a relevant document


def _with_counts(rows: pl.DataFrame, m: Measure, singletons: bool) -> pl.DataFrame:
    """AP and RR: ``_H``, the relevant documents above each group.  RR: only the rows of
    each query's first group holding a relevant document, with ``_FIRST``, the chance
    that this rank holds the group's first relevant document, ``P(X = j) = P(X > j-1) -
    P(X > j)`` with ``P(X > j) = prod_{i<j} (t-r-i)/(t-i)`` (1 for a group of one)."""
    rows = rows.with_columns(pl.col(_V).cum_sum().over(_QID).alias(_H))  # (through this rank)
    through = pl.col(_H) if singletons else pl.col(_H).max().over(_GRP)
    rows = rows.with_columns((through - pl.col(_VG)).alias(_H))
    if m.family != "RR":
        return rows
    rows = rows.filter((pl.col(_H) == 0) & (pl.col(_VG) > 0))
    if singletons:
        return rows.with_columns(pl.lit(1.0).alias(_FIRST))
    t, r = pl.col(_T).cast(pl.Float64), pl.col(_VG)
    above = (pl.col(_POS) - pl.col(_S) - 1).cast(pl.Float64)  # the group's documents above this rank
    rows = rows.with_columns(
        ((t - r - above) / (t - above)).clip(lower_bound=0.0).cum_prod().over(_GRP).alias(_SURV)
    )
    first = pl.col(_SURV).shift(1, fill_value=1.0).over(_GRP) - pl.col(_SURV)
    return rows.with_columns(first.alias(_FIRST))


def _numerator(base: pl.DataFrame, m: Measure, mode: str, descending: bool) -> pl.DataFrame:
    """Per query (``_QID``): ``m``'s numerator under ``mode`` (``num``)."""
    rows = _ordered(base.with_columns(_value(m).alias(_V)), mode, descending)
    if m.family in ("AP", "RR"):
        rows = _with_counts(rows, m, singletons=mode != "expected")
    term = _terms(m)
    if m.cutoff is not None:
        term = pl.when(pl.col(_POS) <= m.cutoff).then(term).otherwise(0.0)
    return rows.group_by(_QID).agg(term.sum().alias("num"))


def _numerators(plan: Plan, opts: Options, measures: tuple[tuple[str, Measure], ...]) -> pl.DataFrame:
    """Per run query (keys): the numerator of every measure, ``{label}:num``."""
    keys = list(plan.keys)
    rows = _rows(plan, opts)
    bases = {False: tie_groups(rows, keys)}
    if any(m.params.get("judged_only") for _, m in measures):
        # (null: not judged; negative: trec_eval's unjudged); ranks and ties without them
        judged = tie_groups(rows.filter(pl.col(_GRADE) >= 0), keys)
        qids = bases[False].select(*keys, _QID).unique()
        bases[True] = judged.drop(_QID).join(qids, on=keys, how="left", maintain_order="left")
    out = bases[False].select(*keys, _QID).unique(_QID, maintain_order=True)
    descending = plan.cols.ranking()[1][0]  # (score: descending; rank: ascending)
    for label, m in measures:
        base = bases[bool(m.params.get("judged_only"))]
        num = _numerator(base, m, opts.ties, descending).rename({"num": f"{label}:num"})
        out = out.join(num, on=_QID, how="left")
    return out.drop(_QID)


# --- the diagnostic ---------------------------------------------------------------------------
TIED = ("n_tied", "n_tied_in_top_k", "straddles")


def straddles(run: pl.LazyFrame, k: int, opts: Options) -> pl.DataFrame:
    """Per query of the run: the tie group at rank ``k`` (see :func:`irframe.tied_at_cutoff`).

    Examples
    --------
    >>> run = pl.LazyFrame({"query_id": ["q1"] * 3 + ["q2"], "doc_id": ["a", "b", "c", "a"],
    ...                     "score": [2.0, 1.0, 1.0, 1.0]})
    >>> straddles(run, 2, Options()).rows()
    [('q1', 2, 1, True), ('q2', None, None, False)]
    """
    opts = opts.detect(run.collect_schema().names())
    cols = resolve_run(
        run.collect_schema(), query_col=opts.query_col, doc_col=opts.doc_col, rank_col=opts.rank_col,
        score_col=opts.score_col, relevance_col=None, by=list(opts.by), need_relevance=False,
        order_rule=opts.order,
    )  # fmt: skip
    run = at_depth(run, cols, opts)
    if opts.duplicates == "first":
        run = best_ranked(run, cols)
    keys = list(cols.keys)
    rows = run.select(*keys, pl.col(cols.order_col).cast(pl.Float64).alias(_ORDER)).collect()
    by, desc = ranking_order(cols.order, _ORDER, cols.doc)  # (the order only: ties are groups)
    rows = rows.sort([*keys, by[0]], descending=[False] * len(keys) + desc[:1])
    rows = tie_groups(rows, keys)
    at_k = rows.filter(pl.col(_POS) == k).select(
        *keys,
        pl.col(_T).alias(TIED[0]),
        (k - pl.col(_S)).alias(TIED[1]),
        (pl.col(_T) > k - pl.col(_S)).alias(TIED[2]),
    )
    out = rows.select(keys).unique().join(at_k, on=keys, how="left", nulls_equal=True)
    out = out.with_columns(pl.col(TIED[2]).fill_null(False))
    return natural_sorted(out, keys)
