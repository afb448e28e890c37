"""Writers killed outright (issue 43, class "wrong"): a writer SIGKILLed at any point leaves
the previous file whole, and the temporary file it could not remove is reclaimed by the next
write of that file; a live writer's temporary file is never touched.

Each case runs a real writer in a subprocess, stopped at a point of the one atomic writer
(the temporary file just made, or written in full and about to be renamed), and kills it
with SIGKILL there.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest

import irframe
from irframe.datasets import golden
from irframe.io._atomic import reclaim_temporaries

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals and locks")

G = golden()
BM25 = G.runs.filter(pl.col("system") == "bm25").drop("system")
OLD = "the previous file, whole\n"

# The child: the one atomic writer, stopped at POINT (prints "ready", then waits to be killed).
CHILD = textwrap.dedent(
    """
    import sys, time, tempfile
    import irframe.io._atomic as atomic
    point, target = sys.argv[1], sys.argv[2]

    def stop():
        print("ready", flush=True)
        time.sleep(120)

    if point == "made":
        mkstemp = tempfile.mkstemp
        atomic.tempfile.mkstemp = lambda *a, **k: (mkstemp(*a, **k), stop())[0]
    else:
        atomic._sync = lambda path: stop()
    atomic.write_text(target, "{}")  # what Snapshot.write does (every writer goes through it)
    """
)


def _killed_at(point: str, target: Path) -> int:
    """Run the child until it stops at ``point``, SIGKILL it; its PID."""
    with subprocess.Popen(
        [sys.executable, "-c", CHILD, point, str(target)],
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
    assert ready == "ready", err
    assert proc.returncode == -signal.SIGKILL
    return proc.pid


def _temporaries(target: Path) -> list[Path]:
    return [p for p in target.parent.iterdir() if p.name.startswith(f".{target.name}.")]


WRITERS: dict[str, Callable[[Path], object]] = {
    "snapshot": lambda p: irframe.snapshot(BM25, G.qrels, ["RR"], path=p),
    "write_trec_run": lambda p: irframe.io.write_trec_run(BM25, p),
    "write_trec_qrels": lambda p: irframe.io.write_trec_qrels(G.qrels, p),
}


DEFAULT = {("made", "write_trec_run"), ("written", "snapshot")}  # (each kill takes a second or two)
KILLS = [
    pytest.param(point, writer, marks=() if (point, writer) in DEFAULT else pytest.mark.deep)
    for point in ("made", "written")
    for writer in WRITERS
]


@pytest.mark.parametrize(("point", "writer"), KILLS)
def test_a_killed_writer_leaves_the_old_file_and_the_next_write_reclaims_its_temporary(
    tmp_path: Path, point: str, writer: str
) -> None:
    target = tmp_path / "base.json"
    target.write_text(OLD)
    pid = _killed_at(point, target)
    assert target.read_text() == OLD  # nothing lost
    (left,) = _temporaries(target)  # nothing could remove it ...
    assert f"irframe-{pid}-" in left.name  # ... and it names its writer
    WRITERS[writer](target)
    assert _temporaries(target) == []  # reclaimed by the next write of the file
    assert target.read_text() != OLD


def test_a_live_writers_temporary_file_is_kept(tmp_path: Path) -> None:
    target = tmp_path / "base.json"
    with subprocess.Popen(
        [sys.executable, "-c", CHILD, "written", str(target)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    ) as proc:  # fmt: skip
        assert proc.stdout is not None
        try:
            assert proc.stdout.readline().strip() == "ready"
            (live,) = _temporaries(target)
            assert reclaim_temporaries(target) == []
            irframe.snapshot(BM25, G.qrels, ["RR"], path=target)  # another writer, meanwhile
            assert live.exists()
        finally:
            proc.kill()
            proc.communicate()


def test_an_older_irframes_temporary_file_is_reclaimed_after_a_day(tmp_path: Path) -> None:
    target = tmp_path / "base.json"
    old, fresh = tmp_path / ".base.json.ab12cd34.tmp.json", tmp_path / ".base.json.zz99yy88.tmp.json"
    for p in (old, fresh):
        p.write_text("{")
    day_ago = time.time() - 2 * 24 * 3600
    os.utime(old, (day_ago, day_ago))
    (tmp_path / ".base.json.notes").write_text("someone else's")  # not a temporary file: kept
    assert reclaim_temporaries(target) == [old]
    assert sorted(p.name for p in tmp_path.iterdir()) == [".base.json.notes", fresh.name]
