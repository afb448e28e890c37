"""Query attributes: ``by`` columns that describe queries (segment, query type...).

A ``by`` column the run lacks is looked up by query id in the ``queries`` table, else in
the qrels, and copied onto the run rows (and onto the qrels, so that the engine treats it
as a query attribute rather than a partition of the run).  Each query needs one value.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from irframe._frames import to_lazy
from irframe._options import Options
from irframe.exceptions import ColumnNotFoundError, InvalidDataError, closest

__all__ = ["with_query_attributes"]


def _key(schema: Sequence[str], candidates: Sequence[str]) -> str | None:
    return next((c for c in candidates if c in schema), None)


def _attribute_table(source: pl.LazyFrame, key: str, cols: list[str], frame: str) -> pl.DataFrame:
    """(query, *cols) with one row per query; several values for a query raise."""
    table = source.select(pl.col(key).cast(pl.String), *cols).unique().collect()
    dup = table.get_column(key).is_duplicated()
    if dup.any():
        q = table.filter(dup).item(0, key)
        msg = (
            f"by={cols[0]!r}: query {q!r} has several values in the {frame}; a query attribute "
            "needs one value per query. Hint: fix the table, or give a queries table (queries=...)."
        )
        raise InvalidDataError(msg)
    return table


def _join(lf: pl.LazyFrame, key: str, table: pl.DataFrame, table_key: str) -> pl.LazyFrame:
    """Left-join ``table`` (string ids) onto ``lf`` by query id, in ``lf``'s id dtype."""
    dtype = lf.collect_schema()[key]
    right = table.lazy().rename({table_key: key}).with_columns(pl.col(key).cast(dtype, strict=False))
    return lf.join(right, on=key, how="left", maintain_order="left")


def with_query_attributes(
    run: pl.LazyFrame, qrels: pl.LazyFrame | None, queries: Any, opts: Options, where: str = "evaluate"
) -> tuple[pl.LazyFrame, pl.LazyFrame | None]:
    """Copy the ``by`` columns the run lacks from ``queries`` (else the qrels) onto both.

    Examples
    --------
    >>> run = pl.LazyFrame({"query_id": ["q1", "q2"], "doc_id": ["a", "b"], "rank": [1, 1]})
    >>> queries = pl.DataFrame({"query_id": ["q1", "q2"], "segment": ["head", "tail"]})
    >>> r, _ = with_query_attributes(run, None, queries, Options.build(by="segment"))
    >>> r.collect()["segment"].to_list()
    ['head', 'tail']
    """
    rschema = run.collect_schema().names()
    qschema = [] if qrels is None else qrels.collect_schema().names()
    table: pl.LazyFrame | None = None
    tkey = None
    if queries is not None:
        table = to_lazy(queries, "queries")[0]
        tnames = table.collect_schema().names()
        tkey = _key(tnames, [opts.query_col, opts.qrels_columns[0], "query_id"])
        if tkey is None:
            err = ColumnNotFoundError.from_missing(
                role="query_id", missing=opts.query_col, available=tnames, frame="queries",
                parameter="query_col",
            )  # fmt: skip
            raise err
    for col in (b for b in opts.by if b not in rschema):
        if table is not None and tkey is not None and col in table.collect_schema():
            attrs = _attribute_table(table, tkey, [col], "queries table")
            run = _join(run, opts.query_col, attrs, tkey)
            if qrels is not None and col not in qschema:
                qrels = _join(qrels, opts.qrels_columns[0], attrs, tkey)
        elif qrels is not None and col in qschema:
            qq = opts.qrels_columns[0]
            run = _join(run, opts.query_col, _attribute_table(qrels, qq, [col], "qrels"), qq)
        else:
            avail = [*rschema, *qschema, *([] if table is None else table.collect_schema().names())]
            near = closest(col, avail)
            msg = f"The by column {col!r} of {where} is not in the run, the qrels or the queries table."
            msg += f" Hint: did you mean {near[0]!r}?" if near else " Hint: give a queries table: queries=..."
            raise ColumnNotFoundError(msg)
    return run, qrels
