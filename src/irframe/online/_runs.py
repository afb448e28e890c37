"""The runs an interleaving reads: stacked once (:func:`irframe._input.runs.stack_runs`), each
system's ranking per query in THE ranking order (:func:`irframe._input.columns.ranking_order`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl

from irframe._input.columns import natural_sorted, resolve_run
from irframe._input.frames import Origin
from irframe._input.keys import SYSTEM
from irframe._input.runs import stack_runs, user_terms
from irframe.exceptions import DuplicateRowsError, InvalidParameterError

__all__ = ["Rankings", "read_rankings"]

RANK0 = "_rank0"  # 0-based position of a document in a system's ranking


@dataclass(frozen=True)
class Rankings:
    """Each system's ranking per query: ``lists[query][i]`` is system ``i``'s doc ids, in order."""

    systems: list[str]
    queries: list[Any]  # natural order
    lists: dict[Any, list[list[Any]]]
    table: pl.DataFrame  # SYSTEM, query_id, doc_id, RANK0 (canonical names)
    origin: Origin
    query_dtype: pl.DataType
    doc_dtype: pl.DataType


def read_rankings(
    runs: Any,
    *,
    where: str,
    system_col: str = "system",
    query_col: str = "query_id",
    doc_col: str = "doc_id",
    rank_col: str = "rank",
    score_col: str = "score",
    at_least: int = 2,
    at_most: int | None = None,
) -> Rankings:
    """Stack ``runs`` and rank each system's documents per query."""
    stack = stack_runs(runs, system_col, where, at_least=at_least)
    if at_most is not None and len(stack.systems) > at_most:
        msg = f"{where}: this method interleaves {at_most} runs; got {len(stack.systems)}: {stack.systems}."
        raise InvalidParameterError(msg)
    with user_terms(system_col):
        schema = stack.lf.collect_schema()
        cols = resolve_run(
            schema, query_col=query_col, doc_col=doc_col, rank_col=rank_col, score_col=score_col,
            relevance_col=None, by=(), need_relevance=False,
        )  # fmt: skip
    order, desc = cols.ranking()
    table = (
        stack.lf.sort([pl.col(SYSTEM), pl.col(query_col), *order], descending=[False, False, *desc])
        .select(SYSTEM, pl.col(query_col).alias("query_id"), pl.col(doc_col).alias("doc_id"))
        .with_columns(pl.int_range(pl.len()).over(SYSTEM, "query_id").alias(RANK0))
        .collect()
    )
    dup = table.filter(pl.struct(SYSTEM, "query_id", "doc_id").is_duplicated()).head(1)
    if dup.height:
        s, q, d, _ = dup.row(0)
        msg = (
            f"{where}: the run {s!r} ranks document {d!r} twice for query {q!r}. "
            "Hint: drop the duplicates, e.g. .unique([query_col, doc_col])."
        )
        raise DuplicateRowsError(msg)
    return _lists(table, stack.systems, stack.origin, schema[query_col], schema[doc_col])


def _lists(
    table: pl.DataFrame, systems: Sequence[str], origin: Origin, qtype: pl.DataType, dtype: pl.DataType
) -> Rankings:
    lists: dict[Any, list[list[Any]]] = {}
    index = {s: i for i, s in enumerate(systems)}
    grouped = table.group_by("query_id", SYSTEM).agg(pl.col("doc_id"))
    for q, s, docs in grouped.iter_rows():
        lists.setdefault(q, [[] for _ in systems])[index[s]] = docs
    queries = natural_sorted(pl.DataFrame({"q": list(lists)}, schema={"q": qtype}), ["q"])["q"].to_list()
    return Rankings(list(systems), queries, lists, table, origin, qtype, dtype)
