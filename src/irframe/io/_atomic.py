r"""The one atomic writer: every file irframe writes goes through :func:`atomic_write`.

A file is written to a temporary file in the target's directory
(``.NAME.irframe-<pid>-XXXX.tmp``, locked by its writer with ``flock`` while it writes),
flushed to disk, given the mode of the file it replaces (or the umask's for a new one),
and renamed over the target in one step.  A reader, a crash or a full disk never sees
half a file: on any error the temporary file is removed, the old file is left as it was,
and an :class:`~irframe.exceptions.OutputFileError` names the path (an ``OSError`` too,
with the original's ``errno``).  polars' writers do not always raise ``OSError`` (a full
disk under ``sink_parquet`` is a ``ComputeError`` "... (os error 28)"): a polars error
raised while writing is mapped the same way (:func:`os_error_of`).  A target that is a
symbolic link is written through the link (the link stays a link).

A writer killed outright (SIGKILL, the OOM killer, a power cut) cannot remove its
temporary file; the next write of the same file does (:func:`reclaim_temporaries`), under
the spill directories' rule (:mod:`irframe._backends.spill`): the name holds a PID that is
gone on this machine and the file's lock can be taken.  A temporary file of an older
irframe (``.NAME.XXXX.tmp``, no PID) is removed when it is more than a day old.

:func:`refuse_input_as_output` is the check of the functions that both read and write
files: an output path that names one of the inputs, or that the next run would read as
part of one (inside an input directory, matched by an input glob: :func:`would_read`), is
refused before anything is read.

Examples
--------
>>> import pathlib, tempfile
>>> out = pathlib.Path(tempfile.mkdtemp()) / "base.json"
>>> write_text(out, '{"a": 1}\n')
>>> out.read_text(), sorted(p.name for p in out.parent.iterdir())
('{"a": 1}\n', ['base.json'])
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import tempfile
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

import polars as pl

from irframe.exceptions import InvalidParameterError, OutputFileError

__all__ = [
    "alive",
    "atomic_write",
    "os_error_of",
    "reclaim_temporaries",
    "refuse_input_as_output",
    "try_lock",
    "would_read",
    "write_bytes",
    "write_text",
]

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

_TAG = "irframe-"  # .NAME.irframe-<pid>-XXXX.tmp<suffix>
_LEGACY_AGE = 24 * 3600.0  # seconds: an older irframe's temporary file (no PID) is stale after a day


def alive(pid: int) -> bool:
    """Whether process ``pid`` exists on this machine (a zombie counts)."""
    if pid <= 0:
        return True  # not a process: keep what it names
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def try_lock(fd: int) -> bool:
    """Take the exclusive lock of ``fd`` without waiting; False when another holds it."""
    if fcntl is None:  # pragma: no cover - Windows
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    return True


def _stale(path: Path, target: Path, now: float) -> bool:
    """Whether ``path`` is a dead writer's temporary file of ``target`` (see the module)."""
    middle = path.name.removeprefix(f".{target.name}.")
    m = re.fullmatch(re.escape(_TAG) + r"(\d+)-[^.]+\.tmp.*", middle)
    if m is None:
        legacy = re.fullmatch(r"[A-Za-z0-9_]{8}\.tmp.*", middle) is not None
        return legacy and now - path.lstat().st_mtime > _LEGACY_AGE
    if alive(int(m.group(1))):
        return False
    fd = os.open(path, os.O_RDONLY)
    try:
        return try_lock(fd)
    finally:
        os.close(fd)


def reclaim_temporaries(path: str | os.PathLike[str]) -> list[Path]:
    """Remove the temporary files that writers of ``path`` killed outright left beside it
    (see the module's rules); the files removed.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "base.json"
    >>> dead = out.parent / ".base.json.irframe-999999999-abcd1234.tmp.json"  # no such process
    >>> _ = dead.write_text("{")
    >>> [p.name for p in reclaim_temporaries(out)], dead.exists()
    (['.base.json.irframe-999999999-abcd1234.tmp.json'], False)
    """
    target = Path(path)
    if fcntl is None:  # pragma: no cover - Windows
        return []
    removed = []
    now = time.time()
    try:
        candidates = sorted(target.parent.glob(f".{_glob_escape(target.name)}.*.tmp*"))
    except OSError:
        return []
    for tmp in candidates:
        try:
            if tmp.is_file() and not tmp.is_symlink() and _stale(tmp, target, now):
                tmp.unlink()
                removed.append(tmp)
        except OSError:  # removed meanwhile (by another run reclaiming it), or not ours to remove
            continue
    return removed


def _glob_escape(name: str) -> str:
    """``name`` with glob's special characters matched literally."""
    import glob

    return glob.escape(name)


def _new_file_mode() -> int:
    """The mode a newly created file gets (0o666 less the umask)."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def _failed(target: Path, exc: OSError) -> OutputFileError:
    """The error naming the path (``exc``'s errno kept)."""
    why = exc.strerror or str(exc)
    msg = f"Could not write {str(target)!r}: {why}."
    if exc.errno is not None and os.strerror(exc.errno) == why and exc.errno in _HINTS:
        msg += f" {_HINTS[exc.errno]}"
    msg += " Any existing file there is unchanged."
    return OutputFileError(exc.errno or 0, msg, str(target))


_HINTS = {
    28: "Hint: free some disk space (or write elsewhere) and run again.",  # ENOSPC
    13: "Hint: check the directory's permissions, or write elsewhere.",  # EACCES
    30: "Hint: the file system is read-only; write elsewhere.",  # EROFS
}


def os_error_of(exc: BaseException) -> OSError:
    """``exc`` as an ``OSError``: itself, or a polars error with the system's errno when its
    message carries one (``(os error 28)``), else ``EIO`` with polars' first line.

    Examples
    --------
    >>> e = os_error_of(pl.exceptions.ComputeError("IO error: No space left on device (os error 28)"))
    >>> e.errno, e.strerror
    (28, 'No space left on device')
    >>> os_error_of(pl.exceptions.ComputeError("buffer overflow")).strerror
    'buffer overflow'
    """
    if isinstance(exc, OSError):
        return exc
    text = str(exc).strip()
    m = re.search(r"\(os error (\d+)\)", text)
    if m:
        code = int(m.group(1))
        return OSError(code, os.strerror(code))
    return OSError(errno.EIO, text.splitlines()[0] if text else type(exc).__name__)


def _target(path: str | os.PathLike[str]) -> Path:
    """The file to replace: ``path``, or the file a symbolic link points to."""
    target = Path(path)
    if target.is_symlink():
        target = target.resolve()
    if target.is_dir():
        msg = f"Could not write {str(path)!r}: it is a directory. Hint: give a file name."
        raise OutputFileError(21, msg, str(path))  # EISDIR
    return target


def _sync(path: Path) -> None:
    """Flush ``path`` to disk (a full disk may only say so here)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; on success it replaces ``path`` (one rename).

    The temporary file keeps ``path``'s last suffix (``.gz`` writers see ``.gz``).  On an
    error it is removed and ``path`` is left as it was; an ``OSError`` (a full disk, no
    permission, a missing directory) or a polars error raised by the writer becomes an
    :class:`~irframe.exceptions.OutputFileError` naming ``path``.  A replaced file keeps
    its mode.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "qrels.txt"
    >>> with atomic_write(out) as tmp:
    ...     _ = tmp.write_text("q1 0 d1 1\\n")
    >>> out.read_text(), sorted(p.name for p in out.parent.iterdir())
    ('q1 0 d1 1\\n', ['qrels.txt'])
    """
    target = _target(path)
    reclaim_temporaries(target)
    try:
        mode = target.stat().st_mode & 0o7777 if target.exists() else _new_file_mode()
        fd, tmp_name = tempfile.mkstemp(
            prefix=f".{target.name}.{_TAG}{os.getpid()}-", suffix=f".tmp{target.suffix}", dir=target.parent
        )
    except OSError as exc:
        raise _failed(Path(path), exc) from exc
    try_lock(fd)  # held until the file is renamed or removed: a live writer's file is never reclaimed
    tmp = Path(tmp_name)
    try:
        yield tmp
        _sync(tmp)
        tmp.chmod(mode)
        tmp.replace(target)
    except (OSError, pl.exceptions.PolarsError) as exc:
        tmp.unlink(missing_ok=True)
        if isinstance(exc, OutputFileError):
            raise
        raise _failed(Path(path), os_error_of(exc)) from exc
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    finally:
        os.close(fd)


def write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (see :func:`atomic_write`)."""
    with atomic_write(path) as tmp, tmp.open("wb") as fh:
        fh.write(data)


def write_text(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` to ``path`` atomically, as UTF-8 with the line ends as they are."""
    write_bytes(path, text.encode("utf-8"))


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False


_GLOB_CHARS = set("*?[")


def would_read(output: str | os.PathLike[str], item: str | os.PathLike[str]) -> bool:
    """Whether a later scan of input ``item`` (a directory or a glob) would read ``output``.

    Examples
    --------
    >>> would_read("log/to_judge.parquet", "log/*.parquet"), would_read("out.parquet", "log/*.parquet")
    (True, False)
    """
    import fnmatch

    outs = (Path(os.path.abspath(output)), Path(output).resolve())  # (as written, links resolved)
    text = str(item)
    if _GLOB_CHARS & set(text) and not Path(item).exists():
        pattern = os.path.abspath(text)
        return any(fnmatch.fnmatchcase(str(out), pattern) for out in outs)
    roots = (Path(os.path.abspath(item)), Path(item).resolve())
    return any(root.is_dir() and root in out.parents for root in roots for out in outs)


def refuse_input_as_output(
    output: str | os.PathLike[str], inputs: Mapping[str, object], where: str, parameter: str = "path"
) -> None:
    """Refuse an ``output`` path that names one of ``inputs`` (``{role: path or other}``),
    or that a later read of one (a directory, a glob) would take in (:func:`would_read`).

    Inputs that are not paths (frames, streams) are skipped.  Two paths are the same file
    when they resolve to the same file (links included) or to the same name.

    Examples
    --------
    >>> refuse_input_as_output("run.txt", {"run": "./run.txt", "qrels": None}, "snapshot")
    Traceback (most recent call last):
    ...
    irframe.exceptions.InvalidParameterError: snapshot would write its output (path='run.txt') over ...
    """
    out = Path(output)
    for role, value in inputs.items():
        if not isinstance(value, str | os.PathLike) or str(value) == "-":
            continue
        given = Path(value)
        if _same_file(out, given) or out.resolve() == given.resolve():
            msg = (
                f"{where} would write its output ({parameter}={str(output)!r}) over its {role} input "
                f"{str(value)!r}. Hint: write the output to another file."
            )
            raise InvalidParameterError(msg)
        if would_read(out, given):
            what = role if role == "input" else f"{role} input"
            msg = (
                f"{where} would write its output ({parameter}={str(output)!r}) where its {what} "
                f"{str(value)!r} reads: the next run would read the result as part of the {role}. "
                f"Hint: write the output outside {str(value)!r}."
            )
            raise InvalidParameterError(msg)
