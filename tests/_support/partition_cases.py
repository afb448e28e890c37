"""Seeded cases for the partitioned backends (out-of-core, Dask, Spark).

Every case is a (run, qrels, kwargs) triple of polars frames whose single-machine result
(``irframe.evaluate``) the backends must reproduce exactly per query.  The data holds
what partitioning can get wrong: tied scores, judged queries missing from the run (they
must appear exactly once), run-only queries (unjudged), a system that lacks some
queries, int query ids in the run against str ids in the qrels, and so few queries that
most partitions are empty.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import polars as pl
from polars.testing import assert_frame_equal

import irframe

MEASURES = ["nDCG@10", "nDCG", "AP", "P@5", "RR", "R@10", "Rprec", "Bpref", "Success@3", "Judged@5"]


@dataclass
class Case:
    """One evaluation input and its options."""

    name: str
    run: pl.DataFrame
    qrels: pl.DataFrame | None
    kwargs: dict[str, Any] = field(default_factory=dict)
    query: str = "query_id"  # the query column (another name under a column preset)

    def __repr__(self) -> str:
        return self.name


def _run_and_qrels(
    seed: int,
    n_queries: int = 30,
    systems: tuple[str, ...] = (),
    int_ids: bool = False,
    use_rank: bool = False,
) -> tuple[pl.DataFrame, pl.DataFrame]:
    rng = np.random.default_rng(seed)
    queries = np.arange(n_queries)
    judged = rng.permutation(queries)[: int(n_queries * 0.8)]  # the rest are run-only
    qrels_only = np.arange(n_queries, n_queries + 5)  # judged, never retrieved
    rows: dict[str, list[Any]] = {"query_id": [], "doc_id": [], "score": []}
    if systems:
        rows["system"] = []
    for s_i, system in enumerate(systems or ("",)):
        answered = queries if s_i == 0 else rng.permutation(queries)[: n_queries - 3 * s_i]
        for q in answered:
            n = int(rng.integers(1, 16))
            docs = rng.choice(40, size=n, replace=False)
            rows["query_id"] += [int(q)] * n
            rows["doc_id"] += [f"d{d}" for d in docs]
            rows["score"] += np.round(rng.random(n) * 3, 1).tolist()  # ties
            if systems:
                rows["system"] += [system] * n
    run = pl.DataFrame(rows)
    if use_rank:
        keys = ["system", "query_id"] if systems else ["query_id"]
        run = run.with_columns(
            pl.struct("score", "doc_id")
            .rank("ordinal", descending=True)
            .over(keys)
            .cast(pl.Int64)
            .alias("rank")
        ).drop("score")
    qrows: dict[str, list[Any]] = {"query_id": [], "doc_id": [], "relevance": []}
    for q in np.concatenate([judged, qrels_only]):
        n = int(rng.integers(1, 14))
        docs = rng.choice(40, size=n, replace=False)
        nothing_relevant = rng.random() < 0.1
        qrows["query_id"] += [int(q)] * n
        qrows["doc_id"] += [f"d{d}" for d in docs]
        qrows["relevance"] += [0] * n if nothing_relevant else rng.integers(-1, 4, n).tolist()
    qrels = pl.DataFrame(qrows)
    run = run.with_columns(pl.col("query_id") if int_ids else pl.format("q{}", "query_id"))
    qrels = qrels.with_columns(pl.format("q{}", "query_id") if not int_ids else pl.col("query_id"))
    if int_ids:  # the engine compares int run ids with str qrels ids as strings
        qrels = qrels.with_columns(pl.col("query_id").cast(pl.String))
    return run, qrels


def cases() -> list[Case]:
    """The cases every backend runs."""
    run, qrels = _run_and_qrels(1)
    sys_run, sys_qrels = _run_and_qrels(2, systems=("bm25", "dense", "hybrid"))
    int_run, int_qrels = _run_and_qrels(3, int_ids=True)
    rank_run, rank_qrels = _run_and_qrels(4, use_rank=True, systems=("a", "b"))
    graded = run.join(qrels, on=["query_id", "doc_id"], how="left")  # grades in the run
    seg_qrels = qrels.with_columns(
        pl.when(pl.col("query_id").str.slice(1).cast(pl.Int64) % 2 == 0)
        .then(pl.lit("even"))
        .otherwise(pl.lit("odd"))
        .alias("segment")
    )
    seg_run = run.join(seg_qrels.select("query_id", "segment").unique(), on="query_id", how="left")
    seg_run = seg_run.with_columns(pl.col("segment").fill_null("none"))
    # a rank column that disagrees with the scores (rank 1: the lowest score): order="score"
    # must reach every backend, or the disagreement is an error there
    both = run.with_columns(pl.col("score").rank("ordinal").over("query_id").cast(pl.Int64).alias("rank"))
    return [
        Case("ties-missing-runonly", run, qrels),
        Case("ties-missing-runonly-drop", run, qrels, {"missing": "drop"}),
        Case("by-system-lacking-queries", sys_run, sys_qrels, {"by": "system"}),
        Case("by-system-drop", sys_run, sys_qrels, {"by": "system", "missing": "drop"}),
        Case("int-run-ids-str-qrels", int_run, int_qrels),
        Case("rank-column-by-system", rank_run, rank_qrels, {"by": "system"}),
        Case("grades-in-run-no-qrels", graded, None),
        Case("segment-in-qrels", seg_run, seg_qrels, {"by": "segment"}),
        Case("rank-and-score-by-score", both, qrels, {"order": "score"}),
        Case(
            "ranx-columns",
            run.rename({"query_id": "q_id"}),
            qrels.rename({"query_id": "q_id", "relevance": "score"}),
            {"columns": "ranx"},
            query="q_id",
        ),
    ]


CASES = cases()


def weighted(case: Case) -> Case:
    """``case`` with ``weights="traffic"`` from a queries table: one weight per query of the
    run and the qrels (0 for some: counted, not in the means), keyed by the query id as
    text (the run's ids are ints in one case)."""
    ids = [case.run.get_column(case.query).cast(pl.String)]
    if case.qrels is not None:
        ids.append(case.qrels.get_column(case.query).cast(pl.String))
    queries = pl.DataFrame({case.query: pl.concat(ids).unique().sort()})
    queries = queries.with_columns(traffic=pl.col(case.query).hash(seed=1) % 7)  # 0..6
    kwargs = {**case.kwargs, "weights": "traffic", "queries": queries}
    return Case(f"{case.name}-weighted", case.run, case.qrels, kwargs, case.query)


WEIGHTED = [weighted(c) for c in CASES]


def reference(case: Case, per_query: bool) -> pl.DataFrame:
    """The single-machine result."""
    result: pl.DataFrame = irframe.evaluate(
        case.run, MEASURES, case.qrels, per_query=per_query, **case.kwargs
    )
    return result


def keys_of(case: Case) -> list[str]:
    """The per-query key columns of a case."""
    by = case.kwargs.get("by")
    return [*([by] if isinstance(by, str) else (by or [])), case.query]


def assert_same_per_query(got: pl.DataFrame, case: Case) -> None:
    """Exactly the reference's rows and values (no query lost, split or duplicated)."""
    want = reference(case, per_query=True)
    keys = keys_of(case)
    assert got.select(keys).is_duplicated().sum() == 0
    got = got.select(want.columns).sort(keys, nulls_last=True)
    assert_frame_equal(got, want.sort(keys, nulls_last=True), check_exact=True)


def assert_same_means(got: pl.DataFrame, case: Case) -> None:
    """The reference's means (to 1e-12) and the exact query counts."""
    want = reference(case, per_query=False)
    by = keys_of(case)[:-1]
    got = got.select(want.columns)
    if by:
        got, want = got.sort(by, nulls_last=True), want.sort(by, nulls_last=True)
    assert_frame_equal(got, want, check_exact=False, rel_tol=1e-12, abs_tol=1e-12)
