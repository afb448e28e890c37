"""Hypothesis over TREC file bytes: an error naming a line, or the rows of a plain-Python parser."""

from __future__ import annotations

import io
import math
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from _support.helpers import examples
from irframe.exceptions import IrFrameError
from irframe.io import read_trec_qrels, read_trec_run

_WS = b" \t\x0b\x0c"
# ASCII digits only: Python's float() also reads other scripts' digits ("\u0661"), C's atof does not
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|[+-]?(inf|infinity)", re.IGNORECASE | re.ASCII)
_INTEGER = re.compile(r"[+-]?[0-9]+")


class _RefusedError(Exception):
    """The oracle refuses the file."""


def _number(text: str) -> float:
    if not _NUMBER.fullmatch(text):
        raise _RefusedError(text)
    return float(text)


def _grade(text: str) -> float:
    """A qrels grade: integers exactly (the reader keeps integer grades as int64); exponent
    notation whose value is not the integer prefix trec_eval's atol reads is refused."""
    if _INTEGER.fullmatch(text):
        return int(text)
    value = _number(text)
    prefix = re.match(r"[+-]?[0-9]+", text)
    if "e" in text.lower() and value != (int(prefix.group(0)) if prefix else 0):
        raise _RefusedError("two readings")
    return value


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
        rows.append((parts[0], parts[2], _grade(parts[3])))
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


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trec_bytes(6))
def test_run_bytes(data: bytes) -> None:
    _check(lambda d: read_trec_run(io.BytesIO(d)).rows(), data, oracle_run)


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
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


# Spellings of the numeric field at the edges of float parsing.  A run's score is parsed by
# the CSV reader itself (no text kept), a qrels grade from its text: both must read every
# spelling as Python's float() does, or refuse it naming the line.
_SPELLINGS = [
    "1", "-2", "+3", ".5", "5.", "+.5", "-.5e1", "5.e1", "1e5", "1E5", "1e+5", "1e-5", "0e0",
    "-0", "-0.0", "00012", "0.30000000000000004", "9007199254740993", "1e400", "-1e400",
    "1e-400", "4.9e-324", "2.5e-324", "1.7976931348623159e308", "inf", "-inf", "+inf", "INF",
    "inF", "Infinity", "-Infinity", "nan", "NaN", "-nan", "snan", "0x10", "1_000", "1,5",
    "1.0f", "1d", "e5", "1e", ".", "-", "+", "--1", "1.2.3", "1ee5", "1e5.5", "\u0661", "\uff11",
]  # fmt: skip


@pytest.mark.parametrize("spelling", _SPELLINGS)
def test_number_spellings_as_python_reads_them(spelling: str) -> None:
    run = f"q Q0 d1 1 {spelling} t\nq Q0 d2 2 1.0 t\n".encode()
    _check(lambda d: read_trec_run(io.BytesIO(d)).rows(), run, oracle_run)
    qrels = f"q 0 d1 {spelling}\nq 0 d2 1\n".encode()
    _check(lambda d: read_trec_qrels(io.BytesIO(d)).rows(), qrels, oracle_qrels)


@pytest.mark.parametrize("spelling", _SPELLINGS)
def test_fast_path_parses_numbers_as_the_cast_does(spelling: str) -> None:
    """The CSV reader's float parsing (a run's score) and the cast of the text (a qrels
    grade) accept the same spellings with the same values, bit for bit."""
    from irframe.io._parse import RUN, VALUE, _fast

    data = f"q Q0 d1 1 {spelling} t\n".encode()
    as_float = _fast(data, " ", RUN, text=False)
    as_text = _fast(data, " ", RUN, text=True)
    assert (as_float is None) == (as_text is None)
    if as_float is not None and as_text is not None:
        assert as_float.get_column(VALUE).equals(as_text.get_column(VALUE))
        assert RUN.text not in as_float.columns
        assert as_text.get_column(RUN.text).to_list() == [spelling]


@pytest.mark.parametrize("text", [True, False])
def test_both_paths_give_the_same_frame(text: bool) -> None:
    """A regular batch (the CSV reader) and one with a comment line (the regular
    expression) give the same columns and values, with and without the score's text."""
    from irframe.io._lines import Batch
    from irframe.io._parse import RUN, _parse_batch

    line = b"q Q0 d 1 -2.5e1 t\n"
    fast = _parse_batch(Batch(line, 1, 1, True), RUN, "x", text=text)
    general = _parse_batch(Batch(b"# a comment\n" + line, 1, 2, True), RUN, "x", text=text)
    assert fast.equals(general)
    assert (RUN.text in fast.columns) is text
