"""What to judge next: the unjudged documents of the systems' top ``depth``, most useful first.

The priority of a pooled (query, document) pair is the sum, over the systems that rank
it in their top ``depth``, of ``1 / log2(position + 1)``: the nDCG discount its gain
would carry in each ranking if it were judged relevant, so a document many systems rank
high comes first.  Ties are broken by more systems, then a better best position, then
the query (natural order) and the doc id (text order): the same pool gives the same
sheet, whatever the order of the rows or of the runs.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import polars as pl

from irframe._engine.repeats import warn_dropped
from irframe._golden._ids import examples, judgment_order
from irframe._golden.ranked import coverage, ranked_top
from irframe._input.frames import Origin, from_lazy, to_lazy
from irframe._input.keys import DOC_KEY, GRADE, POSITION, QUERY_KEY, SYSTEM
from irframe._input.options import Options
from irframe._input.runs import stack_runs
from irframe.exceptions import ColumnNotFoundError, DuplicateRowsError, InvalidParameterError

__all__ = ["Pool", "pool", "priority_order"]

PoolSort = Literal["priority", "query"]
_SORTS = ("priority", "query")
_NOT_POOL_OPTIONS = ("by", "missing")


def priority_order(sort: PoolSort = "priority") -> tuple[list[pl.Expr], list[bool]]:
    """THE order of the pool's rows, as sort expressions and ``descending`` flags.

    ``"priority"``: priority descending, then ``n_systems`` descending, ``best_rank``
    ascending, query (natural order), doc id (text).  ``"query"``: the query first (natural
    order), then the same.  The frame needs :data:`QUERY_KEY` and :data:`DOC_KEY`.

    Examples
    --------
    >>> import polars as pl
    >>> df = pl.DataFrame({"priority": [1.0, 1.5, 1.0], "n_systems": [1, 2, 1], "best_rank": [1, 3, 1],
    ...                    QUERY_KEY: ["q10", "q1", "q2"], DOC_KEY: ["a", "b", "c"]})
    >>> by, desc = priority_order()
    >>> df.sort(by, descending=desc)[QUERY_KEY].to_list()
    ['q1', 'q2', 'q10']
    """
    order = judgment_order()
    query, doc = order[:-1], order[-1]
    rest = [pl.col("priority"), pl.col("n_systems"), pl.col("best_rank")]
    if sort == "query":
        return [*query, *rest, doc], [False] * len(query) + [True, True, False, False]
    return [*rest, *query, doc], [True, True, False] + [False] * len(query) + [False]


@dataclass(frozen=True)
class Pool:
    """What to judge next: the result of :func:`pool`.

    Attributes
    ----------
    to_judge : frame
        One row per unjudged pooled (query, document) pair, most useful first (see
        :func:`pool`): the query and doc id columns, the text columns asked for,
        ``priority``, ``n_systems``, ``best_rank``.
    judged : frame
        The pooled pairs already judged, in the same order, with their grade (``relevance``,
        or the qrels' relevance column name): counted, never silently dropped.
    coverage : frame
        Per (system, query): ``n_top`` (documents in the top ``depth``), ``n_judged``,
        ``n_unjudged`` and ``judged`` (``n_judged / n_top``, evaluate's ``Judged@depth``).
    queries : frame
        Per query: ``n_systems`` (that rank any document for it), ``n_pooled``,
        ``n_judged`` and ``n_to_judge`` pairs, and with ``queries=``/``documents=`` the
        pooled pairs that found no query text (``n_no_query_text``) or document text
        (``n_no_doc_text``).
    depth : int
    systems : tuple of str
        In input order.
    n_pooled, n_judged, n_to_judge, n_queries : int
        Distinct pairs in the union of the tops; already judged; left to judge; queries.
    query_col, doc_col : str
        The id column names (the runs').
    n_left_out : int
        With a ``queries`` table (and ``all_queries=False``): the runs' queries it does not
        list, left out of the pool.
    unanswered : tuple of str
        The ``queries`` table's queries that no run ranks any document for (nothing to pool).

    Examples
    --------
    >>> import pathlib, tempfile, polars as pl, irframe
    >>> run = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"], "rank": [1, 2, 1]})
    >>> p = irframe.pool(run, pl.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "relevance": [2]}),
    ...                  system_col=None)
    >>> p.n_pooled, p.n_judged, p.n_to_judge, p.judged.rows()
    (3, 1, 2, [('q1', 'a', 1.0, 1, 1, 2)])
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "to_judge.csv"
    >>> p.write_sheet(out, judge=False, timestamp=False)
    >>> print(out.read_text(), end="")
    query_id,doc_id,grade,priority,n_systems,best_rank
    q2,c,,1.0,1,1
    q1,b,,0.630929753571457...,1,2
    """

    to_judge: Any
    judged: Any
    coverage: Any
    queries: Any
    depth: int
    systems: tuple[str, ...]
    n_pooled: int
    n_judged: int
    n_to_judge: int
    n_queries: int
    query_col: str = "query_id"
    doc_col: str = "doc_id"
    n_left_out: int = 0
    unanswered: tuple[str, ...] = ()

    def __str__(self) -> str:
        scope = ""
        if self.n_left_out:
            scope = f" (the queries table's; {self.n_left_out} other run queries left out)"
        if self.unanswered:
            scope += (
                f"; {len(self.unanswered)} of the table's queries have no ranking in any run "
                f"(e.g. {self.unanswered[0]!r})"
            )
        return (
            f"pool at depth {self.depth} of {len(self.systems)} systems over {self.n_queries} queries"
            f"{scope}: {self.n_pooled} pairs, {self.n_judged} already judged, {self.n_to_judge} to judge"
        )

    def write_sheet(
        self,
        path: str | os.PathLike[str],
        *,
        format: str | None = None,
        judge: bool = True,
        timestamp: bool = True,
    ) -> None:
        """Write :attr:`to_judge` as a judging sheet: see :func:`irframe.io.write_judging_sheet`."""
        from irframe.io.sheets import write_judging_sheet

        write_judging_sheet(
            self.to_judge, path, format=format, query_col=self.query_col, doc_col=self.doc_col,
            judge_col="judge" if judge else None, timestamp_col="judged_at" if timestamp else None,
        )  # fmt: skip


def _check_args(depth: object, sort: object, column_kwargs: dict[str, Any]) -> None:
    if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
        raise InvalidParameterError.for_value("depth", "pool", "an int >= 1", depth)
    if sort not in _SORTS:
        raise InvalidParameterError.for_value("sort", "pool", "one of 'priority', 'query'", sort)
    for key in _NOT_POOL_OPTIONS:
        if key in column_kwargs:
            msg = f"pool() takes no {key}= (it pools whole rankings per query); got {column_kwargs[key]!r}."
            raise InvalidParameterError(msg)


def _pairs(top: pl.DataFrame, query_col: str, doc_col: str) -> pl.DataFrame:
    """One row per pooled (query, document): n_systems, best_rank, priority, grade."""
    discount = 1.0 / (pl.col(POSITION).cast(pl.Float64) + 1.0).log(2)
    return top.group_by(QUERY_KEY, DOC_KEY).agg(
        pl.col(query_col).first(),
        pl.col(doc_col).first(),
        discount.sort().sum().alias("priority"),  # sorted terms: the same sum in any row order
        pl.len().cast(pl.Int64).alias("n_systems"),
        pl.col(POSITION).min().alias("best_rank"),
        pl.col(GRADE).first(),
    )


def _texts(
    table: Any, *, id_col: str, text_cols: str | Sequence[str], prefix: str, ids: pl.DataFrame, role: str
) -> pl.DataFrame:
    """The text columns of ``table`` for the pooled ``ids`` (one column :data:`QUERY_KEY`
    or :data:`DOC_KEY`), renamed ``prefix + column``; an id given twice raises."""
    names = [text_cols] if isinstance(text_cols, str) else list(text_cols)
    frame = {"query": "queries", "doc": "documents"}[role]
    lf, _ = to_lazy(table, role=f"{frame} table")
    schema = lf.collect_schema()
    param = f"{role}_text_col"
    for col, what, parameter in [(id_col, f"{role} id", f"{role}_col"), *[(c, "text", param) for c in names]]:
        if col not in schema:
            raise ColumnNotFoundError.from_missing(
                role=what, missing=col, available=list(schema), frame=frame, parameter=parameter
            )
    key = ids.columns[0]
    found = (
        lf.select(pl.col(id_col).cast(pl.String).alias(key), *[pl.col(c).alias(prefix + c) for c in names])
        .join(ids.lazy(), on=key, how="semi")
        .collect()
    )
    dup = found.filter(pl.col(key).is_duplicated()).get_column(key).unique().sort()
    if dup.len():
        msg = (
            f"The {frame} table has several rows for {role} ids "
            f"{examples([(d,) for d in dup.head(5)], dup.len())} "
            f"(column {id_col!r}). Hint: keep one row per {role}, e.g. df.unique(subset=[{id_col!r}])."
        )
        raise DuplicateRowsError(msg)
    return found


def _with_texts(
    pairs: pl.DataFrame,
    *,
    queries: Any,
    documents: Any,
    opts: Options,
    query_text_col: Any,
    doc_text_col: Any,
) -> tuple[pl.DataFrame, list[str], list[str]]:
    """The pairs with the query and document texts joined on; the names of the text columns."""
    q_cols: list[str] = []
    d_cols: list[str] = []
    if queries is not None:
        t = _texts(
            queries, id_col=opts.query_col, text_cols=query_text_col, prefix="query_",
            ids=pairs.select(QUERY_KEY).unique(), role="query",
        )  # fmt: skip
        q_cols = t.columns[1:]
        pairs = pairs.join(t, on=QUERY_KEY, how="left")
    if documents is not None:
        t = _texts(
            documents, id_col=opts.doc_col, text_cols=doc_text_col, prefix="doc_",
            ids=pairs.select(DOC_KEY).unique(), role="doc",
        )  # fmt: skip
        d_cols = t.columns[1:]
        pairs = pairs.join(t, on=DOC_KEY, how="left")
    return pairs, q_cols, d_cols


def _per_query(
    top: pl.DataFrame, pairs: pl.DataFrame, query_col: str, q_cols: list[str], d_cols: list[str]
) -> pl.DataFrame:
    missing = []
    if q_cols:
        missing.append(pl.col(q_cols[0]).is_null().sum().cast(pl.Int64).alias("n_no_query_text"))
    if d_cols:
        missing.append(pl.col(d_cols[0]).is_null().sum().cast(pl.Int64).alias("n_no_doc_text"))
    per_pair = pairs.group_by(QUERY_KEY).agg(
        pl.len().cast(pl.Int64).alias("n_pooled"),
        pl.col(GRADE).is_not_null().sum().cast(pl.Int64).alias("n_judged"),
        *missing,
    )
    systems = top.group_by(QUERY_KEY).agg(
        pl.col(query_col).first(), pl.col(SYSTEM).n_unique().cast(pl.Int64).alias("n_systems")
    )
    out = systems.join(per_pair, on=QUERY_KEY).with_columns(
        (pl.col("n_pooled") - pl.col("n_judged")).alias("n_to_judge")
    )
    tail = [c for c in ("n_no_query_text", "n_no_doc_text") if c in out.columns]
    return out.sort(judgment_order()[:-1]).select(
        query_col, "n_systems", "n_pooled", "n_judged", "n_to_judge", *tail
    )


def _coverage(
    top: pl.DataFrame, systems: list[str], system_name: str, query_col: str, doc_col: str
) -> pl.DataFrame:
    index = pl.DataFrame({SYSTEM: systems, "__ir_si": list(range(len(systems)))})
    keyed = coverage(top, query_col, doc_col).with_columns(pl.col(query_col).cast(pl.String).alias(QUERY_KEY))
    out = keyed.join(index, on=SYSTEM).sort(["__ir_si", *judgment_order()[:-1]])
    return out.drop("__ir_si", QUERY_KEY).rename({SYSTEM: system_name})


def pool(
    runs: Any,
    qrels: Any = None,
    depth: int = 10,
    *,
    queries: Any = None,
    documents: Any = None,
    query_text_col: str | Sequence[str] = "text",
    doc_text_col: str | Sequence[str] = "text",
    sort: PoolSort = "priority",
    system_col: str | None = "system",
    all_queries: bool = False,
    **column_kwargs: Any,
) -> Pool:
    """What to judge next: the unjudged (query, document) pairs of the systems' top ``depth``.

    The pool is the union, over the systems, of each query's top ``depth`` documents
    (ranked as :func:`irframe.evaluate` ranks them: the rank column ascending, else the
    score descending, ties by doc id descending as trec_eval).  Each pair gets

    * ``n_systems``: how many systems rank it in their top ``depth``;
    * ``best_rank``: its best (smallest) 1-based position among them, in the ranking
      order (not the rank column's value);
    * ``priority``: the sum over those systems of ``1 / log2(position + 1)``, the nDCG
      discount its gain would carry in each ranking if it were judged relevant: how far
      its judgment can move the systems' nDCG@depth.

    The pairs not judged in ``qrels`` are listed most useful first: priority descending,
    then ``n_systems`` descending, ``best_rank`` ascending, query (natural order: ``q2``
    before ``q10``), doc id (text order).  The judged ones are counted and listed apart
    (:attr:`Pool.judged`), never silently dropped.

    Parameters
    ----------
    runs : dict of name -> frame, or one stacked frame
        The systems' runs: a dict of frames by system name, or one frame with a
        ``system_col`` column; with ``system_col=None``, one frame is one run.
    qrels : frame, optional
        The judgments so far (query, doc, relevance); ``None``: nothing judged yet.
    depth : int, default 10
        How many top documents of each ranking are pooled.
    queries : frame, optional
        The queries to pool (a sample from :func:`irframe.sample_queries`, a queries table):
        the run's query id column, and ``query_text_col`` copied as ``query_<column>``
        (``query_text``; a table without the default ``text`` column gives no text).  The
        pool is restricted to its queries: the runs' other queries are left out and counted
        (:attr:`Pool.n_left_out`, in the summary), and its queries no run answers are listed
        (:attr:`Pool.unanswered`).
    documents : frame, optional
        Document texts: the run's doc id column and ``doc_text_col``, copied as
        ``doc_<column>`` (``doc_text``).  Only the pooled documents are read from it.
    query_text_col, doc_text_col : str or list of str, default "text"
        The columns of ``queries`` / ``documents`` to copy (e.g. ``["title", "url"]``).
    sort : {"priority", "query"}, default "priority"
        The whole pool by priority, or query by query (natural order), by priority within.
    system_col : str or None, default "system"
        The system column of a stacked frame (and of :attr:`Pool.coverage`).
    all_queries : bool, default False
        Pool every query of the runs even with a ``queries`` table, which then only gives
        texts (its queries without text are counted per query, ``n_no_query_text``).
    **column_kwargs
        Column names and rules as for :func:`irframe.evaluate`: ``query_col``,
        ``doc_col``, ``rank_col``, ``score_col``, ``relevance_col``, ``qrels_query_col``,
        ``qrels_doc_col``, ``qrels_relevance_col``, ``columns``, ``order`` and
        ``duplicates`` (``"first"`` keeps the best-ranked row of a repeated document).

    Returns
    -------
    Pool
        ``to_judge``, ``judged``, ``coverage`` and ``queries`` frames of the runs' type
        (pandas, polars, lazy: the first run's), and the counts.

    Raises
    ------
    IrFrameError
        A missing column, null ids or scores, a document twice in a ranking, a qrels pair
        judged twice, a query or document id twice in the text tables (each named).

    Examples
    --------
    >>> import polars as pl, irframe
    >>> runs = {
    ...     "bm25": pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "b", "c"], "rank": [1, 2, 3]}),
    ...     "dense": pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["b", "d", "a"], "rank": [1, 2, 3]}),
    ... }
    >>> qrels = pl.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "relevance": [1]})
    >>> p = irframe.pool(runs, qrels, depth=2)
    >>> print(p)
    pool at depth 2 of 2 systems over 1 queries: 3 pairs, 1 already judged, 2 to judge
    >>> p.to_judge
    shape: (2, 5)
    ┌──────────┬────────┬──────────┬───────────┬───────────┐
    │ query_id ┆ doc_id ┆ priority ┆ n_systems ┆ best_rank │
    │ ---      ┆ ---    ┆ ---      ┆ ---       ┆ ---       │
    │ str      ┆ str    ┆ f64      ┆ i64       ┆ i64       │
    ╞══════════╪════════╪══════════╪═══════════╪═══════════╡
    │ q1       ┆ b      ┆ 1.63093  ┆ 2         ┆ 1         │
    │ q1       ┆ d      ┆ 0.63093  ┆ 1         ┆ 2         │
    └──────────┴────────┴──────────┴───────────┴───────────┘
    >>> p.coverage.rows()
    [('bm25', 'q1', 2, 1, 1, 0.5), ('dense', 'q1', 2, 0, 2, 0.0)]
    """
    _check_args(depth, sort, column_kwargs)
    if not isinstance(all_queries, bool):
        raise InvalidParameterError.for_value("all_queries", "pool", "a bool", all_queries)
    stack = stack_runs(runs, system_col, "pool", single=True)
    stacked, origin, systems = stack.lf, stack.origin, stack.systems
    qrels_lf = None if qrels is None else to_lazy(qrels, role="qrels")[0]  # converted once
    qnames = None if qrels_lf is None else qrels_lf.collect_schema().names()
    opts = Options.build("pool", **column_kwargs).detect(
        list(stacked.collect_schema()), "pool", qrels_schema=qnames
    )
    scope = _Scope()
    if queries is not None and not all_queries:
        stacked, scope = _restricted(stacked, queries, opts.query_col)
    if queries is not None and query_text_col == "text":  # the default: a table without texts has none
        query_text_col = [
            c for c in ["text"] if c in to_lazy(queries, role="queries table")[0].collect_schema()
        ]
    top = ranked_top(stacked, qrels_lf, opts, depth)
    q, d = opts.query_col, opts.doc_col
    if opts.duplicates == "first":  # what the rule dropped, said as evaluate says it
        roles = [c for c in (opts.rank_col, opts.score_col, opts.relevance_col) if c is not None]
        warn_dropped(stacked, [SYSTEM, q], d, roles)
    pairs, q_cols, d_cols = _with_texts(
        _pairs(top, q, d), queries=queries, documents=documents, opts=opts,
        query_text_col=query_text_col, doc_text_col=doc_text_col,
    )  # fmt: skip
    by, desc = priority_order(sort)
    pairs = pairs.sort(by, descending=desc)
    head = [q, *q_cols, d, *d_cols, "priority", "n_systems", "best_rank"]
    to_judge = pairs.filter(pl.col(GRADE).is_null()).select(head)
    judged = pairs.filter(pl.col(GRADE).is_not_null()).select(*head, _grade(qrels_lf, opts))
    return _result(
        origin, to_judge=to_judge, judged=judged, cover=_coverage(top, systems, system_col or "system", q, d),
        per_query=_per_query(top, pairs, q, q_cols, d_cols), depth=depth, systems=systems,
        query_col=q, doc_col=d, scope=scope,
    )  # fmt: skip


@dataclass(frozen=True)
class _Scope:
    """What a queries table left out of the pool: the runs' other queries (a count) and its
    own queries that no run answers."""

    n_left_out: int = 0
    unanswered: tuple[str, ...] = ()


def _restricted(stacked: pl.LazyFrame, queries: Any, query_col: str) -> tuple[pl.LazyFrame, _Scope]:
    """The runs' rows of the ``queries`` table's queries (ids compared as text), and the scope."""
    lf, _ = to_lazy(queries, role="queries table")
    schema = lf.collect_schema()
    if query_col not in schema:
        err = ColumnNotFoundError.from_missing(
            role="query id", missing=query_col, available=list(schema), frame="queries", parameter="query_col"
        )
        msg = f"{err} (Or pool every query of the runs: all_queries=True.)"
        raise ColumnNotFoundError(msg)
    listed = lf.select(pl.col(query_col).cast(pl.String).alias(QUERY_KEY)).unique()
    key = pl.col(query_col).cast(pl.String).alias(QUERY_KEY)
    in_runs = stacked.select(key).unique()
    left_out, unanswered = pl.collect_all([
        in_runs.join(listed, on=QUERY_KEY, how="anti").select(pl.len()),
        listed.join(in_runs, on=QUERY_KEY, how="anti").sort(judgment_order()[:-1]),
    ])  # fmt: skip
    kept = stacked.with_columns(key).join(listed, on=QUERY_KEY, how="semi").drop(QUERY_KEY)
    return kept, _Scope(int(left_out.item()), tuple(unanswered.get_column(QUERY_KEY).to_list()))


def _grade(qrels: pl.LazyFrame | None, opts: Options) -> pl.Expr:
    """The judged pairs' grade, named and typed as in the qrels (integers stay integers)."""
    name = opts.qrels_columns[2]
    dtype = pl.Float64 if qrels is None else qrels.collect_schema()[name]
    return pl.col(GRADE).cast(dtype if dtype.is_numeric() else pl.Float64).alias(name)


def _result(
    origin: Origin,
    *,
    to_judge: pl.DataFrame,
    judged: pl.DataFrame,
    cover: pl.DataFrame,
    per_query: pl.DataFrame,
    depth: int,
    systems: list[str],
    query_col: str,
    doc_col: str,
    scope: _Scope,
) -> Pool:
    return Pool(
        to_judge=from_lazy(to_judge, origin),
        judged=from_lazy(judged, origin),
        coverage=from_lazy(cover, origin),
        queries=from_lazy(per_query, origin),
        depth=depth,
        systems=tuple(systems),
        n_pooled=to_judge.height + judged.height,
        n_judged=judged.height,
        n_to_judge=to_judge.height,
        n_queries=per_query.height,
        query_col=query_col,
        doc_col=doc_col,
        n_left_out=scope.n_left_out,
        unanswered=scope.unanswered,
    )
