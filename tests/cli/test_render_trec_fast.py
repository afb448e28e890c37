"""``render_trec``'s per-query lines made by polars equal the general (Python) path's bytes.

The general path formats each value with Python (``{:6.4f}``, counts ``round``); it is
the oracle here, forced by replacing the polars path.  The polars path must give the
same text for any float (ties at the 5th decimal, -0.0, huge values), nulls, counts,
integer query ids, and step aside (same text) for NaN, infinities and fractional counts.
"""

from __future__ import annotations

import io
import math
from typing import Any

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _support.helpers import examples
from irframe.io import trec_output as mu
from irframe.io.trec_output import render_trec

LABELS = ["AP", "P@10", "num_ret"]
COUNTS = {"num_ret"}


def _frames(values: list[list[float | None]], qids: list[Any]) -> tuple[pl.DataFrame, pl.DataFrame]:
    n = len(qids)
    cols = {
        label: pl.Series(label, [row[i] for row in values], dtype=pl.Float64)
        for i, label in enumerate(LABELS)
    }
    per_query = pl.DataFrame({"system": ["s"] * n, "query_id": qids, **cols})
    summary = pl.DataFrame({"system": ["s"], "AP": [0.5], "P@10": [0.25], "num_ret": [3.0], "n_queries": [n]})
    return per_query, summary


def _both(per_query: pl.DataFrame, summary: pl.DataFrame, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    kwargs: dict[str, Any] = {"show_queries": True, "names": ["map", "P_10", "num_ret"]}
    fast = render_trec(per_query, summary, LABELS, COUNTS, **kwargs)
    with monkeypatch.context() as m:
        m.setattr(mu, "_fast_query_lines", lambda *a, **k: None)
        general = render_trec(per_query, summary, LABELS, COUNTS, **kwargs)
    return fast, general


def test_hand_checked_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    # 1/32 = 0.03125 exactly: a tie at the 5th decimal, rounded to even (0.0312) as Python does
    per_query, summary = _frames(
        [[1 / 32, 0.1, 7.0], [None, None, None], [-0.0, 0.00005, 0.0]], ["q1", "q2", "q3"]
    )
    fast, general = _both(per_query, summary, monkeypatch)
    assert fast == general
    assert fast.splitlines()[:6] == [
        f"{'map':<22}\tq1\t0.0312",
        f"{'P_10':<22}\tq1\t0.1000",
        f"{'num_ret':<22}\tq1\t7",
        f"{'map':<22}\tq3\t-0.0000",
        f"{'P_10':<22}\tq3\t0.0001",  # 0.00005 is 5.00000000000000023960868e-05 in binary
        f"{'num_ret':<22}\tq3\t0",
    ]


@pytest.mark.parametrize(
    "row",
    [
        [math.nan, 0.5, 1.0],  # NaN: trec_eval-style "   nan" from the general path
        [math.inf, 0.5, 1.0],
        [0.5, -math.inf, 1.0],
        [0.5, 0.5, 2.5],  # a fractional count: Python's round (half to even)
        [0.5, 0.5, 2.0**60],  # a count beyond float64's exact integers
        [1e300, -1e-300, 3.0],
    ],
)
def test_general_path_cases_give_the_same_text(row: list[float], monkeypatch: pytest.MonkeyPatch) -> None:
    per_query, summary = _frames([[0.25, 0.5, 1.0], row], ["q1", "q2"])
    fast, general = _both(per_query, summary, monkeypatch)
    assert fast == general


def test_integer_query_ids(monkeypatch: pytest.MonkeyPatch) -> None:
    per_query, summary = _frames([[0.25, 0.5, 1.0], [0.125, None, 2.0]], [10, 2])
    fast, general = _both(per_query, summary, monkeypatch)
    assert fast == general
    assert f"{'map':<22}\t10\t0.2500" in fast.splitlines()


_value = st.one_of(
    st.none(),
    st.floats(allow_nan=False, allow_infinity=False, width=64),
    st.integers(-(10**6), 10**6).map(lambda k: k / 20000),  # ties and near-ties at 4 decimals
    st.integers(0, 10**6).map(lambda k: math.nextafter(k / 20000, math.inf)),
)
_count = st.one_of(st.none(), st.integers(0, 10**9).map(float))


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.tuples(_value, _value, _count), min_size=1, max_size=30))
def test_any_values_same_text(rows: list[tuple[float | None, float | None, float | None]]) -> None:
    per_query, summary = _frames([list(r) for r in rows], [f"q{i}" for i in range(len(rows))])
    with pytest.MonkeyPatch.context() as monkeypatch:
        fast, general = _both(per_query, summary, monkeypatch)
    assert fast == general


def _python(values: list[float]) -> list[str]:
    return [f"{v:.4f}" for v in values]


def test_four_decimals_sweep_of_ties_and_magnitudes() -> None:
    """Every half at the 5th decimal up to 50, its neighbouring floats, and powers of ten."""
    halves = [(2 * k + 1) / 20000 for k in range(500_000)]
    values = [*halves, *(math.nextafter(h, 0) for h in halves), *(math.nextafter(h, 99) for h in halves)]
    values += [s * m * 10.0**e for e in range(-330, 309) for m in (1.0, 1.5, 9.99995) for s in (1, -1)]
    values = [v for v in values if math.isfinite(v)]
    got = mu._four_decimals(pl.Series(values, dtype=pl.Float64)).to_list()
    bad = [(v, g, e) for v, g, e in zip(values, got, _python(values), strict=True) if g != e]
    assert bad == []


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.floats(allow_nan=False, allow_infinity=False, width=64), min_size=1, max_size=50))
def test_four_decimals_any_float(values: list[float]) -> None:
    assert mu._four_decimals(pl.Series(values, dtype=pl.Float64)).to_list() == _python(values)


def test_blocks_of_whole_queries_give_the_same_text(monkeypatch: pytest.MonkeyPatch) -> None:
    """The per-query lines come in blocks of whole queries (the command line writes each
    before making the next): 7 values per block here is 2 queries of 3 measures, so 5
    queries make 3 blocks, then the summary; joined, they are the general path's text."""
    values = [[i / 7, i / 10, float(i)] for i in range(5)]
    per_query, summary = _frames(values, [f"q{i}" for i in range(5)])
    monkeypatch.setattr(mu, "_CHUNK_VALUES", 7)
    names = ["map", "P_10", "num_ret"]  # (as _both prints them)
    blocks = [
        mu.block_text(b)
        for b in mu.trec_blocks(per_query, summary, LABELS, COUNTS, show_queries=True, names=names)
    ]
    assert [b.count("\n") + 1 for b in blocks] == [6, 6, 3, 2 + len(LABELS)]
    assert all(b.split("\t")[1] in {"q0", "q2", "q4", "all"} for b in blocks)  # a block starts a query
    fast, general = _both(per_query, summary, monkeypatch)
    assert fast == general == "\n".join(blocks)


def _written(out: io.TextIOBase, blocks: list[str | pl.DataFrame]) -> None:
    for block in blocks:
        mu.write_block(block, out)  # type: ignore[arg-type]
    out.flush()


def test_written_blocks_are_their_text_in_order() -> None:
    """``write_block`` writes a frame of lines through polars' CSV writer into the bytes
    under a UTF-8 text stream, between blocks written as text: the bytes are the text's.
    A stream in another encoding gets the text path (the lines are encoded as text)."""
    frame = pl.DataFrame({"name": ["map   ", "map   "], "q": ["q\u00e9", "q2"], "v": ["0.5000", "12"]})
    blocks: list[str | pl.DataFrame] = ["head", frame, "", frame.head(0), "tail"]
    expected = "head\nmap   \tq\u00e9\t0.5000\nmap   \tq2\t12\ntail\n"
    assert "\n".join(t for t in (mu.block_text(b) for b in blocks) if t) + "\n" == expected
    utf8 = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", newline="")
    assert mu._utf8_bytes(utf8) is utf8.buffer  # (the frame goes the binary way)
    _written(utf8, blocks)
    assert utf8.buffer.getvalue() == expected.encode()  # type: ignore[attr-defined]
    latin = io.TextIOWrapper(io.BytesIO(), encoding="latin-1", newline="")
    assert mu._utf8_bytes(latin) is None
    _written(latin, blocks)
    assert latin.buffer.getvalue() == expected.encode("latin-1")  # type: ignore[attr-defined]
    text = io.StringIO()
    _written(text, blocks)
    assert text.getvalue() == expected
