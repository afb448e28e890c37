"""Reading what an evaluating subcommand evaluates: measures, qrels, runs, queries.

What a RUN argument is (``irframe eval --help`` says the same):

* one file: a TREC run (gzip or not), a parquet/CSV/TSV/JSON-lines table, or ``-``;
* a quoted glob (``'log/*.parquet'``) or a directory (its files, recursively; a parquet
  directory's ``key=value`` folders are columns): the files of ONE run;
* several RUN arguments are several systems, as for trec_eval (``runs/*.run`` expanded
  by the shell), named by their run tags or file names; ``--run-files-are one`` reads
  them as the files of one run instead (a shell-expanded ``log/*.parquet``).  Several
  runs that share no query look like the parts of one run: that is refused until
  ``--run-files-are`` says which reading is meant;
* a table with a ``system`` column holds several systems (or use ``--by``).

``--no-qrels``: every positional argument is a run and the grades are the run's
``relevance`` column (another name: ``--map grade=relevance``), as ``pool --no-qrels``.
``--columns``/``--map`` rename table columns when they are read: the one place the
convention is applied (the library is then told the names are irframe's).

Examples
--------
>>> Columns.build("ranx", [("docid", "doc_id")], None).renames("run")
{'q_id': 'query_id', 'docid': 'doc_id'}
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from irframe._escape import terminal
from irframe.cli._common import _progress
from irframe.exceptions import CliError

if TYPE_CHECKING:
    import polars as pl

    from irframe.io.sniff import RunSource
    from irframe.measures import Measure
    from irframe.measures.trec_m import Asked

__all__ = [
    "Columns",
    "Inputs",
    "add_log_argument",
    "add_memory_limit",
    "add_run_options",
    "asked_measures",
    "named_runs",
    "read_inputs",
    "run_sources",
    "scan_log",
]

RUN_FILES_ARE = ("systems", "one")


def add_run_options(p: argparse.ArgumentParser, *, memory: bool = False) -> None:
    """``--run-files-are``, ``--no-qrels`` (and ``--memory-limit`` with ``memory=True``)."""
    p.add_argument(
        "--run-files-are",
        choices=RUN_FILES_ARE,
        help="several RUN arguments: several systems (as trec_eval; the default) or the files of "
        "one run (e.g. a shell-expanded log/*.parquet); a quoted glob or a directory is always one run",
    )
    p.add_argument(
        "--no-qrels",
        action="store_true",
        help="no QRELS argument: every argument is a run whose 'relevance' column holds the grades "
        "(another column: --map COLUMN=relevance)",
    )
    if memory:
        add_memory_limit(p, "evaluate", "irframe.evaluate_parquet", "the runs are")


def add_memory_limit(
    p: argparse.ArgumentParser, doing: str, note: str, inputs: str, *, whole: str = "queries"
) -> None:
    """``--memory-limit SIZE``: out of core, bucket by bucket of whole queries (or ``whole``)."""
    p.add_argument(
        "--memory-limit",
        metavar="SIZE",
        help=f"{doing} out of core within SIZE (e.g. 2GB), bucket by bucket of whole {whole} ({note}); "
        f"default: {inputs} read into memory",
    )


# --- logs ---------------------------------------------------------------------------------
def add_log_argument(p: argparse.ArgumentParser) -> None:
    """The ``LOG`` positionals of ``irframe online`` and ``irframe clicks``."""
    p.add_argument(
        "log", metavar="LOG", nargs="+",
        help="the impression log: parquet, CSV/TSV or JSON-lines files, quoted globs or directories "
        "(one table)",
    )  # fmt: skip


def scan_log(paths: Sequence[str]) -> Any:
    """The ``LOG`` arguments as one lazy table."""
    from irframe.io import scan_table

    return scan_table(list(paths) if len(paths) > 1 else paths[0])


def named_runs(specs: Sequence[tuple[str, str]]) -> dict[str, Any] | None:
    """``--run NAME=PATH`` (repeatable): each a TREC run or a table, by name; None without any."""
    if not specs:
        return None
    from irframe.io import read_table, read_trec_run
    from irframe.io.tables import detect_format

    return {name: read_table(path) if detect_format(path) else read_trec_run(path) for name, path in specs}


# --- columns ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Columns:
    """``--columns``, ``--map`` and ``--order``, resolved once.

    The preset's names (the library's :data:`irframe._input.options.PRESETS`) and the
    ``--map`` renames are applied when the tables are read; what they leave to the library
    is the order rule (a preset without a rank column ranks by score) and that the names
    are irframe's (no convention detected again).
    """

    preset: str | None
    mapping: dict[str, str]
    order: str
    run_map: dict[str, str] = field(default_factory=dict)
    qrels_map: dict[str, str] = field(default_factory=dict)

    @classmethod
    def build(cls, preset: str | None, mapping: Sequence[tuple[str, str]], order: str | None) -> Columns:
        """From the options' values (``order`` None: the preset's rule, else ``auto``)."""
        from irframe._input.options import Options

        if preset is None:
            return cls(None, dict(mapping), order or "auto")
        o = Options.build(columns=preset)
        run = {
            o.query_col: "query_id",
            o.doc_col: "doc_id",
            o.score_col: "score",
            o.relevance_col: "relevance",
        }
        if o.rank_col is not None:
            run[o.rank_col] = "rank"
        q, d, r = o.qrels_columns
        qrels = {q: "query_id", d: "doc_id", r: "relevance"}
        rule = order or ("score" if o.rank_col is None else "auto")
        return cls(
            preset,
            dict(mapping),
            rule,
            {k: v for k, v in run.items() if k != v},
            {k: v for k, v in qrels.items() if k != v},
        )

    @classmethod
    def of(cls, args: argparse.Namespace) -> Columns:
        """From a parsed command line (subcommands without these options: none)."""
        return cls.build(
            getattr(args, "columns", None), getattr(args, "map", []), getattr(args, "order", None)
        )

    def renames(self, kind: str) -> dict[str, str]:
        """The renames of a ``"run"`` or ``"qrels"`` table (``--map`` wins over the preset)."""
        return {**(self.qrels_map if kind == "qrels" else self.run_map), **self.mapping}

    @property
    def evaluate_kwargs(self) -> dict[str, Any]:
        """The ``order`` and ``columns`` keywords of :func:`irframe.evaluate` and friends."""
        return {"order": self.order, "columns": "irframe" if self.preset else None}


# --- measures -----------------------------------------------------------------------------
def asked_measures(specs: Sequence[str], rel: float | None = None, gain: str | None = None) -> list[Asked]:
    """The ``-m`` measures, parsed once; a bad one (``P@0`` as well as ``nDGC@10``) is a measure error."""
    from irframe.exceptions import InvalidParameterError, UnknownMeasureError
    from irframe.measures.trec_m import resolve

    try:
        return resolve(specs, rel, gain)
    except InvalidParameterError as exc:
        raise UnknownMeasureError(str(exc)) from exc


# --- inputs -------------------------------------------------------------------------------
@dataclass(frozen=True)
class Inputs:
    """What an evaluating subcommand read; the keyword options it evaluates with."""

    asked: list[Asked]
    qrels: pl.DataFrame | None
    runs: Any  # pl.DataFrame, or a pl.LazyFrame scanning them (for --memory-limit)
    queries: pl.DataFrame | None
    columns: Columns
    progress: bool
    names: str = "the runs"  # what was read, for messages: "a.run, b.run against qrels.txt"

    @property
    def measures(self) -> list[Measure]:
        """The measures to compute, each once (the engine names their columns ``str(m)``)."""
        return list(dict.fromkeys(a.measure for a in self.asked))

    @property
    def as_labelled(self) -> list[str | Measure]:
        """The measures as a library function labels them with the labels asked for (the
        spelling of a measure left unchanged, else the changed :class:`Measure`)."""
        return [a.engine_input for a in self.asked]

    def relabel(self, frame: pl.DataFrame) -> pl.DataFrame:
        """The engine's columns (``str(measure)``) as the labels asked for, in their order."""
        import polars as pl

        names = [str(m) for m in self.measures]
        first = frame.columns.index(names[0])
        head, tail = frame.columns[:first], frame.columns[first + len(names) :]
        shown = (pl.col(str(a.measure)).alias(a.label) for a in self.asked)
        return frame.select(*head, *shown, *tail)

    def options(self, args: argparse.Namespace) -> dict[str, Any]:
        """The keyword options of ``evaluate``/``compare`` from the command line."""
        out = {"missing": args.missing, "duplicates": args.duplicates, **self.columns.evaluate_kwargs}
        if self.queries is not None:
            out["queries"] = self.queries
        return out


def run_sources(args: argparse.Namespace) -> tuple[str | None, list[RunSource]]:
    """QRELS (None with ``--no-qrels``) and the runs, one entry per system."""
    positional = [args.qrels, *args.runs]
    if getattr(args, "no_qrels", False):
        qrels, runs = None, positional
    elif not args.runs:
        msg = "expected QRELS RUN [RUN ...]; with the grades on the run's rows, pass --no-qrels RUN"
        raise CliError(msg)
    else:
        qrels, runs = args.qrels, list(args.runs)
    if getattr(args, "run_files_are", None) == "one" and len(runs) > 1:
        return qrels, [tuple(runs)]
    return qrels, list(runs)


def _progress_on(args: argparse.Namespace) -> bool:
    return not getattr(args, "quiet", False) and bool(args.progress or sys.stderr.isatty())


def read_inputs(args: argparse.Namespace, default_measures: Sequence[str], *, lazy: bool = False) -> Inputs:
    """Measures, qrels, runs (stacked, with a ``system`` column) and queries; stdin read once.

    ``lazy``: the table runs are scanned, not read (for ``--memory-limit``).
    """
    from irframe.io.sniff import load, load_queries, load_runs, scan_runs, source_name
    from irframe.measures.diversity import is_diversity

    qrels_path, sources = run_sources(args)
    names = [p for p in (qrels_path, *sources) if isinstance(p, str)]
    if names.count("-") > 1:
        msg = "only one input can be read from standard input ('-')"
        raise CliError(msg)
    progress = _progress_on(args)
    stdin = sys.stdin.buffer.read() if "-" in names else None
    asked = asked_measures(args.measures or list(default_measures), args.rel, args.gain)
    columns = Columns.of(args)
    # TREC qrels keep their second field (the subtopic) when a diversity measure reads it
    subtopics = any(is_diversity(a.measure) for a in asked)
    qrels = None
    if qrels_path is not None:
        with _progress(f"reading qrels {qrels_path}", progress), _Swapped([qrels_path], "qrels", sources):
            qrels, _ = load(qrels_path, "qrels", columns.renames("qrels"), stdin, subtopics=subtopics)
    notes: list[str] = []
    runs: Any
    with _Swapped(sources, "run", [qrels_path] if qrels_path else []):
        if lazy:
            runs = scan_runs(sources, columns.renames("run"), stdin, _reading(progress), notes)
        else:
            runs = load_runs(sources, columns.renames("run"), stdin, _reading(progress), notes)
            if qrels is not None:
                refuse_swapped_tables(qrels, runs, qrels_path, sources)
            if getattr(args, "run_files_are", None) is None:
                refuse_disjoint_systems(runs, sources)
    for note in notes if not getattr(args, "quiet", False) else []:
        print(f"irframe: note: {terminal(note)}", file=sys.stderr)
    queries = load_queries(args.queries, {}) if getattr(args, "queries", None) else None
    said = ", ".join(source_name(s) for s in sources) + (f" against {qrels_path}" if qrels_path else "")
    return Inputs(asked, qrels, runs, queries, columns, progress, said)


def _reading(progress: bool) -> Any:
    from functools import partial

    return partial(_progress, enabled=progress)


# --- readings that the shapes contradict -------------------------------------------------
def refuse_disjoint_systems(runs: pl.DataFrame, sources: Sequence[RunSource]) -> None:
    """Several RUN arguments that share no query look like the parts of one run: say how to choose."""
    import polars as pl

    if len(sources) < 2 or runs.height == 0 or "query_id" not in runs.columns:
        return
    _refuse_repeated(sources)
    shared = runs.group_by("query_id").agg(pl.col("system").n_unique()).get_column("system").max()
    if shared is not None and int(shared) > 1:  # type: ignore[arg-type]
        return
    msg = (
        f"the {len(sources)} runs share no query: are they the files of one run (e.g. a shell-expanded "
        "log/*.parquet)? Hint: pass --run-files-are one to evaluate them as one run (or quote the glob: "
        "'log/*.parquet'), or --run-files-are systems to evaluate each as a system (the arms of an A/B "
        "test are not paired: irframe compare refuses them; use irframe.online.compare)."
    )
    raise CliError(msg)


def _refuse_repeated(sources: Sequence[RunSource]) -> None:
    """One run file given twice (``power log.parquet log.parquet``) is one system, not two."""
    from pathlib import Path

    seen: dict[str, str] = {}
    for source in sources:
        if not isinstance(source, str) or source == "-":
            continue
        key = str(Path(source).resolve())
        if key in seen:
            msg = (
                f"the run {source!r} is given twice (as {seen[key]!r} too): it is one system, so there "
                "is nothing to compare. Hint: pass two different runs (the baseline and the candidate)."
            )
            raise CliError(msg)
        seen[key] = source


def _first_fields(path: str) -> list[str] | None:
    """The fields of the first line of a text file (None: not a readable plain file)."""
    from pathlib import Path

    from irframe.io.sniff import head

    if path == "-" or not Path(path).is_file():
        return None
    data = head(path)
    if data[:2] == b"\x1f\x8b":
        import gzip
        import io

        try:
            data = gzip.GzipFile(fileobj=io.BytesIO(data)).read(4096)
        except (OSError, EOFError):
            return None
    for raw in data.splitlines():
        line = raw.decode("utf-8", "replace").strip()
        if line and not line.startswith("#"):
            return line.split()
    return None


def _looks_like(path: RunSource | None, kind: str) -> bool:
    """Whether the first line of ``path`` has the shape of a TREC ``kind`` (``run``: 6 fields,
    ``Q0`` or a rank and a score; ``qrels``: 4 fields ending with an integer grade)."""
    if not isinstance(path, str):
        return False
    fields = _first_fields(path)
    if fields is None:
        return False
    if kind == "run":
        return len(fields) == 6 and (fields[1] == "Q0" or fields[3].lstrip("-").isdigit())
    return len(fields) == 4 and fields[3].lstrip("-").isdigit()


class _Swapped:
    """Reading ``paths`` as ``kind``: a TREC format error in a file of the other kind's shape
    asks whether QRELS and RUN were swapped (saying so of an ``others`` file of this kind's
    shape too)."""

    def __init__(self, paths: Sequence[RunSource], kind: str, others: Sequence[RunSource | None]) -> None:
        self.paths, self.kind, self.others = paths, kind, others

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: object, exc: BaseException | None, tb: object) -> None:
        from irframe.exceptions import TrecFormatError

        if not isinstance(exc, TrecFormatError):
            return
        other = "run" if self.kind == "qrels" else "qrels"
        bad = next((p for p in self.paths if isinstance(p, str) and str(exc).startswith(f"{p}:")), None)
        if bad is None or not _looks_like(bad, other):
            return
        mate = next((o for o in self.others if _looks_like(o, self.kind)), None)
        shape = "a run (query Q0 doc rank score tag)" if other == "run" else "qrels (query 0 doc grade)"
        also = f" and {mate} like {'qrels' if other == 'run' else 'a run'}" if mate is not None else ""
        msg = (
            f"{exc} Hint: did you swap QRELS and RUN? {bad} looks like {shape}{also}; "
            "the judgments come first: irframe eval QRELS RUN."
        )
        raise TrecFormatError(msg) from exc


def refuse_swapped_tables(
    qrels: pl.DataFrame, runs: pl.DataFrame, qrels_path: str | None, sources: Sequence[RunSource]
) -> None:
    """Tables given the other way round: a QRELS table with a score or rank and no grade,
    and a run with grades and no score or rank."""
    from irframe.exceptions import InvalidDataError

    ranks = {"score", "rank"}
    if "relevance" in qrels.columns or not ranks & set(qrels.columns):
        return
    if not ("relevance" in runs.columns and not ranks & set(runs.columns)):
        return
    msg = (
        f"the QRELS table {qrels_path} has {', '.join(sorted(ranks & set(qrels.columns)))} and no relevance "
        f"column, the run has grades and no score or rank. Hint: did you swap QRELS and RUN? "
        "The judgments come first: irframe eval QRELS RUN."
    )
    raise InvalidDataError(msg)
