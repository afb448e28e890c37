"""Measures as values: parsed from strings such as ``"nDCG@10"`` or ``"P(rel=2)@5"``.

A :class:`Measure` is a frozen value object.  Its canonical ``str()`` is the
ir_measures notation (``nDCG(gain=linear)@10``); two spellings of the same
measure (``"MAP"``, ``"AP"``, ``"map"``) compare equal.  The families, their
parameters and the aliases live in one registry, from which error messages and
the documentation table are generated.

Examples
--------
>>> from irframe.measures import parse_measure, nDCG, P
>>> parse_measure("ndcg_cut_10")
nDCG(gain=linear)@10
>>> parse_measure("MRR@10") == parse_measure("RR@10")
True
>>> str(P(rel=2) @ 5)
'P(rel=2)@5'
>>> nDCG @ 10
nDCG@10
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from irframe.exceptions import InvalidParameterError, UnknownMeasureError, closest

__all__ = [
    "AP",
    "FAMILIES",
    "RR",
    "Bpref",
    "Family",
    "Judged",
    "Measure",
    "NumRel",
    "NumRelRet",
    "NumRet",
    "P",
    "R",
    "Rprec",
    "Success",
    "nDCG",
    "parse_measure",
    "parse_measures",
]

Gain = str | tuple[tuple[float, float], ...]
CutoffRule = Literal["required", "optional", "none"]


@dataclass(frozen=True)
class Family:
    """A measure family: its name, declared parameters and whether it takes a cutoff."""

    name: str
    params: tuple[str, ...]
    cutoff: CutoffRule
    description: str
    trec_name: str | None = None


FAMILIES: dict[str, Family] = {
    f.name: f
    for f in (
        Family("P", ("rel",), "required", "precision: relevant in the top k, divided by k", "P_k"),
        Family(
            "R",
            ("rel",),
            "optional",
            "recall: relevant in the top k, divided by all judged relevant",
            "recall_k",
        ),
        Family(
            "RR",
            ("rel",),
            "optional",
            "reciprocal rank of the first relevant document (within k)",
            "recip_rank",
        ),
        Family(
            "AP",
            ("rel",),
            "optional",
            "average precision (within k), divided by all judged relevant",
            "map / map_cut_k",
        ),
        Family(
            "nDCG",
            ("gain", "gains"),
            "optional",
            "normalised discounted cumulative gain; gain=exp (2^rel-1, default) or linear",
            "ndcg / ndcg_cut_k (gain=linear)",
        ),
        Family("Rprec", ("rel",), "none", "precision at rank R, R = judged relevant", "Rprec"),
        Family("Bpref", ("rel",), "none", "binary preference (judged documents only)", "bpref"),
        Family(
            "Success",
            ("rel",),
            "required",
            "1 if a relevant document is in the top k, else 0",
            "success_k",
        ),
        Family(
            "Judged",
            (),
            "optional",
            "fraction of the top k retrieved that is judged (over min(k, retrieved), as ir_measures)",
            None,
        ),
        Family("NumRet", (), "optional", "number of retrieved documents (within k)", "num_ret"),
        Family("NumRel", ("rel",), "none", "number of judged relevant documents", "num_rel"),
        Family(
            "NumRelRet",
            ("rel",),
            "optional",
            "number of relevant retrieved documents (within k)",
            "num_rel_ret",
        ),
    )
}

ALIASES: dict[str, str] = {
    "MAP": "AP",
    "MRR": "RR",
    "NDCG": "nDCG",
    "Recall": "R",
    "Precision": "P",
    "Hit": "Success",
    "HitRate": "Success",
    "BPref": "Bpref",
    "RPrec": "Rprec",
}

_DEFAULTS: dict[str, object] = {"rel": 1, "gain": "exp"}


def _fmt_num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(float(x))


@dataclass(frozen=True)
class Measure:
    """One retrieval measure with its parameters; compare and hash by canonical form.

    Parameters
    ----------
    family : str
        Canonical family name (``"nDCG"``, ``"P"``, ``"AP"`` ...), see ``FAMILIES``.
    cutoff : int or None
        Rank cutoff ``k``; ``None`` means the whole ranking.
    rel : float
        Minimum grade counted as relevant (``rel >= threshold``). Does not change nDCG gains.
    gain : str or tuple of (grade, gain) pairs
        nDCG only: ``"exp"`` (2^rel - 1), ``"linear"`` (rel, as trec_eval), or explicit
        per-grade gains; grades not listed keep the linear gain, like trec_eval's ``-m ndcg.g=v``.

    Examples
    --------
    >>> Measure("AP", cutoff=100)
    AP@100
    >>> Measure("nDCG", 10, gain=((1, 1.0), (2, 3.0))).gains_dict()
    {1.0: 1.0, 2.0: 3.0}
    """

    family: str
    cutoff: int | None = None
    rel: float = 1
    gain: Gain = field(default="exp")

    def __post_init__(self) -> None:
        fam = FAMILIES.get(self.family)
        if fam is None:
            raise _unknown(self.family)
        if self.cutoff is not None:
            if fam.cutoff == "none":
                msg = f"{self.family} takes no cutoff (got @{self.cutoff}). Hint: write {self.family!r}."
                raise InvalidParameterError(msg)
            _check_k(self.cutoff, f"{self.family}@k")
        elif fam.cutoff == "required":
            msg = (
                f"{self.family} needs a cutoff, e.g. '{self.family}@10'. "
                f"Hint: write '{self.family}@k' with an int k >= 1."
            )
            raise InvalidParameterError(msg)
        if isinstance(self.rel, bool) or not isinstance(self.rel, int | float) or math.isnan(self.rel):
            raise InvalidParameterError.for_value("rel", str(self.family), "a number", self.rel)

    # --- canonical form -------------------------------------------------------------
    def params(self) -> dict[str, object]:
        """Parameters that differ from their defaults, in declared order."""
        fam = FAMILIES[self.family]
        out: dict[str, object] = {}
        if "rel" in fam.params and self.rel != 1:
            out["rel"] = _fmt_num(self.rel)
        if "gain" in fam.params and self.gain != "exp":
            if isinstance(self.gain, str):
                out["gain"] = self.gain
            else:
                inner = ",".join(f"{_fmt_num(g)}:{_fmt_num(v)}" for g, v in self.gain)
                out["gains"] = "{" + inner + "}"
        return out

    def __str__(self) -> str:
        p = self.params()
        s = self.family
        if p:
            s += "(" + ",".join(f"{k}={v}" for k, v in p.items()) + ")"
        if self.cutoff is not None:
            s += f"@{self.cutoff}"
        return s

    def __repr__(self) -> str:
        return str(self)

    # --- ir_measures-style construction: nDCG(gain="linear") @ 10 --------------------
    def __matmul__(self, k: int) -> Measure:
        return replace(self, cutoff=k)

    def __call__(self, **params: object) -> Measure:
        return _with_params(self, params, source=str(self))

    def gains_dict(self) -> dict[float, float] | None:
        """Explicit per-grade gains, or ``None`` for ``exp``/``linear``."""
        if isinstance(self.gain, str):
            return None
        return {float(g): float(v) for g, v in self.gain}

    @property
    def description(self) -> str:
        """One line saying what the family measures."""
        return FAMILIES[self.family].description


def _check_k(k: object, where: str) -> None:
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise InvalidParameterError.for_value("k", where, "an int in the range [1, inf)", k)


def _with_params(m: Measure, params: Mapping[str, object], source: str) -> Measure:
    fam = FAMILIES[m.family]
    out = m
    for key, value in params.items():
        if key not in fam.params:
            allowed = ", ".join(fam.params) or "none"
            hint = closest(key, fam.params)
            msg = (
                f"Unknown parameter {key!r} for measure {m.family} in {source!r}. "
                f"Its parameters: {allowed}."
            )
            if hint:
                msg += f"\nHint: did you mean {hint[0]!r}?"
            raise UnknownMeasureError(msg)
        if key == "rel":
            out = replace(out, rel=_to_number(value, "rel", source))
        elif key == "gain":
            if value not in ("exp", "linear"):
                raise InvalidParameterError.for_value(
                    "gain", source, "'exp' (2^rel-1) or 'linear' (rel)", value
                )
            out = replace(out, gain=str(value))
        elif key == "gains":
            out = replace(out, gain=_parse_gains(value, source))
    return out


def _to_number(value: object, name: str, source: str) -> float:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value
    try:
        num = float(str(value))
    except ValueError:
        raise InvalidParameterError.for_value(name, source, "a number", value) from None
    return int(num) if num.is_integer() else num


def _parse_gains(value: object, source: str) -> tuple[tuple[float, float], ...]:
    if isinstance(value, Mapping):
        items = list(value.items())
    else:
        text = str(value).strip().strip("{}")
        items = []
        for part in filter(None, (p.strip() for p in re.split(r"[,;]", text))):
            if ":" not in part and "=" not in part:
                raise InvalidParameterError.for_value("gains", source, "a mapping like {0:0,1:1,2:3}", value)
            g, v = re.split(r"[:=]", part, maxsplit=1)
            items.append((g, v))
    pairs = sorted((_to_number(g, "gains", source), _to_number(v, "gains", source)) for g, v in items)
    if not pairs:
        raise InvalidParameterError.for_value("gains", source, "a non-empty mapping", value)
    return tuple((float(g), float(v)) for g, v in pairs)


# --- parsing ---------------------------------------------------------------------------
_NOTATION = re.compile(r"^(?P<name>[A-Za-z][A-Za-z0-9_]*?)(?:\((?P<params>.*)\))?(?:@(?P<k>[^@]+))?$")
_TREC_CUT = re.compile(r"^(?P<name>P|recall|ndcg_cut|map_cut|success|num_ret)_(?P<k>\d+)$")
_TREC_PLAIN: dict[str, Measure] = {}


def _trec_plain() -> dict[str, Measure]:
    if not _TREC_PLAIN:
        _TREC_PLAIN.update(
            {
                "map": Measure("AP"),
                "ndcg": Measure("nDCG", gain="linear"),
                "recip_rank": Measure("RR"),
                "Rprec": Measure("Rprec"),
                "bpref": Measure("Bpref"),
                "num_ret": Measure("NumRet"),
                "num_rel": Measure("NumRel"),
                "num_rel_ret": Measure("NumRelRet"),
            }
        )
    return _TREC_PLAIN


_TREC_CUT_FAMILY: dict[str, tuple[str, Gain]] = {
    "P": ("P", "exp"),
    "recall": ("R", "exp"),
    "ndcg_cut": ("nDCG", "linear"),
    "map_cut": ("AP", "exp"),
    "success": ("Success", "exp"),
    "num_ret": ("NumRet", "exp"),
}


def known_names() -> list[str]:
    """Every spelling the parser accepts, for suggestions and docs."""
    names = [f"{n}@10" if f.cutoff == "required" else n for n, f in FAMILIES.items()]
    names += [f"{n}@10" for n, f in FAMILIES.items() if f.cutoff == "optional"]
    names += [*ALIASES, *(f"{a}@10" for a in ALIASES)]
    names += [*_trec_plain(), "P_10", "recall_100", "ndcg_cut_10", "map_cut_10", "success_10"]
    return names


def _unknown(text: str) -> UnknownMeasureError:
    name, at, k = text.partition("@")
    base = name.split("(")[0]
    cutoff = f"@{k}" if at else ""
    lowered = {n.lower(): ALIASES.get(n, n) for n in (*FAMILIES, *ALIASES)}
    hint: list[str] = []
    if base.lower() in lowered:  # right name, wrong case: the canonical spelling first
        fam = lowered[base.lower()]
        if FAMILIES[fam].cutoff == "required" and not cutoff:
            cutoff = "@10"
        hint.append(fam + name[len(base) :] + cutoff)
    names = [*FAMILIES, *ALIASES, *_trec_plain(), "P_10", "recall_100", "ndcg_cut_10", "map_cut_10"]
    for h in closest(base, names, n=3):
        fam = ALIASES.get(h, h)
        if fam not in FAMILIES:
            hint.append(h)
        elif (FAMILIES[fam].cutoff == "none") == (not cutoff):
            hint.append(h + cutoff)
    msg = f"Unknown measure {text!r}."
    if hint:
        msg += " Did you mean " + " or ".join(repr(h) for h in dict.fromkeys(hint)) + "?"
    msg += "\nHint: known families: " + ", ".join(FAMILIES) + "; aliases: " + ", ".join(ALIASES)
    msg += "; trec_eval names such as ndcg_cut_10, P_5, map, recip_rank."
    return UnknownMeasureError(msg)


def _split_params(text: str, source: str) -> dict[str, str]:
    out: dict[str, str] = {}
    depth, cur, parts = 0, "", []
    for ch in text:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    for part in filter(None, (p.strip() for p in parts)):
        if "=" not in part:
            msg = (
                f"Cannot read parameter {part!r} in measure {source!r}. "
                "Hint: write name=value, e.g. 'P(rel=2)@10'."
            )
            raise UnknownMeasureError(msg)
        key, value = part.split("=", 1)
        out[key.strip()] = value.strip()
    return out


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
    >>> parse_measure("ndcg@10")
    Traceback (most recent call last):
    ...
    irframe.exceptions.UnknownMeasureError: Unknown measure 'ndcg@10'. Did you mean 'nDCG@10'...
    """
    if isinstance(measure, Measure):
        return measure
    if not isinstance(measure, str):
        msg = (
            "A measure must be a string such as 'nDCG@10' or a Measure; "
            f"got {type(measure).__name__} {measure!r}."
        )
        raise UnknownMeasureError(msg)
    text = measure.strip()
    plain = _trec_plain()
    if text in plain:
        return plain[text]
    m = _TREC_CUT.match(text)
    if m:
        fam, gain = _TREC_CUT_FAMILY[m["name"]]
        k = int(m["k"])
        _check_k(k, text)
        return Measure(fam, k, gain=gain)
    m = _NOTATION.match(text)
    if not m:
        raise _unknown(text)
    name = m["name"]
    family = ALIASES.get(name, name)
    if family not in FAMILIES:
        raise _unknown(text)
    cutoff: int | None = None
    if m["k"] is not None:
        try:
            cutoff = int(m["k"])
        except ValueError:
            raise InvalidParameterError.for_value("k", text, "an int in the range [1, inf)", m["k"]) from None
    if FAMILIES[family].cutoff == "required" and cutoff is None:
        msg = f"{family} needs a cutoff: write '{text}@10' (any int k >= 1)."
        raise InvalidParameterError(msg)
    base = Measure(family, cutoff)
    if m["params"] is not None:
        base = _with_params(base, _split_params(m["params"], text), source=text)
    return base


def parse_measures(measures: str | Measure | Iterable[str | Measure]) -> list[tuple[str, Measure]]:
    """Parse one or many measures into ``(label, Measure)`` pairs.

    The label is the caller's own spelling (the output column name); a ``Measure``
    object is labelled by its canonical string.  Repeated labels are kept once.

    Examples
    --------
    >>> parse_measures(["MAP", "ndcg_cut_10"])
    [('MAP', AP), ('ndcg_cut_10', nDCG(gain=linear)@10)]
    """
    items: Sequence[str | Measure]
    items = [measures] if isinstance(measures, str | Measure) else list(measures)
    if not items:
        msg = "No measure given. Hint: pass e.g. measures=['nDCG@10', 'P@10', 'R@100', 'RR', 'AP']."
        raise UnknownMeasureError(msg)
    out: dict[str, Measure] = {}
    for item in items:
        label = item.strip() if isinstance(item, str) else str(item)
        out.setdefault(label, parse_measure(item))
    return list(out.items())


# Ready-made measures for ir_measures-style code: ``nDCG@10``, ``P(rel=2)@5``.
nDCG = Measure("nDCG")  # noqa: N816 - the field's own spelling
AP = Measure("AP")
RR = Measure("RR")
R = Measure("R")
Rprec = Measure("Rprec")
Bpref = Measure("Bpref")
NumRet = Measure("NumRet")
NumRel = Measure("NumRel")
NumRelRet = Measure("NumRelRet")


class _NeedsCutoff:
    """Family whose measures need ``@k``: ``P @ 10`` or ``P(rel=2) @ 10``."""

    def __init__(self, family: str, params: Mapping[str, object] | None = None) -> None:
        self.family = family
        self._params = dict(params or {})

    def __matmul__(self, k: int) -> Measure:
        return _with_params(Measure(self.family, k), self._params, source=f"{self.family}@{k}")

    def __call__(self, **params: object) -> _NeedsCutoff:
        return _NeedsCutoff(self.family, {**self._params, **params})

    def __repr__(self) -> str:
        return f"{self.family}@k"


P = _NeedsCutoff("P")
Success = _NeedsCutoff("Success")
Judged = Measure("Judged")
