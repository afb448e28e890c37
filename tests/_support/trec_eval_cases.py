"""Small deterministic (qrels, run) datasets for trec_eval parity tests, and loaders for
trec_eval's own test files.

``CASES[name]()`` builds one case as two polars frames: qrels ``query_id, doc_id,
relevance`` (str, str, i64) and run ``query_id, doc_id, score`` (str, str, f64).  Each
case targets one way evaluators go wrong; ``mixed`` and ``random_*`` combine them.
Every case is a pure function of its seed, so a failing case reproduces exactly.

The trec_eval test files (``<repo>/../shared/data/trec_eval_test``, or the directory
named by ``IRFRAME_TREC_EVAL_TEST_DIR``) are read with
:func:`read_trec_qrels` and :func:`read_trec_run`; :func:`trec_eval_test_dir` skips
the calling test when they are absent.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable, Iterable
from pathlib import Path

import polars as pl
import pytest

# ``IRFRAME_TREC_EVAL_TEST_DIR`` overrides the location (work trees not beside shared/)
TREC_EVAL_TEST_DIR = Path(
    os.environ.get(
        "IRFRAME_TREC_EVAL_TEST_DIR",
        Path(__file__).resolve().parents[2].parent / "shared" / "data" / "trec_eval_test",
    )
)

Case = tuple[pl.DataFrame, pl.DataFrame]
QrelRow = tuple[str, str, int]
RunRow = tuple[str, str, float]


def frames(qrels: Iterable[QrelRow], run: Iterable[RunRow]) -> Case:
    """Two frames from ``(query, doc, grade)`` and ``(query, doc, score)`` rows."""
    q = list(qrels)
    r = list(run)
    qdf = pl.DataFrame(
        {"query_id": [x[0] for x in q], "doc_id": [x[1] for x in q], "relevance": [x[2] for x in q]},
        schema={"query_id": pl.String, "doc_id": pl.String, "relevance": pl.Int64},
    )
    rdf = pl.DataFrame(
        {"query_id": [x[0] for x in r], "doc_id": [x[1] for x in r], "score": [x[2] for x in r]},
        schema={"query_id": pl.String, "doc_id": pl.String, "score": pl.Float64},
    )
    return qdf, rdf


def _ranked(qid: str, docs: Iterable[str], start: float = 100.0) -> list[RunRow]:
    """Distinct descending scores in the given order."""
    return [(qid, d, start - i) for i, d in enumerate(docs)]


# --------------------------------------------------------------------------------------
# hand-made cases, one hazard each
# --------------------------------------------------------------------------------------
def case_ties() -> Case:
    """Tied scores everywhere: trec_eval breaks ties by doc id descending (bytewise)."""
    qrels = [("q1", "a", 1), ("q1", "b", 0), ("q1", "c", 2), ("q1", "d", 1), ("q1", "B", 1)]
    qrels += [("q2", "x", 1), ("q2", "y", 1), ("q2", "z", 0)]
    run = [("q1", d, 1.0) for d in ("a", "b", "c", "d", "B", "e")]
    run += [("q2", "x", 0.5), ("q2", "y", 0.5), ("q2", "z", 0.5), ("q2", "w", 0.5), ("q2", "v", 0.25)]
    return frames(qrels, run)


def case_int_ids() -> Case:
    """Integer-looking doc ids: "9" > "10" > "100" as bytes, so ties go 9, 10, 100."""
    qrels = [("7", "9", 1), ("7", "10", 0), ("7", "100", 2), ("7", "11", 1), ("7", "2", 0)]
    qrels += [("10", "1", 1), ("10", "20", 1)]
    run = [("7", d, 3.0) for d in ("10", "100", "9", "2")] + [("7", "11", 2.0), ("7", "3", 3.0)]
    run += [("10", "20", 1.0), ("10", "3", 1.0), ("10", "1", 1.0)]
    return frames(qrels, run)


def case_negative_grades() -> Case:
    """Grades -1 and -2, retrieved and not: not relevant, not counted as nonrelevant by bpref."""
    qrels = [("q1", "a", -1), ("q1", "b", 1), ("q1", "c", -2), ("q1", "d", 0), ("q1", "e", 2)]
    qrels += [("q1", "f", -1), ("q1", "g", 1)]
    qrels += [("q2", "a", -2), ("q2", "b", -1), ("q2", "c", 1)]
    run = _ranked("q1", ["a", "b", "c", "x", "d", "e", "y"])
    run += _ranked("q2", ["a", "b", "z", "c"])
    return frames(qrels, run)


def case_only_negative() -> Case:
    """A query whose judgments are all negative (pytrec_eval crashes on it).

    trec_eval 10.0 fails ("Can't calculate measure") when such a query is the first it
    evaluates (``form_res_rels.c`` allocates ``max_rel + 1 = 0`` levels) and otherwise
    reuses the previous query's grade histogram (``ideal_dcg`` is stale); so here it
    comes after a normal query (queries are evaluated in qrels id order).
    """
    qrels = [("q2", "a", -1), ("q2", "b", -2), ("q1", "a", 1), ("q1", "b", 0), ("q1", "c", 3)]
    run = _ranked("q2", ["a", "b", "c"]) + _ranked("q1", ["b", "a"])
    return frames(qrels, run)


def case_graded() -> Case:
    """Grades 0..4 with unretrieved relevant docs (nDCG's ideal uses every judged doc)."""
    qrels = [("q1", d, g) for d, g in zip("abcdefghij", (4, 3, 0, 2, 1, 0, 4, 1, 2, 3), strict=True)]
    qrels += [("q2", d, g) for d, g in zip("abcde", (1, 1, 2, 0, 0), strict=True)]
    run = _ranked("q1", ["c", "a", "x", "d", "b", "f", "e", "y"])
    run += _ranked("q2", ["e", "d", "c", "b", "a", "z"])
    return frames(qrels, run)


def case_missing_queries() -> Case:
    """Queries in the qrels but not the run: with -c they score 0 and count in the mean."""
    qrels = [("q1", "a", 1), ("q1", "b", 0), ("q2", "a", 1), ("q3", "c", 2), ("q3", "d", 0)]
    qrels += [("q4", "e", 0)]
    run = _ranked("q1", ["b", "a", "c"])
    return frames(qrels, run)


def case_run_only_queries() -> Case:
    """Queries only in the run: trec_eval ignores them."""
    qrels = [("q1", "a", 1), ("q1", "b", 0)]
    run = _ranked("q1", ["a", "b"]) + _ranked("q9", ["a", "b", "c"]) + _ranked("q0", ["a"])
    return frames(qrels, run)


def case_short_runs() -> Case:
    """Rankings shorter than every default cutoff (5 ... 1000) and than R."""
    qrels = [("q1", d, 1) for d in "abcdefgh"] + [("q2", "a", 1), ("q2", "b", 0)]
    qrels += [("q3", "a", 0), ("q3", "b", 3)]
    run = _ranked("q1", ["a", "x", "b"]) + _ranked("q2", ["a"]) + _ranked("q3", ["b"])
    return frames(qrels, run)


def case_nothing_relevant() -> Case:
    """Queries with judged documents but no relevant one (every measure 0, still counted)."""
    qrels = [("q1", "a", 0), ("q1", "b", 0), ("q2", "a", 0), ("q3", "a", 1)]
    run = _ranked("q1", ["a", "b", "c"]) + _ranked("q2", ["x", "y"]) + _ranked("q3", ["b", "a"])
    return frames(qrels, run)


def case_all_relevant() -> Case:
    """Everything retrieved is relevant and every relevant doc is retrieved."""
    qrels = [("q1", d, 1) for d in "abcdef"] + [("q2", d, g) for d, g in zip("abc", (3, 2, 1), strict=True)]
    run = _ranked("q1", list("abcdef")) + _ranked("q2", list("abc"))
    return frames(qrels, run)


def case_unjudged() -> Case:
    """Many retrieved documents have no qrels entry (unj, bpref, infAP, rbp_resid, -J)."""
    qrels = [("q1", "a", 1), ("q1", "b", 0), ("q1", "c", 1), ("q1", "d", 0), ("q1", "e", 2)]
    qrels += [("q2", "a", 1), ("q2", "b", 0)]
    run = _ranked("q1", ["u1", "a", "u2", "u3", "b", "c", "u4", "d", "u5", "u6", "e", "u7"])
    run += _ranked("q2", ["u1", "u2", "u3", "u4", "u5", "u6", "a"])
    return frames(qrels, run)


def case_single_doc() -> Case:
    """One judged and one retrieved document per query, relevant or not."""
    qrels = [("q1", "a", 1), ("q2", "a", 0), ("q3", "a", 2)]
    run = _ranked("q1", ["a"]) + _ranked("q2", ["a"]) + _ranked("q3", ["b"])
    return frames(qrels, run)


# --------------------------------------------------------------------------------------
# seeded random cases: everything at once
# --------------------------------------------------------------------------------------
def random_case(
    seed: int,
    *,
    n_queries: int = 8,
    n_docs: int = 40,
    grades: tuple[int, ...] = (-2, -1, 0, 0, 0, 1, 1, 2, 3, 4),
    scores: int = 12,
    run_len: tuple[int, int] = (0, 35),
) -> Case:
    """A seeded random case: tied scores (``scores`` distinct values), int and str doc ids,
    graded and negative judgments, unjudged retrieved docs, unretrieved relevant docs,
    queries missing from the run (``run_len`` may draw 0) and one run-only query."""
    rng = random.Random(seed)
    pool = [str(i) for i in range(n_docs // 2)] + [f"d{i}" for i in range(n_docs - n_docs // 2)]
    qrels: list[QrelRow] = []
    run: list[RunRow] = []
    for qi in range(n_queries):
        qid = f"q{qi}" if qi % 3 else str(qi)
        judged = rng.sample(pool, rng.randint(1, n_docs // 2))
        qrels += [(qid, d, rng.choice(grades)) for d in judged]
        k = rng.randint(*run_len)
        run += [(qid, d, float(rng.randrange(scores)) / 4) for d in rng.sample(pool, min(k, len(pool)))]
    run += [("only_in_run", d, float(rng.randrange(scores))) for d in rng.sample(pool, 5)]
    return frames(qrels, run)


def case_mixed() -> Case:
    """The hand-made cases side by side, query ids prefixed by the case name."""
    q_parts: list[pl.DataFrame] = []
    r_parts: list[pl.DataFrame] = []
    for name, build in HAND_CASES.items():
        qrels, run = build()
        prefix = pl.lit(f"{name}-") + pl.col("query_id")
        q_parts.append(qrels.with_columns(query_id=prefix))
        r_parts.append(run.with_columns(query_id=prefix))
    return pl.concat(q_parts), pl.concat(r_parts)


HAND_CASES: dict[str, Callable[[], Case]] = {
    "ties": case_ties,
    "int_ids": case_int_ids,
    "negative_grades": case_negative_grades,
    "only_negative": case_only_negative,
    "graded": case_graded,
    "missing_queries": case_missing_queries,
    "run_only_queries": case_run_only_queries,
    "short_runs": case_short_runs,
    "nothing_relevant": case_nothing_relevant,
    "all_relevant": case_all_relevant,
    "unjudged": case_unjudged,
    "single_doc": case_single_doc,
}

CASES: dict[str, Callable[[], Case]] = {
    **HAND_CASES,
    "mixed": case_mixed,
    "random_small": lambda: random_case(1),
    "random_ties": lambda: random_case(2, scores=3),
    "random_long": lambda: random_case(3, n_queries=4, n_docs=300, run_len=(150, 250), scores=40),
}


# --------------------------------------------------------------------------------------
# trec_eval's own test files
# --------------------------------------------------------------------------------------
TREC_EVAL_FILE_PAIRS: list[tuple[str, str]] = [
    ("qrels.test", "results.test"),
    ("qrels.rel_level", "results.test"),
    ("qrels-302.test", "results-302.test"),
    ("qrels.test", "results.trunc"),
]


def trec_eval_test_dir() -> Path:
    """``<repo>/../shared/data/trec_eval_test``, or skip the calling test when absent."""
    if not TREC_EVAL_TEST_DIR.is_dir():
        pytest.skip(f"trec_eval test data not found at {TREC_EVAL_TEST_DIR}")
    return TREC_EVAL_TEST_DIR


def _fields(path: Path, n: int) -> list[list[str]]:
    out: list[list[str]] = []
    for line in path.read_text().splitlines():
        parts = line.split()
        if not parts or parts[0].startswith("#"):
            continue
        if len(parts) < n:
            msg = f"{path}: line {line!r} has fewer than {n} fields"
            raise ValueError(msg)
        out.append(parts)
    return out


def read_trec_qrels(path: Path) -> pl.DataFrame:
    """``qid iter docno rel`` -> query_id, doc_id, relevance (``#`` lines skipped)."""
    rows = _fields(path, 4)
    return frames(((p[0], p[2], int(p[3])) for p in rows), [])[0]


def read_trec_run(path: Path) -> pl.DataFrame:
    """``qid Q0 docno rank sim tag`` -> query_id, doc_id, score (the rank is ignored)."""
    rows = _fields(path, 5)
    return frames([], ((p[0], p[2], float(p[4])) for p in rows))[1]


def load_trec_eval_pair(qrels_file: str, run_file: str) -> Case:
    """One pair of trec_eval test files as (qrels, run) frames (skip when absent)."""
    base = trec_eval_test_dir()
    return read_trec_qrels(base / qrels_file), read_trec_run(base / run_file)
