"""Small judged data sets bundled with irframe.

:func:`golden` loads the Voltmart help-center golden set: 40 queries in three
segments, graded qrels (0-3) and three system runs (``bm25``, ``dense``, ``hybrid``)
that differ in instructive ways; :func:`rag` puts the answers of two RAG systems on top
of it (nuggets, assignments, citations).  The files are plain text (TREC qrels and runs, TSV
tables) under ``irframe/datasets/golden/``; the repository's ``scripts/make_golden.py`` regenerates them.

Examples
--------
>>> import irframe
>>> from irframe.datasets import golden
>>> g = golden()
>>> irframe.evaluate(g.runs, ["nDCG@10", "R@100"], g.qrels, by="system")
shape: (3, 6)
┌────────┬──────────┬──────────┬───────────┬───────────┬────────────┐
│ system ┆ nDCG@10  ┆ R@100    ┆ n_queries ┆ n_missing ┆ n_unjudged │
│ ---    ┆ ---      ┆ ---      ┆ ---       ┆ ---       ┆ ---        │
│ str    ┆ f64      ┆ f64      ┆ i64       ┆ i64       ┆ i64        │
╞════════╪══════════╪══════════╪═══════════╪═══════════╪════════════╡
│ bm25   ┆ 0.663285 ┆ 0.84375  ┆ 40        ┆ 0         ┆ 0          │
│ dense  ┆ 0.639459 ┆ 0.664583 ┆ 40        ┆ 0         ┆ 0          │
│ hybrid ┆ 0.787356 ┆ 0.841667 ┆ 40        ┆ 0         ┆ 0          │
└────────┴──────────┴──────────┴───────────┴───────────┴────────────┘
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

__all__ = ["RAG", "ClickData", "Golden", "GoldenPaths", "click_log", "golden", "rag"]

_HERE = Path(__file__).resolve().parent / "golden"
SYSTEMS = ("bm25", "dense", "hybrid")


@dataclass(frozen=True)
class GoldenPaths:
    """Where the golden set's files are on disk (TREC text and TSV)."""

    qrels: Path
    runs: dict[str, Path]
    queries: Path
    docs: Path


@dataclass(frozen=True)
class Golden:
    """The golden set as frames.

    Attributes
    ----------
    qrels : frame
        ``query_id``, ``doc_id``, ``relevance`` (0-3).
    runs : frame
        The three runs stacked: ``system``, ``query_id``, ``doc_id``, ``score``.
    queries : frame
        ``query_id``, ``text``, ``segment`` (navigational, informational, long-tail).
    docs : frame
        ``doc_id``, ``title``.
    paths : GoldenPaths
        The files the frames were read from.
    """

    qrels: Any
    runs: Any
    queries: Any
    docs: Any
    paths: GoldenPaths


def golden_paths() -> GoldenPaths:
    """Paths of the golden set's files.

    Examples
    --------
    >>> sorted(golden_paths().runs)
    ['bm25', 'dense', 'hybrid']
    """
    return GoldenPaths(
        qrels=_HERE / "qrels.txt",
        runs={name: _HERE / "runs" / f"{name}.run" for name in SYSTEMS},
        queries=_HERE / "queries.tsv",
        docs=_HERE / "docs.tsv",
    )


def golden(*, backend: Literal["polars", "pandas"] = "polars") -> Golden:
    """Load the bundled golden set (40 queries, graded qrels, three runs).

    The queries and documents are an invented help center ("Voltmart", an electronics
    shop).  ``bm25`` has good recall and wins on long-tail queries (codes, model
    numbers); ``dense`` is good at the top of informational questions but misses many
    pages; ``hybrid`` is best overall but loses to ``bm25`` on long-tail queries.  Some
    relevant pages are retrieved by no system, and query ``q40`` has no relevant page.

    Parameters
    ----------
    backend : {"polars", "pandas"}, default "polars"
        Type of the returned frames.

    Returns
    -------
    Golden
        ``.qrels``, ``.runs`` (with a ``system`` column), ``.queries``, ``.docs`` and
        ``.paths``.

    Examples
    --------
    >>> g = golden()
    >>> g.runs.shape, g.qrels.shape, g.queries.shape
    ((2400, 4), (148, 3), (40, 3))
    >>> g.queries.group_by("segment").len().sort("segment").rows()
    [('informational', 16), ('long-tail', 12), ('navigational', 12)]
    >>> golden(backend="pandas").runs.columns.tolist()
    ['system', 'query_id', 'doc_id', 'score']
    """
    import polars as pl

    from irframe.exceptions import InvalidParameterError
    from irframe.io.trec import read_trec_qrels, read_trec_runs

    if backend not in ("polars", "pandas"):
        err = InvalidParameterError.for_value("backend", "golden", "'polars' or 'pandas'", backend)
        raise err
    paths = golden_paths()
    tsv: dict[str, Any] = {"separator": "\t", "quote_char": None, "infer_schema": False}
    frames = {
        "qrels": read_trec_qrels(paths.qrels),
        "runs": read_trec_runs(paths.runs),
        "queries": pl.read_csv(paths.queries, **tsv),
        "docs": pl.read_csv(paths.docs, **tsv),
    }
    if backend == "pandas":
        frames = {k: v.to_pandas() for k, v in frames.items()}
    return Golden(**frames, paths=paths)


_RAG = Path(__file__).resolve().parent / "rag"
RAG_SYSTEMS = ("bm25", "hybrid")


@dataclass(frozen=True)
class RAG:
    """The RAG example as frames (see :func:`rag`).

    Attributes
    ----------
    nuggets : frame
        ``query_id``, ``nugget_id``, ``importance`` (vital, okay), ``text``.
    assignments : frame
        The LLM judge's labels of every answer's nuggets: ``system``, ``query_id``,
        ``nugget_id``, ``assignment`` (support, partial_support, not_support).
    human : frame
        A person's labels of 30 of those per system (a random sample), same columns.
    citations : frame
        ``system``, ``query_id``, ``sentence_id``, ``citation_rank``, ``doc_id``, ``support``
        (full, partial, none; null: not judged).
    sentences : frame
        ``system``, ``query_id``, ``sentence_id``, ``text``: every sentence of every answer.
    runs : frame
        The runs that fed the answers (the golden set's ``bm25`` and ``hybrid``), stacked.
    qrels, queries : frame
        The golden set's.
    """

    nuggets: Any
    assignments: Any
    human: Any
    citations: Any
    sentences: Any
    runs: Any
    qrels: Any
    queries: Any


def rag(*, backend: Literal["polars", "pandas"] = "polars") -> RAG:
    """Load the bundled RAG example: two systems' answers to the golden set's 40 queries.

    Each system is named after the retriever that fed it (``bm25``, ``hybrid``; the same
    generator reads the run's top pages).  An LLM judge labelled every nugget of every
    answer and is lenient; a person labelled 30 per system.  Some citations point to pages
    the run never retrieved (``kb999`` does not exist).  ``scripts/make_rag.py`` in the
    repository regenerates the files (``irframe/datasets/rag/``).

    Parameters
    ----------
    backend : {"polars", "pandas"}, default "polars"
        Type of the returned frames.

    Examples
    --------
    >>> r = rag()
    >>> r.assignments.shape, r.human.shape, r.citations.columns[-1]
    ((230, 4), (60, 4), 'support')
    >>> sorted(r.runs["system"].unique())
    ['bm25', 'hybrid']
    """
    import polars as pl

    from irframe.exceptions import InvalidParameterError

    if backend not in ("polars", "pandas"):
        raise InvalidParameterError.for_value("backend", "rag", "'polars' or 'pandas'", backend)
    g = golden()
    tsv: dict[str, Any] = {"separator": "\t", "quote_char": None, "infer_schema": False}
    frames = {name: pl.read_csv(_RAG / f"{name}.tsv", **tsv)
              for name in ("nuggets", "assignments", "human", "citations", "sentences")}  # fmt: skip
    frames["citations"] = frames["citations"].with_columns(
        pl.col("citation_rank").cast(pl.Int64), pl.col("support").replace("", None)
    )
    frames["runs"] = g.runs.filter(pl.col("system").is_in(RAG_SYSTEMS))
    frames["qrels"], frames["queries"] = g.qrels, g.queries
    if backend == "pandas":
        frames = {k: v.to_pandas() for k, v in frames.items()}
    return RAG(**frames)


_CLICKS = Path(__file__).resolve().parent / "clicks"


@dataclass(frozen=True)
class ClickData:
    """The simulated click log and what generated it (see :func:`click_log`).

    Attributes
    ----------
    log : frame
        ``impression_id``, ``query_id``, ``doc_id``, ``position`` (1-10), ``clicked`` (0/1),
        ``system`` (the ranker that served the impression: ``a`` or ``old``).
    truth : frame
        The hidden grades (0-3): ``query_id``, ``doc_id``, ``relevance``.
    theta : frame
        The true examination probability: ``position``, ``theta`` (1/k^0.8).
    runs : frame
        ``system`` (``a``, ``old``, ``b``), ``query_id``, ``doc_id``, ``rank``; ``b`` is the new
        ranker, never served, truly better than ``a``.
    """

    log: Any
    truth: Any
    theta: Any
    runs: Any


def click_log(*, backend: Literal["polars", "pandas"] = "polars") -> ClickData:
    """Load the bundled simulated click log (50,000 rows) and its known truth.

    60 queries, 10 documents each with hidden grades 0-3; 5,000 impressions showing all
    ten, served by the production ranker ``a`` (70%) or its predecessor ``old`` (30%);
    users examine position k with probability 1/k^0.8 and click an examined document with
    probability 0.05, 0.25, 0.55 or 0.85 by grade.  ``b`` is a new ranker, truly better than
    ``a``, that never served: judgments made of raw clicks rank it below ``a``.
    ``scripts/make_clicks.py`` in the repository regenerates the files.

    Parameters
    ----------
    backend : {"polars", "pandas"}, default "polars"
        Type of the returned frames.

    Examples
    --------
    >>> c = click_log()
    >>> c.log.shape, c.truth.shape, c.runs["system"].unique().sort().to_list()
    ((50000, 6), (600, 3), ['a', 'b', 'old'])
    >>> round(c.log["clicked"].mean(), 4)
    0.124
    """
    import polars as pl

    from irframe.exceptions import InvalidParameterError

    if backend not in ("polars", "pandas"):
        raise InvalidParameterError.for_value("backend", "click_log", "'polars' or 'pandas'", backend)
    tsv: dict[str, Any] = {"separator": "\t", "quote_char": None}
    frames = {
        "log": pl.read_parquet(_CLICKS / "log.parquet").with_columns(
            pl.col("position", "clicked").cast(pl.Int64)
        ),
        "truth": pl.read_csv(_CLICKS / "truth.tsv", **tsv),
        "theta": pl.read_csv(_CLICKS / "theta.tsv", **tsv),
        "runs": pl.read_csv(_CLICKS / "runs.tsv", **tsv),
    }
    if backend == "pandas":
        frames = {k: v.to_pandas() for k, v in frames.items()}
    return ClickData(**frames)
