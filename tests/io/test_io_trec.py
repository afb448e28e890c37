"""TREC run and qrels readers and writers: every parsing rule on files written here."""

from __future__ import annotations

import gzip
import io
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from irframe.exceptions import (
    ColumnNotFoundError,
    DuplicateRowsError,
    InvalidDataError,
    InvalidParameterError,
    IrFrameError,
)
from irframe.io import (
    TrecFormatError,
    read_trec_qrels,
    read_trec_run,
    read_trec_runs,
    write_trec_qrels,
    write_trec_run,
)

RUN_SCHEMA = {"query_id": pl.String, "doc_id": pl.String, "score": pl.Float64}
QRELS_SCHEMA = {"query_id": pl.String, "doc_id": pl.String, "relevance": pl.Int64}


def _write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    path = tmp_path / name
    if isinstance(content, str):
        path.write_bytes(content.encode("utf-8"))
    else:
        path.write_bytes(content)
    return path


# --- run: the parsing rules -----------------------------------------------------------------
EXPECTED_RUN = pl.DataFrame(
    {"query_id": ["301", "301", "302"], "doc_id": ["d1", "d2", "d9"], "score": [2.5, 1.0, -3.0]},
    schema=RUN_SCHEMA,
)


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("301 Q0 d1 1 2.5 t\n301 Q0 d2 2 1 t\n302 Q0 d9 1 -3 t\n", id="spaces"),
        pytest.param("301\tQ0\td1\t1\t2.5\tt\n301\tQ0\td2\t2\t1\tt\n302\tQ0\td9\t1\t-3\tt\n", id="tabs"),
        pytest.param(
            "301   Q0 \t d1  1    2.5   t\n  301 Q0 d2 2 1 t  \n302 Q0   d9 1 -3e0 t\n", id="mixed-runs"
        ),
        pytest.param("301 Q0 d1 1 2.5 t\r\n301 Q0 d2 2 1 t\r\n302 Q0 d9 1 -3 t\r\n", id="crlf"),
        pytest.param(
            "# a comment\n\n301 Q0 d1 1 2.5 t\n   \n  # indented comment\n301 Q0 d2 2 1 t\n\n"
            "302 Q0 d9 1 -3 t\n# trailing comment",
            id="comments-and-blank-lines",
        ),
        pytest.param(
            "301 Q0 d1 1 2.5 t extra columns here\n301 Q0 d2 2 1 t x\n302 Q0 d9 1 -3 t 7 8 9\n",
            id="extra-trailing-columns",
        ),
        pytest.param("301 Q0 d1 1 2.5 t\n301 Q0 d2 2 1 t\n302 Q0 d9 1 -3 t", id="no-final-newline"),
    ],
)
def test_run_parsing_rules(tmp_path: Path, text: str) -> None:
    path = _write(tmp_path, "x.run", text)
    assert_frame_equal(read_trec_run(path), EXPECTED_RUN)


def test_run_hash_inside_a_field_is_data(tmp_path: Path) -> None:
    path = _write(tmp_path, "x.run", "q1 Q0 doc#1 1 1.0 t\nq1 Q0 #notacomment? 2 0.5 t\n")
    df = read_trec_run(path)
    # trec_eval: '#' starts a comment only as the first non-blank character
    assert df["doc_id"].to_list() == ["doc#1", "#notacomment?"]


def test_run_comment_line_with_six_words_is_skipped(tmp_path: Path) -> None:
    path = _write(tmp_path, "x.run", "# q Q0 d 1 1.0 tag\nq1 Q0 d1 1 1.0 t\n")
    assert read_trec_run(path).height == 1


def test_run_float64_precision(tmp_path: Path) -> None:
    path = _write(tmp_path, "x.run", "q Q0 a 1 0.1234567891 t\nq Q0 b 2 0.1234567892 t\n")
    scores = read_trec_run(path)["score"].to_list()
    assert scores == [0.1234567891, 0.1234567892]
    assert scores[0] != scores[1]


def test_run_scientific_and_signed_scores(tmp_path: Path) -> None:
    path = _write(tmp_path, "x.run", "q Q0 a 1 1e-3 t\nq Q0 b 2 +2.5 t\nq Q0 c 3 -1.5E2 t\n")
    assert read_trec_run(path)["score"].to_list() == [0.001, 2.5, -150.0]


def test_run_ids_stay_strings(tmp_path: Path) -> None:
    path = _write(tmp_path, "x.run", "007 Q0 0012 1 1 t\n")
    assert read_trec_run(path).row(0) == ("007", "0012", 1.0)


def test_run_system_column(tmp_path: Path) -> None:
    path = _write(tmp_path, "x.run", "q Q0 a 1 1 bm25\nq Q0 b 2 0 bm25\n")
    assert read_trec_run(path, system=True)["system"].to_list() == ["bm25", "bm25"]
    assert read_trec_run(path, system="run")["run"].to_list() == ["bm25", "bm25"]
    assert read_trec_run(path).columns == ["query_id", "doc_id", "score"]
    with pytest.raises(InvalidParameterError):
        read_trec_run(path, system="")


def test_run_gzip_detected_by_magic_bytes(tmp_path: Path) -> None:
    text = "301 Q0 d1 1 2.5 t\n301 Q0 d2 2 1 t\n302 Q0 d9 1 -3 t\n"
    plain_name = _write(tmp_path, "looks-plain.run", gzip.compress(text.encode()))
    assert_frame_equal(read_trec_run(plain_name), EXPECTED_RUN)
    gz_name = _write(tmp_path, "x.run.gz", gzip.compress(text.encode()))
    assert_frame_equal(read_trec_run(str(gz_name)), EXPECTED_RUN)


@pytest.mark.parametrize("kind", ["text", "binary", "gzip-binary"])
def test_run_file_like_objects(kind: str) -> None:
    text = "301 Q0 d1 1 2.5 t\n301 Q0 d2 2 1 t\n302 Q0 d9 1 -3 t\n"
    source: io.IOBase
    if kind == "text":
        source = io.StringIO(text)
    elif kind == "binary":
        source = io.BytesIO(text.encode())
    else:
        source = io.BytesIO(gzip.compress(text.encode()))
    assert_frame_equal(read_trec_run(source), EXPECTED_RUN)


def test_run_open_file_handle(tmp_path: Path) -> None:
    path = _write(tmp_path, "x.run", "301 Q0 d1 1 2.5 t\n301 Q0 d2 2 1 t\n302 Q0 d9 1 -3 t\n")
    with path.open() as fh:
        assert_frame_equal(read_trec_run(fh), EXPECTED_RUN)
    with path.open("rb") as fh:
        assert_frame_equal(read_trec_run(fh), EXPECTED_RUN)


def test_empty_run_has_the_schema(tmp_path: Path) -> None:
    for content in ("", "# only a comment\n\n"):
        path = _write(tmp_path, "empty.run", content)
        df = read_trec_run(path)
        assert df.height == 0
        assert dict(df.schema) == RUN_SCHEMA


def test_unicode_ids(tmp_path: Path) -> None:
    path = _write(tmp_path, "x.run", "q\u00e9 Q0 d\u2603 1 1 t\n")
    assert read_trec_run(path).row(0) == ("q\u00e9", "d\u2603", 1.0)


# --- run: errors ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("content", "lineno", "needle"),
    [
        pytest.param("q Q0 a 1 1 t\n\nq Q0 b 2\n", 3, "found 4", id="too-few-fields"),
        pytest.param("# c\nq Q0 a 1 1 t\nq Q0 b 2 high t\n", 3, "'high' is not a number", id="score"),
        pytest.param("q Q0 a 1 1 t\nq Q0 b 2 1.5x t\n", 2, "'1.5x' is not a number", id="score-suffix"),
        pytest.param("q Q0 a 1 nan t\n", 1, "'nan' is not a number", id="nan"),
        pytest.param(b"q Q0 a 1 1 t\nq Q0 \xff\xfe 2 1 t\n", 2, "not UTF-8", id="invalid-utf8"),
        pytest.param(b"q Q0 a 1 1 t\nq Q0 b 2 1 t\n\x00\x01\x02junk\n", 3, "NUL", id="nul-bytes"),
        pytest.param("q Q0 a 1 1 t\r\nq Q0 b\r\n", 2, "found 3", id="crlf-short"),
    ],
)
def test_run_malformed_line(tmp_path: Path, content: str | bytes, lineno: int, needle: str) -> None:
    path = _write(tmp_path, "bad.run", content)
    with pytest.raises(TrecFormatError) as info:
        read_trec_run(path)
    message = str(info.value)
    assert message.startswith(f"{path}:{lineno}: ")
    assert needle in message
    assert isinstance(info.value, InvalidDataError)  # catchable as irframe's data error


def test_run_error_shows_the_line_and_counts_the_rest(tmp_path: Path) -> None:
    path = _write(tmp_path, "bad.run", "q Q0 a 1 1 t\nbroken line\nalso broken\n")
    with pytest.raises(TrecFormatError, match=r"bad\.run:2: .*'broken line' \(1 more"):
        read_trec_run(path)


def test_run_error_names_file_like_objects() -> None:
    with pytest.raises(TrecFormatError, match=r"^<StringIO>:1: "):
        read_trec_run(io.StringIO("only three fields\n"))


def test_binary_junk_in_gzip(tmp_path: Path) -> None:
    path = _write(tmp_path, "bad.run.gz", gzip.compress(b"q Q0 a 1 1 t\n\x00\x00\n"))
    with pytest.raises(TrecFormatError, match=r":2: malformed run line: binary data"):
        read_trec_run(path)


def test_truncated_gzip(tmp_path: Path) -> None:
    path = _write(tmp_path, "bad.run.gz", gzip.compress(b"q Q0 a 1 1 t\n" * 100)[:30])
    with pytest.raises(TrecFormatError, match="truncated gzip"):
        read_trec_run(path)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"nope\.run"):
        read_trec_run(tmp_path / "nope.run")


def test_not_a_file_object() -> None:
    with pytest.raises(TypeError, match="path"):
        read_trec_run(42)  # type: ignore[arg-type]


# --- qrels ------------------------------------------------------------------------------------
EXPECTED_QRELS = pl.DataFrame(
    {"query_id": ["1", "1", "2"], "doc_id": ["a", "b", "c"], "relevance": [2, 0, -1]},
    schema=QRELS_SCHEMA,
)


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("1 0 a 2\n1 0 b 0\n2 0 c -1\n", id="spaces"),
        pytest.param("1\t0\ta\t2\n1\t0\tb\t0\n2\t0\tc\t-1\n", id="tabs"),
        pytest.param("1 0 a 2\r\n1 0 b 0\r\n2 0 c -1\r\n", id="crlf"),
        pytest.param("# c\n\n1  0  a   2 \n  1 Q0 b 0\n# x y z w\n2 0 c -1", id="comments-blank"),
    ],
)
def test_qrels_parsing_rules(tmp_path: Path, text: str) -> None:
    assert_frame_equal(read_trec_qrels(_write(tmp_path, "q.txt", text)), EXPECTED_QRELS)


def test_qrels_fractional_grades_stay_float(tmp_path: Path) -> None:
    df = read_trec_qrels(_write(tmp_path, "q.txt", "1 0 a 0.5\n1 0 b 2\n"))
    assert df.schema["relevance"] == pl.Float64
    assert df["relevance"].to_list() == [0.5, 2.0]


def test_qrels_integral_floats_become_ints(tmp_path: Path) -> None:
    df = read_trec_qrels(_write(tmp_path, "q.txt", "1 0 a 1.0\n1 0 b 2\n"))
    assert df.schema["relevance"] == pl.Int64
    assert df["relevance"].to_list() == [1, 2]


@pytest.mark.parametrize(
    ("content", "lineno", "needle"),
    [
        pytest.param("1 0 a 1\n1 0 b\n", 2, "exactly 4", id="three-fields"),
        pytest.param("1 0 a 1\n1 0 b 1 extra\n", 2, "found 5", id="five-fields"),
        pytest.param("\n1 0 a yes\n", 2, "'yes' is not a number", id="grade"),
        pytest.param(b"1 0 a 1\n1 0 \xc3\x28 1\n", 2, "not UTF-8", id="invalid-utf8"),
    ],
)
def test_qrels_malformed_line(tmp_path: Path, content: str | bytes, lineno: int, needle: str) -> None:
    path = _write(tmp_path, "bad.qrels", content)
    with pytest.raises(TrecFormatError) as info:
        read_trec_qrels(path)
    assert str(info.value).startswith(f"{path}:{lineno}: malformed qrels line")
    assert needle in str(info.value)


def test_qrels_gzip_and_file_like(tmp_path: Path) -> None:
    text = "1 0 a 2\n1 0 b 0\n2 0 c -1\n"
    assert_frame_equal(read_trec_qrels(io.BytesIO(gzip.compress(text.encode()))), EXPECTED_QRELS)
    assert_frame_equal(read_trec_qrels(io.StringIO(text)), EXPECTED_QRELS)


# --- several runs -------------------------------------------------------------------------------
def test_read_trec_runs_uses_distinct_tags(tmp_path: Path) -> None:
    a = _write(tmp_path, "a.run", "q Q0 d1 1 1 bm25\n")
    b = _write(tmp_path, "b.run", "q Q0 d1 1 1 dense\n")
    df = read_trec_runs([a, b])
    assert df.columns == ["system", "query_id", "doc_id", "score"]
    assert df["system"].to_list() == ["bm25", "dense"]


def test_read_trec_runs_falls_back_to_file_names(tmp_path: Path) -> None:
    a = _write(tmp_path, "first.run", "q Q0 d1 1 1 STANDARD\n")
    b = _write(tmp_path, "second.run.gz", gzip.compress(b"q Q0 d1 1 1 STANDARD\n"))
    assert read_trec_runs([a, b])["system"].to_list() == ["first", "second"]


def test_read_trec_runs_mapping_and_collisions(tmp_path: Path) -> None:
    (tmp_path / "x").mkdir()
    (tmp_path / "y").mkdir()
    a = _write(tmp_path, "x/run.txt", "q Q0 d1 1 1 same\n")
    b = _write(tmp_path, "y/run.txt", "q Q0 d1 1 1 same\n")
    with pytest.raises(InvalidParameterError, match="mapping"):
        read_trec_runs([a, b])
    df = read_trec_runs({"A": a, "B": b}, system="run")
    assert df["run"].to_list() == ["A", "B"]


# --- writers and round trips ----------------------------------------------------------------
def test_run_round_trip(tmp_path: Path) -> None:
    run = pl.DataFrame(
        {
            "query_id": ["q2", "q2", "q1", "q1", "q1"],
            "doc_id": ["a", "b", "c", "d", "e"],
            "score": [0.1234567891, 0.1234567892, 3.0, 3.0, -1e-12],
        }
    )
    path = tmp_path / "out.run"
    write_trec_run(run, path, tag="mine")
    lines = path.read_text().splitlines()
    assert lines[0] == "q2 Q0 b 1 0.1234567892 mine"
    assert [ln.split()[3] for ln in lines] == ["1", "2", "1", "2", "3"]
    back = read_trec_run(path, system=True)
    expected = run.sort("query_id", "score", "doc_id", descending=[False, True, True])
    assert_frame_equal(
        back.drop("system").sort("query_id", "score", "doc_id", descending=[False, True, True]), expected
    )
    assert set(back["system"]) == {"mine"}


def test_run_round_trip_gzip_and_pandas(tmp_path: Path) -> None:
    pd = pytest.importorskip("pandas")
    run = pd.DataFrame({"query_id": [1, 1], "doc_id": ["a", "b"], "score": [1.0, 2.0]})
    path = tmp_path / "out.run.gz"
    write_trec_run(run, path)
    assert path.read_bytes()[:2] == b"\x1f\x8b"
    back = read_trec_run(path)
    assert back.rows() == [("1", "b", 2.0), ("1", "a", 1.0)]


def test_run_writer_follows_the_rank_column(tmp_path: Path) -> None:
    # the rank column disagrees with the scores: the file must still mean this order
    run = pl.DataFrame(
        {"query_id": ["q"] * 3, "doc_id": ["a", "b", "c"], "rank": [1, 2, 3], "score": [0.1, 0.9, 0.5]}
    )
    path = tmp_path / "r.run"
    write_trec_run(run, path)
    back = read_trec_run(path)
    order = back.sort("score", "doc_id", descending=True)["doc_id"].to_list()
    assert order == ["a", "b", "c"]
    # rank only, no score
    write_trec_run(run.drop("score"), path)
    assert read_trec_run(path).sort("score", descending=True)["doc_id"].to_list() == ["a", "b", "c"]


def test_run_writer_keeps_scores_consistent_with_rank(tmp_path: Path) -> None:
    run = pl.DataFrame({"query_id": ["q"] * 2, "doc_id": ["b", "a"], "rank": [1, 2], "score": [1.0, 1.0]})
    write_trec_run(run, tmp_path / "r.run")
    # trec_eval breaks the tie by doc id descending: b before a, consistent with rank
    assert (tmp_path / "r.run").read_text().splitlines()[0] == "q Q0 b 1 1.0 irframe"


def test_run_writer_tag_column(tmp_path: Path) -> None:
    run = pl.DataFrame(
        {"query_id": ["q", "q"], "doc_id": ["a", "b"], "score": [1.0, 0.0], "system": ["s1", "s1"]}
    )
    write_trec_run(run, tmp_path / "r.run", tag_col="system")
    assert read_trec_run(tmp_path / "r.run", system=True)["system"].to_list() == ["s1", "s1"]


def test_run_writer_errors(tmp_path: Path) -> None:
    with pytest.raises(ColumnNotFoundError, match="qid"):
        write_trec_run(pl.DataFrame({"qid": ["q"], "doc_id": ["a"], "score": [1.0]}), tmp_path / "r")
    with pytest.raises(ColumnNotFoundError, match="neither"):
        write_trec_run(pl.DataFrame({"query_id": ["q"], "doc_id": ["a"]}), tmp_path / "r")
    with pytest.raises(TrecFormatError, match="whitespace"):
        write_trec_run(pl.DataFrame({"query_id": ["q"], "doc_id": ["a b"], "score": [1.0]}), tmp_path / "r")
    with pytest.raises(IrFrameError, match="must be a pandas"):
        write_trec_run({"query_id": ["q"]}, tmp_path / "r")


def test_run_writer_refuses_duplicates(tmp_path: Path) -> None:
    two_systems = pl.DataFrame(
        {"system": ["a", "b"], "query_id": ["q", "q"], "doc_id": ["d", "d"], "score": [1.0, 2.0]}
    )
    with pytest.raises(DuplicateRowsError, match="one file per system"):
        write_trec_run(two_systems, tmp_path / "r.run")
    assert not (tmp_path / "r.run").exists()


def test_qrels_round_trip(tmp_path: Path) -> None:
    qrels = pl.DataFrame({"query_id": ["2", "1"], "doc_id": ["x", "y"], "relevance": [3, -1]})
    write_trec_qrels(qrels, tmp_path / "q.txt")
    assert (tmp_path / "q.txt").read_text() == "2 0 x 3\n1 0 y -1\n"
    assert_frame_equal(read_trec_qrels(tmp_path / "q.txt"), qrels)


def test_qrels_writer_float_grades(tmp_path: Path) -> None:
    write_trec_qrels(pl.DataFrame({"query_id": ["1"], "doc_id": ["a"], "relevance": [2.0]}), tmp_path / "q")
    assert (tmp_path / "q").read_text() == "1 0 a 2\n"
    write_trec_qrels(pl.DataFrame({"query_id": ["1"], "doc_id": ["a"], "relevance": [0.5]}), tmp_path / "q")
    assert read_trec_qrels(tmp_path / "q")["relevance"].to_list() == [0.5]


# --- real-world files: trec_eval's own test data (not committed; skipped when absent) ----------
def test_trec_eval_test_files(trec_eval_test_dir: Path) -> None:
    d = trec_eval_test_dir

    def by_hand(path: Path, fields: int) -> list[list[str]]:
        rows = []
        for line in path.read_text().splitlines():
            parts = line.split()
            if parts and not parts[0].startswith("#"):
                rows.append(parts[:fields])
        return rows

    for name in ("results.test", "results.trunc", "results.comment.test"):
        expected = sorted((p[0], p[2], float(p[4])) for p in by_hand(d / name, 6))
        got = read_trec_run(d / name, system=True)
        assert sorted(got.drop("system").rows()) == expected, name
        assert got["system"].n_unique() == 1
    trunc = read_trec_run(d / "results.trunc")  # extra junk columns after the tag
    assert trunc.height == 584
    for name in ("qrels.test", "qrels.test.with-comments", "qrels.rel_level"):
        expected_q = sorted((p[0], p[2], int(p[3])) for p in by_hand(d / name, 4))
        assert sorted(read_trec_qrels(d / name).rows()) == expected_q, name
    with_comments = read_trec_qrels(d / "qrels.test.with-comments")
    assert_frame_equal(
        with_comments.sort("query_id", "doc_id"),
        read_trec_qrels(d / "qrels.test")
        .sort("query_id", "doc_id")
        .with_columns(
            pl.when(pl.col("doc_id") == "CR93E-1860")
            .then(pl.lit("CR#93E-1860"))
            .otherwise(pl.col("doc_id"))
            .alias("doc_id")
        )
        .sort("query_id", "doc_id"),
    )


def test_agrees_with_ir_measures_reader(trec_eval_test_dir: Path) -> None:
    ir_measures = pytest.importorskip("ir_measures")
    d = trec_eval_test_dir
    run = sorted((r.query_id, r.doc_id, r.score) for r in ir_measures.read_trec_run(str(d / "results.test")))
    assert sorted(read_trec_run(d / "results.test").rows()) == run
    qrels = sorted(
        (q.query_id, q.doc_id, q.relevance) for q in ir_measures.read_trec_qrels(str(d / "qrels.rel_level"))
    )
    assert sorted(read_trec_qrels(d / "qrels.rel_level").rows()) == qrels


# --- size ---------------------------------------------------------------------------------------
@pytest.mark.slow
def test_ten_million_lines_read_in_seconds(tmp_path: Path) -> None:
    import time

    import numpy as np

    n = 10_000_000
    rng = np.random.default_rng(0)
    gen = pl.DataFrame(
        {
            "q": pl.Series(rng.integers(0, 10_000, n)).cast(pl.String),
            "it": "Q0",
            "d": "doc" + pl.Series(rng.integers(0, 10**7, n)).cast(pl.String),
            "r": pl.Series(np.arange(n) % 1000 + 1),
            "s": rng.random(n),
            "t": "big",
        }
    )
    path = tmp_path / "big.run"
    gen.write_csv(path, separator=" ", include_header=False)
    start = time.perf_counter()
    df = read_trec_run(path)
    took = time.perf_counter() - start
    assert df.height == n
    assert took < 30, f"reading {n} lines took {took:.1f} s"


def test_named_pipe(tmp_path: Path) -> None:
    import os
    import threading

    if not hasattr(os, "mkfifo"):
        pytest.skip("no named pipes on this platform")
    fifo = tmp_path / "pipe.run"
    os.mkfifo(fifo)

    def feed() -> None:
        with fifo.open("w") as fh:
            fh.write("301 Q0 d1 1 2.5 t\n301 Q0 d2 2 1 t\n302 Q0 d9 1 -3 t\n")

    writer = threading.Thread(target=feed)
    writer.start()
    try:
        assert_frame_equal(read_trec_run(fifo), EXPECTED_RUN)
    finally:
        writer.join(timeout=10)
