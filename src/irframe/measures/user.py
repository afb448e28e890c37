"""User-defined measures: a family from one vectorised polars kernel.

``define_measure("Hits", lambda q: (q.grades >= q.params["rel"]).sum(), params={"rel": 1})``
registers a family like the built-in ones: ``"Hits@10"`` and ``"Hits(rel=2)@5"`` then
parse, evaluate on every backend and appear in ``irframe measures``.  The kernel is
called once per evaluation (not per query): it returns a polars expression that the
engine runs inside its one ``group_by`` over the queries.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, get_args

import polars as pl

from irframe import kernels as K
from irframe.exceptions import InvalidParameterError
from irframe.measures._base import (
    Aggregate,
    Ctx,
    CutoffRule,
    Family,
    Measure,
    Param,
    Params,
    number_param,
    register,
    registry,
    unregister,
)
from irframe.measures._params import JUDGED_ONLY, bool_param

__all__ = ["QueryView", "define_measure", "ensure_registered", "is_user_defined", "user_families"]

Kernel = Callable[["QueryView"], pl.Expr]
_NAME_CHARS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


class QueryView:
    """What a user kernel sees of one query (as polars expressions, never values).

    Attributes
    ----------
    grades : pl.Expr
        The grades of the retrieved documents in ranking order (null = unjudged), cut at
        ``k`` when the measure has a cutoff (without the unjudged for ``judged_only``).
    k : int or None
        The cutoff.
    params : Mapping[str, object]
        Every parameter of the measure, defaults filled in.
    """

    def __init__(self, m: Measure, ctx: Ctx) -> None:
        self._m, self._ctx = m, ctx
        self.k = m.cutoff
        self.params = m.params
        g = K.grades(bool(m.params["judged_only"]), ctx.grades)
        self.grades = g if m.cutoff is None else g.head(m.cutoff)

    @property
    def judged(self) -> pl.Expr:
        """Every judged grade of the query, retrieved or not, in no particular order."""
        # one column for every user measure: the grades do not depend on the measure
        return self._ctx.judged_grades_in_ranking(Measure("NumRel"), "judged", self._ctx.grades.drop_nulls())


class _Probe:
    """A stand-in Ctx to learn the kernel's result type on an empty frame (no data)."""

    JUDGED = "__ir_probe_judged"
    grades = K.GRADES

    def judged_grades_in_ranking(self, m: Measure, name: str, expr: pl.Expr) -> pl.Expr:
        return pl.col(self.JUDGED).first().explode()


@dataclass(frozen=True)
class _UserCompile:
    """The compile function of a user family: calls the kernel, checks what it returns."""

    name: str
    kernel: Kernel

    def __call__(self, m: Measure, ctx: Ctx) -> pl.Expr:
        expr = self.kernel(QueryView(m, ctx))
        if not isinstance(expr, pl.Expr):
            msg = (
                f"The kernel of measure {self.name!r} must return a polars expression; got "
                f"{type(expr).__name__}. Hint: e.g. lambda q: (q.grades >= 1).sum()."
            )
            raise InvalidParameterError(msg)
        self._check_scalar(m)
        return ctx.over_ranking(m, "value", expr)

    def _check_scalar(self, m: Measure) -> None:
        """The kernel must give one number per query: checked on a schema (no data)."""
        name = self.name
        expr = self.kernel(QueryView(m, _Probe()))  # type: ignore[arg-type]
        schema = pl.Schema({K.REL: pl.Float64(), "__ir_q": pl.Int64(), _Probe.JUDGED: pl.List(pl.Float64())})
        try:
            dtype = pl.LazyFrame(schema=schema).group_by("__ir_q").agg(v=expr).collect_schema()["v"]
        except pl.exceptions.PolarsError as exc:
            msg = f"The kernel of measure {name!r} ({m}) is not a valid polars expression: {exc}"
            raise InvalidParameterError(msg) from exc
        _check_dtype(name, m, dtype)


def _check_dtype(name: str, m: Measure, dtype: pl.DataType) -> None:
    if isinstance(dtype, pl.List | pl.Array | pl.Struct) or not (dtype.is_numeric() or dtype == pl.Boolean):
        msg = (
            f"The kernel of measure {name!r} ({m}) gives {dtype} per query, not one number. "
            "Hint: aggregate the grades, e.g. (q.grades >= 1).sum() or q.grades.mean()."
        )
        raise InvalidParameterError(msg)


def _param(name: str, default: object) -> Param:
    if isinstance(default, Param):
        return default
    if name == JUDGED_ONLY.name:  # the engine reads it as a bool: 'no' is False, 'maybe' an error
        value = JUDGED_ONLY.convert(default, "define_measure(params={'judged_only': ...})")
        return bool_param(name, bool(value), JUDGED_ONLY.doc)
    if isinstance(default, bool):
        return bool_param(name, default, f"{name} (default {default})")
    if isinstance(default, int | float):
        return number_param(name, default, f"{name} (default {default})")
    if isinstance(default, str):
        return Param(name, default, f"{name} (default {default!r})", "str", lambda v, _s: str(v))
    msg = (
        f"Parameter {name!r} of a user measure needs a bool, number or str default; got "
        f"{type(default).__name__}. Hint: pass an irframe.measures.Param for anything else."
    )
    raise InvalidParameterError(msg)


# the summary's count columns: a measure of one of these names would make two columns
RESERVED = ("n_queries", "n_missing", "n_unjudged")


def _check_name(name: object) -> str:
    """A free name: well formed, and no other spelling (a built-in family or alias, a
    trec_eval name, a count column) that would shadow it or that it would shadow."""
    if not isinstance(name, str) or not name or not name[0].isalpha() or not set(name) <= _NAME_CHARS:
        msg = f"A measure name is letters, digits and _ starting with a letter (got {name!r})."
        raise InvalidParameterError(msg)
    taken = _taken_by(name)
    if taken is not None:
        msg = (
            f"define_measure({name!r}): {name!r} is already registered as {taken}, so the new "
            f"measure could never be reached by that name. Hint: choose another name, e.g. "
            f"{name + '_user'!r}."
        )
        raise InvalidParameterError(msg)
    return name


def _taken_by(name: str) -> str | None:
    """What else the name means, or None."""
    from irframe.measures._parse import _from_trec, trec_dotted

    fam = registry().get(name)
    if fam is not None and not is_user_defined(fam):
        return f"the built-in family {fam.name}"
    owner = next((f for f in registry().values() if name in f.aliases), None)
    if owner is not None:
        return f"an alias of the family {owner.name}"
    if name in RESERVED:
        return "the name of a count column of the means"
    found = _from_trec(name) if trec_dotted(name) is None else None
    if found is not None:
        return f"trec_eval's name of {found}"
    return None


def define_measure(
    name: str,
    kernel: Kernel,
    *,
    params: Mapping[str, object] | None = None,
    aggregate: Aggregate = "mean",
    description: str | None = None,
    cutoff: CutoffRule = "optional",
) -> Family:
    """Register a measure family defined by a vectorised polars kernel.

    Parameters
    ----------
    name : str
        The family name (letters, digits, ``_``), used as ``name``, ``name@k`` and
        ``name(param=value)@k``; it must not be taken: a built-in family or alias, a
        trec_eval name (``map``, ``P_5``, ``recip_rank``...) or a count column
        (``n_queries``...) is refused.
    kernel : callable
        ``kernel(q) -> pl.Expr`` with ``q`` a :class:`QueryView`: ``q.grades`` (ranked
        grades, null = unjudged, cut at k), ``q.judged`` (every judged grade of the
        query), ``q.k`` and ``q.params``.  The expression must aggregate to one number
        per query; it runs inside the engine's ``group_by`` (no Python call per query).
        A null or NaN for a query is an error (:class:`~irframe.exceptions.InvalidDataError`
        naming the measure and the queries), on every backend: return a number for every
        query (e.g. ``.fill_null(0)``) or say what the value is when it is undefined.
    params : mapping, optional
        Parameter name -> default (bool, number or str; or a :class:`Param`).  Every user
        measure also takes ``judged_only``.
    aggregate : {"mean", "sum", "gmean"}
        How the summary row aggregates the per-query values.
    description : str, optional
        One line for ``irframe measures``.
    cutoff : {"optional", "required", "none"}
        Whether the measure takes ``@k``.

    Returns
    -------
    Family
        The registered family; ``irframe.measures.unregister(name)`` removes it, and
        defining a user measure of the same name again replaces it (built-in names are
        refused).

    Examples
    --------
    >>> import polars as pl
    >>> import irframe
    >>> fam = irframe.define_measure(
    ...     "Hits", lambda q: (q.grades >= q.params["rel"]).sum(), params={"rel": 1}
    ... )
    >>> run = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"query_id": ["q1"] * 2, "doc_id": ["a", "c"], "relevance": [1, 2]})
    >>> irframe.evaluate(run, ["Hits@2", "Hits(rel=2)"], qrels).select("Hits@2", "Hits(rel=2)").row(0)
    (1.0, 1.0)
    >>> irframe.measures.unregister("Hits")
    """
    _check_name(name)
    if not callable(kernel):
        msg = f"The kernel of measure {name!r} must be callable (q -> pl.Expr); got {type(kernel).__name__}."
        raise InvalidParameterError(msg)
    where = f"define_measure({name!r})"
    if aggregate not in get_args(Aggregate):
        raise InvalidParameterError.for_value("aggregate", where, "mean, sum or gmean", aggregate)
    if cutoff not in get_args(CutoffRule):
        raise InvalidParameterError.for_value("cutoff", where, "optional, required or none", cutoff)
    declared = [_param(key, default) for key, default in (params or {}).items()]
    if "judged_only" not in [p.name for p in declared]:
        declared.append(JUDGED_ONLY)
    fam = Family(
        name,
        description or f"user-defined measure {name}",
        _UserCompile(name, kernel),
        Params(declared),
        cutoff,
        aggregate=aggregate,
        kind="user",
    )
    old = registry().get(name)
    if old is not None and is_user_defined(old):
        unregister(name)  # defining it again (a notebook cell run twice) replaces it
    return register(fam)


def is_user_defined(fam: Family) -> bool:
    """True for a family made by :func:`define_measure`."""
    return isinstance(fam.compile, _UserCompile)


def user_families(measures: Iterable[Any]) -> tuple[Family, ...]:
    """The user-defined families among ``measures`` (strings or Measures), to ship to workers."""
    from irframe.measures._parse import parse_measures

    fams = {m.definition.name: m.definition for _, m in parse_measures(list(measures))}
    return tuple(f for f in fams.values() if is_user_defined(f))


def ensure_registered(fams: Iterable[Family]) -> None:
    """Register families a worker process does not know yet (Spark, distributed Dask)."""
    for fam in fams:
        if fam.name not in registry():
            register(fam)
