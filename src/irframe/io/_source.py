"""Open what the caller gives us (a path, ``-``-less file object, gzip or not) for polars."""

from __future__ import annotations

import gzip
import io
import mmap
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from irframe.exceptions import InvalidDataError

__all__ = ["PathOrFile", "Source", "TrecFormatError", "open_source", "strip_suffixes"]

PathOrFile = str | os.PathLike[str] | IO[str] | IO[bytes]

_GZIP_MAGIC = b"\x1f\x8b"
_TEXT_SUFFIXES = frozenset({"run", "runs", "trec", "txt", "res", "qrels", "tsv", "csv", "test"})


class TrecFormatError(InvalidDataError):
    """A line of a TREC run or qrels file cannot be read.

    The message names the file, the 1-based line number and shows the line.
    """


@dataclass(frozen=True)
class Source:
    """A readable source: ``data`` is a path string (plain file) or the decoded bytes."""

    data: str | bytes
    name: str


def _display_name(obj: object) -> str:
    name = getattr(obj, "name", None)
    if isinstance(name, str | os.PathLike) and str(name) not in ("", "<stdin>"):
        return str(name)
    if name == "<stdin>":
        return "<stdin>"
    return f"<{type(obj).__name__}>"


def strip_suffixes(name: str) -> str:
    """File name without directory, ``.gz`` and one text suffix (``bm25.run.gz`` -> ``bm25``).

    Examples
    --------
    >>> strip_suffixes("runs/bm25.run.gz")
    'bm25'
    >>> strip_suffixes("dense.trec")
    'dense'
    """
    base = Path(name).name
    for suffix in (".gz", ".bz2", ".zst"):
        if base.endswith(suffix):
            base = base[: -len(suffix)]
    stem, dot, ext = base.rpartition(".")
    if dot and stem and ext.lower() in _TEXT_SUFFIXES:
        return stem
    return base


def _check_nul(buf: bytes | mmap.mmap, name: str) -> None:
    pos = buf.find(b"\x00")
    if pos < 0:
        return
    lineno = buf.count(b"\n", 0, pos) + 1 if isinstance(buf, bytes) else _count_nl(buf, pos) + 1
    start = buf.rfind(b"\n", 0, pos) + 1
    end = buf.find(b"\n", pos)
    line = bytes(buf[start : end if end >= 0 else len(buf)])[:120]
    msg = (
        f"{name}:{lineno}: binary data (a NUL byte) in a text file: {line!r}. "
        "Hint: TREC run and qrels files are whitespace-separated text; is this the right file?"
    )
    raise TrecFormatError(msg)


def _count_nl(mm: mmap.mmap, end: int) -> int:
    count, pos = 0, 0
    chunk = 1 << 24
    while pos < end:
        stop = min(end, pos + chunk)
        count += mm[pos:stop].count(b"\n")
        pos = stop
    return count


@contextmanager
def open_source(path_or_file: PathOrFile) -> Iterator[Source]:
    """Yield a :class:`Source` for polars: a plain file path, or decompressed bytes.

    Gzip is detected by its magic bytes, not by the file name.  A NUL byte anywhere
    raises :class:`TrecFormatError` with its line number (trec_eval forbids them too).
    """
    if isinstance(path_or_file, str | os.PathLike):
        path = Path(path_or_file)
        name = str(path_or_file)
        if not path.is_file():
            what = "a directory" if path.is_dir() else "not found"
            msg = f"Cannot read {name!r}: {what}."
            raise FileNotFoundError(msg)
        with path.open("rb") as fh:
            magic = fh.read(2)
            if magic == _GZIP_MAGIC:
                fh.seek(0)
                data = _gunzip(fh, name)
                _check_nul(data, name)
                yield Source(data, name)
                return
            if path.stat().st_size == 0:
                yield Source(b"", name)
                return
            with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
                _check_nul(mm, name)
        yield Source(str(path), name)
        return
    if not hasattr(path_or_file, "read"):
        msg = f"Expected a path (str or pathlib.Path) or an open file, got {type(path_or_file).__name__}."
        raise TypeError(msg)
    name = _display_name(path_or_file)
    raw: Any = path_or_file.read()
    data = raw.encode("utf-8") if isinstance(raw, str) else bytes(raw)
    if data[:2] == _GZIP_MAGIC:
        data = _gunzip(io.BytesIO(data), name)
    _check_nul(data, name)
    yield Source(data, name)


def _gunzip(fh: IO[bytes], name: str) -> bytes:
    try:
        with gzip.GzipFile(fileobj=fh, mode="rb") as gz:
            return gz.read()
    except (OSError, EOFError) as exc:
        msg = f"Cannot decompress {name!r} (it starts like a gzip file): {exc}."
        raise TrecFormatError(msg) from None
