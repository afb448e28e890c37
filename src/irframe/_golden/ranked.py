"""Each system's top ``depth`` documents per query, with their grades: what pool and holes read.

:func:`ranked_top` is the one place that cuts the rankings (by THE ranking rule,
:meth:`irframe._input.columns.RunColumns.ranking`) and joins the judgments; :func:`coverage`
counts the judged and unjudged documents of each (system, query) top.  Both work on
polars frames with an internal system column (``compare`` and ``check`` call them on
their stacked runs); the public :func:`irframe.pool` is built on them.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from irframe._engine.checks import refuse_duplicate_judgments
from irframe._golden._ids import examples
from irframe._input.columns import RunColumns, resolve_qrels, resolve_run
from irframe._input.frames import to_lazy
from irframe._input.keys import DOC_KEY, GRADE, POSITION, QUERY_KEY, SYSTEM
from irframe._input.options import Options
from irframe.exceptions import (
    DuplicateRowsError,
    InvalidDataError,
)

__all__ = ["coverage", "holes", "judged_pairs", "ranked_top"]


def _run_columns(schema: pl.Schema, opts: Options) -> RunColumns:
    return resolve_run(
        schema, query_col=opts.query_col, doc_col=opts.doc_col, rank_col=opts.rank_col,
        score_col=opts.score_col, relevance_col=None, by=(), need_relevance=False, order_rule=opts.order,
    )  # fmt: skip


def _unrankable(rows: pl.LazyFrame, cols: RunColumns) -> pl.Expr:
    """A null or NaN rank or score."""
    order = pl.col(cols.order_col)
    return (
        order.is_null() | order.is_nan()
        if rows.collect_schema()[cols.order_col].is_float()
        else order.is_null()
    )


def _diagnostics(rows: pl.LazyFrame, cols: RunColumns) -> dict[str, int]:
    """Counts of the rows that cannot be ranked: null ids, null/NaN order values, duplicates,
    and (rank and score both present, order="auto") scores rising along the rank order."""
    exprs = {
        "null_query": pl.col(cols.query).is_null().sum(),
        "null_doc": pl.col(cols.doc).is_null().sum(),
        "bad_order": _unrankable(rows, cols).sum(),
        "duplicates": pl.len() - pl.struct(SYSTEM, QUERY_KEY, DOC_KEY).n_unique(),
    }
    out = {k: int(v) for k, v in rows.select(**exprs).collect().row(0, named=True).items()}
    if cols.check_score is not None and not any(out.values()):
        by, desc = cols.ranking()
        rise = pl.col(cols.check_score).sort_by(by, descending=desc).diff() > 0
        per_ranking = rows.group_by(SYSTEM, QUERY_KEY).agg(rise.fill_null(False).sum().alias("n"))
        out["disagree"] = int(per_ranking.select(pl.col("n").sum()).collect().item())
    return out


def _raise_bad_rows(rows: pl.LazyFrame, cols: RunColumns, diag: dict[str, int], duplicates: str) -> None:
    """Name the first problem :func:`_diagnostics` found (column, system and query)."""

    def first(where: pl.Expr) -> tuple[object, ...]:
        return rows.filter(where).select(SYSTEM, cols.query, cols.doc).head(1).collect().row(0)

    if diag["null_query"] or diag["null_doc"]:
        col = cols.query if diag["null_query"] else cols.doc
        n = diag["null_query"] or diag["null_doc"]
        system = first(pl.col(col).is_null())[0]
        msg = (
            f"{n} run rows have a null {col!r} (e.g. in system {system!r}). Hint: drop them or fill the ids."
        )
        raise InvalidDataError(msg)
    if diag["bad_order"]:
        system, query, _ = first(_unrankable(rows, cols))
        msg = (
            f"{diag['bad_order']} run rows have a null or NaN {cols.order} in column {cols.order_col!r}, "
            f"e.g. system {system!r}, query {query!r}. They cannot be ranked. Hint: drop or fill them."
        )
        if cols.order == "rank":
            msg += (
                " (A run without the rank column, stacked with runs that have it, has null ranks: "
                "pass order='score' to rank every run by its score.)"
            )
        raise InvalidDataError(msg)
    if diag["duplicates"] and duplicates == "error":
        dup = pl.struct(SYSTEM, QUERY_KEY, DOC_KEY).is_duplicated()
        shown = rows.filter(dup).select(SYSTEM, cols.query, cols.doc, QUERY_KEY, DOC_KEY).unique()
        first5 = shown.sort(SYSTEM, QUERY_KEY, DOC_KEY).head(5).select(SYSTEM, cols.query, cols.doc)
        found = first5.collect().rows()
        msg = (
            f"The runs have {diag['duplicates']} duplicate (system, {cols.query}, {cols.doc}) rows, "
            f"e.g. {examples(found, len(found))}. trec_eval refuses such runs. "
            "Hint: pass duplicates='first' to keep the best-ranked row of each document."
        )
        raise DuplicateRowsError(msg)
    if diag.get("disagree"):
        msg = (
            f"The rank column {cols.order_col!r} and the score column {cols.check_score!r} disagree: "
            f"the score rises along the rank order {diag['disagree']} times. "
            "Hint: say which one orders the documents: order='rank' or order='score'."
        )
        raise InvalidDataError(msg)


def judged_pairs(qrels: Any, opts: Options) -> pl.LazyFrame:
    """The qrels as (:data:`QUERY_KEY`, :data:`DOC_KEY`, :data:`GRADE`): checked for null
    ids or grades and for a document judged twice, which raise naming the query."""
    lf, _ = to_lazy(qrels, role="qrels")
    q, d, r = opts.qrels_columns
    qq, qd, qr = resolve_qrels(lf.collect_schema(), query_col=q, doc_col=d, relevance_col=r)
    out = lf.select(
        pl.col(qq).cast(pl.String).alias(QUERY_KEY),
        pl.col(qd).cast(pl.String).alias(DOC_KEY),
        pl.col(qr).cast(pl.Float64).fill_nan(None).alias(GRADE),
    )
    bad = out.filter(pl.any_horizontal(pl.all().is_null()) | pl.col(GRADE).is_infinite())
    found = bad.head(5).collect()
    if found.height:
        n = bad.select(pl.len()).collect().item()
        msg = (
            f"{n} qrels rows have a null {qq!r} or {qd!r} or a null, NaN or infinite grade in "
            f"{qr!r}, e.g. {examples(found.rows(), n)}. Hint: drop them (unjudged documents simply "
            "have no qrels row)."
        )
        raise InvalidDataError(msg)
    refuse_duplicate_judgments(out, QUERY_KEY, DOC_KEY)
    return out


def ranked_top(runs: pl.LazyFrame, qrels: Any, opts: Options, depth: int) -> pl.DataFrame:
    """The top ``depth`` documents of every (system, query), with their positions and grades.

    Parameters
    ----------
    runs : polars.LazyFrame
        Stacked runs (:func:`irframe._input.runs.stack_runs`) with a String system column
        named :data:`SYSTEM` and the columns ``opts`` names (query, doc, rank or score).
    qrels : frame or None
        Judgments with ``opts.qrels_columns``; ``None``: nothing judged.
    opts : Options
        Column names and the ``order`` and ``duplicates`` rules, as for :func:`irframe.evaluate`.
    depth : int
        How many documents of each ranking.

    Returns
    -------
    polars.DataFrame
        :data:`SYSTEM`, the query and doc columns (the run's dtypes), :data:`QUERY_KEY` and
        :data:`DOC_KEY` (the ids as text), :data:`POSITION` (1-based, in the ranking order:
        rank ascending or score descending, ties by doc id descending, as evaluate) and
        :data:`GRADE` (Float64, null when unjudged); sorted by system, query, position.

    Examples
    --------
    >>> import polars as pl
    >>> run = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "b", "c"], "score": [1.0, 2.0, 2.0],
    ...                     SYSTEM: ["s"] * 3}).lazy()
    >>> qrels = pl.DataFrame({"query_id": ["q1"], "doc_id": ["b"], "relevance": [1]})
    >>> ranked_top(run, qrels, Options(), depth=2).select("doc_id", POSITION, GRADE).rows()
    [('c', 1, None), ('b', 2, 1.0)]
    """
    cols = _run_columns(runs.collect_schema(), opts)
    keep = list(
        dict.fromkeys([SYSTEM, cols.query, cols.doc, cols.order_col, *filter(None, [cols.check_score])])
    )
    by, desc = cols.ranking()
    rows = runs.select(keep).with_columns(
        pl.col(cols.query).cast(pl.String).alias(QUERY_KEY), pl.col(cols.doc).cast(pl.String).alias(DOC_KEY)
    )
    diag = _diagnostics(rows, cols)
    if any(diag.values()):
        _raise_bad_rows(rows, cols, diag, opts.duplicates)
        # duplicates="first": the best-ranked row of each repeated document (rare: one full sort)
        ordered = rows.sort([SYSTEM, QUERY_KEY, *by], descending=[False, False, *desc])
        rows = ordered.unique([SYSTEM, QUERY_KEY, DOC_KEY], keep="first", maintain_order=True)
    # each ranking sorted on its own (short sorts in parallel), cut at depth
    top = (
        rows.group_by(SYSTEM, QUERY_KEY)
        .agg(pl.col(cols.query).first(), pl.col(cols.doc, DOC_KEY).sort_by(by, descending=desc).head(depth))
        .explode(cols.doc, DOC_KEY)
        .sort(SYSTEM, QUERY_KEY, maintain_order=True)
        .with_columns(pl.int_range(1, pl.len() + 1, dtype=pl.Int64).over(SYSTEM, QUERY_KEY).alias(POSITION))
        .select(SYSTEM, cols.query, cols.doc, QUERY_KEY, DOC_KEY, POSITION)
    )
    if qrels is None:
        return top.with_columns(pl.lit(None, dtype=pl.Float64).alias(GRADE)).collect()
    grades = judged_pairs(qrels, opts)
    return top.join(grades, on=[QUERY_KEY, DOC_KEY], how="left", maintain_order="left").collect()


def coverage(top: pl.DataFrame, query_col: str, doc_col: str, *, unjudged_docs: bool = False) -> pl.DataFrame:
    """Per (system, query) of :func:`ranked_top`: how much of the top is judged.

    Returns :data:`SYSTEM`, ``query_col``, ``n_top`` (documents in the top, at most the
    depth), ``n_judged``, ``n_unjudged`` and ``judged`` (``n_judged / n_top``: evaluate's
    ``Judged@depth``); with ``unjudged_docs``, also ``unjudged`` (the unjudged doc ids in
    ranking order, a list) and ``unjudged_at`` (their 1-based positions, a list; needs
    :data:`POSITION` in ``top``).  Rows in the order of ``top`` (system, query).

    Examples
    --------
    >>> import polars as pl
    >>> top = pl.DataFrame({SYSTEM: ["s", "s"], "query_id": ["q1", "q1"], "doc_id": ["c", "b"],
    ...                     QUERY_KEY: ["q1", "q1"], POSITION: [1, 2], GRADE: [None, 1.0]})
    >>> coverage(top, "query_id", "doc_id", unjudged_docs=True).rows()
    [('s', 'q1', 2, 1, 1, 0.5, ['c'], [1])]
    """
    aggs = [
        pl.col(query_col).first(),
        pl.len().cast(pl.Int64).alias("n_top"),
        pl.col(GRADE).is_not_null().sum().cast(pl.Int64).alias("n_judged"),
    ]
    if unjudged_docs:
        hole = pl.col(GRADE).is_null()
        aggs += [
            pl.col(doc_col).filter(hole).alias("unjudged"),
            pl.col(POSITION).filter(hole).alias("unjudged_at"),
        ]
    out = top.group_by(SYSTEM, QUERY_KEY, maintain_order=True).agg(aggs)
    out = out.with_columns(
        (pl.col("n_top") - pl.col("n_judged")).alias("n_unjudged"),
        (pl.col("n_judged") / pl.col("n_top")).alias("judged"),
    )
    tail = ["unjudged", "unjudged_at"] if unjudged_docs else []
    return out.select(SYSTEM, query_col, "n_top", "n_judged", "n_unjudged", "judged", *tail)


def holes(runs: pl.LazyFrame, qrels: Any, opts: Options, k: int) -> pl.DataFrame:
    """Per (system, query): the unjudged documents of the top ``k`` (for compare and check).

    ``runs`` as for :func:`ranked_top` (stacked, a String :data:`SYSTEM` column); returns
    :func:`coverage` with ``unjudged`` (doc ids, in ranking order) and ``unjudged_at``
    (their positions), sorted by system and query id (as text).

    Examples
    --------
    >>> import polars as pl
    >>> runs = pl.DataFrame({SYSTEM: ["a", "a", "b"], "query_id": ["q1"] * 3, "doc_id": ["x", "y", "y"],
    ...                      "rank": [1, 2, 1]}).lazy()
    >>> qrels = pl.DataFrame({"query_id": ["q1"], "doc_id": ["x"], "relevance": [1]})
    >>> holes(runs, qrels, Options(), k=10).rows()
    [('a', 'q1', 2, 1, 1, 0.5, ['y'], [2]), ('b', 'q1', 1, 0, 1, 0.0, ['y'], [1])]
    """
    return coverage(ranked_top(runs, qrels, opts, k), opts.query_col, opts.doc_col, unjudged_docs=True)
