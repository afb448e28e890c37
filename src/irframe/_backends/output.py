"""The out-of-core backend's ``output=`` file, checked before anything is read.

:func:`check_output` refuses an output path that would destroy or pollute an input:

* one of the input files: the run's files (a path, every file of a directory, every
  match of a glob, a list of them), the qrels' files, a queries table given as a path
  (:func:`irframe.io._atomic.refuse_input_as_output`, links and ``./`` resolved);
* a file the next run of the same call would read as part of an input: inside an input
  directory, or matched by an input glob (polars reads every file there, names starting
  with ``.`` or ``_`` included);
* a path that cannot be written at all: a directory, or in a directory that does not
  exist (refused now, not after the whole evaluation).

The file itself is written by :func:`irframe.io._atomic.atomic_write` (a temporary file
beside it, then one rename).
"""

from __future__ import annotations

import errno
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from irframe.exceptions import InvalidParameterError, MissingFileError, OutputFileError
from irframe.io._atomic import refuse_input_as_output
from irframe.io._files import expand_paths

__all__ = ["check_output"]


def _items(given: Any) -> list[str | os.PathLike[str]]:
    """The paths of an input (none for a frame)."""
    if isinstance(given, str | os.PathLike):
        return [given]
    if isinstance(given, list | tuple) and all(isinstance(g, str | os.PathLike) for g in given):
        return list(given)
    return []


def _files(item: str | os.PathLike[str]) -> list[Path]:
    """The files an input path stands for now (none when it matches nothing: the scan says so)."""
    try:
        return expand_paths(item)
    except MissingFileError:
        return []


def _writable(output: Any, where: str) -> None:
    if not isinstance(output, str | os.PathLike):
        raise InvalidParameterError.for_value("output", where, "a path to a parquet file", output)
    out = Path(output)
    if out.is_dir():
        msg = f"Could not write {str(output)!r}: it is a directory. Hint: give a file name (x.parquet)."
        raise OutputFileError(errno.EISDIR, msg, str(output))
    if not out.resolve().parent.is_dir():
        msg = (
            f"Could not write {str(output)!r}: the directory {str(out.parent)!r} does not exist. "
            "Hint: create it first, or write elsewhere."
        )
        raise OutputFileError(errno.ENOENT, msg, str(output))


def check_output(output: Any, inputs: Mapping[str, Any], where: str = "evaluate_parquet") -> None:
    """Refuse an ``output`` path that is, or would become, one of ``inputs`` (``{role:
    path, list of paths, or a frame}``), or that cannot be written (see the module).

    Examples
    --------
    >>> import pathlib, tempfile, polars as pl
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> pl.DataFrame({"query_id": ["q1"]}).write_parquet(d / "run.parquet")
    >>> check_output(d / "means.parquet", {"run": d / "run.parquet"})  # another file: fine
    >>> check_output(d / "means.parquet", {"run": str(d / "*.parquet")})
    Traceback (most recent call last):
    ...
    irframe.exceptions.InvalidParameterError: evaluate_parquet would write its output ...
    """
    _writable(output, where)
    for role, given in inputs.items():
        for item in _items(given):
            for path in [*_files(item), item]:  # (its files first: "over", then where it reads)
                refuse_input_as_output(output, {role: path}, where, parameter="output")
