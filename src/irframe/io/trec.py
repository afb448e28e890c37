"""Read and write TREC run and qrels files exactly as trec_eval reads them.

Parsing rules (the same for every reader here):

* Lines end with ``\n``, ``\r\n`` or a lone ``\r`` (classic Mac OS files).  Fields are
  separated by any run of ASCII whitespace (space, tab, vertical tab, form feed).
* Blank lines are skipped, always; so are comment lines, whose first non-blank
  character is ``#`` (trec_eval 10.0).  A ``#`` inside a field (``CR#93E-1860``) is data.
* Run lines have **six or more** fields ``query iter doc rank score tag``; fields after the
  sixth are ignored and so are ``iter`` and ``rank`` (trec_eval ranks by score).
* Qrels lines have **exactly four** fields ``query iter doc relevance``.
* Scores are parsed as float64 (no precision lost: ``0.1234567891`` and ``0.1234567892``
  stay distinct).
* Grades are read as int64.  If a grade is fractional (``0.5``) the whole column is kept
  as float64 instead of being truncated; the engine decides what a fractional grade means.
* Gzip files are detected by their magic bytes, whatever their name, and decompressed
  while reading.  A UTF-8 byte-order mark at the start of the file is skipped.
* The text must be UTF-8 (any valid UTF-8, ``U+FFFD`` included).  A NUL byte or another
  control byte that is not whitespace (``\x01``-``\x08``, ``\x0e``-``\x1f``) is
  binary data: an error.
* A line longer than 1 MiB (:data:`irframe.io._lines.LINE_LIMIT`) is an error: no TREC
  line is that long, and refusing it early keeps a wrong or hostile file (one huge line,
  a gzip bomb) from taking gigabytes.  Reading holds a few MiB of the file at a time, so
  memory follows the size of the result, not of the file.
* A malformed line raises :class:`TrecFormatError` naming the file and the 1-based line
  number (blank and comment lines counted, as an editor shows) and quoting the whole line.

Divergences from trec_eval
--------------------------
Every place where these readers do not read a file as trec_eval 10.0 does, on purpose:

* **A query id starting with** ``#``: the line is a comment and skipped, as in
  trec_eval 10.0 (older trec_eval versions and other tools read it as data).
* **A score that is not a number** (``1.5x``, ``high``, ``nan``) is an error; trec_eval's
  ``atof`` reads its numeric prefix, or 0.
* **A grade written as a float**: ``2.0`` is read as 2, as trec_eval's ``atol`` reads it;
  a grade in exponent notation whose value is not its integer prefix (``1e2``: trec_eval
  reads 1, a float reader 100) is an error naming it (the file reads two ways).  A
  fractional grade (``0.5``) is kept as a float rather than truncated to 0.
* **Odd bytes**: a NUL or control byte, text that is not UTF-8 and lines over 1 MiB are
  errors; trec_eval reads them as data (or stops at a NUL).
* **A lone** ``\r`` ends a line; trec_eval reads it as whitespace inside one line.
* **A UTF-8 byte-order mark** at the start is skipped; trec_eval keeps it in the first id.

The files are split by polars' CSV reader when their fields are separated by single spaces
or single tabs (the common case), and otherwise by one regular expression in polars;
never by a Python loop over lines.  Both give the same rows.
"""

from __future__ import annotations

import gzip
import os
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, overload

import polars as pl

from irframe._input.columns import ranking_order
from irframe.exceptions import ColumnNotFoundError, DuplicateRowsError, InvalidParameterError
from irframe.io._parse import QRELS, QRELS_SUBTOPICS, RUN, VALUE, WS, read_lines
from irframe.io._source import PathOrFile, TrecFormatError, json_nested, open_source, strip_suffixes

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "Backend",
    "TrecFormatError",
    "read_trec_qrels",
    "read_trec_run",
    "read_trec_runs",
    "trec_qrels_text",
    "write_trec_qrels",
    "write_trec_run",
]

Backend = Literal["polars", "pandas"]
_BACKENDS = ("polars", "pandas")


def _check_backend(backend: object, where: str) -> None:
    if backend not in _BACKENDS:
        raise InvalidParameterError.for_value("backend", where, "'polars' or 'pandas'", backend)


def _out(df: pl.DataFrame, backend: Backend) -> Any:
    """``df`` as the asked backend's frame (pandas is imported only when asked for)."""
    return df.to_pandas() if backend == "pandas" else df


def _system_name(system: bool | str) -> str | None:
    if system is True:
        return "system"
    if system is False or system is None:
        return None
    if isinstance(system, str) and system:
        return system
    err = InvalidParameterError.for_value(
        "system", "read_trec_run", "a bool or a non-empty column name", system
    )
    raise err


@overload
def read_trec_run(
    path_or_file: PathOrFile, *, system: bool | str = ..., backend: Literal["polars"] = ...
) -> pl.DataFrame: ...
@overload
def read_trec_run(
    path_or_file: PathOrFile, *, system: bool | str = ..., backend: Literal["pandas"]
) -> pd.DataFrame: ...
def read_trec_run(
    path_or_file: PathOrFile, *, system: bool | str = False, backend: Backend = "polars"
) -> pl.DataFrame | pd.DataFrame:
    """Read a TREC run file (``query Q0 doc rank score tag``) into a polars DataFrame.

    Parameters
    ----------
    path_or_file : str, Path or file object
        A path, or an open text or binary file.  Gzip is detected from the content.
        A JSON object ``{query_id: {doc_id: score}}`` (ranx's ``Run.save``) is read as
        the run it is given as (its tag: the file's name).
    system : bool or str, default False
        Also return the run tag (the sixth field, per line) as a column named
        ``"system"`` (``True``) or with the given name.
    backend : {"polars", "pandas"}, default "polars"
        The frame type returned (pandas is imported only when asked for).

    Returns
    -------
    polars.DataFrame or pandas.DataFrame
        Columns ``query_id`` (str), ``doc_id`` (str), ``score`` (f64) and optionally the
        tag column (str), in file order.  The rank field is not returned: like trec_eval,
        irframe ranks by score (ties: doc_id descending).

    Raises
    ------
    TrecFormatError
        For a line with fewer than six fields, a score that is not a number, binary
        data or a line over 1 MiB; the message gives the file, line number and line.
        See the module's "Divergences from trec_eval".

    See Also
    --------
    read_trec_runs : several runs stacked with a system column.
    write_trec_run : the inverse.

    Examples
    --------
    >>> import io
    >>> text = (
    ...     "# BM25 baseline\\nq1 Q0 d1 1 12.5 bm25\\n"
    ...     "q1\\tQ0\\td2\\t2\\t11.0\\tbm25\\n\\nq2 Q0 d7 1 3 bm25 extra\\n"
    ... )
    >>> read_trec_run(io.StringIO(text), system=True)
    shape: (3, 4)
    ┌──────────┬────────┬───────┬────────┐
    │ query_id ┆ doc_id ┆ score ┆ system │
    │ ---      ┆ ---    ┆ ---   ┆ ---    │
    │ str      ┆ str    ┆ f64   ┆ str    │
    ╞══════════╪════════╪═══════╪════════╡
    │ q1       ┆ d1     ┆ 12.5  ┆ bm25   │
    │ q1       ┆ d2     ┆ 11.0  ┆ bm25   │
    │ q2       ┆ d7     ┆ 3.0   ┆ bm25   │
    └──────────┴────────┴───────┴────────┘
    """
    tag_col = _system_name(system)
    _check_backend(backend, "read_trec_run")
    keep = ["query_id", "doc_id", VALUE, *(["_tag"] if tag_col is not None else [])]
    with open_source(path_or_file) as opened:
        src, nested = json_nested(opened)
        if nested is not None:  # ranx's Run.save: read as the run it is given as
            return _out(_nested_run(nested, src.name, tag_col), backend)
        df = read_lines(src, RUN, keep).rename({VALUE: "score"})
    if tag_col is not None:
        df = df.rename({"_tag": tag_col})
    return _out(df, backend)


def _nested_run(nested: dict[Any, Any], name: str, tag_col: str | None) -> pl.DataFrame:
    """ranx's JSON run ``{query_id: {doc_id: score}}`` in the long format; the tag (which the
    JSON has not) is the file's name."""
    from irframe._input.peers import nested_frame

    df = nested_frame(nested, "run", f"run in {name!r}").with_columns(pl.col("score").cast(pl.Float64))
    if tag_col is None:
        return df
    return df.with_columns(pl.lit(strip_suffixes(name).removesuffix(".json")).alias(tag_col))


@overload
def read_trec_runs(
    paths: Sequence[PathOrFile] | Mapping[str, PathOrFile],
    *,
    system: str = ...,
    backend: Literal["polars"] = ...,
) -> pl.DataFrame: ...
@overload
def read_trec_runs(
    paths: Sequence[PathOrFile] | Mapping[str, PathOrFile],
    *,
    system: str = ...,
    backend: Literal["pandas"],
) -> pd.DataFrame: ...
def read_trec_runs(
    paths: Sequence[PathOrFile] | Mapping[str, PathOrFile],
    *,
    system: str = "system",
    backend: Backend = "polars",
) -> pl.DataFrame | pd.DataFrame:
    """Read several TREC runs and stack them with a system column.

    The system name of each file is, in this order of preference:

    1. the key, when ``paths`` is a mapping ``{name: path}``;
    2. the run tag (sixth field) when every file has one single tag and the tags are
       all different;
    3. otherwise (tags that collide, like two runs both tagged ``STANDARD``, or a file
       with mixed tags) the file name without directory and suffixes, for every file:
       ``runs/bm25.run.gz`` becomes ``bm25``.  If those collide too, an error asks for a
       mapping.

    Parameters
    ----------
    paths : sequence of paths/files, or mapping of name to path/file
        The run files.
    system : str, default "system"
        Name of the system column.
    backend : {"polars", "pandas"}, default "polars"
        The frame type returned (pandas is imported only when asked for).

    Returns
    -------
    polars.DataFrame or pandas.DataFrame
        ``system`` (str), ``query_id`` (str), ``doc_id`` (str), ``score`` (f64), files
        in the given order.

    Examples
    --------
    >>> import io
    >>> a = io.StringIO("q1 Q0 d1 1 2.0 bm25\\nq1 Q0 d2 2 1.0 bm25\\n")
    >>> b = io.StringIO("q1 Q0 d2 1 0.9 dense\\n")
    >>> read_trec_runs([a, b])
    shape: (3, 4)
    ┌────────┬──────────┬────────┬───────┐
    │ system ┆ query_id ┆ doc_id ┆ score │
    │ ---    ┆ ---      ┆ ---    ┆ ---   │
    │ str    ┆ str      ┆ str    ┆ f64   │
    ╞════════╪══════════╪════════╪═══════╡
    │ bm25   ┆ q1       ┆ d1     ┆ 2.0   │
    │ bm25   ┆ q1       ┆ d2     ┆ 1.0   │
    │ dense  ┆ q1       ┆ d2     ┆ 0.9   │
    └────────┴──────────┴────────┴───────┘
    """
    if not system:
        err = InvalidParameterError.for_value("system", "read_trec_runs", "a column name", system)
        raise err
    _check_backend(backend, "read_trec_runs")
    items: list[tuple[str | None, PathOrFile]]
    if isinstance(paths, Mapping):
        items = [(str(k), v) for k, v in paths.items()]
    elif isinstance(paths, str | os.PathLike) or hasattr(paths, "read"):
        items = [(None, paths)]  # type: ignore[list-item]
    else:
        items = [(None, p) for p in paths]
    if not items:
        msg = "read_trec_runs needs at least one run file."
        raise InvalidParameterError(msg)
    frames = [read_trec_run(p, system="__tag") for _, p in items]
    names: list[str]
    if all(k is not None for k, _ in items):
        names = [str(k) for k, _ in items]
    else:
        tags = [f["__tag"].unique().to_list() for f in frames]
        single = [t[0] if len(t) == 1 else None for t in tags]
        if all(s is not None for s in single) and len(set(single)) == len(single):
            names = [str(s) for s in single]
        else:
            names = [strip_suffixes(_name_of(p, i)) for i, (_, p) in enumerate(items)]
            if len(set(names)) != len(names):
                dup = sorted({n for n in names if names.count(n) > 1})
                msg = (
                    f"Cannot name the runs: their tags and their file names collide ({dup}). "
                    "Hint: pass a mapping, read_trec_runs({'bm25': path1, 'dense': path2})."
                )
                raise InvalidParameterError(msg)
    stacked = pl.concat(
        [
            f.select(pl.lit(n, dtype=pl.String).alias(system), "query_id", "doc_id", "score")
            for n, f in zip(names, frames, strict=True)
        ],
        how="vertical",
    )
    return _out(stacked, backend)


def _name_of(obj: PathOrFile, i: int) -> str:
    if isinstance(obj, str | os.PathLike):
        return str(obj)
    name = getattr(obj, "name", None)
    return str(name) if isinstance(name, str) and name else f"run{i + 1}"


@overload
def read_trec_qrels(
    path_or_file: PathOrFile, *, backend: Literal["polars"] = ..., subtopics: bool = ...
) -> pl.DataFrame: ...
@overload
def read_trec_qrels(
    path_or_file: PathOrFile, *, backend: Literal["pandas"], subtopics: bool = ...
) -> pd.DataFrame: ...
def read_trec_qrels(
    path_or_file: PathOrFile, *, backend: Backend = "polars", subtopics: bool = False
) -> pl.DataFrame | pd.DataFrame:
    """Read a TREC qrels file (``query iter doc relevance``) into a polars DataFrame.

    Parameters
    ----------
    path_or_file : str, Path or file object
        A path, or an open text or binary file.  Gzip is detected from the content.
        A JSON object ``{query_id: {doc_id: grade}}`` (ranx's ``Qrels.save``, whose
        integer grades :func:`irframe.read_table` cannot tell from a run's scores) is
        read as the qrels it is given as.
    backend : {"polars", "pandas"}, default "polars"
        The frame type returned (pandas is imported only when asked for).
    subtopics : bool, default False
        Keep the second field as a ``subtopic`` column (str): the file is subtopic qrels
        (``query subtopic doc relevance``, ndeval's and ir_measures' reading, as in the
        TREC Web track's diversity qrels), which the diversity measures read
        (``alpha_nDCG@20``...).  By default the second field is ignored, as trec_eval does.

    Returns
    -------
    polars.DataFrame or pandas.DataFrame
        ``query_id`` (str), ``doc_id`` (str), ``relevance`` (i64; f64 when a grade is
        fractional), in file order (with ``subtopics``: ``query_id``, ``subtopic``,
        ``doc_id``, ``relevance``).  Negative grades are kept as they are.

    Raises
    ------
    TrecFormatError
        For a line without exactly four fields, with a grade that is not a number,
        binary data or a line over 1 MiB.  See the module's "Divergences from trec_eval".

    Examples
    --------
    >>> import io
    >>> read_trec_qrels(io.StringIO("q1 0 d1 2\\nq1 0 d2 0\\r\\n# note\\nq2\\t0\\td7\\t-1\\n"))
    shape: (3, 3)
    ┌──────────┬────────┬───────────┐
    │ query_id ┆ doc_id ┆ relevance │
    │ ---      ┆ ---    ┆ ---       │
    │ str      ┆ str    ┆ i64       │
    ╞══════════╪════════╪═══════════╡
    │ q1       ┆ d1     ┆ 2         │
    │ q1       ┆ d2     ┆ 0         │
    │ q2       ┆ d7     ┆ -1        │
    └──────────┴────────┴───────────┘
    >>> read_trec_qrels(io.StringIO("q1 1 d1 1\\nq1 2 d1 0\\n"), subtopics=True).rows()
    [('q1', '1', 'd1', 1), ('q1', '2', 'd1', 0)]
    """
    _check_backend(backend, "read_trec_qrels")
    if not isinstance(subtopics, bool):
        raise InvalidParameterError.for_value("subtopics", "read_trec_qrels", "a bool", subtopics)
    layout, ids = (
        (QRELS_SUBTOPICS, ["query_id", "subtopic", "doc_id"])
        if subtopics
        else (QRELS, ["query_id", "doc_id"])
    )
    with open_source(path_or_file) as opened:
        src, nested = json_nested(opened)
        if nested is not None:  # ranx's Qrels.save: read as the qrels it is
            return _out(_nested_qrels(nested, src.name, subtopics), backend)
        df = read_lines(src, layout, [*ids, "_text", VALUE]).rename({VALUE: "_rel_float"})
    df = df.with_columns(pl.col("_text").cast(pl.Int64, strict=False).alias("_rel_int"))
    if df["_rel_int"].null_count() == 0:
        rel = pl.col("_rel_int")
    elif (df["_rel_float"] == df["_rel_float"].round(0)).all():
        rel = pl.col("_rel_float").cast(pl.Int64, strict=False)
        if df.select(rel.null_count()).item() > 0:  # inf or out of range: keep floats
            rel = pl.col("_rel_float")
    else:
        rel = pl.col("_rel_float")
    return _out(df.select(*ids, rel.alias("relevance")), backend)


def _nested_qrels(nested: dict[Any, Any], name: str, subtopics: bool) -> pl.DataFrame:
    """ranx's JSON qrels ``{query_id: {doc_id: grade}}`` in the long format."""
    from irframe._input.peers import nested_frame

    if subtopics:
        msg = f"{name}: a JSON dict {{query_id: {{doc_id: grade}}}} (ranx's qrels) has no subtopics."
        raise TrecFormatError(msg)
    return nested_frame(nested, "qrels", f"qrels in {name!r}")


# --- writers -----------------------------------------------------------------------------
def _to_polars(df: Any, role: str) -> pl.DataFrame:
    from irframe._input.frames import to_lazy  # the one place that knows pandas

    return to_lazy(df, role)[0].collect()


def _need(df: pl.DataFrame, col: str, role: str, frame: str) -> None:
    if col not in df.columns:
        raise ColumnNotFoundError.from_missing(role=role, missing=col, available=df.columns, frame=frame)


def _write_text(lines: pl.DataFrame, path: str | os.PathLike[str]) -> None:
    """Write one pre-formatted string column, gzip-compressed when the name ends in ``.gz``, atomically."""
    from irframe.io._atomic import atomic_write

    with atomic_write(path) as tmp:
        if tmp.suffix == ".gz":
            text = lines.write_csv(include_header=False, quote_style="never")
            with gzip.open(tmp, "wb") as fh:
                fh.write(text.encode("utf-8"))
        else:
            lines.write_csv(tmp, include_header=False, quote_style="never")


def _check_ids(df: pl.DataFrame, cols: Sequence[str], frame: str, names: Sequence[str] = ()) -> None:
    """Refuse values a TREC file cannot hold: nulls, empty strings, whitespace."""
    for i, col in enumerate(cols):
        s = df[col]
        shown = names[i] if i < len(names) else col
        if s.null_count():
            msg = (
                f"The {frame} has {s.null_count()} null value(s) in column {shown!r}; "
                "TREC files cannot hold them."
            )
            raise TrecFormatError(msg)
        if s.dtype == pl.String and (s.str.len_bytes() == 0).any():
            msg = (
                f"The {frame} column {shown!r} has an empty value; a TREC file would lose "
                "the field. Hint: fill it, e.g. pl.col(...).replace('', 'unknown')."
            )
            raise TrecFormatError(msg)
        if s.dtype == pl.String and s.str.contains(WS).any():
            bad = s.filter(s.str.contains(WS))[0]
            msg = (
                f"The {frame} column {shown!r} has a value with whitespace ({bad!r}); "
                "TREC files are whitespace-separated. Hint: replace the spaces first."
            )
            raise TrecFormatError(msg)


def write_trec_run(
    df: Any,
    path: str | os.PathLike[str],
    *,
    tag: str = "irframe",
    tag_col: str | None = None,
    query_col: str = "query_id",
    doc_col: str = "doc_id",
    score_col: str = "score",
    rank_col: str = "rank",
) -> None:
    """Write a run as a TREC run file ``query Q0 doc rank score tag``.

    Documents are written in the table's evaluation order, the one ranking rule of
    :func:`irframe._input.columns.ranking_order`: by ``rank_col`` ascending when the frame has
    it, otherwise by score descending; ties (of rank or of score) broken by doc_id
    descending in byte order, integer ids compared as strings (trec_eval's order).
    Ranks are rewritten 1..n per query.  The score written is the
    frame's score when sorting by it gives the same order (so trec_eval, which ignores
    ranks, sees the same ranking); when there is no score column, or the scores
    disagree with the rank column, the score written is ``n - rank + 1`` so that the
    file still means the same ranking.  Queries keep their first-appearance order.
    Names ending in ``.gz`` are gzip-compressed.

    Parameters
    ----------
    df : polars or pandas DataFrame
        The run.
    path : str or Path
        Output file.
    tag : str, default "irframe"
        Run tag written in the sixth field: non-empty, without whitespace.
    tag_col : str, optional
        Take the tag from this column instead (e.g. ``"system"``).
    query_col, doc_col, score_col, rank_col : str
        Column names.

    Examples
    --------
    >>> import io, tempfile, pathlib, polars as pl
    >>> run = pl.DataFrame({"query_id": ["q1", "q1", "q1"], "doc_id": ["a", "b", "c"],
    ...                     "score": [1.0, 1.0, 3.0]})
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "my.run"
    >>> write_trec_run(run, out, tag="demo")
    >>> print(out.read_text(), end="")
    q1 Q0 c 1 3.0 demo
    q1 Q0 b 2 1.0 demo
    q1 Q0 a 3 1.0 demo
    """
    frame = _to_polars(df, "run")
    _check_run_frame(frame, tag=tag, tag_col=tag_col, query_col=query_col, doc_col=doc_col,
                     score_col=score_col, rank_col=rank_col)  # fmt: skip
    q, d = "__q", "__d"
    f = frame.with_columns(
        pl.col(query_col).cast(pl.String).alias(q),
        pl.col(doc_col).cast(pl.String).alias(d),
        pl.int_range(pl.len()).alias("__pos"),
    )
    _check_ids(f, [q, d], "run", [query_col, doc_col])
    if tag_col is not None:
        tags = f.select(pl.col(tag_col).cast(pl.String).alias("__t"))
        _check_ids(tags, ["__t"], "run", [tag_col])
    _check_run_duplicates(f, q, d, query_col, doc_col)
    has_rank, has_score = rank_col in frame.columns, score_col in frame.columns
    if has_score:
        f = f.with_columns(pl.col(score_col).cast(pl.Float64).alias("__s"))
    f = f.with_columns(pl.col("__pos").min().over(q).alias("__qpos"))
    # THE ranking rule (rank asc or score desc, ties by doc id descending), as evaluate uses
    by, descending = ranking_order("rank" if has_rank else "score", rank_col if has_rank else "__s", d)
    f = f.sort([pl.col("__qpos"), *by], descending=[False, *descending], nulls_last=True)
    f = f.with_columns(pl.int_range(1, pl.len() + 1).over(q).alias("__rank"))
    if has_score and _scores_give_this_order(f, q, d):
        score_text = pl.col("__s").cast(pl.String)
    else:
        score_text = (pl.len().over(q) - pl.col("__rank") + 1).cast(pl.Float64).cast(pl.String)
    tag_expr = pl.col(tag_col).cast(pl.String) if tag_col is not None else pl.lit(str(tag))
    fields = [pl.col(q), pl.lit("Q0"), pl.col(d), pl.col("__rank").cast(pl.String), score_text, tag_expr]
    _write_text(f.select(pl.concat_str(fields, separator=" ").alias("line")), path)


def _check_run_frame(
    frame: pl.DataFrame, *, tag: object, tag_col: str | None, query_col: str, doc_col: str, score_col: str,
    rank_col: str,
) -> None:  # fmt: skip
    """The columns write_trec_run needs, and a tag trec_eval's reader can read back."""
    _need(frame, query_col, "query_id", "run")
    _need(frame, doc_col, "doc_id", "run")
    if rank_col not in frame.columns and score_col not in frame.columns:
        msg = (
            f"The run frame has neither a score column {score_col!r} nor a rank column "
            f"{rank_col!r}. Available columns: {frame.columns}. "
            "Hint: pass score_col=... or rank_col=..."
        )
        raise ColumnNotFoundError(msg)
    if tag_col is not None:
        _need(frame, tag_col, "system", "run")
    elif not isinstance(tag, str) or not tag or re.search(WS, tag):
        expected = "a non-empty string without whitespace (the sixth field of each line)"
        raise InvalidParameterError.for_value("tag", "write_trec_run", expected, tag)


def _check_run_duplicates(f: pl.DataFrame, q: str, d: str, query_col: str, doc_col: str) -> None:
    n_dup = f.height - f.select(q, d).n_unique()
    if n_dup:
        example = f.filter(pl.struct(q, d).is_duplicated()).row(0, named=True)
        msg = (
            f"The run has {n_dup} duplicate ({query_col}, {doc_col}) row(s), e.g. "
            f"({example[q]!r}, {example[d]!r}); trec_eval refuses such files. Hint: several "
            "systems in one frame? Write one file per system (filter on the system column)."
        )
        raise DuplicateRowsError(msg)


def _scores_give_this_order(f: pl.DataFrame, q: str, d: str) -> bool:
    """Does trec_eval's (score desc, doc desc) order reproduce the frame's written order?"""
    prev_s = pl.col("__s").shift(1).over(q)
    prev_d = pl.col(d).shift(1).over(q)
    return bool(
        f.select(
            (
                prev_s.is_null()
                | (pl.col("__s") < prev_s)
                | ((pl.col("__s") == prev_s) & (pl.col(d) < prev_d))
            ).all()
            & pl.col("__s").is_not_null().all()
            & pl.col("__s").is_finite().all()
        ).item()
    )


def write_trec_qrels(
    df: Any,
    path: str | os.PathLike[str],
    *,
    query_col: str = "query_id",
    doc_col: str = "doc_id",
    relevance_col: str = "relevance",
) -> None:
    """Write judgments as a TREC qrels file ``query 0 doc relevance``, in frame order.

    Integral grades are written as integers (``2``, not ``2.0``); fractional grades as
    they are.  Names ending in ``.gz`` are gzip-compressed.

    Parameters
    ----------
    df : polars or pandas DataFrame
        The judgments.
    path : str or Path
        Output file.
    query_col, doc_col, relevance_col : str
        Column names.

    Examples
    --------
    >>> import tempfile, pathlib, polars as pl
    >>> qrels = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "relevance": [2, 0]})
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "my.qrels"
    >>> write_trec_qrels(qrels, out)
    >>> print(out.read_text(), end="")
    q1 0 a 2
    q1 0 b 0
    >>> read_trec_qrels(out).equals(qrels)
    True
    """
    lines = _qrels_lines(df, query_col, doc_col, relevance_col)
    _write_text(lines, path)


def _qrels_lines(df: Any, query_col: str, doc_col: str, relevance_col: str) -> pl.DataFrame:
    """The qrels as one column of TREC lines (checked: see :func:`write_trec_qrels`)."""
    frame = _to_polars(df, "qrels")
    _need(frame, query_col, "query_id", "qrels")
    _need(frame, doc_col, "doc_id", "qrels")
    _need(frame, relevance_col, "relevance", "qrels")
    f = frame.select(
        pl.col(query_col).cast(pl.String).alias("__q"),
        pl.col(doc_col).cast(pl.String).alias("__d"),
        pl.col(relevance_col).alias("__r"),
    )
    _check_ids(f, ["__q", "__d"], "qrels", [query_col, doc_col])
    rel = pl.col("__r")
    if f["__r"].null_count():
        msg = f"The qrels column {relevance_col!r} has null grades; TREC qrels cannot hold them."
        raise TrecFormatError(msg)
    if f["__r"].dtype.is_float():
        f = f.with_columns(_grade_text(f["__r"]))
        rel_text = pl.col("__t")
    elif f["__r"].dtype == pl.Boolean:
        rel_text = rel.cast(pl.Int64).cast(pl.String)
    else:
        rel_text = rel.cast(pl.String)
    return f.select(
        pl.concat_str([pl.col("__q"), pl.lit("0"), pl.col("__d"), rel_text], separator=" ").alias("line")
    )


def _grade_text(grades: pl.Series) -> pl.Series:
    """Float grades as TREC text that reads one way: whole numbers as integers (``2``, and
    ``100000000000000000000`` for 1e20), others positionally (``0.00001``, never ``1e-05``:
    the readers refuse a grade in exponent notation that trec_eval reads otherwise)."""
    import numpy as np

    whole = grades.is_finite() & (grades == grades.round(0)) & (grades.abs() < 2.0**53)
    text = (
        pl.select(pl.when(whole).then(grades.cast(pl.Int64, strict=False)).otherwise(None).cast(pl.String))
        .to_series()
        .fill_null(grades.cast(pl.String))
    )
    odd = text.str.contains("e").fill_null(value=False).arg_true()
    if len(odd):
        values = grades.gather(odd).to_list()
        text = text.scatter(odd, [np.format_float_positional(v, trim="-") for v in values])
    return text.alias("__t")


def trec_qrels_text(
    df: Any, *, query_col: str = "query_id", doc_col: str = "doc_id", relevance_col: str = "relevance"
) -> str:
    """The text :func:`write_trec_qrels` writes, as a string (no file, not even a temporary one).

    Examples
    --------
    >>> import polars as pl
    >>> trec_qrels_text(pl.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "relevance": [2.0]}))
    'q1 0 a 2\\n'
    """
    lines = _qrels_lines(df, query_col, doc_col, relevance_col)
    return lines.write_csv(include_header=False, quote_style="never")
