r"""A snapshot file's bytes checked against its schema, before anything trusts them.

The schema of ``irframe-snapshot/1`` (every other key, type or repeat is refused, naming
the key, the query and the measure):

* ``format``: ``"irframe-snapshot/2"``; a newer version is refused naming the irframe that
  wrote it (the one to upgrade to); ``"irframe-snapshot/1"`` (the same keys, with judgment
  fingerprints in the older encoding: :mod:`irframe._check.snapshot`) is read too;
* ``irframe_version``: a string; ``missing``: ``"zero"``, ``"drop"`` or ``"error"``;
* ``measures``: a non-empty list of measure strings, each measure once (``nDCG@10`` and
  ``nDCG(gain=exp)@10`` are one measure: stored names are read as parsed measures, under
  their canonical strings);
* ``fingerprints``: an object of strings (or null) by name;
* ``queries``: an object ``{query id: {"qrels": string or null, measure: number or null,
  ...}}`` with a value (or null) for every measure and nothing else; numbers are finite
  (not ``"0.5"``, ``true``, ``NaN``); each measure has a value for at least one query.

The bytes are UTF-8 (a byte-order mark is skipped); UTF-16 and UTF-32 text is refused by
name.  A key twice in one object is refused (JSON readers keep the last one silently).

Examples
--------
>>> parts = parse(b'{"format": "irframe-snapshot/2", "measures": ["nDCG(gain=exp)@10"], '
...               b'"queries": {"q1": {"qrels": null, "nDCG(gain=exp)@10": 0.5}}}', "base.json")
>>> parts.measures, parts.values
(['nDCG@10'], {'q1': [0.5]})
>>> parse(b'{"format": "irframe-snapshot/2", "measures": ["RR"], '
...       b'"queries": {"q1": {"RR": "0.5"}}}', "base.json")
Traceback (most recent call last):
...
irframe.exceptions.InvalidDataError: base.json: query 'q1': the value of RR is the string '0.5'; ...
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from irframe.exceptions import InvalidDataError

if TYPE_CHECKING:
    import polars as pl

__all__ = ["FORMAT", "FORMAT_VERSION", "OLDER", "Parts", "parse", "refuse_no_values", "sniff"]

FORMAT_VERSION = 2
FORMAT = f"irframe-snapshot/{FORMAT_VERSION}"
OLDER = ("irframe-snapshot/1",)  # read, their fingerprints checked in their own encoding
_PREFIX = "irframe-snapshot/"
_KEYS = ("format", "irframe_version", "measures", "missing", "fingerprints", "queries")
_REQUIRED = ("format", "measures", "queries")
_MISSING = ("zero", "drop", "error")
_BOM = b"\xef\xbb\xbf"
_SNIFF = re.compile(r'^\s*\{.*?"format"\s*:\s*"irframe-snapshot/', re.DOTALL)


@dataclass(frozen=True)
class Parts:
    """A checked snapshot file: canonical measure strings, ``{query: [value per measure]}``,
    ``{query: qrels fingerprint}`` and the header."""

    measures: list[str]
    values: dict[str, list[float | None]]
    qrels: dict[str, str]
    fingerprints: dict[str, str | None]
    missing: str
    irframe_version: str
    format_version: int = FORMAT_VERSION


class _Object(dict[str, Any]):
    """A JSON object that remembers the keys it had twice."""

    repeated: tuple[str, ...] = ()


def _pairs(pairs: list[tuple[str, Any]]) -> _Object:
    obj = _Object(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        obj.repeated = tuple(k for k, _ in pairs if k in seen or seen.add(k))  # type: ignore[func-returns-value]
    return obj


def _wide(data: bytes) -> str | None:
    from irframe.io._lines import _wide_text

    return _wide_text(data)


def sniff(head: bytes) -> bool:
    """Whether bytes (a file's start) are a snapshot: a JSON object whose ``format`` names
    the snapshot format (any version; UTF-16 and UTF-32 text too, so that reading it says
    what is wrong).

    Examples
    --------
    >>> sniff(b'{\\n  "format": "irframe-snapshot/2",'), sniff(b'q1 Q0 d1 1 2.5 bm25\\n')
    (True, False)
    >>> sniff('{"format": "irframe-snapshot/1"}'.encode("utf-16"))
    True
    """
    wide = _wide(head)
    if wide is not None:
        text = head[: len(head) - len(head) % 4].decode(wide, "replace")
    else:
        text = head.removeprefix(_BOM).decode("utf-8", "replace")
    return _SNIFF.match(text.lstrip("\ufeff")) is not None


def _text(data: bytes, name: str) -> str:
    wide = _wide(data)
    if wide is not None:
        msg = (
            f"{name}: the snapshot is {wide} text; snapshot files are UTF-8. Hint: convert it, e.g. "
            f"iconv -f {wide} -t UTF-8 < FILE > FILE.utf8, or take it again with irframe snapshot."
        )
        raise InvalidDataError(msg)
    try:
        return data.removeprefix(_BOM).decode("utf-8")
    except UnicodeDecodeError as exc:
        msg = f"{name}: not UTF-8 text (byte {exc.start}: {data[exc.start : exc.start + 1]!r})."
        raise InvalidDataError(msg) from None


def _json(data: bytes, name: str) -> Any:
    text = _text(data, name)
    try:
        return json.loads(text, object_pairs_hook=_pairs)
    except json.JSONDecodeError as exc:
        msg = f"{name}: not a snapshot file (invalid JSON at line {exc.lineno}: {exc.msg})."
        raise InvalidDataError(msg) from None


def _refuse(name: str, what: str) -> InvalidDataError:
    return InvalidDataError(f"{name}: {what}")


def _no_repeats(obj: Mapping[str, Any], name: str, where: str) -> None:
    repeated = getattr(obj, "repeated", ())
    if repeated:
        raise _refuse(name, f"{where} holds the key {repeated[0]!r} twice; a JSON reader keeps one silently.")


def _check_format(data: Mapping[str, Any], name: str) -> None:
    got = data.get("format")
    version = data.get("irframe_version")
    if isinstance(got, str) and got.startswith(_PREFIX):
        number = got.removeprefix(_PREFIX)
        if number.isdigit() and int(number) > FORMAT_VERSION:
            from irframe import __version__

            newer = isinstance(version, str) and _newer(version, __version__)
            who = f" by irframe {version}" if isinstance(version, str) else ""
            to = f" to {version} or later (pip install -U 'irframe>={version}')" if newer else ""
            msg = (
                f"{name}: the snapshot format {got!r} was written{who}; this irframe ({__version__}) "
                f"reads {FORMAT!r} only. Hint: upgrade irframe{to}, or take the snapshot again with "
                "this version."
            )
            raise InvalidDataError(msg)
        if got == FORMAT or got in OLDER:
            return
    msg = (
        f"{name}: not an irframe snapshot (format {got!r}, expected {FORMAT!r}). "
        "Hint: make one with `irframe snapshot QRELS RUN -o FILE`."
    )
    raise InvalidDataError(msg)


def _newer(version: str, than: str) -> bool:
    """Whether release ``version`` is later than ``than`` (numeric parts compared)."""

    def key(v: str) -> tuple[int, ...]:
        return tuple(int(p) for p in re.findall(r"\d+", v.split("+", maxsplit=1)[0])[:3])

    return key(version) > key(than)


def _header(data: Mapping[str, Any], name: str) -> tuple[str, str, dict[str, str | None]]:
    """``missing``, ``irframe_version`` and the fingerprints, checked."""
    _no_repeats(data, name, "the snapshot")
    unknown = [k for k in data if k not in _KEYS]
    absent = [k for k in _REQUIRED if k not in data]
    if unknown or absent:
        what = f"has an unknown key {unknown[0]!r}" if unknown else f"lacks the key {absent[0]!r}"
        raise _refuse(name, f"the snapshot {what}; a snapshot has the keys {', '.join(_KEYS)}.")
    missing = data.get("missing", "zero")
    if missing not in _MISSING:
        raise _refuse(name, f"'missing' is {missing!r}; it is one of {', '.join(map(repr, _MISSING))}.")
    version = data.get("irframe_version", "unknown")
    if not isinstance(version, str):
        raise _refuse(name, f"'irframe_version' is {version!r}; it is a string such as '0.4.0'.")
    prints = data.get("fingerprints", {})
    if not isinstance(prints, dict):
        raise _refuse(name, f"'fingerprints' is {_kind(prints)}; it is an object of strings by name.")
    _no_repeats(prints, name, "'fingerprints'")
    for key, value in prints.items():
        if value is not None and not isinstance(value, str):
            raise _refuse(
                name, f"the fingerprint {key!r} is {_kind(value)}; fingerprints are strings (or null)."
            )
    return missing, version, dict(prints)


def _kind(value: object) -> str:
    """How a JSON value is named in messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"the boolean {json.dumps(value)}"
    if isinstance(value, str):
        return f"the string {value!r}"
    if isinstance(value, list):
        return "a list" if value else "an empty list"
    if isinstance(value, dict):
        return "an object"
    return f"the number {value!r}"


def _measures(raw: object, name: str) -> tuple[list[str], list[str]]:
    """The stored measure strings and their canonical strings (each measure once)."""
    if not isinstance(raw, list) or not raw:
        raise _refuse(name, f"'measures' is {_kind(raw)}; it is a non-empty list of measure strings.")
    stored: list[str] = []
    for m in raw:
        if not isinstance(m, str) or not m.strip():
            raise _refuse(name, f"'measures' holds {_kind(m)}; measures are strings such as 'nDCG@10'.")
        stored.append(m)
    canonical = [_canonical(m) for m in stored]
    seen: dict[str, str] = {}
    for s, c in zip(stored, canonical, strict=True):
        if c in seen:
            same = f"{seen[c]!r} and {s!r} are one measure" if seen[c] != s else f"{s!r} is listed twice"
            raise _refuse(name, f"'measures': {same}; a snapshot lists each measure once.")
        seen[c] = s
    return stored, canonical


def _canonical(measure: str) -> str:
    """The canonical string of a stored measure; a name this irframe does not know (a
    measure defined in another session) stays as stored."""
    from irframe.exceptions import IrFrameError
    from irframe.measures import parse_measure

    try:
        return str(parse_measure(measure))
    except IrFrameError:
        return measure


def _finite(value: float) -> bool:
    try:
        return math.isfinite(value)
    except OverflowError:  # an integer too large for a float
        return False


def _value(q: str, m: str, value: object, name: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not _finite(value):
        hint = "values are numbers, or null where a query has none"
        raise _refuse(name, f"query {q!r}: the value of {m} is {_kind(value)}; {hint}.")
    return float(value)


def _entry(
    q: str, entry: object, stored: Sequence[str], shown: Sequence[str], name: str
) -> tuple[list[float | None], str | None]:
    """One query's values (in measure order) and its qrels fingerprint."""
    if not isinstance(entry, dict):
        raise _refuse(name, f"query {q!r} is {_kind(entry)}; each query is an object of values by measure.")
    _no_repeats(entry, name, f"query {q!r}")
    extra = [k for k in entry if k != "qrels" and k not in stored]
    if extra:
        raise _refuse(
            name,
            f"query {q!r} has a value for {extra[0]!r}, which is not among the measures "
            f"({', '.join(stored)}).",
        )
    lacking = [s for s in stored if s not in entry]
    if lacking:
        raise _refuse(name, f"query {q!r} lacks a value for {lacking[0]} (null where it has none).")
    fp = entry.get("qrels")
    if fp is not None and not isinstance(fp, str):
        raise _refuse(name, f"query {q!r}: its qrels fingerprint is {_kind(fp)}; it is a string (or null).")
    return [_value(q, c, entry[s], name) for s, c in zip(stored, shown, strict=True)], fp


def parse(data: bytes, name: str) -> Parts:
    """Check a snapshot file's bytes against the schema (see the module) and take them apart."""
    top = _json(data, name)
    if not isinstance(top, dict):
        kind = type(top).__name__
        msg = f"not an irframe snapshot (a JSON {kind}, expected an object with format {FORMAT!r})."
        raise _refuse(name, msg)
    _check_format(top, name)
    missing, version, prints = _header(top, name)
    stored, canonical = _measures(top["measures"], name)
    queries = top["queries"]
    if not isinstance(queries, dict):
        raise _refuse(name, f"'queries' is {_kind(queries)}; it is an object of values by query id.")
    _no_repeats(queries, name, "'queries'")
    values: dict[str, list[float | None]] = {}
    qrels: dict[str, str] = {}
    for q, entry in queries.items():
        values[q], fp = _entry(q, entry, stored, canonical, name)
        if fp is not None:
            qrels[q] = fp
    empty = [c for i, c in enumerate(canonical) if all(v[i] is None for v in values.values())]
    if empty:
        what = (
            "has no queries" if not values else f"has no value for {', '.join(empty)} (every query's is null)"
        )
        hint = "Hint: take the snapshot again, with judgments for its queries."
        raise _refuse(name, f"the snapshot {what}: there is nothing to check against. {hint}")
    number = int(str(top["format"]).removeprefix(_PREFIX))
    return Parts(canonical, values, qrels, prints, missing, version, number)


def refuse_no_values(values: pl.DataFrame, measures: Sequence[str], where: str) -> None:
    """Refuse per-query ``values`` where a measure has no value for any query: a snapshot of
    it could never be checked against (its reader refuses it too)."""
    empty = [m for m in measures if values.height == 0 or values[m].null_count() == values.height]
    if empty:
        msg = (
            f"{where}: no query has a value for {', '.join(empty)} ({values.height} queries evaluated): "
            "no judged query is in the run, or the judgments have no query these measures can score. "
            "Hint: check that the run and the qrels share query ids."
        )
        raise InvalidDataError(msg)
