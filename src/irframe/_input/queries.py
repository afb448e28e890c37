"""Query attributes: ``by`` columns that describe queries (segment, query type...).

A ``by`` column the run lacks is looked up by query id in the ``queries`` table, else in
the qrels, and copied onto the run rows (and onto the qrels, so that the engine treats it
as a query attribute rather than a partition of the run).  Each query needs one value.

The rule is written once, in :func:`query_attributes`: which columns come from where,
validated, as a small polars table keyed by query id.  Every backend joins that table:
the in-process one with :func:`with_query_attributes`, Dask, Spark and the out-of-core
backend on their own frames (:func:`join_attributes` on polars pieces).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import polars as pl

from irframe._input.frames import to_lazy
from irframe._input.options import Options
from irframe.exceptions import ColumnNotFoundError, InvalidDataError, closest

F = TypeVar("F")  # a backend's frame type (polars LazyFrame, Spark DataFrame)

__all__ = ["KEY", "QueryAttributes", "join_attributes", "query_attributes", "with_query_attributes"]

KEY = "__irframe_attr_query"  # the attribute table's query id (as a string)

QrelsRows = Callable[[list[str]], pl.LazyFrame | pl.DataFrame]


@dataclass(frozen=True)
class QueryAttributes:
    """The ``by`` columns the run lacks, one row per query.

    ``table`` holds :data:`KEY` (the query id as a string) and every attribute column;
    all of them go onto the run (``run_cols``), those taken from the queries table that
    the qrels lack go onto the qrels too (``qrels_cols``).
    """

    table: pl.DataFrame
    run_cols: tuple[str, ...]
    qrels_cols: tuple[str, ...]

    def for_run(self) -> pl.DataFrame:
        """(KEY, attributes the run gets)."""
        return self.table.select(KEY, *self.run_cols)

    def for_qrels(self) -> pl.DataFrame | None:
        """(KEY, attributes the qrels get), or None when the qrels get none."""
        return self.table.select(KEY, *self.qrels_cols) if self.qrels_cols else None

    def attach(
        self, run: F, qrels: F | None, opts: Options, join: Callable[[F, str, pl.DataFrame], F]
    ) -> tuple[F, F | None]:
        """``run`` and ``qrels`` with their attributes, each joined on by
        ``join(frame, query_column, table)`` (a backend's left join by query id)."""
        run = join(run, opts.query_col, self.for_run())
        to_qrels = self.for_qrels()
        if qrels is not None and to_qrels is not None:
            qrels = join(qrels, opts.qrels_columns[0], to_qrels)
        return run, qrels


def _key(schema: Sequence[str], candidates: Sequence[str]) -> str | None:
    return next((c for c in candidates if c in schema), None)


def repeated_query(table: pl.DataFrame) -> object | None:
    """The first query id ``table``'s ``KEY`` column holds more than once, else None."""
    dup = table.get_column(KEY).is_duplicated()
    return table.filter(dup).item(0, KEY) if dup.any() else None


def _attribute_table(source: pl.LazyFrame, key: str, cols: list[str], frame: str) -> pl.DataFrame:
    """(KEY, *cols) with one row per query; several values for a query raise."""
    table = source.select(pl.col(key).cast(pl.String).alias(KEY), *cols).unique().collect()
    q = repeated_query(table)
    if q is not None:
        named = cols[0] if len(cols) == 1 else list(cols)
        msg = (
            f"by={named!r}: query {q!r} has several values in the {frame}; a query attribute "
            "needs one value per query. Hint: fix the table, or give a queries table (queries=...)."
        )
        raise InvalidDataError(msg)
    return table


def join_attributes(lf: pl.LazyFrame, key: str, table: pl.DataFrame) -> pl.LazyFrame:
    """Left-join an attribute table (:data:`KEY` as strings) onto ``lf`` by query id,
    cast to ``lf``'s id dtype; ``lf``'s rows keep their order.

    Examples
    --------
    >>> lf = pl.LazyFrame({"qid": [2, 1, 3]})
    >>> table = pl.DataFrame({KEY: ["1", "2"], "segment": ["head", "tail"]})
    >>> join_attributes(lf, "qid", table).collect()["segment"].to_list()
    ['tail', 'head', None]
    """
    dtype = lf.collect_schema()[key]
    right = table.lazy().rename({KEY: key}).with_columns(pl.col(key).cast(dtype, strict=False))
    return lf.join(right, on=key, how="left", maintain_order="left")


def _queries_key(queries: Any, opts: Options) -> tuple[pl.LazyFrame, str]:
    """The queries table as a lazy frame and its query id column."""
    table = to_lazy(queries, "queries")[0]
    tnames = table.collect_schema().names()
    tkey = _key(tnames, [opts.query_col, opts.qrels_columns[0], "query_id"])
    if tkey is None:
        err = ColumnNotFoundError.from_missing(
            role="query_id", missing=opts.query_col, available=tnames, frame="queries",
            parameter="query_col",
        )  # fmt: skip
        raise err
    return table, tkey


def query_attributes(
    run_names: Sequence[str],
    qrels_names: Sequence[str] | None,
    queries: Any,
    opts: Options,
    *,
    qrels_rows: QrelsRows | None = None,
    where: str = "evaluate",
) -> QueryAttributes | None:
    """Which ``by`` columns the run lacks come from where, validated, as one small table.

    A column is taken from ``queries`` (a pandas or polars frame keyed by ``query_id``,
    the run's or the qrels' query column) when it has it, else from the qrels (read
    through ``qrels_rows(columns)``, which returns the qrels' rows of those columns: a
    backend may return them already de-duplicated).  A query with several values raises
    :class:`~irframe.exceptions.InvalidDataError` naming it; a column found nowhere raises
    :class:`~irframe.exceptions.ColumnNotFoundError` with a did-you-mean.  ``queries`` is
    checked for its query id column whenever it is given; None comes back when the run
    lacks no ``by`` column (``queries`` is then unused).

    Examples
    --------
    >>> queries = pl.DataFrame({"query_id": ["q1", "q2"], "segment": ["head", "tail"]})
    >>> attrs = query_attributes(["query_id", "doc_id", "rank"], None, queries,
    ...                          Options.build(by="segment"))
    >>> attrs.run_cols, attrs.table.sort(KEY).rows()
    (('segment',), [('q1', 'head'), ('q2', 'tail')])
    """
    table, tkey = (None, None) if queries is None else _queries_key(queries, opts)
    tnames = [] if table is None else table.collect_schema().names()
    qnames = [] if qrels_names is None else list(qrels_names)
    qq = opts.qrels_columns[0]
    found: pl.DataFrame | None = None
    run_cols: list[str] = []
    qrels_cols: list[str] = []
    for col in dict.fromkeys(b for b in opts.by if b not in run_names):
        if table is not None and tkey is not None and col in tnames:
            attrs = _attribute_table(table, tkey, [col], "queries table")
            if qrels_names is not None and col not in qnames:
                qrels_cols.append(col)
        elif qrels_rows is not None and col in qnames:
            attrs = _attribute_table(qrels_rows([qq, col]).lazy(), qq, [col], "qrels")
        else:
            near = closest(col, [*run_names, *qnames, *tnames])
            msg = f"The by column {col!r} of {where} is not in the run, the qrels or the queries table."
            msg += f" Hint: did you mean {near[0]!r}?" if near else " Hint: give a queries table: queries=..."
            raise ColumnNotFoundError(msg)
        run_cols.append(col)
        found = attrs if found is None else found.join(attrs, on=KEY, how="full", coalesce=True)
    if found is None:
        return None
    return QueryAttributes(found, tuple(run_cols), tuple(qrels_cols))


def with_query_attributes(
    run: pl.LazyFrame,
    qrels: pl.LazyFrame | None,
    queries: Any,
    opts: Options,
    where: str = "evaluate",
    *,
    run_attributes: bool = False,
) -> tuple[pl.LazyFrame, pl.LazyFrame | None]:
    """Copy the ``by`` columns the run lacks from ``queries`` (else the qrels) onto both.

    With ``run_attributes`` (verbs whose ``by`` are query attributes only: compare, check),
    a ``by`` column the run has and the qrels lack is a query attribute too: one value per
    query (else refused, in the same words), copied onto the qrels.

    Examples
    --------
    >>> run = pl.LazyFrame({"query_id": ["q1", "q2"], "doc_id": ["a", "b"], "rank": [1, 1]})
    >>> queries = pl.DataFrame({"query_id": ["q1", "q2"], "segment": ["head", "tail"]})
    >>> r, _ = with_query_attributes(run, None, queries, Options.build(by="segment"))
    >>> r.collect()["segment"].to_list()
    ['head', 'tail']
    """
    qnames = None if qrels is None else qrels.collect_schema().names()
    rows = None if qrels is None else qrels.select
    names = run.collect_schema().names()
    attrs = query_attributes(names, qnames, queries, opts, qrels_rows=rows, where=where)
    if attrs is not None:
        run, qrels = attrs.attach(run, qrels, opts, join_attributes)
    own = [b for b in dict.fromkeys(opts.by) if b in names and qnames is not None and b not in qnames]
    if run_attributes and qrels is not None and own:
        table = _attribute_table(run, opts.query_col, own, "runs")
        qrels = join_attributes(qrels, opts.qrels_columns[0], table)
    return run, qrels
