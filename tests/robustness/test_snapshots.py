"""Tampered and odd snapshots (issue 35, class 5): refused by a data error naming the key,
the query or the measure, never a crash; read from a file, a pipe or a stream alike.

Every case starts from a real snapshot of the bundled golden set and changes one thing,
so a refusal can only come from that change.
"""

from __future__ import annotations

import io
import json
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import irframe
from _support.helpers import examples
from irframe._check.snapshot import Snapshot, is_snapshot, is_snapshot_file
from irframe.datasets import golden
from irframe.exceptions import InvalidDataError, IrFrameError

G = golden()
BM25 = G.runs.filter(pl.col("system") == "bm25").drop("system")
HYBRID = G.runs.filter(pl.col("system") == "hybrid").drop("system")
BASE = irframe.snapshot(BM25, G.qrels, ["nDCG@10", "RR"])
TEXT = BASE.to_json()


def _tampered(change: Callable[[dict[str, Any]], object]) -> str:
    data = json.loads(TEXT)
    change(data)
    return json.dumps(data)


def _set(query: str, measure: str, value: object) -> Callable[[dict[str, Any]], object]:
    return lambda d: d["queries"][query].__setitem__(measure, value)


def _all(measure: str, value: object) -> Callable[[dict[str, Any]], object]:
    return lambda d: [e.__setitem__(measure, value) for e in d["queries"].values()]


def _respell(d: dict[str, Any], old: str, new: str) -> None:
    d["measures"] = [new if m == old else m for m in d["measures"]]
    for e in d["queries"].values():
        e[new] = e.pop(old)


# (what is changed, the change, words the message must hold)
CASES: list[tuple[str, Callable[[dict[str, Any]], object], tuple[str, ...]]] = [
    ("a value as a string", _set("q03", "RR", "0.5"), ("q03", "RR", "string '0.5'")),
    ("a value as a boolean", _set("q03", "RR", True), ("q03", "RR", "boolean true")),
    ("a value as text", _set("q07", "nDCG@10", "abc"), ("q07", "nDCG@10", "'abc'")),
    ("a value as a list", _set("q07", "RR", [0.5]), ("q07", "RR", "a list")),
    ("a value as an object", _set("q07", "RR", {"v": 1}), ("q07", "RR", "an object")),
    ("a value too large for a float", _set("q07", "RR", 10**400), ("q07", "RR", "number")),
    ("a measure listed twice", lambda d: d["measures"].append("RR"), ("'RR' is listed twice",)),
    (
        "fingerprints not an object",
        lambda d: d.__setitem__("fingerprints", [1]),
        ("'fingerprints'", "a list"),
    ),
    ("a fingerprint a number", lambda d: d["fingerprints"].__setitem__("run", 7), ("'run'", "number 7")),
    (
        "an unknown format",
        lambda d: d.__setitem__("format", "other/1"),
        ("not an irframe snapshot", "other/1"),
    ),
    ("no format", lambda d: d.pop("format"), ("not an irframe snapshot",)),
    ("no queries", lambda d: d.pop("queries"), ("lacks the key 'queries'",)),
    ("queries a list", lambda d: d.__setitem__("queries", []), ("'queries'", "empty list")),
    ("no query at all", lambda d: d.__setitem__("queries", {}), ("no queries",)),
    ("measures empty", lambda d: d.__setitem__("measures", []), ("'measures'", "non-empty list")),
    ("a measure a number", lambda d: d.__setitem__("measures", [3]), ("'measures'", "number 3")),
    ("an unknown key", lambda d: d.__setitem__("extra", 1), ("unknown key 'extra'",)),
    ("a value lacking", lambda d: d["queries"]["q05"].pop("RR"), ("q05", "lacks a value for RR")),
    ("a value no measure has", _set("q05", "AP", 0.5), ("q05", "'AP'", "not among the measures")),
    ("a query not an object", lambda d: d["queries"].__setitem__("q05", 0.5), ("q05", "number 0.5")),
    ("a qrels fingerprint a list", _set("q05", "qrels", []), ("q05", "qrels fingerprint")),
    ("missing rule unknown", lambda d: d.__setitem__("missing", "skip"), ("'missing'", "'skip'")),
    ("every value null", _all("RR", None), ("no value for RR",)),
    ("the version a number", lambda d: d.__setitem__("irframe_version", 1), ("'irframe_version'",)),
]


@pytest.mark.parametrize(("what", "change", "words"), CASES, ids=[c[0] for c in CASES])
def test_a_tampered_snapshot_is_refused_naming_the_culprit(
    what: str, change: Callable[[dict[str, Any]], object], words: tuple[str, ...]
) -> None:
    with pytest.raises(InvalidDataError) as info:
        Snapshot.from_json(_tampered(change), "base.json")
    msg = str(info.value)
    assert msg.startswith("base.json: "), what
    for word in words:
        assert word in msg, (what, msg)
    assert "__" not in msg  # no internal names


def test_a_key_twice_in_any_object_is_refused() -> None:
    twice_query = TEXT.replace('"q02":', '"q01":', 1)
    twice_value = TEXT.replace('"RR": ', '"RR": 0.1, "RR": ', 1)
    twice_top = TEXT.replace('"missing": "zero",', '"missing": "zero", "missing": "drop",', 1)
    for text, key in (
        (twice_query, "'q01' twice"),
        (twice_value, "'RR' twice"),
        (twice_top, "'missing' twice"),
    ):
        with pytest.raises(InvalidDataError, match=key):
            Snapshot.from_json(text, "base.json")


def test_nan_and_infinity_literals_are_refused() -> None:
    first = json.dumps(json.loads(TEXT)["queries"]["q01"]["RR"])
    for literal in ("NaN", "Infinity", "-Infinity"):
        text = TEXT.replace(f'"RR": {first}', f'"RR": {literal}', 1)
        with pytest.raises(InvalidDataError, match="query 'q01': the value of RR is the number"):
            Snapshot.from_json(text, "s")


def test_a_newer_format_names_it_and_the_irframe_that_wrote_it() -> None:
    text = _tampered(lambda d: d.update({"format": "irframe-snapshot/7", "irframe_version": "9.3.0"}))
    with pytest.raises(InvalidDataError) as info:
        Snapshot.from_json(text, "base.json")
    msg = str(info.value)
    assert "'irframe-snapshot/7'" in msg
    assert "irframe 9.3.0" in msg
    assert "irframe>=9.3.0" in msg  # the version to upgrade to
    assert f"this irframe ({irframe.__version__}) reads 'irframe-snapshot/2'" in msg


def test_encodings_a_bom_is_skipped_utf16_and_utf32_are_named() -> None:
    assert Snapshot.from_json(b"\xef\xbb\xbf" + TEXT.encode(), "s").measures == BASE.measures
    for codec, name in (("utf-16", "UTF-16"), ("utf-16-le", "UTF-16LE"), ("utf-32", "UTF-32")):
        data = TEXT.encode(codec)
        assert is_snapshot(data[:4096])  # recognised as a snapshot, so the reader says why not
        with pytest.raises(InvalidDataError, match=f"is {name} text; snapshot files are UTF-8.*iconv"):
            Snapshot.from_json(data, "s")
    with pytest.raises(InvalidDataError, match="not UTF-8 text"):
        Snapshot.from_json(TEXT.encode().replace(b'"q01"', b'"q\xff1"'), "s")


def test_a_measure_is_read_as_the_measure_its_spelling_parses_to() -> None:
    text = _tampered(lambda d: _respell(d, "nDCG@10", "nDCG(gain=exp)@10"))
    snap = Snapshot.from_json(text, "base.json")
    assert snap.measures == BASE.measures
    assert snap.values.equals(BASE.values)
    want = irframe.check(HYBRID, G.qrels, baseline=BASE, measures="nDCG@10").comparisons
    got = irframe.check(HYBRID, G.qrels, baseline=snap, measures="nDCG@10").comparisons
    assert got.drop("note").equals(want.drop("note"))
    both = _tampered(lambda d: (d["measures"].append("nDCG(gain=exp)@10"), _all("nDCG(gain=exp)@10", 0.5)(d)))
    with pytest.raises(InvalidDataError, match="'nDCG@10' and 'nDCG\\(gain=exp\\)@10' are one measure"):
        Snapshot.from_json(both, "base.json")


def _pipe(data: bytes) -> str:
    """A /dev/fd path reading ``data`` once, as ``<(cat base.json)`` gives."""
    read, write = os.pipe()

    def feed() -> None:
        os.write(write, data)
        os.close(write)

    threading.Thread(target=feed, daemon=True).start()
    return f"/dev/fd/{read}"


@pytest.mark.skipif(not Path("/dev/fd").is_dir(), reason="needs /dev/fd (process substitution)")
def test_a_snapshot_from_a_pipe_a_stream_or_a_file_is_the_same_baseline(tmp_path: Path) -> None:
    path = tmp_path / "base.json"
    BASE.write(path)
    want = irframe.check(HYBRID, G.qrels, baseline=path).comparisons
    with path.open("rb") as fh:
        for source in (_pipe(TEXT.encode()), io.BytesIO(TEXT.encode()), fh):
            result = irframe.check(HYBRID, G.qrels, baseline=source)
            assert result.baseline_kind == "snapshot"
            assert result.comparisons.equals(want)
    assert irframe.read_snapshot(io.BytesIO(TEXT.encode())).values.equals(BASE.values)
    assert is_snapshot_file(path)
    assert not is_snapshot_file(_pipe(TEXT.encode()))  # a pipe is never peeked at (read once)


@pytest.mark.skipif(not Path("/dev/fd").is_dir(), reason="needs /dev/fd (process substitution)")
def test_a_run_from_a_pipe_is_a_run_baseline(tmp_path: Path) -> None:
    run_file = tmp_path / "bm25.run"
    irframe.io.write_trec_run(BM25, run_file, tag="bm25")
    want = irframe.check(HYBRID, G.qrels, baseline=run_file, measures="RR").comparisons
    result = irframe.check(HYBRID, G.qrels, baseline=_pipe(run_file.read_bytes()), measures="RR")
    assert result.baseline_kind == "run"
    assert result.comparisons.equals(want)


# --- any change: accepted as numbers, or refused by a data error -------------------------
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.floats(allow_nan=False) | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.text(max_size=3), inner, max_size=2),
    max_leaves=4,
)


def _paths(node: object, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _paths(v, (*prefix, i))
    return out


SMALL = json.loads(irframe.snapshot(BM25.filter(pl.col("query_id") <= "q03"), G.qrels, ["RR"]).to_json())
SMALL_PATHS = _paths(SMALL)[1:]


def _read(text: str) -> tuple[Snapshot | None, IrFrameError | None]:
    try:
        return Snapshot.from_json(text, "s.json"), None
    except IrFrameError as exc:  # anything else (a crash) fails the test as it is
        return None, exc


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(where=st.sampled_from(SMALL_PATHS), value=JSON, drop=st.booleans())
def test_any_change_is_read_as_numbers_or_refused_as_data(
    where: tuple[Any, ...], value: object, drop: bool
) -> None:
    data = json.loads(json.dumps(SMALL))
    parent = data
    for key in where[:-1]:
        parent = parent[key]
    if drop:
        del parent[where[-1]]
    else:
        parent[where[-1]] = value
    snap, error = _read(json.dumps(data))
    if error is not None:
        assert isinstance(error, InvalidDataError), f"{type(error).__name__}: {error}"
        assert str(error).startswith("s.json: ")
        assert "__" not in str(error)
        return
    assert snap is not None
    for m in snap.measures:
        assert snap.values.schema[m] == pl.Float64
        assert snap.values[m].null_count() < snap.values.height
