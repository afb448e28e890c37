"""Grounding: are an answer's cited documents in the run that fed it, how high, judged
relevant; which relevant retrieved documents it ignored; which citations point outside
the run.  No LLM is needed: citations, the run and (optionally) the qrels.

The measures and the rules (the run's ranking order, the chunk roll-up) are written once,
in :func:`grounding`'s Notes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import polars as pl

from irframe._engine.plan import best_ranked
from irframe._input.columns import RunColumns, natural_sorted, resolve_qrels, resolve_run
from irframe._input.frames import from_lazy, to_lazy
from irframe._input.keys import SYSTEM
from irframe._input.options import ColumnsArg, Options, Order
from irframe._input.runs import SINGLE, stack_runs, user_terms
from irframe._report.tables import text_table
from irframe.answers._support import cited_sentences, read_sentences
from irframe.answers._tables import Empty, Table, check_empty, columns_arg, ratio, read_table
from irframe.exceptions import InvalidDataError, InvalidParameterError

__all__ = ["Grounding", "grounding", "grounding_measures"]

_WHERE = "grounding"
_RANK = "__ir_rank"
_COUNTS = ("n_cited", "n_never_retrieved", "n_cited_unjudged", "n_relevant_retrieved", "n_sentences")


def grounding_measures(k: int | None) -> tuple[str, ...]:
    """The measures' column names at cutoff ``k`` (None: the whole run).

    Examples
    --------
    >>> grounding_measures(10)
    ('CitedRetrieved@10', 'CitedRelevant', 'RelevantCited@10', 'MeanCitedRank', 'UncitedSentences')
    """
    at = "" if k is None else f"@{k}"
    return (f"CitedRetrieved{at}", "CitedRelevant", f"RelevantCited{at}", "MeanCitedRank", "UncitedSentences")


@dataclass(frozen=True, repr=False)
class Grounding:
    """What :func:`grounding` found.

    Attributes
    ----------
    per_query : frame
        One row per answer (system, query): the measures and the counts ``n_cited``
        (distinct cited documents), ``n_never_retrieved``, ``n_cited_unjudged``,
        ``n_relevant_retrieved`` (relevant documents in the run's top k) and
        ``n_sentences`` (with a sentences frame).
    means : frame
        Per system: each measure's mean over the answers where it is defined, and the
        counts summed, with ``n_queries``.
    never_retrieved : frame
        The citation rows whose document the run never retrieved for the query (at any
        rank): the leaked or hallucinated sources.
    k : int or None
        The cutoff (None: the whole run).
    """

    per_query: Any
    means: Any
    never_retrieved: Any
    k: int | None
    _means: pl.DataFrame
    _never: pl.DataFrame

    def to_text(self, top: int = 10) -> str:
        """The means per system, then the first ``top`` citations the run never retrieved."""
        m = self._means
        shown = ("n_queries", "n_cited", "n_never_retrieved")
        names = [c for c in m.columns if not c.startswith("n_") or c in shown]
        rows = [[_cell(r[c]) for c in names] for r in m.iter_rows(named=True)]
        lines = [text_table(names, rows, numeric=range(len(names)), rule=False)]
        never = self._never
        lines.append(f"citations to documents the run never retrieved: {never.height}")
        lines += ["  " + " ".join(str(v) for v in r) for r in never.head(top).iter_rows()]
        if never.height > top:
            lines.append(f"  ... ({never.height - top} more)")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.to_text()

    def __repr__(self) -> str:
        answers = self._means["n_queries"].sum()
        return f"Grounding(k={self.k}, answers={answers}, never_retrieved={self._never.height})"


def _cell(v: object) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    return f"{v:.4f}" if isinstance(v, float) else str(v)


def grounding(
    citations: Any,
    run: Any,
    qrels: Any = None,
    sentences: Any = None,
    k: int | None = None,
    *,
    rel: int = 1,
    columns: str | Mapping[str, str] | None = None,
    run_columns: ColumnsArg = None,
    order: Order = "auto",
    empty: Empty = "null",
) -> Grounding:
    """Whether each answer's citations are grounded in the run that fed it.

    Parameters
    ----------
    citations : frame
        ``system`` (optional), ``query_id``, ``doc_id`` and optionally ``sentence_id`` and
        ``citation_rank`` (the support labels, if any, are not read).
    run : frame or mapping of str to frame
        The retrieved list of each query (``query_id``, ``doc_id``, ``rank`` or ``score``).
        When each answering system had its own retriever: the runs stacked with a ``system``
        column, or a dict ``{system: run}`` (as :func:`irframe.compare` takes them); a frame
        without a system column is the one run that fed every system of the citations.
    qrels : frame, optional
        ``query_id``, ``doc_id``, ``relevance``: for ``CitedRelevant`` and ``RelevantCited``.
    sentences : frame, optional
        Every sentence of every answer (``system``, ``query_id``, ``sentence_id``), for
        ``UncitedSentences``.
    k : int, optional
        The cutoff of ``CitedRetrieved`` and ``RelevantCited`` (None: the whole run).
    rel : int
        The lowest grade that counts as relevant (trec_eval's 1).
    columns : str or mapping, optional
        The answer tables' columns (``{"query": "qid"}``) or a preset (``"trec_rag"``).
    run_columns : str or mapping, optional
        The run's and qrels' columns as :func:`irframe.evaluate` takes them (a preset such
        as ``"trec"`` or ``{"query": "qid", "doc": "docno"}``).
    order : {"auto", "rank", "score"}
        How the run ranks its documents, as :func:`irframe.evaluate`'s ``order``.
    empty : {"null", "zero"}
        A measure whose denominator is 0 (an answer citing nothing; no relevant document in
        the top k): null (left out of the means) or 0.

    Returns
    -------
    Grounding
        ``per_query``, ``means`` and ``never_retrieved`` in the caller's frame type (of
        ``citations``).

    Notes
    -----
    Ranks are the run's ranking order (:func:`irframe._input.columns.ranking_order`: rank
    ascending or score descending, ties by doc id) after the chunk roll-up of the RAG
    guide: a document retrieved several times (as several chunks) keeps its best-ranked
    row (``duplicates="first"``), so ranks and k count documents.  Per answer, with C the
    distinct cited documents:

    - ``CitedRetrieved@k`` = |C in the run's top k| / |C|;
    - ``CitedRelevant`` = |C judged relevant| / |C| (unjudged count as not relevant and
      are counted in ``n_cited_unjudged``);
    - ``RelevantCited@k`` = |relevant documents in the top k that the answer cites| /
      |relevant documents in the top k|;
    - ``MeanCitedRank``: the mean rank of the cited documents the run retrieved (at any rank);
    - ``UncitedSentences`` = |sentences without a citation| / |sentences| (with ``sentences``).

    Examples
    --------
    >>> import polars as pl
    >>> from irframe.answers import grounding
    >>> run = pl.DataFrame({"query_id": ["q1"] * 4, "doc_id": ["d1", "d2", "d3", "d4"], "rank": [1, 2, 3, 4]})
    >>> qrels = pl.DataFrame({"query_id": ["q1"] * 2, "doc_id": ["d1", "d3"], "relevance": [1, 2]})
    >>> citations = pl.DataFrame({"query_id": ["q1"] * 3, "sentence_id": [1, 2, 2],
    ...                           "doc_id": ["d3", "d3", "d9"]})
    >>> g = grounding(citations, run, qrels, k=3)
    >>> g.per_query.select("CitedRetrieved@3", "CitedRelevant", "RelevantCited@3", "MeanCitedRank")
    shape: (1, 4)
    ┌──────────────────┬───────────────┬─────────────────┬───────────────┐
    │ CitedRetrieved@3 ┆ CitedRelevant ┆ RelevantCited@3 ┆ MeanCitedRank │
    │ ---              ┆ ---           ┆ ---             ┆ ---           │
    │ f64              ┆ f64           ┆ f64             ┆ f64           │
    ╞══════════════════╪═══════════════╪═════════════════╪═══════════════╡
    │ 0.5              ┆ 0.5           ┆ 0.5             ┆ 3.0           │
    └──────────────────┴───────────────┴─────────────────┴───────────────┘
    >>> g.never_retrieved
    shape: (1, 3)
    ┌──────────┬─────────────┬────────┐
    │ query_id ┆ sentence_id ┆ doc_id │
    │ ---      ┆ ---         ┆ ---    │
    │ str      ┆ str         ┆ str    │
    ╞══════════╪═════════════╪════════╡
    │ q1       ┆ 2           ┆ d9     │
    └──────────┴─────────────┴────────┘
    """
    if k is not None and (not isinstance(k, int) or isinstance(k, bool) or k < 1):
        raise InvalidParameterError.for_value("k", _WHERE, "an int in the range [1, inf) or None", k)
    if not isinstance(rel, int) or isinstance(rel, bool):
        raise InvalidParameterError.for_value("rel", _WHERE, "an int (the lowest relevant grade)", rel)
    check_empty(empty, _WHERE)
    cols = columns_arg(columns, _WHERE)
    cit = read_table(
        citations, "citations", cols, ["query", "doc"], ["system", "sentence", "citation_rank"],
        ids=["system", "query", "sentence", "doc"],
    )  # fmt: skip
    opts = Options.build(_WHERE, columns=run_columns, order=order)
    ranked, run_system = _ranked_run(run, opts, cit, cols["system"])
    grades = None if qrels is None else _grades(qrels, opts, rel)
    keys = ["system"] if cit.has("system") else []
    answers = _answers(cit, keys, sentences, cols)
    table = _per_answer(cit, answers, ranked, grades, (keys, run_system), k, empty)
    never = _never_retrieved(cit, ranked, run_system)
    means = _means(table, keys, k)
    out = {r: cit.columns[r] for r in (*keys, "query")}
    return Grounding(
        from_lazy(table.rename(out), cit.origin),
        from_lazy(means.rename({r: cit.columns[r] for r in keys}), cit.origin),
        from_lazy(never, cit.origin),
        k,
        means,
        never,
    )


def _ranked_run(run: Any, opts: Options, cit: Table, system: str) -> tuple[pl.DataFrame, bool]:
    """(system,) query, doc and the rank after the chunk roll-up; whether the run has systems.

    The runs are stacked by :func:`irframe._input.runs.stack_runs` (a dict of runs, or one
    frame with a ``system`` column); a frame without one is a single run that fed every
    answering system, as is a stack of one system when the citations have no system column.
    """
    if isinstance(run, Mapping):
        stack = stack_runs(run, system, _WHERE)
    else:
        lf, _origin = to_lazy(run, "run")
        stack = stack_runs(lf, system if system in lf.collect_schema() else None, _WHERE)
    per_system = stack.systems != [SINGLE] or isinstance(run, Mapping)
    if per_system and not cit.has("system"):
        if len(stack.systems) > 1:
            msg = (
                f"The runs hold {len(stack.systems)} systems ({', '.join(map(repr, stack.systems[:5]))}) "
                f"but the citations have no system column {system!r}: which run fed the answers? Hint: add "
                "the system column to the citations, or pass the run of the one system that answered."
            )
            raise InvalidDataError(msg)
        per_system = False
    by: tuple[str, ...] = (SYSTEM,) if per_system else ()
    with user_terms(system):
        rc = resolve_run(
            stack.lf.collect_schema(), query_col=opts.query_col, doc_col=opts.doc_col, rank_col=opts.rank_col,
            score_col=opts.score_col, relevance_col=None, by=by, need_relevance=False, order_rule=opts.order,
        )  # fmt: skip
    rows = stack.lf.select(*rc.keys, rc.doc, rc.order_col).collect()
    _refuse_unranked(rows, rc)
    # only the answered queries are ranked (a query's ranks do not depend on the others')
    answered = cit.rows.get_column("query").unique().implode()
    rows = rows.filter(pl.col(rc.query).cast(pl.String).is_in(answered))
    rows = rows.with_columns(pl.col(c).cast(pl.String) for c in (*rc.keys, rc.doc))
    ranked = best_ranked(rows, rc).with_columns(
        pl.int_range(1, pl.len() + 1).over(list(rc.keys)).alias(_RANK)
    )
    names = {**({SYSTEM: "system"} if per_system else {}), rc.query: "query", rc.doc: "doc"}
    if per_system:
        _same_systems(cit, stack.systems)
    out = ranked.select(*names, _RANK).rename(names).with_columns(pl.col(_RANK).cast(pl.Int64))
    return out, per_system


def _refuse_unranked(rows: pl.DataFrame, rc: RunColumns) -> None:
    order = pl.col(rc.order_col)
    unranked = order.is_null() | pl.col(rc.doc).is_null() | pl.col(rc.query).is_null()
    if rows.schema[rc.order_col].is_float():
        unranked = unranked | order.is_nan()
    bad = rows.with_row_index("__row").filter(unranked)
    if bad.height:
        r = bad.row(0, named=True)
        msg = (
            f"The run has {bad.height} row(s) that cannot be ranked (a null query or doc id, or a null or "
            "NaN "
            f"{rc.order_col!r}), first at row {r['__row']} ({rc.query} {r[rc.query]!r}, {rc.doc} "
            f"{r[rc.doc]!r}). Hint: drop those rows from the run."
        )
        raise InvalidDataError(msg)


def _same_systems(cit: Table, run_systems: list[str]) -> None:
    """The citations' systems are the run's: a system the run lacks raises."""
    have = set(run_systems)
    lacking = sorted(set(cit.rows.get_column("system").unique().to_list()) - have)
    if lacking:
        msg = (
            f"The citations name {len(lacking)} system(s) the run does not hold: "
            f"{', '.join(map(repr, lacking[:5]))} (the run holds {', '.join(map(repr, sorted(have)[:5]))}). "
            "Hint: pass the run each system answered from (same system names), or a run without a system "
            "column when one retriever fed them all."
        )
        raise InvalidDataError(msg)


def _grades(qrels: Any, opts: Options, rel: int) -> pl.DataFrame:
    """(query, doc, relevant) of the judged documents."""
    lf, _origin = to_lazy(qrels, "qrels")
    qc = opts.qrels_columns
    qq, qd, qr = resolve_qrels(lf.collect_schema(), query_col=qc[0], doc_col=qc[1], relevance_col=qc[2])
    g = lf.select(
        pl.col(qq).cast(pl.String).alias("query"),
        pl.col(qd).cast(pl.String).alias("doc"),
        (pl.col(qr).cast(pl.Float64) >= rel).alias("relevant"),
    ).collect()
    return g.group_by("query", "doc").agg(pl.col("relevant").any())


def _answers(cit: Table, keys: list[str], sentences: Any, cols: Mapping[str, str]) -> pl.DataFrame:
    """Every answer (system, query) with its sentence counts (null without ``sentences``)."""
    given = cit.rows.select(*keys, "query").unique()
    if sentences is None:
        none = pl.lit(None, pl.Int64)
        return given.with_columns(none.alias("n_sentences"), none.alias("n_uncited"))
    if not cit.has("sentence"):
        msg = (
            f"UncitedSentences needs the citations' sentence column {cols['sentence']!r}, which the "
            "citations "
            "frame lacks. Hint: name it with columns={'sentence': ...}, or leave sentences out."
        )
        raise InvalidDataError(msg)
    every = cited_sentences(cit, keys, read_sentences(sentences, cols, cit))
    cited = cit.rows.select(*keys, "query", "sentence").unique().with_columns(pl.lit(True).alias("cited"))
    per = (
        every.join(cited, on=[*keys, "query", "sentence"], how="left")
        .group_by(*keys, "query")
        .agg(
            pl.len().cast(pl.Int64).alias("n_sentences"),
            pl.col("cited").null_count().cast(pl.Int64).alias("n_uncited"),
        )
    )
    return given.join(per, on=[*keys, "query"], how="full", coalesce=True)


def _per_answer(  # noqa: PLR0917 (the tables of one computation)
    cit: Table,
    answers: pl.DataFrame,
    ranked: pl.DataFrame,
    grades: pl.DataFrame | None,
    keys_and_systems: tuple[list[str], bool],
    k: int | None,
    empty: Empty,
) -> pl.DataFrame:
    """One row per answer: the measures and the counts."""
    keys, run_system = keys_and_systems
    on_run = [*(["system"] if run_system else []), "query"]
    cited = cit.rows.select(*keys, "query", "doc").unique().join(ranked, on=[*on_run, "doc"], how="left")
    top = ((pl.col(_RANK) <= k) if k is not None else pl.col(_RANK).is_not_null()).fill_null(False)
    if grades is not None:
        cited = cited.join(grades, on=["query", "doc"], how="left")
    else:
        cited = cited.with_columns(pl.lit(None, pl.Boolean).alias("relevant"))
    relevant = pl.col("relevant").fill_null(False)
    per = cited.group_by(*keys, "query").agg(
        pl.len().cast(pl.Int64).alias("n_cited"),
        top.sum().alias("__in_top"),
        pl.col(_RANK).null_count().cast(pl.Int64).alias("n_never_retrieved"),
        relevant.sum().alias("__rel"),
        pl.col("relevant").null_count().cast(pl.Int64).alias("n_cited_unjudged"),
        (relevant & top).sum().alias("__rel_cited_top"),
        pl.col(_RANK).mean().alias("MeanCitedRank"),
    )
    filled = ("n_cited", "n_never_retrieved", "n_cited_unjudged", "n_relevant_retrieved", "__in_top", "__rel")
    table = (
        answers.join(per, on=[*keys, "query"], how="left")
        .join(_relevant_in_top(ranked, grades, k), on=on_run, how="left")
        .with_columns(*(pl.col(c).fill_null(0) for c in (*filled, "__rel_cited_top")))
    )
    names = grounding_measures(k)
    null = pl.lit(None, pl.Float64)
    judged = grades is not None
    table = table.with_columns(
        ratio(pl.col("__in_top"), pl.col("n_cited"), empty).alias(names[0]),
        (ratio(pl.col("__rel"), pl.col("n_cited"), empty) if judged else null).alias(names[1]),
        (ratio(pl.col("__rel_cited_top"), pl.col("n_relevant_retrieved"), empty) if judged else null).alias(
            names[2]
        ),
        ratio(pl.col("n_uncited").cast(pl.Float64), pl.col("n_sentences").fill_null(0), "null").alias(
            names[4]
        ),
    )
    return natural_sorted(table, [*keys, "query"], [*keys, "query", *names, *_COUNTS])


def _relevant_in_top(ranked: pl.DataFrame, grades: pl.DataFrame | None, k: int | None) -> pl.DataFrame:
    """(system,) query and the number of relevant documents in the run's top k."""
    keys = [c for c in ranked.columns if c in ("system", "query")]
    if grades is None:
        return ranked.select(keys).unique().with_columns(pl.lit(0, pl.Int64).alias("n_relevant_retrieved"))
    top = ranked.filter(pl.col(_RANK) <= k) if k is not None else ranked
    return (
        top.join(grades, on=["query", "doc"], how="left")
        .group_by(keys)
        .agg(pl.col("relevant").fill_null(False).sum().cast(pl.Int64).alias("n_relevant_retrieved"))
    )


def _never_retrieved(cit: Table, ranked: pl.DataFrame, run_system: bool) -> pl.DataFrame:
    """The citation rows whose document the run never retrieved for the query."""
    on = [*(["system"] if run_system else []), "query", "doc"]
    never = cit.rows.join(ranked.select(on), on=on, how="anti")
    order = [r for r in ("system", "query", "sentence", "citation_rank", "doc") if r in never.columns]
    never = natural_sorted(never, [r for r in order if r != "doc"], order)
    return never.rename({r: cit.columns[r] for r in order})


def _means(table: pl.DataFrame, keys: list[str], k: int | None) -> pl.DataFrame:
    """Each measure's mean over the answers where it is defined, per system; counts summed."""
    group: list[str | pl.Expr] = [*keys] if keys else [pl.lit(0).alias("literal")]
    out = table.group_by(group).agg(
        *(pl.col(m).mean() for m in grounding_measures(k)),
        pl.len().cast(pl.Int64).alias("n_queries"),
        *(pl.col(c).sum().cast(pl.Int64) for c in _COUNTS),
    )
    names = [*keys, *grounding_measures(k), "n_queries", *_COUNTS]
    return natural_sorted(out, keys, names) if keys else out.select(names)
