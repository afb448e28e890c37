"""Diversity (intent-aware) families on subtopic qrels, with ndeval's definitions.

A query has subtopics (intents); the qrels judge each (subtopic, document) pair, as the
TREC Web track's diversity qrels do (``query subtopic doc judgment``: the second field of
the file is the subtopic, as ndeval and ir_measures read it).  irframe reads them with
``read_trec_qrels(path, subtopics=True)`` (a ``subtopic`` column) or from any frame with
a subtopic column (``qrels_subtopic_col``, default ``"subtopic"``; ir_measures' frames
call it ``iteration``: ``columns="ir_measures"``).

The definitions are ndeval's (ndeval.c 4.5, the TREC Web track's tool, bound by
``pyndeval``, ir_measures' provider of these names), checked per query against it:

- A document is relevant to a subtopic when its grade for that subtopic is >= ``rel``
  (default 1): the judgments are binary, as ndeval's (which caps a grade at 1).
- ``A``: the query's subtopics with at least one relevant document; a subtopic no
  document is relevant to does not count.  A query with ``A = 0`` scores 0 (as every
  irframe measure scores a judged query without a relevant document; ndeval gives 0
  too, except nNRBP, which it divides 0 by 0: NaN).
- Novelty: the ``n``-th relevant document of a subtopic down the ranking gains
  ``(1 - alpha)^(n-1)`` for it; a document's gain is the sum over its subtopics.
- The run is ranked by irframe's one rule (rank, or score with ties broken by doc id
  descending, trec_eval's and ndeval ``-traditional``'s).  ndeval itself orders by the
  rank field; pyndeval ranks by score with ties by doc id *ascending*: the tests give
  pyndeval irframe's order as untied scores.
- The ideal ranking (alpha-nDCG, nERR-IA, nNRBP) is ndeval's greedy one over the judged
  documents: at each rank, the document with the largest gain given those above it, a
  tie going to the larger doc id (ndeval's ``strcmp(...) > 0``).  irframe counts two
  gains as tied when they differ by less than 1e-12 relative, so the choice does not
  depend on the order of a float sum (ndeval sums in its subtopic order; with
  ``alpha = 0.5`` every gain is exact and both agree everywhere).

Departures from ndeval, on purpose:

- Any cutoff (ndeval and pyndeval stop at 20).
- ``ERR_IA@1`` is normalised like every other cutoff (ndeval's "ideal ideal"
  normalisation skips rank 1, so its ``ERR-IA@1`` is the first document's raw gain,
  up to ``A``); irframe's is that gain over ``A``.
- nNRBP of a query without a relevant subtopic is 0, not NaN (above).
- The ideal ranking for nNRBP stops at the depth below which the rest of its sum is
  under 2^-60 of it (``A * beta^d / (1 - beta) <= 2^-60``: 65 ranks at beta = 0.5),
  which changes no double; ndeval ranks every judged document.

Each family's kernel (:data:`KERNELS`) is a polars expression over the rows the
diversity evaluator (:mod:`irframe._engine.diversity`) prepares, one row per
(query, subtopic, rank) where the ranked document is relevant to the subtopic:

- :data:`RANK`: the document's 1-based rank;
- :data:`SEEN`: the relevant documents of the same subtopic ranked above it;
- :data:`SUB_REL`: the subtopic's relevant documents in the qrels (retrieved or not);

and, for the ideal ranking, one row per (query, rank) with :data:`RANK` and
:data:`GAIN` (the ideal document's novelty gain).  The engine's main plan never
compiles these families: their ``compile`` raises (they need subtopic qrels, which
only the in-process evaluator reads).

Examples
--------
>>> import polars as pl, irframe
>>> run = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "b", "c"], "rank": [1, 2, 3]})
>>> qrels = pl.DataFrame({
...     "query_id": ["q1"] * 4, "subtopic": ["1", "2", "1", "2"],
...     "doc_id": ["a", "a", "b", "c"], "relevance": [1, 1, 1, 1],
... })
>>> irframe.evaluate(run, ["alpha_nDCG@2", "StRecall@1", "P_IA@2"], qrels).row(0)
(1.0, 1.0, 0.75, 1, 0, 0)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import polars as pl

from irframe.exceptions import InvalidParameterError
from irframe.measures._base import Ctx, CutoffRule, Family, Measure, Param, Params, number_param, register
from irframe.measures._params import JUDGED_ONLY

__all__ = ["GAIN", "KERNELS", "RANK", "SEEN", "SUB_REL", "Kernel", "is_diversity"]

RANK = "__div_rank"
SEEN = "__div_seen"
SUB_REL = "__div_subrel"
GAIN = "__div_gain"

ALPHA = number_param(
    "alpha",
    0.5,
    "redundancy intolerance: the n-th relevant document of a subtopic gains (1 - alpha)^(n-1) for "
    "it (ndeval's -alpha, default 0.5)",
    low=0,
    high=1,
)
BETA = number_param(
    "beta", 0.5, "patience: rank i weighs beta^(i-1) (ndeval's -beta, default 0.5)", low=0, high=1
)
_REL = number_param(
    "rel",
    1,
    "minimum subtopic grade counted as relevant (grade >= rel; ndeval's judgments are binary, "
    "pyndeval's relevance_level)",
)
_JUDGED_ONLY = JUDGED_ONLY  # a document is judged when one of its subtopic judgments is >= 0
_TIE = 1e-12  # relative: two ideal gains closer than this are tied (see the module docstring)
DEPTH_EPS = 2.0**-60  # the nNRBP ideal's tail bound (see the module docstring)


@dataclass(frozen=True)
class Kernel:
    """One diversity family's computation, over the evaluator's rows (module docstring).

    ``run(m)`` aggregates the novelty rows of one ranking; ``ideal(m)`` the ideal
    ranking's rows (None: no ideal needed); ``final(m, run, ideal, a)`` is the value from
    those per-query columns and ``A`` (called for queries with ``A > 0``; the others
    score 0); ``depth(m, a_max)`` the ideal ranks the measure reads (None: all; by
    default its cutoff), given the largest ``A`` of the queries.
    """

    run: Callable[[Measure], pl.Expr]
    final: Callable[[Measure, pl.Expr, pl.Expr, pl.Expr], pl.Expr]
    ideal: Callable[[Measure], pl.Expr] | None = None
    depth: Callable[[Measure, int], int | None] = lambda m, a_max: m.cutoff


KERNELS: dict[str, Kernel] = {}
"""Family name -> its :class:`Kernel` (every family of kind ``"diversity"``)."""


def is_diversity(m: Measure) -> bool:
    """Whether ``m`` is a diversity measure (read by the diversity evaluator).

    Examples
    --------
    >>> from irframe.measures import parse_measure
    >>> is_diversity(parse_measure("alpha_nDCG@20")), is_diversity(parse_measure("nDCG@20"))
    (True, False)
    """
    return m.definition.kind == "diversity"


def _engine_refuses(m: Measure, ctx: Ctx) -> pl.Expr:
    msg = (
        f"{m} is a diversity measure: it reads subtopic qrels, and is computed beside the main "
        "plan (irframe.evaluate, on every backend), not compiled into one. Hint: evaluate it "
        "with irframe.evaluate(run, measures, read_trec_qrels(path, subtopics=True))."
    )
    raise InvalidParameterError(msg)


# --- the expressions shared by the kernels ------------------------------------------------
def novelty(m: Measure) -> pl.Expr:
    """``(1 - alpha)^seen``: the gain of a novelty row for its subtopic."""
    return pl.lit(1.0 - float(m.params["alpha"]), dtype=pl.Float64).pow(pl.col(SEEN))


def _rank() -> pl.Expr:
    return pl.col(RANK).cast(pl.Float64)


def _top(expr: pl.Expr, m: Measure) -> pl.Expr:
    """``expr`` summed over the rows ranked within the cutoff."""
    return expr.filter(pl.col(RANK) <= m.cutoff).sum() if m.cutoff is not None else expr.sum()


def _log2_discount() -> pl.Expr:
    return 1.0 / (_rank() + 1.0).log(2)


def _ratio(run: pl.Expr, ideal: pl.Expr) -> pl.Expr:
    return pl.when(ideal > 0).then(run / ideal).otherwise(0.0)


def ideal_ideal_err(alpha: float, k: int) -> float:
    """ndeval's ERR-IA normaliser over ``A``: ``sum_{i<=k} (1-alpha)^(i-1) / i`` (every
    document relevant to every subtopic).

    Examples
    --------
    >>> ideal_ideal_err(0.5, 2)
    1.25
    """
    import numpy as np  # (here: the command line's start spares its import)

    i = np.arange(1, k + 1, dtype=np.float64)
    return float(np.sum((1.0 - alpha) ** (i - 1) / i))


def nrbp_depth(m: Measure, a_max: int) -> int | None:
    """Ideal ranks whose NRBP terms can change the sum (module docstring); None: all."""
    beta = float(m.params["beta"])
    if beta <= 0.0:
        return 1
    if beta >= 1.0:
        return None
    return max(1, math.ceil(math.log(DEPTH_EPS * (1.0 - beta) / max(a_max, 1)) / math.log(beta)))


# --- the kernels ---------------------------------------------------------------------------
def _alpha_ndcg_run(m: Measure) -> pl.Expr:
    return _top(novelty(m) * _log2_discount(), m)


def _alpha_ndcg_ideal(m: Measure) -> pl.Expr:
    return _top(pl.col(GAIN) * _log2_discount(), m)


def _err_run(m: Measure) -> pl.Expr:
    return _top(novelty(m) / _rank(), m)


def _err_ideal(m: Measure) -> pl.Expr:
    return _top(pl.col(GAIN) / _rank(), m)


def _err_ia(m: Measure, run: pl.Expr, ideal: pl.Expr, a: pl.Expr) -> pl.Expr:
    return run / (a * ideal_ideal_err(float(m.params["alpha"]), int(m.cutoff or 1)))


def _nrbp_run(m: Measure) -> pl.Expr:
    return (novelty(m) * pl.lit(float(m.params["beta"]), dtype=pl.Float64).pow(pl.col(RANK) - 1)).sum()


def _nrbp_ideal(m: Measure) -> pl.Expr:
    return (pl.col(GAIN) * pl.lit(float(m.params["beta"]), dtype=pl.Float64).pow(pl.col(RANK) - 1)).sum()


def _nrbp(m: Measure, run: pl.Expr, ideal: pl.Expr, a: pl.Expr) -> pl.Expr:
    alpha, beta = float(m.params["alpha"]), float(m.params["beta"])
    return run * (1.0 - (1.0 - alpha) * beta) / a


def _ap_ia_run(m: Measure) -> pl.Expr:
    return ((pl.col(SEEN).cast(pl.Float64) + 1.0) / _rank() / pl.col(SUB_REL).cast(pl.Float64)).sum()


def _p_ia_run(m: Measure) -> pl.Expr:
    return _top(pl.lit(1.0, dtype=pl.Float64), m)


def _strecall_run(m: Measure) -> pl.Expr:
    return _top((pl.col(SEEN) == 0).cast(pl.Float64), m)


def _over_a(m: Measure, run: pl.Expr, ideal: pl.Expr, a: pl.Expr) -> pl.Expr:
    return run / a.cast(pl.Float64)


def _over_ka(m: Measure, run: pl.Expr, ideal: pl.Expr, a: pl.Expr) -> pl.Expr:
    return run / (a.cast(pl.Float64) * float(m.cutoff or 1))


def _normalised(m: Measure, run: pl.Expr, ideal: pl.Expr, a: pl.Expr) -> pl.Expr:
    return _ratio(run, ideal)


_NDEVAL = "ndeval (TREC Web track; pyndeval, ir_measures' provider) computes it to rank 20 at most"


def _family(
    name: str, description: str, kernel: Kernel, params: tuple[Param, ...], *, cutoff: CutoffRule,
    formula: str, peers: str, aliases: tuple[str, ...] = (),
) -> None:  # fmt: skip
    KERNELS[name] = kernel
    register(
        Family(
            name, description, _engine_refuses, Params(params), cutoff=cutoff,
            aliases=aliases, kind="diversity", formula=formula,
            ir_measures=name + ("@k" if cutoff == "required" else ""), peers=peers,
        )
    )  # fmt: skip


_NOVELTY_TEX = r"g_i = \sum_{s \in S(d_i)} (1-\alpha)^{c_s(i)}"
_family(
    "alpha_nDCG",
    "alpha-nDCG: DCG of novelty gains (a subtopic's n-th relevant document gains (1-alpha)^(n-1)), "
    "over the greedy ideal ranking's",
    Kernel(_alpha_ndcg_run, _normalised, _alpha_ndcg_ideal),
    (ALPHA, _REL, _JUDGED_ONLY),
    cutoff="required",
    formula=r"\alpha\text{-nDCG@k} = \frac{\sum_{i \le k} g_i / \log_2(i+1)}"
    r"{\sum_{i \le k} g^*_i / \log_2(i+1)},"
    r"\quad " + _NOVELTY_TEX + r"\ (c_s(i)\text{: documents above } i \text{ relevant to } s)",
    peers=_NDEVAL + "; its ideal is greedy (ties to the larger doc id), as irframe's. ranx and "
    "pytrec_eval have no diversity measures.",
)
_family(
    "ERR_IA",
    "intent-aware ERR: novelty gains over rank, normalised by a ranking whose every document "
    "is relevant to every subtopic (ndeval's collection-independent ERR-IA)",
    Kernel(_err_run, _err_ia),
    (ALPHA, _REL, _JUDGED_ONLY),
    cutoff="required",
    formula=r"\text{ERR-IA@k} = \frac{\sum_{i \le k} g_i / i}{A \sum_{i \le k} (1-\alpha)^{i-1} / i}",
    peers=_NDEVAL + "; its ERR-IA@1 skips the normalisation (the first document's raw gain, up "
    "to A): irframe divides it by A like every cutoff. ir_measures' ERR_IA has no alpha (0.5).",
)
_family(
    "nERR_IA",
    "normalised intent-aware ERR: ERR-IA over the greedy ideal ranking's",
    Kernel(_err_run, _normalised, _err_ideal),
    (ALPHA, _REL, _JUDGED_ONLY),
    cutoff="required",
    formula=r"\text{nERR-IA@k} = \frac{\sum_{i \le k} g_i / i}{\sum_{i \le k} g^*_i / i}",
    peers=_NDEVAL + ". ir_measures' nERR_IA has no alpha (0.5).",
)
_family(
    "NRBP",
    "novelty- and rank-biased precision: novelty gains weighted beta^(i-1) over the whole "
    "ranking, normalised by A / (1 - (1-alpha) beta)",
    Kernel(_nrbp_run, _nrbp),
    (ALPHA, BETA, _REL),
    cutoff="none",
    formula=r"\text{NRBP} = \frac{1 - (1-\alpha)\beta}{A} \sum_i g_i \beta^{i-1}",
    peers="ndeval (pyndeval, ir_measures' provider) gives the same, over every retrieved document.",
)
_family(
    "nNRBP",
    "normalised NRBP: NRBP over the greedy ideal ranking's",
    Kernel(_nrbp_run, _normalised, _nrbp_ideal, nrbp_depth),
    (ALPHA, BETA, _REL),
    cutoff="none",
    formula=r"\text{nNRBP} = \frac{\sum_i g_i \beta^{i-1}}{\sum_i g^*_i \beta^{i-1}}",
    peers="ndeval gives NaN (0/0) for a query without a relevant subtopic, irframe 0; irframe's ideal "
    "stops where the rest cannot change the double (module docstring), ndeval's ranks every judged "
    "document.",
)
_family(
    "AP_IA",
    "intent-aware AP: the mean over subtopics with a relevant document of each subtopic's AP",
    Kernel(_ap_ia_run, _over_a),
    (_REL, _JUDGED_ONLY),
    cutoff="none",
    aliases=("MAP_IA",),
    formula=r"\text{AP-IA} = \frac{1}{A} \sum_{s} \frac{1}{R_s} \sum_{i: d_i \in s} \frac{c_s(i) + 1}{i}",
    peers="ndeval's MAP-IA (pyndeval, ir_measures' AP_IA): the same, over every retrieved document.",
)
_family(
    "P_IA",
    "intent-aware precision: the (document, subtopic) relevant pairs in the top k, over k A",
    Kernel(_p_ia_run, _over_ka),
    (_REL, _JUDGED_ONLY),
    cutoff="required",
    formula=r"\text{P-IA@k} = \frac{1}{kA} \sum_{i \le k} |S(d_i)|",
    peers=_NDEVAL + "; the missing ranks of a shorter run count as non-relevant, as in P@k.",
)
_family(
    "StRecall",
    "subtopic recall: the subtopics with a relevant document in the top k, over A",
    Kernel(_strecall_run, _over_a),
    (_REL,),
    cutoff="required",
    formula=r"\text{StRecall@k} = \frac{|\bigcup_{i \le k} S(d_i)|}{A}",
    peers=_NDEVAL + " (its strec@k).",
)
