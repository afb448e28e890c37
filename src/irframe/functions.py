"""The typed public API: ``evaluate`` and its one-measure shortcuts.

Every ``.ir`` namespace method forwards to a function here.  ``evaluate``'s signature is
the one full list of the options; the backends' entry points (``irframe.dask.evaluate``,
``irframe.spark.evaluate``, ``irframe.evaluate_parquet``) take them as
``**options: Unpack[EvaluateOptions]`` and forward them (:func:`with_evaluate_options`).
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypedDict, TypeVar

from irframe._backends.registry import backend_for, backend_named
from irframe._input.by_exprs import has_expressions, protected_columns, with_by_columns
from irframe._input.options import DEFAULT_RANK, ColumnsArg, Duplicates, Missing, Options, Order, Ties
from irframe.exceptions import InvalidParameterError
from irframe.measures import Measure
from irframe.progress import Progress, check_progress

if TYPE_CHECKING:
    import polars as pl
    from typing_extensions import Unpack  # (typing.Unpack: Python 3.11)

__all__ = [
    "BackendOptions",
    "ColumnOptions",
    "EvaluateOptions",
    "MeasureOptions",
    "ap",
    "bpref",
    "evaluate",
    "evaluate_both",
    "judged",
    "mrr",
    "ndcg",
    "precision",
    "recall",
    "rprec",
    "success",
    "tied_at_cutoff",
]

FrameT = TypeVar("FrameT")
FnT = TypeVar("FnT", bound=Callable[..., Any])
MeasureLike = str | Measure
# the column options a by expression may not be named after (see irframe._input.by_exprs)
_READ_COLUMNS = (
    "query_col", "doc_col", "rank_col", "score_col", "relevance_col", "qrels_query_col",
    "qrels_doc_col", "qrels_relevance_col", "columns",
)  # fmt: skip


class ColumnOptions(TypedDict, total=False):
    """:func:`evaluate`'s column names and reading rules (``depth``, ``duplicates``,
    ``order``, ``ties``): what :func:`irframe.compare`, :func:`irframe.compare_report` and
    :func:`irframe.moved` take as ``**column_kwargs``."""

    query_col: str
    doc_col: str
    rank_col: str | None
    score_col: str
    relevance_col: str
    qrels_query_col: str | None
    qrels_doc_col: str | None
    qrels_relevance_col: str | None
    qrels_subtopic_col: str
    duplicates: Duplicates
    columns: ColumnsArg
    order: Order
    depth: int | None
    ties: Ties


class _Selection(ColumnOptions, total=False):
    """:func:`evaluate`'s keyword options but ``per_query`` (the one-measure functions' own)."""

    by: str | pl.Expr | Sequence[str | pl.Expr] | None
    missing: Missing
    weights: str | None
    queries: Any
    progress: Progress


class EvaluateOptions(_Selection, total=False):
    """The keyword options of :func:`evaluate`, for functions that forward them
    (``**options: Unpack[EvaluateOptions]``): the names and types of ``evaluate``'s
    keyword-only parameters (a test keeps them equal), without the defaults, which are
    ``evaluate``'s."""

    per_query: bool


class BackendOptions(TypedDict, total=False):
    """The options of the backend that evaluates a run (``**backend_options`` of
    :func:`evaluate`): each backend takes its own and refuses the others."""

    npartitions: int | None  # a dask frame (irframe.dask.evaluate)
    num_partitions: int | None  # a Spark frame (irframe.spark.evaluate)
    memory_limit: int | str  # a path to parquet files (irframe.evaluate_parquet)
    buckets: int | None
    output: str | os.PathLike[str] | None
    tmp_dir: str | os.PathLike[str] | None


class MeasureOptions(_Selection, BackendOptions, total=False):
    """The keyword options of the one-measure functions (:func:`ndcg`, :func:`precision`
    ...): :func:`evaluate`'s but ``per_query`` (theirs), and the backends'."""


def evaluate(
    run: FrameT,
    measures: MeasureLike | Iterable[MeasureLike],
    qrels: Any = None,
    *,
    by: str | pl.Expr | Sequence[str | pl.Expr] | None = None,
    per_query: bool = False,
    missing: Missing = "zero",
    query_col: str = "query_id",
    doc_col: str = "doc_id",
    rank_col: str | None = DEFAULT_RANK,
    score_col: str = "score",
    relevance_col: str = "relevance",
    qrels_query_col: str | None = None,
    qrels_doc_col: str | None = None,
    qrels_relevance_col: str | None = None,
    qrels_subtopic_col: str = "subtopic",
    duplicates: Duplicates = "error",
    columns: ColumnsArg = None,
    order: Order = "auto",
    depth: int | None = None,
    ties: Ties = "docid",
    weights: str | None = None,
    queries: Any = None,
    progress: Progress = None,
    **backend_options: Unpack[BackendOptions],
) -> FrameT:
    """Evaluate a ranked run, per query or as means, in the caller's frame type.

    Parameters
    ----------
    run : pandas.DataFrame, polars.DataFrame or polars.LazyFrame
        Long format: one row per (query, document) with a ``rank`` (ascending) or a
        ``score`` (descending, ties broken by doc id descending like trec_eval) column.
        Also the peers' in-memory forms (the result is then a polars frame): a dict
        ``{query_id: {doc_id: score}}`` (pytrec_eval, ranx), a ranx ``Run``, or a list
        or iterator of ir_measures ``ScoredDoc`` tuples.
    measures : str, Measure or a list of them
        ``"nDCG@10"``, ``"P(rel=2)@5"``, ``"RR"``, ``"AP"``, trec_eval names such as
        ``"ndcg_cut_10"``... The output columns are named by these strings.
    qrels : frame, optional
        Judgments (query, document, relevance). Without it, grades are read from the run's
        ``relevance`` column (the golden-set case; null means not judged).  Also a dict
        ``{query_id: {doc_id: grade}}`` (integer grades), a ranx ``Qrels``, or a list or
        iterator of ir_measures ``Qrel`` tuples (``iteration`` is the subtopic).
    by : str, pl.Expr or a list of them, optional
        Columns to evaluate separately: stacked systems, segments... A by-column found in
        ``queries`` or in ``qrels`` is a query attribute (copied onto the run by query id
        when the run lacks it); the others partition the run. A polars expression groups
        as in polars' ``group_by`` (``pl.col("query_len") >= 5``, named ``query_len``, or
        ``.alias("long")``): it is computed as that column on each of run, qrels and
        ``queries`` that holds its input columns, then grouped by like one.
    per_query : bool, default False
        One row per (by-group, query) instead of the means.
    missing : {"zero", "drop", "error"}, default "zero"
        Judged queries absent from the run: score 0 and count them (trec_eval ``-c``),
        leave them out (trec_eval's default), or raise.
    query_col, doc_col, rank_col, score_col, relevance_col : str
        Column names in the run. ``rank_col`` is used when present, else ``score_col``.
    qrels_query_col, qrels_doc_col, qrels_relevance_col : str, optional
        Column names in the qrels when they differ from the run's.
    qrels_subtopic_col : str, default "subtopic"
        The qrels' subtopic (intent) column, read only by the diversity measures
        (``alpha_nDCG@20``, ``ERR_IA@20``, ...: see :mod:`irframe.measures.diversity`);
        ``read_trec_qrels(path, subtopics=True)`` gives it.  Other measures read the
        qrels as trec_eval does (query, doc, relevance): a document judged for several
        subtopics is then a duplicate judgment, an error.
    duplicates : {"error", "first"}, default "error"
        A document twice in one query's ranking: raise (like trec_eval) or keep the
        best-ranked row.
    columns : {"irframe", "trec", "pyterrier", "ir_measures", "ranx"} or dict, optional
        A column convention: ``"pyterrier"`` is qid/docno/score/rank with qrels ``label``,
        ``"ir_measures"`` query_id/doc_id/score/relevance, ``"ranx"`` q_id/doc_id/score
        (qrels ``score``); ``"trec"``, ``"ir_measures"`` and ``"ranx"`` rank by score. Or a
        mapping ``{role: column}`` with roles query, doc, rank, score, relevance,
        qrels_query, qrels_doc, qrels_relevance. Explicit ``*_col`` arguments win. Unset,
        when the run has no ``query_id`` column and exactly one preset fits, it is used.
    order : {"auto", "rank", "score"}, default "auto"
        What orders each query's documents: the rank column (ascending), the score
        (descending), or ``"auto"``: the rank when present, else the score. With both
        columns, ``"auto"`` raises when they disagree within a query. Ties are broken by
        doc id, descending (trec_eval's rule), either way.
    depth : int, optional
        At most this many documents per query: the first ``depth`` in ranking order
        (trec_eval's ``-M``; the documents below are left out before anything else,
        so ``NumRet`` is at most ``depth``, R and IDCG do not change, and a document
        repeated only below the depth is no duplicate).  Default: all of them.
    ties : {"docid", "expected", "optimistic", "pessimistic"}, default "docid"
        Documents of equal score (or rank): ``"docid"`` orders them by doc id, descending
        (trec_eval).  The tie-aware values of McSherry and Najork (2008), for P, R, RR,
        AP and nDCG only (other measures raise): ``"expected"``, the mean over every
        order of the tied documents; ``"optimistic"`` / ``"pessimistic"``, the value when
        the relevant (higher-gain) documents of each tie come first / last.  In process
        only (not on dask, Spark or parquet paths).  :func:`irframe.tied_at_cutoff` lists
        the queries whose ties cross a cutoff.
    queries : frame, optional
        Query attributes keyed by query id (a ``query_id`` column, or the run's or qrels'
        query column): its columns can be used in ``by``. Every backend takes it (a
        pandas or polars frame; for a dask run also a dask frame, for a Spark run also a
        Spark frame): it is small, checked for one value per query, and joined onto the
        run (and the qrels) by query id. Unused when the run has every ``by`` column.
    weights : str, optional
        A column of weights, one per query (its traffic, say, or the ``segment_weight`` of
        :func:`irframe.sample_queries`), read from ``queries`` or else the qrels (not the
        run: a judged query the run lacks would have none); each must be a number >= 0
        and every judged query needs one. The means become weighted means (see Notes) and
        gain a ``sum_weights`` column; per query, the weights come as a last column.
        Taken by the in-process and Dask backends.
    progress : bool or callable, optional
        Report the steps of long work: ``True`` shows a bar (tqdm's when installed, else
        one line on stderr), ``False`` nothing; a callable is called as ``fn(done, total,
        info)`` after each step (see :mod:`irframe.progress`).  Default (None): a bar on a
        terminal, for work that takes a while (an in-memory run of more than
        :data:`irframe.progress.AUTO_ROWS` rows; every bucket out of core; every stage
        on Dask and Spark).
    **backend_options
        Options of the backend that evaluates ``run``: ``npartitions`` for a dask frame,
        ``num_partitions`` for a Spark frame, ``memory_limit``/``buckets``/``output``/``tmp_dir``
        for a path to parquet files (see :func:`irframe.evaluate_parquet`).

    Returns
    -------
    Same type as ``run``
        ``per_query=True``: the key columns and one Float64 column per measure; judged
        queries missing from the run are 0 (``missing="zero"``); run queries with no
        judgment have null values. ``per_query=False``: the mean of each measure over the
        judged queries, and ``n_queries``, ``n_missing`` (judged queries not in the run)
        and ``n_unjudged`` (run queries without judgments, excluded). An empty run (a
        filter that selected nothing) is no error: with qrels every judged query is
        missing from it; without, the per-query frame is empty and the means are null
        with ``n_queries`` 0.

    Raises
    ------
    IrFrameError
        Subclasses name the column, query or parameter at fault and hint at the fix.

    Notes
    -----
    An in-memory run of more than 1.5 million rows is evaluated in buckets of whole
    queries, one after the other: the results are those of one pass, at a fraction of
    the peak memory.  A pandas run is then converted to polars one bucket at a time,
    only the columns read, when every column has a dtype Arrow shares without a copy
    (numbers, booleans, dates, Arrow-backed strings such as pandas 3's ``str``); a frame
    with ``object`` or ``category`` columns is converted whole first.

    With ``weights``, each mean is ``sum(w x) / sum(w)`` over the queries that count
    (``n_queries`` still counts them; a query of weight 0 counts but adds nothing), a
    geometric mean ``exp(sum(w log x) / sum(w))``, a sum (``num_q``) ``sum(w x)``: the
    weighted sums and the sum of the weights are partial sums like the plain ones, so
    every backend adds partitions up to the same means.  Per-query values do not change.
    Without ``weights`` nothing changes (trec_eval's numbers).

    Examples
    --------
    >>> import polars as pl, irframe
    >>> run = pl.DataFrame({
    ...     "query_id": ["q1", "q1", "q1", "q2", "q2"],
    ...     "doc_id": ["a", "b", "c", "a", "d"],
    ...     "rank": [1, 2, 3, 1, 2],
    ...     "relevance": [0, 3, 1, 2, 0],
    ... })
    >>> irframe.evaluate(run, ["nDCG@3", "RR", "P@2"], per_query=True)
    shape: (2, 4)
    ┌──────────┬──────────┬─────┬─────┐
    │ query_id ┆ nDCG@3   ┆ RR  ┆ P@2 │
    │ ---      ┆ ---      ┆ --- ┆ --- │
    │ str      ┆ f64      ┆ f64 ┆ f64 │
    ╞══════════╪══════════╪═════╪═════╡
    │ q1       ┆ 0.644287 ┆ 0.5 ┆ 0.5 │
    │ q2       ┆ 1.0      ┆ 1.0 ┆ 0.5 │
    └──────────┴──────────┴─────┴─────┘
    >>> irframe.evaluate(run, ["nDCG@3", "RR"])
    shape: (1, 5)
    ┌──────────┬──────┬───────────┬───────────┬────────────┐
    │ nDCG@3   ┆ RR   ┆ n_queries ┆ n_missing ┆ n_unjudged │
    │ ---      ┆ ---  ┆ ---       ┆ ---       ┆ ---        │
    │ f64      ┆ f64  ┆ i64       ┆ i64       ┆ i64        │
    ╞══════════╪══════╪═══════════╪═══════════╪════════════╡
    │ 0.822143 ┆ 0.75 ┆ 2         ┆ 0         ┆ 0          │
    └──────────┴──────┴───────────┴───────────┴────────────┘
    >>> irframe.evaluate(run, ["RR", "NumRet"], depth=1, per_query=True).rows()  # trec_eval -M 1
    [('q1', 0.0, 1.0), ('q2', 1.0, 1.0)]
    >>> irframe.evaluate({"q1": {"a": 0.2, "b": 0.9}}, ["RR"], {"q1": {"a": 1}}).item(0, "RR")
    0.5
    >>> tied = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "b", "c"],
    ...                      "score": [1.0, 1.0, 0.5], "relevance": [1, 0, 0]})
    >>> [irframe.evaluate(tied, ["P@1"], ties=t).item(0, "P@1") for t in
    ...  ("docid", "expected", "optimistic", "pessimistic")]  # b ranks first under docid
    [0.0, 0.5, 1.0, 0.0]

    Weighted by traffic (q1 three times as often as q2): RR = (3 * 0.5 + 1 * 1.0) / 4.

    >>> traffic = pl.DataFrame({"query_id": ["q1", "q2"], "traffic": [300, 100]})
    >>> irframe.evaluate(run, ["RR"], weights="traffic", queries=traffic).select("RR", "sum_weights")
    shape: (1, 2)
    ┌───────┬─────────────┐
    │ RR    ┆ sum_weights │
    │ ---   ┆ ---         │
    │ f64   ┆ f64         │
    ╞═══════╪═════════════╡
    │ 0.625 ┆ 400.0       │
    └───────┴─────────────┘
    """
    options: EvaluateOptions = {
        "by": by, "per_query": per_query, "missing": missing, "query_col": query_col,
        "doc_col": doc_col, "rank_col": rank_col, "score_col": score_col,
        "relevance_col": relevance_col, "qrels_query_col": qrels_query_col,
        "qrels_doc_col": qrels_doc_col, "qrels_relevance_col": qrels_relevance_col,
        "qrels_subtopic_col": qrels_subtopic_col, "duplicates": duplicates, "columns": columns,
        "order": order, "depth": depth, "ties": ties, "weights": weights, "queries": queries,
        "progress": progress,
    }  # fmt: skip
    return evaluate_as("evaluate", run, measures, qrels, options, **backend_options)  # type: ignore[no-any-return]


def evaluate_as(
    where: str,
    run: Any,
    measures: Any,
    qrels: Any,
    options: Mapping[str, Any],
    *,
    backend: str | None = None,
    **backend_options: Any,
) -> Any:
    """:func:`evaluate` with its keyword options as one mapping, for the entry points that
    forward them: ``where`` names the caller in messages; ``backend`` forces a backend
    (by its registry name) instead of the one the run's type selects.
    """
    rest = dict(options)
    per_query = rest.pop("per_query", False)
    queries = rest.pop("queries", None)
    progress = check_progress(rest.pop("progress", None), where)
    if not isinstance(per_query, bool):
        raise InvalidParameterError.for_value("per_query", where, "a bool", per_query)
    if has_expressions(rest.get("by")):
        protected = protected_columns({k: v for k, v in rest.items() if k in _READ_COLUMNS})
        rest["by"], frames = with_by_columns(
            rest["by"], {"run": run, "qrels": qrels, "queries": queries}, where=where, protected=protected
        )
        run, qrels, queries = frames["run"], frames["qrels"], frames["queries"]
    opts = Options.build(where, **rest)
    found = backend_for(run) if backend is None else backend_named(backend)
    if queries is not None:
        backend_options["queries"] = queries
    if progress is not None:  # (None, automatic, is every backend's default)
        backend_options["progress"] = progress
    return found.evaluate(run, measures, qrels, opts, per_query, **backend_options)


def with_evaluate_options(fn: FnT) -> FnT:
    """Show :func:`evaluate`'s keyword options in the signature of ``fn``, which takes
    them as ``**options: Unpack[EvaluateOptions]`` (for ``inspect.signature``, ``help``,
    IPython and the docs; mypy reads the TypedDict).

    The options come after ``fn``'s positional parameters, with ``evaluate``'s defaults
    and annotations; ``fn``'s own keyword-only parameters (its backend's options) follow.

    Examples
    --------
    >>> @with_evaluate_options
    ... def shout(run, measures, qrels=None, *, loud: bool = True, **options):
    ...     return evaluate_as("shout", run, measures, qrels, options)
    >>> params = inspect.signature(shout).parameters
    >>> params["missing"].default, params["loud"].default, "options" in params
    ('zero', True, False)
    """
    return forwarding(EvaluateOptions, first=True)(fn)


def with_column_options(fn: FnT) -> FnT:
    """:func:`forwarding` of :class:`ColumnOptions`: ``compare``'s, ``moved``'s ``**column_kwargs``."""
    return forwarding(ColumnOptions)(fn)


def with_measure_options(fn: FnT) -> FnT:
    """:func:`forwarding` of :class:`MeasureOptions`: the one-measure functions' ``**kwargs``."""
    return forwarding(MeasureOptions, rest=True)(fn)


def forwarding(options: type, *, first: bool = False, rest: bool = False) -> Callable[[FnT], FnT]:
    """A decorator showing, in place of ``fn``'s ``**kwargs``, the parameters of
    :func:`evaluate` that the TypedDict ``options`` names (``fn`` takes them as
    ``**kwargs: Unpack[options]``), with ``evaluate``'s defaults and annotations.

    ``first``: they come right after ``fn``'s positional parameters (else after its
    keyword-only ones); ``rest``: ``**kwargs`` stays, last (for keys of ``options`` that
    are not ``evaluate``'s: the backends' options).  Marks ``fn`` with
    ``__evaluate_options__``, the names added (the docs' griffe extension reads it).

    Examples
    --------
    >>> @forwarding(ColumnOptions)
    ... def show(run, *, top: int = 3, **column_kwargs):
    ...     return run
    >>> params = inspect.signature(show).parameters
    >>> list(params)[:4], params["query_col"].default
    (['run', 'top', 'query_col', 'doc_col'], 'query_id')
    """
    wanted = set(getattr(options, "__annotations__", {}))

    def decorate(fn: FnT) -> FnT:
        own = inspect.signature(fn)
        params = [p for p in own.parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD]
        var_kw = [p for p in own.parameters.values() if p.kind is inspect.Parameter.VAR_KEYWORD]
        taken = {p.name for p in params}
        added = [
            p
            for p in inspect.signature(evaluate).parameters.values()
            if p.kind is inspect.Parameter.KEYWORD_ONLY and p.name in wanted and p.name not in taken
        ]
        positional = [p for p in params if p.kind is not inspect.Parameter.KEYWORD_ONLY]
        keyword = [p for p in params if p.kind is inspect.Parameter.KEYWORD_ONLY]
        ordered = [*added, *keyword] if first else [*keyword, *added]
        fn.__signature__ = own.replace(parameters=[*positional, *ordered, *(var_kw if rest else [])])  # type: ignore[attr-defined]
        fn.__evaluate_options__ = tuple(p.name for p in added)  # type: ignore[attr-defined]
        return fn

    return decorate


def options_of(source: Callable[..., Any]) -> Callable[[FnT], FnT]:
    """A decorator for a function that wraps ``source`` and forwards its keyword options as
    ``**options: Unpack[...]`` (the TypedDict of ``source``'s keyword-only parameters, which
    mypy reads): ``fn``'s signature shows ``source``'s parameters, with their defaults and
    annotations, and its own return annotation, so that the keyword list is written once
    (``compare`` of ``compare_report``, ``moved`` and ``moved_frame`` of their one
    implementation).  ``fn``'s docstring documents ``source``'s own options; the options
    ``source`` shows of :func:`evaluate` (its ``__evaluate_options__``) are ``fn``'s too (the
    docs' griffe extension documents them as :func:`evaluate` does).

    Examples
    --------
    >>> def full(run, qrels=None, *, top=3, depth=None):
    ...     return top
    >>> @options_of(full)
    ... def thin(run, qrels=None, **options):
    ...     return full(run, qrels, **options) * 2
    >>> str(inspect.signature(thin)), thin(None, top=5)
    ('(run, qrels=None, *, top=3, depth=None)', 10)
    """
    wanted = inspect.signature(source)

    def decorate(fn: FnT) -> FnT:
        own = inspect.signature(fn)
        positional = [p.name for p in own.parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD]
        theirs = [p.name for p in wanted.parameters.values() if p.kind is not inspect.Parameter.KEYWORD_ONLY]
        if positional != theirs[: len(positional)]:
            msg = f"{fn.__name__}{own} does not take the positional parameters of {source.__name__}{wanted}"
            raise TypeError(msg)
        fn.__signature__ = wanted.replace(return_annotation=own.return_annotation)  # type: ignore[attr-defined]
        fn.__evaluate_options__ = getattr(source, "__evaluate_options__", ())  # type: ignore[attr-defined]
        return fn

    return decorate


def _one(run: FrameT, measure: Measure, per_query: bool, kwargs: dict[str, Any]) -> FrameT:
    """Evaluate one measure; its column is named by the measure's canonical string."""
    return evaluate(run, [measure], per_query=per_query, **kwargs)


@with_measure_options
def ndcg(
    run: FrameT,
    k: int | None = None,
    qrels: Any = None,
    *,
    gain: str | dict[float, float] = "exp",
    per_query: bool = True,
    **kwargs: Unpack[MeasureOptions],
) -> FrameT:
    """nDCG@k per query (``gain="exp"``: 2^rel - 1; ``"linear"``: trec_eval's ndcg_cut).

    Notes
    -----
    ``gain`` may be a mapping ``{grade: gain}`` (finite numbers; unlisted grades keep
    their linear gain). nDCG stays in [0, 1] for non-negative gains. A negative gain
    lowers the DCG, so nDCG can fall below 0 (it never exceeds 1: the ideal ranking
    takes only the positive gains, and a query without any positive gain scores 0).
    Under the default ``"exp"`` gain a grade of 1024 or more overflows float64 (2^1024):
    evaluate raises :class:`~irframe.exceptions.InvalidDataError` naming the grade and
    the query (more exactly: 2^grade times the query's judged documents must stay below
    2^1024); use ``gain="linear"`` for such grades.

    Examples
    --------
    >>> import polars as pl, irframe
    >>> run = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "b", "c"],
    ...                     "score": [0.9, 0.8, 0.1], "relevance": [0, 3, 1]})
    >>> irframe.ndcg(run, k=3).item(0, "nDCG@3")  # (7/log2(3) + 1/log2(4)) / (7 + 1/log2(3))
    0.6442...
    >>> # grade 0 costs 1 (the ideal ignores it): (-1 + 7/log2(3) + 1/log2(4)) / (7 + 1/log2(3))
    >>> irframe.ndcg(run, k=3, gain={0: -1, 1: 1, 3: 7}).item(0, 1)
    0.5132...
    """
    m = Measure("nDCG", k)
    m = m(gains=gain) if isinstance(gain, dict) else m(gain=gain)
    return _one(run, m, per_query, {"qrels": qrels, **kwargs})


@with_measure_options
def precision(
    run: FrameT,
    k: int,
    qrels: Any = None,
    *,
    rel: float = 1,
    per_query: bool = True,
    **kwargs: Unpack[MeasureOptions],
) -> FrameT:
    """P@k per query: relevant documents in the top k divided by k.

    Examples
    --------
    >>> import polars as pl, irframe
    >>> run = pl.DataFrame({"query_id": ["q1"] * 2, "doc_id": ["a", "b"],
    ...                     "rank": [1, 2], "relevance": [1, 0]})
    >>> irframe.precision(run, k=4).item(0, "P@4")   # 1 relevant / 4, short runs count k
    0.25
    """
    return _one(run, Measure("P", k, rel=rel), per_query, {"qrels": qrels, **kwargs})


@with_measure_options
def recall(
    run: FrameT,
    k: int | None = None,
    qrels: Any = None,
    *,
    rel: float = 1,
    per_query: bool = True,
    **kwargs: Unpack[MeasureOptions],
) -> FrameT:
    """R@k per query: relevant documents in the top k over all judged relevant ones.

    Examples
    --------
    >>> import polars as pl, irframe
    >>> run = pl.DataFrame({"query_id": ["q1"] * 6, "doc_id": list("abcdef"),
    ...                     "rank": range(1, 7), "relevance": [0, 1, 0, 0, 0, 1]})
    >>> irframe.recall(run, k=5).item(0, "R@5")   # 2 relevant, one in the top 5
    0.5
    """
    return _one(run, Measure("R", k, rel=rel), per_query, {"qrels": qrels, **kwargs})


@with_measure_options
def mrr(
    run: FrameT,
    k: int | None = None,
    qrels: Any = None,
    *,
    rel: float = 1,
    per_query: bool = True,
    **kwargs: Unpack[MeasureOptions],
) -> FrameT:
    """Reciprocal rank of the first relevant document per query (its mean is MRR).

    Examples
    --------
    >>> import polars as pl, irframe
    >>> run = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": list("abc"),
    ...                     "rank": [1, 2, 3], "relevance": [0, 1, 1]})
    >>> irframe.mrr(run).item(0, "RR")   # first hit at rank 2
    0.5
    """
    return _one(run, Measure("RR", k, rel=rel), per_query, {"qrels": qrels, **kwargs})


@with_measure_options
def ap(
    run: FrameT,
    k: int | None = None,
    qrels: Any = None,
    *,
    rel: float = 1,
    per_query: bool = True,
    **kwargs: Unpack[MeasureOptions],
) -> FrameT:
    """Average precision per query (its mean is MAP).

    Examples
    --------
    >>> import polars as pl, irframe
    >>> run = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": list("abc"),
    ...                     "rank": [1, 2, 3], "relevance": [1, 0, 1]})
    >>> irframe.ap(run).item(0, "AP")   # (1/1 + 2/3) / 2
    0.8333...
    """
    return _one(run, Measure("AP", k, rel=rel), per_query, {"qrels": qrels, **kwargs})


@with_measure_options
def rprec(
    run: FrameT,
    qrels: Any = None,
    *,
    rel: float = 1,
    per_query: bool = True,
    **kwargs: Unpack[MeasureOptions],
) -> FrameT:
    """R-precision per query: relevant documents in the top R, over R.

    Examples
    --------
    >>> import polars as pl, irframe
    >>> run = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": list("abc"),
    ...                     "rank": [1, 2, 3], "relevance": [0, 1, 1]})
    >>> irframe.rprec(run).item(0, "Rprec")   # R = 2, one relevant in the top 2
    0.5
    """
    return _one(run, Measure("Rprec", rel=rel), per_query, {"qrels": qrels, **kwargs})


@with_measure_options
def bpref(
    run: FrameT,
    qrels: Any = None,
    *,
    rel: float = 1,
    per_query: bool = True,
    **kwargs: Unpack[MeasureOptions],
) -> FrameT:
    """Bpref per query (trec_eval's definition; unjudged documents are skipped).

    Examples
    --------
    >>> import polars as pl, irframe
    >>> run = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": list("abc"),
    ...                     "rank": [1, 2, 3], "relevance": [0, 1, None]})
    >>> irframe.bpref(run).item(0, "Bpref")   # 1 - min(1, R=1) / min(N=1, R=1)
    0.0
    """
    return _one(run, Measure("Bpref", rel=rel), per_query, {"qrels": qrels, **kwargs})


@with_measure_options
def success(
    run: FrameT,
    k: int,
    qrels: Any = None,
    *,
    rel: float = 1,
    per_query: bool = True,
    **kwargs: Unpack[MeasureOptions],
) -> FrameT:
    """Success@k (hit rate) per query: 1 if a relevant document is in the top k.

    Examples
    --------
    >>> import polars as pl, irframe
    >>> run = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": list("abc"),
    ...                     "rank": [1, 2, 3], "relevance": [0, 0, 2]})
    >>> irframe.success(run, k=2).item(0, "Success@2")
    0.0
    """
    return _one(run, Measure("Success", k, rel=rel), per_query, {"qrels": qrels, **kwargs})


@with_measure_options
def judged(
    run: FrameT, k: int, qrels: Any = None, *, per_query: bool = True, **kwargs: Unpack[MeasureOptions]
) -> FrameT:
    """Judged@k per query: the fraction of the top k retrieved that has a judgment.

    Divided by min(k, number retrieved), as ir_measures does.

    Examples
    --------
    >>> import polars as pl, irframe
    >>> run = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": list("abc"),
    ...                     "rank": [1, 2, 3], "relevance": [0, None, 2]})
    >>> irframe.judged(run, k=2).item(0, "Judged@2")
    0.5
    """
    return _one(run, Measure("Judged", k), per_query, {"qrels": qrels, **kwargs})


def tied_at_cutoff(run: FrameT, k: int, **options: Any) -> FrameT:
    """The tie at rank ``k`` of each query: whether tied scores straddle the cutoff.

    Where documents of equal score (or rank) lie on both sides of rank ``k``, the value
    of a measure at ``k`` depends on which of them the tie-break lets in: trec_eval's
    doc-id order decides (``ties="docid"``), ``ties="expected"`` averages over every
    order (see :func:`evaluate`).  This lists, per query of the run (and ``by`` group),
    how large that tie is.

    Parameters
    ----------
    run : frame
        As for :func:`evaluate` (no grades needed).
    k : int
        The cutoff (>= 1).
    **options
        ``evaluate``'s column and rule options: ``query_col``, ``doc_col``, ``rank_col``,
        ``score_col``, ``by``, ``order``, ``columns``, ``depth``, ``duplicates``.

    Returns
    -------
    Same type as ``run``
        The key columns, ``n_tied`` (documents with the score of the one at rank ``k``;
        null when the query has fewer than ``k``), ``n_tied_in_top_k`` (how many of them
        are within the top ``k``) and ``straddles`` (``n_tied_in_top_k < n_tied``: the
        tie crosses the cutoff), in natural query order.

    Examples
    --------
    >>> import polars as pl, irframe
    >>> run = pl.DataFrame({"query_id": ["q1"] * 4 + ["q2"] * 2, "doc_id": list("abcdab"),
    ...                     "score": [3.0, 2.0, 2.0, 2.0, 1.0, 0.5]})
    >>> irframe.tied_at_cutoff(run, 2)
    shape: (2, 4)
    ┌──────────┬────────┬─────────────────┬───────────┐
    │ query_id ┆ n_tied ┆ n_tied_in_top_k ┆ straddles │
    │ ---      ┆ ---    ┆ ---             ┆ ---       │
    │ str      ┆ i64    ┆ i64             ┆ bool      │
    ╞══════════╪════════╪═════════════════╪═══════════╡
    │ q1       ┆ 3      ┆ 1               ┆ true      │
    │ q2       ┆ 1      ┆ 1               ┆ false     │
    └──────────┴────────┴─────────────────┴───────────┘
    """
    from irframe._engine.ties import straddles
    from irframe._input.frames import from_lazy, to_lazy

    if not isinstance(k, int) or isinstance(k, bool) or k < 1:
        raise InvalidParameterError.for_value("k", "tied_at_cutoff", "an int in the range [1, inf)", k)
    opts = Options.build("tied_at_cutoff", **options)
    lf, origin = to_lazy(run, "run")
    return from_lazy(straddles(lf, k, opts), origin)  # type: ignore[no-any-return]


def evaluate_both(
    run: FrameT,
    measures: MeasureLike | Iterable[MeasureLike],
    qrels: Any = None,
    **options: Any,
) -> tuple[FrameT, FrameT]:
    """The per-query values and the means, from one pass of the engine.

    The same two frames as ``evaluate(run, measures, qrels, per_query=True, **options)``
    and ``evaluate(run, measures, qrels, **options)``, for the cost of one when ``run`` is
    evaluated in process (pandas, polars); other backends (Dask, Spark, parquet paths)
    evaluate twice, as the two calls would.

    Parameters
    ----------
    run, measures, qrels
        As for :func:`evaluate`.
    **options
        :func:`evaluate`'s keyword options (``by``, ``missing``, ``columns``, ``queries``,
        the column names, backend options), except ``per_query``.

    Returns
    -------
    tuple of two frames of ``run``'s type
        ``(per_query, means)``.

    Examples
    --------
    >>> import polars as pl
    >>> from irframe.functions import evaluate_both
    >>> run = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "a"],
    ...                     "rank": [1, 2, 1], "relevance": [0, 1, 1]})
    >>> per_query, means = evaluate_both(run, ["RR", "P@1"])
    >>> per_query["RR"].to_list(), means.select("RR", "P@1", "n_queries").row(0)
    ([0.5, 1.0], (0.75, 0.5, 2))
    """
    if "per_query" in options:
        msg = "evaluate_both() gives both tables: drop per_query=... (or call evaluate)."
        raise InvalidParameterError(msg)
    if backend_for(run).name != "in-process":
        per_query = evaluate(run, measures, qrels, per_query=True, **options)
        return per_query, evaluate(run, measures, qrels, **options)
    from irframe._backends.local import evaluate_pair

    pair: tuple[FrameT, FrameT] = evaluate_pair(run, measures, qrels, **options)
    return pair
