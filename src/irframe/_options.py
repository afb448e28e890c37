"""One validated value for evaluate's column and rule options, built once, passed down whole.

The public functions keep their typed keyword signatures and docstrings; they build an
:class:`Options` with :meth:`Options.build` (which validates every value and names the
parameter at fault) and hand it to the engine, the backends, compare, moved and plotting.
The defaults and the allowed values of each option are written here and nowhere else.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, fields, replace
from typing import Any, Literal, get_args

from irframe.exceptions import InvalidParameterError, closest

__all__ = ["COLUMN_OPTIONS", "DEFAULT_RANK", "Duplicates", "Missing", "Options"]

Missing = Literal["zero", "drop", "error"]
Duplicates = Literal["error", "first"]
DEFAULT_RANK = "rank"

_OPTIONAL_COLUMNS = ("rank_col", "qrels_query_col", "qrels_doc_col", "qrels_relevance_col")


@dataclass(frozen=True)
class Options:
    """Column names and the rules for missing queries and duplicate documents.

    Examples
    --------
    >>> opts = Options.build(by="system", missing="drop")
    >>> opts.by, opts.missing, opts.qrels_columns
    (('system',), 'drop', ('query_id', 'doc_id', 'relevance'))
    >>> Options.build(missing="ignore")
    Traceback (most recent call last):
    ...
    irframe.exceptions.InvalidParameterError: The 'missing' parameter of evaluate must be one of ...
    """

    query_col: str = "query_id"
    doc_col: str = "doc_id"
    rank_col: str | None = DEFAULT_RANK
    score_col: str = "score"
    relevance_col: str = "relevance"
    qrels_query_col: str | None = None
    qrels_doc_col: str | None = None
    qrels_relevance_col: str | None = None
    by: tuple[str, ...] = ()
    missing: Missing = "zero"
    duplicates: Duplicates = "error"

    @classmethod
    def build(cls, where: str = "evaluate", **kwargs: Any) -> Options:
        """Validate keyword options (as the public functions take them) into one value."""
        known = {f.name for f in fields(cls)}
        for key in kwargs:
            if key not in known:
                hint = closest(key, known)
                msg = f"{where}() got an unexpected keyword argument {key!r}."
                if hint:
                    msg += f" Hint: did you mean {hint[0]}=...?"
                raise InvalidParameterError(msg)
        by = _as_names(kwargs.pop("by", None), where)
        for name, value in kwargs.items():
            _check(name, value, where)
        return cls(by=by, **kwargs)

    def with_(self, **changes: Any) -> Options:
        """A copy with some options changed (validated like :meth:`build`)."""
        return Options.build(**{**self.as_kwargs(), **changes})

    def as_kwargs(self) -> dict[str, Any]:
        """The options as the keyword arguments of :func:`irframe.evaluate`."""
        out = asdict(self)
        out["by"] = list(self.by)
        return out

    @property
    def qrels_columns(self) -> tuple[str, str, str]:
        """(query, doc, relevance) column names in the qrels (the run's unless given)."""
        return (
            self.qrels_query_col or self.query_col,
            self.qrels_doc_col or self.doc_col,
            self.qrels_relevance_col or self.relevance_col,
        )


def _as_names(by: object, where: str) -> tuple[str, ...]:
    if by is None:
        return ()
    items = [by] if isinstance(by, str) else by
    if not isinstance(items, Sequence) or isinstance(items, Mapping):
        raise InvalidParameterError.for_value("by", where, "a column name or a list of them", by)
    for item in items:
        if not isinstance(item, str) or not item:
            raise InvalidParameterError.for_value("by", where, "a column name or a list of them", by)
    if len(set(items)) != len(items):
        raise InvalidParameterError.for_value("by", where, "distinct column names", list(items))
    return tuple(items)


def _check(name: str, value: object, where: str) -> None:
    if name == "missing":
        allowed: tuple[object, ...] = get_args(Missing)
    elif name == "duplicates":
        allowed = get_args(Duplicates)
    else:
        if value is None and name in _OPTIONAL_COLUMNS:
            return
        if not isinstance(value, str) or not value:
            raise InvalidParameterError.for_value(name, where, "a column name (a non-empty str)", value)
        return
    if value not in allowed:
        expected = "one of " + ", ".join(repr(a) for a in allowed)
        raise InvalidParameterError.for_value(name, where, expected, value)


def replace_options(opts: Options, **changes: Any) -> Options:
    """``dataclasses.replace`` for trusted, already-valid changes (no re-validation)."""
    return replace(opts, **changes)


COLUMN_OPTIONS: frozenset[str] = frozenset(f.name for f in fields(Options) if f.name.endswith("_col"))
"""The names of the column options (``query_col`` ... ``qrels_relevance_col``)."""
