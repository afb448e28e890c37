"""Split TREC lines into fields: a fast path for regular files, a general one for the rest.

Both paths give the same frame for the lines they accept (the test suite compares them
on odd whitespace, comments and trec_eval's own files); only the general path reports
errors, so a batch the fast path does not accept is always re-read by the general path.

* fast: the batch has one single delimiter (all single spaces, or all single tabs), no
  comment line and no other whitespace; polars' CSV reader splits it (multi-threaded) and
  any surprise (a ragged line, an empty field, a comment, invalid UTF-8, a value that
  is not a number) sends the batch to the general path.
* general: one string per line, blank and comment lines dropped, one regular expression
  splits the fields (fields separated by any run of trec_eval's whitespace).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import polars as pl

from irframe.io._lines import Batch, batches, first_bad_byte, line_at, raise_bad_line
from irframe.io._source import Source

if TYPE_CHECKING:
    import numpy as np

__all__ = ["QRELS", "QRELS_SUBTOPICS", "RUN", "WS", "Layout", "read_lines"]

# trec_eval splits with C isspace(): space, \t, \n, \v, \f, \r.  Explicit classes are
# much faster than \s / \S in the polars (Rust) regex engine.
WS = r"[ \t\r\n\x0B\x0C]"
_FIELD = r"[^ \t\r\n\x0B\x0C]+"
_SKIP = r"^[ \t\n\x0B\x0C]*(#|$)"  # a blank line or a comment line
_LINE = "__irframe_line"
_ROW = "__irframe_row"
VALUE = "__value"
_SHORTEST_LINE = 6  # bytes per line below which a batch is mostly blank lines
_BLANK = (0x09, 0x0A, 0x0B, 0x0C, 0x20)  # trec_eval's whitespace (\r is gone by now)


@dataclass(frozen=True)
class Layout:
    """The fields of one kind of TREC line and the ones kept."""

    what: str  # "run" or "qrels", for messages
    n_fields: int
    exact: bool  # exactly n_fields (qrels), or at least (runs)
    keep: tuple[int, ...]  # 0-based indices of the kept fields
    names: tuple[str, ...]  # their column names; one is ``text``
    text: str  # the numeric field, as text (cast into VALUE)
    label: str  # its name in messages
    layout: str  # the fields, for messages

    @property
    def pattern(self) -> str:
        """One regular expression capturing the kept fields of a valid line."""
        parts = [f"({_FIELD})" if i in self.keep else _FIELD for i in range(self.n_fields)]
        end = f"{WS}*$" if self.exact else ""
        return f"^{WS}*" + f"{WS}+".join(parts) + end


RUN = Layout(
    "run", 6, False, (0, 2, 4, 5), ("query_id", "doc_id", "_text", "_tag"), "_text", "score",
    "query iter doc rank score tag",
)  # fmt: skip
QRELS = Layout(
    "qrels", 4, True, (0, 2, 3), ("query_id", "doc_id", "_text"), "_text", "relevance grade",
    "query iter doc relevance",
)  # fmt: skip
QRELS_SUBTOPICS = Layout(  # the second field kept: subtopic qrels (ndeval's ``topic subtopic doc judgment``)
    "qrels", 4, True, (0, 1, 2, 3), ("query_id", "subtopic", "doc_id", "_text"), "_text", "relevance grade",
    "query subtopic doc relevance",
)  # fmt: skip


def _value(layout: Layout) -> pl.Expr:
    return pl.col(layout.text).cast(pl.Float64, strict=False).alias(VALUE)


def _bad_value(layout: Layout) -> pl.Expr:
    bad = pl.col(VALUE).is_null() | pl.col(VALUE).is_nan()
    return bad | _two_readings(layout) if layout.what == "qrels" else bad


def _two_readings(layout: Layout) -> pl.Expr:
    """A grade in exponent notation whose value is not its integer prefix (``1e2``): trec_eval's
    ``atol`` reads 1, a float reader 100; the file reads two ways (refused, naming the line)."""
    text = pl.col(layout.text)
    prefix = text.str.extract(r"^([+-]?[0-9]+)").cast(pl.Float64).fill_null(0.0)
    return text.str.contains("[eE]") & (pl.col(VALUE) != prefix)


def _delimiter(data: bytes) -> str | None:
    """The single field delimiter of a regular batch, or None (the general path decides)."""
    if b"\x0b" in data or b"\x0c" in data:
        return None
    if b"\t" in data:
        return None if b" " in data else "\t"
    return " "


def _fast(data: bytes, delimiter: str, layout: Layout, *, text: bool) -> pl.DataFrame | None:
    """The batch split by polars' CSV reader, or None when it is not regular.

    ``text``: also return the numeric field as text.  Without it the CSV reader parses
    it as a float itself (no string column, no cast: ~10% of a run's read).  Both
    parsers accept the same spellings with the same values (``tests/io`` compares them),
    and a spelling the reader rejects sends the batch to the general path, which names
    the line.
    """
    names = [f"f{i}" for i in range(layout.n_fields)]
    number = names[layout.keep[layout.names.index(layout.text)]]
    schema = {n: pl.Float64 if n == number and not text else pl.String for n in names}
    try:
        df = pl.read_csv(
            data, has_header=False, separator=delimiter, quote_char=None, schema=schema,
            raise_if_empty=False,
        )  # fmt: skip
    except pl.exceptions.PolarsError:
        return None  # ragged lines, invalid UTF-8, a value that is not a number...
    if sum(df.null_count().row(0)):  # null counts are known without a pass over the data
        # a blank line is a row of nulls; any other null is an empty field (two delimiters)
        df = df.filter(~pl.all_horizontal(pl.all().is_null()))
        if df.select(pl.any_horizontal(pl.all().is_null().any())).item():
            return None
    if df.height == 0:
        return _empty(layout, text=text)
    if df.get_column(names[0]).str.starts_with("#").any():  # a comment line
        return None
    kept = [
        pl.col(names[i]).alias(n)
        for i, n in zip(layout.keep, layout.names, strict=True)
        if text or n != layout.text
    ]
    value = df.get_column(number)
    if text:  # (parsed by the reader, a value is never null here: empty fields returned above)
        value = value.cast(pl.Float64, strict=False)
        if value.null_count():
            return None  # the general path names the line
    if value.is_nan().any():
        return None  # (NaN too: the general path names the line)
    out = df.select(*kept, value.alias(VALUE))
    if text and layout.what == "qrels" and _any_two_readings(out, layout):
        return None  # (the general path names the line)
    return out


def _any_two_readings(out: pl.DataFrame, layout: Layout) -> bool:
    """Whether a grade of the batch reads two ways (:func:`_two_readings`), looked for only
    among the grades that are not plain integers (an integer's text has no exponent; the
    regular expressions on every row were a third of a qrels read)."""
    plain = out.get_column(layout.text).cast(pl.Int64, strict=False).is_not_null()
    if plain.all():
        return False
    return bool(out.filter(~plain).select(_two_readings(layout).any()).item())


def _line_starts(data: bytes, *, blank_heavy: bool) -> np.ndarray:
    """Start offsets of the lines of ``data`` that are not empty (``blank_heavy``: not blank)."""
    import numpy as np  # the general path only: the fast path spares its import (decisions.md, lazy-imports)

    arr = np.frombuffer(data, dtype=np.uint8)
    newline = arr == 0x0A
    is_start = np.empty(arr.size, dtype=bool)
    if arr.size:
        is_start[0] = True
        is_start[1:] = newline[:-1]
    if not blank_heavy:
        return np.flatnonzero(is_start & ~newline)
    starts = np.flatnonzero(is_start)
    if starts.size == 0:
        return starts
    blank = np.zeros(256, dtype=bool)
    blank[list(_BLANK)] = True
    has_text = np.logical_or.reduceat(~blank[arr], starts)
    return starts[has_text]


def _line_array(data: bytes, *, blank_heavy: bool) -> tuple[pl.Series, np.ndarray]:
    """The lines of ``data`` that are not empty (or blank) as a string Series, and their offsets.

    Zero-copy: each element runs from a kept line's start to the next one's, so it
    carries the line's terminator and the blank lines after it (trailing whitespace, which
    the patterns ignore).  A file of newlines thus costs no row at all.
    """
    import numpy as np
    import pyarrow as pa  # only here: its import costs memory and time (decisions.md, lazy-imports)

    starts = _line_starts(data, blank_heavy=blank_heavy)
    offsets = np.append(starts, len(data)).astype(np.int64)
    array = pa.LargeStringArray.from_buffers(len(starts), pa.py_buffer(offsets.tobytes()), pa.py_buffer(data))
    return pl.Series(_LINE, array), starts


def _general(batch: Batch, layout: Layout, name: str) -> pl.DataFrame:
    """The batch split by a regular expression; raise on the first malformed line."""
    try:
        batch.data.decode("utf-8")
    except UnicodeDecodeError as exc:
        lineno, line = line_at(batch, exc.start)
        raise_bad_line(lineno, line, name=name, what=layout.what, reason="not UTF-8 text (binary data?)")
    blank_heavy = batch.n_newlines * _SHORTEST_LINE > len(batch.data)
    lines, starts = _line_array(batch.data, blank_heavy=blank_heavy)
    groups = {str(i + 1): n for i, n in enumerate(layout.names)}
    parsed = (
        pl.DataFrame(lines)
        .with_row_index(_ROW)
        .lazy()
        .filter(~pl.col(_LINE).str.contains(_SKIP))
        .with_columns(pl.col(_LINE).str.extract_groups(layout.pattern).alias("__g"))
        .unnest("__g")
        .rename(groups)
        .with_columns(_value(layout))
        .collect()
    )
    first = pl.col(layout.names[0])
    bad = parsed.filter(first.is_null() | _bad_value(layout))
    if bad.height:
        row = bad.row(0, named=True)
        lineno, raw = line_at(batch, int(starts[row[_ROW]]))
        text_line = raw.decode("utf-8")
        if row[layout.names[0]] is None:
            found = len(re.findall(_FIELD, text_line))
            at = "exactly" if layout.exact else "at least"
            reason = f"expected {at} {layout.n_fields} whitespace-separated fields ({layout.layout})"
            reason += f", found {found}"
        elif row[VALUE] is not None and row[VALUE] == row[VALUE]:  # a number, read two ways
            prefix = re.match(r"[+-]?[0-9]+", row[layout.text])
            reason = (
                f"the {layout.label} {row[layout.text]!r} is in exponent notation: trec_eval reads its "
                f"integer prefix ({prefix.group(0) if prefix else '0'}), a float reader {row[VALUE]:g}; "
                "write the grade as an integer"
            )
        else:
            reason = f"the {layout.label} {row[layout.text]!r} is not a number"
        more = bad.height - 1
        raise_bad_line(lineno, text_line, name=name, what=layout.what, reason=reason, n_more=more)
    return parsed.select(*layout.names, VALUE)


def _check_bytes(batch: Batch, layout: Layout, name: str) -> None:
    """Raise on a NUL or control byte (binary data), naming its line."""
    if batch.clean:
        return
    pos = first_bad_byte(batch.data)
    if pos < 0:
        return
    lineno, line = line_at(batch, pos)
    byte = batch.data[pos : pos + 1]
    kind = "a NUL byte" if byte == b"\x00" else f"the control byte {byte!r}"
    raise_bad_line(lineno, line, name=name, what=layout.what, reason=f"binary data ({kind}) in a text file")


def _empty(layout: Layout, *, text: bool = True) -> pl.DataFrame:
    names = [n for n in layout.names if text or n != layout.text]
    return pl.DataFrame(schema={**dict.fromkeys(names, pl.String), VALUE: pl.Float64})


def _parse_batch(batch: Batch, layout: Layout, name: str, *, text: bool = True) -> pl.DataFrame:
    """The batch's rows: the kept fields and VALUE (the numeric field's text only with ``text``)."""
    _check_bytes(batch, layout, name)
    # mostly blank lines (a file of newlines): the general path gives them no row at all
    dense = batch.n_newlines * _SHORTEST_LINE > len(batch.data)
    delimiter = None if dense else _delimiter(batch.data)
    if delimiter is not None:
        df = _fast(batch.data, delimiter, layout, text=text)
        if df is not None:
            return df
    df = _general(batch, layout, name)
    return df if text else df.drop(layout.text)


def read_lines(source: Source, layout: Layout, keep: Sequence[str] | None = None) -> pl.DataFrame:
    """Every data line of ``source``: the kept fields (str) and the numeric one (VALUE, f64).

    ``keep``: the columns returned (default: all), dropped batch by batch (a run's score
    text and tag are a third of what the batches hold).
    """
    cols = [*layout.names, VALUE] if keep is None else list(keep)
    frames = []
    for batch in batches(source.stream, source.name):
        df = _parse_batch(batch, layout, source.name, text=layout.text in cols)
        if df.height:
            frames.append(df.select(cols))
    if not frames:
        return _empty(layout).select(cols)
    return pl.concat(frames, how="vertical", rechunk=False)
