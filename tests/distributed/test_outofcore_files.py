"""``evaluate_parquet``'s files never destroyed (issue 35, class 2).

``output=``: a path that is (or would become) one of the inputs is refused before anything
is read; the file is written atomically (on a full disk, injected as an ``OSError`` when
the file is flushed or as polars' own ``ComputeError`` from ``sink_parquet``, the old file
stays whole, no temporary file remains, and an ``OutputFileError`` names the path); the
lazy result stays valid after the call.  Spill directories: one per run, and those of runs
killed outright (a fake dead one, a real SIGKILL) are reclaimed by the next run, never a
live process's.
"""

from __future__ import annotations

import errno
import fcntl
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import irframe
import irframe.io._atomic as atomic
from _support.partition_cases import CASES, MEASURES, Case, assert_same_means, reference
from irframe._backends.spill import MARKER, PREFIX
from irframe.exceptions import InvalidParameterError, OutputFileError

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX locks and signals")

CASE: Case = CASES[2]  # by=system, a system lacking queries
OLD = b"the old result, whole\n" * 50


def _inputs(tmp_path: Path) -> tuple[Path, Path]:
    """The run as two parquet files in ``run/``, the qrels as ``qrels.parquet``."""
    (tmp_path / "run").mkdir()
    half = CASE.run.height // 2
    CASE.run.head(half).write_parquet(tmp_path / "run" / "part-0.parquet")
    CASE.run.slice(half).write_parquet(tmp_path / "run" / "part-1.parquet")
    assert CASE.qrels is not None
    CASE.qrels.write_parquet(tmp_path / "qrels.parquet")
    return tmp_path / "run", tmp_path / "qrels.parquet"


def _evaluate(source: Any, qrels: Any, output: Any, spill: Path, **kwargs: Any) -> Any:
    return irframe.evaluate_parquet(
        source, MEASURES, qrels, buckets=3, output=output, tmp_dir=spill, **CASE.kwargs, **kwargs
    )


def _spill(tmp_path: Path) -> Path:
    spill = tmp_path / "spill"
    spill.mkdir()
    return spill


def _contents(*dirs: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for d in dirs for p in sorted(d.rglob("*")) if p.is_file()}


# --- output= is never one of the inputs ----------------------------------------------------------
def test_an_output_over_an_input_is_refused_before_anything_is_read(tmp_path: Path) -> None:
    run_dir, qrels = _inputs(tmp_path)
    spill = _spill(tmp_path)
    link = tmp_path / "alias.parquet"
    link.symlink_to(run_dir / "part-1.parquet")
    before = _contents(run_dir, tmp_path)
    over = [
        (str(run_dir / "*.parquet"), run_dir / "part-0.parquet"),  # a glob's match
        (str(run_dir / "*.parquet"), f"{run_dir}/./part-1.parquet"),  # spelled otherwise
        ([run_dir / "part-0.parquet", run_dir / "part-1.parquet"], run_dir / "part-1.parquet"),
        (run_dir / "part-0.parquet", run_dir / "part-0.parquet"),  # the run file itself
        (run_dir, run_dir / "part-0.parquet"),  # a file of the run's directory
        (run_dir / "part-1.parquet", link),  # a link to the run file
        (str(run_dir / "*.parquet"), qrels),  # the qrels
    ]
    for source, output in over:
        with pytest.raises(
            InvalidParameterError, match=r"would write its output \(output=.*over its (run|qrels)"
        ):
            _evaluate(source, qrels, output, spill)
    # a new file the next run would read as part of the run: in its directory, or its glob's
    for source, output in (
        (run_dir, run_dir / "means.parquet"),
        (str(run_dir / "*.parquet"), run_dir / "m.parquet"),
    ):
        with pytest.raises(
            InvalidParameterError, match="the next run would read the result as part of the run"
        ):
            _evaluate(source, qrels, output, spill)
    assert _contents(run_dir, tmp_path) == before  # nothing written
    assert list(spill.iterdir()) == []  # nothing spilled: refused before the run was read
    # (polars reads every file there, "_x" and ".x" too)
    with pytest.raises(InvalidParameterError, match="the next run would read the result"):
        _evaluate(run_dir, qrels, run_dir / "_means.parquet", spill)
    # another directory is fine
    got = _evaluate(str(run_dir / "*.parquet"), qrels, tmp_path / "means.parquet", spill)
    assert_same_means(got.collect(), CASE)


def test_an_output_that_cannot_be_written_is_refused_before_anything_is_read(tmp_path: Path) -> None:
    run_dir, qrels = _inputs(tmp_path)
    spill = _spill(tmp_path)
    with pytest.raises(OutputFileError, match="is a directory") as info:
        _evaluate(run_dir, qrels, tmp_path, spill)
    assert info.value.errno == errno.EISDIR
    with pytest.raises(OutputFileError, match=r"the directory '.*nowhere' does not exist") as info:
        _evaluate(run_dir, qrels, tmp_path / "nowhere" / "means.parquet", spill)
    assert info.value.errno == errno.ENOENT
    with pytest.raises(
        InvalidParameterError, match="The 'output' parameter of evaluate_parquet must be a path"
    ):
        _evaluate(run_dir, qrels, 3, spill)
    assert list(spill.iterdir()) == []


# --- written atomically ----------------------------------------------------------------------------
def _full(*_: object, **__: object) -> None:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def _half_then(error: Exception) -> Callable[..., None]:
    """A ``sink_parquet`` that writes half a file to the output's temporary file, then fails
    as polars does on a full disk (the spill files are written by the real one)."""
    real = pl.LazyFrame.sink_parquet

    def sink(self: pl.LazyFrame, path: Any, *args: Any, **kwargs: Any) -> Any:
        if not (isinstance(path, Path) and path.name.startswith(".means.parquet.")):
            return real(self, path, *args, **kwargs)
        path.write_bytes(b"PAR1" + b"\0" * 100)
        raise error

    return sink


@pytest.mark.parametrize(
    ("where", "error", "code", "why"),
    [
        ("flush", None, errno.ENOSPC, "No space left on device"),
        ("sink", pl.exceptions.ComputeError(
            "parquet: File out of specification: underlying IO error: No space left on device (os error 28)"
        ), errno.ENOSPC, "No space left on device"),
        ("sink", pl.exceptions.ComputeError("polars, without an errno"), errno.EIO, "without an errno"),
    ],
)  # fmt: skip
@pytest.mark.parametrize("per_query", [False, True])
def test_a_failed_write_leaves_the_old_file_whole_and_names_it(  # noqa: PLR0917
    where: str, error: Exception | None, code: int, why: str, per_query: bool, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    run_dir, qrels = _inputs(tmp_path)
    spill = _spill(tmp_path)
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    target = out_dir / "means.parquet"
    target.write_bytes(OLD)
    if where == "flush":
        monkeypatch.setattr(atomic, "_sync", _full)
    else:
        assert error is not None
        monkeypatch.setattr(pl.LazyFrame, "sink_parquet", _half_then(error))
    with pytest.raises(OutputFileError) as info:
        _evaluate(run_dir, qrels, target, spill, per_query=per_query)
    assert target.read_bytes() == OLD
    assert [p.name for p in out_dir.iterdir()] == ["means.parquet"]  # no temporary file
    assert list(spill.iterdir()) == []  # the spill files removed too
    assert str(target) in str(info.value)
    assert why in str(info.value)
    assert "unchanged" in str(info.value)
    assert isinstance(info.value, OSError)
    assert info.value.errno == code
    if where == "sink":
        assert info.value.__cause__ is error  # polars' error chained, not raised


def test_the_lazy_result_scans_the_written_file_after_the_call(tmp_path: Path) -> None:
    run_dir, qrels = _inputs(tmp_path)
    spill = _spill(tmp_path)
    target = tmp_path / "result[1].parquet"  # glob characters in the name: read as a name
    target.write_bytes(OLD)
    target.chmod(0o640)
    per_query = _evaluate(str(run_dir / "*.parquet"), qrels, target, spill, per_query=True)
    assert isinstance(per_query, pl.LazyFrame)
    assert list(spill.iterdir()) == []  # the spill files are gone: the result scans the output
    want = reference(CASE, per_query=True)
    assert per_query.collect().equals(want)
    assert pl.read_parquet(target, glob=False).equals(want)
    assert target.stat().st_mode & 0o777 == 0o640  # the replaced file's mode kept
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "qrels.parquet",
        "result[1].parquet",
        "run",
        "spill",
    ]
    assert per_query.collect().equals(want)  # again: nothing it reads was temporary
    # written again (the means now), over the file the first result scans
    means = _evaluate(str(run_dir / "*.parquet"), qrels, target, spill)
    assert_same_means(means.collect(), CASE)
    assert_same_means(pl.read_parquet(target, glob=False), CASE)


# --- spill directories -----------------------------------------------------------------------------
def _dead_pid() -> int:
    """The PID of a process that has ended (and been reaped)."""
    proc = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], check=True, capture_output=True
    )
    return int(proc.stdout)


def _spill_dir(root: Path, pid: int, marker: bool = True) -> Path:
    d = root / f"{PREFIX}{pid}-fake{len(list(root.iterdir()))}"
    (d / "run" / "__irframe_bucket=0").mkdir(parents=True)
    (d / "run" / "__irframe_bucket=0" / "0.parquet").write_bytes(b"spilled")
    if marker:
        (d / MARKER).write_text(f"{pid}\n")
    return d


def test_spill_directories_of_dead_runs_are_reclaimed_and_live_ones_kept(tmp_path: Path) -> None:
    run_dir, qrels = _inputs(tmp_path)
    spill = _spill(tmp_path)
    dead = _dead_pid()
    stale = _spill_dir(spill, dead)
    live = _spill_dir(spill, os.getpid())  # a live process (ours), its lock not held: kept
    unmarked = _spill_dir(spill, dead, marker=False)  # not irframe's: never touched
    locked = _spill_dir(spill, dead)  # a dead PID, its lock held (another PID namespace): kept
    other = spill / "somebody-elses"
    other.mkdir()
    fd = os.open(locked / MARKER, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        got = irframe.evaluate_parquet(run_dir, MEASURES, qrels, buckets=3, tmp_dir=spill, **CASE.kwargs)
    finally:
        os.close(fd)
    assert_same_means(got, CASE)  # type: ignore[arg-type]
    assert not stale.exists()
    assert sorted(spill.iterdir()) == sorted([live, unmarked, locked, other])  # and this run's own removed
    assert (live / "run" / "__irframe_bucket=0" / "0.parquet").read_bytes() == b"spilled"


_KILLED_CHILD = """
import sys, time, polars as pl, irframe, irframe._backends.parquet as oc
run = pl.DataFrame({"query_id": [f"q{i % 50}" for i in range(5000)],
                    "doc_id": [f"d{i}" for i in range(5000)], "score": [float(i) for i in range(5000)]})
run.write_parquet(sys.argv[1] + "/run.parquet")
def slow(*args, **kwargs):
    print("spilled", flush=True)   # the buckets are on disk now
    time.sleep(60)
oc.evaluate_partition = slow
irframe.evaluate_parquet(sys.argv[1] + "/run.parquet", ["P@5"], run.with_columns(relevance=1),
                         buckets=8, tmp_dir=sys.argv[2])
"""


def test_a_sigkilled_run_leaves_its_spill_directory_and_the_next_run_reclaims_it(tmp_path: Path) -> None:
    import signal

    spill = _spill(tmp_path)
    with subprocess.Popen(
        [sys.executable, "-c", _KILLED_CHILD, str(tmp_path), str(spill)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    ) as proc:  # fmt: skip
        assert proc.stdout is not None
        try:
            ready = proc.stdout.readline().strip()
            proc.send_signal(signal.SIGKILL)
            _, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
    assert ready == "spilled", err
    assert proc.returncode == -signal.SIGKILL
    (left,) = spill.iterdir()  # nothing could remove it
    assert left.name.startswith(f"{PREFIX}{proc.pid}-")
    assert any(left.rglob("*.parquet"))
    run = pl.read_parquet(tmp_path / "run.parquet")
    got = irframe.evaluate_parquet(
        tmp_path / "run.parquet", ["P@5"], run.with_columns(relevance=1), buckets=8, tmp_dir=spill
    )
    assert got.item(0, "P@5") == 1.0  # every document relevant
    assert list(spill.iterdir()) == []  # the killed run's directory reclaimed, this run's removed


def test_a_full_disk_under_the_spill_files_names_the_spill_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_dir, qrels = _inputs(tmp_path)
    spill = _spill(tmp_path)

    def full(self: pl.LazyFrame, *args: Any, **kwargs: Any) -> None:
        raise pl.exceptions.ComputeError(
            "parquet: underlying IO error: No space left on device (os error 28)"
        )

    monkeypatch.setattr(pl.LazyFrame, "sink_parquet", full)
    with pytest.raises(
        OutputFileError, match=r"Could not write the spill files in '.*spill': No space left"
    ) as info:
        irframe.evaluate_parquet(run_dir, MEASURES, qrels, buckets=3, tmp_dir=spill, **CASE.kwargs)
    assert "tmp_dir=" in str(info.value)
    assert info.value.errno == errno.ENOSPC
    assert list(spill.iterdir()) == []
