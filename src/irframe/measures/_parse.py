"""Parsing measure strings (ir_measures notation, aliases, trec_eval names) from the registry.

Nothing here lists a family: the names, aliases, trec_eval spellings and suggestions
all come from the registered :class:`~irframe.measures.Family` objects.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import MappingProxyType

from irframe.exceptions import InvalidParameterError, UnknownMeasureError
from irframe.measures._base import (
    Family,
    Measure,
    TrecName,
    aliases,
    check_cutoff,
    per_registry,
    registry,
    trec_names,
    unknown_measure,
)
from irframe.measures._peers import dcg_as_gain, from_ir_measures, is_ir_measures

__all__ = [
    "Measures",
    "Parsed",
    "parse_measure",
    "parse_measures",
    "to_trec_name",
    "trec_bases",
    "trec_dotted",
    "trec_groups",
    "trec_names",
    "unknown_measure",
]

_NOTATION = re.compile(r"^(?P<name>[A-Za-z][A-Za-z0-9_]*?)(?:\((?P<params>.*)\))?(?:@(?P<k>[^@]+))?$")
_DIGITS = re.compile(r"[0-9]+")  # ASCII digits only: int() also reads full-width digits and '1_0'
# trec_eval's (and pytrec_eval's) -m syntax: a name, a dot, comma-separated values (P.5,10)
_DOTTED = re.compile(r"^(?P<base>[A-Za-z][A-Za-z0-9_]*)\.(?P<values>[0-9.]+(?:,[0-9.]+)*)$")
# the same list after trec_eval's printed name, as ir_measures and pytrec_eval read it (P_5,10)
_LISTED = re.compile(r"^(?P<base>[A-Za-z][A-Za-z0-9_]*?)_(?P<values>[0-9.]+(?:,[0-9.]+)+)$")


_TrecIndex = tuple[tuple[re.Pattern[str], Family, str | None, Mapping[str, object]], ...]


@per_registry
def _trec_index() -> _TrecIndex:
    """(regex, family, placeholder, fixed params) for every trec_eval spelling, built
    once per state of the registry: parsing the 47 classic trec_eval names rebuilt it 47
    times, 6 ms against 0.45 ms now."""
    spellings = [(fam, t) for fam in registry().values() for t in fam.trec]
    return tuple((t.regex(), fam, t.slot, MappingProxyType(dict(t.fixed))) for fam, t in spellings)


def _from_trec(text: str) -> Measure | None:
    for regex, fam, slot, fixed in _trec_index():
        m = regex.match(text)
        if m is None:
            continue
        if slot is None:
            return Measure.parsed(fam.name, None, fixed, text)
        if slot == "k":
            return Measure.parsed(fam.name, check_cutoff(int(m["v"]), text), fixed, text)
        return Measure.parsed(fam.name, None, {**fixed, slot: m["v"]}, text)
    return None


def trec_dotted(text: str) -> list[str] | None:
    """trec_eval's ``-m name.v1,v2`` spelling as trec_eval names; ``None`` if not so spelled
    (or ``name`` is no trec_eval measure taking a value).

    ``P.5,10`` is ``P_5`` and ``P_10``, ``ndcg_cut.10`` is ``ndcg_cut_10`` and
    ``iprec_at_recall.0.1`` is ``iprec_at_recall_0.10``: the names trec_eval prints.
    ir_measures and pytrec_eval also read the list after the printed name (``P_5,10``,
    ``ndcg_cut_20,4``), and ``set_F.1.0,0.5`` as set_F at beta 1.0 and 0.5
    (``SetF(beta=0.5)``: trec_eval prints one name for both).

    Examples
    --------
    >>> trec_dotted("P.5,10"), trec_dotted("ndcg_cut.10"), trec_dotted("P@5")
    (['P_5', 'P_10'], ['ndcg_cut_10'], None)
    >>> trec_dotted("ndcg_cut_20,4"), trec_dotted("set_F.1.0,0.5")
    (['ndcg_cut_20', 'ndcg_cut_4'], ['set_F', 'SetF(beta=0.5)'])
    """
    for spelling in (_DOTTED, _LISTED):
        m = spelling.match(text.strip())
        found = None if m is None else _listed(m["base"], m["values"], text, dotted=spelling is _DOTTED)
        if found is not None:
            return found
    return None  # not a trec_eval name with a value (iprec_at_recall_0.10 is read as it is)


def _listed(base: str, listed: str, text: str, *, dotted: bool) -> list[str] | None:
    """The names of ``base`` at the values ``listed`` (:func:`trec_dotted`)."""
    for fam in registry().values():
        for t in fam.trec:
            slot = t.slot
            if slot is None and t.param is not None and t.pattern == base and dotted:
                return _with_param(fam, t, listed.split(","), text)
            if slot is None or t.pattern != f"{base}_{{{slot}}}":
                continue
            values = listed.split(",")
            if slot == "k" and not all(_DIGITS.fullmatch(v) for v in values):
                raise InvalidParameterError.for_value("k", text, "ints >= 1, e.g. 'P.5,10'", listed)
            try:
                return [t.format(int(v) if slot == "k" else float(v)) for v in values]
            except ValueError:
                raise InvalidParameterError.for_value(slot, text, "numbers, e.g. '0.1,0.5'", listed) from None
    return None


def _with_param(fam: Family, t: TrecName, values: list[str], text: str) -> list[str]:
    """trec_eval's ``set_F.1.0,0.5``: the name (at the parameter's default), else the
    irframe measure with that value (trec_eval prints one name for all of them)."""
    assert t.param is not None  # (the caller's check)
    param = fam.params.get(t.param)
    out = []
    for v in values:
        try:
            value = float(v)
        except ValueError:
            raise InvalidParameterError.for_value(t.param, text, "numbers, e.g. '1.0,0.5'", v) from None
        if param is not None and value == param.default:
            out.append(t.pattern)
        else:
            out.append(str(Measure(fam.name, None, **{**t.fixed, t.param: value})))
    return out


@per_registry
def trec_groups() -> Mapping[str, tuple[str, ...]]:
    """trec_eval's measure groups (``official``, ``all_trec``, ``set``) -> their names.

    Each family's :class:`~irframe.measures.TrecName` says which groups it belongs to and
    which default values its placeholder takes (``P_{k}`` at 5, 10, ... 1000).  Built
    once per state of the registry (:func:`~irframe.measures._base.per_registry`).

    Examples
    --------
    >>> trec_groups()["official"][:4]
    ('P_5', 'P_10', 'P_15', 'P_20')
    """
    out: dict[str, list[str]] = {}
    for fam in registry().values():
        for t in fam.trec:
            names = [t.format(c) for c in t.cutoffs] if t.slot else [t.pattern]
            for group in t.groups:
                out.setdefault(group, []).extend(names)
    return MappingProxyType({group: tuple(names) for group, names in out.items()})


@per_registry
def trec_bases() -> Mapping[str, tuple[str, ...]]:
    """trec_eval names taking a value, by base name, at trec_eval's default values:
    ``-m P`` prints ``P_5`` ... ``P_1000`` in trec_eval.  Built once per state of the
    registry: the command line asks for every ``-m`` (47 of them: 15 ms, now 0.3 ms).

    Examples
    --------
    >>> trec_bases()["ndcg_cut"][:3]
    ('ndcg_cut_5', 'ndcg_cut_10', 'ndcg_cut_15')
    """
    out: dict[str, tuple[str, ...]] = {}
    for fam in registry().values():
        for t in fam.trec:
            if t.slot is not None and t.pattern.endswith("_{" + t.slot + "}") and t.cutoffs:
                out.setdefault(t.pattern.rsplit("_{", 1)[0], tuple(t.format(c) for c in t.cutoffs))
    return MappingProxyType(out)


def to_trec_name(m: Measure, *, ignore: Sequence[str] = ("rel",)) -> str | None:
    """The trec_eval name of ``m`` (``P@5`` -> ``P_5``), or None when trec_eval has none.

    Parameters in ``ignore`` do not enter the match: trec_eval's ``-l`` sets the
    relevance level of every measure at once, so ``P(rel=2)@5`` is still ``P_5``.

    Examples
    --------
    >>> to_trec_name(parse_measure("nDCG(gain=linear)@10"))
    'ndcg_cut_10'
    >>> to_trec_name(parse_measure("P(rel=2)@5")), to_trec_name(parse_measure("nDCG@10"))
    ('P_5', None)
    """
    fam = m.definition
    defaults = {p.name: p.default for p in fam.params if p.name not in ignore}
    for t in fam.trec:
        want = {**defaults, **t.fixed}
        slot = t.slot
        if any(m.params[k] != v for k, v in want.items() if k != slot):
            continue
        if slot == "k" and m.cutoff is not None:
            return t.format(m.cutoff)
        if slot is None and m.cutoff is None:
            return t.pattern
        if slot not in (None, "k") and m.cutoff is None:
            return t.format(float(m.params[slot]))
    return None


def _split_params(text: str, source: str) -> dict[str, str]:
    parts, depth, cur = [], 0, ""
    for ch in text:
        depth += (ch == "{") - (ch == "}")
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    out: dict[str, str] = {}
    for part in filter(None, (p.strip() for p in parts)):
        if "=" not in part:
            msg = (
                f"Cannot read parameter {part!r} in measure {source!r}. "
                "Hint: write name=value, e.g. 'P(rel=2)@10'."
            )
            raise UnknownMeasureError(msg)
        key, value = (s.strip() for s in part.split("=", 1))
        if key in out:
            msg = f"Parameter {key!r} is given twice in measure {source!r}. Hint: give it once."
            raise InvalidParameterError(msg)
        out[key] = value
    return out


def _cutoff(text: str, k: str | None) -> int | None:
    if k is None:
        return None
    if not _DIGITS.fullmatch(k):
        raise InvalidParameterError.for_value("k", text, "an int in the range [1, 2**63)", k)
    return check_cutoff(int(k), text)


def _written_cutoff(params: dict[str, str], k: str | None, text: str) -> str | None:
    """The cutoff, from ``@k`` or from ir_measures' ``cutoff=`` inside the parentheses
    (``nDCG(cutoff=20)`` is ``nDCG@20``), taken out of ``params``; both, unequal: an error
    (ir_measures lets ``@k`` win silently)."""
    inside = params.pop("cutoff", None)
    if inside is None:
        return k
    if k is not None and k.strip() != inside.strip():
        msg = (
            f"{text!r} gives two cutoffs: @{k} and cutoff={inside}. Hint: give one "
            f"(ir_measures reads @{k} and drops cutoff={inside})."
        )
        raise InvalidParameterError(msg)
    return inside.strip()


def parse_measure(measure: str | Measure) -> Measure:
    """Parse one measure string (ir_measures notation, alias or trec_eval name).

    Parameters
    ----------
    measure : str or Measure
        E.g. ``"nDCG@10"``, ``"P(rel=2)@5"``, ``"nDCG(gain=linear)"``, ``"MAP"``,
        ``"ndcg_cut_10"``, ``"recip_rank"``.

    Returns
    -------
    Measure

    Raises
    ------
    UnknownMeasureError
        For an unknown name or parameter, with the nearest known names.
    InvalidParameterError
        For a bad cutoff or parameter value.

    Examples
    --------
    >>> parse_measure("P_5")
    P@5
    >>> parse_measure("nDCG(gain=linear)@10")
    nDCG(gain=linear)@10
    >>> parse_measure("ndcg@10")  # ranx's ndcg is the linear gain
    Traceback (most recent call last):
    ...
    irframe.exceptions.UnknownMeasureError: Unknown measure 'ndcg@10'. In ranx, ... 'nDCG(gain=linear)@10'...
    """
    if isinstance(measure, Measure):
        return measure
    if is_ir_measures(measure):
        return from_ir_measures(measure)
    if not isinstance(measure, str):
        msg = (
            "A measure must be a string such as 'nDCG@10' or a Measure; "
            f"got {type(measure).__name__} {measure!r}."
        )
        raise UnknownMeasureError(msg)
    memo = _parsed()
    found = memo.get(measure)
    if found is None:
        found = _parse_text(measure.strip())
        if len(memo) >= _MEMO_SIZE:
            memo.clear()
        memo[measure] = found
    return found


# Parsed strings, memoised per state of the registry (a Measure is an immutable value):
# parsing costs as much as evaluating a few hundred rows (decisions.md, measure-parse-memo).
_MEMO_SIZE = 4096
_parsed: Callable[[], dict[str, Measure]] = per_registry(dict)


def _parse_text(text: str) -> Measure:
    """:func:`parse_measure` of a stripped string, not memoised."""
    dotted = trec_dotted(text)
    if dotted is not None:
        if len(dotted) > 1:
            msg = (
                f"{text!r} names {len(dotted)} measures ({', '.join(dotted)}). "
                "Hint: pass it to parse_measures / evaluate, or write one value, e.g. "
                f"{text.split(',', maxsplit=1)[0]!r}."
            )
            raise InvalidParameterError(msg)
        text = dotted[0]
    found = _from_trec(text)
    if found is not None:
        return found
    m = _NOTATION.match(text)
    if not m:
        raise unknown_measure(text)
    fam = registry().get(aliases().get(m["name"], m["name"]))
    if fam is None:
        raise unknown_measure(text)
    params = _split_params(m["params"], text) if m["params"] is not None else {}
    dcg_as_gain(fam.name, params, f"measure {text!r}")  # ir_measures' dcg=
    if fam.at_param is not None and m["k"] is not None:  # IPrec@0.1: @ sets a parameter
        if fam.at_param in params:
            msg = f"{fam.name}@value sets {fam.at_param}, given twice in {text!r}. Hint: give it once."
            raise InvalidParameterError(msg)
        return Measure.parsed(fam.name, None, {**params, fam.at_param: m["k"]}, text)
    cutoff = _cutoff(text, _written_cutoff(params, m["k"], text))
    if fam.cutoff == "required" and cutoff is None:
        msg = f"{fam.name} needs a cutoff: write '{text}@10' (any int k >= 1).{_trec_defaults_hint(text)}"
        raise InvalidParameterError(msg)
    return Measure.parsed(fam.name, cutoff, params, text)


def _trec_defaults_hint(text: str) -> str:
    """For a bare trec_eval name (``P``): what trec_eval's ``-m P`` means and how to ask for it.

    Examples
    --------
    >>> print(_trec_defaults_hint("P")[:80])
     trec_eval's -m P means its default cutoffs (P_5 ... P_1000): write 'P.5,10,15,2
    """
    names = trec_bases().get(text)
    if not names:
        return ""
    values = ",".join(n[len(text) + 1 :] for n in names)
    return (
        f" trec_eval's -m {text} means its default cutoffs ({names[0]} ... {names[-1]}): write "
        f"'{text}.{values}' (as the command line's -m {text} does); ir_measures refuses a bare {text} too."
    )


class Parsed(list[tuple[str, Measure]]):
    """Measures parsed once: the ``(label, Measure)`` pairs of :func:`parse_measures`, handed
    down whole to the steps of one call (:func:`parse_measures` returns it as it is; a
    list, as it always was, that no step changes)."""

    __slots__ = ()


# what a step that parses measures takes: the caller's, or parsed already
Measures = str | Measure | Iterable[str | Measure] | Parsed


def parse_measures(measures: Measures) -> Parsed:
    """Parse one or many measures into ``(label, Measure)`` pairs.

    The label is the caller's own spelling (the output column name); a ``Measure``
    object, or an ir_measures measure object (with ir_measures' meaning), is labelled by
    irframe's canonical string.  Repeated labels are kept once.

    Examples
    --------
    >>> parse_measures(["MAP", "ndcg_cut_10"])
    [('MAP', AP), ('ndcg_cut_10', nDCG(gain=linear)@10)]
    >>> parse_measures(["P.5,10", "ndcg_cut.10"])  # trec_eval's -m syntax
    [('P_5', P@5), ('P_10', P@10), ('ndcg_cut_10', nDCG(gain=linear)@10)]
    """
    if isinstance(measures, Parsed):
        return measures
    items: Sequence[str | Measure]
    single = isinstance(measures, str | Measure) or is_ir_measures(measures)
    items = [measures] if single else list(measures)  # type: ignore[list-item]
    if not items:
        msg = "No measure given. Hint: pass e.g. measures=['nDCG@10', 'P@10', 'R@100', 'RR', 'AP']."
        raise UnknownMeasureError(msg)
    out: dict[str, Measure] = {}
    for item in items:
        dotted = trec_dotted(item) if isinstance(item, str) else None
        for name in dotted or ():  # trec_eval's P.5,10: labelled P_5, P_10 as trec_eval prints
            out.setdefault(name, parse_measure(name))
        if dotted is not None:
            continue
        if isinstance(item, str):
            out.setdefault(item.strip(), parse_measure(item))
        else:
            m = parse_measure(item)
            out.setdefault(str(m), m)
    return Parsed(out.items())
