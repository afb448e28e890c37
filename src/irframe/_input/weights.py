"""Query weights (``weights=``): where they come from, validated once, as one small table.

A weight is a query attribute, like a segment: one value per query (its traffic, or the
``segment_weight`` of :func:`irframe.sample_queries`).  The rule, written here once for
``evaluate`` (every backend that takes weights), ``compare`` and ``check``:

* the ``weights`` column is read from the **queries table** when it has it, else from the
  **qrels** (one value per query, as for a ``by`` column);
* a weights column in the **run** is refused: a judged query the run does not return
  (scored 0 under ``missing="zero"``) would have no weight, and a run column may vary
  within a query.  When the run has the column as well as the queries table or the
  qrels, which one is meant is ambiguous: refused too, naming both;
* every weight is a finite number >= 0 (a null, NaN, negative or infinite weight raises,
  naming the query); a query of weight 0 counts in ``n_queries`` but not in the means;
* every judged query (of the qrels; without qrels, of the run) must have a weight
  (:func:`weights_for`).

The table is keyed by the query id as text (:data:`~irframe._input.queries.KEY`) and
holds the weight as Float64 in :data:`WEIGHT`; :func:`attach` joins it onto per-query
rows, where :mod:`irframe._engine.aggregate` finds it (weighted partial sums).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from irframe._input.options import Options
from irframe._input.queries import KEY, QrelsRows, _queries_key, join_attributes, repeated_query
from irframe.exceptions import ColumnNotFoundError, InvalidDataError, InvalidParameterError, closest

__all__ = ["SUM_WEIGHTS", "WEIGHT", "attach", "refuse", "weight_table", "weights_for"]

WEIGHT = "__irframe_weight"  # the weight on per-query rows (Float64)
SUM_WEIGHTS = "sum_weights"  # the means' column: the weights summed over the counted queries


def _source(
    name: str, run_names: Sequence[str], qrels_names: Sequence[str] | None, tnames: Sequence[str], where: str
) -> str:
    """``"queries"`` or ``"qrels"``: where the weights column is read (see the module)."""
    elsewhere = [f for f, names in (("queries table", tnames), ("qrels", qrels_names or [])) if name in names]
    if name in run_names:
        if elsewhere:
            msg = (
                f"The weights column {name!r} of {where} is in the run and in the {elsewhere[0]}: "
                "which one weights the queries is ambiguous. Hint: drop the column from the run "
                f"(run.drop({name!r})); weights are read from the queries table or the qrels."
            )
        else:
            msg = (
                f"The weights column {name!r} of {where} is a column of the run; weights are query "
                "attributes, read from the queries table (or the qrels), so that a judged query the "
                "run does not return has its weight too. Hint: pass "
                f"queries=run.select(query_col, {name!r}).unique() and drop it from the run."
            )
        raise InvalidParameterError(msg)
    if elsewhere:
        return "queries" if elsewhere[0] == "queries table" else "qrels"
    near = closest(name, [*tnames, *(qrels_names or [])])
    msg = f"The weights column {name!r} of {where} is not in the queries table or the qrels."
    msg += f" Hint: did you mean {near[0]!r}?" if near else " Hint: give a queries table: queries=..."
    raise ColumnNotFoundError(msg)


def _validated(table: pl.DataFrame, name: str, frame: str) -> pl.DataFrame:
    """(KEY, WEIGHT): one finite weight >= 0 per query, or an error naming the query."""
    q = repeated_query(table)
    if q is not None:
        msg = (
            f"weights={name!r}: query {q!r} has several weights in the {frame}; a weight is a query "
            "attribute with one value per query. Hint: keep one row per query."
        )
        raise InvalidDataError(msg)
    dtype = table.schema[WEIGHT]
    if not (dtype.is_numeric() or dtype == pl.Null):
        msg = f"The weights column {name!r} of the {frame} holds {dtype}, not numbers. Hint: cast it."
        raise InvalidDataError(msg)
    table = table.with_columns(pl.col(WEIGHT).cast(pl.Float64))
    w = pl.col(WEIGHT)
    bad = table.filter(w.is_null() | w.is_nan() | w.is_infinite() | (w < 0))
    if bad.height:
        q, value = bad.row(0)
        msg = (
            f"weights={name!r}: {bad.height} queries have a null, NaN, negative or infinite weight "
            f"in the {frame} (e.g. query {q!r}: {value}). Hint: weights are numbers >= 0 "
            "(0 leaves a query out of the means)."
        )
        raise InvalidDataError(msg)
    return table


def weight_table(
    run_names: Sequence[str],
    qrels_names: Sequence[str] | None,
    queries: Any,
    opts: Options,
    *,
    qrels_rows: QrelsRows | None = None,
    where: str = "evaluate",
) -> pl.DataFrame:
    """The weights of ``opts.weights`` as (:data:`KEY`, :data:`WEIGHT`), one row per query.

    ``queries`` is a pandas or polars queries table (or None); ``qrels_rows(columns)``
    returns the qrels' rows of those columns (as for
    :func:`~irframe._input.queries.query_attributes`).

    Examples
    --------
    >>> queries = pl.DataFrame({"query_id": ["q1", "q2"], "traffic": [30, 10]})
    >>> weight_table(["query_id", "doc_id", "rank"], None, queries, Options.build(weights="traffic")).rows()
    [('q1', 30.0), ('q2', 10.0)]
    """
    name = opts.weights
    if name is None:
        msg = "weight_table needs opts.weights"
        raise InvalidParameterError(msg)
    table, tkey = (None, None) if queries is None else _queries_key(queries, opts)
    tnames = [] if table is None else table.collect_schema().names()
    source = _source(name, run_names, qrels_names, tnames, where)
    if source == "queries" and table is not None and tkey is not None:
        lf, key, frame = table, tkey, "queries table"
    elif qrels_rows is not None:
        qq = opts.qrels_columns[0]
        lf, key, frame = qrels_rows([qq, name]).lazy(), qq, "qrels"
    else:  # (the qrels have the column but cannot be read: no rows function given)
        msg = f"The weights column {name!r} of {where} is in the qrels, which cannot be read here."
        raise InvalidParameterError(msg)
    rows = lf.select(pl.col(key).cast(pl.String).alias(KEY), pl.col(name).alias(WEIGHT)).unique()
    return _validated(rows.collect().sort(KEY), name, frame)


def attach(per_query: Any, query_col: str, table: pl.DataFrame) -> Any:
    """``per_query`` (a polars DataFrame or LazyFrame) with its queries' :data:`WEIGHT`.

    Examples
    --------
    >>> table = pl.DataFrame({KEY: ["q1", "q2"], WEIGHT: [3.0, 1.0]})
    >>> attach(pl.DataFrame({"query_id": ["q2", "q3"]}), "query_id", table)[WEIGHT].to_list()
    [1.0, None]
    """
    joined = join_attributes(per_query.lazy(), query_col, table)
    return joined.collect() if isinstance(per_query, pl.DataFrame) else joined


def _covered(table: pl.DataFrame, ids: pl.Series, name: str, of: str) -> None:
    """Raise when a query of ``ids`` (the judged ones) has no weight in ``table``."""
    lacking = ids.filter(~ids.is_in(table.get_column(KEY).implode()))
    if lacking.len():
        msg = (
            f"weights={name!r}: {lacking.len()} queries of the {of} have no weight, e.g. "
            f"{lacking.sort()[0]!r}. Hint: give every judged query a weight (0 leaves it out of "
            "the means)."
        )
        raise InvalidDataError(msg)


def weights_for(
    run: pl.LazyFrame, qrels: Any, queries: Any, opts: Options, where: str = "evaluate"
) -> pl.DataFrame:
    """:func:`weight_table` for a polars run and the qrels as given (any frame or None),
    checked to weigh every judged query: every query of the qrels (without qrels, of
    the run).

    Examples
    --------
    >>> run = pl.LazyFrame({"query_id": ["q1", "q2"], "doc_id": ["a", "b"], "relevance": [1, 0]})
    >>> weights_for(run, None, pl.DataFrame({"query_id": ["q1"], "w": [2]}), Options.build(weights="w"))
    Traceback (most recent call last):
    ...
    irframe.exceptions.InvalidDataError: weights='w': 1 queries of the run have no weight, e.g. 'q2'. ...
    """
    from irframe._input.frames import to_lazy

    name = str(opts.weights)
    qrels_lf = None if qrels is None else to_lazy(qrels, "qrels")[0]
    qnames = None if qrels_lf is None else qrels_lf.collect_schema().names()
    opts = opts.detect(run.collect_schema().names(), where, qrels_schema=qnames)
    rows = None if qrels_lf is None else qrels_lf.select
    table = weight_table(run.collect_schema().names(), qnames, queries, opts, qrels_rows=rows, where=where)
    source, col = (run, opts.query_col) if qrels_lf is None else (qrels_lf, opts.qrels_columns[0])
    if col in source.collect_schema().names():  # (else the engine names the missing column)
        ids = source.select(pl.col(col).cast(pl.String).unique().drop_nulls()).collect().to_series()
        _covered(table, ids, name, "run" if qrels_lf is None else "qrels")
    return table


def refuse(opts: Options, backend: str) -> None:
    """Raise when a backend that does not weigh queries is asked to (``weights=``).

    Examples
    --------
    >>> refuse(Options.build(weights="traffic"), "toy")
    Traceback (most recent call last):
    ...
    irframe.exceptions.InvalidParameterError: weights= is not supported on the toy backend yet ...
    """
    if opts.weights is not None:
        msg = (
            f"weights= is not supported on the {backend} backend yet (the in-process, Dask, "
            "Spark and out-of-core backends take it). Hint: evaluate per query there "
            "(per_query=True) and weigh the means with the queries table."
        )
        raise InvalidParameterError(msg)
