"""The snapshot's fingerprints (issue 43, class "wrong"): two different sets of judgments
never share a fingerprint, whatever their text holds (TAB, newline, the null marker);
a snapshot of the older format 1 is still read, checked in its own encoding, and the
check says how to refresh it.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

import irframe
from _support.helpers import examples
from irframe._check.snapshot import qrels_fingerprints, run_fingerprint
from irframe.datasets import golden

COLS = ("query_id", "doc_id", "relevance")


def _prints(rows: list[tuple[str, str | None, float]], **kw: bool) -> dict[str, str]:
    frame = pl.LazyFrame(rows, schema={"query_id": pl.String, "doc_id": pl.String, "relevance": pl.Float64},
                         orient="row")  # fmt: skip
    return qrels_fingerprints(frame, *COLS, **kw)


def test_a_doc_id_holding_tab_and_newline_is_not_two_judgments() -> None:
    one = [("q1", "a\t1\nb", 2.0)]
    two = [("q1", "a", 1.0), ("q1", "b", 2.0)]
    assert _prints(one, legacy=True) == _prints(two, legacy=True)  # format 1's collision, kept for old files
    assert _prints(one) != _prints(two)


def test_the_null_marker_and_an_empty_id_are_not_a_null_doc() -> None:
    prints = [_prints([("q1", doc, 1.0)]) for doc in (None, "<null>", "", "-")]
    assert len({p["q1"] for p in prints}) == 4


def test_integral_grades_agree_and_a_huge_float_grade_is_fingerprinted() -> None:
    assert _prints([("q1", "a", 2.0)]) == qrels_fingerprints(
        pl.LazyFrame({"query_id": ["q1"], "doc_id": ["a"], "relevance": [2]}), *COLS
    )
    huge, big = _prints([("q1", "a", 1e20)]), _prints([("q1", "a", 1e21)])  # crashed: a cast to Int64
    assert huge != big


def test_run_rows_cannot_run_into_each_other() -> None:
    cols = ["query_id", "doc_id", "rank"]
    one = pl.LazyFrame({"query_id": ["q1"], "doc_id": ["a\t1\nq1\tb"], "rank": [2]})
    two = pl.LazyFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "rank": [1, 2]})
    assert run_fingerprint(one, cols) != run_fingerprint(two, cols)


def test_a_snapshot_of_qrels_with_a_float_grade_of_1e20() -> None:
    run = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [2.0, 1.0]})
    qrels = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "relevance": [1e20, 0.0]})
    snap = irframe.snapshot(run, qrels, ["RR"])
    assert snap.values["RR"].to_list() == [1.0]  # rank 1 is relevant (hand: 1/1)


ROWS = st.lists(
    st.tuples(st.sampled_from(["q1", "q2"]), st.text(alphabet="ab\t\n:1-<>", max_size=5) | st.none(),
              st.sampled_from([0.0, 1.0, 2.0, 1e20, -1.0])),
    max_size=6,
)  # fmt: skip


@settings(max_examples=examples(200), deadline=None)
@given(a=ROWS, b=ROWS)
def test_fingerprints_differ_exactly_when_the_judgments_differ(
    a: list[tuple[str, str | None, float]], b: list[tuple[str, str | None, float]]
) -> None:
    def per_query(rows: list[tuple[str, str | None, float]]) -> dict[str, list[tuple[str | None, float]]]:
        out: dict[str, list[tuple[str | None, float]]] = {}
        for q, d, g in rows:
            out.setdefault(q, []).append((d, g))
        return {q: sorted(v, key=repr) for q, v in out.items()}

    same = per_query(a) == per_query(b)
    assert (_prints(a) == _prints(b)) == same


G = golden()
BM25 = G.runs.filter(pl.col("system") == "bm25").drop("system")
HYBRID = G.runs.filter(pl.col("system") == "hybrid").drop("system")


def _as_format_1(snap: irframe.Snapshot) -> str:
    """The snapshot as irframe 0.4 wrote it: format 1, judgments fingerprinted in that encoding."""
    data = json.loads(snap.to_json())
    data["format"] = "irframe-snapshot/1"
    legacy = qrels_fingerprints(G.qrels.lazy(), *COLS, legacy=True)
    for q, entry in data["queries"].items():
        entry["qrels"] = legacy.get(q)
    return json.dumps(data)


def test_a_format_1_snapshot_is_checked_in_its_encoding_and_named_for_refresh(tmp_path: Path) -> None:
    path = tmp_path / "old.json"
    path.write_text(_as_format_1(irframe.snapshot(BM25, G.qrels, ["RR"])))
    old = irframe.read_snapshot(path)
    assert old.format_version == 1
    result = irframe.check(HYBRID, G.qrels, baseline=path, measures="RR")
    assert not result.changes  # its fingerprints match in their own encoding
    notes = " ".join(result.notes)
    assert "format 1" in notes
    assert "irframe snapshot QRELS RUN -o FILE" in notes
    fresh = tmp_path / "new.json"
    irframe.snapshot(BM25, G.qrels, ["RR"], path=fresh)
    assert json.loads(fresh.read_text())["format"] == "irframe-snapshot/2"
    renotes = " ".join(irframe.check(HYBRID, G.qrels, baseline=fresh, measures="RR").notes)
    assert "format 1" not in renotes
    assert json.loads(old.to_json())["format"] == "irframe-snapshot/1"  # rewritten as what it is


def test_qrels_with_a_float_grade_of_1e20_are_written_as_trec(tmp_path: Path) -> None:
    qrels = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "relevance": [1e20, 2.0]})
    irframe.io.write_trec_qrels(qrels, tmp_path / "q.txt")  # crashed: a cast to Int64
    back = irframe.io.read_trec_qrels(tmp_path / "q.txt")
    assert back["relevance"].to_list() == [1e20, 2.0]
