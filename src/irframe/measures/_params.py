"""Parameters shared by several families: the relevance threshold and the nDCG gain."""

from __future__ import annotations

import re
from collections.abc import Mapping

from irframe.exceptions import InvalidParameterError
from irframe.kernels import Gain
from irframe.measures._base import Param, fmt_num, number_param, to_number

__all__ = ["GAIN", "JUDGED_ONLY", "REL", "bool_param", "choice_param", "optional_number", "parse_gains"]

REL = number_param("rel", 1, "minimum grade counted as relevant (grade >= rel); trec_eval's -l")


def parse_gains(value: object, source: str) -> tuple[tuple[float, float], ...]:
    """Explicit gains from a mapping or text such as ``{0:0,1:1,2:3}``, sorted by grade."""
    if isinstance(value, Mapping):
        items = list(value.items())
    elif isinstance(value, tuple) and all(isinstance(p, tuple) and len(p) == 2 for p in value):
        items = list(value)
    else:
        text = str(value).strip().strip("{}")
        items = []
        for part in filter(None, (p.strip() for p in re.split(r"[,;]", text))):
            if ":" not in part and "=" not in part:
                raise InvalidParameterError.for_value("gains", source, "a mapping like {0:0,1:1,2:3}", value)
            g, v = re.split(r"[:=]", part, maxsplit=1)
            items.append((g, v))
    pairs = sorted((to_number(g, "gains", source), to_number(v, "gains", source)) for g, v in items)
    if not pairs:
        raise InvalidParameterError.for_value("gains", source, "a non-empty mapping", value)
    grades = [g for g, _ in pairs]
    if len(set(grades)) != len(grades):
        raise InvalidParameterError.for_value("gains", source, "one gain per grade", value)
    return tuple((float(g), float(v)) for g, v in pairs)


def _convert_gain(value: object, source: str) -> Gain:
    if isinstance(value, str) and not value.strip().startswith("{"):
        if value not in ("exp", "linear"):
            raise InvalidParameterError.for_value("gain", source, "'exp' (2^rel-1) or 'linear' (rel)", value)
        return value
    return parse_gains(value, source)


def _gain_text(value: object) -> tuple[str, str]:
    if isinstance(value, str):
        return "gain", value
    inner = ",".join(f"{fmt_num(g)}:{fmt_num(v)}" for g, v in value)  # type: ignore[attr-defined]
    return "gains", "{" + inner + "}"


GAIN = Param(
    "gain",
    "exp",
    "gain of a grade: 'exp' (2^rel - 1), 'linear' (rel, as trec_eval), or gains={grade:gain,...} "
    "(unlisted grades keep the linear gain; gains must be finite; a negative gain lowers DCG, so "
    "nDCG can fall below 0, never above 1: the ideal ranking uses only positive gains, and a "
    "query without one scores 0). Under 'exp', grades must keep 2^grade x (judged documents) "
    "below 2^1024 (grades up to about 1000), else evaluate raises",
    "'exp' | 'linear' | {grade: gain}",
    _convert_gain,
    _gain_text,
    aliases=("gains",),
)


def bool_param(name: str, default: bool, doc: str) -> Param:
    """A True/False parameter (``True``, ``false``, ``1``, ``no`` ... from text)."""

    def convert(value: object, source: str) -> bool:
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text in ("true", "1", "yes"):
            return True
        if text in ("false", "0", "no"):
            return False
        raise InvalidParameterError.for_value(name, source, "True or False", value)

    return Param(name, default, doc, "bool", convert, lambda v: (name, str(bool(v))))


JUDGED_ONLY = bool_param(
    "judged_only",
    False,
    "remove the unjudged documents (no judgment, or a negative grade) from the ranking before "
    "the cutoff, as trec_eval -J and ir_measures' judged_only",
)


def choice_param(name: str, choices: tuple[str, ...], doc: str) -> Param:
    """A parameter that takes one of a few words; the first is the default."""

    def convert(value: object, source: str) -> str:
        text = str(value).strip()
        if text not in choices:
            expected = "one of " + ", ".join(repr(c) for c in choices)
            raise InvalidParameterError.for_value(name, source, expected, value)
        return text

    return Param(name, choices[0], doc, " | ".join(repr(c) for c in choices), convert, choices=choices)


def optional_number(base: Param) -> Param:
    """``base`` (a number parameter) with no value by default: None means "not set"."""

    def convert(value: object, source: str) -> object:
        return None if value is None else base.convert(value, source)

    return Param(base.name, None, base.doc, base.type_name + " | None", convert)
