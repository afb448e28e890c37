"""Regenerate the bundled RAG example (``python scripts/make_rag.py``), in src/irframe/datasets/rag/.

A script of the repository, not of the package: the wheel ships the data it wrote, not it.

The example puts answers on top of the golden set (same 40 Voltmart queries, qrels and
runs): two RAG systems, named after the retriever that fed them (``bm25`` and
``hybrid``), answer every query with the same generator from their run's top 5 pages.
What it shows:

* nuggets: 2 to 4 facts per query (the first one or two vital), an answer supports them
  as far as it cites relevant pages; an LLM judge labelled every (system, query, nugget)
  and is lenient (it upgrades about one label in four); a person labelled 30 of them
  (``human.tsv``: the same 30 (query, nugget) items, a random sample, for both systems);
* citations: each answer sentence cites 0 to 2 pages, mostly from the top 5 of its run;
  now and then a page the run never retrieved (another query's page, or one that does
  not exist: ``kb999``), each (sentence, citation) judged full/partial/none support, a
  few left unjudged;
* ``hybrid`` retrieves better, and its answers are better grounded; ``bm25``'s answers
  cite lower-ranked pages and more pages outside the run.

The output files are committed; this script documents how they were made and
reproduces them byte for byte.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

__all__ = ["SEED", "main"]

SEED = 20261207
ROOT = Path(__file__).resolve().parents[1] / "src" / "irframe" / "datasets"
HERE = ROOT / "rag"
SYSTEMS = ("bm25", "hybrid")
LABELS = ("not_support", "partial_support", "support")
TOP = 5  # the generator reads its run's top 5 pages
HUMAN_PER_SYSTEM = 30


def _read(path: Path, sep: str = "\t") -> list[list[str]]:
    with path.open(encoding="utf-8") as f:
        return [line.rstrip("\n").split(sep) for line in f if line.strip()]


def _inputs() -> tuple[dict[str, str], dict[tuple[str, str], int], dict[str, dict[str, list[str]]]]:
    golden = ROOT / "golden"
    queries = {r[0]: r[1] for r in _read(golden / "queries.tsv")[1:]}
    qrels = {(r[0], r[2]): int(r[3]) for r in (line[0].split() for line in _read(golden / "qrels.txt", "\n"))}
    runs: dict[str, dict[str, list[str]]] = {}
    for system in SYSTEMS:
        ranked: dict[str, list[tuple[float, str]]] = {}
        for line in _read(golden / "runs" / f"{system}.run", "\n"):
            q, _, doc, _, score, _ = line[0].split()
            ranked.setdefault(q, []).append((-float(score), doc))
        runs[system] = {q: [d for _, d in sorted(v)] for q, v in ranked.items()}
    return queries, qrels, runs


def _nuggets(rng: np.random.Generator, queries: dict[str, str]) -> list[list[str]]:
    rows = []
    for q, text in queries.items():
        n = int(rng.integers(2, 5))
        vital = int(rng.integers(1, 3))
        for i in range(n):
            kind = "vital" if i < vital else "okay"
            rows.append([q, f"n{i + 1}", kind, f"{text}: fact {i + 1}"])
    return rows


def _answer(  # noqa: PLR0917 (one answer's inputs)
    rng: np.random.Generator, system: str, q: str, ranked: list[str], qrels: dict[tuple[str, str], int],
    others: list[str],
) -> tuple[list[list[str]], list[list[str]], float]:  # fmt: skip
    """One answer's sentences and citations, and how well its citations cover the query."""
    sentences, citations, covered = [], [], 0.0
    leak = 0.12 if system == "bm25" else 0.04
    for s in range(1, int(rng.integers(2, 5)) + 1):
        sid = f"s{s}"
        sentences.append([system, q, sid, f"Sentence {s} of the {system} answer to {q}."])
        n_cited = int(rng.choice([0, 1, 1, 2], p=[0.15, 0.45, 0.2, 0.2]))
        for c in range(1, n_cited + 1):
            u = rng.random()
            if u < leak / 2:
                doc = "kb999"  # a page that does not exist
            elif u < leak:
                doc = str(rng.choice(others))  # another query's page, never retrieved here
            else:
                pool = ranked[:TOP] if system == "hybrid" else ranked[: TOP + 3]
                doc = str(rng.choice(pool))
            grade = qrels.get((q, doc), 0)
            p = {3: (0.8, 0.15), 2: (0.65, 0.25), 1: (0.3, 0.45)}.get(grade, (0.05, 0.15))
            label = str(rng.choice(["full", "partial", "none"], p=[p[0], p[1], 1 - p[0] - p[1]]))
            if rng.random() < 0.05:
                label = ""  # not judged
            covered += {3: 1.0, 2: 0.7, 1: 0.3}.get(grade, 0.0)
            citations.append([system, q, sid, str(c), doc, label])
    return sentences, citations, min(covered / 2.5, 1.0)


def _assignments(
    rng: np.random.Generator, system: str, q: str, nuggets: list[list[str]], coverage: float
) -> tuple[list[list[str]], list[list[str]]]:
    """The truth (a person's label) and the lenient LLM judge's label of each nugget."""
    truth, llm = [], []
    for _, nid, kind, _ in nuggets:
        p_support = coverage * (0.8 if kind == "vital" else 0.6)
        u = rng.random()
        level = 2 if u < p_support else 1 if u < p_support + 0.25 else 0
        judged = min(level + 1, 2) if rng.random() < 0.28 else level  # the LLM upgrades a label in four
        truth.append([system, q, nid, LABELS[level]])
        llm.append([system, q, nid, LABELS[judged]])
    return truth, llm


def _write(name: str, header: list[str], rows: list[list[str]]) -> None:
    with (HERE / name).open("w", encoding="utf-8", newline="") as f:
        w = csv.writer(f, delimiter="\t", lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)


def main() -> None:
    """Write nuggets.tsv, assignments.tsv, human.tsv, citations.tsv and sentences.tsv."""
    rng = np.random.default_rng(SEED)
    queries, qrels, runs = _inputs()
    nuggets = _nuggets(rng, queries)
    by_query: dict[str, list[list[str]]] = {}
    for row in nuggets:
        by_query.setdefault(row[0], []).append(row)
    sentences, citations, truth, llm = [], [], [], []
    for system in SYSTEMS:
        for q in queries:
            others = sorted({d for (qq, d) in qrels if qq != q} - set(runs[system][q]))
            sen, cit, coverage = _answer(rng, system, q, runs[system][q], qrels, others)
            t, a = _assignments(rng, system, q, by_query[q], coverage)
            sentences += sen
            citations += cit
            truth += t
            llm += a
    items = sorted({(r[1], r[2]) for r in truth})
    picked = {items[i] for i in rng.choice(len(items), HUMAN_PER_SYSTEM, replace=False)}
    human = [r for r in truth if (r[1], r[2]) in picked]  # the same items for both systems
    HERE.mkdir(parents=True, exist_ok=True)
    _write("nuggets.tsv", ["query_id", "nugget_id", "importance", "text"], nuggets)
    _write("assignments.tsv", ["system", "query_id", "nugget_id", "assignment"], llm)
    _write("human.tsv", ["system", "query_id", "nugget_id", "assignment"], human)
    _write(
        "citations.tsv",
        ["system", "query_id", "sentence_id", "citation_rank", "doc_id", "support"],
        citations,
    )
    _write("sentences.tsv", ["system", "query_id", "sentence_id", "text"], sentences)


if __name__ == "__main__":
    main()
