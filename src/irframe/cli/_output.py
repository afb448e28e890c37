"""Tables the subcommands write to files, atomically, in the format of the file's extension.

The atomic step (a temporary file beside the target, then one rename) is
:func:`irframe.io.sheets.atomic_write`: a reader, or a crash, never sees half a file.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from irframe.io.sheets import atomic_write

if TYPE_CHECKING:
    import polars as pl

__all__ = ["write_frame"]


def write_frame(df: pl.DataFrame, path: str | os.PathLike[str]) -> None:
    """Write ``df`` atomically in the format of ``path``'s extension.

    ``.parquet``, ``.csv``, ``.jsonl``/``.ndjson``, ``.json``; anything else is TSV.

    Examples
    --------
    >>> import pathlib, tempfile, polars as pl
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "sample.tsv"
    >>> write_frame(pl.DataFrame({"query_id": ["q1"], "traffic": [3]}), out)
    >>> out.read_text(), sorted(p.name for p in out.parent.iterdir())
    ('query_id\\ttraffic\\nq1\\t3\\n', ['sample.tsv'])
    """
    suffix = Path(path).suffix.lower()
    with atomic_write(path) as tmp:
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
