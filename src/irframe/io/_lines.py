"""Cut a byte stream into batches of whole lines, bounded in memory, and check their bytes.

Every batch holds complete lines whose ends are normalised to ``\\n`` (``\\r\\n`` and a
lone ``\\r``, classic Mac OS, end a line too).  The reader never holds more than one
batch (a few MiB) plus one line, whatever the size of the stream, so a gzip bomb or a
file of newlines costs memory proportional to what is kept, not to what is read.
"""

from __future__ import annotations

import contextlib
import gzip
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import NoReturn

from irframe.io._source import ByteReader, TrecFormatError

__all__ = [
    "LINE_LIMIT",
    "Batch",
    "batches",
    "first_bad_byte",
    "line_at",
    "newlines_and_bad",
    "raise_bad_line",
]

LINE_LIMIT = 2**20
"""Longest line accepted, in bytes (1 MiB): a TREC line is a few dozen bytes."""
# Bytes per batch: each batch is one polars read_csv call, with its fixed cost; larger
# batches did not move the CLI's peak RSS (the evaluation's peak is above the reader's:
# benchmarks/results/decisions.md, trec-reader-batches).
_BATCH_BYTES = 4 * 2**20
_SHOWN_CHARS = 1000
_BOM = b"\xef\xbb\xbf"
# bytes no text file holds: NUL and the C0 controls that are not whitespace
_BAD = bytes([*range(0x09), *range(0x0E, 0x20)])
# what bytes.translate deletes to leave the line ends and the bad bytes (numpy would cost
# its import for a count that translate does fast: benchmarks/results/decisions.md, lazy-imports)
_NOT_COUNTED = bytes(b for b in range(256) if b != 0x0A and b not in _BAD)


@dataclass(frozen=True)
class Batch:
    """Whole lines (``\\n``-terminated except possibly the last one of the stream)."""

    data: bytes
    first_line: int  # 1-based number of the batch's first line in the file
    n_newlines: int
    clean: bool = False  # True: no NUL or control byte (see :func:`newlines_and_bad`)


def _normalise(part: bytes) -> bytes:
    """Line ends as ``\n``; a byte-order mark at the start of a line (files concatenated
    with ``cat``) is no part of the line's first id."""
    if b"\r" in part:
        part = part.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    if _BOM in part:
        part = part.replace(b"\n" + _BOM, b"\n")
    return part


_WIDE_BOMS = {
    b"\x00\x00\xfe\xff": "UTF-32", b"\xff\xfe\x00\x00": "UTF-32",
    b"\xfe\xff": "UTF-16", b"\xff\xfe": "UTF-16",
}  # fmt: skip


def _wide_text(block: bytes) -> str | None:
    """The name of a UTF-16/32 encoding that ``block`` (a stream's start) is in, or None:
    by its byte-order mark, or by the NUL in every other byte that ASCII text in UTF-16
    has."""
    for bom, encoding in _WIDE_BOMS.items():
        if block.startswith(bom):
            return encoding
    head = block[:512]
    if len(head) >= 8 and head[1::2].count(0) >= 0.9 * len(head[1::2]) and not head[::2].count(0):
        return "UTF-16LE"
    if len(head) >= 8 and head[::2].count(0) >= 0.9 * len(head[::2]) and not head[1::2].count(0):
        return "UTF-16BE"
    return None


def _refuse_wide(name: str, encoding: str) -> TrecFormatError:
    msg = (
        f"Cannot read {name!r}: it is {encoding} text, and TREC files are read as UTF-8. "
        f"Hint: convert it first, e.g. iconv -f {encoding} -t UTF-8 < FILE > FILE.utf8 "
        "(Windows' PowerShell writes UTF-16 with '>'; use Out-File -Encoding utf8)."
    )
    return TrecFormatError(msg)


def _last_end(data: bytes, eof: bool) -> int:
    """Index just after the last line end of ``data`` (0: none).

    A ``\\r`` as the very last byte does not count before the end of the stream: the
    next byte may be the ``\\n`` of a ``\\r\\n`` pair.
    """
    scan = data if eof or not data.endswith(b"\r") else data[:-1]
    return max(scan.rfind(b"\n"), scan.rfind(b"\r")) + 1


def _first_end(data: bytes) -> int:
    ends = [i for i in (data.find(b"\n"), data.find(b"\r")) if i >= 0]
    return min(ends) if ends else len(data)


def _too_long(name: str, lineno: int, start: bytes) -> TrecFormatError:
    msg = (
        f"{name}:{lineno}: line longer than {LINE_LIMIT} bytes (1 MiB), starting "
        f"{start[:80]!r}; a TREC line holds a few short fields. Hint: is this a TREC file?"
    )
    return TrecFormatError(msg)


def _read(stream: ByteReader, name: str) -> bytes:
    try:
        return stream.read(LINE_LIMIT)
    except (gzip.BadGzipFile, EOFError, zlib.error) as exc:
        msg = f"Cannot read {name!r}: corrupt or truncated gzip data ({exc})."
        raise TrecFormatError(msg) from None
    except UnicodeEncodeError as exc:
        msg = f"Cannot read {name!r}: the text stream holds characters that are not valid text ({exc})."
        raise TrecFormatError(msg) from None


def batches(stream: ByteReader, name: str) -> Iterator[Batch]:
    """Batches of whole lines of ``stream``; raise on a line longer than :data:`LINE_LIMIT`."""
    parts: list[bytes] = []
    size = 0
    tail = b""  # the bytes after the last line end read so far
    lineno = 1  # number of the first line of ``parts``
    lines_in_parts = 0
    clean = True
    first = True
    while True:
        block = _read(stream, name)
        eof = not block
        if first and (encoding := _wide_text(block)) is not None:
            raise _refuse_wide(name, encoding)
        if first and block.startswith(_BOM):  # a byte-order mark is not part of the first id
            block = block[len(_BOM) :]
        first = False
        data = tail + block
        cut = len(data) if eof else _last_end(data, eof=False)
        if cut == 0 and not eof:  # no line end yet: keep reading (up to the limit)
            if len(data) > LINE_LIMIT:
                raise _too_long(name, lineno + lines_in_parts, data)
            tail = data
            continue
        if _first_end(data) > LINE_LIMIT:
            raise _too_long(name, lineno + lines_in_parts, data)
        part = _normalise(data[:cut])
        tail = data[cut:]
        parts.append(part)
        size += len(part)
        n_newlines, has_bad = newlines_and_bad(part)
        lines_in_parts += n_newlines
        clean = clean and not has_bad
        if size >= _BATCH_BYTES or (eof and size):
            batch = Batch(b"".join(parts), lineno, lines_in_parts, clean)
            parts.clear()  # not held while the batch is parsed
            lineno += lines_in_parts
            size, lines_in_parts, clean = 0, 0, True
            yield batch
            del batch
        if eof:
            return


def newlines_and_bad(data: bytes) -> tuple[int, bool]:
    """(number of ``\\n``, whether ``data`` holds a NUL or non-whitespace control byte).

    Examples
    --------
    >>> newlines_and_bad(b"q 0 d 1\\nq 0 e 0\\n"), newlines_and_bad(b"q\\x00\\n")
    ((2, False), (1, True))
    """
    kept = data.translate(None, _NOT_COUNTED)
    n_newlines = kept.count(b"\n")
    return n_newlines, n_newlines != len(kept)


def first_bad_byte(data: bytes) -> int:
    """Index of the first NUL or non-whitespace control byte of ``data`` (-1: none)."""
    found = [i for i in (data.find(b) for b in set(data.translate(None, _NOT_COUNTED + b"\n"))) if i >= 0]
    return min(found, default=-1)


def line_at(batch: Batch, pos: int) -> tuple[int, bytes]:
    """(1-based line number, the line's bytes) of the byte at ``pos`` in ``batch``."""
    data = batch.data
    start = data.rfind(b"\n", 0, pos) + 1
    end = data.find(b"\n", pos)
    end = len(data) if end < 0 else end
    return batch.first_line + data.count(b"\n", 0, start), data[start:end]


def raise_bad_line(
    lineno: int, line: str | bytes, *, name: str, what: str, reason: str, n_more: int = 0
) -> NoReturn:
    """Raise :class:`TrecFormatError` ``file:line: malformed <what> line: <reason>: <line>``."""
    if isinstance(line, bytes):
        with contextlib.suppress(UnicodeDecodeError):
            line = line.decode("utf-8")
    shown = line if len(line) <= _SHOWN_CHARS else line[:_SHOWN_CHARS]
    cut = f" (first {_SHOWN_CHARS} of {len(line)})" if len(line) > _SHOWN_CHARS else ""
    more = f" ({n_more} more malformed line(s) follow)" if n_more > 0 else ""
    msg = f"{name}:{lineno}: malformed {what} line: {reason}: {shown!r}{cut}{more}."
    raise TrecFormatError(msg)
