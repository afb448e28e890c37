"""Compare RAG retrievers whose hits are chunks, on document-level judgments.

Synthetic corpus: 60 queries, documents split into chunks ("doc#chunk"); two retrievers return
the top 20 chunks. Chunks are rolled up to their documents with ``duplicates="first"`` (a document
ranks where its best chunk ranks), then ``irframe.compare_report`` compares the retrievers.

Run: ``python examples/rag_comparison.py``.
"""

from __future__ import annotations

import sys

import numpy as np
import polars as pl

import irframe

N_QUERIES, N_DOCS, CHUNKS_PER_DOC, TOP = 60, 400, 6, 20


def make_data(seed: int = 7) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Qrels on documents (grades 1-3) and two chunk runs; 'rerank' sees the relevant docs better."""
    rng = np.random.default_rng(seed)
    qrels_rows, run_rows = [], []
    for q in range(N_QUERIES):
        relevant = rng.choice(N_DOCS, size=5, replace=False)
        grades = {int(d): int(g) for d, g in zip(relevant, rng.integers(1, 4, size=5), strict=True)}
        qrels_rows += [(f"q{q}", f"doc{d}", g) for d, g in grades.items()]
        chunk_ids = [(d, c) for d in range(N_DOCS) for c in range(CHUNKS_PER_DOC)]
        base = rng.normal(size=len(chunk_ids))
        for system, boost in (("dense", 1.2), ("rerank", 2.0)):
            signal = np.array([boost * grades.get(d, 0) / 3 for d, _ in chunk_ids])
            scores = base + signal + rng.normal(scale=0.8, size=len(chunk_ids))
            for i in np.argsort(-scores)[:TOP]:
                d, c = chunk_ids[i]
                run_rows.append((system, f"q{q}", f"doc{d}#{c}", float(scores[i])))
    qrels = pl.DataFrame(qrels_rows, schema=["query_id", "doc_id", "relevance"], orient="row")
    chunks = pl.DataFrame(run_rows, schema=["system", "query_id", "chunk_id", "score"], orient="row")
    return qrels, chunks


def main() -> int:
    qrels, chunks = make_data()
    docs = chunks.with_columns(pl.col("chunk_id").str.split("#").list.first().alias("doc_id"))
    dup = docs.group_by("system", "query_id", "doc_id").len().filter(pl.col("len") > 1).height
    print(f"{chunks.height} chunk hits; {dup} (system, query, document) triples hit by several chunks")

    measures = ["nDCG@10", "R@10", "RR"]
    print(irframe.evaluate(docs, measures, qrels, by="system", duplicates="first"))
    report = irframe.compare_report(
        docs, qrels, measures, baseline="dense", duplicates="first", n_permutations=2000, n_bootstrap=2000
    )
    print(report.to_text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
