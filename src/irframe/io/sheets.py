r"""Judging sheets: the pairs to judge written out with an empty grade column, and read back.

A sheet is a TSV, CSV or parquet table (the format from the file name, or ``format=``)
with the pool's columns and an empty ``grade`` column, plus ``judge`` and ``judged_at``
columns for who judged a row and when; or a TREC qrels stub, one ``query 0 doc ?`` line
per pair, its ``?`` to be replaced by the grade.  Every writer here writes atomically: to
a temporary file in the target's directory, renamed over the target once complete, so
an interrupted write never leaves a half-written sheet or qrels file behind.

Examples
--------
>>> import tempfile, pathlib, polars as pl
>>> pairs = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["d7", "d2"], "priority": [1.6, 1.0]})
>>> out = pathlib.Path(tempfile.mkdtemp()) / "to_judge.tsv"
>>> write_judging_sheet(pairs, out)
>>> print(out.read_text().replace("\t", " | "), end="")
query_id | doc_id | grade | judge | judged_at | priority
q1 | d7 |  |  |  | 1.6
q1 | d2 |  |  |  | 1.0
>>> read_judging_sheet(out).columns
['query_id', 'doc_id', 'grade', 'judge', 'judged_at', 'priority']
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal, TextIO

import polars as pl

from irframe.exceptions import InvalidDataError, InvalidParameterError
from irframe.io._atomic import atomic_write
from irframe.io._lines import raise_bad_line
from irframe.io._parse import QRELS, WS
from irframe.io._source import PathOrFile, open_source
from irframe.io._write import write_frame
from irframe.io.trec import _check_ids, _need, _to_polars

__all__ = [
    "SHEET_FORMATS", "SheetFormat", "atomic_write", "read_judging_sheet", "sheet_format",
    "write_judging_sheet", "write_qrels_stub",
]  # fmt: skip

SheetFormat = Literal["tsv", "csv", "parquet", "trec"]
Target = str | os.PathLike[str] | TextIO  # a path, written atomically, or a text stream
SHEET_FORMATS: tuple[str, ...] = ("tsv", "csv", "parquet", "trec")
PLACEHOLDER = "?"  # the grade field of a qrels stub line not yet judged
_SUFFIXES: dict[str, SheetFormat] = {
    ".tsv": "tsv", ".tab": "tsv", ".csv": "csv", ".parquet": "parquet", ".pq": "parquet",
    ".qrels": "trec", ".trec": "trec", ".txt": "trec",
}  # fmt: skip
# the pool's statistics go after the grade columns: the judge reads ids, texts, then grades
_POOL_STATS = ("priority", "n_systems", "best_rank")


def sheet_format(path: str | os.PathLike[str], format: str | None, where: str) -> SheetFormat:
    """The sheet format: ``format`` when given, else from the file name's suffix.

    Examples
    --------
    >>> sheet_format("to_judge.tsv", None, "write_judging_sheet"), sheet_format("x", "trec", "w")
    ('tsv', 'trec')
    """
    if format is not None:
        if format not in SHEET_FORMATS:
            raise InvalidParameterError.for_value(
                "format", where, "one of 'tsv', 'csv', 'parquet', 'trec'", format
            )
        return format  # type: ignore[return-value]
    found = _SUFFIXES.get(Path(path).suffix.lower())
    if found is None:
        msg = (
            f"{where} cannot tell the format of {str(path)!r} from its name. Hint: name it .tsv, .csv, "
            ".parquet or .qrels, or pass format='tsv' (or 'csv', 'parquet', 'trec')."
        )
        raise InvalidParameterError(msg)
    return found


def _sheet_columns(frame: pl.DataFrame, added: list[str]) -> list[str]:
    stats = [c for c in _POOL_STATS if c in frame.columns]
    rest = [c for c in frame.columns if c not in stats and c not in added]
    return [*rest, *added, *stats]


def write_judging_sheet(
    frame: Any,
    path: Target,
    *,
    format: str | None = None,
    query_col: str = "query_id",
    doc_col: str = "doc_id",
    grade_col: str = "grade",
    judge_col: str | None = "judge",
    timestamp_col: str | None = "judged_at",
) -> None:
    """Write the pairs to judge as a sheet with an empty grade column, atomically.

    Parameters
    ----------
    frame : polars or pandas DataFrame (or LazyFrame)
        The pairs, e.g. :attr:`irframe.Pool.to_judge`: the query and doc id columns and
        anything else to show the judge (texts, the pool's priority...).
    path : str, Path or text stream
        The sheet file, replaced atomically (or a stream such as ``sys.stdout``, for the
        text formats).
    format : {"tsv", "csv", "parquet", "trec"}, optional
        Default from the name (``.tsv``, ``.csv``, ``.parquet``, ``.qrels``/``.trec``/``.txt``).
        ``"trec"`` writes a qrels stub (:func:`write_qrels_stub`).
    query_col, doc_col : str
        The id columns.
    grade_col : str, default "grade"
        The empty grade column added (kept as it is when the frame has it).
    judge_col, timestamp_col : str or None, default "judge", "judged_at"
        Empty columns for who judged a row and when (an ISO 8601 time, e.g.
        ``2024-05-01T14:03``); ``None`` leaves one out.  :func:`irframe.add_judgments`
        keeps them.

    Notes
    -----
    The columns are the frame's, then the grade (and judge, time) columns, then the
    pool's ``priority``, ``n_systems`` and ``best_rank`` when present.  In TSV and CSV
    a field holding the separator, a quote or a line break is quoted (as spreadsheets
    read it); parquet gives the grade column the Float64 dtype, the others String.

    Examples
    --------
    >>> import tempfile, pathlib, polars as pl
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "to_judge.csv"
    >>> pairs = pl.DataFrame({"query_id": ["q1"], "doc_id": ["d7"], "doc_text": ["Cheap, fast"]})
    >>> write_judging_sheet(pairs, out, judge_col=None, timestamp_col=None)
    >>> print(out.read_text(), end="")
    query_id,doc_id,doc_text,grade
    q1,d7,"Cheap, fast",
    """
    fmt = sheet_format(_name(path), format, "write_judging_sheet")
    df = _to_polars(frame, "sheet")
    _need(df, query_col, "query_id", "sheet")
    _need(df, doc_col, "doc_id", "sheet")
    if fmt == "trec":
        _write(_stub_lines(df, query_col, doc_col), path, fmt)
        return
    added = {grade_col: pl.Float64, judge_col: pl.String, timestamp_col: pl.String}
    new = {c: t for c, t in added.items() if c is not None and c not in df.columns}
    df = df.with_columns(pl.lit(None, dtype=t).alias(c) for c, t in new.items())
    _write(df.select(_sheet_columns(df, [c for c in added if c is not None and c in new])), path, fmt)


def _name(path: Target) -> str:
    return str(path) if isinstance(path, str | os.PathLike) else str(getattr(path, "name", "<stream>"))


def _write(df: pl.DataFrame, path: Target, fmt: str) -> None:
    """``df`` as ``fmt`` (``trec``: its one column of lines) to a path, atomically, or to a text stream."""
    if fmt == "parquet" and not isinstance(path, str | os.PathLike):
        msg = "A parquet sheet needs a file path, not a stream. Hint: pass a path, or format='tsv'."
        raise InvalidParameterError(msg)
    write_frame(df, path, "lines" if fmt == "trec" else fmt)  # type: ignore[arg-type]


def write_qrels_stub(
    frame: Any, path: Target, *, query_col: str = "query_id", doc_col: str = "doc_id"
) -> None:
    """Write the pairs to judge as TREC qrels lines ``query 0 doc ?``, in frame order, atomically.

    Replace each ``?`` by the grade; :func:`read_judging_sheet` reads the file back (a
    ``?`` left is a pair not judged yet), and so does :func:`irframe.io.read_trec_qrels`
    once every ``?`` is replaced.

    Examples
    --------
    >>> import tempfile, pathlib, polars as pl
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "to_judge.qrels"
    >>> write_qrels_stub(pl.DataFrame({"query_id": ["q2", "q1"], "doc_id": ["d1", "d9"]}), out)
    >>> print(out.read_text(), end="")
    q2 0 d1 ?
    q1 0 d9 ?
    """
    df = _to_polars(frame, "sheet")
    _need(df, query_col, "query_id", "sheet")
    _need(df, doc_col, "doc_id", "sheet")
    _write(_stub_lines(df, query_col, doc_col), path, "trec")


def _stub_lines(df: pl.DataFrame, query_col: str, doc_col: str) -> pl.DataFrame:
    ids = df.select(
        pl.col(query_col).cast(pl.String).alias("__q"), pl.col(doc_col).cast(pl.String).alias("__d")
    )
    _check_ids(ids, ["__q", "__d"], "sheet", [query_col, doc_col])
    line = pl.concat_str([pl.col("__q"), pl.lit("0"), pl.col("__d"), pl.lit(PLACEHOLDER)], separator=" ")
    return ids.select(line.alias("line"))


def _read_stub(path: PathOrFile, grade_col: str) -> pl.DataFrame:
    """A qrels stub: ``query iter doc grade`` lines, ``?`` for not judged; grades as text."""
    with open_source(path) as src:
        text = src.stream.read().decode("utf-8")
        name = src.name
    lines = pl.DataFrame({"line": text.splitlines()}).with_row_index("lineno", offset=1)
    lines = lines.filter(~pl.col("line").str.contains(r"^" + WS + r"*(#|$)"))
    parts = lines.with_columns(pl.col("line").str.extract_groups(QRELS.pattern).alias("g")).unnest("g")
    bad = parts.filter(pl.col("1").is_null())
    if bad.height:
        lineno, line = bad.row(0)[:2]
        reason = "expected 4 whitespace-separated fields (query iter doc grade, '?' when not judged)"
        raise_bad_line(int(lineno), line, name=name, what="qrels stub", reason=reason, n_more=bad.height - 1)
    grade = pl.when(pl.col("3") != PLACEHOLDER).then(pl.col("3"))
    return parts.select(pl.col("1").alias("query_id"), pl.col("2").alias("doc_id"), grade.alias(grade_col))


def read_judging_sheet(
    path: PathOrFile,
    *,
    format: str | None = None,
    grade_col: str = "grade",
) -> pl.DataFrame:
    """Read a judging sheet back (TSV, CSV, parquet, or a TREC qrels stub), for
    :func:`irframe.add_judgments`.

    TSV and CSV columns are read as text (ids keep leading zeros; grades are parsed and
    checked by :func:`irframe.add_judgments`, empty fields are null); a qrels stub gives
    ``query_id``, ``doc_id`` and ``grade_col`` (null where the ``?`` is left).  Rows whose
    every field is empty (the ``,,`` lines a spreadsheet saves after the last row) are
    blank lines, not rows.  A text sheet read as one column whose name holds another
    separator (``;``, a tab) is refused naming it.

    Examples
    --------
    >>> import io
    >>> read_judging_sheet(io.BytesIO(b"q1 0 d7 2\\nq1 0 d2 ?\\n"), format="trec").rows()
    [('q1', 'd7', '2'), ('q1', 'd2', None)]
    """
    name = getattr(path, "name", path) if not isinstance(path, str | os.PathLike) else path
    fmt = sheet_format(str(name), format, "read_judging_sheet")
    if fmt == "trec":
        return _read_stub(path, grade_col)
    if fmt == "parquet":
        return pl.read_parquet(path)  # type: ignore[arg-type]
    separator = "\t" if fmt == "tsv" else ","
    df = pl.read_csv(path, separator=separator, infer_schema=False)  # type: ignore[arg-type]
    _refuse_other_separator(df, separator, str(name))
    return df.filter(~pl.all_horizontal(pl.all().is_null() | (pl.all().str.strip_chars() == "")))


def _refuse_other_separator(df: pl.DataFrame, separator: str, name: str) -> None:
    """A sheet read as one column whose name holds ``;``, a tab or ``,``: another separator."""
    if df.width != 1:
        return
    for other, said in ((";", "';'"), ("\t", "a tab"), (",", "','"), ("|", "'|'")):
        if other != separator and other in df.columns[0]:
            expected = "a tab" if separator == "\t" else repr(separator)
            msg = (
                f"{name}: the sheet's fields are separated by {said}, not {expected} (one column "
                f"{df.columns[0]!r} was read). Hint: save it again as CSV with ',' or as TSV "
                "(a spreadsheet in a locale with decimal commas writes ';')."
            )
            raise InvalidDataError(msg)
