"""Writing a frame to a file in the format of its name, atomically, or to a text stream.

Every writer of tables by format (judging sheets, the command line's tables) goes
through :func:`write_frame`; a path is written through :func:`irframe.io._atomic.atomic_write`,
so an interrupted write (a full disk, a crash) never leaves half a file or destroys the old one.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TextIO

from irframe.io._atomic import atomic_write

if TYPE_CHECKING:
    import polars as pl

__all__ = ["WriteFormat", "format_of", "write_frame"]

WriteFormat = Literal["parquet", "csv", "tsv", "jsonl", "json", "lines"]
_BY_SUFFIX: dict[str, WriteFormat] = {
    ".parquet": "parquet", ".pq": "parquet", ".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl",
    ".json": "json", ".tsv": "tsv", ".tab": "tsv",
}  # fmt: skip
# text formats: polars' CSV writer's options ("lines": one column of whole lines, as they are)
_TEXT: dict[str, dict[str, Any]] = {
    "csv": {}, "tsv": {"separator": "\t"}, "lines": {"include_header": False, "quote_style": "never"},
}  # fmt: skip


def format_of(path: str | os.PathLike[str]) -> WriteFormat:
    """The format a file's name asks for: parquet, csv, jsonl, json; anything else TSV.

    Examples
    --------
    >>> format_of("out.parquet"), format_of("sample.jsonl"), format_of("segments.txt")
    ('parquet', 'jsonl', 'tsv')
    """
    return _BY_SUFFIX.get(Path(path).suffix.lower(), "tsv")


def write_frame(
    df: pl.DataFrame, target: str | os.PathLike[str] | TextIO, format: WriteFormat | None = None
) -> None:
    """Write ``df`` as ``format`` (default: :func:`format_of` the path) to a path, atomically,
    or to a text stream (text formats only).

    Examples
    --------
    >>> import io, pathlib, tempfile, polars as pl
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "sample.tsv"
    >>> write_frame(pl.DataFrame({"query_id": ["q1"], "traffic": [3]}), out)
    >>> out.read_text(), sorted(p.name for p in out.parent.iterdir())
    ('query_id\\ttraffic\\nq1\\t3\\n', ['sample.tsv'])
    >>> stream = io.StringIO()
    >>> write_frame(pl.DataFrame({"line": ["q1 0 d1 ?"]}), stream, "lines")
    >>> stream.getvalue()
    'q1 0 d1 ?\\n'
    """
    if not isinstance(target, str | os.PathLike):
        fmt = format or "tsv"
        if fmt == "parquet":
            msg = "parquet needs a file path, not a stream"
            raise ValueError(msg)
        target.write(_text(df, fmt))
        return
    fmt = format or format_of(target)
    with atomic_write(target) as tmp:
        if fmt == "parquet":
            df.write_parquet(tmp)
        elif fmt in _TEXT:
            df.write_csv(tmp, **_TEXT[fmt])
        elif fmt == "jsonl":
            df.write_ndjson(tmp)
        else:
            df.write_json(tmp)


def _text(df: pl.DataFrame, fmt: str) -> str:
    if fmt == "jsonl":
        return df.write_ndjson()
    if fmt == "json":
        return df.write_json()
    return str(df.write_csv(**_TEXT[fmt]))
