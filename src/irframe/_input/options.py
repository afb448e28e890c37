"""One validated value for evaluate's column and rule options, built once, passed down whole.

The public functions keep their typed keyword signatures and docstrings; they build an
:class:`Options` with :meth:`Options.build` (which validates every value and names the
parameter at fault) and hand it to the engine, the backends, compare, moved and plotting.
The defaults and the allowed values of each option are written here and nowhere else.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from typing import Any, Literal, get_args

from irframe.exceptions import InvalidParameterError, closest

__all__ = [
    "CHOICES", "COLUMN_OPTIONS", "DEFAULT_RANK", "PRESETS", "ColumnsArg", "Duplicates", "Missing", "Options",
    "Order", "Ties",
]  # fmt: skip

Missing = Literal["zero", "drop", "error"]
Duplicates = Literal["error", "first"]
Order = Literal["auto", "rank", "score"]
# tied scores (or ranks): broken by doc id (trec_eval), or tie-aware values (McSherry and
# Najork 2008): averaged over every order of the ties, or their best / worst order
Ties = Literal["docid", "expected", "optimistic", "pessimistic"]
# the values of the options that take one of a few (the command line's choices too)
CHOICES: dict[str, tuple[str, ...]] = {
    "missing": get_args(Missing), "duplicates": get_args(Duplicates), "order": get_args(Order),
    "ties": get_args(Ties),
}  # fmt: skip
DEFAULT_RANK = "rank"

# column conventions of the tools our users come from: option -> column name.  Presets
# without a rank column rank by score (trec_eval, ir_measures and ranx ignore a rank field).
PRESETS: dict[str, dict[str, str | None]] = {
    "irframe": {},
    "trec": {"rank_col": None},
    "pyterrier": {
        "query_col": "qid", "doc_col": "docno", "relevance_col": "label",
    },
    "ir_measures": {"rank_col": None, "qrels_subtopic_col": "iteration"},
    "ranx": {
        "query_col": "q_id", "rank_col": None, "qrels_relevance_col": "score",
    },
}  # fmt: skip
# the roles a ``columns={role: column}`` mapping may set
_ROLES = {
    "query": "query_col", "doc": "doc_col", "rank": "rank_col", "score": "score_col",
    "relevance": "relevance_col", "qrels_query": "qrels_query_col", "qrels_doc": "qrels_doc_col",
    "qrels_relevance": "qrels_relevance_col", "qrels_subtopic": "qrels_subtopic_col",
}  # fmt: skip
ColumnsArg = str | Mapping[str, str] | None
_OPTIONAL_COLUMNS = ("rank_col", "qrels_query_col", "qrels_doc_col", "qrels_relevance_col", "weights")


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
    # the qrels' subtopic (intent) column, read by the diversity measures only (see
    # irframe.measures.diversity); ir_measures' frames call it "iteration"
    qrels_subtopic_col: str = "subtopic"
    by: tuple[str, ...] = ()
    missing: Missing = "zero"
    duplicates: Duplicates = "error"
    order: Order = "auto"
    # trec_eval's -M: at most this many documents per query, the first in ranking order
    # (see irframe._engine.plan.at_depth); None: all of them
    depth: int | None = None
    # the measures' values under tied scores (see irframe._engine.ties); "docid": trec_eval's
    ties: Ties = "docid"
    columns: str | None = None  # the preset applied (None: the names above, auto-detected)
    # the queries' weights column (of the queries table or the qrels: irframe._input.weights)
    weights: str | None = None

    @classmethod
    def build(cls, where: str = "evaluate", **kwargs: Any) -> Options:
        """Validate keyword options (as the public functions take them) into one value.

        ``columns`` (a preset name or a ``{role: column}`` mapping) sets the column names
        that are still at their defaults; explicit ``query_col=...`` etc. win.

        Examples
        --------
        >>> o = Options.build(columns="pyterrier")
        >>> o.query_col, o.doc_col, o.qrels_columns
        ('qid', 'docno', ('qid', 'docno', 'label'))
        >>> Options.build(columns={"query": "topic", "doc": "docid"}).query_col
        'topic'
        """
        known = {f.name for f in fields(cls)}
        for key in kwargs:
            if key not in known:
                hint = closest(key, known)
                msg = f"{where}() got an unexpected keyword argument {key!r}."
                if hint:
                    msg += f" Hint: did you mean {hint[0]}=...?"
                raise InvalidParameterError(msg)
        by = _as_names(kwargs.pop("by", None), where)
        columns = kwargs.pop("columns", None)
        for name, value in kwargs.items():
            _check(name, value, where)
        if kwargs.get("weights") is not None and kwargs["weights"] in by:
            msg = (
                f"The 'weights' parameter of {where} names the by column {kwargs['weights']!r}: a "
                "column cannot both group the queries and weight them. Hint: drop it from by=."
            )
            raise InvalidParameterError(msg)
        preset, names = _columns_arg(columns, where)
        defaults = {f.name: f.default for f in fields(cls)}
        for key, value in names.items():
            if kwargs.get(key, defaults[key]) == defaults[key]:
                kwargs[key] = value
        return cls(by=by, columns=preset, **kwargs)

    def detect(
        self, schema: Sequence[str], where: str = "evaluate", qrels_schema: Sequence[str] | None = None
    ) -> Options:
        """Apply the one preset whose names the run (and the qrels) have, when the default
        names are absent.

        Nothing changes when a preset or a query column was given, or when the run has the
        query column.  Several matching presets raise, naming them.

        Examples
        --------
        >>> Options().detect(["qid", "docno", "score", "rank"]).query_col
        'qid'
        >>> Options().detect(["q_id", "doc_id", "score"]).columns
        'ranx'
        >>> Options().detect(["qid", "docno", "score"], qrels_schema=["query_id", "doc_id"]).columns
        """
        if self.columns is not None or self.query_col != "query_id" or "query_id" in schema:
            return self
        found = []
        for name in PRESETS:
            o = self.with_(columns=name)
            fits = o.query_col in schema and o.doc_col in schema
            if fits and qrels_schema is not None:
                fits = all(c in qrels_schema for c in o.qrels_columns[:2])
            if fits:
                found.append(o)
        if len(found) > 1:
            msg = (
                f"The run's columns {list(schema)} fit several column conventions: "
                + ", ".join(repr(o.columns) for o in found)
                + f". Hint: say which, e.g. {where}(..., columns={found[0].columns!r})."
            )
            raise InvalidParameterError(msg)
        return found[0] if found else self

    def with_(self, **changes: Any) -> Options:
        """A copy with some options changed (validated like :meth:`build`)."""
        return Options.build(**{**self.as_kwargs(), **changes})

    def as_kwargs(self) -> dict[str, Any]:
        """The options as the keyword arguments of :func:`irframe.evaluate`."""
        out = asdict(self)
        out["by"] = list(self.by)
        out["columns"] = None  # the names are explicit already
        return out

    def column_kwargs(self) -> dict[str, Any]:
        """The column names and the order rule, as keyword arguments of :func:`irframe.evaluate`."""
        out = self.as_kwargs()
        for key in ("by", "missing", "duplicates"):
            del out[key]
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


def _columns_arg(columns: object, where: str) -> tuple[str | None, dict[str, str | None]]:
    """``columns=``: (preset name or None, the column options it sets)."""
    if columns is None:
        return None, {}
    if isinstance(columns, str):
        if columns not in PRESETS:
            err = InvalidParameterError.for_value(
                "columns", where, "one of " + ", ".join(repr(p) for p in PRESETS) + " or a mapping", columns
            )
            hint = closest(columns, PRESETS)
            raise InvalidParameterError(str(err) + (f" Hint: did you mean {hint[0]!r}?" if hint else ""))
        return columns, dict(PRESETS[columns])
    if not isinstance(columns, Mapping):
        raise InvalidParameterError.for_value(
            "columns", where, "a preset name or a {role: column} mapping", columns
        )
    out: dict[str, str | None] = {}
    for role, col in columns.items():
        key = _ROLES.get(str(role).removesuffix("_col"))
        if key is None:
            err = InvalidParameterError.for_value("columns", where, "roles among " + ", ".join(_ROLES), role)
            raise err
        _check(key, col, where)
        out[key] = col
    return None, out


def _check(name: str, value: object, where: str) -> None:
    if name == "depth":
        if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
            raise InvalidParameterError.for_value(name, where, "an int in the range [1, inf) or None", value)
        return
    allowed: tuple[object, ...] | None = CHOICES.get(name)
    if allowed is None:
        if value is None and name in _OPTIONAL_COLUMNS:
            return
        if not isinstance(value, str) or not value:
            raise InvalidParameterError.for_value(name, where, "a column name (a non-empty str)", value)
        return
    if value not in allowed:
        expected = "one of " + ", ".join(repr(a) for a in allowed)
        raise InvalidParameterError.for_value(name, where, expected, value)


COLUMN_OPTIONS: frozenset[str] = frozenset(f.name for f in fields(Options) if f.name.endswith("_col"))
"""The names of the column options (``query_col`` ... ``qrels_relevance_col``)."""
