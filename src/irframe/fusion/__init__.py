"""Rank fusion: several systems' rankings of the same queries combined into one run.

:func:`fuse` computes, per query, the fusion methods and score normalisations that ranx
offers and users use most, with ranx's numbers (ranx 0.3.21's ``fuse`` is the oracle of
the tests, per (query, document) score); :func:`tune_fusion` scores a grid of ``wsum``
weights or RRF ``k`` on judged queries, with a held-out split.

What each method reads of a run
-------------------------------
``rrf`` and ``borda`` read each run's ranking only (rank ascending, or score descending;
ties broken by doc id descending, the one ranking rule every irframe module uses); the
score methods (``combsum`` ... ``wsum``) read the normalised scores, and with
``norm="rank"`` those too come from the ranking alone.  So a run with a rank column but
no score can be fused by ``rrf``, ``borda`` or any method with ``norm="rank"``.

Documents missing from a run, queries missing from a run
--------------------------------------------------------
As ranx: a document a run did not retrieve adds 0 to ``combsum``, ``wsum`` and ``rrf``;
``combmnz`` and ``combanz`` count the runs that retrieved it; ``combmax`` and ``combmin``
take a missing document as -1e9 and +1e9 (ranx's stand-ins: they matter only for
scores beyond those bounds); ``borda`` gives it the mean of the points left,
``(c - n + 1) / 2`` for ``c`` candidates (the documents of the query in any run) and
``n`` documents in the run.  A query absent from a run is that run returning nothing
for it (ranx requires every run to have every query; this is ranx with an empty result
list there).  Every query of any run is in the fused run.

Ties
----
ranx orders tied scores by an unstable sort of the input order, which makes ``rrf``,
``borda`` and ``norm="rank"`` depend on row order; here ties are broken by doc id
(descending, as trec_eval), so the result does not depend on row order.  The fused run
is ordered the same way: score descending, ties by doc id descending.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from irframe._input.options import DEFAULT_RANK, ColumnsArg, Missing, Options, Order
from irframe.exceptions import InvalidParameterError

__all__ = [
    "DEFAULT_K",
    "EPS",
    "FAR",
    "METHODS",
    "NORMS",
    "FusionTuning",
    "Method",
    "MethodName",
    "Norm",
    "NormName",
    "fuse",
    "tune_fusion",
]

MethodName = Literal["rrf", "combsum", "combmnz", "combmax", "combmin", "combanz", "wsum", "borda"]
NormName = Literal["minmax", "max", "sum", "zscore", "rank"]

EPS = 1e-9  # ranx's floor on every normalisation's denominator
FAR = 1e9  # ranx's stand-in score of a missing document: -FAR in combmax, +FAR in combmin
DEFAULT_K = 60  # RRF's k (Cormack et al. 2009; ranx's default)


@dataclass(frozen=True)
class Norm:
    """A score normalisation, applied per run and per query before the fusion (its
    expression: ``irframe.fusion._impl.NORM_EXPRS[name]``)."""

    name: str
    reads: Literal["score", "rank"]  # the scores' values, or only the ranking
    ranx: str  # ranx's name for it
    formula: str


@dataclass(frozen=True)
class Method:
    """A fusion method (its expressions: ``irframe.fusion._impl.KERNELS[name]``)."""

    name: str
    reads: Literal["score", "rank"]  # the (normalised) scores' values, or only the ranking
    default_norm: NormName | None
    params: tuple[str, ...]  # the keyword parameters it takes: "k", "weights"
    ranx: str  # ranx's name for it
    formula: str


NORMS: dict[str, Norm] = {
    n.name: n
    for n in (
        Norm("minmax", "score", "min-max", "(s - min) / max(max - min, 1e-9)"),
        Norm("max", "score", "max", "s / max(max, 1e-9)"),
        Norm("sum", "score", "sum", "(s - min) / max(sum - n * min, 1e-9)"),
        Norm("zscore", "score", "zmuv", "(s - mean) / max(std, 1e-9), std with ddof=0"),
        Norm("rank", "rank", "rank", "1 - (rank - 1) / n"),
    )
}
"""The normalisations by name; per run and per query, over the documents the run retrieved
(``n`` of them; ``rank`` is 1-based); ``norm=None`` fuses the raw scores."""

METHODS: dict[str, Method] = {
    m.name: m
    for m in (
        Method("rrf", "rank", None, ("k",), "rrf", "sum over runs of 1 / (k + rank)"),
        Method("combsum", "score", "minmax", (), "sum", "sum of the scores"),
        Method("combmnz", "score", "minmax", (), "mnz", "sum of the scores x runs that retrieved it"),
        Method("combmax", "score", "minmax", (), "max", "largest score (-1e9 for a run without it)"),
        Method("combmin", "score", "minmax", (), "min", "smallest score (+1e9 for a run without it)"),
        Method("combanz", "score", "minmax", (), "anz", "sum of the scores / runs that retrieved it"),
        Method("wsum", "score", "minmax", ("weights",), "wsum", "sum over runs of weight x score"),
        Method("borda", "rank", None, (), "bordafuse",
               "sum over runs of c - rank + 1, or (c - n + 1) / 2 for a run without it"),
    )
}  # fmt: skip
"""The fusion methods by name (``c``: the query's candidates, the documents of any run;
``n``: the run's documents for the query; ranks 1-based)."""


def fuse(
    runs: Any,
    *,
    method: MethodName = "rrf",
    norm: NormName | Literal["default"] | None = "default",
    weights: Sequence[float] | Mapping[str, float] | None = None,
    k: float | None = None,
    system_col: str = "system",
    query_col: str = "query_id",
    doc_col: str = "doc_id",
    rank_col: str | None = DEFAULT_RANK,
    score_col: str = "score",
    columns: ColumnsArg = None,
    order: Order = "auto",
) -> Any:
    """Fuse several systems' runs into one run, per query, as ranx's ``fuse`` computes it.

    Parameters
    ----------
    runs : dict of name -> frame, or one stacked frame
        Two or more runs (pandas, polars or polars lazy frames, long format as for
        :func:`irframe.evaluate`), or one frame with a ``system_col`` column.  The order of
        the runs (dict order, or first appearance of each system) is the order of a
        ``weights`` list.
    method : {"rrf", "combsum", "combmnz", "combmax", "combmin", "combanz", "wsum", "borda"}
        ``"rrf"`` (default): sum over runs of 1 / (k + rank); ``"combsum"``: sum of the
        normalised scores; ``"combmnz"``: that times the number of runs that retrieved the
        document; ``"combanz"``: divided by it; ``"combmax"``/``"combmin"``: the largest or
        smallest normalised score; ``"wsum"``: sum of weight x normalised score;
        ``"borda"``: Borda count (c - rank + 1 points per run for c candidates, the points
        left shared equally among the documents a run did not rank).  See :data:`METHODS`.
    norm : {"minmax", "max", "sum", "zscore", "rank"}, None or "default"
        How each run's scores are normalised per query before a score method combines them
        (ranx's ``min-max``, ``max``, ``sum``, ``zmuv``, ``rank``; see :data:`NORMS`).
        ``"default"``: ``"minmax"`` for the score methods (ranx's default), None (nothing
        to normalise) for ``rrf`` and ``borda``, which refuse any other.  None: the raw scores.
    weights : list of float or dict of name -> float, optional
        ``wsum``'s weights (required there, refused elsewhere): one finite number per run
        in the runs' order, or one per system name.
    k : float, optional
        RRF's constant (default 60; a number >= 0); refused for the other methods.
    system_col : str, default "system"
        The system column of a stacked frame.
    query_col, doc_col, rank_col, score_col, columns, order
        Column names and conventions as for :func:`irframe.evaluate` (``order`` says what
        ranks each run: the rank column, the score, or ``"auto"``: the rank when present,
        and then rank and score must agree).  The fused run uses these names.

    Returns
    -------
    Same type as the runs
        One row per (query, document) retrieved by any run: the query and doc columns,
        ``score_col`` (Float64, the fused score) and the rank column (Int64, 1 = best;
        ``"rank"`` when ``rank_col`` is None), ordered by query (natural order) and rank.
        Score ties are ranked by doc id descending (trec_eval's order).  A lazy frame stays
        lazy: the rows are read and checked when it is collected.

    Raises
    ------
    InvalidParameterError
        A method, norm, k or weights out of its domain, or fewer than two runs.
    ColumnNotFoundError, InvalidDataError, DuplicateRowsError
        A run without the column the method reads (scores, or a rank or score to rank by),
        a document twice in a query's ranking, null ids, null/NaN/infinite values read.

    Notes
    -----
    Every number is ranx 0.3.21's (the tests compare each (query, document) score for every
    method and norm, with ties, documents and queries missing from some runs, one-document
    queries), with two differences that are choices: ties are broken by doc id rather than
    by ranx's unstable sort, and a query missing from some runs is fused (ranx refuses runs
    whose queries differ).  ranx's norms floor every denominator at 1e-9: a query whose
    scores are all equal normalises to 0 (``max``: s / 1e-9 when its largest score is <= 0,
    so ``max`` suits positive scores only).

    Examples
    --------
    >>> import polars as pl, irframe
    >>> bm25 = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "b", "c"], "score": [9.0, 7.0, 1.0]})
    >>> dense = pl.DataFrame({"query_id": ["q1"] * 2, "doc_id": ["c", "a"], "score": [0.9, 0.8]})
    >>> irframe.fuse({"bm25": bm25, "dense": dense}, method="rrf")  # a: 1/61 + 1/62, c: 1/63 + 1/61
    shape: (3, 4)
    ┌──────────┬────────┬──────────┬──────┐
    │ query_id ┆ doc_id ┆ score    ┆ rank │
    │ ---      ┆ ---    ┆ ---      ┆ ---  │
    │ str      ┆ str    ┆ f64      ┆ i64  │
    ╞══════════╪════════╪══════════╪══════╡
    │ q1       ┆ a      ┆ 0.032522 ┆ 1    │
    │ q1       ┆ c      ┆ 0.032266 ┆ 2    │
    │ q1       ┆ b      ┆ 0.016129 ┆ 3    │
    └──────────┴────────┴──────────┴──────┘
    >>> # minmax: bm25 a 1, b 0.75, c 0; dense c 1, a 0. a and c tie: doc id descending
    >>> irframe.fuse({"bm25": bm25, "dense": dense}, method="combmnz").select("doc_id", "score").rows()
    [('c', 2.0), ('a', 2.0), ('b', 0.75)]
    >>> fused = irframe.fuse({"bm25": bm25, "dense": dense}, method="wsum", norm=None,
    ...                      weights={"bm25": 0.3, "dense": 0.7})   # a: 0.3 * 9 + 0.7 * 0.8
    >>> fused.select("doc_id", pl.col("score").round(2)).rows()
    [('a', 3.26), ('b', 2.1), ('c', 0.93)]
    """
    where = "fuse"
    opts = Options.build(
        where, query_col=query_col, doc_col=doc_col, rank_col=rank_col, score_col=score_col, columns=columns,
        order=order,
    )  # fmt: skip
    if not isinstance(system_col, str) or not system_col:
        raise InvalidParameterError.for_value(
            "system_col", where, "a column name (a non-empty str)", system_col
        )
    from irframe.fusion._impl import fuse_runs

    return fuse_runs(runs, opts, method=method, norm=norm, weights=weights, k=k, system_col=system_col)


TUNABLE = {"wsum": "weights", "rrf": "k"}  # the method -> the parameter tune_fusion scores a grid of
DEFAULT_RRF_GRID = tuple(range(10, 101, 10))  # ranx's optimize_fusion trials for RRF's k
WEIGHT_STEPS = 10  # the default wsum grid: weights in steps of 1/10 that sum to 1 (as ranx's)
MAX_DEFAULT_GRID_RUNS = 5  # 1001 settings; with more runs, the grid must be given
SMALL_SET = 50  # fewer tuning queries than this: the note says the choice is fragile


@dataclass(frozen=True)
class FusionTuning:
    """What :func:`tune_fusion` found: every setting's score, the chosen one, how far to trust it.

    Attributes
    ----------
    table : frame (the runs' type)
        One row per setting, best first: ``setting`` (its text), ``weights`` (list, in the
        runs' order) or ``k``, the measure's mean over the tuning queries, ``delta`` (to the
        best), ``se_delta`` (standard error of the per-query paired difference to the best),
        ``within_2se`` (``|delta| <= 2 se_delta``: not told apart from the best by these
        queries) and ``n_queries``.
    best : dict
        The chosen setting as keyword arguments of :func:`fuse` (``{"weights": {...}}`` or
        ``{"k": ...}``): ``irframe.fuse(runs, method=t.method, norm=t.norm, **t.best)``.
    tuned : float
        The chosen setting's mean over the tuning queries, the ones it was chosen on:
        optimistic, the largest of many noisy means.
    heldout : float or None
        Its mean over the held-out queries (None without ``holdout``): the number to report.
    inputs : frame (the runs' type)
        Each input run's own mean on the tuning (``tune``) and on the held-out queries
        (``heldout``): what the fusion has to beat.
    note : str
        What the numbers can and cannot say (overfitting a small set), in words.
    """

    table: Any
    best: dict[str, Any]
    method: str
    norm: str | None
    measure: str
    tuned: float
    heldout: float | None
    inputs: Any
    n_tune: int
    n_heldout: int
    n_within_2se: int
    note: str

    def __str__(self) -> str:
        setting = ", ".join(f"{k}={v!r}" for k, v in self.best.items())
        held = (
            f"; {self.heldout:.4f} on {self.n_heldout} held-out queries" if self.heldout is not None else ""
        )
        return (
            f"{self.method} (norm={self.norm!r}) on {self.measure}: best {setting}\n"
            f"{self.measure} {self.tuned:.4f} on the {self.n_tune} tuning queries{held}\n{self.note}"
        )


def tune_fusion(
    runs: Any,
    qrels: Any,
    measure: str = "nDCG@10",
    *,
    method: Literal["wsum", "rrf"] = "wsum",
    norm: NormName | Literal["default"] | None = "default",
    grid: Iterable[Any] | None = None,
    holdout: float | Iterable[Any] | None = None,
    seed: int = 0,
    system_col: str = "system",
    missing: Missing = "zero",
    **column_kwargs: Any,
) -> FusionTuning:
    """Score a grid of ``wsum`` weights or RRF ``k`` on judged queries, with a held-out split.

    Every setting is fused (:func:`fuse`) and evaluated per query (:func:`irframe.evaluate`)
    on the tuning queries; the table is sorted by the measure.  The best of many settings on
    the queries it was chosen on overstates what it gives on new ones, the more so the fewer
    the queries and the more the settings: the result says so (``note``, ``within_2se``),
    and ``holdout`` keeps queries apart to score the chosen setting on.

    Parameters
    ----------
    runs : dict of name -> frame, or one stacked frame
        As for :func:`fuse`.
    qrels : frame
        Judgments (query, document, relevance), as for :func:`irframe.evaluate`.
    measure : str, default "nDCG@10"
        The measure to maximise (one).
    method : {"wsum", "rrf"}, default "wsum"
        ``"wsum"`` tunes the weights, ``"rrf"`` its ``k`` (the other methods have nothing to tune).
    norm : as for :func:`fuse`
        The normalisation (``"default"``: minmax for wsum, none for rrf).
    grid : list, optional
        wsum: weight settings (lists in the runs' order, or ``{system: weight}`` dicts);
        default: every setting of weights in steps of 0.1 that sum to 1 (11 for two runs,
        66 for three; up to five runs).  rrf: k values; default 10, 20, ..., 100 (ranx's).
    holdout : float or list of query ids, optional
        The queries to keep out of tuning: a fraction of the judged queries (drawn with
        ``seed`` from their sorted ids), or the ids themselves.  Default: none held out.
    seed : int, default 0
        Seed of the held-out draw.
    system_col, missing, **column_kwargs
        As for :func:`fuse` and :func:`irframe.evaluate` (``query_col``, ``qrels_query_col``,
        ``columns``...).  ``missing="zero"``: a judged query no run retrieved counts 0.

    Returns
    -------
    FusionTuning
        ``table`` (best first), ``best`` (keyword arguments of :func:`fuse`), ``tuned`` and
        ``heldout`` scores, each input run's own scores (``inputs``), and a ``note``.

    Examples
    --------
    >>> import irframe
    >>> from irframe.datasets import golden
    >>> g = golden()
    >>> runs = g.runs.filter(g.runs["system"] != "hybrid")          # bm25 and dense
    >>> t = irframe.tune_fusion(runs, g.qrels, "nDCG@10", method="wsum", holdout=0.3, seed=1)
    >>> t.table.select("setting", "nDCG@10", "delta", "within_2se").head(3)
    shape: (3, 4)
    ┌────────────────────┬──────────┬───────────┬────────────┐
    │ setting            ┆ nDCG@10  ┆ delta     ┆ within_2se │
    │ ---                ┆ ---      ┆ ---       ┆ ---        │
    │ str                ┆ f64      ┆ f64       ┆ bool       │
    ╞════════════════════╪══════════╪═══════════╪════════════╡
    │ bm25=0.5 dense=0.5 ┆ 0.790918 ┆ 0.0       ┆ true       │
    │ bm25=0.4 dense=0.6 ┆ 0.773317 ┆ -0.017602 ┆ true       │
    │ bm25=0.6 dense=0.4 ┆ 0.767568 ┆ -0.023351 ┆ true       │
    └────────────────────┴──────────┴───────────┴────────────┘
    >>> t.best, round(t.tuned, 4), t.n_tune, round(t.heldout, 4), t.n_heldout
    ({'weights': {'bm25': 0.5, 'dense': 0.5}}, 0.7909, 28, 0.8488, 12)
    >>> t.inputs.rows()   # each run alone, on the tuning and the held-out queries
    [('bm25', 0.6555..., 0.6814...), ('dense', 0.6337..., 0.6528...)]
    >>> print(t.note)
    The tuned score is the best of 11 settings on the 28 queries it was chosen on: an
    optimistic estimate of the setting's score on new queries. 5 of the 11 settings are
    within two standard errors of the best (paired per query): these queries do not tell
    them apart. With fewer than 50 tuning queries, expect another sample to choose
    otherwise. The held-out score (12 queries not tuned on, seed 1) is the one to report.
    """
    where = "tune_fusion"
    if method not in TUNABLE:
        err = InvalidParameterError.for_value(
            "method", where, "one of " + ", ".join(map(repr, TUNABLE)), method
        )
        msg = f"{err} The other methods have no parameter to tune."
        raise InvalidParameterError(msg)
    if not isinstance(measure, str):
        raise InvalidParameterError.for_value("measure", where, "one measure name, e.g. 'nDCG@10'", measure)
    opts = Options.build(where, **column_kwargs)
    from irframe.fusion._impl import tune

    return tune(
        runs, qrels, measure, opts, method=method, norm=norm, grid=grid, holdout=holdout, seed=seed,
        system_col=system_col, missing=missing,
    )  # fmt: skip
