"""Repeated (query, document) rows: the error reads the likely cause from the data, each hint is
followed and its number checked against a plain-Python computation, and ``duplicates="first"``
says what it dropped (a :class:`~irframe.exceptions.DuplicatesWarning`: the one mechanism, on
every verb that evaluates; a note on the command line)."""

from __future__ import annotations

import re
import shlex
import warnings
from collections import Counter
from pathlib import Path

import polars as pl
import pytest

import irframe
from _support.cli_runner import run_cli
from irframe.exceptions import DuplicateRowsError, DuplicatesWarning

# A search log: 3 query texts, each shown in 4 sessions; each impression shows 3 of the items
# p0-p3 at positions 1-3 and has at most one click (grade 1).
SHOWN = {  # session -> (query text, the items at positions 1, 2, 3, the clicked position or 0)
    "s1": ("tv", ("p0", "p1", "p2"), 1), "s2": ("tv", ("p1", "p0", "p3"), 2),
    "s3": ("tv", ("p2", "p3", "p0"), 0), "s4": ("tv", ("p0", "p2", "p1"), 3),
    "s5": ("hdmi", ("p3", "p1", "p0"), 2), "s6": ("hdmi", ("p1", "p3", "p2"), 1),
    "s7": ("hdmi", ("p0", "p1", "p3"), 0), "s8": ("hdmi", ("p3", "p0", "p2"), 3),
    "s9": ("usb", ("p2", "p1", "p0"), 1), "s10": ("usb", ("p1", "p2", "p3"), 1),
    "s11": ("usb", ("p0", "p3", "p1"), 2), "s12": ("usb", ("p2", "p0", "p1"), 0),
}  # fmt: skip
LOG = pl.DataFrame(
    [(q, s, item, pos, int(pos == click)) for s, (q, items, click) in SHOWN.items()
     for pos, item in enumerate(items, 1)],
    schema=["query", "session_id", "item", "position", "clicked"], orient="row",
)  # fmt: skip
COLUMNS = {"query_col": "query", "doc_col": "item", "rank_col": "position", "relevance_col": "clicked"}

# By hand: RR of an impression is 1 / the clicked position (0 without a click).
RR_BY_SESSION = {s: (1 / click if click else 0.0) for s, (_, _, click) in SHOWN.items()}
RR_SESSIONS = sum(RR_BY_SESSION.values()) / len(SHOWN)  # (1 + 1/2 + 0 + 1/3 + ...) / 12
RR_BY_TEXT = {
    q: sum(v for s, v in RR_BY_SESSION.items() if SHOWN[s][0] == q) / 4 for q in ("tv", "hdmi", "usb")
}
# 36 rows, 12 distinct (query text, item) pairs: 24 repeats in 3 queries
PAIRS = Counter((q, item) for q, items, _ in SHOWN.values() for item in items)
DROPPED = sum(n - 1 for n in PAIRS.values())


def test_the_error_says_each_impression_is_a_query_and_following_it_gives_the_sessions_rr() -> None:
    with pytest.raises(DuplicateRowsError) as info:
        irframe.evaluate(LOG, ["RR"], **COLUMNS)  # type: ignore[arg-type]
    msg = str(info.value)
    assert f"The run has {DROPPED} duplicate (query, item) rows in 3 queries" in msg
    assert "Hint: each impression is a query: query_col='session_id' (and by='query'" in msg, msg
    assert "irframe.clicks" in msg
    assert "Hint: pass duplicates='first'" not in msg
    fix = dict(re.findall(r"\b(query_col|by)='([^']+)'", msg.split("Hint:", 1)[1]))
    assert fix == {"query_col": "session_id", "by": "query"}
    kw = {**COLUMNS, "query_col": fix["query_col"]}
    assert irframe.evaluate(LOG, ["RR"], **kw)["RR"].item() == pytest.approx(RR_SESSIONS)  # type: ignore[arg-type]
    grouped = irframe.evaluate(LOG, ["RR"], by=fix["by"], **kw)  # type: ignore[arg-type]
    assert dict(grouped.select("query", "RR").rows()) == pytest.approx(RR_BY_TEXT)


def test_the_cli_hint_moves_the_query_text_aside_and_following_it_gives_the_sessions_rr(
    tmp_path: Path,
) -> None:
    path = tmp_path / "log.csv"
    LOG.rename({"query": "query_id", "item": "doc_id", "position": "rank", "clicked": "relevance"}).write_csv(
        path
    )
    failed = run_cli("eval", "--no-qrels", str(path), "-m", "RR", "-f", "tsv")
    assert failed.returncode == 2
    hint = re.search(r"a query: (--map \S+ --map \S+) \(and (--by \S+)", failed.stderr)
    assert hint is not None, failed.stderr
    args = [*shlex.split(hint[1]), *shlex.split(hint[2])]
    assert args == ["--map", "query_id=query", "--map", "session_id=query_id", "--by", "query"]
    fixed = run_cli("eval", "--no-qrels", str(path), "-m", "RR", "-f", "tsv", *args)
    assert fixed.returncode == 0, fixed.stderr
    rows = [line.split("\t") for line in fixed.stdout.splitlines()]
    got = {r[rows[0].index("query")]: float(r[rows[0].index("RR")]) for r in rows[1:]}
    assert got == pytest.approx(RR_BY_TEXT, abs=5e-5)  # (4 decimals printed)


def test_duplicates_first_warns_with_the_count_and_the_likely_cause() -> None:
    with pytest.warns(DuplicatesWarning) as seen:
        irframe.evaluate(LOG, ["RR"], duplicates="first", **COLUMNS)  # type: ignore[arg-type]
    msg = str(seen[0].message)
    assert f"dropped {DROPPED} of 36 run rows ({DROPPED / 36:.0%})" in msg, msg
    assert "in 3 queries" in msg
    assert "query_col='session_id'" in msg


def test_compare_warns_too_and_the_cli_prints_a_note(tmp_path: Path) -> None:
    other = LOG.with_columns(pl.col("position").reverse().over("session_id"))
    with pytest.warns(DuplicatesWarning, match=f"dropped {2 * DROPPED} of 72 run rows"):
        irframe.compare({"a": LOG, "b": other}, None, ["RR"], duplicates="first", **COLUMNS)  # type: ignore[arg-type]
    path = tmp_path / "log.csv"
    LOG.rename({"query": "query_id", "item": "doc_id", "position": "rank", "clicked": "relevance"}).write_csv(
        path
    )
    res = run_cli("eval", "--no-qrels", str(path), "-m", "RR", "--duplicates", "first")
    assert res.returncode == 0
    assert f"irframe: note: --duplicates first dropped {DROPPED} of 36 run rows" in res.stderr
    quiet = run_cli("eval", "--no-qrels", str(path), "-m", "RR", "--duplicates", "first", "--quiet")
    assert "note" not in quiet.stderr


def test_documents_listed_twice_keep_the_duplicates_first_hint_and_a_plain_count() -> None:
    # a RAG answer: chunks rolled up to documents; a listed at 1 and 3, b at 2: 1 repeat of 4 rows
    run = pl.DataFrame({"query_id": ["q1"] * 4, "chunk": ["a#1", "b#1", "a#2", "c#1"],
                        "doc_id": ["a", "b", "a", "c"], "rank": [1, 2, 3, 4]})  # fmt: skip
    qrels = pl.DataFrame({"query_id": ["q1"], "doc_id": ["c"], "relevance": [1]})
    with pytest.raises(DuplicateRowsError, match=r"Hint: pass duplicates='first'") as info:
        irframe.evaluate(run, ["RR"], qrels)
    assert "impression" not in str(info.value)
    with pytest.warns(DuplicatesWarning) as seen:
        out = irframe.evaluate(run, ["RR"], qrels, duplicates="first")
    assert str(seen[0].message) == (
        "duplicates='first' dropped 1 of 4 run rows (25%): repeated (query_id, doc_id) rows in 1 "
        "queries, the best-ranked row of each document kept."
    )
    assert out["RR"].item() == pytest.approx(1 / 3)  # a, b, c: c third


def test_no_repeat_no_warning() -> None:
    run = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "rank": [1, 2], "relevance": [0, 1]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert irframe.evaluate(run, ["RR"], duplicates="first")["RR"].item() == 0.5
