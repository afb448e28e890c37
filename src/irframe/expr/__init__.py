"""Every measure as a polars expression, for the caller's own ``group_by().agg(...)``.

:func:`measures` gives ONE expression: a struct with one field per measure, named as
:func:`irframe.evaluate` names its columns.  It aggregates a query's rows (their grades
and their ranking), so it sits in ``group_by(query).agg(...)`` next to any other
aggregation, in ``.over(query)``, in a ``LazyFrame`` and under polars' streaming
engine.  The one-measure functions (:func:`ndcg`, :func:`precision`, ...) are thin forms
of it giving one Float64 column; ``pl.col("relevance").ir.ndcg(k=10, score="score")``
is the same through polars' expression namespace.

The numbers are :func:`irframe.evaluate`'s (``per_query=True``): every measure is its
registered family compiled for a query's list of grades in ranking order, and the rules
are the engine's (:func:`~irframe._input.columns.ranking_order`): rank ascending or score
descending, ties by doc id descending compared as text (integer ids too); a null or NaN
grade is not judged; a negative grade is judged but never relevant; a query with no
judged row gives null (so ``mean()`` is ``evaluate``'s mean over judged queries).
Grades come from the rows; judgments in a separate qrels frame are attached once by
:func:`attach`, and :func:`missing_queries` gives the judged queries the run never
returned (``missing="zero"``).

An expression checks what it can with ``evaluate``'s rules, from the same code
(:mod:`irframe.expr._guards`): a grade that is not numeric is refused (never parsed);
a document twice in a query and an exp gain that overflows fail the collect
(``duplicates="first"``: evaluate's rule, the best-ranked row).  What it cannot check
row by row (a null or NaN score, a rank that disagrees with the score, infinite grades)
:func:`validate` checks, with ``evaluate``'s own checks and messages, in one streaming
pass.  Unvalidated, a null or NaN score or rank takes a place in the sort (polars': NaN
above every number, null first).

Examples
--------
>>> import polars as pl, irframe
>>> log = pl.DataFrame({
...     "query_id": ["q1", "q1", "q1", "q2", "q2"],
...     "doc_id": ["a", "b", "c", "a", "d"],
...     "score": [0.9, 0.8, 0.1, 0.7, 0.6],
...     "relevance": [0, 3, 1, 2, None],
...     "latency_ms": [12.0, 12.0, 12.0, 30.0, 30.0],
... })
>>> (
...     log.group_by("query_id", maintain_order=True)
...     .agg(irframe.expr.measures(["nDCG@3", "RR"], score="score"), pl.col("latency_ms").first())
...     .unnest("measures")
... )
shape: (2, 4)
┌──────────┬──────────┬─────┬────────────┐
│ query_id ┆ nDCG@3   ┆ RR  ┆ latency_ms │
│ ---      ┆ ---      ┆ --- ┆ ---        │
│ str      ┆ f64      ┆ f64 ┆ f64        │
╞══════════╪══════════╪═════╪════════════╡
│ q1       ┆ 0.644287 ┆ 0.5 ┆ 12.0       │
│ q2       ┆ 1.0      ┆ 1.0 ┆ 30.0       │
└──────────┴──────────┴─────┴────────────┘
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Literal, TypedDict

import polars as pl

from irframe._input.columns import ranking_order
from irframe.exceptions import InvalidParameterError
from irframe.expr._attach import attach, missing_queries, validate
from irframe.expr._compile import GRADE, JUDGMENTS, check_computable, compile_list
from irframe.expr._guards import doc_key, duplicates_guard, gain_guard, graded
from irframe.measures import Measure, parse_measures
from irframe.measures._conventions import warn_conventions

if TYPE_CHECKING:
    from typing_extensions import Unpack  # (typing.Unpack: Python 3.11)

__all__ = [
    "ap",
    "attach",
    "bpref",
    "judged",
    "measures",
    "missing_queries",
    "mrr",
    "ndcg",
    "precision",
    "recall",
    "rprec",
    "success",
    "validate",
]

MeasureLike = str | Measure
OUTPUT = "measures"  # the name of measures()' struct column


class Columns(TypedDict, total=False):
    """The keyword arguments of :func:`measures` that every one-measure function takes."""

    grade: str | pl.Expr
    rank: str | None
    score: str | None
    doc: str
    judgments: str | None
    duplicates: Literal["error", "first"]


def _order(rank: str | None, score: str | None, where: str) -> tuple[Literal["rank", "score"], str]:
    """``("rank", column)`` or ``("score", column)``: exactly one of the two is named."""
    for name, value in (("rank", rank), ("score", score)):
        if value is not None and not isinstance(value, str):
            raise InvalidParameterError.for_value(name, where, "a column name (str) or None", value)
    if (rank is None) == (score is None):
        got = "both" if rank is not None else "neither"
        msg = (
            f"{where} needs what orders each query's documents and got {got}: pass rank='rank' "
            "(ascending) or score='score' (descending), not both. Hint: irframe.expr.validate(frame, "
            "rank=..., score=...) checks that a rank and a score column agree."
        )
        raise InvalidParameterError(msg)
    return ("rank", str(rank)) if rank is not None else ("score", str(score))


def _grade_expr(grade: str | pl.Expr, where: str) -> pl.Expr:
    if isinstance(grade, str):
        return pl.col(grade)
    if isinstance(grade, pl.Expr):
        return grade
    raise InvalidParameterError.for_value("grade", where, "a column name or a polars expression", grade)


def _check_list_only(pairs: Sequence[tuple[str, Measure]], first: pl.Expr) -> None:
    """A measure whose expression reads a column itself (a user kernel naming the
    engine's prepared column) cannot run over the list of a query's grades."""
    if not first.meta.root_names():
        return
    for label, m in pairs:
        cols = compile_list([(label, m)], attached=False)[1].meta.root_names()
        if cols:
            msg = (
                f"Measure {label!r} ({m.family}) reads the column(s) {sorted(set(cols))} itself, so it "
                "cannot be computed from the list of a query's grades that irframe.expr aggregates. "
                "Hint: a user kernel reads q.grades and q.judged only; or compute it with "
                "irframe.evaluate(run, measures, qrels, per_query=True) and join."
            )
            raise InvalidParameterError(msg)


def measures(
    measures: MeasureLike | Iterable[MeasureLike],
    *,
    grade: str | pl.Expr = "relevance",
    rank: str | None = None,
    score: str | None = None,
    doc: str = "doc_id",
    judgments: str | None = None,
    duplicates: Literal["error", "first"] = "error",
) -> pl.Expr:
    """One expression computing every measure of a query: a struct, one field per measure.

    Parameters
    ----------
    measures : str, Measure or a list of them
        As :func:`irframe.evaluate` takes them: ``"nDCG@10"``, ``"P(rel=2)@5"``, aliases
        (``"MAP"``), trec_eval names (``"ndcg_cut_10"``), ir_measures objects.  The
        fields are named as ``evaluate`` names its columns.
    grade : str or pl.Expr, default "relevance"
        The grade of each row (null or NaN: not judged).
    rank, score : str, optional
        The column that orders the documents: ``rank`` ascending or ``score`` descending
        (exactly one); ties are broken by ``doc`` descending, as text.
    doc : str, default "doc_id"
        The document id (the tie-break).
    judgments : str, optional
        The column :func:`attach` added with the judgments of a separate qrels frame;
        None: the judgments are the rows' own grades (as ``evaluate`` without qrels).
    duplicates : {"error", "first"}, default "error"
        A document twice in one query's ranking, as :func:`irframe.evaluate` reads it:
        the collect fails (the text of polars' error is irframe's message and hint), or
        ``"first"`` keeps its best-ranked row (evaluate's ``duplicates="first"``: the same
        values).

    Returns
    -------
    pl.Expr
        An aggregation named ``"measures"``: in ``group_by(query).agg(...)`` one struct per
        query (``.unnest("measures")`` makes columns of it), in ``.over(query)`` the same on
        every row.  A query without any judged row gives nulls.

    Raises
    ------
    UnknownMeasureError, InvalidParameterError
        An unknown measure, a bad parameter, not exactly one of ``rank``/``score``, a
        measure a query's rows cannot give (the diversity families read subtopic
        judgments: ``irframe.evaluate`` computes them).
    InvalidDataError (when the plan is collected)
        ``evaluate``'s grade rule, checked on the plan's dtypes: a grade that is not
        numeric (a string grade is refused, never parsed).  Per query, a document twice
        (``duplicates="error"``) and
        grades whose exp gain overflows float64 make polars' collect fail with irframe's
        message (see :mod:`irframe.expr._guards`).

    Examples
    --------
    >>> import polars as pl, irframe
    >>> run = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"],
    ...                     "rank": [1, 2, 1], "relevance": [0, 1, None]})
    >>> run.group_by("query_id", maintain_order=True).agg(
    ...     irframe.expr.measures(["RR", "P@2"], rank="rank")
    ... ).unnest("measures")
    shape: (2, 3)
    ┌──────────┬──────┬──────┐
    │ query_id ┆ RR   ┆ P@2  │
    │ ---      ┆ ---  ┆ ---  │
    │ str      ┆ f64  ┆ f64  │
    ╞══════════╪══════╪══════╡
    │ q1       ┆ 0.5  ┆ 0.5  │
    │ q2       ┆ null ┆ null │
    └──────────┴──────┴──────┘
    >>> rr = irframe.expr.measures("RR", rank="rank").over("query_id").struct.field("RR")
    >>> run.with_columns(rr)["RR"].to_list()
    [0.5, 0.5, None]
    """
    where = "irframe.expr.measures"
    order, order_col = _order(rank, score, where)
    if not isinstance(doc, str):
        raise InvalidParameterError.for_value("doc", where, "a column name (str)", doc)
    if judgments is not None and not isinstance(judgments, str):
        raise InvalidParameterError.for_value("judgments", where, "a column name (str) or None", judgments)
    if duplicates not in ("error", "first"):
        raise InvalidParameterError.for_value("duplicates", where, "'error' or 'first'", duplicates)
    pairs = parse_measures(measures)
    check_computable(pairs)
    warn_conventions(m for _, m in pairs)
    _, first, second = compile_list(pairs, attached=judgments is not None)
    _check_list_only(pairs, first)
    g = graded(grade if isinstance(grade, str) else _grade_expr(grade, where)).fill_nan(None)
    guards = []
    if judgments is not None:  # (a struct attached for other measures: polars names the field it lacks)
        g = pl.struct(g.alias(GRADE), pl.col(judgments).alias(JUDGMENTS))
    else:
        exp = [label for label, m in pairs if m.params.get("gain") == "exp"]
        if exp:
            guards.append(gain_guard(g, exp, where))
    by, descending = ranking_order(order, order_col, doc)
    ranked = g.sort_by(by, descending=descending)
    if duplicates == "first":  # evaluate's rule: the best-ranked row of a repeated document
        ranked = ranked.filter(doc_key(doc).sort_by(by, descending=descending).is_first_distinct())
    else:
        guards.append(duplicates_guard(doc, where))
    if guards:  # (a failing guard fails the collect; passing, it keeps every row)
        ranked = ranked.filter(pl.all_horizontal(guards))
    out = ranked.implode().implode().list.agg(first).implode().list.agg(second)
    return out.alias(OUTPUT)


def _one(m: Measure, kwargs: Columns) -> pl.Expr:
    """One measure's Float64 expression, named by its canonical string."""
    return measures([m], **kwargs).struct.field(str(m))


def ndcg(
    k: int | None = None, *, gain: str | dict[float, float] = "exp", **kwargs: Unpack[Columns]
) -> pl.Expr:
    """nDCG@k of a query (``gain="exp"``: 2^rel - 1; ``"linear"``: trec_eval's ndcg_cut).

    ``kwargs`` are :func:`measures`' (``grade``, ``rank``, ``score``, ``doc``,
    ``judgments``); as :func:`irframe.ndcg`, ``gain`` may be a ``{grade: gain}`` mapping.

    Examples
    --------
    >>> import polars as pl, irframe
    >>> run = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "b", "c"],
    ...                     "score": [0.9, 0.8, 0.1], "relevance": [0, 3, 1]})
    >>> run.group_by("query_id").agg(irframe.expr.ndcg(k=3, score="score")).item(0, "nDCG@3")
    0.6442...
    """
    m = Measure("nDCG", k)
    return _one(m(gains=gain) if isinstance(gain, dict) else m(gain=gain), kwargs)


def precision(k: int, *, rel: float = 1, **kwargs: Unpack[Columns]) -> pl.Expr:
    """P@k of a query: relevant documents in the top k divided by k (see :func:`measures`).

    Examples
    --------
    >>> import polars as pl, irframe
    >>> run = pl.DataFrame({"query_id": ["q1"] * 2, "doc_id": ["a", "b"], "rank": [1, 2],
    ...                     "relevance": [1, 0]})
    >>> run.select(irframe.expr.precision(k=4, rank="rank")).item()
    0.25
    """
    return _one(Measure("P", k, rel=rel), kwargs)


def recall(k: int | None = None, *, rel: float = 1, **kwargs: Unpack[Columns]) -> pl.Expr:
    """R@k of a query: relevant documents in the top k over all judged relevant ones.

    Examples
    --------
    >>> import polars as pl, irframe
    >>> run = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": list("abc"), "rank": [1, 2, 3],
    ...                     "relevance": [0, 1, 1]})
    >>> run.select(irframe.expr.recall(k=2, rank="rank")).item()
    0.5
    """
    return _one(Measure("R", k, rel=rel), kwargs)


def mrr(k: int | None = None, *, rel: float = 1, **kwargs: Unpack[Columns]) -> pl.Expr:
    """RR of a query: the reciprocal rank of the first relevant document (its mean is MRR).

    Examples
    --------
    >>> import polars as pl, irframe
    >>> run = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": list("abc"), "rank": [1, 2, 3],
    ...                     "relevance": [0, 1, 1]})
    >>> run.select(irframe.expr.mrr(rank="rank")).item()
    0.5
    """
    return _one(Measure("RR", k, rel=rel), kwargs)


def ap(k: int | None = None, *, rel: float = 1, **kwargs: Unpack[Columns]) -> pl.Expr:
    """AP of a query (its mean is MAP).

    Examples
    --------
    >>> import polars as pl, irframe
    >>> run = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": list("abc"), "rank": [1, 2, 3],
    ...                     "relevance": [1, 0, 1]})
    >>> run.select(irframe.expr.ap(rank="rank")).item()   # (1/1 + 2/3) / 2
    0.8333...
    """
    return _one(Measure("AP", k, rel=rel), kwargs)


def rprec(*, rel: float = 1, **kwargs: Unpack[Columns]) -> pl.Expr:
    """R-precision of a query: relevant documents in the top R, over R.

    Examples
    --------
    >>> import polars as pl, irframe
    >>> run = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": list("abc"), "rank": [1, 2, 3],
    ...                     "relevance": [0, 1, 1]})
    >>> run.select(irframe.expr.rprec(rank="rank")).item()
    0.5
    """
    return _one(Measure("Rprec", rel=rel), kwargs)


def bpref(*, rel: float = 1, **kwargs: Unpack[Columns]) -> pl.Expr:
    """Bpref of a query (trec_eval's definition; unjudged documents are skipped).

    Examples
    --------
    >>> import polars as pl, irframe
    >>> run = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": list("abc"), "rank": [1, 2, 3],
    ...                     "relevance": [0, 1, None]})
    >>> run.select(irframe.expr.bpref(rank="rank")).item()
    0.0
    """
    return _one(Measure("Bpref", rel=rel), kwargs)


def success(k: int, *, rel: float = 1, **kwargs: Unpack[Columns]) -> pl.Expr:
    """Success@k of a query: 1 if a relevant document is in the top k, else 0.

    Examples
    --------
    >>> import polars as pl, irframe
    >>> run = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": list("abc"), "rank": [1, 2, 3],
    ...                     "relevance": [0, 0, 2]})
    >>> run.select(irframe.expr.success(k=2, rank="rank")).item()
    0.0
    """
    return _one(Measure("Success", k, rel=rel), kwargs)


def judged(k: int, **kwargs: Unpack[Columns]) -> pl.Expr:
    """Judged@k of a query: the fraction of the top k retrieved that has a judgment.

    Examples
    --------
    >>> import polars as pl, irframe
    >>> run = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": list("abc"), "rank": [1, 2, 3],
    ...                     "relevance": [0, None, 2]})
    >>> run.select(irframe.expr.judged(k=2, rank="rank")).item()
    0.5
    """
    return _one(Measure("Judged", k), kwargs)
