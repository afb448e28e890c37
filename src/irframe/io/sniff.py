"""Find out what an input file is (TREC text or a table) and read it, as the command line does.

A path may name a TREC text file (gzip or not), a parquet, CSV, TSV or JSON-lines table
(by extension, or a CSV/TSV header recognised from the content), or ``-`` for standard
input (its bytes are read once by the caller and passed in).  A run may also be several
files read as one (:data:`RunSource`): a glob (``"log/*.parquet"``), a directory (its
files; parquet ``key=value`` folders become columns) or a list of files.

Examples
--------
>>> sniff_table(b"query_id\\tdoc_id\\tscore\\nq1\\ta\\t1\\n")
'\\t'
>>> sniff_table(b"q1 Q0 a 1 1.0 bm25\\n") is None
True
"""

from __future__ import annotations

import io
import itertools
import os
import sys
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import polars as pl

__all__ = [
    "RunSource", "head", "is_several", "load", "load_queries", "load_runs", "read_bytes", "scan_source",
    "sniff_table", "source_name", "system_names",
]  # fmt: skip

# header words that mark a CSV/TSV table rather than a TREC file
_HEADER_WORDS = frozenset(
    {
        "query_id", "doc_id", "qid", "docid", "docno", "query", "doc", "topic", "score",
        "rank", "relevance", "rel", "label", "grade", "system", "run", "pid", "did",
    }
)  # fmt: skip

Reading = Callable[[str], AbstractContextManager[object]]
# one input: a path (a file, a glob, a directory, or - for stdin), or the files of one run
RunSource = str | Sequence[str]
_GLOB_CHARS = frozenset("*?[")


def read_bytes(path: str) -> bytes:
    """All bytes of ``path``, or of standard input for ``-``."""
    if path == "-":
        return sys.stdin.buffer.read()
    return Path(path).read_bytes()


def sniff_table(head: bytes) -> str | None:
    """Separator of a CSV/TSV with a recognizable header, or ``None`` for TREC text."""
    if head[:2] == b"\x1f\x8b":
        import gzip

        try:
            head = gzip.GzipFile(fileobj=io.BytesIO(head)).read(4096)
        except (OSError, EOFError):
            return None
    for raw in head.splitlines():
        line = raw.decode("utf-8", "replace").strip()
        if not line or line.startswith("#"):
            continue
        sep = "\t" if "\t" in line else "," if "," in line else None
        if sep is None:
            return None
        words = {w.strip().strip('"').lower() for w in line.split(sep)}
        return sep if words & _HEADER_WORDS else None
    return None


def head(path: str) -> bytes:
    """The first 64 KiB of a file."""
    with Path(path).open("rb") as fh:
        return fh.read(65536)


def _check_exists(path: str, kind: str) -> None:
    p = Path(path)
    if path != "-" and (p.is_dir() or not p.exists()):
        what = "is a directory" if p.is_dir() else "does not exist"
        msg = f"the {kind} file {path!r} {what}"
        raise FileNotFoundError(msg)


def is_several(source: RunSource) -> bool:
    """Whether ``source`` names several files read as one input: a list, a directory, or a
    glob (a pattern that is not itself a file's name).

    Examples
    --------
    >>> is_several("log/*.parquet"), is_several(["a.parquet", "b.parquet"]), is_several("-")
    (True, True, False)
    """
    if not isinstance(source, str):
        return True
    p = Path(source)
    return p.is_dir() or (bool(_GLOB_CHARS & set(source)) and not p.exists())


def source_name(source: RunSource) -> str:
    """The name of an input for messages and for a system column: a path, a glob, a
    directory, or the first of several files (``a.parquet (+2 files)``).

    Examples
    --------
    >>> source_name("log/*.parquet"), source_name(["p/0.parquet", "p/1.parquet"])
    ('log/*.parquet', 'p/0.parquet (+1 files)')
    """
    if isinstance(source, str):
        return source
    items = list(source)
    return items[0] if len(items) == 1 else f"{items[0]} (+{len(items) - 1} files)"


def _system_name(source: RunSource) -> str:
    """A file's name without suffixes; for several files, their directory's (``log/*.parquet``,
    ``log/`` -> ``log``)."""
    from irframe.io._source import strip_suffixes

    if not isinstance(source, str):  # several files: the directory that holds them all
        folders = [str(Path(p).resolve().parent) for p in source]
        return Path(os.path.commonpath(folders)).name or "run"
    if not is_several(source):
        return strip_suffixes(source) if source != "-" else "stdin"
    if Path(source).is_dir():
        return Path(source).resolve().name or "run"
    fixed = itertools.takewhile(lambda part: not _GLOB_CHARS & set(part), Path(source).parts)
    return Path(*fixed, ".").resolve().name or "run"  # a pattern: the directory it names


def scan_source(source: RunSource, mapping: dict[str, str]) -> pl.LazyFrame | None:
    """A lazy scan of a table input (a file, a glob, a directory or several files of one
    table format), renamed by ``mapping`` where it has the columns; None when ``source``
    must be read whole: standard input, a pipe, a TREC text file, a table sniffed from
    its content.

    Examples
    --------
    >>> import pathlib, tempfile, polars as pl
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> for i in range(2):
    ...     pl.DataFrame({"qid": [f"q{i}"], "doc_id": ["a"], "score": [1]}).write_parquet(d / f"{i}.parquet")
    >>> scan_source(str(d / "*.parquet"), {"qid": "query_id"}).collect()["query_id"].to_list()
    ['q0', 'q1']
    >>> scan_source("-", {}) is None
    True
    """
    from irframe.io.tables import detect_format

    several = is_several(source)
    if not several:
        path = str(source)
        _check_exists(path, "run")
        if path == "-" or not Path(path).is_file() or detect_format(path) is None:
            return None
    elif _trec_text_files(source):
        return None
    return _scan_tables(source, mapping)


def _scan_tables(source: RunSource, mapping: dict[str, str]) -> pl.LazyFrame:
    from irframe.io import scan_table

    present = scan_table(source).collect_schema().names() if mapping else []
    used = {k: v for k, v in mapping.items() if k in present}
    return scan_table(source, columns=used or None)


def _trec_text_files(source: RunSource) -> list[Path]:
    """The files of ``source`` when none of them is named as a table (TREC text files)."""
    from irframe.io._files import expand_paths
    from irframe.io.tables import detect_format

    files = expand_paths(source)
    return files if all(detect_format(f) is None for f in files) else []


def _read_delimited(source: Any, sep: str, mapping: dict[str, str]) -> pl.DataFrame:
    """A CSV/TSV with a header; identifier columns (after ``mapping``) read as strings."""
    import polars as pl

    header = pl.read_csv(source, separator=sep, n_rows=0).columns
    ids = {c for c in header if mapping.get(c, c) in ("query_id", "doc_id")}
    df = pl.read_csv(
        source,
        separator=sep,
        infer_schema_length=10_000,
        schema_overrides=dict.fromkeys(ids, pl.String),
    )
    return df.rename({k: v for k, v in mapping.items() if k in df.columns})


def _load_several(
    source: RunSource, kind: str, mapping: dict[str, str], *, subtopics: bool
) -> tuple[pl.DataFrame, bool]:
    """Several files of one input: TREC text files stacked, or one table scan collected."""
    import polars as pl

    files = _trec_text_files(source)
    if not files:
        return _scan_tables(source, mapping).collect(), False
    frames = [load(str(f), kind, mapping, None, subtopics=subtopics)[0] for f in files]
    return pl.concat(frames, how="diagonal_relaxed"), True


def load(
    path: RunSource, kind: str, mapping: dict[str, str], stdin: bytes | None, *, subtopics: bool = False
) -> tuple[pl.DataFrame, bool]:
    """Read one input; returns the frame and whether it was TREC text.

    ``path`` is a file, ``-``, or several files of one input (:func:`is_several`: a
    glob, a directory, a list); ``kind`` is ``"qrels"`` or ``"run"``; ``mapping`` renames table columns
    (``{"qid": "query_id"}``); ``stdin`` holds the bytes of standard input when
    ``path`` is ``-``; ``subtopics``: TREC qrels keep their second field as ``subtopic``.
    """
    from irframe.io import read_table, read_trec_qrels, read_trec_run, scan_table
    from irframe.io.tables import TableRole, detect_format

    if not isinstance(path, str) or is_several(path):
        return _load_several(path, kind, mapping, subtopics=subtopics)
    _check_exists(path, kind)
    role: TableRole = "qrels" if kind == "qrels" else "run"  # (what a JSON dict of dicts holds)
    p = Path(path)
    # stdin and pipes (<(zcat run.gz)) are read once, up front; files are left to polars
    data = stdin if path == "-" else None if p.is_file() else p.read_bytes()
    fmt = None if path == "-" else detect_format(path)
    if data is not None and data[:4] == b"PAR1":  # parquet's magic bytes: not a text file
        where = "standard input" if path == "-" else repr(path)
        msg = f"cannot read a parquet table from {where} (a pipe); give the parquet file's path instead"
        raise OSError(msg)
    if fmt is not None and data is None:
        # the mapping applies to every table input that has the column
        present = scan_table(path, format=fmt, role=role).collect_schema().names() if mapping else []
        used = {k: v for k, v in mapping.items() if k in present}
        return read_table(path, columns=used or None, format=fmt, role=role), False
    sep = sniff_table(data[:65536] if data is not None else head(path))
    if sep is not None or fmt in ("csv", "tsv"):
        sep = sep or ("," if fmt == "csv" else "\t")
        return _read_delimited(data if data is not None else path, sep, mapping), False
    if fmt is not None:
        msg = f"cannot read a {fmt} table from a pipe ({path!r}); save it to a file first"
        raise OSError(msg)
    src: Any = path
    if data is not None:
        src = io.BytesIO(data)
        src.name = "<stdin>" if path == "-" else path
    if kind == "qrels":
        return read_trec_qrels(src, subtopics=subtopics), True
    return read_trec_run(src, system="system"), True


def system_names(paths: Sequence[RunSource], tags: Sequence[list[str] | None]) -> list[str]:
    """The run tags when each file has one and they differ, else the file names.

    Examples
    --------
    >>> system_names(["a.run", "b.run"], [["bm25"], ["dense"]])
    ['bm25', 'dense']
    >>> system_names(["x/bm25.run", "y/dense.run"], [["t"], ["t"]])
    ['bm25', 'dense']
    """
    return named_systems(paths, tags)[0]


def named_systems(paths: Sequence[RunSource], tags: Sequence[list[str] | None]) -> tuple[list[str], str]:
    """:func:`system_names` and where they come from: ``"run tags"``, ``"file names"`` or
    ``"paths"`` (file names that clash).

    Examples
    --------
    >>> named_systems(["x/bm25.run", "y/bm25.run"], [None, None])
    (['x/bm25.run', 'y/bm25.run'], 'paths')
    >>> named_systems(["logs/a/*.parquet", "logs/b/"], [None, None])
    (['a', 'b'], 'file names')
    """
    single = [t[0] if t is not None and len(t) == 1 else None for t in tags]
    if all(s is not None for s in single) and len(set(single)) == len(single):
        return [str(s) for s in single], "run tags"
    names = [_system_name(p) for p in paths]
    if len(set(names)) != len(names):
        return [source_name(p) for p in paths], "paths"
    return names, "file names"


def load_runs(
    paths: Sequence[RunSource],
    mapping: dict[str, str],
    stdin: bytes | None,
    reading: Reading | None = None,
    notes: list[str] | None = None,
    *,
    naming: list[str] | None = None,
) -> pl.DataFrame:
    """Read and stack runs with a ``system`` column (see :func:`system_names`).

    Each entry of ``paths`` is one run (a file, or several files of one run: see
    :func:`is_several`).  ``reading(label)`` returns a context manager wrapped around
    each run's read (the command line's progress note).  A stacked table with several
    systems keeps them; a TREC run file is one system whatever its tag column holds, as
    for trec_eval (mixed tags are named by the file and a note is appended to ``notes``).
    """
    return _runs(paths, mapping, stdin, (reading, notes, naming), lazy=False).collect()


def scan_runs(
    paths: Sequence[RunSource],
    mapping: dict[str, str],
    stdin: bytes | None,
    reading: Reading | None = None,
    notes: list[str] | None = None,
) -> pl.LazyFrame:
    """:func:`load_runs` as one lazy frame: table runs are scanned, not read (TREC text
    and standard input are read); a scanned table with a ``system`` column keeps it.

    Examples
    --------
    >>> import pathlib, tempfile, polars as pl
    >>> d = pathlib.Path(tempfile.mkdtemp()) / "log"
    >>> d.mkdir()
    >>> for i in range(2):
    ...     pl.DataFrame({"query_id": [f"q{i}"], "doc_id": ["a"]}).write_parquet(d / f"{i}.parquet")
    >>> scan_runs([str(d)], {}, None).collect().select("system", "query_id").rows()
    [('log', 'q0'), ('log', 'q1')]
    """
    return _runs(paths, mapping, stdin, (reading, notes, None), lazy=True)


def _read_run(
    p: RunSource, mapping: dict[str, str], stdin: bytes | None, *, lazy: bool
) -> tuple[pl.LazyFrame, list[str] | None, bool]:
    """One run: its rows, its run tags (None: no tag column, or not read) and whether it is
    TREC text.  A scanned table's system column (if any) is kept: it names its systems."""
    lf = scan_source(p, mapping) if lazy else None
    if lf is not None:
        return lf, None, False
    df, is_trec = load(p, "run", mapping, stdin)
    has_tag = is_trec or "system" in df.columns
    return df.lazy(), df["system"].unique(maintain_order=True).to_list() if has_tag else None, is_trec


def _runs(
    paths: Sequence[RunSource],
    mapping: dict[str, str],
    stdin: bytes | None,
    said: tuple[Reading | None, list[str] | None, list[str] | None],
    *,
    lazy: bool,
) -> pl.LazyFrame:
    """:func:`load_runs` and :func:`scan_runs`; ``said``: their reading, notes and naming."""
    import polars as pl

    reading, notes, naming = said
    frames: list[pl.LazyFrame] = []
    tags: list[list[str] | None] = []
    stacked: list[bool] = []
    for p in paths:
        with reading(f"reading run {source_name(p)}") if reading is not None else nullcontext():
            lf, tag, is_trec = _read_run(p, mapping, stdin, lazy=lazy)
        frames.append(lf)
        tags.append(tag)
        scanned_systems = tag is None and "system" in lf.collect_schema().names()
        stacked.append(scanned_systems or (tag is not None and len(tag) > 1 and not is_trec))
        if is_trec and tag is not None and len(tag) > 1 and notes is not None:
            shown = ", ".join(map(str, tag[:3])) + (", ..." if len(tag) > 3 else "")
            what = "one TREC file" if isinstance(p, str) and not is_several(p) else "one run's TREC files"
            notes.append(f"{source_name(p)}: {len(tag)} run tags ({shown}) in {what}, read as one system")
    names, source = named_systems(paths, tags)
    if naming is not None:
        naming.append("the system column" if any(stacked) else source)
    out = []
    for lf, name, is_table_system in zip(frames, names, stacked, strict=True):
        if is_table_system:
            out.append(lf)  # a stacked table of several systems: keep their names
        else:
            out.append(lf.with_columns(pl.lit(name, dtype=pl.String).alias("system")))
    return pl.concat(out, how="diagonal_relaxed")


def load_queries(
    path: str, mapping: dict[str, str], stdin: bytes | None = None, *, role: str = "queries"
) -> pl.DataFrame:
    """Read a queries table (``query_id`` and attributes such as ``text``, ``segment``).

    A parquet/CSV/TSV/JSON-lines table by extension, or a CSV/TSV with a recognizable
    header; every column is read as text except in typed formats (parquet, JSON).
    ``role="documents"``: a documents table (``doc_id`` and a text), named so in errors.
    """
    import polars as pl

    from irframe.exceptions import InvalidDataError
    from irframe.io import read_table
    from irframe.io.tables import detect_format

    _check_exists(path, role)
    data = stdin if path == "-" else None if Path(path).is_file() else Path(path).read_bytes()
    fmt = None if path == "-" else detect_format(path)
    if fmt is not None and fmt not in ("csv", "tsv") and data is None:
        return read_table(path, columns=mapping or None, format=fmt)
    sep = sniff_table(data[:65536] if data is not None else head(path))
    sep = sep or {"csv": ",", "tsv": "\t"}.get(fmt or "")
    if sep is None:
        example = "doc_id, text" if role == "documents" else "query_id, text, segment"
        msg = f"the {role} file {path!r} is not a table with a header; expected e.g. a TSV of {example}"
        raise InvalidDataError(msg)
    source: Any = data if data is not None else path
    df = pl.read_csv(source, separator=sep, infer_schema=False, quote_char=None if sep == "\t" else '"')
    return df.rename({k: v for k, v in mapping.items() if k in df.columns})
