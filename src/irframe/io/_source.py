"""Open what the caller gives us (a path, ``-``-less file object, gzip or not) for polars."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from irframe.exceptions import InvalidDataError

__all__ = ["PathOrFile", "Source", "TrecFormatError", "open_source", "strip_suffixes"]

PathOrFile = str | os.PathLike[str] | IO[str] | IO[bytes]

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


@contextmanager
def open_source(path_or_file: PathOrFile) -> Iterator[Source]:
    """Yield a :class:`Source` for polars: a file path, or the bytes of a file object.

    Gzip is not handled here: polars detects it by its magic bytes, whatever the name,
    and decompresses in its own (multi-threaded) reader.
    """
    if isinstance(path_or_file, str | os.PathLike):
        path = Path(path_or_file)
        name = str(path_or_file)
        if path.is_dir() or not path.exists():
            what = "a directory" if path.is_dir() else "not found"
            msg = f"Cannot read {name!r}: {what}."
            raise FileNotFoundError(msg)
        if not path.is_file():  # a pipe, e.g. <(zcat run.gz) or /dev/stdin
            yield Source(path.read_bytes(), name)
            return
        yield Source(str(path) if path.stat().st_size else b"", name)
        return
    if not hasattr(path_or_file, "read"):
        msg = f"Expected a path (str or pathlib.Path) or an open file, got {type(path_or_file).__name__}."
        raise TypeError(msg)
    raw: Any = path_or_file.read()
    data = raw.encode("utf-8") if isinstance(raw, str) else bytes(raw)
    yield Source(data, _display_name(path_or_file))
