"""Citation support of answers: weighted and hard precision and recall over the answer's
sentences, from the support label of each (sentence, citation).

The definitions are written once, in :func:`support_scores`'s Notes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import polars as pl

from irframe._input.columns import natural_sorted
from irframe._input.frames import from_lazy
from irframe.answers._tables import (
    SUPPORT_WEIGHTS,
    Empty,
    Table,
    check_empty,
    columns_arg,
    describe_row,
    labels_to_values,
    ratio,
    read_table,
    refuse_duplicates,
)
from irframe.exceptions import InvalidDataError

__all__ = ["SUPPORT_MEASURES", "cited_sentences", "read_citations", "read_sentences", "support_scores"]

_WHERE = "support_scores"
SUPPORT_MEASURES = ("wP_first", "wR_first", "wP_all", "wR_all", "hP", "hR")
_COUNTS = ("n_sentences", "n_uncited", "n_citations", "n_unjudged")


def support_scores(
    citations: Any,
    sentences: Any = None,
    per_query: bool = False,
    *,
    columns: str | Mapping[str, str] | None = None,
    empty: Empty = "zero",
) -> Any:
    """Whether each answer's citations support its sentences (TREC 2024 RAG support evaluation).

    Parameters
    ----------
    citations : frame
        One row per (sentence, citation): ``system`` (optional), ``query_id``,
        ``sentence_id``, ``citation_rank`` (the citation's place in the sentence; the
        smallest is the first citation), ``doc_id``, ``support`` (``full``, ``partial``,
        ``none`` or the grades 2, 1, 0; null: not judged), optionally ``judge`` (then
        every score is per judge too).
    sentences : frame, optional
        Every sentence of every answer (``system``, ``query_id``, ``sentence_id``), so that
        the sentences without a citation count in the recalls.  Without it, only the cited
        sentences are known (and ``n_uncited`` is 0).
    per_query : bool
        One row per (judge, system, query) instead of the means per (judge, system).
    columns : str or mapping, optional
        The column of each role (``{"query": "qid"}``) or a preset (``"trec_rag"``).
    empty : {"zero", "null"}
        A score whose denominator is 0 (an answer with no judged citation): 0, or null
        (left out of the means).

    Returns
    -------
    frame
        The caller's frame type (of ``citations``): ``wP_first``, ``wR_first``, ``wP_all``,
        ``wR_all``, ``hP``, ``hR`` (per answer, or their means over the answers) and the
        counts ``n_sentences``, ``n_uncited``, ``n_citations``, ``n_unjudged`` (summed over
        the answers in the means, with ``n_queries``).

    Notes
    -----
    A citation's weight is 1 for full support, 0.5 for partial, 0 for none; its hard
    weight is 1 for full support, else 0.  Unjudged citations are left out (counted in
    ``n_unjudged``).  Over the sentences of an answer:

    - ``wP_first`` = the sum of the first citations' weights over the sentences whose first
      citation is judged / the number of those sentences;
    - ``wR_first`` = the same sum / the number of sentences (uncited ones included; those
      whose first citation is not judged excluded);
    - ``wP_all``, ``wR_all``: the same with a sentence's weight the mean over its judged
      citations (and the sentences with no judged citation in place of those whose first
      is not judged);
    - ``hP``, ``hR``: the hard weights of the first citations, with ``wP_first``'s and
      ``wR_first``'s denominators.

    The support paper's worked example (Thakur et al. 2025, arXiv 2504.15205): a partially
    supported, a fully supported and an uncited sentence give wP 0.75 and wR 0.5.

    Examples
    --------
    >>> import polars as pl
    >>> from irframe.answers import support_scores
    >>> citations = pl.DataFrame({"query_id": ["q1", "q1"], "sentence_id": [1, 2],
    ...     "citation_rank": [1, 1], "doc_id": ["d3", "d7"], "support": ["partial", "full"]})
    >>> sentences = pl.DataFrame({"query_id": ["q1"] * 3, "sentence_id": [1, 2, 3]})
    >>> support_scores(citations, sentences).select("wP_first", "wR_first", "hP", "hR", "n_uncited")
    shape: (1, 5)
    ┌──────────┬──────────┬─────┬──────────┬───────────┐
    │ wP_first ┆ wR_first ┆ hP  ┆ hR       ┆ n_uncited │
    │ ---      ┆ ---      ┆ --- ┆ ---      ┆ ---       │
    │ f64      ┆ f64      ┆ f64 ┆ f64      ┆ i64       │
    ╞══════════╪══════════╪═════╪══════════╪═══════════╡
    │ 0.75     ┆ 0.5      ┆ 0.5 ┆ 0.333333 ┆ 1         │
    └──────────┴──────────┴─────┴──────────┴───────────┘
    """
    check_empty(empty, _WHERE)
    cols = columns_arg(columns, _WHERE)
    cit = read_citations(citations, cols)
    keys = [r for r in ("judge", "system") if cit.has(r)]
    weighted = labels_to_values(
        cit, "support", SUPPORT_WEIGHTS, [*keys, "query", "sentence", "citation_rank"], grades=True
    )
    refuse_duplicates(cit, weighted, [*keys, "query", "sentence", "citation_rank"], "citation ranks", "doc")
    every = cited_sentences(cit, keys, None if sentences is None else read_sentences(sentences, cols, cit))
    table = _per_answer(_per_sentence(weighted, every, keys), keys, empty)
    if per_query:
        return from_lazy(
            table.rename({**{k: cit.columns[k] for k in keys}, "query": cit.columns["query"]}), cit.origin
        )
    means = table.group_by(keys or pl.lit(0)).agg(
        *(pl.col(m).mean() for m in SUPPORT_MEASURES),
        pl.len().cast(pl.Int64).alias("n_queries"),
        *(pl.col(c).sum().cast(pl.Int64) for c in _COUNTS),
    )
    names = [*keys, *SUPPORT_MEASURES, "n_queries", *_COUNTS]
    means = natural_sorted(means, keys, names) if keys else means.select(names)
    return from_lazy(means.rename({k: cit.columns[k] for k in keys}), cit.origin)


def read_citations(citations: Any, cols: Mapping[str, str]) -> Table:
    """The citations table with its roles; a null or non-numeric citation rank refused."""
    cit = read_table(
        citations, "citations", cols, ["query", "sentence", "citation_rank", "doc", "support"],
        ["judge", "system"],
        ids=["judge", "system", "query", "sentence", "doc"],
    )  # fmt: skip
    rank = cit.rows.schema["citation_rank"]
    if not rank.is_numeric():
        msg = (
            f"The citations column {cols['citation_rank']!r} must hold numbers (the citation's place in its "
            f"sentence); it has dtype {rank}. Hint: cast it, e.g. "
            f"pl.col({cols['citation_rank']!r}).cast(pl.Int64)."
        )
        raise InvalidDataError(msg)
    bad = cit.rows.with_row_index("__row").filter(
        pl.col("citation_rank").is_null() | (pl.col("citation_rank").is_nan() if rank.is_float() else False)
    )
    if bad.height:
        r = bad.row(0, named=True)
        msg = (
            f"The citations have {bad.height} row(s) with a null {cols['citation_rank']!r}, first at row "
            f"{r['__row']} "
            f"({describe_row(cit, r, ['system', 'query', 'sentence', 'doc'])}). Hint: number each sentence's "
            "citations in the order the answer gives them."
        )
        raise InvalidDataError(msg)
    return cit


def read_sentences(sentences: Any, cols: Mapping[str, str], cit: Table) -> Table:
    """The sentences table, with a system column when the citations have one."""
    sys_roles = ["system"] if cit.has("system") else []
    sen = read_table(
        sentences, "sentences", cols, [*sys_roles, "query", "sentence"], ids=["system", "query", "sentence"]
    )
    return Table(sen.rows.unique(), sen.name, sen.origin, sen.columns)


def cited_sentences(cit: Table, keys: list[str], sen: Table | None) -> pl.DataFrame:
    """Every sentence of every answer: (judge, system, query, sentence).  With ``sen``, its
    sentences (for each judge); a cited sentence it lacks is refused."""
    cited = cit.rows.select(*keys, "query", "sentence").unique()
    if sen is None:
        return cited
    every = sen.rows
    if "judge" in keys:
        every = every.join(cit.rows.select("judge").unique(), how="cross")
    stray = cited.join(every, on=[*keys, "query", "sentence"], how="anti")
    if stray.height:
        r = stray.sort([*keys, "query", "sentence"]).row(0, named=True)
        msg = (
            f"{stray.height} cited sentence(s) are not in the sentences frame, e.g. "
            f"{describe_row(cit, r, [*keys, 'query', 'sentence'])}. Hint: the sentences frame lists every "
            "sentence of every answer (same system, query and sentence ids as the citations)."
        )
        raise InvalidDataError(msg)
    return every.select(*keys, "query", "sentence")


def _per_sentence(weighted: pl.DataFrame, every: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    """Per sentence: its first citation's weight (null: not judged), the mean of its judged
    citations' weights, and whether it is cited; uncited sentences from ``every``."""
    w = pl.col("support")
    per = (
        weighted.sort("citation_rank")
        .group_by(*keys, "query", "sentence")
        .agg(
            w.first().alias("first"),
            w.mean().alias("mean"),  # (nulls left out: the judged citations' mean)
            pl.len().cast(pl.Int64).alias("n_citations"),
            w.null_count().cast(pl.Int64).alias("n_unjudged"),
        )
    )
    return every.join(per, on=[*keys, "query", "sentence"], how="left").with_columns(
        pl.col("n_citations").fill_null(0), pl.col("n_unjudged").fill_null(0)
    )


def _per_answer(per: pl.DataFrame, keys: list[str], empty: Empty) -> pl.DataFrame:
    """The six scores and the counts of each (judge, system, query)."""
    cited = pl.col("n_citations") > 0
    first, mean = pl.col("first"), pl.col("mean")
    first_judged = first.is_not_null().sum()
    first_recall = pl.len() - (cited & first.is_null()).sum()
    all_judged = mean.is_not_null().sum()
    all_recall = pl.len() - (cited & mean.is_null()).sum()
    hard = (first == 1.0).cast(pl.Float64).sum()
    table = per.group_by(*keys, "query").agg(
        ratio(first.sum(), first_judged, empty).alias("wP_first"),
        ratio(first.sum(), first_recall, empty).alias("wR_first"),
        ratio(mean.sum(), all_judged, empty).alias("wP_all"),
        ratio(mean.sum(), all_recall, empty).alias("wR_all"),
        ratio(hard, first_judged, empty).alias("hP"),
        ratio(hard, first_recall, empty).alias("hR"),
        pl.len().cast(pl.Int64).alias("n_sentences"),
        (~cited).sum().cast(pl.Int64).alias("n_uncited"),
        pl.col("n_citations").sum().cast(pl.Int64),
        pl.col("n_unjudged").sum().cast(pl.Int64),
    )
    return natural_sorted(table, [*keys, "query"], [*keys, "query", *SUPPORT_MEASURES, *_COUNTS])
