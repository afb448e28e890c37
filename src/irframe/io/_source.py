"""Open what the caller gives us (a path, a file object, gzip or not) as a stream of bytes."""

from __future__ import annotations

import gzip
import io
import os
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Protocol

from irframe.exceptions import (
    FilePermissionError,
    MissingFileError,
    TrecFormatError,
)

__all__ = [
    "FilePermissionError",
    "MissingFileError",
    "PathOrFile",
    "Source",
    "TrecFormatError",
    "json_nested",
    "open_source",
    "strip_suffixes",
]

PathOrFile = str | os.PathLike[str] | IO[str] | IO[bytes]

_TEXT_SUFFIXES = frozenset({"run", "runs", "trec", "txt", "res", "qrels", "tsv", "csv", "test"})
_GZIP_MAGIC = b"\x1f\x8b"


class ByteReader(Protocol):
    """Anything with ``read(n) -> bytes``."""

    def read(self, n: int = -1, /) -> bytes:
        """Up to ``n`` bytes; ``b""`` at the end."""
        ...


@dataclass(frozen=True)
class Source:
    """A readable source: ``stream`` yields the (decompressed) bytes, ``name`` is for messages."""

    stream: ByteReader
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


class _Prefixed:
    """Bytes from a file object (text files are encoded as UTF-8), after ``head``."""

    def __init__(self, head: bytes, raw: Any) -> None:
        self._head = head
        self._raw = raw

    def read(self, n: int = -1, /) -> bytes:
        if self._head:
            if n < 0:
                out, self._head = self._head + _as_bytes(self._raw.read()), b""
                return out
            out, self._head = self._head[:n], self._head[n:]
            if len(out) < n:  # a whole block, not just the peeked bytes
                out += _as_bytes(self._raw.read(n - len(out)))
            return out
        return _as_bytes(self._raw.read(n))

    def seek(self, n: int, /) -> int:
        """Not seekable (a pipe or a half-read file): gzip reads forward only."""
        msg = "irframe reads TREC files forward only"
        raise io.UnsupportedOperation(msg)


def _as_bytes(chunk: str | bytes | None) -> bytes:
    if chunk is None:  # a non-blocking stream with nothing ready: treat as the end
        return b""
    return chunk.encode("utf-8") if isinstance(chunk, str) else bytes(chunk)


def _decompressed(raw: Any) -> ByteReader:
    """A reader of ``raw``'s bytes, gunzipped (streaming) when they start with gzip's magic."""
    head = b""
    while len(head) < len(_GZIP_MAGIC):
        more = _as_bytes(raw.read(len(_GZIP_MAGIC) - len(head)))
        if not more:
            break
        head += more
    stream = _Prefixed(head, raw)
    if head == _GZIP_MAGIC:
        return gzip.GzipFile(fileobj=stream, mode="rb")
    return stream


def _open_path(path: Path, name: str) -> IO[bytes]:
    if path.is_dir() or not path.exists():
        what = "a directory" if path.is_dir() else "not found"
        msg = f"Cannot read {name!r}: {what}."
        raise MissingFileError(msg)
    try:
        return path.open("rb")
    except PermissionError:
        msg = f"Cannot read {name!r}: permission denied. Hint: check the file's permissions (ls -l)."
        raise FilePermissionError(msg) from None


@contextmanager
def open_source(path_or_file: PathOrFile) -> Iterator[Source]:
    """Yield a :class:`Source` streaming the bytes of a path or an open file.

    Gzip is detected by its magic bytes, whatever the name, and decompressed as the
    bytes are read (a gzip bomb is never inflated in memory at once).  Named pipes and
    ``/dev/stdin`` are read like files.
    """
    if isinstance(path_or_file, str | os.PathLike):
        name = str(path_or_file)
        with _open_path(Path(path_or_file), name) as fh:
            yield Source(_decompressed(fh), name)
        return
    if not hasattr(path_or_file, "read"):
        msg = f"Expected a path (str or pathlib.Path) or an open file, got {type(path_or_file).__name__}."
        raise TypeError(msg)
    yield Source(_decompressed(path_or_file), _display_name(path_or_file))


class _Failing:
    """A reader whose first read raises what reading the source raised."""

    def __init__(self, exc: BaseException) -> None:
        self._exc = exc

    def read(self, n: int = -1, /) -> bytes:
        raise self._exc


_JSON_HEAD = 4096  # bytes read to tell a JSON object from TREC lines (whitespace first)


def json_nested(src: Source) -> tuple[Source, dict[Any, Any] | None]:
    """``src`` and, when its bytes are a JSON object (ranx's ``Qrels.save`` / ``Run.save``,
    ``{query_id: {doc_id: value}}``), that object; else None and a source that reads the
    same bytes from the start.  A TREC line never starts with ``{``."""
    try:
        head = src.stream.read(_JSON_HEAD)
    except (EOFError, OSError, zlib.error) as exc:  # a bad gzip: the reader reports it, as before
        return Source(_Failing(exc), src.name), None
    if not head.lstrip().startswith(b"{"):
        return Source(_Prefixed(head, src.stream), src.name), None
    import json

    rest = src.stream.read()
    try:
        data = json.loads(head + rest)
    except ValueError as exc:
        msg = f"{src.name}: starts with '{{' but is not JSON ({exc}). Hint: a TREC file has no '{{'."
        raise TrecFormatError(msg) from None
    if not isinstance(data, dict):
        msg = f"{src.name}: a JSON object {{query_id: {{doc_id: value}}}} was expected (ranx's format)."
        raise TrecFormatError(msg)
    return src, data
