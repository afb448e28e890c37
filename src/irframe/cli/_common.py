"""What the subcommands share: common options, reading inputs, progress notes, rendering."""

from __future__ import annotations

import argparse
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TextIO

from irframe.cli._measures_util import resolve_measures
from irframe.exceptions import CliError

if TYPE_CHECKING:
    import polars as pl

    from irframe.measures import Measure

__all__ = [
    "DEFAULT_MEASURES",
    "EXIT_USAGE",
    "FORMATS",
    "CliError",
    "SubParsers",
    "load_plugins",
    "render_table",
]

DEFAULT_MEASURES = ("nDCG@10", "P@10", "R@100", "RR", "AP")
FORMATS = ("table", "tsv", "csv", "json", "trec")
EXIT_USAGE = 2
# decimals of -f tsv/csv without --precision; None = every digit (issue 12 asks 4: the lead flips it
# once the tests that compare tsv output at 1e-12 are updated)
TEXT_PRECISION: int | None = None

SubParsers = Any  # argparse._SubParsersAction, private in typeshed


# --- options ------------------------------------------------------------------------------
def _common() -> argparse.ArgumentParser:
    """Options every subcommand accepts."""
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("--debug", action="store_true", help="show the traceback on errors")
    p.add_argument(
        "--progress",
        action="store_true",
        help="report slow reads on stderr even when it is not a terminal",
    )
    p.add_argument(
        "--plugin",
        action="append",
        default=[],
        metavar="MODULE",
        help="import a module (dotted name or .py file) that defines measures with "
        "irframe.define_measure; repeatable",
    )
    return p


def load_plugins(names: Sequence[str]) -> None:
    """Import each ``--plugin``: a dotted module name, or a path to a ``.py`` file."""
    import importlib
    import importlib.util
    from pathlib import Path

    for name in names:
        try:
            if name.endswith(".py"):
                path = Path(name)
                if not path.is_file():
                    msg = f"--plugin {name}: no such file. Hint: a .py file or an importable module name."
                    raise CliError(msg)
                spec = importlib.util.spec_from_file_location(f"irframe_plugin_{path.stem}", path)
                if spec is None or spec.loader is None:
                    msg = f"--plugin {name}: cannot load it as a Python module."
                    raise CliError(msg)
                module = importlib.util.module_from_spec(spec)
                sys.modules[spec.name] = module
                spec.loader.exec_module(module)
            else:
                importlib.import_module(name)
        except ImportError as exc:
            msg = (
                f"--plugin {name}: cannot import it ({exc}). Hint: a module on PYTHONPATH "
                "(e.g. mypkg.measures) or a path to a .py file."
            )
            raise CliError(msg) from exc


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


def _add_map(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--map",
        type=_mapping,
        action="append",
        default=[],
        metavar="SRC=DST",
        help="rename a column of table inputs, e.g. --map qid=query_id (repeatable)",
    )


def _add_measure_option(p: argparse.ArgumentParser, help_text: str) -> None:
    p.add_argument(
        "-m",
        "--measure",
        action="append",
        dest="measures",
        metavar="MEASURE",
        help=help_text,
    )


# --- progress -----------------------------------------------------------------------------
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


# --- reading inputs -----------------------------------------------------------------------
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
    from functools import partial

    from irframe.io.sniff import load, load_runs

    if [args.qrels, *args.runs].count("-") > 1:
        msg = "only one input can be read from standard input ('-')"
        raise CliError(msg)
    progress = bool(args.progress or sys.stderr.isatty())
    stdin = sys.stdin.buffer.read() if "-" in [args.qrels, *args.runs] else None
    measures = resolve_measures(args.measures or list(default_measures), args.rel, args.gain)
    mapping = dict(args.map)
    with _progress(f"reading qrels {args.qrels}", progress):
        qrels, _ = load(args.qrels, "qrels", mapping, stdin)
    notes: list[str] = []
    runs = load_runs(args.runs, mapping, stdin, partial(_progress, enabled=progress), notes)
    for note in notes:
        print(f"irframe: note: {note}", file=sys.stderr)
    return measures, qrels, runs, progress


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


def _write(text: str, out: TextIO) -> None:
    out.write(text if text.endswith("\n") or not text else text + "\n")


def _add_precision(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--precision",
        type=int,
        metavar="N",
        help="decimals of table/tsv/csv output (default: 4 for table, every digit for tsv/csv; "
        "json always keeps every digit)",
    )


def _emit(
    df: pl.DataFrame,
    fmt: str,
    out: TextIO,
    *,
    mark_best: Sequence[str] = (),
    precision: int | None = None,
) -> None:
    """Write ``df`` as ``fmt``; ``precision`` rounds the float columns of table/tsv/csv."""
    import polars as pl

    if precision is not None and precision < 0:
        msg = f"--precision must be >= 0, got {precision}"
        raise CliError(msg)
    if fmt == "table":
        _write(render_table(df, decimals=4 if precision is None else precision, mark_best=mark_best), out)
    elif fmt in ("tsv", "csv"):
        if precision is None:
            precision = TEXT_PRECISION
        if precision is not None:
            df = df.with_columns(pl.col(pl.Float32, pl.Float64).round(precision))
        _write(df.write_csv(separator="\t" if fmt == "tsv" else ","), out)
    elif fmt == "json":
        _write(df.write_json(), out)
    else:  # pragma: no cover - guarded by argparse choices
        msg = f"unknown format {fmt!r}"
        raise CliError(msg)


def _default_format(out: TextIO) -> str:
    isatty = getattr(out, "isatty", None)
    return "table" if isatty is not None and isatty() else "tsv"
