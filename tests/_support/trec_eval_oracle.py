"""Run the real trec_eval binary on polars frames (the oracle for trec_eval parity tests).

The binary's path comes from the environment variable ``IRFRAME_TREC_EVAL`` (use a
build that prints 15 decimals, e.g. ``trec_eval_fp``; the stock 4-decimal binary makes
1e-9 comparisons meaningless).  Tests get it through the ``trec_eval`` fixture, which
skips with a message when the variable is unset or points to no file.

``TrecEval.evaluate(qrels, run, ...)`` writes both frames to temporary files in TREC
format and parses the output into a polars frame with columns

* ``measure`` (str): the name trec_eval prints, e.g. ``P_5``, ``iprec_at_recall_0.10``;
* ``query_id`` (str): the query, or ``"all"`` for the summary rows;
* ``value`` (f64): the number, null for the text rows (``runid``, ``relstring``);
* ``text`` (str): the value exactly as printed.

Input frames: qrels ``query_id, doc_id, relevance`` (int grades) and run
``query_id, doc_id, score`` (an optional ``rank`` column is written but trec_eval
ignores it).  Ids are written with ``str()``; scores with ``repr(float)`` so that the
binary reads back the same double.  Ids must not contain whitespace.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

import polars as pl
import pytest

ENV_VAR = "IRFRAME_TREC_EVAL"
DEFAULT_MEASURES: tuple[str, ...] = ("all_trec",)


class TrecEvalError(RuntimeError):
    """trec_eval exited with an error (its stderr is in the message)."""


def _check_ids(name: str, values: Sequence[str]) -> None:
    for v in values:
        if not v or any(c.isspace() for c in v):
            msg = f"{name} {v!r} is empty or contains whitespace; trec_eval cannot read it"
            raise ValueError(msg)


def write_qrels(qrels: pl.DataFrame, path: Path) -> None:
    """``qid 0 docno rel`` lines, in the frame's order."""
    q = [str(x) for x in qrels["query_id"].to_list()]
    d = [str(x) for x in qrels["doc_id"].to_list()]
    g = [int(x) for x in qrels["relevance"].to_list()]
    _check_ids("query_id", q)
    _check_ids("doc_id", d)
    path.write_text("".join(f"{a} 0 {b} {c}\n" for a, b, c in zip(q, d, g, strict=True)))


def write_run(run: pl.DataFrame, path: Path, tag: str = "irframe") -> None:
    """``qid Q0 docno rank sim tag`` lines, in the frame's order (rank = row number per query
    unless the frame has a ``rank`` column; trec_eval ignores it anyway)."""
    q = [str(x) for x in run["query_id"].to_list()]
    d = [str(x) for x in run["doc_id"].to_list()]
    s = [float(x) for x in run["score"].to_list()]
    _check_ids("query_id", q)
    _check_ids("doc_id", d)
    if "rank" in run.columns:
        ranks = [int(x) for x in run["rank"].to_list()]
    else:
        seen: dict[str, int] = {}
        ranks = []
        for qid in q:
            seen[qid] = seen.get(qid, 0) + 1
            ranks.append(seen[qid])
    lines = (f"{a} Q0 {b} {r} {x!r} {tag}\n" for a, b, r, x in zip(q, d, ranks, s, strict=True))
    path.write_text("".join(lines))


def parse_output(text: str) -> pl.DataFrame:
    """trec_eval's ``measure<TAB>query<TAB>value`` lines as a frame (see the module doc)."""
    rows: dict[str, list[object]] = {"measure": [], "query_id": [], "value": [], "text": []}
    for line in text.splitlines():
        if not line.strip():
            continue
        parts = line.split("\t")
        if len(parts) != 3:
            msg = f"unexpected trec_eval output line: {line!r}"
            raise TrecEvalError(msg)
        name, qid, raw = (p.strip() for p in parts)
        try:
            value: float | None = float(raw)
        except ValueError:
            value = None
        rows["measure"].append(name)
        rows["query_id"].append(qid)
        rows["value"].append(value)
        rows["text"].append(raw)
    schema = {"measure": pl.String, "query_id": pl.String, "value": pl.Float64, "text": pl.String}
    return pl.DataFrame(rows, schema=schema)


class TrecEval:
    """The trec_eval binary at ``path``; see :meth:`evaluate`."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __repr__(self) -> str:
        return f"TrecEval({str(self.path)!r})"

    def args(
        self,
        *,
        measures: Sequence[str] = DEFAULT_MEASURES,
        per_query: bool = True,
        complete: bool = True,
        level: int | None = None,
        judged_only: bool = False,
        max_docs: int | None = None,
        num_docs: int | None = None,
        extra: Sequence[str] = (),
    ) -> list[str]:
        """The command-line flags (without the binary and files)."""
        out: list[str] = []
        if per_query:
            out.append("-q")
        if complete:
            out.append("-c")
        if level is not None:
            out.append(f"-l{level}")
        if judged_only:
            out.append("-J")
        if max_docs is not None:
            out += ["-M", str(max_docs)]
        if num_docs is not None:
            out += ["-N", str(num_docs)]
        for m in measures:
            out += ["-m", m]
        return [*out, *extra]

    def run_files(self, qrels_path: Path, run_path: Path, flags: Sequence[str]) -> str:
        """Run the binary on two files and return its stdout (raise on a non-zero exit)."""
        cmd = [str(self.path), *flags, str(qrels_path), str(run_path)]
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=120)
        if proc.returncode != 0:
            msg = f"{' '.join(cmd)} exited with {proc.returncode}: {proc.stderr.strip()}"
            raise TrecEvalError(msg)
        return proc.stdout

    def evaluate(
        self,
        qrels: pl.DataFrame,
        run: pl.DataFrame,
        *,
        measures: Sequence[str] = DEFAULT_MEASURES,
        per_query: bool = True,
        complete: bool = True,
        level: int | None = None,
        judged_only: bool = False,
        max_docs: int | None = None,
        num_docs: int | None = None,
        extra: Sequence[str] = (),
    ) -> pl.DataFrame:
        """Evaluate ``run`` against ``qrels``; default flags ``-q -c -m all_trec``.

        ``level`` is ``-l``, ``judged_only`` ``-J``, ``max_docs`` ``-M``, ``num_docs``
        ``-N``; ``measures`` are ``-m`` arguments (``"all_trec"``, ``"official"``,
        ``"P.5,7"``, ``"dcg"``...); ``extra`` goes verbatim before the file names.
        """
        flags = self.args(
            measures=measures,
            per_query=per_query,
            complete=complete,
            level=level,
            judged_only=judged_only,
            max_docs=max_docs,
            num_docs=num_docs,
            extra=extra,
        )
        with tempfile.TemporaryDirectory(prefix="irframe-trec-") as tmp:
            qp, rp = Path(tmp) / "qrels", Path(tmp) / "run"
            write_qrels(qrels, qp)
            write_run(run, rp)
            return parse_output(self.run_files(qp, rp, flags))


def find_trec_eval() -> TrecEval | None:
    """The binary named by ``IRFRAME_TREC_EVAL``, or None when unset or missing."""
    path = os.environ.get(ENV_VAR)
    if not path or not Path(path).is_file():
        return None
    return TrecEval(Path(path))


def require_trec_eval() -> TrecEval:
    """The binary, or skip the calling test with a message saying how to enable it."""
    path = os.environ.get(ENV_VAR)
    if not path:
        pytest.skip(f"{ENV_VAR} is not set (point it at a trec_eval 10.0 binary printing 15 decimals)")
    if not Path(path).is_file():
        pytest.skip(f"{ENV_VAR}={path!r} is not a file")
    return TrecEval(Path(path))
