"""Measures as values: parsed from strings such as ``"nDCG@10"`` or ``"P(rel=2)@5"``.

A :class:`Measure` is a frozen value object.  Its canonical ``str()`` is the
ir_measures notation (``nDCG(gain=linear)@10``); two spellings of the same measure
(``"MAP"``, ``"AP"``, ``"map"``) compare equal.  Each family is one registered
:class:`Family` (see :func:`families`), defined in one module of this package by kind
(``binary``, ``graded``, ``counts``); the parser, the suggestions in error messages,
``irframe measures`` and the documentation read the registry.

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

from collections.abc import Mapping

from irframe.kernels import Gain
from irframe.measures import (  # noqa: F401 - registers the families
    binary,
    binary_trec,
    cascade,
    compat,
    counts,
    cwl,
    diversity,
    fscore,
    geometric,
    graded,
    graded_trec,
    interpolated,
    rates,
    sets,
)
from irframe.measures._base import (
    Ctx,
    Family,
    Measure,
    Param,
    Params,
    TrecName,
    aliases,
    families,
    family,
    register,
    registry,
    unregister,
)
from irframe.measures._parse import parse_measure, parse_measures, to_trec_name
from irframe.measures.user import QueryView, define_measure

__all__ = [
    "ALIASES",
    "AP",
    "FAMILIES",
    "RR",
    "Bpref",
    "Ctx",
    "Family",
    "Gain",
    "Judged",
    "Measure",
    "NumRel",
    "NumRelRet",
    "NumRet",
    "P",
    "Param",
    "Params",
    "QueryView",
    "R",
    "Rprec",
    "Success",
    "TrecName",
    "define_measure",
    "families",
    "family",
    "nDCG",
    "parse_measure",
    "parse_measures",
    "register",
    "registry",
    "to_trec_name",
    "unregister",
]

FAMILIES: Mapping[str, Family] = registry()
"""Family name -> :class:`Family`: a live read-only view of the registry."""
ALIASES: Mapping[str, str] = aliases()
"""Alias -> family name (live view)."""

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
Judged = Measure("Judged")
Success = Measure("Success")  # Success @ 10; alone, over the whole ranking (ranx's hit_rate)


class _NeedsCutoff:
    """Family whose measures need ``@k``: ``P @ 10`` or ``P(rel=2) @ 10``."""

    def __init__(self, family_name: str, params: Mapping[str, object] | None = None) -> None:
        self.family = family_name
        self._params = dict(params or {})

    def __matmul__(self, k: int) -> Measure:
        return Measure(self.family, k, **self._params)

    def __call__(self, **params: object) -> _NeedsCutoff:
        return _NeedsCutoff(self.family, {**self._params, **params})

    def __repr__(self) -> str:
        return f"{self.family}@k"


P = _NeedsCutoff("P")
