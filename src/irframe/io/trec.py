"""Read and write TREC run and qrels files exactly as trec_eval reads them.

Parsing rules (the same for every reader here):

* Fields are separated by any run of ASCII whitespace (spaces, tabs, ``\\r`` of CRLF files).
* Blank lines are skipped; so are comment lines, whose first non-blank character is ``#``
  (trec_eval 10.0).  A ``#`` inside a field (``CR#93E-1860``) is data.
* Run lines have **six or more** fields ``query iter doc rank score tag``; fields after the
  sixth are ignored and so are ``iter`` and ``rank`` (trec_eval ranks by score).
* Qrels lines have **exactly four** fields ``query iter doc relevance``.
* Scores are parsed as float64 (no precision lost: ``0.1234567891`` and ``0.1234567892``
  stay distinct).  Unlike C's ``atof`` used by trec_eval, a score that is not a number
  (``1.5x``, ``high``) is an error rather than being read as its numeric prefix or 0.
* Grades are read as int64.  If a grade is fractional (``0.5``) the whole column is kept
  as float64 instead of being truncated like trec_eval's ``atol``; the engine decides
  what a fractional grade means.
* Gzip files are detected by their magic bytes, whatever their name.
* A malformed line raises :class:`TrecFormatError` naming the file, the 1-based line
  number and showing the line.

The files are parsed by polars (one string column per line, then one regular
expression), not by a Python loop: ten million run lines read in a few seconds.
"""

from __future__ import annotations

import gzip
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import polars as pl

from irframe.exceptions import ColumnNotFoundError, DuplicateRowsError, InvalidParameterError
from irframe.io._source import PathOrFile, TrecFormatError, open_source, strip_suffixes

__all__ = [
    "TrecFormatError",
    "read_trec_qrels",
    "read_trec_run",
    "read_trec_runs",
    "write_trec_qrels",
    "write_trec_run",
]

# trec_eval splits with C isspace(): space, \t, \n, \v, \f, \r.  Explicit classes are
# much faster than \s / \S in the polars (Rust) regex engine.
_WS = r"[ \t\r\n\x0B\x0C]"
_FIELD = r"[^ \t\r\n\x0B\x0C]+"
_RUN_RE = rf"^{_WS}*({_FIELD}){_WS}+{_FIELD}{_WS}+({_FIELD}){_WS}+{_FIELD}{_WS}+({_FIELD}){_WS}+({_FIELD})"
_QRELS_RE = rf"^{_WS}*({_FIELD}){_WS}+{_FIELD}{_WS}+({_FIELD}){_WS}+({_FIELD}){_WS}*$"
_LINE = "__irframe_line"
_LINENO = "__irframe_lineno"
_SUSPECT = "__irframe_suspect"


def _parse(
    source: str | bytes,
    *,
    name: str,
    pattern: str,
    fields: Sequence[str],
    what: str,
    numeric: tuple[str, pl.DataType, str],
) -> pl.DataFrame:
    """Split each line with ``pattern`` into ``fields``, cast the numeric field, check every line.

    One lazy polars query does it all (no Python loop): read one string per physical
    line, extract the fields with a regular expression, cast the number.  Blank and
    comment lines are the only lines allowed not to match; any other line, a number
    that does not parse or binary data raises :class:`TrecFormatError` with its
    physical 1-based line number (comments and blank lines counted, as an editor shows).
    """
    text_col, dtype, label = numeric
    first = pl.col(fields[0])
    has_junk = pl.col(_LINE).str.contains("[\x00\ufffd]")  # NUL, or bytes that are not UTF-8
    value = pl.col(text_col).cast(dtype, strict=False)
    bad_value = value.is_null() | value.is_nan() if dtype.is_float() else value.is_null()
    lf = (
        pl.scan_csv(
            source,
            has_header=False,
            separator="\x1f",  # one column per line (a unit separator ends the line's text)
            quote_char=None,
            schema={_LINE: pl.String},
            encoding="utf8-lossy",
            truncate_ragged_lines=True,
            row_index_name=_LINENO,
            row_index_offset=1,
            raise_if_empty=False,
        )
        .with_columns(pl.col(_LINE).str.extract_groups(pattern).alias("__g"))
        .unnest("__g")
        .rename(dict(zip([str(i + 1) for i in range(len(fields))], fields, strict=True)))
        .filter(first.is_null() | ~first.str.starts_with("#"))  # comments with enough fields
        .with_columns(value.alias("__value"))
        .with_columns(
            # the text of suspicious lines only (null elsewhere keeps this cheap)
            pl.when(first.is_null() | has_junk | (first.is_not_null() & bad_value))
            .then(pl.col(_LINE))
            .alias(_SUSPECT)
        )
        .drop(_LINE)
    )
    try:
        df = lf.collect(engine="streaming")
    except (pl.exceptions.PolarsError, OSError) as exc:  # e.g. a truncated gzip stream
        first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        msg = f"Cannot read {name!r} as text (corrupt or truncated gzip?): {first_line}"
        raise TrecFormatError(msg) from None
    suspects = df.filter(pl.col(_SUSPECT).is_not_null())
    if suspects.height:
        skip = pl.col(_SUSPECT).str.contains(r"^[ \t\r\n\x0B\x0C]*(#|$)")
        bad = suspects.filter(first.is_not_null() | ~skip)
        if bad.height:
            row = bad.row(0, named=True)
            line = str(row[_SUSPECT])
            if "\x00" in line:
                reason = "binary data (a NUL byte) in a text file"
            elif "\ufffd" in line:
                reason = "not UTF-8 text (binary data?)"
            elif row[fields[0]] is None:
                expected, layout = _EXPECTED[what]
                reason = (
                    f"expected {expected} whitespace-separated fields ({layout}), found {len(line.split())}"
                )
            else:
                reason = f"the {label} {row[text_col]!r} is not a number"
            _raise_bad(row[_LINENO], line, name=name, what=what, reason=reason, n_more=bad.height - 1)
        df = df.filter(first.is_not_null())
    return df.drop(_SUSPECT)


_EXPECTED = {
    "run": ("at least 6", "query iter doc rank score tag"),
    "qrels": ("exactly 4", "query iter doc relevance"),
}


def _raise_bad(lineno: int, line: str, *, name: str, what: str, reason: str, n_more: int) -> None:
    line = line.rstrip("\r\n")
    shown = line if len(line) <= 120 else line[:117] + "..."
    more = f" ({n_more} more malformed line(s) follow)" if n_more > 0 else ""
    msg = f"{name}:{lineno}: malformed {what} line: {reason}: {shown!r}{more}."
    raise TrecFormatError(msg)


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


def read_trec_run(path_or_file: PathOrFile, *, system: bool | str = False) -> pl.DataFrame:
    """Read a TREC run file (``query Q0 doc rank score tag``) into a polars DataFrame.

    Parameters
    ----------
    path_or_file : str, Path or file object
        A path, or an open text or binary file.  Gzip is detected from the content.
    system : bool or str, default False
        Also return the run tag (the sixth field, per line) as a column named
        ``"system"`` (``True``) or with the given name.

    Returns
    -------
    polars.DataFrame
        Columns ``query_id`` (str), ``doc_id`` (str), ``score`` (f64) and optionally the
        tag column (str), in file order.  The rank field is not returned: like trec_eval,
        irframe ranks by score (ties: doc_id descending).

    Raises
    ------
    TrecFormatError
        For a line with fewer than six fields, a score that is not a number, or binary
        data; the message gives the file, line number and line.

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
    with open_source(path_or_file) as src:
        df = _parse(
            src.data,
            name=src.name,
            pattern=_RUN_RE,
            fields=["query_id", "doc_id", "_score_text", "_tag"],
            what="run",
            numeric=("_score_text", pl.Float64(), "score"),
        ).rename({"__value": "score"})
    cols = ["query_id", "doc_id", "score"]
    if tag_col is None:
        return df.select(cols)
    return df.select(*cols, pl.col("_tag").alias(tag_col))


def read_trec_runs(
    paths: Sequence[PathOrFile] | Mapping[str, PathOrFile],
    *,
    system: str = "system",
) -> pl.DataFrame:
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

    Returns
    -------
    polars.DataFrame
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
    return pl.concat(
        [
            f.select(pl.lit(n, dtype=pl.String).alias(system), "query_id", "doc_id", "score")
            for n, f in zip(names, frames, strict=True)
        ],
        how="vertical",
    )


def _name_of(obj: PathOrFile, i: int) -> str:
    if isinstance(obj, str | os.PathLike):
        return str(obj)
    name = getattr(obj, "name", None)
    return str(name) if isinstance(name, str) and name else f"run{i + 1}"


def read_trec_qrels(path_or_file: PathOrFile) -> pl.DataFrame:
    """Read a TREC qrels file (``query iter doc relevance``) into a polars DataFrame.

    Parameters
    ----------
    path_or_file : str, Path or file object
        A path, or an open text or binary file.  Gzip is detected from the content.

    Returns
    -------
    polars.DataFrame
        ``query_id`` (str), ``doc_id`` (str), ``relevance`` (i64; f64 when a grade is
        fractional), in file order.  Negative grades are kept as they are.

    Raises
    ------
    TrecFormatError
        For a line without exactly four fields or with a grade that is not a number.

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
    """
    with open_source(path_or_file) as src:
        df = _parse(
            src.data,
            name=src.name,
            pattern=_QRELS_RE,
            fields=["query_id", "doc_id", "_rel_text"],
            what="qrels",
            numeric=("_rel_text", pl.Float64(), "relevance grade"),
        ).rename({"__value": "_rel_float"})
        df = df.with_columns(pl.col("_rel_text").cast(pl.Int64, strict=False).alias("_rel_int"))
    if df["_rel_int"].null_count() == 0:
        rel = pl.col("_rel_int")
    elif (df["_rel_float"] == df["_rel_float"].round(0)).all():
        rel = pl.col("_rel_float").cast(pl.Int64, strict=False)
        if df.select(rel.null_count()).item() > 0:  # inf or out of range: keep floats
            rel = pl.col("_rel_float")
    else:
        rel = pl.col("_rel_float")
    return df.select("query_id", "doc_id", rel.alias("relevance"))


# --- writers -----------------------------------------------------------------------------
def _to_polars(df: Any, role: str) -> pl.DataFrame:
    from irframe._frames import to_lazy  # the one place that knows pandas

    return to_lazy(df, role)[0].collect()


def _need(df: pl.DataFrame, col: str, role: str, frame: str) -> None:
    if col not in df.columns:
        raise ColumnNotFoundError.from_missing(role=role, missing=col, available=df.columns, frame=frame)


def _write_text(lines: pl.DataFrame, path: str | os.PathLike[str]) -> None:
    """Write one pre-formatted string column, gzip-compressed when the name ends in ``.gz``."""
    target = Path(path)
    if target.suffix == ".gz":
        text = lines.write_csv(include_header=False, quote_style="never")
        with gzip.open(target, "wb") as fh:
            fh.write(text.encode("utf-8"))
    else:
        lines.write_csv(target, include_header=False, quote_style="never")


def _check_ids(df: pl.DataFrame, cols: Sequence[str], frame: str) -> None:
    for col in cols:
        s = df[col]
        if s.null_count():
            msg = (
                f"The {frame} has {s.null_count()} null value(s) in column {col!r}; "
                "TREC files cannot hold them."
            )
            raise TrecFormatError(msg)
        if s.dtype == pl.String and s.str.contains(_WS).any():
            bad = s.filter(s.str.contains(_WS))[0]
            msg = (
                f"The {frame} column {col!r} has a value with whitespace ({bad!r}); "
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

    Documents are written in the table's evaluation order: by ``rank_col`` when the
    frame has it, otherwise by score descending with ties broken by doc_id descending
    (trec_eval's order).  Ranks are rewritten 1..n per query.  The score written is the
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
        Run tag written in the sixth field.
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
    _need(frame, query_col, "query_id", "run")
    _need(frame, doc_col, "doc_id", "run")
    has_rank = rank_col in frame.columns
    has_score = score_col in frame.columns
    if not (has_rank or has_score):
        msg = (
            f"The run frame has neither a score column {score_col!r} nor a rank column "
            f"{rank_col!r}. Available columns: {frame.columns}. "
            "Hint: pass score_col=... or rank_col=..."
        )
        raise ColumnNotFoundError(msg)
    if tag_col is not None:
        _need(frame, tag_col, "system", "run")
    q, d = "__q", "__d"
    f = frame.with_columns(
        pl.col(query_col).cast(pl.String).alias(q),
        pl.col(doc_col).cast(pl.String).alias(d),
        pl.int_range(pl.len()).alias("__pos"),
    )
    _check_ids(f, [q, d], "run")
    n_dup = f.height - f.select(q, d).n_unique()
    if n_dup:
        example = f.filter(pl.struct(q, d).is_duplicated()).row(0, named=True)
        msg = (
            f"The run has {n_dup} duplicate ({query_col}, {doc_col}) row(s), e.g. "
            f"({example[q]!r}, {example[d]!r}); trec_eval refuses such files. Hint: several "
            "systems in one frame? Write one file per system (filter on the system column)."
        )
        raise DuplicateRowsError(msg)
    if has_score:
        f = f.with_columns(pl.col(score_col).cast(pl.Float64).alias("__s"))
    f = f.with_columns(pl.col("__pos").min().over(q).alias("__qpos"))
    if has_rank:
        f = f.sort("__qpos", rank_col, "__pos", nulls_last=True)
    else:
        f = f.sort(["__qpos", "__s", d], descending=[False, True, True], nulls_last=True)
    f = f.with_columns(pl.int_range(1, pl.len() + 1).over(q).alias("__rank"))
    if has_score:
        # does trec_eval's (score desc, doc desc) order reproduce this order?
        prev_s = pl.col("__s").shift(1).over(q)
        prev_d = pl.col(d).shift(1).over(q)
        consistent = f.select(
            (
                prev_s.is_null()
                | (pl.col("__s") < prev_s)
                | ((pl.col("__s") == prev_s) & (pl.col(d) < prev_d))
            ).all()
            & pl.col("__s").is_not_null().all()
            & pl.col("__s").is_finite().all()
        ).item()
    else:
        consistent = False
    if consistent:
        score_text = pl.col("__s").cast(pl.String)
    else:
        score_text = (pl.len().over(q) - pl.col("__rank") + 1).cast(pl.Float64).cast(pl.String)
    tag_expr = pl.col(tag_col).cast(pl.String) if tag_col is not None else pl.lit(str(tag))
    lines = f.select(
        pl.concat_str(
            [
                pl.col(q),
                pl.lit("Q0"),
                pl.col(d),
                pl.col("__rank").cast(pl.String),
                score_text,
                tag_expr,
            ],
            separator=" ",
        ).alias("line")
    )
    _write_text(lines, path)


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
    frame = _to_polars(df, "qrels")
    _need(frame, query_col, "query_id", "qrels")
    _need(frame, doc_col, "doc_id", "qrels")
    _need(frame, relevance_col, "relevance", "qrels")
    f = frame.select(
        pl.col(query_col).cast(pl.String).alias("__q"),
        pl.col(doc_col).cast(pl.String).alias("__d"),
        pl.col(relevance_col).alias("__r"),
    )
    _check_ids(f, ["__q", "__d"], "qrels")
    rel = pl.col("__r")
    if f["__r"].null_count():
        msg = f"The qrels column {relevance_col!r} has null grades; TREC qrels cannot hold them."
        raise TrecFormatError(msg)
    if f["__r"].dtype.is_float():
        integral = (f["__r"] == f["__r"].round(0)).all() and f["__r"].is_finite().all()
        rel_text = rel.cast(pl.Int64).cast(pl.String) if integral else rel.cast(pl.String)
    elif f["__r"].dtype == pl.Boolean:
        rel_text = rel.cast(pl.Int64).cast(pl.String)
    else:
        rel_text = rel.cast(pl.String)
    lines = f.select(
        pl.concat_str([pl.col("__q"), pl.lit("0"), pl.col("__d"), rel_text], separator=" ").alias("line")
    )
    _write_text(lines, path)
