"""Bad, odd and hostile TREC input (issue 15): blank lines, line ends, odd bytes, huge lines.

Expected rows are written out by hand; expected errors name the file and line and quote
the whole line.  The fast and the general reading paths are compared on the same files.
"""

from __future__ import annotations

import gzip
import io
import os
import random
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from irframe.exceptions import IrFrameError
from irframe.io import TrecFormatError, _lines, _parse, read_trec_qrels, read_trec_run, read_trec_runs
from irframe.io._source import FilePermissionError

RUN_ROWS = [("301", "d1", 2.5), ("301", "d2", 1.0), ("302", "d9", -3.0)]
QRELS_ROWS = [("1", "a", 2), ("1", "b", 0), ("2", "c", -1)]
RUN_LINES = ["301 Q0 d1 1 2.5 t", "301 Q0 d2 2 1 t", "302 Q0 d9 1 -3 t"]
QRELS_LINES = ["1 0 a 2", "1 0 b 0", "2 0 c -1"]


def _write(tmp_path: Path, name: str, content: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(content)
    return path


# --- blank lines and line ends ---------------------------------------------------------------
def _variants(lines: list[str]) -> dict[str, bytes]:
    text = "\n".join(lines)
    return {
        "trailing-blank-lines": (text + "\n\n\n").encode(),
        "blank-lines-between": "\n\n".join(lines).encode() + b"\n",
        "leading-blank-lines": ("\n\n" + text + "\n").encode(),
        "crlf-blank-lines": ("\r\n".join(lines) + "\r\n\r\n\r\n").encode(),
        "crlf-blank-between": "\r\n\r\n".join(lines).encode() + b"\r\n",
        "cr-only": "\r".join(lines).encode() + b"\r",
        "cr-only-no-final": "\r".join(lines).encode(),
        "cr-only-blank": "\r\r".join(lines).encode() + b"\r\r",
        "mixed-line-ends": (lines[0] + "\r\n" + lines[1] + "\r" + lines[2] + "\n").encode(),
        "whitespace-only-lines": (" \t\n".join(lines) + "\n \n\t\n").encode(),
        "bom": b"\xef\xbb\xbf" + (text + "\n").encode(),
    }


@pytest.mark.parametrize("variant", list(_variants(RUN_LINES)))
def test_run_blank_lines_and_line_ends(tmp_path: Path, variant: str) -> None:
    path = _write(tmp_path, "x.run", _variants(RUN_LINES)[variant])
    assert read_trec_run(path).rows() == RUN_ROWS


@pytest.mark.parametrize("variant", list(_variants(QRELS_LINES)))
def test_qrels_blank_lines_keep_int_grades(tmp_path: Path, variant: str) -> None:
    path = _write(tmp_path, "x.qrels", _variants(QRELS_LINES)[variant])
    df = read_trec_qrels(path)
    assert df.schema["relevance"] == pl.Int64
    assert df.rows() == QRELS_ROWS


def test_cr_only_line_numbers(tmp_path: Path) -> None:
    # a lone CR ends a line: the broken record is on line 3
    path = _write(tmp_path, "mac.run", b"q Q0 a 1 1 t\rq Q0 b 2 1 t\rq Q0 c\rq Q0 d 4 1 t\r")
    with pytest.raises(TrecFormatError, match=r"mac\.run:3: .*found 3: 'q Q0 c'"):
        read_trec_run(path)


def test_blank_lines_only(tmp_path: Path) -> None:
    for content in (b"\n\n\n", b"\r\n\r\n", b"  \n\t\n", b"\r\r\r"):
        assert read_trec_run(_write(tmp_path, "e.run", content)).height == 0
        qrels = read_trec_qrels(_write(tmp_path, "e.qrels", content))
        assert qrels.height == 0
        assert qrels.schema["relevance"] == pl.Int64


# --- odd bytes --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("content", "lineno", "needle", "quoted"),
    [
        pytest.param(
            b"q Q0 a 1 1 t\nq Q0 b\x1fc 2 1 t\n", 2, "control byte", "q Q0 b\\x1fc 2 1 t", id="unit-sep"
        ),
        pytest.param(b"q Q0 a 1 1 t\nq Q0 b 2 1 t\x1f\n", 2, "control byte", "t\\x1f", id="unit-sep-end"),
        pytest.param(b"\x1f\nq Q0 a 1 1 t\n", 1, "control byte", "'\\x1f'", id="unit-sep-alone"),
        pytest.param(b"q Q0 a 1 1 t\n\nq Q0 b 2 1 t\x00 more\n", 3, "NUL", "t\\x00 more", id="nul"),
        pytest.param(b"q Q0 a 1 1 t\nq Q0 \x07 2 1 t\n", 2, "control byte", "\\x07", id="bell"),
        pytest.param(b"q Q0 a 1 1 t\r\nq Q0 \xff 2 1 t\r\n", 2, "not UTF-8", "\\xff", id="bad-utf8-crlf"),
    ],
)
def test_odd_bytes_name_the_line_and_quote_it(
    tmp_path: Path, content: bytes, lineno: int, needle: str, quoted: str
) -> None:
    path = _write(tmp_path, "odd.run", content)
    with pytest.raises(TrecFormatError) as info:
        read_trec_run(path)
    msg = str(info.value)
    assert msg.startswith(f"{path}:{lineno}: malformed run line"), msg
    assert needle in msg
    assert quoted in msg
    # not mistaken for a compression problem
    assert "gzip" not in msg


def test_odd_bytes_in_gzip(tmp_path: Path) -> None:
    path = _write(tmp_path, "odd.run.gz", gzip.compress(b"q Q0 a 1 1 t\nq Q0 b 2 1 t\x1f\n"))
    with pytest.raises(TrecFormatError, match=r"odd\.run\.gz:2: .*control byte") as info:
        read_trec_run(path)
    assert "gzip" not in str(info.value).split(":", 2)[2]


def test_replacement_character_is_text(tmp_path: Path) -> None:
    # a valid UTF-8 U+FFFD is a character like any other, not binary data
    path = _write(tmp_path, "u.run", "q\ufffd Q0 d\ufffd 1 1 t\n".encode())
    assert read_trec_run(path).rows() == [("q\ufffd", "d\ufffd", 1.0)]


def test_non_ascii_whitespace_is_data(tmp_path: Path) -> None:
    # trec_eval splits on ASCII whitespace only: a no-break space is part of the id
    path = _write(tmp_path, "u.run", "q Q0 a\u00a0b 1 1 t\n".encode())
    assert read_trec_run(path).rows() == [("q", "a\u00a0b", 1.0)]


def test_vertical_tab_and_form_feed_are_whitespace(tmp_path: Path) -> None:
    path = _write(tmp_path, "w.run", b"q\x0bQ0\x0ca 1 1 t\n")
    assert read_trec_run(path).rows() == [("q", "a", 1.0)]


def test_error_quotes_the_whole_line(tmp_path: Path) -> None:
    line = "q Q0 " + "x" * 300 + " 1 high t"
    path = _write(tmp_path, "long.run", (line + "\n").encode())
    with pytest.raises(TrecFormatError) as info:
        read_trec_run(path)
    assert repr(line) in str(info.value)


# --- resources --------------------------------------------------------------------------------
def test_line_over_the_limit_is_refused(tmp_path: Path) -> None:
    big = b"q Q0 " + b"d" * (_lines.LINE_LIMIT + 10) + b" 1 1 t\n"
    path = _write(tmp_path, "big.run", b"q Q0 a 1 1 t\n\n" + big + b"q Q0 b 1 1 t\n")
    with pytest.raises(TrecFormatError, match=r"big\.run:3: line longer than 1048576 bytes"):
        read_trec_run(path)
    # no line end at all
    path = _write(tmp_path, "one.run", b"a" * (3 * _lines.LINE_LIMIT))
    with pytest.raises(TrecFormatError, match=r"one\.run:1: line longer"):
        read_trec_run(path)


def test_line_just_under_the_limit_is_read(tmp_path: Path) -> None:
    doc = "d" * (_lines.LINE_LIMIT - 20)
    path = _write(tmp_path, "ok.run", f"q Q0 {doc} 1 1 t\n".encode())
    assert read_trec_run(path)["doc_id"].to_list() == [doc]


def test_gzip_bomb_of_zeros_stops_at_the_first_line(tmp_path: Path) -> None:
    raw = b"\0" * (64 * 2**20)
    path = _write(tmp_path, "bomb.run.gz", gzip.compress(raw, compresslevel=9))
    with pytest.raises(TrecFormatError, match=r"bomb\.run\.gz:1: "):
        read_trec_run(path)


# --- batches: boundaries, line numbers far into the file --------------------------------------
class _Trickle:
    """A binary stream returning a few bytes per read (like a slow pipe)."""

    def __init__(self, data: bytes, seed: int) -> None:
        self._data = data
        self._pos = 0
        self._rng = random.Random(seed)

    def read(self, n: int = -1) -> bytes:
        if n < 0:
            n = len(self._data)
        k = min(n, self._rng.randint(1, 7))
        out = self._data[self._pos : self._pos + k]
        self._pos += len(out)
        return out


@pytest.mark.parametrize("seed", range(5))
def test_small_reads_give_the_same_rows(seed: int) -> None:
    text = b"\r\n".join(line.encode() for line in RUN_LINES) + b"\r\n\r\n# c\r"
    assert read_trec_run(_Trickle(text, seed)).rows() == RUN_ROWS  # type: ignore[arg-type]


def test_crlf_split_across_blocks_and_late_line_numbers(tmp_path: Path) -> None:
    block = _lines.LINE_LIMIT
    line = b"q Q0 d 1 1 t"
    # a comment padded so that its CR is the last byte of the first 1 MiB block, its LF the
    # first of the next: one line end, not two
    pad = b"#" + b"x" * (block - 2) + b"\r\n"
    assert pad[block - 1 : block + 1] == b"\r\n"
    n_lines = 6 * 2**20 // (len(line) + 2)  # several 4 MiB batches
    tail = b"q Q0 e 1 1 t\r\nq Q0 broken\r\n"
    content = pad + (line + b"\r\n") * n_lines + tail
    path = _write(tmp_path, "late.run", content)
    with pytest.raises(TrecFormatError) as info:
        read_trec_run(path)
    assert str(info.value).startswith(f"{path}:{n_lines + 3}: malformed run line")
    good = _write(tmp_path, "good.run", pad + (line + b"\r\n") * n_lines)
    assert read_trec_run(good).height == n_lines


# --- fast path == general path ----------------------------------------------------------------
def _odd_whitespace_runs(n: int) -> list[bytes]:
    rng = random.Random(1)
    seps = [" ", "\t", "  ", " \t ", "\t\t", "\x0b"]
    out = []
    for _ in range(n):
        lines = []
        for i in range(rng.randint(1, 40)):
            fields = [
                f"q{rng.randint(1, 3)}",
                "Q0",
                f"d{rng.randint(1, 99)}",
                str(i),
                f"{rng.uniform(-5, 5):.3f}",
                "t",
            ]
            if rng.random() < 0.2:
                fields.append("extra")
            sep = rng.choice(seps) if rng.random() < 0.3 else " "
            line = sep.join(fields) + (rng.choice(seps) if rng.random() < 0.2 else "")
            lines.append(rng.choice(["", " ", "\t"]) + line if rng.random() < 0.1 else line)
            if rng.random() < 0.05:
                lines.append(rng.choice(["# c", "", "  ", "\t"]))
        end = rng.choice(["\n", "\r\n", "\r"])
        out.append((end.join(lines) + rng.choice(["", end, end * 2])).encode())
    return out


def _general_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_parse, "_delimiter", lambda data: None)


def _by_hand(data: bytes, n: int, exact: bool) -> list[tuple[str, ...]]:
    rows = []
    for line in data.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n"):
        parts = line.split()
        if not parts or parts[0].startswith(b"#"):
            continue
        assert len(parts) == n if exact else len(parts) >= n
        rows.append(tuple(p.decode() for p in parts))
    return rows


def test_fast_and_general_paths_agree_on_odd_whitespace(monkeypatch: pytest.MonkeyPatch) -> None:
    files = _odd_whitespace_runs(150)
    fast = [read_trec_run(io.BytesIO(f), system=True) for f in files]
    _general_only(monkeypatch)
    for data, got in zip(files, fast, strict=True):
        assert_frame_equal(read_trec_run(io.BytesIO(data), system=True), got)
        expected = [(p[0], p[2], float(p[4]), p[5]) for p in _by_hand(data, 6, exact=False)]
        assert got.rows() == expected


def test_fast_and_general_paths_agree_on_trec_eval_files(
    trec_eval_test_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    names = sorted(p.name for p in trec_eval_test_dir.iterdir())
    runs = [n for n in names if n.startswith("results")]
    qrels = [n for n in names if n.startswith("qrels")]
    fast_runs = [read_trec_run(trec_eval_test_dir / n, system=True) for n in runs]
    fast_qrels = [read_trec_qrels(trec_eval_test_dir / n) for n in qrels]
    _general_only(monkeypatch)
    for n, got in zip(runs, fast_runs, strict=True):
        assert_frame_equal(read_trec_run(trec_eval_test_dir / n, system=True), got)
    for n, got in zip(qrels, fast_qrels, strict=True):
        assert_frame_equal(read_trec_qrels(trec_eval_test_dir / n), got)


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        pytest.param(b"q Q0 a 1 1 t\nq Q0 b 2 x t\n", "'x' is not a number", id="bad-score"),
        pytest.param(b"q Q0 a 1 1 t\nq Q0 b 2\n", "found 4", id="short"),
        pytest.param(b"q\tQ0\ta\t1\t1\tt\nq\tQ0\tb\t2\tnan\tt\n", "'nan' is not", id="tabs-nan"),
        pytest.param(b"q Q0 a 1 1 t\nq Q0 b 2 1 \n", "found 5", id="trailing-space-five"),
        pytest.param(b"q Q0 a 1 1 t\n q Q0 b 2 1\n", "found 5", id="leading-space-five"),
        pytest.param(b"q Q0 a 1 1 t\nq Q0  b 2 1\n", "found 5", id="double-space-five"),
    ],
)
def test_fast_path_defers_errors_to_the_general_path(tmp_path: Path, content: bytes, needle: str) -> None:
    path = _write(tmp_path, "x.run", content)
    with pytest.raises(TrecFormatError) as info:
        read_trec_run(path)
    assert str(info.value).startswith(f"{path}:2: ")
    assert needle in str(info.value)


# --- files that cannot be read ---------------------------------------------------------------
def test_permission_denied_is_not_a_gzip_problem(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _write(tmp_path, "secret.run", b"q Q0 a 1 1 t\n")

    def deny(self: Path, *args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "open", deny)
    for reader in (read_trec_run, read_trec_qrels):
        with pytest.raises(FilePermissionError) as info:
            reader(path)
        msg = str(info.value)
        assert "secret.run" in msg
        assert "permission denied" in msg
        assert "gzip" not in msg
        assert isinstance(info.value, IrFrameError)
        assert isinstance(info.value, PermissionError)


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root reads any file")
def test_permission_denied_real_file(tmp_path: Path) -> None:
    path = _write(tmp_path, "secret.run", b"q Q0 a 1 1 t\n")
    path.chmod(0)
    with pytest.raises(FilePermissionError, match="permission denied"):
        read_trec_run(path)


def test_corrupt_gzip(tmp_path: Path) -> None:
    good = gzip.compress(b"q Q0 a 1 1 t\n" * 1000)
    corrupt = good[:10] + bytes(b ^ 0xFF for b in good[10:40]) + good[40:]
    path = _write(tmp_path, "c.run.gz", corrupt)
    with pytest.raises(TrecFormatError, match=r"c\.run\.gz.*corrupt or truncated gzip"):
        read_trec_run(path)


# --- backend= -----------------------------------------------------------------------------------
def test_backend_pandas(tmp_path: Path) -> None:
    pd = pytest.importorskip("pandas")
    run = _write(tmp_path, "a.run", "\n".join(RUN_LINES).encode())
    qrels = _write(tmp_path, "q.txt", "\n".join(QRELS_LINES).encode())
    df = read_trec_run(run, system=True, backend="pandas")
    assert isinstance(df, pd.DataFrame)
    assert list(df.columns) == ["query_id", "doc_id", "score", "system"]
    assert [tuple(r) for r in df[["query_id", "doc_id", "score"]].itertuples(index=False)] == RUN_ROWS
    q = read_trec_qrels(qrels, backend="pandas")
    assert isinstance(q, pd.DataFrame)
    assert str(q["relevance"].dtype) == "int64"
    assert [tuple(r) for r in q.itertuples(index=False)] == QRELS_ROWS
    many = read_trec_runs({"A": run, "B": run}, backend="pandas")
    assert isinstance(many, pd.DataFrame)
    assert many["system"].tolist() == ["A"] * 3 + ["B"] * 3
    assert isinstance(read_trec_run(run), pl.DataFrame)
    assert isinstance(read_trec_run(run, backend="polars"), pl.DataFrame)


def test_backend_validated(tmp_path: Path) -> None:
    run = _write(tmp_path, "a.run", b"q Q0 a 1 1 t\n")
    for reader in (read_trec_run, read_trec_qrels):
        with pytest.raises(IrFrameError, match="'backend' parameter of read_trec"):
            reader(run, backend="arrow")  # type: ignore[call-overload]
    with pytest.raises(IrFrameError, match="'backend' parameter of read_trec_runs"):
        read_trec_runs([run], backend="dask")  # type: ignore[call-overload]


def test_pandas_not_imported_for_polars(tmp_path: Path) -> None:
    import subprocess
    import sys

    code = (
        "import sys, io\n"
        "from irframe.io import read_trec_run\n"
        "read_trec_run(io.StringIO('q Q0 a 1 1 t\\n'))\n"
        "print('pandas' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize(
    ("data", "encoding"),
    [
        ("q1 0 d1 1\nq2 0 d2 0\n".encode("utf-16"), "UTF-16"),  # with its byte-order mark
        ("q1 0 d1 1\nq2 0 d2 0\n".encode("utf-16-le"), "UTF-16LE"),  # PowerShell's '>' without one
        ("q1 0 d1 1\nq2 0 d2 0\n".encode("utf-16-be"), "UTF-16BE"),
        ("q1 0 d1 1\n".encode("utf-32"), "UTF-32"),
    ],
)
def test_utf16_and_utf32_are_named_not_called_binary(data: bytes, encoding: str) -> None:
    """Issue 35, class 6: a UTF-16 file was reported as 'binary data'."""
    import io

    with pytest.raises(TrecFormatError, match=f"it is {encoding} text.*iconv -f {encoding} -t UTF-8"):
        read_trec_qrels(io.BytesIO(data))


def test_a_byte_order_mark_inside_the_file_is_no_part_of_an_id() -> None:
    """Two files concatenated with cat: the second one's BOM starts a line."""
    import io

    data = "q1 0 d1 1\n\ufeffq2 0 d2 1\n".encode()
    assert read_trec_qrels(io.BytesIO(data))["query_id"].to_list() == ["q1", "q2"]
    run = "q1 Q0 d1 1 2.0 t\n\ufeffq2 Q0 d2 1 1.0 t\n".encode()
    assert read_trec_run(io.BytesIO(run))["query_id"].to_list() == ["q1", "q2"]
