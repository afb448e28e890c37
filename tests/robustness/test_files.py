"""Files never destroyed (issue 35, class 2): every writer goes through the one atomic writer.

A failure is injected into each writer (the disk full midway through the data, or when the
file is flushed): the old file must be whole, no temporary file may stay, and the error is an
``OutputFileError`` naming the path (an ``OSError`` with the system's errno too).  A
function that reads and writes refuses an output path that is one of its inputs.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any
from unittest import mock

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import irframe
import irframe.io._atomic as atomic
from _support.helpers import examples
from irframe.datasets import golden
from irframe.exceptions import InvalidParameterError, OutputFileError
from irframe.io import write_judging_sheet, write_qrels_stub, write_trec_qrels, write_trec_run
from irframe.io._atomic import atomic_write, refuse_input_as_output, write_bytes

G = golden()
RUN = G.runs.filter(pl.col("system") == "bm25").drop("system")
PAIRS = G.qrels.select("query_id", "doc_id").head(20)
OLD = b"the old file, whole\n" * 50


def _full(*_: object, **__: object) -> None:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


# every writer, by the name of its target file
WRITERS: dict[str, Callable[[Path], Any]] = {
    "base.json": lambda p: irframe.snapshot(RUN, G.qrels, ["RR"], path=p),
    "snapshot.write.json": lambda p: irframe.snapshot(RUN, G.qrels, ["RR"]).write(p),
    "bm25.run": lambda p: write_trec_run(RUN, p, tag="bm25"),
    "bm25.run.gz": lambda p: write_trec_run(RUN, p, tag="bm25"),
    "golden.qrels": lambda p: write_trec_qrels(G.qrels, p),
    "to_judge.tsv": lambda p: write_judging_sheet(PAIRS, p),
    "to_judge.parquet": lambda p: write_judging_sheet(PAIRS, p),
    "stub.qrels": lambda p: write_qrels_stub(PAIRS, p),
}


def _old_file(tmp_path: Path, name: str) -> Path:
    target = tmp_path / name
    target.write_bytes(OLD)
    target.chmod(0o640)
    return target


def _assert_untouched(target: Path, error: OutputFileError) -> None:
    assert target.read_bytes() == OLD
    assert sorted(p.name for p in target.parent.iterdir()) == [target.name]  # no temporary file
    assert str(target) in str(error)
    assert "No space left" in str(error)
    assert "unchanged" in str(error)
    assert isinstance(error, OSError)
    assert error.errno == errno.ENOSPC


@pytest.mark.parametrize("name", list(WRITERS))
def test_a_full_disk_when_flushing_leaves_the_old_file(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = _old_file(tmp_path, name)
    monkeypatch.setattr(atomic, "_sync", _full)
    with pytest.raises(OutputFileError) as info:
        WRITERS[name](target)
    _assert_untouched(target, info.value)


class _HalfWritten:
    """A binary file that takes half of what it is given, then finds the disk full."""

    def __init__(self, path: Path) -> None:
        self._fh = open(path, "wb")  # noqa: SIM115 (closed in __exit__)

    def write(self, data: bytes) -> int:
        self._fh.write(data[: len(data) // 2])
        self._fh.flush()
        _full()
        return 0

    def __enter__(self) -> _HalfWritten:
        return self

    def __exit__(self, *exc: object) -> None:
        self._fh.close()


def _text_half_then_full(frame: pl.DataFrame, file: Any = None, **_: Any) -> None:
    """polars' CSV writer that writes half the text into the temporary file, then fails."""
    with _HalfWritten(Path(file)) as fh:
        fh.write(frame.write_csv().encode())


@pytest.mark.parametrize("name", ["bm25.run", "golden.qrels", "to_judge.tsv", "stub.qrels"])
def test_a_full_disk_midway_through_a_text_writer_leaves_the_old_file(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = _old_file(tmp_path, name)
    original = pl.DataFrame.write_csv

    def write_csv(self: pl.DataFrame, file: Any = None, **kw: Any) -> Any:
        if file is None:
            return original(self, **kw)
        return _text_half_then_full(self, file)

    monkeypatch.setattr(pl.DataFrame, "write_csv", write_csv)
    with pytest.raises(OutputFileError) as info:
        WRITERS[name](target)
    _assert_untouched(target, info.value)


def test_a_full_disk_midway_through_a_snapshot_leaves_the_old_baseline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = _old_file(tmp_path, "base.json")
    monkeypatch.setattr(Path, "open", lambda self, mode="r", *a, **k: _HalfWritten(self))
    with pytest.raises(OutputFileError) as info:
        irframe.snapshot(RUN, G.qrels, ["RR"], path=target)
    monkeypatch.undo()
    _assert_untouched(target, info.value)


def test_a_written_file_keeps_the_mode_of_the_one_it_replaces_and_a_link_stays_a_link(tmp_path: Path) -> None:
    target = _old_file(tmp_path, "base.json")
    irframe.snapshot(RUN, G.qrels, ["RR"], path=target)
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert irframe.read_snapshot(target).measures == ("RR",)
    link = tmp_path / "link.json"
    link.symlink_to(target)
    write_bytes(link, b"{}")
    assert link.is_symlink()
    assert target.read_bytes() == b"{}"


def test_an_output_that_cannot_be_written_names_the_path(tmp_path: Path) -> None:
    with pytest.raises(OutputFileError, match=r"missing/base\.json"):
        write_bytes(tmp_path / "missing" / "base.json", b"x")
    with pytest.raises(OutputFileError, match="is a directory"):
        write_bytes(tmp_path, b"x")
    if os.geteuid() != 0:  # root writes anywhere
        ro = tmp_path / "ro"
        ro.mkdir()
        ro.chmod(0o500)
        with pytest.raises(OutputFileError, match="Permission denied"):
            write_bytes(ro / "x", b"x")
    assert sorted(p.name for p in tmp_path.iterdir()) == (["ro"] if os.geteuid() != 0 else [])


def test_an_error_of_the_writer_itself_leaves_no_temporary_file(tmp_path: Path) -> None:
    target = _old_file(tmp_path, "x.tsv")

    def buggy() -> None:
        with atomic_write(target) as tmp:
            tmp.write_bytes(b"half")
            raise KeyError("a bug in the writer")

    with pytest.raises(KeyError):
        buggy()
    assert target.read_bytes() == OLD
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.tsv"]


def test_snapshot_refuses_to_write_over_one_of_its_inputs(tmp_path: Path) -> None:
    run_file, qrels_file = tmp_path / "bm25.run", tmp_path / "golden.qrels"
    write_trec_run(RUN, run_file, tag="bm25")
    write_trec_qrels(G.qrels, qrels_file)
    before = run_file.read_bytes(), qrels_file.read_bytes()
    link = tmp_path / "alias.run"
    link.symlink_to(run_file)
    for out in (run_file, qrels_file, f"{tmp_path}/./bm25.run", link):
        with pytest.raises(InvalidParameterError, match=r"over its (run|qrels) input"):
            irframe.snapshot(run_file, qrels_file, ["RR"], path=out)
    assert (run_file.read_bytes(), qrels_file.read_bytes()) == before
    irframe.snapshot(run_file, qrels_file, ["RR"], path=tmp_path / "base.json")  # another file: written


def test_refuse_input_as_output_skips_frames_and_streams(tmp_path: Path) -> None:
    refuse_input_as_output(tmp_path / "out.json", {"run": RUN, "qrels": None, "stdin": "-"}, "snapshot")
    with pytest.raises(InvalidParameterError, match="over its queries input"):
        refuse_input_as_output(tmp_path / "q.tsv", {"queries": str(tmp_path / "q.tsv")}, "snapshot")


@settings(
    max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    data=st.binary(min_size=1, max_size=4096), cut=st.floats(0, 1), when=st.sampled_from(["write", "sync"])
)
def test_whatever_is_written_and_wherever_it_fails_the_old_file_stays(
    tmp_path: Path, data: bytes, cut: float, when: str
) -> None:
    target = tmp_path / "out.bin"
    target.write_bytes(OLD)
    flush = _full if when == "sync" else atomic._sync  # the flush finds the disk full, or the write

    def write() -> None:
        with atomic_write(target) as tmp, tmp.open("wb") as fh:
            fh.write(data[: int(len(data) * cut)])
            if when == "write":
                _full()

    with mock.patch.object(atomic, "_sync", flush), pytest.raises(OutputFileError) as info:
        write()
    assert info.value.errno == errno.ENOSPC
    assert target.read_bytes() == OLD
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.bin"]
