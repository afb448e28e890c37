"""The ``irframe`` command line: ``irframe eval``, ``compare``, ``demo``, ``measures``.

``irframe eval QRELS RUN [RUN ...]`` evaluates runs like trec_eval, with irframe's
measure notation and output formats::

    irframe eval qrels.txt bm25.run dense.run -m nDCG@10 -m P@5 -q -f tsv

Inputs may be TREC text files (gzip or not), parquet, CSV, TSV or JSON-lines tables
(by extension, or a CSV/TSV header sniffed from the content), or ``-`` for standard
input.  Errors print one line ``irframe: error: ...`` on stderr and exit with code 2
(``--debug`` shows the traceback instead).

Adding a subcommand: write ``_add_<name>(subparsers)`` that calls
``subparsers.add_parser(...)`` with ``parents=[_common()]`` and
``set_defaults(func=<handler>)``, where the handler takes the parsed
``argparse.Namespace`` and returns the exit code; then append it to ``SUBCOMMANDS``.

Examples
--------
>>> main(["measures"])  # doctest: +ELLIPSIS
Families (ir_measures notation; @k is the rank cutoff; ...
0
"""

from __future__ import annotations

import argparse
import io
import os
import re
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    import polars as pl

    from irframe.measures import Measure

__all__ = ["SUBCOMMANDS", "main"]

DEFAULT_MEASURES = ("nDCG@10", "P@10", "R@100", "RR", "AP")
FORMATS = ("table", "tsv", "csv", "json", "trec")
EXIT_USAGE = 2

# header words that mark a CSV/TSV table rather than a TREC file
_HEADER_WORDS = frozenset(
    {
        "query_id", "doc_id", "qid", "docid", "docno", "query", "doc", "topic", "score",
        "rank", "relevance", "rel", "label", "grade", "system", "run", "pid", "did",
    }
)  # fmt: skip
_TREC_NAME = re.compile(
    r"^(map|ndcg|recip_rank|Rprec|bpref|num_ret|num_rel|num_rel_ret"
    r"|(P|recall|ndcg_cut|map_cut|success|num_ret)_\d+)$"
)

SubParsers = Any  # argparse._SubParsersAction, private in typeshed


class CliError(Exception):
    """A usage problem reported as ``irframe: error: ...`` (exit code 2)."""


# --- small helpers ------------------------------------------------------------------------
def _common() -> argparse.ArgumentParser:
    """Options every subcommand accepts."""
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("--debug", action="store_true", help="show the traceback on errors")
    p.add_argument(
        "--progress",
        action="store_true",
        help="report slow reads on stderr even when it is not a terminal",
    )
    return p


@contextmanager
def _progress(label: str, enabled: bool, after: float = 2.0) -> Iterator[None]:
    """Say on stderr what is being read when it takes more than ``after`` seconds."""
    if not enabled:
        yield
        return
    start = time.perf_counter()
    shown = threading.Event()

    def announce() -> None:
        shown.set()
        print(f"irframe: {label} ...", file=sys.stderr, flush=True)

    timer = threading.Timer(after, announce)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        if shown.is_set():
            took = time.perf_counter() - start
            print(f"irframe: {label}: done in {took:.1f} s", file=sys.stderr, flush=True)


def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        msg = f"expected a number, got {text!r}"
        raise argparse.ArgumentTypeError(msg) from None
    return int(value) if value.is_integer() else value


def _mapping(text: str) -> tuple[str, str]:
    source, eq, target = text.partition("=")
    if not eq or not source or not target:
        msg = f"expected SOURCE=TARGET (e.g. qid=query_id), got {text!r}"
        raise argparse.ArgumentTypeError(msg)
    return source, target


def _explicit_params(spec: str) -> set[str]:
    """Parameter names written in a measure string: ``P(rel=2)@5`` -> ``{"rel"}``."""
    m = re.search(r"\((.*)\)", spec)
    if not m:
        return set()
    return {part.split("=", 1)[0].strip() for part in m.group(1).split(",") if "=" in part}


def resolve_measures(
    specs: Sequence[str], rel: float | None = None, gain: str | None = None
) -> list[str | Measure]:
    """Apply ``--rel`` and ``--gain`` to the measures that do not set them.

    A measure left unchanged keeps the user's spelling (its output label); a changed one
    is labelled by its canonical form, e.g. ``P(rel=2)@5``.  trec_eval names keep their
    meaning: ``--rel`` applies to them (like trec_eval's ``-l``), ``--gain`` does not
    (``ndcg_cut_10`` is linear by definition).

    Examples
    --------
    >>> resolve_measures(["P@5", "P(rel=3)@5", "nDCG@10", "ndcg_cut_10"], rel=2, gain="linear")
    [P(rel=2)@5, 'P(rel=3)@5', nDCG(gain=linear)@10, 'ndcg_cut_10']
    """
    from irframe.measures import FAMILIES, parse_measure

    out: list[str | Measure] = []
    for spec in specs:
        m = parse_measure(spec)
        explicit = _explicit_params(spec)
        new = m
        if rel is not None and "rel" in FAMILIES[m.family].params.names and "rel" not in explicit:
            new = new(rel=rel)
        if (
            gain is not None
            and "gain" in FAMILIES[m.family].params.names
            and not explicit & {"gain", "gains"}
            and not _TREC_NAME.match(spec.strip())
        ):
            new = new(gain=gain)
        out.append(spec if new == m else new)
    return out


# --- reading inputs -----------------------------------------------------------------------
def _read_bytes(path: str) -> bytes:
    if path == "-":
        return sys.stdin.buffer.read()
    return Path(path).read_bytes()


def _sniff_table(head: bytes) -> str | None:
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


def _head(path: str) -> bytes:
    with Path(path).open("rb") as fh:
        return fh.read(65536)


def _load(path: str, kind: str, mapping: dict[str, str], stdin: bytes | None) -> tuple[pl.DataFrame, bool]:
    """Read one input; returns the frame and whether it was a TREC text file."""
    import polars as pl

    from irframe.io import read_table, read_trec_qrels, read_trec_run, scan_table
    from irframe.io.tables import detect_format

    p = Path(path)
    if path != "-" and (p.is_dir() or not p.exists()):
        what = "is a directory" if p.is_dir() else "does not exist"
        msg = f"the {kind} file {path!r} {what}"
        raise CliError(msg)
    # stdin and pipes (<(zcat run.gz)) are read once, up front; files are left to polars
    data = stdin if path == "-" else None if p.is_file() else p.read_bytes()
    fmt = None if path == "-" else detect_format(path)
    if fmt is not None and data is None:
        # --map applies to every table input that has the column
        present = scan_table(path, format=fmt).collect_schema().names() if mapping else []
        used = {k: v for k, v in mapping.items() if k in present}
        return read_table(path, columns=used or None, format=fmt), False
    sep = _sniff_table(data[:65536] if data is not None else _head(path))
    if sep is not None or fmt in ("csv", "tsv"):
        sep = sep or ("," if fmt == "csv" else "\t")
        source: Any = data if data is not None else path
        header = pl.read_csv(source, separator=sep, n_rows=0).columns
        ids = {c for c in header if mapping.get(c, c) in ("query_id", "doc_id")}
        df = pl.read_csv(
            source,
            separator=sep,
            infer_schema_length=10_000,
            schema_overrides=dict.fromkeys(ids, pl.String),
        )
        return df.rename({k: v for k, v in mapping.items() if k in df.columns}), False
    if fmt is not None:
        msg = f"cannot read a {fmt} table from a pipe ({path!r}); save it to a file first"
        raise CliError(msg)
    src: Any = path
    if data is not None:
        src = io.BytesIO(data)
        src.name = "<stdin>" if path == "-" else path
    if kind == "qrels":
        return read_trec_qrels(src), True
    return read_trec_run(src, system="system"), True


def _system_names(paths: Sequence[str], tags: Sequence[list[str] | None]) -> list[str]:
    """The run tags when each file has one and they differ, else the file names."""
    from irframe.io._source import strip_suffixes

    single = [t[0] if t is not None and len(t) == 1 else None for t in tags]
    if all(s is not None for s in single) and len(set(single)) == len(single):
        return [str(s) for s in single]
    names = [strip_suffixes(p) if p != "-" else "stdin" for p in paths]
    if len(set(names)) != len(names):
        names = list(paths)
    return names


def _load_runs(
    paths: Sequence[str], mapping: dict[str, str], stdin: bytes | None, progress: bool
) -> pl.DataFrame:
    import polars as pl

    frames: list[pl.DataFrame] = []
    tags: list[list[str] | None] = []
    for p in paths:
        with _progress(f"reading run {p}", progress):
            df, is_trec = _load(p, "run", mapping, stdin)
        frames.append(df)
        if is_trec or "system" in df.columns:
            tags.append(df["system"].unique().to_list())
        else:
            tags.append(None)
    names = _system_names(paths, tags)
    out = []
    for df, name, is_table_system in zip(
        frames, names, [t is not None and len(t) > 1 for t in tags], strict=True
    ):
        if is_table_system:
            out.append(df)  # a stacked table of several systems: keep their names
        else:
            out.append(df.with_columns(pl.lit(name, dtype=pl.String).alias("system")))
    return pl.concat(out, how="diagonal_relaxed")


# --- output -------------------------------------------------------------------------------
def _fmt_value(v: object, decimals: int = 4) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.{decimals}f}"
    return str(v)


def render_table(df: pl.DataFrame, decimals: int = 4, mark_best: Sequence[str] = ()) -> str:
    """Aligned plain-text table: text left-aligned, numbers right-aligned, 4 decimals.

    Columns in ``mark_best`` get a ``*`` after their highest value.

    Examples
    --------
    >>> import polars as pl
    >>> print(render_table(pl.DataFrame({"system": ["a", "bb"], "AP": [0.5, 0.25]}), mark_best=["AP"]))
    system      AP
    a       0.5000*
    bb      0.2500
    """
    cols = df.columns
    numeric = {c for c in cols if df.schema[c].is_numeric()}
    best: dict[str, object] = {}
    for c in mark_best:
        if c in numeric and df[c].drop_nulls().len():
            best[c] = df[c].max()
    cells = [[c + " " if c in best else c for c in cols]]
    for row in df.iter_rows():
        line = []
        for c, v in zip(cols, row, strict=True):
            text = _fmt_value(v, decimals)
            if c in best:
                text += "*" if v == best[c] else " "
            line.append(text)
        cells.append(line)
    widths = [max(len(r[i]) for r in cells) for i in range(len(cols))]
    out = []
    for r in cells:
        parts = []
        for i, c in enumerate(cols):
            if c in numeric:
                parts.append(r[i].rjust(widths[i]))
            else:
                parts.append(r[i].ljust(widths[i]))
        out.append("  ".join(parts).rstrip())
    return "\n".join(out)


def _trec_value(label: str, value: float | None, count: bool) -> str:
    if value is None:
        return f"{label:<22}\t"
    if count:
        return f"{round(value)}"
    return f"{value:6.4f}"


def render_trec(
    per_query: pl.DataFrame,
    summary: pl.DataFrame,
    labels: Sequence[str],
    counts: set[str],
    *,
    show_queries: bool,
) -> str:
    """trec_eval's layout ``measure<TAB>query<TAB>value``, 4 decimals, one block per system.

    Per-query rows (``-q``) come first, then ``runid``, ``num_q`` and the ``all`` rows.
    Counting measures (``NumRet``, ``NumRel``, ``NumRelRet``) are summed in ``all``, as
    trec_eval does; the others are means.
    """
    import polars as pl

    lines: list[str] = []
    for (system,), block in summary.group_by("system", maintain_order=True):
        pq = per_query.filter(pl.col("system") == system)
        if show_queries:
            judged = pq.filter(pl.any_horizontal(pl.col(list(labels)).is_not_null()))
            for row in judged.iter_rows(named=True):
                for label in labels:
                    value = row[label]
                    if value is None:
                        continue
                    text = _trec_value(label, value, label in counts)
                    lines.append(f"{label:<22}\t{row['query_id']}\t{text}")
        srow = block.row(0, named=True)
        lines.append(f"{'runid':<22}\tall\t{system}")
        lines.append(f"{'num_q':<22}\tall\t{srow['n_queries']}")
        for label in labels:
            value = srow[label]
            if label in counts:
                value = pq[label].sum()
            text = _trec_value(label, value, label in counts)
            lines.append(f"{label:<22}\tall\t{text}")
    return "\n".join(lines)


def _write(text: str, out: TextIO) -> None:
    out.write(text if text.endswith("\n") or not text else text + "\n")


def _emit(
    df: pl.DataFrame,
    fmt: str,
    out: TextIO,
    *,
    mark_best: Sequence[str] = (),
) -> None:
    if fmt == "table":
        _write(render_table(df, mark_best=mark_best), out)
    elif fmt in ("tsv", "csv"):
        _write(df.write_csv(separator="\t" if fmt == "tsv" else ","), out)
    elif fmt == "json":
        _write(df.write_json(), out)
    else:  # pragma: no cover - guarded by argparse choices
        msg = f"unknown format {fmt!r}"
        raise CliError(msg)


def _default_format(out: TextIO) -> str:
    isatty = getattr(out, "isatty", None)
    return "table" if isatty is not None and isatty() else "tsv"


# --- eval ---------------------------------------------------------------------------------

def _add_missing_and_duplicates(p: argparse.ArgumentParser) -> None:
    """The input rules shared by every evaluating subcommand."""
    p.add_argument(
        "--missing",
        choices=("zero", "drop", "error"),
        default="zero",
        help="judged queries absent from a run: score 0 (default, trec_eval -c), drop, error",
    )
    p.add_argument(
        "--duplicates",
        choices=("error", "first"),
        default="error",
        help="a document twice in one query's ranking: error (default, like trec_eval) or "
        "keep its best-ranked row",
    )

def _add_eval(sub: SubParsers) -> None:
    p = sub.add_parser(
        "eval",
        parents=[_common()],
        help="evaluate runs against qrels (like trec_eval)",
        description=(
            "Evaluate one or more runs against judgments. Several runs give one table "
            "with a system column (the run tag, or the file name when tags collide)."
        ),
        epilog=(
            "Measures: ir_measures notation (nDCG@10, P(rel=2)@5, nDCG(gain=linear)@10, RR, "
            "AP@100) or trec_eval names (ndcg_cut_10, P_5, map, recip_rank); see "
            "'irframe measures'. Default format: 'table' on a terminal, 'tsv' when piped. "
            "'trec' is trec_eval's layout: measure, query, value (4 decimals), one block per "
            "system with runid, num_q and 'all' rows (means; NumRet/NumRel/NumRelRet summed)."
        ),
    )
    p.add_argument("qrels", metavar="QRELS", help="judgments: TREC qrels, parquet, CSV/TSV or -")
    p.add_argument("runs", metavar="RUN", nargs="+", help="runs: TREC run, parquet, CSV/TSV or -")
    p.add_argument(
        "-m",
        "--measure",
        action="append",
        dest="measures",
        metavar="MEASURE",
        help=f"measure to compute (repeatable; default: {' '.join(DEFAULT_MEASURES)})",
    )
    p.add_argument("-q", "--per-query", action="store_true", help="one row per query")
    p.add_argument(
        "--by",
        action="append",
        default=[],
        metavar="COLUMN",
        help="also break down by this column of the run or qrels table (repeatable)",
    )
    _add_missing_and_duplicates(p)
    p.add_argument(
        "--rel",
        type=_number,
        metavar="N",
        help="relevance threshold for measures that do not set rel= (trec_eval -l; nDCG unaffected)",
    )
    p.add_argument(
        "--gain",
        choices=("exp", "linear"),
        help="nDCG gain for nDCG measures that do not set gain= (default exp: 2^rel-1)",
    )
    p.add_argument("-f", "--format", choices=FORMATS, help="output format (see below)")
    p.add_argument(
        "--map",
        type=_mapping,
        action="append",
        default=[],
        metavar="SRC=DST",
        help="rename a column of table inputs, e.g. --map qid=query_id (repeatable)",
    )
    p.set_defaults(func=cmd_eval)


def _attach_query_attributes(runs: pl.DataFrame, qrels: pl.DataFrame, by: Sequence[str]) -> pl.DataFrame:
    """Copy ``--by`` columns that only the qrels carry (query attributes) onto the run rows."""
    attrs = [b for b in by if b not in runs.columns and b in qrels.columns]
    if not attrs or "query_id" not in qrels.columns or "query_id" not in runs.columns:
        return runs
    table = qrels.select("query_id", *attrs).unique()
    dup = table["query_id"].is_duplicated()
    if dup.any():
        q = table.filter(dup)["query_id"][0]
        msg = f"--by {attrs[0]}: query {q!r} has several values in the qrels; a query attribute needs one"
        raise CliError(msg)
    return runs.join(table, on="query_id", how="left")


def _read_inputs(
    args: argparse.Namespace, default_measures: Sequence[str]
) -> tuple[list[str | Measure], pl.DataFrame, pl.DataFrame, bool]:
    """Measures, qrels and stacked runs of an evaluating subcommand (stdin read once)."""
    if [args.qrels, *args.runs].count("-") > 1:
        msg = "only one input can be read from standard input ('-')"
        raise CliError(msg)
    progress = bool(args.progress or sys.stderr.isatty())
    stdin = sys.stdin.buffer.read() if "-" in [args.qrels, *args.runs] else None
    measures = resolve_measures(args.measures or list(default_measures), args.rel, args.gain)
    mapping = dict(args.map)
    with _progress(f"reading qrels {args.qrels}", progress):
        qrels, _ = _load(args.qrels, "qrels", mapping, stdin)
    runs = _load_runs(args.runs, mapping, stdin, progress)
    return measures, qrels, runs, progress


def cmd_eval(args: argparse.Namespace) -> int:
    """Run ``irframe eval``."""
    import irframe

    measures, qrels, runs, progress = _read_inputs(args, DEFAULT_MEASURES)
    by = ["system", *[b for b in args.by if b != "system"]]
    runs = _attach_query_attributes(runs, qrels, by)
    labels = [m if isinstance(m, str) else str(m) for m in measures]
    fmt = args.format or _default_format(sys.stdout)
    if fmt == "trec" and len(by) > 1:
        msg = "--format trec cannot show --by breakdowns; use table, tsv, csv or json"
        raise CliError(msg)
    with _progress("evaluating", progress):
        kwargs: dict[str, Any] = {"by": by, "missing": args.missing, "duplicates": args.duplicates}
        per_query = irframe.evaluate(runs, measures, qrels, per_query=True, **kwargs)
        summary = irframe.evaluate(runs, measures, qrels, **kwargs)
    if fmt == "trec":
        from irframe.measures import parse_measure

        counts = {
            lab
            for lab, m in zip(labels, measures, strict=True)
            if parse_measure(m).family in ("NumRet", "NumRel", "NumRelRet")
        }
        text = render_trec(per_query, summary, labels, counts, show_queries=args.per_query)
        _write(text, sys.stdout)
        return 0
    table = per_query if args.per_query else summary
    if fmt == "table" and not args.per_query:
        best = labels if table.height > 1 and len(by) == 1 else ()
        _emit(table, fmt, sys.stdout, mark_best=best)
    else:
        _emit(table, fmt, sys.stdout)
    return 0


# --- demo ---------------------------------------------------------------------------------
def _add_demo(sub: SubParsers) -> None:
    p = sub.add_parser(
        "demo",
        parents=[_common()],
        help="evaluate the bundled golden set (3 systems, 40 queries)",
        description=(
            "Evaluate the three bundled golden runs (bm25, dense, hybrid) against the golden "
            "qrels: measures side by side, then nDCG@10 per query segment."
        ),
    )
    p.add_argument(
        "-m",
        "--measure",
        action="append",
        dest="measures",
        metavar="MEASURE",
        help=f"measures to show (default: {' '.join(DEFAULT_MEASURES)})",
    )
    p.set_defaults(func=cmd_demo)


def cmd_demo(args: argparse.Namespace) -> int:
    """Run ``irframe demo``."""
    import polars as pl

    import irframe
    from irframe.datasets import golden

    g = golden()
    measures = list(args.measures or DEFAULT_MEASURES)
    labels = [str(m) for m in measures]
    per_query = irframe.evaluate(g.runs, measures, g.qrels, by="system", per_query=True)
    summary = irframe.evaluate(g.runs, measures, g.qrels, by="system")
    segments = g.queries.select("query_id", "segment")
    counts = dict(g.queries.group_by("segment").len().iter_rows())
    order = ["navigational", "informational", "long-tail"]
    order += sorted(s for s in counts if s not in order)
    first = labels[0]
    by_segment = (
        per_query.join(segments, on="query_id", how="left")
        .group_by("system", "segment")
        .agg(pl.col(first).mean())
        .pivot(on="segment", index="system", values=first)
        .sort("system")
    )
    by_segment = by_segment.select("system", *[s for s in order if s in by_segment.columns])
    out = sys.stdout
    n_judged = g.qrels.height
    systems = ", ".join(sorted(g.runs["system"].unique()))
    print(
        "The golden set bundled with irframe: an invented help-center search (Voltmart).\n"
        f"{g.queries.height} queries in {len(counts)} segments, {n_judged} graded judgments (0-3), "
        f"3 systems ({systems}).\n",
        file=out,
    )
    print(f"Means over {summary['n_queries'][0]} queries (* = best):", file=out)
    print(render_table(summary.select("system", *labels).sort("system"), mark_best=labels), file=out)
    seg_names = ", ".join(f"{counts[s]} {s}" for s in order if s in counts)
    print(f"\n{first} by query segment ({seg_names}):", file=out)
    print(render_table(by_segment, mark_best=by_segment.columns[1:]), file=out)
    folder = g.paths.qrels.parent
    print(
        f"\nThe files (TREC qrels and runs, TSV queries and docs) are in {folder}\n"
        f"Per query, from the files:  cd {folder} && irframe eval qrels.txt runs/*.run -q",
        file=out,
    )
    return 0


# --- measures -----------------------------------------------------------------------------
def _add_measures(sub: SubParsers) -> None:
    p = sub.add_parser(
        "measures",
        parents=[_common()],
        help="list the known measures, their parameters and aliases",
    )
    p.set_defaults(func=cmd_measures)


_PARAM_DISPLAY = {"rel": "rel=1", "gain": "gain=exp", "gains": "gains={g:v}"}


def cmd_measures(args: argparse.Namespace) -> int:
    """Run ``irframe measures``: the registry, as text."""
    from irframe.measures import ALIASES, FAMILIES

    rows = []
    for name, fam in FAMILIES.items():
        cut = {"required": "@k", "optional": "[@k]", "none": ""}[fam.cutoff]
        shown = [_PARAM_DISPLAY.get(p.name, f"{p.name}=...") for p in fam.params]
        params = "(" + ",".join(shown) + ")" if shown else ""
        rows.append((f"{name}{params}{cut}", fam.description, fam.trec_name or "-"))
    w0 = max(len(r[0]) for r in rows)
    w1 = max(len(r[1]) for r in rows)
    print("Families (ir_measures notation; @k is the rank cutoff; parameters shown with defaults):")
    print(f"  {'measure':<{w0}}  {'what it measures':<{w1}}  trec_eval")
    for a, b, c in rows:
        print(f"  {a:<{w0}}  {b:<{w1}}  {c}")
    print("\nAliases: " + ", ".join(f"{k} = {v}" for k, v in ALIASES.items()))
    print(
        "Examples: nDCG@10, P(rel=2)@5, nDCG(gain=linear)@10, nDCG(gains={0:0,1:1,2:5}), "
        "AP@100, RR; trec_eval names: ndcg_cut_10, P_5, recall_100, map, recip_rank."
    )
    return 0


# --- compare ------------------------------------------------------------------------------
COMPARE_FORMATS = ("table", "tsv", "csv", "json", "markdown", "latex")


def _add_compare(sub: SubParsers) -> None:
    p = sub.add_parser(
        "compare",
        parents=[_common()],
        help="compare runs with a baseline: deltas, CIs, corrected significance tests",
        description=(
            "Compare every run with the baseline run on each measure: paired means, delta, "
            "bootstrap CI of the delta, two-sided paired test per query, p-values corrected "
            "over all the comparisons in the table, wins/ties/losses."
        ),
        epilog=(
            "Markers in the table format: ▲/▼ significantly better/worse after the correction, "
            "△/▽ p < alpha before the correction only. Formats tsv, csv and json give the tidy "
            "table of irframe.compare(); markdown and latex the report table."
        ),
    )
    p.add_argument("qrels", metavar="QRELS", help="judgments: TREC qrels, parquet, CSV/TSV or -")
    p.add_argument("runs", metavar="RUN", nargs="+", help="runs (two or more, or one stacked table)")
    p.add_argument("-b", "--baseline", metavar="NAME", help="baseline system (default: the first run)")
    p.add_argument(
        "-m",
        "--measure",
        action="append",
        dest="measures",
        metavar="MEASURE",
        help="measure to compare (repeatable; default: nDCG@10 RR R@100)",
    )
    p.add_argument(
        "-t",
        "--test",
        choices=("randomization", "t", "wilcoxon", "bootstrap"),
        default="randomization",
        help="paired two-sided test (default: randomization, exact up to 16 non-zero deltas)",
    )
    p.add_argument(
        "-c",
        "--correction",
        choices=("holm", "bonferroni", "bh", "none"),
        default="holm",
        help="multiple-testing correction over all comparisons (default: holm)",
    )
    p.add_argument("--alpha", type=float, default=0.05, help="significance level (default: 0.05)")
    p.add_argument(
        "--by",
        action="append",
        default=[],
        metavar="COLUMN",
        help="compare within groups of queries, e.g. a query-type column (repeatable)",
    )
    _add_missing_and_duplicates(p)
    p.add_argument("--permutations", type=int, default=10_000, metavar="N", help="random sign vectors")
    p.add_argument("--bootstrap", type=int, default=10_000, metavar="N", help="bootstrap resamples")
    p.add_argument("--seed", type=int, default=0, help="seed of the Monte-Carlo steps (default: 0)")
    p.add_argument("--rel", type=_number, metavar="N", help="relevance threshold (trec_eval -l)")
    p.add_argument("--gain", choices=("exp", "linear"), help="nDCG gain (default exp: 2^rel-1)")
    p.add_argument("-f", "--format", choices=COMPARE_FORMATS, help="output format (see below)")
    p.add_argument(
        "--map",
        type=_mapping,
        action="append",
        default=[],
        metavar="SRC=DST",
        help="rename a column of table inputs, e.g. --map qid=query_id (repeatable)",
    )
    p.set_defaults(func=cmd_compare)


def cmd_compare(args: argparse.Namespace) -> int:
    """Run ``irframe compare``."""
    from irframe.compare import DEFAULT_MEASURES as COMPARE_MEASURES
    from irframe.compare import compare_report

    measures, qrels, runs, progress = _read_inputs(args, COMPARE_MEASURES)
    with _progress("comparing", progress):
        report = compare_report(
            runs,
            qrels,
            measures,
            baseline=args.baseline,
            test=args.test,
            correction=args.correction,
            by=[b for b in args.by if b != "system"] or None,
            alpha=args.alpha,
            n_permutations=args.permutations,
            n_bootstrap=args.bootstrap,
            seed=args.seed,
            missing=args.missing,
            duplicates=args.duplicates,
        )
    fmt = args.format or _default_format(sys.stdout)
    if fmt == "table":
        try:
            "▲▼△▽".encode(sys.stdout.encoding or "ascii")
            plain = False
        except (LookupError, UnicodeEncodeError):
            plain = True  # a terminal that cannot show the markers gets ASCII ones
        _write(report.to_text(ascii=plain), sys.stdout)
    elif fmt == "markdown":
        _write(report.to_markdown(), sys.stdout)
    elif fmt == "latex":
        _write(report.to_latex(), sys.stdout)
    else:
        _emit(report.table, fmt, sys.stdout)
    return 0


# --- entry point --------------------------------------------------------------------------
SUBCOMMANDS: list[Callable[[SubParsers], None]] = [_add_eval, _add_compare, _add_demo, _add_measures]


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("irframe")
    except Exception:  # metadata missing in a source checkout
        return "unknown"


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="irframe",
        description="Information-retrieval evaluation with trec_eval's numbers.",
        epilog="Start with: irframe demo",
    )
    parser.add_argument("--version", action="version", version=f"irframe {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for register in SUBCOMMANDS:
        register(sub)
    return parser


# library hints, said the command line's way
_CLI_SPELLING = {
    "duplicates='first'": "--duplicates first",
    "missing='zero'": "--missing zero",
    "missing='drop'": "--missing drop",
}


def _one_line(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    for library, cli in _CLI_SPELLING.items():
        text = text.replace(library, cli)
    return " ".join(part.strip() for part in text.splitlines() if part.strip())


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``irframe`` command; returns the exit code.

    Parameters
    ----------
    argv : sequence of str, optional
        Arguments without the program name (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        0 on success, 2 on a usage or data error (message on stderr).

    Examples
    --------
    >>> main(["eval", "no-such-qrels.txt", "no-such.run"])
    2
    """
    parser = _build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return EXIT_USAGE
    debug = bool(getattr(args, "debug", False))
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        print("irframe: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader of our output went away (e.g. `| head`): not an error
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except Exception as exc:
        import polars as pl

        from irframe.exceptions import IrFrameError

        known = (CliError, IrFrameError, OSError, pl.exceptions.PolarsError, UnicodeDecodeError)
        if debug:
            raise
        if isinstance(exc, known):
            print(f"irframe: error: {_one_line(exc)}", file=sys.stderr)
        else:
            print(
                f"irframe: error: unexpected {type(exc).__name__}: {_one_line(exc)} "
                "(run with --debug for the traceback)",
                file=sys.stderr,
            )
        return EXIT_USAGE
