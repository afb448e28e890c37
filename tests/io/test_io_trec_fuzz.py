"""Hypothesis over TREC file bytes: an error naming a line, or the rows of a plain-Python parser."""

from __future__ import annotations

import io
import math
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from irframe.exceptions import IrFrameError
from irframe.io import read_trec_qrels, read_trec_run

_WS = b" \t\x0b\x0c"
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|[+-]?(inf|infinity)", re.IGNORECASE)


class _RefusedError(Exception):
    """The oracle refuses the file."""


def _number(text: str) -> float:
    if not _NUMBER.fullmatch(text):
        raise _RefusedError(text)
    return float(text)


def _lines(data: bytes) -> list[str]:
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    if any(b < 0x20 and b not in b"\t\n\x0b\x0c\r" for b in data):
        raise _RefusedError("control byte")
    if any(len(line) > 2**20 for line in data.splitlines()):
        raise _RefusedError("long line")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _RefusedError("utf-8") from exc
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def _fields(line: str) -> list[str]:
    return [f for f in re.split("[ \t\x0b\x0c]+", line) if f]


def oracle_run(data: bytes) -> list[tuple[str, str, float]]:
    """trec_eval's run rules, one line at a time (the readers' documented divergences applied)."""
    rows = []
    for line in _lines(data):
        parts = _fields(line)
        if not parts or parts[0].startswith("#"):
            continue
        if len(parts) < 6:
            raise _RefusedError("fields")
        score = _number(parts[4])
        rows.append((parts[0], parts[2], score))
    return rows


def oracle_qrels(data: bytes) -> list[tuple[str, str, float]]:
    rows = []
    for line in _lines(data):
        parts = _fields(line)
        if not parts or parts[0].startswith("#"):
            continue
        if len(parts) != 4:
            raise _RefusedError("fields")
        rows.append((parts[0], parts[2], _number(parts[3])))
    return rows


_field = st.one_of(
    st.sampled_from(
        ["q1", "q2", "Q0", "0", "d1", "d2", "#x", "1", "2.5", "-3", "1e2", "x", "nan", "\u00e9", "\ufffd"]
    ),
    st.text(alphabet="0123456789.eE+-qdx#\u00a0", min_size=1, max_size=5),
)
_sep = st.sampled_from([" ", " ", " ", "\t", "  ", "\x0b", " \t"])
_end = st.sampled_from(["\n", "\n", "\r\n", "\r", "\n\n"])


@st.composite
def trec_bytes(draw: st.DrawFn, n_fields: int) -> bytes:
    out = b""
    if draw(st.booleans()):
        out += b"\xef\xbb\xbf"
    for _ in range(draw(st.integers(0, 8))):
        k = draw(st.sampled_from([n_fields, n_fields, n_fields, n_fields - 1, n_fields + 1, 0, 1]))
        fields = [draw(_field) for _ in range(k)]
        line = (
            "".join(f + draw(_sep) for f in fields).rstrip(" \t\x0b")
            if fields
            else draw(_sep) * draw(st.integers(0, 1))
        )
        if draw(st.integers(0, 9)) == 0:
            line = draw(_sep) + line
        out += (line + draw(_end)).encode()
    if draw(st.integers(0, 5)) == 0:  # an odd byte somewhere
        pos = draw(st.integers(0, len(out)))
        out = out[:pos] + bytes([draw(st.sampled_from([0, 1, 0x1F, 0x7F, 0xFF, 0xC3]))]) + out[pos:]
    return out


def _check(reader_rows: object, data: bytes, oracle: object) -> None:
    try:
        expected = oracle(data)  # type: ignore[operator]
    except _RefusedError:
        expected = None
    if expected is None:
        with pytest.raises(IrFrameError, match=r"^<BytesIO>:\d+: "):
            reader_rows(data)  # type: ignore[operator]
        return
    got = reader_rows(data)  # type: ignore[operator]
    assert expected is not None, f"reader read what the oracle refuses: {got}"
    assert len(got) == len(expected)
    for g, e in zip(got, expected, strict=True):
        assert g[:2] == e[:2]
        assert g[2] == e[2] or (math.isnan(g[2]) and math.isnan(e[2]))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trec_bytes(6))
def test_run_bytes(data: bytes) -> None:
    _check(lambda d: read_trec_run(io.BytesIO(d)).rows(), data, oracle_run)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trec_bytes(4))
def test_qrels_bytes(data: bytes) -> None:
    _check(lambda d: read_trec_qrels(io.BytesIO(d)).rows(), data, oracle_qrels)


@pytest.mark.parametrize(
    "data",
    [b"q Q0 d 1 nan t\n", b"q Q0 d 1 inf t\n", b"q 0 d 1e2\n\n", b"\xef\xbb\xbfq Q0 d 1 -.5 t\r"],
)
def test_examples(data: bytes) -> None:
    oracle = oracle_qrels if data.count(b" ") == 3 else oracle_run
    reader = read_trec_qrels if oracle is oracle_qrels else read_trec_run
    _check(lambda d: reader(io.BytesIO(d)).rows(), data, oracle)
