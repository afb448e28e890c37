"""Read runs, judgments and query logs stored as tables (parquet, CSV, TSV, JSON lines).

The format comes from the file name (``.parquet``/``.pq``, ``.csv``, ``.tsv``/``.tab``,
``.jsonl``/``.ndjson``, ``.json``; a trailing ``.gz`` is allowed for the text formats)
or from ``format=``.  ``columns`` renames columns on the way in, so a log with ``qid``
and ``docno`` columns needs no conversion step.  Identifier columns (``query_id`` and
``doc_id`` after renaming) are read as strings, so ``301`` in a CSV joins with ``"301"``
from a TREC file.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Literal

import polars as pl

from irframe.exceptions import ColumnNotFoundError, InvalidDataError, InvalidParameterError
from irframe.io._files import (
    TableFileError,
    check_parquet_files,
    expand_paths,
    find_bad_json_line,
    polars_reason,
)
from irframe.io._source import FilePermissionError

Source = str | os.PathLike[str] | Sequence[str | os.PathLike[str]]

__all__ = ["TableFileError", "TableFormat", "detect_format", "read_table", "scan_table"]

TableFormat = Literal["parquet", "csv", "tsv", "jsonl", "json"]
TableRole = Literal["run", "qrels"]

_EXTENSIONS: dict[str, TableFormat] = {
    ".parquet": "parquet",
    ".pq": "parquet",
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "json",
}
_FORMATS: tuple[str, ...] = ("parquet", "csv", "tsv", "jsonl", "json")
_ID_COLUMNS = ("query_id", "doc_id")


def detect_format(path: str | os.PathLike[str]) -> TableFormat | None:
    """Table format from the file name, or ``None`` when the name does not tell.

    Examples
    --------
    >>> detect_format("logs/clicks.parquet"), detect_format("run.tsv.gz"), detect_format("bm25.run")
    ('parquet', 'tsv', None)
    """
    suffixes = [s.lower() for s in Path(path).suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes = suffixes[:-1]
    return _EXTENSIONS.get(suffixes[-1]) if suffixes else None


def _is_one(path: Source) -> bool:
    return isinstance(path, str | os.PathLike)


def _format_of_files(path: Source) -> TableFormat | None:
    """The one table format of the files a directory or a list holds (None: unknown or several)."""
    files = expand_paths(path)
    found = {detect_format(f) for f in files}
    if len(found) > 1 and None not in found:
        names = ", ".join(sorted(str(f) for f in found))
        msg = f"The files of {_shown(path)} are of several table formats ({names}). Hint: read each alone."
        raise InvalidParameterError(msg)
    known = sorted(str(f) for f in found if f is not None)
    if None in found and len(known) == 1:  # a README beside the parquet files: name it
        odd = [f.name for f in files if detect_format(f) is None]
        shown = ", ".join(repr(n) for n in odd[:3]) + (f" and {len(odd) - 3} more" if len(odd) > 3 else "")
        glob = f"*.{known[0]}"
        if _is_one(path):
            glob = os.path.join(os.fspath(path), glob)  # type: ignore[arg-type]
        msg = (
            f"The files of {_shown(path)} are {known[0]} files, but {shown} is not a {known[0]} file, "
            f"and every file there would be read. Hint: move it out, or name the files with a glob, "
            f"e.g. {glob!r}."
        )
        raise InvalidParameterError(msg)
    return found.pop() if len(found) == 1 else None


def _shown(path: Source) -> str:
    if _is_one(path):
        return repr(os.fspath(path))  # type: ignore[arg-type]
    items = [os.fspath(p) for p in path]  # type: ignore[union-attr]
    return f"{items[0]!r} and {len(items) - 1} more" if len(items) > 1 else repr(items[0])


def _resolve_format(path: Source, fmt: str | None, where: str) -> TableFormat:
    if fmt is not None:
        if fmt not in _FORMATS:
            err = InvalidParameterError.for_value(
                "format", where, "one of " + ", ".join(map(repr, _FORMATS)), fmt
            )
            raise err
        return fmt  # type: ignore[return-value]
    one_file = _is_one(path) and not Path(path).is_dir()  # type: ignore[arg-type]
    found = detect_format(path) if one_file else _format_of_files(path)  # type: ignore[arg-type]
    if found is None:
        msg = (
            f"Cannot tell the table format of {_shown(path)} from its name. "
            "Hint: pass format='parquet', 'csv', 'tsv', 'jsonl' or 'json' "
            "(TREC run and qrels files are read with read_trec_run / read_trec_qrels)."
        )
        raise InvalidParameterError(msg)
    return found


def _files(path: Source, fmt: TableFormat) -> list[Path]:
    """The files behind ``path`` (files, globs, directories), checked as far as can be without reading."""
    files = expand_paths(path)
    for f in files:
        if not os.access(f, os.R_OK):
            msg = f"Cannot read {str(f)!r}: permission denied. Hint: check the file's permissions (ls -l)."
            raise FilePermissionError(msg)
    if fmt == "parquet":
        check_parquet_files(files)
    return files


def _string_overrides(mapping: Mapping[str, str]) -> dict[str, pl.DataType]:
    """Schema overrides for text formats: the source names of the id columns, as strings."""
    inverse = {target: source for source, target in mapping.items()}
    return {inverse.get(c, c): pl.String() for c in _ID_COLUMNS}


def _scan(
    files: list[Path],
    fmt: TableFormat,
    mapping: Mapping[str, str],
    role: TableRole | None = None,
    *,
    hive: bool,
) -> pl.LazyFrame:
    source: Path | list[Path] = files[0] if len(files) == 1 else files
    sep = "," if fmt == "csv" else "\t"
    if fmt == "parquet":  # a directory's key=value folders are columns, as polars reads them
        return pl.scan_parquet(files, hive_partitioning=True) if hive else pl.scan_parquet(source)
    if fmt in ("csv", "tsv"):
        # header names are only known after reading; overrides for absent names are ignored
        header = pl.scan_csv(files[0], separator=sep, n_rows=0).collect_schema()
        overrides = {k: v for k, v in _string_overrides(mapping).items() if k in header}
        return pl.scan_csv(
            source,
            separator=sep,
            schema_overrides=overrides,
            infer_schema_length=10_000,
        )
    if fmt == "jsonl":
        return pl.scan_ndjson(source, infer_schema_length=10_000)
    return pl.concat([_read_json(f, role) for f in files], how="vertical").lazy()


def _read_json(path: Path, role: TableRole | None) -> pl.DataFrame:
    """A JSON file: an array of records (polars), or ranx's ``{query_id: {doc_id: value}}``
    (``Run.save`` / ``Qrels.save``) in the long format: a run's ``score``s, the qrels'
    ``relevance`` grades.

    The role is ``role``; unset, real-valued values make a run (ranx's qrels grades are
    integers), and integer values raise: they may be grades or integer scores.
    """
    with path.open("rb") as fh:
        start = fh.read(64).lstrip()
    if not start.startswith(b"{"):
        return pl.read_json(path)
    import json

    from irframe._input.peers import nested_frame

    data = json.loads(path.read_bytes())
    if not isinstance(data, dict) or not data or not all(isinstance(v, dict) for v in data.values()):
        return pl.read_json(path)
    if role is None:
        reals = any(isinstance(x, float) for v in data.values() for x in v.values())
        if not reals:
            msg = (
                f"{str(path)!r} is a ranx-style JSON dict {{query_id: {{doc_id: value}}}} with "
                "integer values: they are qrels grades or a run's integer scores. Hint: say "
                "which, read_table(path, role='qrels') or role='run'."
            )
            raise InvalidDataError(msg)
        role = "run"
    return nested_frame(data, role, f"{role} in {str(path)!r}")


def _read_error(exc: BaseException, files: list[Path], fmt: TableFormat) -> TableFileError:
    """The error to raise when polars cannot read ``files``: the file (and line) to blame."""
    if fmt == "jsonl":
        for f in files:
            bad = find_bad_json_line(f)
            if bad is not None:
                lineno, line, reason = bad
                shown = line if len(line) <= 200 else line[:200] + "..."
                return TableFileError(f"{f}:{lineno}: malformed JSON line: {reason}: {shown!r}")
    where = repr(str(files[0])) if len(files) == 1 else f"{len(files)} files from {str(files[0])!r} on"
    return TableFileError(f"Cannot read {where} as {fmt}: {polars_reason(exc)}")


def _apply_mapping(lf: pl.LazyFrame, mapping: Mapping[str, str], name: str) -> pl.LazyFrame:
    """Rename ``mapping``'s columns (each must exist) and cast the id columns to strings."""
    available = lf.collect_schema().names()
    for source, target in mapping.items():
        if source not in available:
            err = ColumnNotFoundError.from_missing(
                role=target, missing=source, available=available, frame="table", parameter="columns"
            )
            text = str(err).replace("The table frame has", f"The file {name!r} has", 1)
            raise ColumnNotFoundError(text.replace("columns=", "columns={...: ...}"))
    lf = lf.rename(dict(mapping))
    present = lf.collect_schema()
    casts = [pl.col(c).cast(pl.String) for c in _ID_COLUMNS if c in present and present[c] != pl.String]
    return lf.with_columns(casts) if casts else lf


def scan_table(
    path: Source,
    *,
    columns: Mapping[str, str] | None = None,
    format: TableFormat | None = None,
    role: TableRole | None = None,
) -> pl.LazyFrame:
    """Lazily scan a parquet, CSV, TSV or JSON-lines table, renaming columns on the way.

    Parameters
    ----------
    path : str, Path or a list of them
        The file, a glob (``"logs/*.parquet"``), a directory (its files, recursively;
        for parquet, ``key=value`` folders become columns, as polars reads them) or a
        list of these: files of one format and one schema, read as one table.
    columns : mapping of str to str, optional
        ``{name in the file: name irframe expects}``, e.g. ``{"qid": "query_id"}``.
    format : {"parquet", "csv", "tsv", "jsonl", "json"}, optional
        Override the format detected from the file extension.
    role : {"run", "qrels"}, optional
        For a JSON dict of dicts (ranx's files, see :func:`read_table`): what its values are.

    Returns
    -------
    polars.LazyFrame

    Raises
    ------
    ColumnNotFoundError
        When a column named in ``columns`` is not in the file (checked on the schema,
        before reading any data).
    TableFileError
        When a parquet file is corrupt, truncated or not parquet, or the files of a glob
        differ in schema (checked on the footers).  Problems found only while reading the
        data (a malformed CSV or JSON line) surface when the frame is collected; use
        :func:`read_table` to have them name the file and line.
    MissingFileError
        When the path or glob names no file (also a ``FileNotFoundError``).

    Examples
    --------
    >>> import tempfile, pathlib, polars as pl
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "clicks.parquet"
    >>> pl.DataFrame({"qid": [1, 1], "docno": ["a", "b"], "clicks": [3, 0]}).write_parquet(p)
    >>> scan_table(p, columns={"qid": "query_id", "docno": "doc_id"}).collect_schema()
    Schema([('query_id', String), ('doc_id', String), ('clicks', Int64)])

    A partitioned log, by its directory:

    >>> log = pathlib.Path(tempfile.mkdtemp())
    >>> for day in (1, 2):
    ...     (log / f"day={day}").mkdir()
    ...     pl.DataFrame({"query_id": [f"q{day}"], "doc_id": ["a"]}).write_parquet(log / f"day={day}/0.pq")
    >>> scan_table(log).collect().rows()
    [('q1', 'a', 1), ('q2', 'a', 2)]
    """
    mapping = dict(columns or {})
    fmt = _resolve_format(path, format, "scan_table")
    files = _files(path, fmt)
    hive = _is_one(path) and Path(path).is_dir()  # type: ignore[arg-type]
    try:
        lf = _scan(files, fmt, mapping, role, hive=hive)
        return _apply_mapping(lf, mapping, _shown(path).strip("'"))
    except (pl.exceptions.PolarsError, OSError) as exc:  # a header or schema that cannot be read
        raise _read_error(exc, files, fmt) from None


def read_table(
    path: Source,
    *,
    columns: Mapping[str, str] | None = None,
    format: TableFormat | None = None,
    role: TableRole | None = None,
) -> pl.DataFrame:
    """Read a parquet, CSV, TSV or JSON-lines table, renaming columns on the way.

    Parameters
    ----------
    path : str, Path or a list of them
        The file, a glob, a directory or a list of these (see :func:`scan_table`): files
        with one schema; the format is taken from the extension unless ``format`` is given.
    columns : mapping of str to str, optional
        ``{name in the file: name irframe expects}``, e.g. ``{"qid": "query_id"}``.
        Other columns are kept as they are.
    format : {"parquet", "csv", "tsv", "jsonl", "json"}, optional
        Override the format detected from the file extension.
    role : {"run", "qrels"}, optional
        What a JSON dict of dicts holds.  ranx saves a ``Run`` or ``Qrels`` as
        ``{query_id: {doc_id: value}}``: it is read in the long format, with the values
        as ``score`` (a run) or ``relevance`` (qrels, whole numbers).  Unset, real-valued
        values are read as a run and integer values raise (grades or integer scores:
        say which).  Other JSON (an array of records) ignores it.

    Returns
    -------
    polars.DataFrame
        With ``query_id`` and ``doc_id`` (after renaming) as strings.

    Raises
    ------
    ColumnNotFoundError
        When a column named in ``columns`` is not in the file; the message names the
        file and lists the columns it has.
    TableFileError
        When a file cannot be read (corrupt, truncated, not of its format, a schema
        unlike its siblings'); for JSON lines the message names the file and the line.
    MissingFileError
        When the path or glob names no file (also a ``FileNotFoundError``).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "judgments.csv"
    >>> _ = p.write_text("qid,docno,label\\n301,d1,2\\n301,d2,0\\n")
    >>> read_table(p, columns={"qid": "query_id", "docno": "doc_id", "label": "relevance"})
    shape: (2, 3)
    ┌──────────┬────────┬───────────┐
    │ query_id ┆ doc_id ┆ relevance │
    │ ---      ┆ ---    ┆ ---       │
    │ str      ┆ str    ┆ i64       │
    ╞══════════╪════════╪═══════════╡
    │ 301      ┆ d1     ┆ 2         │
    │ 301      ┆ d2     ┆ 0         │
    └──────────┴────────┴───────────┘
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "run.json"  # ranx's Run.save("run.json")
    >>> _ = p.write_text('{"q1": {"d1": 0.9, "d2": 0.5}}')
    >>> read_table(p).rows()
    [('q1', 'd1', 0.9), ('q1', 'd2', 0.5)]
    """
    lf = scan_table(path, columns=columns, format=format, role=role)
    try:
        return lf.collect()
    except (pl.exceptions.PolarsError, OSError) as exc:
        fmt = _resolve_format(path, format, "read_table")
        raise _read_error(exc, expand_paths(path), fmt) from None
