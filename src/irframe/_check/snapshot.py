"""Snapshots of a run's per-query values, with fingerprints of what they were computed on.

A snapshot file is JSON meant to be committed next to the golden set: a header (format,
irframe version, canonical measure strings, settings, fingerprints) and one line per
query (``"q01": {"qrels": "<hash>", "nDCG@10": 0.51, ...}``) in natural query order, so a
change of the baseline reads as a diff of the queries that changed.

Fingerprints are the first 16 hex digits of SHA-256 over a canonical text: per query,
the sorted ``doc<TAB>grade`` lines of its judgments (integral grades written as
integers, so ``2`` and ``2.0`` agree); for the queries table its CSV sorted by query
id; for the run its sorted ``query<TAB>doc<TAB>rank<TAB>score`` lines.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from irframe.exceptions import InvalidDataError

__all__ = [
    "FORMAT",
    "Snapshot",
    "natural_key",
    "qrels_fingerprints",
    "queries_fingerprint",
    "run_fingerprint",
]

FORMAT = "irframe-snapshot/1"
_QKEY = "query_id"


def natural_key(qid: str) -> tuple[tuple[int, int, str], ...]:
    """Sort key putting ``q2`` before ``q10`` and ``2`` before ``10``.

    Examples
    --------
    >>> sorted(["q10", "q2", "b", "10", "9"], key=natural_key)
    ['9', '10', 'b', 'q2', 'q10']
    """
    parts = re.split(r"(\d+)", qid)
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in parts if p != "")


def _sha(text: str) -> str:
    import hashlib

    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _as_text(col: str, dtype: pl.DataType) -> pl.Expr:
    """A column as canonical text (integral floats without ``.0``)."""
    expr = pl.col(col)
    if dtype.is_float():
        whole = expr.is_finite() & (expr == expr.round(0))
        return pl.when(whole).then(expr.cast(pl.Int64).cast(pl.String)).otherwise(expr.cast(pl.String))
    return expr.cast(pl.String)


def qrels_fingerprints(qrels: pl.LazyFrame, query_col: str, doc_col: str, rel_col: str) -> dict[str, str]:
    """Per-query fingerprints of the judgments: ``{query_id: hash}``.

    Examples
    --------
    >>> a = pl.LazyFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "relevance": [1, 0]})
    >>> b = pl.LazyFrame({"query_id": ["q1", "q1"], "doc_id": ["b", "a"], "relevance": [0.0, 1.0]})
    >>> qrels_fingerprints(a, "query_id", "doc_id", "relevance") == qrels_fingerprints(
    ...     b, "query_id", "doc_id", "relevance")
    True
    """
    schema = qrels.collect_schema()
    lines = (
        qrels.select(
            pl.col(query_col).cast(pl.String).alias("q"),
            pl.concat_str(
                [_as_text(doc_col, schema[doc_col]), _as_text(rel_col, schema[rel_col])],
                separator="\t",
                ignore_nulls=False,
            )
            .fill_null("<null>")
            .alias("line"),
        )
        .sort("q", "line")
        .group_by("q", maintain_order=True)
        .agg(pl.col("line").str.join("\n"))
        .collect()
    )
    return {q: _sha(text) for q, text in lines.iter_rows() if q is not None}


def combined(per_query: Mapping[str, str]) -> str:
    """One fingerprint for a ``{query: hash}`` mapping."""
    return _sha("\n".join(f"{q}\t{per_query[q]}" for q in sorted(per_query)))


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
    text = (
        run.select(
            pl.concat_str([_as_text(c, schema[c]) for c in present], separator="\t")
            .fill_null("<null>")
            .alias("line")
        )
        .sort("line")
        .collect()
    )
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
    """

    measures: tuple[str, ...]
    values: pl.DataFrame = field(repr=False)
    qrels: dict[str, str] = field(repr=False)
    fingerprints: dict[str, str | None]
    missing: str
    irframe_version: str
    name: str = "<snapshot>"

    @property
    def query_ids(self) -> list[str]:
        """Every query of the snapshot, in natural order."""
        ids = set(self.values[_QKEY].to_list()) | set(self.qrels)
        return sorted(ids, key=natural_key)

    def to_json(self) -> str:
        """The file text: header lines, then one line per query in natural order."""
        rows = {r[_QKEY]: r for r in self.values.iter_rows(named=True)}
        head = {
            "format": FORMAT,
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
        """Write :meth:`to_json` to ``path`` (UTF-8, ``\\n`` line ends)."""
        Path(path).write_text(self.to_json(), encoding="utf-8", newline="\n")

    @classmethod
    def from_json(cls, text: str, name: str = "<snapshot>") -> Snapshot:
        """Parse a snapshot file's text (``name`` is used in error messages)."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            msg = f"{name}: not a snapshot file (invalid JSON at line {exc.lineno}: {exc.msg})."
            raise InvalidDataError(msg) from None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            got = data.get("format") if isinstance(data, dict) else type(data).__name__
            msg = (
                f"{name}: not an irframe snapshot (format {got!r}, expected {FORMAT!r}). "
                "Hint: make one with `irframe snapshot QRELS RUN -o FILE`."
            )
            raise InvalidDataError(msg)
        measures, queries = data.get("measures"), data.get("queries")
        if not isinstance(measures, list) or not isinstance(queries, dict):
            msg = f"{name}: a snapshot needs a 'measures' list and a 'queries' object."
            raise InvalidDataError(msg)
        return cls._from_parts(data, [str(m) for m in measures], queries, name)

    @classmethod
    def _from_parts(
        cls, data: Mapping[str, Any], measures: list[str], queries: Mapping[str, Any], name: str
    ) -> Snapshot:
        columns: dict[str, list[Any]] = {_QKEY: [], **{m: [] for m in measures}}
        qrels: dict[str, str] = {}
        for q, entry in queries.items():
            if not isinstance(entry, dict) or any(m not in entry for m in measures):
                msg = f"{name}: query {q!r} lacks a value for some of {measures}."
                raise InvalidDataError(msg)
            columns[_QKEY].append(str(q))
            for m in measures:
                value = entry[m]
                columns[m].append(None if value is None else float(value))
            if entry.get("qrels") is not None:
                qrels[str(q)] = str(entry["qrels"])
        schema = {_QKEY: pl.String, **dict.fromkeys(measures, pl.Float64)}
        fingerprints = data.get("fingerprints") or {}
        return cls(
            measures=tuple(measures),
            values=pl.DataFrame(columns, schema=schema),
            qrels=qrels,
            fingerprints={k: (None if v is None else str(v)) for k, v in dict(fingerprints).items()},
            missing=str(data.get("missing", "zero")),
            irframe_version=str(data.get("irframe_version", "unknown")),
            name=name,
        )

    @classmethod
    def read(cls, path: str | os.PathLike[str]) -> Snapshot:
        """Read a snapshot file."""
        return cls.from_json(Path(path).read_text(encoding="utf-8"), name=str(path))


def is_snapshot_file(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` looks like a snapshot file (a JSON object naming the format)."""
    try:
        with Path(path).open("rb") as fh:
            head = fh.read(4096)
    except OSError:
        return False
    return head.lstrip().startswith(b"{") and FORMAT.encode() in head
