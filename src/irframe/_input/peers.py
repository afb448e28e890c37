"""The peers' in-memory runs and qrels, turned into irframe's long format (a polars frame).

Part of the input boundary (:func:`irframe._input.frames.to_lazy` calls
:func:`peer_frame` for what is not a frame).  Accepted, for an argument that is a run or
qrels (the role is known from the argument, never guessed from the values):

- a dict of dicts ``{query_id: {doc_id: value}}`` (pytrec_eval, ranx, ir_measures):
  the value is the score of a run, the grade of qrels;
- ranx ``Run`` and ``Qrels`` objects (read through their ``to_dict()``);
- a list, tuple or iterator of ir_measures ``ScoredDoc`` (run) or ``Qrel`` (qrels)
  namedtuples, or any namedtuples with the fields ``query_id``, ``doc_id`` and ``score``
  (or ``relevance``).  A Qrel's ``iteration`` becomes the ``subtopic`` column, which
  only the diversity measures read.

The frame has the default column names: ``query_id``, ``doc_id`` and ``score`` (Float64)
for a run, ``query_id``, ``doc_id`` and ``relevance`` (Int64) for qrels.  Ids keep the
type the peer gives them (strings stay strings).  The columns are built whole, from
lists, never a frame per row.  An iterator is read once: its frame is kept for the
later reads of the same object (weakly for a generator, else for the last few).

Refused, with the reason and the fix: an empty dict or list (no query to tell the
columns' types from), a query of the qrels with no judgment (pytrec_eval leaves it out,
ir_measures scores it 0), grades that are not whole numbers (qrels grades are integers
for pytrec_eval and ranx: a dict of real-valued scores is a run), values that are not
numbers, and tuples of the other role (ScoredDoc as qrels, Qrel as a run).
"""

from __future__ import annotations

import sys
import weakref
from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from itertools import chain
from typing import Any, Literal

import polars as pl

from irframe.exceptions import InvalidDataError

__all__ = ["PEER_FORMS", "Role", "nested_frame", "peer_frame", "role_of"]

Role = Literal["run", "qrels"]
PEER_FORMS = (
    "a dict {query_id: {doc_id: score or grade}} (pytrec_eval, ranx), a ranx Run or Qrels, or a "
    "list or iterator of ir_measures ScoredDoc / Qrel namedtuples"
)
_VALUE: dict[Role, str] = {"run": "score", "qrels": "relevance"}
_KEPT = 4  # iterators that cannot be weakly referenced: the frames of the last few are kept
_weak: weakref.WeakKeyDictionary[Any, pl.DataFrame] = weakref.WeakKeyDictionary()
_recent: OrderedDict[int, tuple[Any, pl.DataFrame]] = OrderedDict()


def role_of(role: str) -> Role | None:
    """``"run"`` or ``"qrels"`` for an argument's role as :func:`to_lazy` names it
    (``"run"``, ``"run 'bm25'"``, ``"qrels"``...), else None (a queries table...)."""
    head = role.split(" ", 1)[0]
    return head if head in ("run", "qrels") else None  # type: ignore[return-value]


def peer_frame(obj: object, role: str) -> pl.DataFrame | None:
    """``obj`` as a long polars frame when it is one of the peers' forms, else None.

    Examples
    --------
    >>> peer_frame({"q1": {"d1": 0.5, "d2": 1.0}}, "run").rows()
    [('q1', 'd1', 0.5), ('q1', 'd2', 1.0)]
    >>> from collections import namedtuple
    >>> Qrel = namedtuple("Qrel", "query_id doc_id relevance iteration")
    >>> peer_frame([Qrel("q1", "d1", 2, "0")], "qrels").columns
    ['query_id', 'doc_id', 'relevance', 'subtopic']
    >>> peer_frame({"q1": {"d1": 0.5}}, "qrels")
    Traceback (most recent call last):
    ...
    irframe.exceptions.InvalidDataError: The qrels has grades that are not all whole numbers ...
    """
    kind = role_of(role)
    if kind is None:
        return None
    if isinstance(obj, Mapping):
        return None if _columnar(obj) else nested_frame(obj, kind, role)
    ranx = sys.modules.get("ranx")
    if ranx is not None and isinstance(obj, ranx.Run | ranx.Qrels):
        return _from_ranx(obj, kind, role)
    if isinstance(obj, Iterator):
        return _from_iterator(obj, kind, role)
    if isinstance(obj, Sequence) and not isinstance(obj, str | bytes) and (not obj or _is_row(obj[0])):
        return tuples_frame(obj, kind, role)
    return None


def _columnar(obj: Mapping[Any, Any]) -> bool:
    """A dict of columns (``{"query_id": [...], ...}``): a frame's data, not a peer's run."""
    return bool(obj) and all(
        isinstance(v, list | tuple) or hasattr(v, "__array__") or isinstance(v, pl.Series)
        for v in obj.values()
    )


def _is_row(item: object) -> bool:
    fields = getattr(item, "_fields", None)
    return isinstance(item, tuple) and isinstance(fields, tuple) and {"query_id", "doc_id"} <= set(fields)


def _from_ranx(obj: Any, kind: Role, role: str) -> pl.DataFrame:
    ranx = sys.modules["ranx"]
    given: Role = "run" if isinstance(obj, ranx.Run) else "qrels"
    if given != kind:
        other = "Run" if given == "run" else "Qrels"
        msg = f"The {role} is a ranx {other}, which holds a {given}. Hint: pass it as the {given}."
        raise InvalidDataError(msg)
    return nested_frame(obj.to_dict(), kind, role)


def _from_iterator(obj: Iterator[Any], kind: Role, role: str) -> pl.DataFrame:
    """An iterator's rows, read once; the frame is kept for later reads of the same iterator."""
    try:
        return _weak[obj]
    except TypeError:  # (not weakly referable: a list_iterator, a map object...)
        kept = _recent.get(id(obj))
        if kept is not None and kept[0] is obj:
            return kept[1]
    except KeyError:
        pass
    frame = tuples_frame(list(obj), kind, role)
    try:
        _weak[obj] = frame
    except TypeError:
        _recent[id(obj)] = (obj, frame)  # (holding obj keeps its id from being reused)
        while len(_recent) > _KEPT:
            _recent.popitem(last=False)
    return frame


def nested_frame(obj: Mapping[Any, Any], kind: Role, role: str) -> pl.DataFrame:
    """``{query_id: {doc_id: value}}`` as (query_id, doc_id, score or relevance).

    Examples
    --------
    >>> nested_frame({"q1": {"d1": 2, "d2": 0}, "q2": {"d1": 1}}, "qrels", "qrels").rows()
    [('q1', 'd1', 2), ('q1', 'd2', 0), ('q2', 'd1', 1)]
    """
    if not obj:
        msg = (
            f"The {role} is an empty dict: there is no query to evaluate (and no id or value "
            "type to read). Hint: for an empty input pass a frame with the columns, e.g. "
            "pl.DataFrame(schema={'query_id': pl.String, 'doc_id': pl.String, ...})."
        )
        raise InvalidDataError(msg)
    queries = list(obj)
    inner = list(obj.values())
    for q, docs in zip(queries, inner, strict=True):
        if not isinstance(docs, Mapping):
            raise _not_nested(role, q, docs)
    import numpy as np  # (here: the command line's start spares its import)

    lens = np.fromiter(map(len, inner), dtype=np.int64, count=len(inner))
    if kind == "qrels" and not lens.all():
        q = queries[int(np.argmin(lens))]
        msg = (
            f"The qrels dict has a query without judgments ({q!r}: {{}}): pytrec_eval leaves such a "
            "query out, ir_measures scores it 0. Hint: drop it (pytrec_eval's reading), or judge "
            "a document 0 for it (ir_measures': its measures are then 0 and count in the means)."
        )
        raise InvalidDataError(msg)
    query_ids = _ids("query_id", queries, role).gather(np.repeat(np.arange(len(queries)), lens))
    doc_ids = _ids("doc_id", list(chain.from_iterable(inner)), role)
    values = list(chain.from_iterable(d.values() for d in inner))
    return pl.DataFrame([query_ids, doc_ids, _values(values, kind, role)])


def tuples_frame(rows: Sequence[Any], kind: Role, role: str) -> pl.DataFrame:
    """ir_measures-style namedtuples (``ScoredDoc`` for a run, ``Qrel`` for qrels) as columns.

    Examples
    --------
    >>> from collections import namedtuple
    >>> ScoredDoc = namedtuple("ScoredDoc", "query_id doc_id score")
    >>> tuples_frame([ScoredDoc("q1", "d1", 1.5)], "run", "run").rows()
    [('q1', 'd1', 1.5)]
    """
    if not rows:
        msg = (
            f"The {role} is an empty sequence: no query to evaluate, and no fields to read. "
            "Hint: for an empty input pass a frame with the columns."
        )
        raise InvalidDataError(msg)
    first = rows[0]
    types = set(map(type, rows))
    if len(types) > 1 or not _is_row(first):
        names = sorted(t.__name__ for t in types)
        msg = (
            f"The {role} is a sequence of {', '.join(names)}: irframe reads a sequence of one kind "
            "of namedtuple with the fields query_id, doc_id and score (a run: ir_measures' "
            "ScoredDoc) or relevance (qrels: Qrel)."
        )
        raise InvalidDataError(msg)
    fields: tuple[str, ...] = first._fields
    value = _VALUE[kind]
    if value not in fields:
        other, holds, as_ = (
            ("score", "a run (ScoredDoc)", "run")
            if kind == "qrels"
            else ("relevance", "qrels (Qrel)", "qrels")
        )
        msg = (
            f"The {role} is a sequence of {type(first).__name__} {fields}, without a {value!r} "
            f"field: with {other!r} it holds {holds}. Hint: pass it as the {as_}."
        )
        raise InvalidDataError(msg)
    columns = dict(zip(fields, zip(*rows, strict=True), strict=True))
    out = [
        _ids("query_id", list(columns["query_id"]), role),
        _ids("doc_id", list(columns["doc_id"]), role),
        _values(list(columns[value]), kind, role),
    ]
    if kind == "qrels" and "iteration" in columns:
        out.append(_ids("subtopic", list(columns["iteration"]), role))
    return pl.DataFrame(out)


def _not_nested(role: str, query: object, docs: object) -> InvalidDataError:
    kind = type(docs).__name__
    msg = (
        f"The {role} is a dict whose value for {query!r} is a {kind}, not a dict {{doc_id: value}}: "
        f"irframe reads a dict as {{query_id: {{doc_id: score or grade}}}} (pytrec_eval, ranx). "
        "Hint: several systems are passed as a dict of runs to irframe.compare, not to evaluate."
    )
    return InvalidDataError(msg)


def _ids(name: str, values: list[Any], role: str) -> pl.Series:
    try:
        s = pl.Series(name, values, strict=True)
    except (TypeError, ValueError, OverflowError, pl.exceptions.PolarsError):
        types = sorted({type(v).__name__ for v in values})
        msg = (
            f"The {role}'s {name} values mix types ({', '.join(types)}). Hint: give every id one "
            "type, e.g. str(id) for each."
        )
        raise InvalidDataError(msg) from None
    if s.dtype.is_float() or s.dtype.is_nested() or s.dtype == pl.Boolean:
        msg = f"The {role}'s {name} values are {s.dtype}; ids must be str or int. Hint: use str ids."
        raise InvalidDataError(msg)
    return s


def _values(values: list[Any], kind: Role, role: str) -> pl.Series:
    """The scores (Float64) of a run, the grades (Int64, whole numbers) of qrels."""
    name = _VALUE[kind]
    try:
        s: pl.Series = pl.Series(name, values, dtype=pl.Float64, strict=True)
    except (TypeError, ValueError, OverflowError, pl.exceptions.PolarsError):
        bad = next((v for v in values if not isinstance(v, int | float)), None)
        msg = (
            f"The {role}'s {name}s must be numbers; found {bad!r} ({type(bad).__name__}). "
            f"Hint: convert them, e.g. float(value) for a score, int(value) for a grade."
        )
        raise InvalidDataError(msg) from None
    if kind == "run":
        return s
    whole = s.is_finite() & (s == s.floor())
    if not whole.fill_null(True).all():
        bad_value = s.filter(~whole.fill_null(True)).item(0)
        msg = (
            f"The {role} has grades that are not all whole numbers (e.g. {bad_value!r}): "
            f"pytrec_eval and ranx read integer grades, and real-valued values are a run's scores. "
            "Hint: pass it as the run if it is one; else round the grades, e.g. int(grade)."
        )
        raise InvalidDataError(msg)
    grades: pl.Series = s.cast(pl.Int64)
    return grades
