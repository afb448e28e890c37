"""``irframe answers nuggets|support|grounding ...``: the answer layer of a RAG system.

The commands call :mod:`irframe.answers` (they have no logic of their own): the answer
tables are read as tables (parquet, CSV/TSV, JSON lines), a run as a TREC run or a table.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from irframe.cli._common import SubParsers, _common, _mapping, action_usage, add_table_output, write_frame
from irframe.exceptions import ColumnNotFoundError

__all__ = ["add_parser"]

_TABLE = "(parquet, CSV/TSV or JSON lines)"


def _shared(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--map", type=_mapping, action="append", default=[], metavar="SRC=DST",
        help="rename a column of the table inputs that have it, e.g. --map qid=query_id (repeatable)",
    )  # fmt: skip
    p.add_argument("--preset", choices=("irframe", "trec_rag", "nuggetizer"), help="a column convention")
    p.add_argument("--per-query", action="store_true", help="one row per answer instead of the means")
    add_table_output(p)


def add_parser(sub: SubParsers) -> None:
    """Register ``irframe answers`` and its ``nuggets``, ``support`` and ``grounding`` actions."""
    p = sub.add_parser(
        "answers",
        help="RAG answers: nugget scores, citation support, grounding in the run",
        description="Score the answers of RAG systems (see irframe.answers).",
    )
    p.set_defaults(func=_usage)
    actions = p.add_subparsers(dest="action", metavar="ACTION")
    n = actions.add_parser(
        "nuggets", parents=[_common()], help="V_strict, V, A_strict, A and W from nugget assignments",
        description="Nugget scores per system (or per answer) from the nuggets and their assignments.",
    )  # fmt: skip
    n.add_argument(
        "assignments", metavar="ASSIGNMENTS", help=f"system, query_id, nugget_id, assignment {_TABLE}"
    )
    n.add_argument("nuggets", metavar="NUGGETS", help=f"query_id, nugget_id, importance {_TABLE}")
    n.add_argument("--missing", choices=("zero", "drop", "error"), default="zero",
                   help="an answer with no assignment for a query with nuggets (default: zero)")  # fmt: skip
    n.add_argument(
        "--no-vital", choices=("zero", "null"), default="zero", help="V of a query without vital nugget"
    )
    n.add_argument("--no-nuggets", choices=("error", "drop"), default="error",
                   help="assignments for a query without nuggets (default: error)")  # fmt: skip
    _shared(n)
    n.set_defaults(func=cmd_nuggets)
    s = actions.add_parser(
        "support", parents=[_common()], help="weighted and hard precision and recall of the citations",
        description="Citation support per system (or per answer): wP/wR over first or all citations, hP/hR.",
    )  # fmt: skip
    s.add_argument(
        "citations",
        metavar="CITATIONS",
        help=f"system, query_id, sentence_id, citation_rank, doc_id, support {_TABLE}",
    )
    s.add_argument(
        "--sentences", metavar="FILE", help="every sentence of every answer, so uncited ones count"
    )
    s.add_argument(
        "--empty", choices=("zero", "null"), default="zero", help="a score over nothing (default: 0)"
    )
    _shared(s)
    s.set_defaults(func=cmd_support)
    _add_grounding(actions)


def _add_grounding(actions: Any) -> None:
    g = actions.add_parser(
        "grounding", parents=[_common()], help="are the cited documents in the run, how high, relevant",
        description=(
            "Grounding per system (or per answer): CitedRetrieved@k, CitedRelevant, RelevantCited@k, "
            "MeanCitedRank, UncitedSentences; the citations to documents the run never retrieved."
        ),
        epilog=(
            "Several RUN files: one per system (named by their tag or file), matched to the citations' "
            "systems; one RUN fed every system."
        ),
    )  # fmt: skip
    g.add_argument("citations", metavar="CITATIONS", help=f"system, query_id, doc_id (sentence_id) {_TABLE}")
    g.add_argument(
        "run", metavar="RUN", nargs="+", help="the run(s) that fed the answers (TREC run or table)"
    )
    g.add_argument("--qrels", metavar="FILE", help="judgments, for CitedRelevant and RelevantCited")
    g.add_argument("--sentences", metavar="FILE", help="every sentence of every answer, for UncitedSentences")
    g.add_argument(
        "-k", type=int, metavar="K", help="the cutoff of CitedRetrieved and RelevantCited (default: all)"
    )
    g.add_argument("--rel", type=int, default=1, help="lowest relevant grade (default: 1)")
    g.add_argument(
        "--never-retrieved", metavar="FILE", help="write the citations the run never retrieved there"
    )
    _shared(g)
    g.set_defaults(func=cmd_grounding)


def _usage(_args: argparse.Namespace) -> int:
    return action_usage("answers", ("nuggets", "support", "grounding"))


def _table(path: str | None, args: argparse.Namespace) -> Any:
    """A table input, with the ``--map`` renames of the columns it has."""
    if path is None:
        return None
    from irframe.io import read_table, scan_table

    mapping = dict(args.map)
    present = scan_table(path).collect_schema().names() if mapping else []
    return read_table(path, columns={k: v for k, v in mapping.items() if k in present} or None)


@contextmanager
def _cli_terms() -> Iterator[None]:
    """A missing column's hint in the command line's terms: ``columns={'query': 'qid'}``
    (the Python API's) becomes ``--map qid=query_id``."""
    from irframe.answers._tables import ROLES

    try:
        yield
    except ColumnNotFoundError as exc:
        text = re.sub(
            r"columns=\{'(\w+)': '([^']*)'\}", lambda m: f"--map {m[2]}={ROLES.get(m[1], m[1])}", str(exc)
        )
        text = re.sub(r"columns=\{'(\w+)': \.\.\.\}", lambda m: f"--map COLUMN={ROLES.get(m[1], m[1])}", text)
        raise ColumnNotFoundError(text) from exc


def _columns(args: argparse.Namespace) -> Any:
    return args.preset


def cmd_nuggets(args: argparse.Namespace) -> int:
    """Run ``irframe answers nuggets``."""
    from irframe.answers import nugget_scores

    assignments, nuggets = _table(args.assignments, args), _table(args.nuggets, args)
    with _cli_terms():
        out = nugget_scores(
            assignments, nuggets, per_query=args.per_query, columns=_columns(args), missing=args.missing,
            no_vital=args.no_vital, no_nuggets=args.no_nuggets,
        )  # fmt: skip
    write_frame(out, args, "answers")
    return 0


def cmd_support(args: argparse.Namespace) -> int:
    """Run ``irframe answers support``."""
    from irframe.answers import support_scores

    citations, sentences = _table(args.citations, args), _table(args.sentences, args)
    with _cli_terms():
        out = support_scores(
            citations, sentences, per_query=args.per_query, columns=_columns(args), empty=args.empty
        )
    write_frame(out, args, "answers")
    return 0


def _runs(paths: Sequence[str], args: argparse.Namespace) -> Any:
    from irframe.io.sniff import load, load_runs

    if len(paths) == 1:  # one run fed every system (a TREC run's tag names no answering system)
        run, trec = load(paths[0], "run", dict(args.map), None)
        return run.drop("system", strict=False) if trec else run
    return load_runs(paths, dict(args.map), None)


def cmd_grounding(args: argparse.Namespace) -> int:
    """Run ``irframe answers grounding``."""
    from irframe.answers import grounding
    from irframe.cli._common import write_table
    from irframe.io.sniff import load

    qrels = None if args.qrels is None else load(args.qrels, "qrels", dict(args.map), None)[0]
    citations, sentences, runs = (
        _table(args.citations, args),
        _table(args.sentences, args),
        _runs(args.run, args),
    )
    with _cli_terms():
        result = grounding(citations, runs, qrels, sentences, k=args.k, rel=args.rel, columns=_columns(args))
    if args.never_retrieved:
        write_table(result.never_retrieved, args.never_retrieved)
    write_frame(result.per_query if args.per_query else result.means, args, "answers")
    n = result.never_retrieved.height
    if n:
        hint = "" if args.never_retrieved else " (list them with --never-retrieved FILE)"
        sys.stderr.write(f"irframe: {n} citation(s) to documents the run never retrieved{hint}\n")
    return 0
