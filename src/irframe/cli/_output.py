"""Writing output files atomically: a temporary file in the target's directory, then a rename.

A reader (or a crash) never sees half a file: the target is either the old file or
the whole new one (``os.replace`` is atomic on one file system).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import polars as pl

__all__ = ["write_atomic", "write_frame", "write_text"]


def write_atomic(path: str | os.PathLike[str], write: Callable[[Path], object]) -> None:
    """Call ``write(temporary_path)``, then rename the temporary file to ``path``.

    The temporary file is made in ``path``'s directory (so the rename stays on one file
    system) with the permissions a new file would get; it is removed if ``write`` fails.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "notes.txt"
    >>> write_atomic(out, lambda tmp: tmp.write_text("hello\\n"))
    >>> out.read_text(), sorted(p.name for p in out.parent.iterdir())
    ('hello\\n', ['notes.txt'])
    """
    target = Path(path)
    fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent or Path("."))
    os.close(fd)
    tmp = Path(name)
    try:
        umask = os.umask(0)
        os.umask(umask)
        tmp.chmod(0o666 & ~umask)  # (mkstemp makes it 0600)
        write(tmp)
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_frame(df: pl.DataFrame, path: str | os.PathLike[str]) -> None:
    """Write ``df`` atomically in the format of ``path``'s extension.

    ``.parquet``, ``.csv``, ``.jsonl``/``.ndjson``, ``.json``; anything else is TSV.
    """
    suffix = Path(path).suffix.lower()

    def write(tmp: Path) -> None:
        if suffix == ".parquet":
            df.write_parquet(tmp)
        elif suffix == ".csv":
            df.write_csv(tmp)
        elif suffix in (".jsonl", ".ndjson"):
            df.write_ndjson(tmp)
        elif suffix == ".json":
            df.write_json(tmp)
        else:
            df.write_csv(tmp, separator="\t")

    write_atomic(path, write)


def write_text(text: str, path: str | os.PathLike[str]) -> None:
    """Write ``text`` (UTF-8, ``\\n`` line ends) atomically."""
    write_atomic(path, lambda tmp: tmp.write_text(text, encoding="utf-8", newline="\n"))
