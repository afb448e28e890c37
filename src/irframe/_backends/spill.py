"""The out-of-core backend's spill directories: one per run, reclaimed after a crash.

A run spills its buckets into ``<tmp_dir>/irframe-spill-<pid>-<random>/``, made by
:func:`spill_directory` and removed when the run ends (normally, on an error, on
SIGINT or SIGTERM).  A run killed outright (SIGKILL, the OOM killer, a power cut)
cannot remove it; the next run in the same ``tmp_dir`` does (:func:`reclaim`).

A directory is irframe's when it holds the marker file :data:`MARKER`, which its run
keeps locked (``flock``) while it runs: the system releases the lock when the process
ends, however it ends.  A directory is reclaimed only when all of these hold:

* its name is ``irframe-spill-<pid>-...`` and it holds the marker (nothing else is
  touched, not even an ``irframe-spill-*`` directory without one);
* the process ``<pid>`` is gone on this machine (a live process's directory is kept,
  locked or not: it may be between making the directory and taking the lock);
* the marker's lock can be taken (a process of another PID namespace sharing the
  directory, whose PID means nothing here, still holds it).

Where ``flock`` does not exist (Windows) nothing is reclaimed.

A disk that fills up while the buckets are written is named as such
(:func:`writing_spill`): the spill directory and the hint to free space or pass
``tmp_dir=``, not a read error of the input.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import polars as pl

from irframe.exceptions import OutputFileError
from irframe.io._atomic import alive as _alive
from irframe.io._atomic import os_error_of
from irframe.io._atomic import try_lock as _try_lock

__all__ = ["MARKER", "PREFIX", "reclaim", "spill_directory", "writing_spill"]

PREFIX = "irframe-spill-"
MARKER = ".irframe-spill"  # holds the PID; locked by its run while it runs
_NAME = re.compile(re.escape(PREFIX) + r"(\d+)-")

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]


def _reclaim_one(directory: Path) -> bool:
    """Remove one dead run's directory (see the module's rules); whether it was removed."""
    m = _NAME.match(directory.name)
    marker = directory / MARKER
    if m is None or not directory.is_dir() or directory.is_symlink() or not marker.is_file():
        return False
    if _alive(int(m.group(1))):
        return False
    try:
        fd = os.open(marker, os.O_RDONLY)
    except OSError:  # removed meanwhile, by another run reclaiming it
        return False
    try:
        if not _try_lock(fd):
            return False
        shutil.rmtree(directory, ignore_errors=True)  # (the lock held while removing)
        return not directory.exists()
    finally:
        os.close(fd)


def reclaim(tmp_dir: str | os.PathLike[str] | None = None) -> list[Path]:
    """Remove the spill directories of dead runs in ``tmp_dir`` (default: the system's
    temporary directory); the directories removed.

    Examples
    --------
    >>> import os, pathlib, tempfile
    >>> tmp = pathlib.Path(tempfile.mkdtemp())
    >>> with spill_directory(tmp) as mine:
    ...     reclaim(tmp), mine.exists()  # a live run's directory (ours) is kept
    ([], True)
    >>> dead = tmp / f"{PREFIX}999999999-abc"  # no such process
    >>> dead.mkdir(); (dead / MARKER).write_text("999999999\\n")
    10
    >>> [p.name for p in reclaim(tmp)], dead.exists()
    (['irframe-spill-999999999-abc'], False)
    """
    root = Path(tempfile.gettempdir() if tmp_dir is None else tmp_dir)
    if fcntl is None:  # pragma: no cover - Windows
        return []
    try:
        candidates = sorted(root.glob(f"{PREFIX}*"))
    except OSError:
        return []
    return [d for d in candidates if _reclaim_one(d)]


@contextlib.contextmanager
def spill_directory(tmp_dir: str | os.PathLike[str] | None = None) -> Iterator[Path]:
    """A new spill directory for this run, locked while the ``with`` block runs, then removed.

    The spill directories of dead runs in ``tmp_dir`` are reclaimed first (:func:`reclaim`).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> tmp = pathlib.Path(tempfile.mkdtemp())
    >>> with spill_directory(tmp) as d:
    ...     d.name.startswith(f"{PREFIX}{os.getpid()}-"), sorted(p.name for p in d.iterdir())
    (True, ['.irframe-spill'])
    >>> d.exists()
    False
    """
    reclaim(tmp_dir)
    path = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-", dir=tmp_dir))
    fd = -1
    try:
        fd = os.open(path / MARKER, os.O_RDWR | os.O_CREAT, 0o600)
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX)  # (a new file: nobody else holds it)
        os.write(fd, f"{os.getpid()}\n".encode())
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)
        if fd >= 0:
            os.close(fd)


_FULL = (errno.ENOSPC, errno.EDQUOT)


@contextlib.contextmanager
def writing_spill(directory: Path) -> Iterator[None]:
    """A full disk (or quota) while writing spill files becomes an
    :class:`~irframe.exceptions.OutputFileError` naming the spill directory (polars says
    so with a ``ComputeError``); other errors pass as they are.

    Examples
    --------
    >>> with writing_spill(Path("/tmp/irframe-spill-1-x")):
    ...     raise pl.exceptions.ComputeError("parquet: IO error: No space left on device (os error 28)")
    Traceback (most recent call last):
    ...
    irframe.exceptions.OutputFileError: Could not write the spill files in '/tmp': No space left on device...
    """
    try:
        yield
    except (OSError, pl.exceptions.PolarsError) as exc:
        if isinstance(exc, OutputFileError):
            raise
        err = os_error_of(exc)
        if err.errno not in _FULL:
            raise
        msg = (
            f"Could not write the spill files in {str(directory.parent)!r}: {err.strerror}. Hint: "
            "free some disk space, or pass tmp_dir= a directory with room for about the "
            "compressed size of the input."
        )
        raise OutputFileError(err.errno, msg, str(directory)) from exc
