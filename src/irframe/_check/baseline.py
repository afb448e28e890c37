"""A baseline that can be read only once (a pipe, ``<(cat base.json)``, a binary stream):
its bytes are read once and recognised by their content, a snapshot or a run.

A regular file is left to the readers (they peek at its start); these sources cannot be
peeked at without losing what was read, so the whole content is read here and handed on.
"""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from irframe._check.snapshot import Snapshot, is_snapshot, read_source

if TYPE_CHECKING:
    import polars as pl

__all__ = ["baseline_bytes", "run_from_bytes"]


def _readable_once(obj: Any) -> bool:
    if isinstance(obj, str | os.PathLike):
        p = Path(obj)
        return p.exists() and not p.is_file() and not p.is_dir()
    return hasattr(obj, "read") and not hasattr(obj, "collect_schema") and not hasattr(obj, "columns")


def run_from_bytes(data: bytes, name: str) -> pl.DataFrame:
    """A run from a file's bytes, as :func:`irframe.io.sniff.load` reads a pipe: a CSV/TSV with
    a recognisable header, else TREC run text (``system`` column from the tag)."""
    from irframe.io import read_trec_run
    from irframe.io.sniff import _read_delimited, sniff_table

    sep = sniff_table(data[:65536])
    if sep is not None:
        return _read_delimited(data, sep, {})
    src = io.BytesIO(data)
    src.name = name
    return read_trec_run(src, system="system")


def baseline_bytes(obj: Any) -> Snapshot | tuple[pl.DataFrame, str] | None:
    """A snapshot, or a run and its name, from a source that can be read once; None for
    anything else (a regular file, a frame, a Snapshot).

    Examples
    --------
    >>> import io
    >>> run, name = baseline_bytes(io.BytesIO(b"q1 Q0 d1 1 2.5 bm25\\n"))
    >>> run.columns, name
    (['query_id', 'doc_id', 'score', 'system'], '<stream>')
    """
    from irframe.io._source import strip_suffixes

    if not _readable_once(obj):
        return None
    name, data = read_source(obj)
    if is_snapshot(data[:65536]):
        return Snapshot.from_json(data, name=name)
    return run_from_bytes(data, name), strip_suffixes(name)
