"""``irframe fuse RUN RUN ... -o fused.run``: fuse runs into one TREC run (:func:`irframe.fuse`).

The runs are read like ``irframe eval``'s (TREC files, tables, one stacked table with a
``system`` column).  A file's system is its run tag when every file has one tag and the
tags differ, else its file name; the command says which on stderr.  The output is written
to a temporary file in the output's directory and renamed over it, so a failed run leaves
the old file as it was; an output path that is one of the inputs is refused.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from irframe.cli._common import SubParsers, _add_map, _common, _number, _progress, refuse_overwriting_inputs
from irframe.cli._exit import writing
from irframe.exceptions import CliError
from irframe.fusion import DEFAULT_K, METHODS, NORMS

if TYPE_CHECKING:
    import polars as pl

__all__ = ["add_parser", "cmd_fuse"]

# where irframe.io.sniff.load_runs took the system names from, said in the note
_SOURCES = {
    "run tags": "their run tags",
    "file names": "their file names (the run tags are missing or alike)",
    "paths": "their paths (the file names are alike too)",
    "the system column": "the tables' system column",
}

# how the library's parameter names are said on this command line
_SPELLING = {"method": "--method", "norm": "--norm", "weights": "--weights", "k": "-k", "order": "--order"}


def _weights(text: str) -> list[float] | dict[str, float]:
    """``0.3,0.7`` (in the order of the RUN arguments) or ``bm25=0.3,dense=0.7``."""
    parts = [p.strip() for p in text.split(",") if p.strip()]
    named = [p.partition("=") for p in parts]
    try:
        if all(eq for _, eq, _ in named):
            return {name.strip(): float(value) for name, _, value in named}
        if not any(eq for _, eq, _ in named):
            return [float(p) for p in parts]
    except ValueError:
        pass
    msg = f"expected numbers W,W,... (in the order of the runs) or NAME=W,NAME=W,..., got {text!r}"
    raise argparse.ArgumentTypeError(msg)


def add_parser(sub: SubParsers) -> None:
    """Register ``irframe fuse``."""
    methods = "\n".join(f"  {m.name:<8} {m.formula}" for m in METHODS.values())
    norms = "\n".join(f"  {n.name:<8} {n.formula}" for n in NORMS.values())
    p = sub.add_parser(
        "fuse",
        parents=[_common()],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        help="fuse runs into one run: RRF, CombSUM/MNZ/..., weighted sum, Borda (as ranx computes them)",
        description=(
            "Fuse two or more runs into one TREC run, per query, with ranx's numbers (see irframe.fuse).\n"
            "Systems are named by their run tags when every file has one and they differ, else by "
            "their file names."
        ),
        epilog=f"methods (c: a query's candidates, n: a run's documents; ranks 1-based):\n{methods}\n"
        f"norms (per run and query; score methods default to minmax, rrf/borda take none):\n{norms}",
    )
    p.add_argument(
        "runs", metavar="RUN", nargs="+", help="runs: TREC run files, tables, or one stacked table"
    )
    p.add_argument("--method", choices=tuple(METHODS), default="rrf", help="fusion method (default: rrf)")
    p.add_argument(
        "--norm",
        choices=(*NORMS, "none"),
        help="normalisation of each run's scores per query (default: minmax for the score methods, "
        "none for rrf and borda)",
    )
    p.add_argument(
        "--weights",
        type=_weights,
        metavar="W,...|NAME=W,...",
        help="wsum's weights: one per run in the order of the RUN arguments, or by system name",
    )
    p.add_argument("-k", type=_number, help=f"RRF's k (default: {DEFAULT_K})")
    p.add_argument(
        "-o", "--output", required=True, metavar="FILE", help="the fused TREC run (.gz: compressed)"
    )
    p.add_argument("--tag", help="run tag of the written run (default: fused-METHOD)")
    _add_map(p)
    p.set_defaults(func=cmd_fuse)


def _write_atomic(fused: pl.DataFrame, out: Path, tag: str, names: dict[str, Any]) -> None:
    """Write ``out`` (the TREC writer is atomic itself: a temporary file beside ``out``, then
    one rename; an error names ``out``, not the temporary file)."""
    from irframe.io import write_trec_run

    with writing(out):
        write_trec_run(fused, out, tag=tag, **names)


def _said_here(exc: Exception) -> Exception:
    """The library's parameter names in the message, as this command's options."""
    text = str(exc)
    for name, option in _SPELLING.items():
        text = text.replace(f"The {name!r} parameter of fuse", f"The {option} option of irframe fuse")
    return type(exc)(text)


def cmd_fuse(args: argparse.Namespace) -> int:
    """Run ``irframe fuse``."""
    from functools import partial

    from irframe.cli._inputs import Columns
    from irframe.exceptions import IrFrameError
    from irframe.fusion import fuse
    from irframe.io.sniff import load_runs

    out = Path(args.output)
    refuse_overwriting_inputs(args.output, args.runs)
    if args.runs.count("-") > 1:
        msg = "only one input can be read from standard input ('-')"
        raise CliError(msg)
    quiet = bool(args.quiet)
    progress = not quiet and bool(args.progress or sys.stderr.isatty())
    stdin = sys.stdin.buffer.read() if "-" in args.runs else None
    columns = Columns.of(args)
    naming: list[str] = []
    reading = partial(_progress, enabled=progress)
    stacked = load_runs(args.runs, columns.renames("run"), stdin, reading, naming=naming)
    systems = stacked.get_column("system").unique(maintain_order=True).to_list()
    norm: Any = "default" if args.norm is None else None if args.norm == "none" else args.norm
    try:
        fused = fuse(
            stacked, method=args.method, norm=norm, weights=args.weights, k=args.k, **columns.evaluate_kwargs
        )
    except IrFrameError as exc:
        raise _said_here(exc) from exc
    tag = args.tag or f"fused-{args.method}"
    q, d, score, rank = fused.columns
    _write_atomic(fused, out, tag, {"query_col": q, "doc_col": d, "score_col": score, "rank_col": rank})
    if not quiet:
        shown = ", ".join(map(str, systems))
        print(
            f"irframe: note: fused {len(systems)} systems (named by {_SOURCES.get(naming[0], naming[0])}: "
            f"{shown}) with {args.method} into {out}: {fused.get_column(q).n_unique()} queries, "
            f"{fused.height} rows",
            file=sys.stderr,
        )
    return 0
