"""What the subcommands share: common options, progress notes, rendering.

Reading the inputs is :mod:`irframe.cli._inputs`; the exit codes and the error line are
:mod:`irframe.cli._exit`.
"""

from __future__ import annotations

import argparse
import io
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TextIO

from irframe._escape import terminal
from irframe._input.options import CHOICES, PRESETS, Options
from irframe._report.tables import text_table
from irframe.cli._exit import stage
from irframe.exceptions import CliError

if TYPE_CHECKING:
    import polars as pl

    from irframe.io._write import WriteFormat
    from irframe.measures.trec_m import Asked

__all__ = [
    "CORRECTIONS",
    "DEFAULT_MEASURES",
    "FORMATS",
    "TABLE_FORMATS",
    "CliError",
    "SubParsers",
    "action_usage",
    "add_bootstrap",
    "add_config_options",
    "add_level",
    "add_table_output",
    "add_test_options",
    "gain_note",
    "load_plugins",
    "markers_encodable",
    "refuse_overwriting_inputs",
    "render_long",
    "render_table",
    "say_verdict",
    "shown",
    "terminal_width",
    "write_frame",
    "write_table",
]

# the measures of eval, compare, snapshot, check and demo when -m is not given (check with a
# snapshot baseline: the snapshot's); the same as irframe.compare's and irframe.check's
DEFAULT_MEASURES = ("nDCG@10", "RR", "R@100")
FORMATS = ("table", "tsv", "csv", "json", "trec")
# decimals of -f table/tsv/csv without --precision (-f json keeps every digit)
TEXT_PRECISION: int | None = 4

SubParsers = Any  # argparse._SubParsersAction, private in typeshed
#: --correction's choices (irframe.stats.CORRECTIONS' names; tests/cli/test_options_shared.py)
CORRECTIONS = ("holm", "bonferroni", "bh", "none")


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


def add_test_options(p: argparse.ArgumentParser, *, defaults: bool = True) -> None:
    """``--test`` and ``--correction`` (compare, check); ``defaults=False``: None when not
    given (check takes them from ``[tool.irframe.check]`` then)."""
    p.add_argument(
        "-t",
        "--test",
        choices=("randomization", "t", "wilcoxon", "bootstrap"),
        default="randomization" if defaults else None,
        help="paired two-sided test (default: randomization, exact up to 16 non-zero deltas)",
    )
    p.add_argument(
        "-c",
        "--correction",
        choices=CORRECTIONS,
        default="holm" if defaults else None,
        help="multiple-testing correction over all comparisons (default: holm)",
    )


def add_config_options(p: argparse.ArgumentParser) -> None:
    """``--config FILE`` and ``--no-config`` (snapshot, check)."""
    p.add_argument(
        "--config",
        metavar="FILE",
        help="pyproject.toml with a [tool.irframe.check] table (default: found from the cwd upwards)",
    )
    p.add_argument("--no-config", action="store_true", help="ignore [tool.irframe.check]")


def inputs_with_config(inputs: Sequence[str], config: dict[str, Any], what: str) -> tuple[str, str]:
    """QRELS and the run (or candidate) from the positionals, falling back on the config."""
    if len(inputs) > 2:
        msg = f"expected [QRELS] {what.upper()}, got {len(inputs)} files"
        raise CliError(msg)
    if len(inputs) == 2:
        return inputs[0], inputs[1]
    if "qrels" not in config:
        msg = (
            f"no QRELS given: pass QRELS {what.upper()}, or set qrels in [tool.irframe.check] "
            "of pyproject.toml"
        )
        raise CliError(msg)
    return str(config["qrels"]), inputs[0]


def refuse_overwriting_inputs(output: str | None, inputs: Sequence[str | None]) -> None:
    """A CliError when ``output`` is a directory or names one of the input files (it would be
    replaced); an input directory or glob that would read it next time is refused by the
    writers' own check (:func:`irframe.io._atomic.refuse_input_as_output`)."""
    from pathlib import Path

    from irframe.io._atomic import refuse_input_as_output, would_read

    if output is None or output == "-":
        return
    out = Path(output)
    if out.is_dir():
        msg = f"-o {output}: a directory; name the file to write"
        raise CliError(msg)
    for name in inputs:
        if name is None or name == "-":
            continue
        same = out.exists() and Path(name).exists() and out.samefile(name)
        if same or out.resolve() == Path(name).resolve():
            msg = (
                f"the output {output!r} is also an input ({name}); it would be replaced. "
                "Hint: write to a new file (and move it over the old one once checked)."
            )
            raise CliError(msg)
        if would_read(out, name):
            refuse_input_as_output(out, {"input": name}, "irframe", parameter="-o")


def write_table(df: pl.DataFrame, path: str, fmt: WriteFormat | None = None) -> None:
    """Write ``df`` to ``path`` atomically as ``fmt`` (default: from the file's name); an
    error writing it is an output error (exit 3)."""
    from irframe.cli._exit import writing
    from irframe.io._write import write_frame

    with writing(path):
        write_frame(df, path, fmt)


def markers_encodable() -> bool:
    """Whether standard output can show ▲▼△▽ (else reports use ASCII markers)."""
    try:
        "▲▼△▽".encode(sys.stdout.encoding or "ascii")
    except (LookupError, UnicodeEncodeError):
        return False
    return True


# --- progress -----------------------------------------------------------------------------
@contextmanager
def _progress(label: str, enabled: bool, after: float = 2.0) -> Iterator[None]:
    """Say on stderr what is being read when it takes more than ``after`` seconds; an error
    on the way is reported as having happened there (:func:`irframe.cli._exit.stage`)."""
    if not enabled:
        with stage(label):
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
        with stage(label):
            yield
    finally:
        timer.cancel()
        if shown.is_set():
            took = time.perf_counter() - start
            print(f"irframe: {label}: done in {took:.1f} s", file=sys.stderr, flush=True)


# --- output -------------------------------------------------------------------------------
def _fmt_value(v: object, decimals: int = 4) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.{decimals}f}"
    return terminal(str(v))  # (ids, names and segment values come from the data)


def shown(text: str) -> str:
    r"""Text for a terminal: each line's unprintable characters (``ESC``, ``\r``, bidirectional
    overrides) shown as escapes (:func:`irframe._escape.terminal`), the line breaks kept.

    Examples
    --------
    >>> shown("q1\x1b[2J\nq2\r")
    'q1\\x1b[2J\nq2\\r'
    """
    return "\n".join(terminal(line) for line in text.split("\n"))


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
    cells = [[terminal(c) + (" " if c in best else "") for c in cols]]
    for row in df.iter_rows():
        line = []
        for c, v in zip(cols, row, strict=True):
            text = _fmt_value(v, decimals)
            if c in best:
                text += "*" if v == best[c] else " "
            line.append(text)
        cells.append(line)
    return text_table(
        cells[0], cells[1:], numeric=[i for i, c in enumerate(cols) if c in numeric], rule=False
    )


def terminal_width(out: TextIO) -> int | None:
    """The width a table written to ``out`` must fit in: the terminal's (or ``COLUMNS``)
    when ``out`` is a terminal or ``COLUMNS`` is set; None (any width) otherwise."""
    import os
    import shutil

    isatty = getattr(out, "isatty", None)
    if not os.environ.get("COLUMNS") and not (isatty is not None and isatty()):
        return None
    return shutil.get_terminal_size().columns


def render_long(
    df: pl.DataFrame, decimals: int = 4, mark_best: Sequence[str] = (), width: int | None = None
) -> str:
    """A table too wide for the terminal, one row per measure: the measures down and the
    systems across when the rows are systems (and that fits ``width``), else the long
    form (the text columns, ``measure``, ``value``).  ``*`` marks a ``mark_best`` row's
    highest value.

    Examples
    --------
    >>> import polars as pl
    >>> df = pl.DataFrame({"system": ["a", "b"], "AP": [0.5, 0.25], "P_5": [0.2, 0.4], "n_queries": [3, 3]})
    >>> print(render_long(df, mark_best=["AP", "P_5"]))
    measure         a        b
    AP         0.5000*  0.2500
    P_5        0.2000   0.4000*
    n_queries       3        3
    >>> print(render_long(df.drop("n_queries"), width=20))
    system  measure   value
    a       AP       0.5000
    a       P_5      0.2000
    b       AP       0.2500
    b       P_5      0.4000
    """
    keys = [c for c in df.columns if not df.schema[c].is_numeric()]
    values = [c for c in df.columns if c not in keys]
    cell = [[_fmt_value(v, decimals) for v in df.get_column(c).to_list()] for c in values]
    if keys == ["system"] or not keys:
        names = [terminal(str(s)) for s in (df.get_column("system").to_list() if keys else range(df.height))]
        rows = [["measure", *names]]
        for c, texts in zip(values, cell, strict=True):
            best = df.get_column(c).max() if c in mark_best and df.height > 1 else None
            marks = [
                ("*" if v == best else " ") if best is not None else "" for v in df.get_column(c).to_list()
            ]
            rows.append([terminal(c), *(t + m for t, m in zip(texts, marks, strict=True))])
        text = text_table(rows[0], rows[1:], numeric=range(1, len(names) + 1), rule=False)
        if width is None or max(map(len, text.split("\n"))) <= width:
            return text
    rows = [[*map(terminal, keys), "measure", "value"]]
    key_cells = [[_fmt_value(v, decimals) for v in df.get_column(k).to_list()] for k in keys]
    for i in range(df.height):
        rows += [
            [*(k[i] for k in key_cells), terminal(c), texts[i]] for c, texts in zip(values, cell, strict=True)
        ]
    return text_table(rows[0], rows[1:], numeric=[len(keys) + 1], rule=False)


def say_verdict(lines: Sequence[str], args: argparse.Namespace) -> None:
    """The verdict of a command whose table went to standard output as tsv, csv or json: on
    standard error, one ``irframe: ...`` line each, so that a CI log keeps it and the table
    stays machine-readable (``-f table`` prints it under the table).  ``--quiet``: nothing."""
    if getattr(args, "quiet", False):
        return
    for line in lines:
        print(f"irframe: {terminal(line)}", file=sys.stderr)


def gain_note(asked: Sequence[Asked]) -> str | None:
    """One line naming nDCG/DCG's gain when such a measure is shown (None otherwise).

    Examples
    --------
    >>> from irframe.measures.trec_m import resolve
    >>> print(gain_note(resolve(["nDCG@10", "RR"])))
    Note: nDCG@10 uses the gain 2^rel - 1; trec_eval's ndcg_cut is the linear gain:
    nDCG(gain=linear)@10 or --gain linear.
    >>> print(gain_note(resolve(["ndcg_cut_10"])))
    Note: ndcg_cut_10 uses the linear gain (rel), as trec_eval does.
    """
    parts: dict[str, list[str]] = {}
    for a in asked:
        if a.measure.family not in ("nDCG", "DCG"):
            continue
        gain = a.measure.params.get("gain", "exp")
        kind = gain if isinstance(gain, str) else "custom"
        parts.setdefault(kind, []).append(a.label)
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


TABLE_FORMATS = ("table", "tsv", "csv", "json")


def add_table_output(p: argparse.ArgumentParser, formats: Sequence[str] = TABLE_FORMATS) -> None:
    """``-f/--format`` (one of ``formats``), ``-o/--output FILE`` and ``--precision``: the
    output options of a subcommand that prints a table (:func:`write_frame` writes it)."""
    from irframe.cli._report_output import add_output_option

    p.add_argument(
        "-f", "--format", choices=formats, help="output format (default: table on a terminal, else tsv)"
    )
    add_output_option(p)
    _add_precision(p)


def write_frame(
    df: pl.DataFrame,
    args: argparse.Namespace,
    command: str,
    renderers: Mapping[str, Callable[[], str]] | None = None,
) -> None:
    """``df`` as the format asked (:func:`add_table_output`'s options) to ``-o`` or standard
    output: a report's own text for the formats in ``renderers`` (``"table"``,
    ``"markdown"``, ``"html"``...), else the table as table/tsv/csv/json; any other format
    (``-o x.html`` of a command without an HTML report) is refused."""
    from irframe.cli._report_output import report_format, write_output

    fmt = report_format(args.format, args.output, _default_format(sys.stdout))
    out = io.StringIO()
    if renderers is not None and fmt in renderers:
        _write(renderers[fmt](), out)
    elif fmt in TABLE_FORMATS:
        _emit(df, fmt, out, precision=args.precision)
    else:
        msg = f"irframe {command}: -f {fmt} is not a format of this command; use table, tsv, csv or json"
        raise CliError(msg)
    write_output(out.getvalue(), args.output)


def add_bootstrap(p: argparse.ArgumentParser, n: int, help_text: str, *, level: bool = False) -> None:
    """``--bootstrap N`` (default ``n``), with ``level``: ``--level``, then ``--seed``."""
    p.add_argument("--bootstrap", type=int, default=n, metavar="N", help=help_text)
    if level:
        add_level(p)
    p.add_argument("--seed", type=int, default=0)


def add_level(p: argparse.ArgumentParser) -> None:
    """``--level``: the confidence level of the intervals."""
    p.add_argument("--level", type=float, default=0.95, help="confidence level (default: 0.95)")


def action_usage(command: str, actions: Sequence[str]) -> int:
    """A subcommand with actions called without one: the error naming them."""
    names = f"{', '.join(actions[:-1])} or {actions[-1]}"
    msg = f"irframe {command}: name an action: {names} (see irframe {command} --help)"
    raise CliError(msg)


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
        decimals = 4 if precision is None else precision
        text = render_table(df, decimals=decimals, mark_best=mark_best)
        width = terminal_width(out)
        if width is not None and max(map(len, text.split("\n")), default=0) > width:
            text = render_long(df, decimals=decimals, mark_best=mark_best, width=width)
        _write(text, out)
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
