r"""Snapshots of a run's per-query values, with fingerprints of what they were computed on.

A snapshot file is JSON meant to be committed next to the golden set: a header (format,
irframe version, canonical measure strings, settings, fingerprints) and one line per
query (``"q01": {"qrels": "<hash>", "nDCG@10": 0.51, ...}``) in natural query order, so a
change of the baseline reads as a diff of the queries that changed.

Fingerprints are the first 16 hex digits of SHA-256 over a canonical text: per query,
the sorted rows ``(doc, grade)`` of its judgments (integral grades written as integers,
so ``2`` and ``2.0`` agree); for the queries table its CSV sorted by query id; for the
run its sorted rows ``(query, doc, rank, score)``.  Each field of a row is written with
its length in bytes (``5:d1\tx``; a null is ``-``), so no text inside a field (a TAB, a
newline) can make two different sets of rows read alike (:func:`encoded`).

Snapshots of format 1 (irframe before 0.5) joined the fields with TAB and the rows with
newlines: a document id holding ``"a\t1\nb"`` and two judgments ``a 1``, ``b 2`` had one
fingerprint.  Such a snapshot is still read and checked, against its own encoding
(:func:`qrels_fingerprints` with ``legacy=True``), and the check says how to refresh it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

import polars as pl

from irframe._input.columns import natural_key
from irframe.exceptions import InvalidDataError

__all__ = [
    "FORMAT",
    "Snapshot",
    "SnapshotSource",
    "is_snapshot",
    "is_snapshot_file",
    "qrels_fingerprints",
    "queries_fingerprint",
    "run_fingerprint",
]

FORMAT = "irframe-snapshot/2"  # the schema: irframe._check.snapshot_file
_QKEY = "query_id"


def _sha(text: str) -> str:
    import hashlib

    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _as_text(col: str, dtype: pl.DataType) -> pl.Expr:
    """A column as canonical text (integral floats without ``.0``; a float beyond the
    integers a float holds exactly, such as ``1e20``, as the float's text)."""
    expr = pl.col(col)
    if dtype.is_float():
        whole = expr.is_finite() & (expr == expr.round(0)) & (expr.abs() < 2.0**53)
        as_int = expr.cast(pl.Int64, strict=False).cast(pl.String)
        return pl.when(whole).then(as_int).otherwise(expr.cast(pl.String))
    return expr.cast(pl.String)


def encoded(fields: Sequence[pl.Expr]) -> pl.Expr:
    r"""One row's fields as one string that no other row's fields give: each field as
    ``<length in bytes>:<text>``, a null as ``-``.

    Examples
    --------
    >>> df = pl.DataFrame({"doc": ["a\t1\nb", "a", None], "grade": ["2", "1", "0"]})
    >>> df.select(encoded([pl.col("doc"), pl.col("grade")])).to_series().to_list()
    ['5:a\t1\nb1:2', '1:a1:1', '-1:0']
    """
    parts: list[pl.Expr] = []
    for f in fields:
        text = pl.concat_str([f.str.len_bytes().cast(pl.String), pl.lit(":"), f])
        parts.append(text.fill_null("-"))
    return pl.concat_str(parts)


def _legacy_line(fields: Sequence[pl.Expr]) -> pl.Expr:
    """Format 1's row text: the fields joined by TAB (see the module)."""
    return pl.concat_str(list(fields), separator="\t", ignore_nulls=False).fill_null("<null>")


def qrels_fingerprints(
    qrels: pl.LazyFrame, query_col: str, doc_col: str, rel_col: str, *, legacy: bool = False
) -> dict[str, str]:
    """Per-query fingerprints of the judgments: ``{query_id: hash}`` (``legacy``: format
    1's encoding, to check a snapshot of that format against).

    Examples
    --------
    >>> a = pl.LazyFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "relevance": [1, 0]})
    >>> b = pl.LazyFrame({"query_id": ["q1", "q1"], "doc_id": ["b", "a"], "relevance": [0.0, 1.0]})
    >>> qrels_fingerprints(a, "query_id", "doc_id", "relevance") == qrels_fingerprints(
    ...     b, "query_id", "doc_id", "relevance")
    True
    """
    schema = qrels.collect_schema()
    fields = [_as_text(doc_col, schema[doc_col]), _as_text(rel_col, schema[rel_col])]
    lines = (
        qrels.select(
            pl.col(query_col).cast(pl.String).alias("q"),
            (_legacy_line(fields) if legacy else encoded(fields)).alias("line"),
        )
        .sort("q", "line")
        .group_by("q", maintain_order=True)
        .agg(pl.col("line").str.join("\n"))
        .collect()
    )
    return {q: _sha(text) for q, text in lines.iter_rows() if q is not None}


def combined(per_query: Mapping[str, str]) -> str:
    """One fingerprint for a ``{query: hash}`` mapping (each query id with its length, as
    :func:`encoded` writes fields)."""
    return _sha("\n".join(f"{len(q.encode())}:{q}{per_query[q]}" for q in sorted(per_query)))


def queries_fingerprint(queries: pl.DataFrame | None) -> str | None:
    """Fingerprint of a queries table (all columns, rows sorted by query id)."""
    if queries is None:
        return None
    df = queries.select(pl.all().cast(pl.String)).sort(pl.all())
    return _sha(df.write_csv())


def run_fingerprint(run: pl.LazyFrame, columns: Sequence[str]) -> str:
    """Fingerprint of a run over ``columns`` (those present), rows sorted."""
    schema = run.collect_schema()
    present = [c for c in columns if c in schema]
    text = run.select(encoded([_as_text(c, schema[c]) for c in present]).alias("line")).sort("line").collect()
    return _sha("\n".join(text["line"].to_list()))


@dataclass(frozen=True)
class Snapshot:
    """Per-query values of one run, as stored in a snapshot file.

    Attributes
    ----------
    measures : tuple of str
        Canonical measure strings (``str(parse_measure(m))``), the value columns.
    values : polars.DataFrame
        ``query_id`` (string) and one Float64 column per measure; null where the
        measure has no value (a query without judgments).
    qrels : dict of str -> str
        Per-query fingerprints of the judgments the values were computed with.
    fingerprints : dict
        ``qrels``, ``queries`` (or None) and ``run`` fingerprints.
    missing : str
        The rule used for judged queries absent from the run (see ``irframe.evaluate``).
    irframe_version : str
        Version of irframe that computed the values.
    name : str
        Where it was read from (for messages), ``"<snapshot>"`` when built in memory.
    format_version : int
        The file format it was read from: 1 for a snapshot whose judgment fingerprints are
        in the older encoding (see the module), else 2.
    """

    measures: tuple[str, ...]
    values: pl.DataFrame = field(repr=False)
    qrels: dict[str, str] = field(repr=False)
    fingerprints: dict[str, str | None]
    missing: str
    irframe_version: str
    name: str = "<snapshot>"
    format_version: int = 2

    @property
    def query_ids(self) -> list[str]:
        """Every query of the snapshot, in natural order."""
        ids = set(self.values[_QKEY].to_list()) | set(self.qrels)
        return sorted(ids, key=natural_key)

    def to_json(self) -> str:
        """The file text: header lines, then one line per query in natural order."""
        rows = {r[_QKEY]: r for r in self.values.iter_rows(named=True)}
        head = {
            "format": f"irframe-snapshot/{self.format_version}",  # (a format-1 snapshot stays one)
            "irframe_version": self.irframe_version,
            "measures": list(self.measures),
            "missing": self.missing,
            "fingerprints": self.fingerprints,
        }
        lines = ["{"]
        lines += [f"  {json.dumps(k)}: {json.dumps(v)}," for k, v in head.items()]
        lines.append('  "queries": {')
        body = []
        for q in self.query_ids:
            row = rows.get(q, {})
            entry = {"qrels": self.qrels.get(q), **{m: row.get(m) for m in self.measures}}
            body.append(f"    {json.dumps(q)}: {json.dumps(entry)}")
        lines.append(",\n".join(body))
        lines += ["  }", "}"]
        return "\n".join(line for line in lines if line) + "\n"

    def write(self, path: str | os.PathLike[str]) -> None:
        """Write :meth:`to_json` to ``path`` (UTF-8, ``\\n`` line ends), atomically: the old
        file stays whole until the new one is complete (see :mod:`irframe.io._atomic`)."""
        from irframe.io._atomic import write_text

        write_text(path, self.to_json())

    @classmethod
    def from_json(cls, text: str | bytes, name: str = "<snapshot>") -> Snapshot:
        """Parse a snapshot file's text or bytes, checked against the schema
        (:mod:`irframe._check.snapshot_file`; ``name`` is used in error messages)."""
        from irframe._check.snapshot_file import parse

        parts = parse(text.encode("utf-8") if isinstance(text, str) else text, name)
        columns: dict[str, list[Any]] = {_QKEY: list(parts.values)}
        for i, m in enumerate(parts.measures):
            columns[m] = [row[i] for row in parts.values.values()]
        schema = {_QKEY: pl.String, **dict.fromkeys(parts.measures, pl.Float64)}
        return cls(
            measures=tuple(parts.measures),
            values=pl.DataFrame(columns, schema=schema),
            qrels=parts.qrels,
            fingerprints=parts.fingerprints,
            missing=parts.missing,
            irframe_version=parts.irframe_version,
            name=name,
            format_version=parts.format_version,
        )

    @classmethod
    def read(cls, source: SnapshotSource) -> Snapshot:
        """Read a snapshot file: a path (a pipe such as ``<(cat base.json)`` too) or a binary
        stream (``io.BytesIO(data)``, ``sys.stdin.buffer``), read once."""
        name, data = read_source(source)
        return cls.from_json(data, name=name)


SnapshotSource = str | os.PathLike[str] | BinaryIO


def _stream_name(stream: object) -> str:
    name = getattr(stream, "name", None)
    return name if isinstance(name, str) else "<stream>"


def read_source(source: SnapshotSource) -> tuple[str, bytes]:
    """A snapshot source's display name and all its bytes (read once)."""
    if isinstance(source, str | os.PathLike):
        from irframe.io._source import open_source

        with open_source(source) as src:
            return str(source), src.stream.read()
    data = source.read()
    if not isinstance(data, bytes):
        msg = f"{_stream_name(source)}: a snapshot stream must be binary (open(path, 'rb'), io.BytesIO)."
        raise InvalidDataError(msg)
    return _stream_name(source), data


def is_snapshot(head: bytes) -> bool:
    """Whether bytes (a file's start, or all of it) are a snapshot file: a JSON object whose
    ``format`` names the snapshot format (any version, any Unicode encoding, so that the
    reader can say what is wrong with it).

    Examples
    --------
    >>> is_snapshot(b'{"format": "irframe-snapshot/1", "measures": []}'), is_snapshot(b"q1 0 d1 1")
    (True, False)
    """
    from irframe._check.snapshot_file import sniff

    return sniff(head)


def is_snapshot_file(path: str | os.PathLike[str]) -> bool:
    """Whether the regular file ``path`` holds a snapshot (by its content, see :func:`is_snapshot`).

    A pipe or a device (``-``, ``<(cat base.json)``) is not looked at: it can be read only
    once.  Read its bytes, then ask :func:`is_snapshot` and read them with
    :meth:`Snapshot.read` (``io.BytesIO(data)``).
    """
    from irframe.io._source import open_source

    try:
        if not Path(path).is_file():
            return False
        with open_source(path) as src:  # gunzipped when gzip
            head = src.stream.read(65536)
    except (OSError, EOFError):
        return False
    return is_snapshot(head)
