"""``interleaving``: who won an interleaved log, per query (or impression), with its test."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np
import polars as pl

from irframe._backends.dask import is_dask_frame
from irframe._distributions import binomial_two_sided
from irframe._input.frames import from_lazy
from irframe._input.logs import IMPRESSION, QUERY, check_log
from irframe._input.params import check_level, check_resamples, check_seed
from irframe._report.online import interleaving_html, interleaving_report
from irframe.exceptions import InvalidDataError, InvalidParameterError
from irframe.online._credit import balanced_credit, probabilistic_credit, team_credit
from irframe.online._dask import dask_rows, per_partition
from irframe.online._interleave import METHODS
from irframe.online._log import OnlineLog, eager_origin
from irframe.online._outofcore import check_out_of_core, online_log, split_impressions, whole_rows
from irframe.online._runs import Rankings, read_rankings
from irframe.online._spark import is_spark, pack, spark_tasks, unpack
from irframe.stats import CORRECTIONS, adjust_p_values

__all__ = ["InterleavingResult", "interleaving"]

logger = logging.getLogger("irframe.online")
_ChunkFn = Callable[[pl.LazyFrame, "OnlineLog"], tuple[pl.DataFrame, dict[str, int]]]
_SUMMARY = "_summary"


@dataclass(frozen=True)
class InterleavingResult:
    """The outcome of an interleaved experiment.

    Attributes
    ----------
    outcomes : frame
        One row per ``per`` unit (query or impression): ``n_impressions``, one
        ``credit_<system>`` column per system and ``winner`` (the system with the most
        credit, ``"tie"`` otherwise; for three or more systems, the pairs table counts each
        pair).
    pairs : frame
        One row per pair of systems (``system_a`` before ``system_b`` in input order):
        ``wins_a``, ``wins_b``, ``ties``, ``n``, ``delta`` (= (wins_a + ties / 2) / n - 1/2),
        its bootstrap ``delta_ci_low``/``delta_ci_high``, ``share_a`` (wins_a over the
        decided units: P[a, b] of multileaving), the sign test's ``p_value`` (exact
        binomial on wins_a of wins_a + wins_b; ties left out) and ``p_adjusted`` (corrected
        over the pairs).
    per, method : str
        The level the credit was summed at, and the interleaving method.
    systems : list of str
    counts : dict
        ``impressions``, ``impressions_without_team`` (team draft: impressions none of whose
        rows has a team, left out), ``rows_without_team`` (rows with a null team, credited to
        nobody), ``impressions_without_clicks`` (ties), ``impossible_lists`` (probabilistic:
        lists no assignment could produce, ties).
    """

    outcomes: Any
    pairs: Any
    per: str
    method: str
    systems: list[str]
    counts: Mapping[str, int] = field(default_factory=dict)

    def _facts(self) -> dict[str, Any]:
        return {"method": self.method, "per": self.per, "counts": dict(self.counts)}

    def _pairs_polars(self) -> pl.DataFrame:
        return self.pairs if isinstance(self.pairs, pl.DataFrame) else pl.from_pandas(self.pairs)

    def to_text(self) -> str:
        """The pairs as plain text, with what was counted."""
        return interleaving_report(self._pairs_polars(), self._facts(), "text")

    def to_markdown(self) -> str:
        """The pairs as Markdown."""
        return interleaving_report(self._pairs_polars(), self._facts(), "markdown")

    def html_page(self) -> str:
        """The pairs as one self-contained HTML page."""
        return interleaving_html(self._pairs_polars(), self._facts())

    def matrix(self) -> pl.DataFrame:
        """The multileaving matrix: ``P[i, j]`` = the share of decided units where i beat j."""
        pairs = self._pairs_polars()
        share = {(a, b): s for a, b, s in pairs.select("system_a", "system_b", "share_a").iter_rows()}
        rows: dict[str, list[Any]] = {"system": list(self.systems)}
        for j in self.systems:
            rows[j] = [
                share.get((i, j), 1 - share[(j, i)] if (j, i) in share else None) if i != j else None
                for i in self.systems
            ]
        return pl.DataFrame(rows, schema={"system": pl.String, **dict.fromkeys(self.systems, pl.Float64)})


def _credit(
    olog_lf: pl.LazyFrame, method: str, systems: list[str], rank: Rankings | None, tau: float
) -> pl.DataFrame:
    if method == "team_draft":
        return team_credit(olog_lf, systems).collect()
    assert rank is not None
    if method == "balanced":
        return balanced_credit(olog_lf, rank).collect()
    return probabilistic_credit(olog_lf, rank, tau)


def _chunk(
    lf: pl.LazyFrame,
    olog: OnlineLog,
    *,
    method: str,
    names: list[str],
    rank: Rankings | None,
    tau: float,
    where: str,
) -> tuple[pl.DataFrame, dict[str, int]]:
    """The credit per impression of a checked log (or bucket), and the team counts."""
    counts: dict[str, int] = {}
    if method == "team_draft":
        counts |= _team_counts(lf, names, olog.names["team"], where)
        no_team = lf.group_by(IMPRESSION).agg(pl.col("team").is_not_null().any().alias("_has"))
        lf = lf.join(no_team.filter(pl.col("_has")).select(IMPRESSION), on=IMPRESSION, how="semi")
    return _credit(lf, method, names, rank, tau), counts


def _distributed(log: Any) -> bool:
    """A dask or Spark log: checked in its partitions."""
    return is_dask_frame(log) or is_spark(log)


def _checked(lf: pl.LazyFrame, olog: OnlineLog, chunk: _ChunkFn) -> tuple[pl.DataFrame, dict[str, int]]:
    """A bucket (or partition) checked (:func:`~irframe._input.logs.check_log`) and credited."""
    n = int(check_log(lf, olog.cols)["n_impressions"][0])
    credit, counts = chunk(lf, olog)
    return credit, {"impressions": n} | counts


def _buckets(olog: OnlineLog, chunk: _ChunkFn) -> tuple[pl.DataFrame, dict[str, int]]:
    """Out of core (or on Spark): each query bucket checked and credited in turn; the credits
    stacked, the counts added.  An impression of two queries, split over buckets, is found by
    the whole log's count and named by its check."""
    if olog.spark is not None:

        def task(part: OnlineLog) -> pl.DataFrame:
            credit, counts = _checked(part.lf, part, chunk)
            return pack({"credit": credit}, counts)

        found = []
        for row in spark_tasks(olog, task):
            frames, task_counts = unpack(row)
            found.append((frames["credit"], task_counts))
    else:
        found = [_checked(lf, olog, chunk) for lf in olog.buckets or ()]
    if not found:
        found = [_checked(olog.lf, olog, chunk)]  # (an empty log: its error)
    counts: dict[str, int] = {}
    for _, part in found:
        for k, v in part.items():
            counts[k] = counts.get(k, 0) + v
    if split_impressions(olog, counts["impressions"]):
        check_log(whole_rows(olog), olog.cols)  # (raises, naming the impression)
    return pl.concat([c for c, _ in found if c is not None]), counts


def _on_dask(olog: OnlineLog, chunk: _ChunkFn) -> tuple[pl.DataFrame, dict[str, int]]:
    """A dask log: shuffled on the query, each partition checked and credited as a bucket is
    (its counts in one summary row); the credits stacked, the counts added."""

    def step(lf: pl.LazyFrame) -> pl.LazyFrame:
        rows = lf.collect()
        n = int(check_log(rows.lazy(), olog.cols)["n_impressions"][0]) if rows.height else 0
        credit, counts = chunk(rows.lazy(), olog)
        summary = pl.DataFrame({_SUMMARY: [True], "impressions": [n]} | {k: [v] for k, v in counts.items()})
        return pl.concat([credit.with_columns(pl.lit(False).alias(_SUMMARY)), summary], how="diagonal").lazy()

    out = per_partition(olog, step, olog.names["query_id"])
    summary = out.filter(pl.col(_SUMMARY)).drop(_SUMMARY, *_credit_columns(out))
    counts = {k: int(v or 0) for k, v in summary.sum().row(0, named=True).items()}
    distinct = olog.dask[olog.names["impression_id"]].nunique().compute()
    if distinct != counts["impressions"]:
        check_log(dask_rows(olog), olog.cols)  # (raises, naming the impression)
    credit = out.filter(~pl.col(_SUMMARY)).select(_credit_columns(out))
    return credit, counts


def _credit_columns(out: pl.DataFrame) -> list[str]:
    return [
        c for c in out.columns if c in (IMPRESSION, QUERY, "_q", "_impossible") or c.startswith("credit_")
    ]


def _team_counts(lf: pl.LazyFrame, systems: Sequence[str], team_col: str, where: str) -> dict[str, int]:
    stats = lf.group_by(IMPRESSION).agg(
        pl.col("team").null_count().alias("nulls"), pl.len().alias("n"),
        pl.col("team").filter(~pl.col("team").is_in(list(systems))).drop_nulls().first().alias("bad"),
    ).collect()  # fmt: skip
    bad = stats.filter(pl.col("bad").is_not_null()).head(1)
    if bad.height:
        msg = (
            f"{where}: the log's team column {team_col!r} has the label {bad['bad'][0]!r} (impression "
            f"{bad[IMPRESSION][0]!r}), which is none of the interleaved systems {list(systems)}. Hint: "
            "label each row with the system that contributed it, or pass systems=[...] with the log's labels."
        )
        raise InvalidDataError(msg)
    return {
        "impressions_without_team": int((stats["nulls"] == stats["n"]).sum()),
        "rows_without_team": int(stats["nulls"].sum()),
    }


def interleaving(
    log: Any,
    *,
    runs: Any = None,
    systems: Sequence[str] | None = None,
    method: str = "team_draft",
    per: str = "query",
    tau: float = 3.0,
    level: float = 0.95,
    n_bootstrap: int = 1000,
    seed: int | None = 0,
    correction: str = "holm",
    system_col: str = "system",
    columns: Mapping[str, str] | None = None,
    memory_limit: int | str | None = None,
    buckets: int | None = None,
    tmp_dir: str | os.PathLike[str] | None = None,
) -> InterleavingResult:
    """Credit, outcomes and the sign test of an interleaved (or multileaved) log.

    Per impression each system gets its credit (see :mod:`irframe.online._credit`: clicks
    on its team for team draft; balanced and probabilistic read the original rankings from
    ``runs=``); with ``per="query"`` (the default) a query's credit is the sum over its
    impressions.  A unit's outcome is the system with the most credit, or a tie (a unit
    without clicks is a tie).  Per pair of systems: wins, ties,
    ``delta = (wins_a + ties/2) / n - 1/2``, a bootstrap interval of ``delta`` over the
    units (``n_bootstrap`` multinomial resamples of the outcomes), and the two-sided sign
    test on ``wins_a`` of ``wins_a + wins_b`` (``scipy.stats.binomtest``'s exact p-value;
    ties are counted and left out of the test), corrected over the pairs.

    Parameters
    ----------
    log : frame
        The impression log with a ``team`` column (team draft) naming the system of each row.
    runs : dict of name -> run, or a stacked frame with ``system_col``
        The interleaved runs (required for ``balanced`` and ``probabilistic``; for team
        draft, their names are the systems).
    systems : list of str, optional
        Team draft without ``runs=``: the systems' labels in the team column, in order.
    method : {"team_draft", "balanced", "probabilistic"}
    per : {"query", "impression"}
    tau : float, default 3.0
        The probabilistic method's softmax exponent (mpkato's default).
    level, n_bootstrap, seed
        The bootstrap interval's level, resamples and seed.
    correction : {"holm", "bonferroni", "bh", "none"}
        Over the pairs (multileaving).
    system_col : str
        The system column of stacked ``runs``.
    columns : mapping, optional
        The log's column names by role (``{"team": "ranker"}``...).
    memory_limit, buckets, tmp_dir
        Out of core: the log (a frame, a scan, or parquet files, a glob, a directory) is
        written once into hash buckets of its query id (a query's impressions whole in one
        bucket), under ``memory_limit`` (e.g. ``"2GB"``) or into ``buckets`` buckets, in
        ``tmp_dir``; each bucket is checked and credited in turn: the same result as in memory.

    Returns
    -------
    InterleavingResult

    Examples
    --------
    >>> import polars as pl
    >>> from irframe import online
    >>> log = pl.DataFrame({
    ...     "impression_id": [1, 1, 2, 2, 3, 3], "query_id": ["a", "a", "b", "b", "c", "c"],
    ...     "doc_id": ["x", "y"] * 3, "position": [1, 2] * 3, "clicked": [1, 0, 0, 1, 1, 0],
    ...     "team": ["A", "B", "A", "B", "B", "A"],
    ... })
    >>> res = online.interleaving(log, systems=["A", "B"])
    >>> res.pairs.select("wins_a", "wins_b", "ties", "p_value").row(0)
    (1, 2, 0, 1.0)
    >>> res.outcomes["winner"].to_list()
    ['A', 'B', 'B']
    """
    where = "irframe.online.interleaving"
    if method not in METHODS:
        raise InvalidParameterError.for_value("method", where, f"one of {list(METHODS)}", method)
    if per not in ("query", "impression"):
        raise InvalidParameterError.for_value("per", where, "'query' or 'impression'", per)
    if not isinstance(correction, str) or correction.lower() not in CORRECTIONS:
        raise InvalidParameterError.for_value(
            "correction", where, f"one of {sorted(set(CORRECTIONS.values()))}", correction
        )
    level = check_level(level, "level", where)
    n_boot = check_resamples(n_bootstrap, "n_bootstrap", where)
    rank, names = _systems(runs, systems, method, system_col, where)
    with online_log(
        log, key="query_id", memory_limit=memory_limit, buckets=buckets, tmp_dir=tmp_dir, where=where,
        need=("team",) if method == "team_draft" else (), columns=columns,
        check=not (check_out_of_core(log, memory_limit, buckets, where) or _distributed(log)),
    ) as olog:  # fmt: skip
        chunk = partial(_chunk, method=method, names=names, rank=rank, tau=tau, where=where)
        if olog.dask is not None:
            credit, counts = _on_dask(olog, chunk)
        elif olog.buckets is None and olog.spark is None:
            credit, counts = chunk(olog.lf, olog)
            counts = {"impressions": int(olog.counts["n_impressions"])} | counts
        else:
            credit, counts = _buckets(olog, chunk)
    outcomes = _outcomes(credit, names, per, counts)
    rng = np.random.default_rng(check_seed(seed, where))  # type: ignore[arg-type]
    pairs = _pairs(outcomes, names, level=level, n_boot=n_boot, rng=rng, correction=correction)
    renamed = outcomes.rename({f"credit_{i}": f"credit_{s}" for i, s in enumerate(names)})
    logger.info("%s (%s, per %s): %s", where, method, per, counts)
    origin = olog.origin
    return InterleavingResult(
        from_lazy(renamed, origin), from_lazy(pairs, eager_origin(origin)), per, method, names, counts
    )


def _systems(
    runs: Any, systems: Sequence[str] | None, method: str, system_col: str, where: str
) -> tuple[Rankings | None, list[str]]:
    if runs is not None:
        rank = read_rankings(
            runs, where=where, system_col=system_col, at_most=None if method == "team_draft" else 2
        )
        if systems is not None and list(systems) != rank.systems:
            msg = f"{where}: systems={list(systems)} differ from the runs' names {rank.systems}; pass one."
            raise InvalidParameterError(msg)
        return rank, rank.systems
    if method != "team_draft":
        msg = f"{where}: method={method!r} reads the original rankings: pass runs={{name: run, ...}}."
        raise InvalidParameterError(msg)
    if (
        systems is None
        or isinstance(systems, str)
        or len(set(systems)) < 2
        or not all(isinstance(s, str) for s in systems)
    ):
        msg = (
            f"{where}: name the interleaved systems: systems=['A', 'B'] (the labels of the team column, at "
            "least two), or runs={name: run, ...}."
        )
        raise InvalidParameterError(msg)
    return None, list(systems)


def _outcomes(credit: pl.DataFrame, systems: Sequence[str], per: str, counts: dict[str, int]) -> pl.DataFrame:
    cols = [f"credit_{i}" for i in range(len(systems))]
    if "_q" in credit.columns:
        counts["impossible_lists"] = int(credit["_impossible"].sum())
    counts["impressions_without_clicks"] = int(credit.filter(pl.sum_horizontal(cols) == 0).height)
    key = QUERY if per == "query" else IMPRESSION
    if per == "query":
        out = credit.group_by(QUERY).agg(pl.len().alias("n_impressions"), *[pl.col(c).sum() for c in cols])
    else:
        out = credit.select(IMPRESSION, QUERY, pl.lit(1, dtype=pl.UInt32).alias("n_impressions"), *cols)
    best = pl.max_horizontal(cols)
    n_best = pl.sum_horizontal([(pl.col(c) == best).cast(pl.Int32) for c in cols])
    winner = pl.lit(None, dtype=pl.String)
    for i, s in reversed(list(enumerate(systems))):
        winner = pl.when(pl.col(cols[i]) == best).then(pl.lit(s)).otherwise(winner)
    out = out.with_columns(pl.when(n_best == 1).then(winner).otherwise(pl.lit("tie")).alias("winner"))
    return out.sort(key)


def _pairs(
    outcomes: pl.DataFrame,
    systems: Sequence[str],
    *,
    level: float,
    n_boot: int,
    rng: np.random.Generator,
    correction: str,
) -> pl.DataFrame:
    rows = []
    tail = (1 - level) / 2
    for i in range(len(systems)):
        for j in range(i + 1, len(systems)):
            a, b = outcomes[f"credit_{i}"].to_numpy(), outcomes[f"credit_{j}"].to_numpy()
            wa, wb = int((a > b).sum()), int((a < b).sum())
            n = a.size
            ties = n - wa - wb
            delta = (wa + ties / 2) / n - 0.5 if n else float("nan")
            draws = rng.multinomial(n, [wa / n, wb / n, ties / n], size=n_boot) if n else np.zeros((0, 3))
            boot = (draws[:, 0] + draws[:, 2] / 2) / max(n, 1) - 0.5
            lo, hi = np.quantile(boot, [tail, 1 - tail]) if n else (float("nan"), float("nan"))
            share = wa / (wa + wb) if wa + wb else float("nan")
            rows.append((systems[i], systems[j], wa, wb, ties, n, delta, float(lo), float(hi), share,
                         binomial_two_sided(wa, wa + wb)))  # fmt: skip
    names = ["system_a", "system_b", "wins_a", "wins_b", "ties", "n", "delta", "delta_ci_low",
             "delta_ci_high", "share_a", "p_value"]  # fmt: skip
    out = pl.DataFrame(rows, schema=names, orient="row")
    return out.with_columns(pl.Series("p_adjusted", adjust_p_values(out["p_value"].to_numpy(), correction)))
