"""What the subcommands share: common options, reading inputs, progress notes, rendering."""

from __future__ import annotations

import argparse
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TextIO

from irframe._input.options import CHOICES, PRESETS, Options
from irframe.cli._measures_util import resolve_measures
from irframe.exceptions import CliError

if TYPE_CHECKING:
    import polars as pl

    from irframe.measures import Measure

__all__ = [
    "DEFAULT_MEASURES",
    "EXIT_DATA",
    "EXIT_USAGE",
    "FORMATS",
    "CliError",
    "SubParsers",
    "load_plugins",
    "render_table",
]

DEFAULT_MEASURES = ("nDCG@10", "P@10", "R@100", "RR", "AP")
FORMATS = ("table", "tsv", "csv", "json", "trec")
EXIT_USAGE = 2  # a usage error: bad option, bad combination of arguments
EXIT_DATA = 1  # a data or measure error: unreadable input, unknown measure, bad rows
# decimals of -f table/tsv/csv without --precision (-f json keeps every digit)
TEXT_PRECISION: int | None = 4

SubParsers = Any  # argparse._SubParsersAction, private in typeshed


# --- options ------------------------------------------------------------------------------
def _common() -> argparse.ArgumentParser:
    """Options every subcommand accepts."""
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("--debug", action="store_true", help="show the traceback on errors")
    p.add_argument(
        "--progress",
        action="store_true",
        help="report progress on stderr even when it is not a terminal (default: on a terminal)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress and no notes on stderr")
    p.add_argument(
        "--plugin",
        action="append",
        default=[],
        metavar="MODULE",
        help="import a module (dotted name or .py file) that defines measures with "
        "irframe.define_measure; repeatable",
    )
    return p


def _add_queries(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--queries",
        metavar="FILE",
        help="queries table (query_id and attributes such as segment) whose columns --by can use",
    )


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
        choices=CHOICES["missing"],
        default=Options.missing,
        help="judged queries absent from a run: score 0 (default, trec_eval -c), drop, error",
    )
    p.add_argument(
        "--duplicates",
        choices=CHOICES["duplicates"],
        default=Options.duplicates,
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
    p.add_argument(
        "--columns",
        choices=tuple(PRESETS),
        help="column convention of table inputs: pyterrier (qid, docno, score, rank; qrels label), "
        "ir_measures (query_id, doc_id, score, relevance), ranx (q_id, doc_id, score); --map wins",
    )
    p.add_argument(
        "--order",
        choices=CHOICES["order"],
        help="what orders the documents: rank, score, or auto (default: rank when present, else "
        "score; an error when both are present and disagree)",
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
def _measures(specs: Sequence[str], rel: float | None, gain: str | None) -> list[str | Measure]:
    """The ``-m`` measures; a bad one (``P@0`` as well as ``nDGC@10``) is a measure error (exit 1)."""
    from irframe.exceptions import InvalidParameterError, UnknownMeasureError

    try:
        return resolve_measures(specs, rel, gain)
    except InvalidParameterError as exc:
        raise UnknownMeasureError(str(exc)) from exc


def _preset_maps(name: str | None) -> tuple[dict[str, str], dict[str, str], str | None]:
    """``--columns NAME`` as renames of the run's and the qrels' columns, and its order rule."""
    if name is None:
        return {}, {}, None
    o = Options.build(columns=name)
    run = {o.query_col: "query_id", o.doc_col: "doc_id", o.score_col: "score", o.relevance_col: "relevance"}
    if o.rank_col is not None:
        run[o.rank_col] = "rank"
    q, d, r = o.qrels_columns
    qrels = {q: "query_id", d: "doc_id", r: "relevance"}
    return (
        {k: v for k, v in run.items() if k != v},
        {k: v for k, v in qrels.items() if k != v},
        "score" if o.rank_col is None else None,
    )


def _read_inputs(
    args: argparse.Namespace, default_measures: Sequence[str]
) -> tuple[list[str | Measure], pl.DataFrame, pl.DataFrame, bool]:
    """Measures, qrels and stacked runs of an evaluating subcommand (stdin read once)."""
    from functools import partial

    from irframe.io.sniff import load, load_queries, load_runs
    from irframe.measures import parse_measures
    from irframe.measures.diversity import is_diversity

    if [args.qrels, *args.runs].count("-") > 1:
        msg = "only one input can be read from standard input ('-')"
        raise CliError(msg)
    progress = not getattr(args, "quiet", False) and bool(args.progress or sys.stderr.isatty())
    stdin = sys.stdin.buffer.read() if "-" in [args.qrels, *args.runs] else None
    measures = _measures(args.measures or list(default_measures), args.rel, args.gain)
    run_map, qrels_map, order = _preset_maps(getattr(args, "columns", None))
    args.order = getattr(args, "order", None) or order or "auto"
    # the inputs now carry irframe's names: no detection of another convention
    args.convention = "irframe" if getattr(args, "columns", None) else None
    mapping = dict(args.map)
    # TREC qrels keep their second field (the subtopic) when a diversity measure reads it
    subtopics = any(is_diversity(m) for _, m in parse_measures(measures))
    with _progress(f"reading qrels {args.qrels}", progress):
        qrels, _ = load(args.qrels, "qrels", {**qrels_map, **mapping}, stdin, subtopics=subtopics)
    notes: list[str] = []
    runs = load_runs(args.runs, {**run_map, **mapping}, stdin, partial(_progress, enabled=progress), notes)
    for note in notes if not getattr(args, "quiet", False) else []:
        print(f"irframe: note: {note}", file=sys.stderr)
    args.queries_frame = load_queries(args.queries, {}) if getattr(args, "queries", None) else None
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


def gain_note(measures: Sequence[object]) -> str | None:
    """One line naming nDCG/DCG's gain when such a measure is shown (None otherwise).

    Examples
    --------
    >>> print(gain_note(["nDCG@10", "RR"]))
    Note: nDCG@10 uses the gain 2^rel - 1; trec_eval's ndcg_cut is the linear gain:
    nDCG(gain=linear)@10 or --gain linear.
    >>> print(gain_note(["ndcg_cut_10"]))
    Note: ndcg_cut_10 uses the linear gain (rel), as trec_eval does.
    """
    from irframe.measures import parse_measure

    parts: dict[str, list[str]] = {}
    for item in measures:
        m = parse_measure(item)  # type: ignore[arg-type]
        if m.family not in ("nDCG", "DCG"):
            continue
        gain = m.params.get("gain", "exp")
        kind = gain if isinstance(gain, str) else "custom"
        parts.setdefault(kind, []).append(item if isinstance(item, str) else str(item))
    if not parts:
        return None
    said = {
        "exp": "the gain 2^rel - 1",
        "linear": "the linear gain (rel)",
        "custom": "the gains it lists",
    }
    text = "; ".join(f"{', '.join(names)} uses {said.get(k, k)}" for k, names in parts.items())
    if "exp" in parts:
        text += "; trec_eval's ndcg_cut is the linear gain: nDCG(gain=linear)@10 or --gain linear"
    elif set(parts) == {"linear"}:
        text += ", as trec_eval does"
    return f"Note: {text}."


def _write(text: str, out: TextIO) -> None:
    out.write(text if text.endswith("\n") or not text else text + "\n")


def _add_precision(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--precision",
        type=int,
        metavar="N",
        help="decimals of table/tsv/csv output (default: 4; json always keeps every digit)",
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
