"""Check table files before polars reads them, so that errors name the file (and line).

polars reports a corrupt parquet file, a glob matching nothing or a schema that differs
between files in its own words, sometimes without the file name; malformed JSON lines
come without a line number.  These helpers look first and raise :class:`TableFileError`.
"""

from __future__ import annotations

import glob
import gzip
import json
import os
from collections.abc import Sequence
from pathlib import Path

import polars as pl

from irframe.exceptions import TableFileError
from irframe.io._source import MissingFileError

__all__ = ["TableFileError", "check_parquet_files", "expand_paths", "find_bad_json_line", "polars_reason"]

_GLOB_CHARS = frozenset("*?[")


def polars_reason(exc: BaseException) -> str:
    """The first line of a polars error message, for our own messages."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _is_data_file(path: Path) -> bool:
    return path.is_file() and not path.name.startswith((".", "_"))


def expand_paths(source: str | os.PathLike[str] | Sequence[str | os.PathLike[str]]) -> list[Path]:
    """The files a path, a directory (recursively), a glob or a list of them stands for.

    Raises :class:`MissingFileError` naming the path or pattern that matches nothing.
    """
    items = [source] if isinstance(source, str | os.PathLike) else list(source)
    files: list[Path] = []
    for item in items:
        text = str(item)
        path = Path(item)
        if _GLOB_CHARS & set(text) and not path.exists():
            found = sorted(Path(p) for p in glob.glob(text, recursive=True))
            found = [p for p in found if _is_data_file(p)]
            if not found:
                msg = f"No file matches {text!r}. Hint: check the directory and the pattern."
                raise MissingFileError(msg)
            files += found
        elif path.is_dir():
            found = sorted(p for p in path.rglob("*") if _is_data_file(p))
            if not found:
                msg = f"The directory {text!r} holds no file to read."
                raise MissingFileError(msg)
            files += found
        elif path.is_file():
            files.append(path)
        else:
            msg = f"Cannot read {text!r}: not found."
            raise MissingFileError(msg)
    return files


def check_parquet_files(files: Sequence[Path], role: str = "table") -> pl.Schema:
    """Read every file's footer: raise naming the first unreadable file or differing schema."""
    first: tuple[Path, pl.Schema] | None = None
    for path in files:
        try:
            schema = pl.Schema(pl.read_parquet_schema(path))
        except PermissionError:
            msg = f"Cannot read {str(path)!r}: permission denied."
            raise TableFileError(msg) from None
        except (pl.exceptions.PolarsError, OSError) as exc:
            msg = (
                f"Cannot read the {role} file {str(path)!r} as parquet (corrupt, truncated or "
                f"not a parquet file?): {polars_reason(exc)}"
            )
            raise TableFileError(msg) from None
        if first is None:
            first = (path, schema)
        elif dict(schema) != dict(first[1]):
            msg = (
                f"The {role} files do not share one schema: {str(path)!r} has "
                f"{_describe(schema, first[1])} compared with {str(first[0])!r}. "
                "Hint: cast the columns to the same types in every file, or read them separately."
            )
            raise TableFileError(msg)
    return first[1] if first is not None else pl.Schema()


def _describe(schema: pl.Schema, reference: pl.Schema) -> str:
    parts = []
    for name, dtype in schema.items():
        if name not in reference:
            parts.append(f"an extra column {name!r}")
        elif reference[name] != dtype:
            parts.append(f"column {name!r} as {dtype} (not {reference[name]})")
    parts += [f"no column {name!r}" for name in reference if name not in schema]
    return ", ".join(parts) or "its columns in another order"


def find_bad_json_line(path: Path) -> tuple[int, str, str] | None:
    """(1-based line number, line, reason) of the first line that is not one JSON object."""
    with path.open("rb") as raw:
        gzipped = raw.read(2) == b"\x1f\x8b"
    with gzip.open(path, "rt", encoding="utf-8") if gzipped else path.open(encoding="utf-8") as fh:
        try:
            for lineno, line in enumerate(fh, start=1):
                if not line.strip():
                    continue
                try:
                    value = json.loads(line)
                except json.JSONDecodeError as exc:
                    return lineno, line.rstrip("\r\n"), exc.msg
                if not isinstance(value, dict):
                    return lineno, line.rstrip("\r\n"), f"a JSON {type(value).__name__}, not an object"
        except (UnicodeDecodeError, OSError, EOFError):
            return None
    return None
