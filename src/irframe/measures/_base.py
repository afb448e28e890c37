"""The measure model: parameters, families, the registry and the ``Measure`` value.

A :class:`Family` is one registered definition: its name and aliases, its declared
parameters (:class:`Param`), whether it takes a cutoff, its trec_eval names
(:class:`TrecName`), how it aggregates over queries, and how it compiles to polars
expressions through a :class:`Ctx` that the engine provides.  Everything else
(parser, suggestions, ``irframe measures``, CLI flags, docs, test strategies) reads
the registry.

A :class:`Measure` is a frozen value: a family, an optional cutoff and every
parameter (defaults filled in).  Its canonical ``str()`` (ir_measures notation, only
the parameters that differ from their defaults) is the output column name and the key
of every intermediate column the engine makes for it.
"""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import wraps
from typing import Any, Literal, Protocol, TypeVar

import polars as pl

from irframe.exceptions import InvalidParameterError, UnknownMeasureError, closest
from irframe.measures._ranx import ranx_meaning

__all__ = [
    "Ctx",
    "Family",
    "Measure",
    "Param",
    "Params",
    "PerRow",
    "TrecName",
    "families",
    "family",
    "fmt_num",
    "per_registry",
    "register",
    "trec_names",
    "unknown_measure",
]

CutoffRule = Literal["required", "optional", "none"]
Aggregate = Literal["mean", "gmean", "sum"]
Converter = Callable[[object, str], object]
PerRow = pl.Expr | Callable[[int | None], pl.Expr]  # see Ctx.cumulative


def fmt_num(x: float) -> str:
    """A number as the canonical strings write it: ``2``, ``0.5``."""
    return str(int(x)) if float(x).is_integer() else repr(float(x))


@dataclass(frozen=True)
class Param:
    """One declared parameter of a family.

    ``convert(value, source)`` validates and normalises a value (from a string or from
    Python) and raises :class:`InvalidParameterError` naming the parameter;
    ``text(value)`` gives the ``(key, text)`` written in the canonical string.
    """

    name: str
    default: object
    doc: str
    type_name: str
    convert: Converter
    text: Callable[[object], tuple[str, str]] | None = None
    aliases: tuple[str, ...] = ()  # other keys accepted for it (``gains`` for ``gain``)
    required: bool = False  # no usable default: a measure must set it (SDCG's ``max_rel``)
    choices: tuple[object, ...] = ()  # the values it takes, when a few (RBP's gain: scaled, linear)
    example: object = None  # a value the docs and error messages show for a required one

    def canonical(self, value: object) -> tuple[str, str]:
        """The ``key=text`` pair of the canonical string for ``value``."""
        if self.text is not None:
            return self.text(value)
        return self.name, fmt_num(value) if isinstance(value, int | float) else str(value)


class Params(tuple[Param, ...]):
    """A family's parameters; ``"rel" in params`` tests by name."""

    __slots__ = ()

    def __contains__(self, key: object) -> bool:
        return any(key in (p.name, p) for p in self)

    @property
    def names(self) -> tuple[str, ...]:
        """The parameter names in declared order."""
        return tuple(p.name for p in self)

    def get(self, key: str) -> Param | None:
        """The parameter called ``key`` (or one of its aliases)."""
        return next((p for p in self if key == p.name or key in p.aliases), None)


@dataclass(frozen=True)
class TrecName:
    """A trec_eval spelling of a family's measures, e.g. ``ndcg_cut_{k}`` with gain=linear.

    ``pattern`` holds ``{k}`` for the cutoff, or ``{<param>}`` for a numeric parameter
    written with ``number`` (``iprec_at_recall_{recall}`` -> ``iprec_at_recall_0.10``).
    ``fixed`` are the parameter values the name implies.  ``cutoffs`` are trec_eval's
    default values of the placeholder (what ``-m all_trec`` prints); ``groups`` the
    trec_eval measure groups that include this name.
    """

    pattern: str
    fixed: Mapping[str, object] = field(default_factory=dict)
    cutoffs: tuple[float, ...] = ()
    groups: tuple[str, ...] = ("all_trec",)
    number: str = "{:.2f}"
    param: str | None = None  # the parameter trec_eval's name.value sets (set_F.0.5: beta)

    @property
    def slot(self) -> str | None:
        """The placeholder's name (``k`` or a parameter), or None for a plain name."""
        m = re.search(r"\{(\w+)\}", self.pattern)
        return m[1] if m else None

    def regex(self) -> re.Pattern[str]:
        """A regex that matches this name and captures the placeholder as ``v``."""
        slot = self.slot
        if slot is None:
            return re.compile("^" + re.escape(self.pattern) + "$")
        head, tail = self.pattern.split("{" + slot + "}")
        value = r"(?P<v>[0-9]+)" if slot == "k" else r"(?P<v>[0-9]+(?:\.[0-9]+)?)"
        return re.compile("^" + re.escape(head) + value + re.escape(tail) + "$")

    def format(self, value: float | None) -> str:
        """The name with the placeholder filled in."""
        slot = self.slot
        if slot is None:
            return self.pattern
        text = str(int(value)) if slot == "k" else self.number.format(value)  # type: ignore[arg-type]
        return self.pattern.replace("{" + slot + "}", text)


class Ctx(Protocol):
    """What the engine offers a family's ``compile``: per-query columns, keyed by measure.

    Every expression a family registers runs in the aggregation context of one query:
    ``over_judgments`` over the query's judged grades (:attr:`grades`, any order),
    ``over_ranking`` over its retrieved documents' grades in ranking order.  Both return
    a per-query Float64 column for the final expression; ``name`` only needs to be unique
    within the measure (the engine prefixes the measure's canonical string).

    A family reads the grades only through :attr:`grades` (never ``pl.col(kernels.REL)``
    itself), so that the same definition compiles for the engine's group_by (the column
    ``kernels.REL``) and for :mod:`irframe.expr` (the elements of one sorted list per
    query, ``pl.element()``).
    """

    @property
    def grades(self) -> pl.Expr:
        """The grades, as the family's expressions read them (Float64, null: not judged)."""
        ...

    def over_judgments(self, m: Measure, name: str, expr: pl.Expr) -> pl.Expr:
        """Register a per-query value over the judgments; return it as a column."""
        ...

    def judgments_in_ranking(self, m: Measure, name: str, expr: pl.Expr) -> pl.Expr:
        """A per-query value over the judgments, usable inside ``over_ranking`` expressions."""
        ...

    def over_ranking(self, m: Measure, name: str, expr: pl.Expr) -> pl.Expr:
        """Register a per-query value over the ranked grades; return it as a column."""
        ...

    def cumulative(self, m: Measure, name: str, expr: PerRow, k: int | None) -> pl.Expr:
        """Per query, the sum of ``expr`` over the first ``k`` rows (every row for None).

        ``expr`` is per row, over the ranking; or a function of a row limit ``n``
        (``None``: every row) giving that expression over the first ``n`` ranked rows only
        (e.g. ``lambda n: K.discounted(gain, K.top(ranked(m, ctx), n))``), so that a top-k
        sum computes nothing below rank k.
        One cumulative pass, keyed by ``m`` without its cutoff, serves every cutoff.
        """
        ...

    def judged_list(self, m: Measure, name: str, expr: pl.Expr) -> pl.Expr:
        """A per-query list over the judgments (``expr`` not aggregated), returned as a
        list column for the measure's final expression (``.list`` operations)."""
        ...

    def per_query(self, m: Measure, name: str, expr: pl.Expr) -> pl.Expr:
        """A per-query column computed from other per-query columns (``judged_list``...),
        once for every measure that reads it; returned as a column."""
        ...

    def per_query_cumulative(
        self, m: Measure, name: str, terms: Callable[[int | None], pl.Expr], k: int | None
    ) -> pl.Expr:
        """Per query, the sum of the first ``k`` elements (every one for None) of a list
        computed from other per-query columns (as by ``per_query``).

        ``terms(n)`` gives the list's first ``n`` elements (every one for None), e.g.
        ``lambda n: K.ideal_dcg_terms(gains, n)``.  As for ``cumulative``, the cutoffs
        of ``m`` without its cutoff are planned together: a few are a sum each, more
        read one cumulative list.
        """
        ...

    def judged_grades_in_ranking(self, m: Measure, name: str, expr: pl.Expr) -> pl.Expr:
        """A per-query list over the judgments (``expr`` not aggregated), usable inside
        ``over_ranking`` expressions as a column of that length."""
        ...

    def value(self, m: Measure) -> pl.Expr:
        """Another measure's per-query value (compiled once, shared by every user)."""
        ...

    def n_retrieved(self) -> pl.Expr:
        """The number of documents retrieved for the query (0 for a missing query)."""
        ...


Compile = Callable[["Measure", Ctx], pl.Expr]


@dataclass(frozen=True)
class Family:
    """One measure family, as registered: everything the library knows about it."""

    name: str
    description: str
    compile: Compile
    params: Params = field(default_factory=Params)
    cutoff: CutoffRule = "optional"
    aliases: tuple[str, ...] = ()
    trec: tuple[TrecName, ...] = ()
    aggregate: Aggregate = "mean"
    trec_total: Aggregate | None = None  # the trec_eval ``all`` row, if not ``aggregate``
    kind: str = "binary"
    formula: str = ""
    ir_measures: str | None = None
    peers: str = ""
    at_param: str | None = None  # the parameter ``@value`` sets (``IPrec@0.1``), for a family without cutoff
    # checks between parameters, ``check(values, source)``: raises InvalidParameterError
    check: Callable[[Mapping[str, Any], str], None] | None = None

    def example(self, k: int | None = None) -> Measure:
        """A measure of this family: cutoff ``k`` (ignored without one), required parameters
        set to their examples (what the docs' worked example and the generic tests evaluate)."""
        need = {p.name: p.example for p in self.params if p.required}
        cut = None if self.cutoff == "none" else k if k is not None or self.cutoff == "optional" else 10
        return Measure(self.name, cut, **need)

    @property
    def total(self) -> Aggregate:
        """How trec_eval's ``all`` row aggregates this family."""
        return self.trec_total or self.aggregate

    @property
    def trec_name(self) -> str | None:
        """The trec_eval names as one line (``map / map_cut_k``), or None."""
        if not self.trec:
            return None
        return " / ".join(t.pattern.replace("{k}", "k") for t in self.trec)


_REGISTRY: dict[str, Family] = {}
_ALIASES: dict[str, str] = {}


def register(fam: Family) -> Family:
    """Add a family to the registry (its name and aliases must be new).

    Examples
    --------
    >>> from irframe.measures import family
    >>> family("nDCG").aggregate
    'mean'
    """
    taken = [n for n in (fam.name, *fam.aliases) if n in _REGISTRY or n in _ALIASES]
    if taken:
        msg = (
            f"A measure family named {taken[0]!r} is already registered. "
            "Hint: choose another name, or unregister the old one first."
        )
        raise InvalidParameterError(msg)
    _REGISTRY[fam.name] = fam
    for alias in fam.aliases:
        _ALIASES[alias] = fam.name
    return fam


def unregister(name: str) -> None:
    """Remove a family (user-defined measures; mostly for tests)."""
    fam = _REGISTRY.pop(name, None)
    if fam is not None:
        for alias in fam.aliases:
            _ALIASES.pop(alias, None)


def families() -> list[Family]:
    """Every registered family, in registration order."""
    return list(_REGISTRY.values())


def registry() -> Mapping[str, Family]:
    """The registry: family name -> Family (read-only view)."""
    return _REGISTRY


_T = TypeVar("_T")


def per_registry(build: Callable[[], _T]) -> Callable[[], _T]:
    """``build()`` memoised per state of the registry, for tables read from every family
    (trec_eval spellings, groups): rebuilt when a family was registered or removed since.

    The families themselves are the key (compared by identity, in order), so the memo
    cannot outlive a change made through :func:`register`, :func:`unregister` or the
    dict :func:`registry` returns.  What ``build`` returns is shared between callers:
    give it immutable values, or a memo filled only with values computed under the same
    registry (the engine's compiled measures: ``per_registry(dict)``).

    Examples
    --------
    >>> calls = []
    >>> table = per_registry(lambda: calls.append(1) or len(families()))
    >>> table() == table() == len(families()), len(calls)
    (True, 1)
    """
    memo: list[tuple[tuple[Family, ...], _T]] = []

    @wraps(build)
    def cached() -> _T:
        fams = tuple(_REGISTRY.values())
        if memo:
            seen, value = memo[0]
            if len(seen) == len(fams) and all(map(operator.is_, seen, fams)):  # (C speed: called per measure)
                return value
        value = build()
        memo[:] = [(fams, value)]
        return value

    return cached


def aliases() -> Mapping[str, str]:
    """Alias -> family name."""
    return _ALIASES


def family(name: str) -> Family:
    """The family called ``name`` (or whose alias it is); UnknownMeasureError otherwise."""
    fam = _REGISTRY.get(_ALIASES.get(name, name))
    if fam is None:
        raise unknown_measure(name)
    return fam


def trec_names(fam: Family) -> list[str]:
    """Example trec_eval spellings of a family (placeholders filled with a first default)."""
    return [t.format(t.cutoffs[0] if t.cutoffs else 10) for t in fam.trec]


def unknown_measure(text: str) -> UnknownMeasureError:
    """The error for an unknown measure name, with the nearest known spellings.

    Another tool's spelling (ranx's ``ndcg@10``) gets the irframe measure with the same
    meaning, not the nearest-looking one (see :mod:`irframe.measures._ranx`).
    """
    peer = ranx_meaning(text)
    if peer is not None:
        msg = (
            f"Unknown measure {text!r}. In ranx, {text!r} is irframe's {peer!r}: "
            f"write {peer!r}.\nHint: irframe's names are case-sensitive (nDCG, P, R, AP, RR...); "
            "nDCG's default gain is 2^rel - 1, nDCG(gain=linear) is trec_eval's."
        )
        return UnknownMeasureError(msg)
    if text.count("@") > 1:
        name, _, rest = text.partition("@")
        one = name + "@" + rest.split("@", 1)[0]
        msg = f"Unknown measure {text!r}: a measure takes one cutoff. Did you mean {one!r}?"
        return UnknownMeasureError(msg)
    fams = _REGISTRY
    name, at, k = text.partition("@")
    base = name.split("(")[0]
    cutoff = f"@{k}" if k else ""  # (an incomplete 'P@' is the name without its cutoff)
    alias_map = _ALIASES
    lowered = {n.lower(): alias_map.get(n, n) for n in (*fams, *alias_map)}
    hint: list[str] = []
    if base.lower() in lowered:  # right name, wrong case or no cutoff: the canonical spelling first
        fam = fams[lowered[base.lower()]]
        cut = "@10" if fam.cutoff != "none" and at and not cutoff else cutoff
        cut = "@10" if fam.cutoff == "required" and not cut else cut
        hint.append(fam.name + name[len(base) :] + cut)
    trec = [n for f in fams.values() for n in trec_names(f)]
    for h in closest(base, [*fams, *alias_map, *trec], n=3):
        target = fams.get(alias_map.get(h, h))
        if target is None:
            hint.append(h)
        elif (target.cutoff == "none") == (not cutoff):
            hint.append(h + cutoff)
    hint = [h for h in dict.fromkeys(hint) if h != text]
    msg = f"Unknown measure {text!r}" + (": the cutoff after '@' is missing." if at and not k else ".")
    if hint:
        msg += " Did you mean " + " or ".join(repr(h) for h in hint) + "?"
    msg += "\nHint: known families: " + ", ".join(fams) + "; aliases: " + ", ".join(alias_map)
    msg += "; trec_eval names such as ndcg_cut_10, P_5, map, recip_rank (see 'irframe measures')."
    return UnknownMeasureError(msg)


def check_cutoff(k: object, where: str) -> int:
    """A cutoff is an int >= 1 (and below 2**63, a rank polars can hold)."""
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k < 2**63:
        raise InvalidParameterError.for_value("k", where, "an int in the range [1, 2**63)", k)
    return k


class Measure:
    """One retrieval measure: a family, a cutoff and its parameters; compared by value.

    Parameters
    ----------
    family : str
        A registered family name or alias (``"nDCG"``, ``"P"``, ``"MAP"`` ...).
    cutoff : int or None
        Rank cutoff ``k``; ``None`` means the whole ranking.
    **params
        The family's parameters (``rel=2``, ``gain="linear"`` ...); the others keep their
        defaults.

    Examples
    --------
    >>> Measure("AP", cutoff=100)
    AP@100
    >>> Measure("nDCG", 10, gain=((1, 1.0), (2, 3.0))).gains_dict()
    {1.0: 1.0, 2.0: 3.0}
    >>> Measure("P", 5, rel=2).rel
    2
    """

    __slots__ = ("_key", "cutoff", "family", "params")
    family: str
    cutoff: int | None
    params: Mapping[str, Any]
    _key: tuple[Any, ...]

    def __init__(self, family: str, cutoff: int | None = None, **params: object) -> None:
        self._init(family, cutoff, params, None)

    def _init(self, name: str, cutoff: int | None, params: Mapping[str, object], source: str | None) -> None:
        fam = family(name)
        if fam.at_param is not None and cutoff is not None:  # IPrec@0.1: @ sets a parameter
            params, cutoff = {**params, fam.at_param: cutoff}, None
        source = source or _source(fam.name, cutoff, params)
        if cutoff is not None:
            if fam.cutoff == "none":
                msg = f"{fam.name} takes no cutoff (got @{cutoff}). Hint: write {fam.name!r}."
                raise InvalidParameterError(msg)
            check_cutoff(cutoff, f"{fam.name}@k")
        elif fam.cutoff == "required":
            msg = (
                f"{fam.name} needs a cutoff, e.g. '{fam.name}@10'. "
                f"Hint: write '{fam.name}@k' with an int k >= 1."
            )
            raise InvalidParameterError(msg)
        values = {p.name: p.default for p in fam.params}
        for key, value in params.items():
            spec = fam.params.get(key)
            if spec is None:  # never dropped: Measure("ERR", 10, rel=2) raises (0.1.0 ignored it)
                raise _unknown_param(fam, key, source)
            values[spec.name] = spec.convert(value, source)
        _check_required(fam, params, source)
        if fam.check is not None:
            fam.check(values, source)
        object.__setattr__(self, "family", fam.name)
        object.__setattr__(self, "cutoff", cutoff)
        object.__setattr__(self, "params", _Frozen(values))
        object.__setattr__(self, "_key", (fam.name, cutoff, tuple(values.items())))

    @classmethod
    def parsed(cls, name: str, cutoff: int | None, params: Mapping[str, object], source: str) -> Measure:
        """A measure read from the text ``source`` (errors quote it)."""
        self = cls.__new__(cls)
        self._init(name, cutoff, params, source)
        return self

    def __setattr__(self, name: str, value: object) -> None:
        msg = f"Measure is immutable; use m(**params) or m @ k for a new one (tried to set {name!r})."
        raise AttributeError(msg)

    def __getattr__(self, name: str) -> Any:
        params = object.__getattribute__(self, "params")
        if name in params:
            return params[name]
        if name in _UNIVERSAL:  # 0.1.0 gave every measure a rel and a gain attribute
            return _UNIVERSAL[name]
        msg = f"{type(self).__name__} {self} has no attribute or parameter {name!r}."
        raise AttributeError(msg)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Measure) and self._key == other._key

    def __hash__(self) -> int:
        return hash(self._key)

    def __reduce__(self) -> tuple[Any, ...]:
        fam = self.definition
        if fam.kind == "user":  # a worker process may not know it: ship the definition
            return (_rebuild_user, (fam, self.cutoff, dict(self.params)))
        return (_rebuild, (self.family, self.cutoff, dict(self.params)))

    @property
    def definition(self) -> Family:
        """The registered family of this measure."""
        return family(self.family)

    def changed_params(self) -> dict[str, str]:
        """Parameters that differ from their defaults, as canonical ``key -> text``."""
        out: dict[str, str] = {}
        for spec in self.definition.params:
            value = self.params[spec.name]
            if value != spec.default:
                key, text = spec.canonical(value)
                out[key] = text
        return out

    def __str__(self) -> str:
        p = self.changed_params()
        at = self.definition.at_param
        s = self.family
        if at is not None:
            p.pop(at, None)
        if p:
            s += "(" + ",".join(f"{k}={v}" for k, v in p.items()) + ")"
        if self.cutoff is not None:
            s += f"@{self.cutoff}"
        elif at is not None:
            s += "@" + fmt_num(self.params[at])
        return s

    def __repr__(self) -> str:
        return str(self)

    def __matmul__(self, k: int) -> Measure:
        return Measure(self.family, k, **self.params)

    def __call__(self, **params: object) -> Measure:
        return self.with_params(**params)

    def with_params(self, **params: object) -> Measure:
        """A copy with some parameters (and/or ``cutoff=``) changed."""
        cutoff = params.pop("cutoff", self.cutoff)
        return Measure(self.family, cutoff, **{**self.params, **params})  # type: ignore[arg-type]

    def gains_dict(self) -> dict[float, float] | None:
        """Explicit per-grade gains, or ``None`` (no gain parameter, or ``exp``/``linear``)."""
        g = self.params.get("gain")
        if not isinstance(g, tuple):
            return None
        return {float(a): float(b) for a, b in g}

    @property
    def description(self) -> str:
        """One line saying what the family measures."""
        return self.definition.description


_UNIVERSAL: dict[str, object] = {"rel": 1, "gain": "exp"}


def _rebuild(family_name: str, cutoff: int | None, params: dict[str, Any]) -> Measure:
    return Measure(family_name, cutoff, **params)


def _rebuild_user(fam: Family, cutoff: int | None, params: dict[str, Any]) -> Measure:
    if fam.name not in _REGISTRY:
        register(fam)
    return Measure(fam.name, cutoff, **params)


class _Frozen(Mapping[str, Any]):
    """A read-only dict of parameter values."""

    __slots__ = ("_d",)

    def __init__(self, d: dict[str, Any]) -> None:
        self._d = d

    def __getitem__(self, key: str) -> Any:
        return self._d[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._d)

    def __len__(self) -> int:
        return len(self._d)

    def __repr__(self) -> str:
        return repr(self._d)


def _source(name: str, cutoff: int | None, params: Mapping[str, object]) -> str:
    inner = ",".join(f"{k}={v}" for k, v in params.items())
    return name + (f"({inner})" if inner else "") + (f"@{cutoff}" if cutoff is not None else "")


def _unknown_param(fam: Family, key: str, source: str) -> UnknownMeasureError:
    """A parameter ``fam`` does not declare: its parameters, the nearest spelling, and the
    families that do have ``key`` (where the meaning the caller wants lives)."""
    allowed = ", ".join(fam.params.names) or "none"
    hint = closest(key, [n for p in fam.params for n in (p.name, *p.aliases)])
    msg = f"Unknown parameter {key!r} for measure {fam.name} in {source!r}. Its parameters: {allowed}."
    if hint:
        msg += f"\nHint: did you mean {hint[0]!r}?"
    meanings: dict[str, list[str]] = {}  # what the key means elsewhere -> the families
    for other in _REGISTRY.values():
        spec = other.params.get(key)
        if spec is not None:
            meanings.setdefault(re.split(r"[:;]", spec.doc)[0].strip(), []).append(other.name)
    if meanings:
        parts = []
        for doc, names in meanings.items():
            more = f" and {len(names) - 8} more" if len(names) > 8 else ""
            parts.append(f"{doc} in {', '.join(names[:8])}{more}")
        msg += f"\nHint: {key!r} is a parameter of other families: " + "; ".join(parts)
        msg += f". {fam.name} has no such setting."
    return UnknownMeasureError(msg)


def _check_required(fam: Family, given: Mapping[str, object], source: str) -> None:
    """Every required parameter of ``fam`` is in ``given`` (by name or alias)."""
    for p in fam.params:
        if p.required and not any(k in given for k in (p.name, *p.aliases)):
            example = Measure.__new__(Measure)
            values = {q.name: (p.example if q is p else q.default) for q in fam.params}
            object.__setattr__(example, "family", fam.name)
            object.__setattr__(example, "cutoff", 10 if fam.cutoff == "required" else None)
            object.__setattr__(example, "params", _Frozen(values))
            msg = (
                f"{fam.name} needs {p.name}= ({p.doc}); {source!r} does not set it. "
                f"Hint: write e.g. {str(example)!r}."
            )
            raise InvalidParameterError(msg)


# --- converters shared by the families' parameters --------------------------------------
def to_number(value: object, name: str, source: str) -> float:
    """A finite real number from a number or its text (ints stay ints)."""
    if isinstance(value, bool):
        raise InvalidParameterError.for_value(name, source, "a number", value)
    if isinstance(value, int | float):
        num = float(value)
    else:
        text = str(value).strip()
        if not re.fullmatch(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?", text):
            raise InvalidParameterError.for_value(name, source, "a number", value)
        num = float(text)
    if not math.isfinite(num):
        raise InvalidParameterError.for_value(name, source, "a finite number", value)
    return int(num) if num.is_integer() and not isinstance(value, float) else num


def number_param(name: str, default: float, doc: str, *, low: float | None = None,
                 high: float | None = None, closed: str = "both") -> Param:  # fmt: skip
    """A real-valued parameter with optional bounds (``closed``: both/left/right/neither)."""

    def convert(value: object, source: str) -> object:
        num = to_number(value, name, source)
        lo_ok = low is None or (num >= low if closed in ("both", "left") else num > low)
        hi_ok = high is None or (num <= high if closed in ("both", "right") else num < high)
        if not (lo_ok and hi_ok):
            left = "[" if closed in ("both", "left") else "("
            right = "]" if closed in ("both", "right") else ")"
            lo_text = "-inf" if low is None else fmt_num(low)
            hi_text = "inf" if high is None else fmt_num(high)
            rng = f"{left}{lo_text}, {hi_text}{right}"
            raise InvalidParameterError.for_value(name, source, f"a number in the range {rng}", value)
        return int(num) if float(num).is_integer() else num

    return Param(name, default, doc, "float", convert)
