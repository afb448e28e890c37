"""Seeded synthetic search logs for the benchmarks.

``make(rows)`` returns two pandas DataFrames shaped like a real TREC-style
evaluation input:

* ``run``   -- ``query_id, doc_id, score`` (``rows`` rows: ``Q`` queries x ``D`` docs),
  string ids (``"q0000123"``, ``"doc_8f3a61c2d04e"``), scores rounded to two
  decimals (so ties occur and the doc-id tie-break matters), rows shuffled.
* ``qrels`` -- ``query_id, doc_id, relevance`` graded 0-3: a sample of the
  retrieved documents (relevant retrieved docs are usually but not always
  judged), plus relevant documents the run never retrieved, plus ~5% extra
  queries that the run does not contain at all.  Some queries have no
  relevant document.

``make(rows, ordered=True)`` gives the same data sorted the trec_eval way
(query_id, then score descending, then doc_id descending) with a 1-based
``rank`` column.

Generated frames are cached as parquet under ``benchmarks/.cache/``.

``trec_files(rows)`` writes the same data once as TREC text files (``query Q0 doc rank
score tag`` sorted the trec_eval way; ``query 0 doc grade``) for the file-based contenders
(trec_eval, ``irframe eval``); ``msmarco_dev()`` is a second shape: 6,980 queries with
~100 retrieved passages each and ~1 relevant passage per query, integer ids.

Examples
--------
>>> run, qrels = make(2_000, docs_per_query=100, cache=False)
>>> len(run), list(run.columns), list(qrels.columns)
(2000, ['query_id', 'doc_id', 'score'], ['query_id', 'doc_id', 'relevance'])
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

CACHE = Path(__file__).resolve().parent / ".cache"
GRADE_P = (0.70, 0.15, 0.10, 0.05)  # P(grade 0..3) of a retrieved document


def _next_prime(n: int) -> int:
    def is_prime(k: int) -> bool:
        if k < 2 or k % 2 == 0:
            return k == 2
        return all(k % d for d in range(3, int(k**0.5) + 1, 2))

    while not is_prime(n):
        n += 1
    return n


def _doc_vocab(size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` distinct ``doc_<12 hex>`` strings (random-looking, like hashes)."""
    # distinct 48-bit values: a random odd multiplier is a bijection mod 2**48
    mult = int(rng.integers(1, 2**47)) * 2 + 1
    vals = (np.arange(size, dtype=np.uint64) * np.uint64(mult)) & np.uint64(2**48 - 1)
    return np.array([f"doc_{v:012x}" for v in vals.tolist()], dtype=object)


def generate(rows: int, docs_per_query: int = 100, seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Generate (run, qrels) without caching; rows are shuffled."""
    d = docs_per_query
    q = max(1, rows // d)
    n = q * d
    rng = np.random.default_rng(seed)

    extra_q = max(1, q // 20)  # qrels-only queries (missing from the run)
    corpus = _next_prime(max(50 * d, n // 4))
    vocab = _doc_vocab(corpus, rng)
    qid_vocab = np.array([f"q{i:07d}" for i in range(q + extra_q)], dtype=object)

    # Per query an affine walk a*j + b (mod prime) gives distinct docs for j = 0, 1, ...:
    # j < d are retrieved, j >= d are judged-but-never-retrieved.
    a = rng.integers(1, corpus, size=q + extra_q, dtype=np.int64)
    b = rng.integers(0, corpus, size=q + extra_q, dtype=np.int64)

    def docs(qi: np.ndarray, j: np.ndarray) -> np.ndarray:
        return (a[qi] * j + b[qi]) % corpus  # a, j < 2**31: no overflow

    # ---- run --------------------------------------------------------------
    qi = np.repeat(np.arange(q, dtype=np.int64), d)
    j = np.tile(np.arange(d, dtype=np.int64), q)
    grade = rng.choice(4, size=n, p=GRADE_P).astype(np.int8)
    # ~3% of queries have nothing relevant retrieved
    dead = rng.random(q) < 0.03
    grade[dead[qi]] = 0
    score = np.round(grade * 0.6 + rng.normal(0.0, 1.0, size=n), 2)
    doc_idx = docs(qi, j)

    # ---- qrels: judged retrieved docs ------------------------------------
    judged = np.where(grade > 0, rng.random(n) < 0.9, rng.random(n) < 0.2)
    jq, jdoc, jrel = qi[judged], doc_idx[judged], grade[judged]

    # ---- qrels: relevant docs never retrieved ----------------------------
    n_unret = rng.poisson(3.0, size=q)
    n_unret[dead] = 0
    uq = np.repeat(np.arange(q, dtype=np.int64), n_unret)
    uj = d + (np.arange(len(uq)) - np.repeat(np.cumsum(n_unret) - n_unret, n_unret))
    udoc = docs(uq, uj)
    urel = rng.choice(np.array([1, 2, 3], dtype=np.int8), size=len(uq), p=(0.6, 0.3, 0.1))

    # ---- qrels: queries the run never saw --------------------------------
    m_per = rng.integers(1, 10, size=extra_q)
    mq = np.repeat(np.arange(q, q + extra_q, dtype=np.int64), m_per)
    mj = np.arange(len(mq)) - np.repeat(np.cumsum(m_per) - m_per, m_per)
    mdoc = docs(mq, mj)
    mrel = rng.integers(0, 4, size=len(mq)).astype(np.int8)

    perm = rng.permutation(n)
    run = pd.DataFrame(
        {
            "query_id": pd.array(qid_vocab[qi[perm]], dtype="str"),
            "doc_id": pd.array(vocab[doc_idx[perm]], dtype="str"),
            "score": score[perm],
        }
    )
    rq = np.concatenate([jq, uq, mq])
    rdoc = np.concatenate([jdoc, udoc, mdoc])
    rrel = np.concatenate([jrel, urel, mrel]).astype(np.int64)
    qperm = rng.permutation(len(rq))
    qrels = pd.DataFrame(
        {
            "query_id": pd.array(qid_vocab[rq[qperm]], dtype="str"),
            "doc_id": pd.array(vocab[rdoc[qperm]], dtype="str"),
            "relevance": rrel[qperm],
        }
    )
    return run, qrels


def order(run: pd.DataFrame) -> pd.DataFrame:
    """Sort the trec_eval way (query asc, score desc, doc_id desc) and add ``rank`` (1-based)."""
    out = run.sort_values(
        ["query_id", "score", "doc_id"], ascending=[True, False, False], kind="stable"
    ).reset_index(drop=True)
    out.insert(2, "rank", out.groupby("query_id", sort=False).cumcount().to_numpy() + 1)
    return out


def cache_paths(rows: int, docs_per_query: int = 100, seed: int = 0) -> dict[str, Path]:
    """Parquet cache files: keys ``run``, ``ordered``, ``qrels``."""
    tag = f"r{int(rows)}-d{docs_per_query}-s{seed}"
    return {
        "run": CACHE / f"{tag}-run.parquet",
        "ordered": CACHE / f"{tag}-run-ordered.parquet",
        "qrels": CACHE / f"{tag}-qrels.parquet",
    }


def make(
    rows: int,
    docs_per_query: int = 100,
    seed: int = 0,
    *,
    ordered: bool = False,
    cache: bool = True,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Cached (run, qrels); ``ordered=True`` gives the sorted run with a ``rank`` column."""
    paths = cache_paths(rows, docs_per_query, seed)
    key = "ordered" if ordered else "run"
    if cache and paths[key].exists() and paths["qrels"].exists():
        return pd.read_parquet(paths[key]), pd.read_parquet(paths["qrels"])
    run, qrels = generate(int(rows), docs_per_query, seed)
    if ordered:
        run = order(run)
    if cache:
        CACHE.mkdir(parents=True, exist_ok=True)
        run.to_parquet(paths[key], index=False)
        qrels.to_parquet(paths["qrels"], index=False)
    return run, qrels


def write_trec(run: pd.DataFrame, qrels: pd.DataFrame, run_path: Path, qrels_path: Path) -> None:
    """Write TREC files: the run sorted the trec_eval way with ranks 1..n, the qrels as given.

    Written to ``*.tmp`` and renamed, so an interrupted write never leaves a truncated file.
    """
    import polars as pl

    r = (
        pl.from_pandas(run[["query_id", "doc_id", "score"]])
        .with_columns(pl.col("query_id", "doc_id").cast(pl.String))
        .sort(["query_id", "score", "doc_id"], descending=[False, True, True])
        .select(
            "query_id",
            pl.lit("Q0").alias("iter"),
            "doc_id",
            (pl.int_range(1, pl.len() + 1).over("query_id")).alias("rank"),
            "score",
            pl.lit("bench").alias("tag"),
        )
    )
    q = pl.from_pandas(qrels[["query_id", "doc_id", "relevance"]]).select(
        pl.col("query_id").cast(pl.String),
        pl.lit("0").alias("iter"),
        pl.col("doc_id").cast(pl.String),
        "relevance",
    )
    for frame, path in ((r, run_path), (q, qrels_path)):
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        frame.write_csv(tmp, separator=" ", include_header=False, quote_style="never")
        tmp.replace(path)


def trec_files(rows: int, docs_per_query: int = 100, seed: int = 0) -> tuple[Path, Path]:
    """``(qrels_path, run_path)``: the data of ``make(rows, ...)`` as TREC files, written once."""
    tag = f"r{int(rows)}-d{docs_per_query}-s{seed}"
    run_path, qrels_path = CACHE / "trec" / f"{tag}.run", CACHE / "trec" / f"{tag}.qrels"
    if not (run_path.exists() and qrels_path.exists()):
        run, qrels = make(rows, docs_per_query, seed)
        write_trec(run, qrels, run_path, qrels_path)
    return qrels_path, run_path


def msmarco_dev(seed: int = 0, queries: int = 6980, depth: int = 100) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A run and qrels shaped like MS MARCO passage dev (small) with a BM25-like top 100.

    6,980 queries with integer-like ids, a corpus of 8.8M passages (integer-like ids, so the
    doc-id tie-break compares them as strings), ``depth`` retrieved per query (2% of the
    queries fewer), scores with 4 decimals (a few ties), ~1.07 relevant passages per query
    (grade 1, no judged non-relevant), about 2/3 of the queries with one in the top 100.
    """
    rng = np.random.default_rng(seed)
    qids = rng.choice(1_200_000, size=queries, replace=False)
    n_docs = np.where(rng.random(queries) < 0.02, rng.integers(10, depth, size=queries), depth)
    qi = np.repeat(np.arange(queries), n_docs)
    pos = np.arange(len(qi)) - np.repeat(np.cumsum(n_docs) - n_docs, n_docs)
    # distinct docs per query: an affine walk a*j + b mod a prime just below the corpus size
    prime = _next_prime(8_841_000)  # ~ the MS MARCO passage corpus size
    a = rng.integers(1, prime, size=queries)
    b = rng.integers(0, prime, size=queries)
    docs = (a[qi] * pos + b[qi]) % prime
    top = rng.uniform(15.0, 35.0, size=queries)
    # scores fall with the position: the query's top score minus a walk of small steps
    steps = rng.exponential(0.08, size=len(qi))
    csum = np.cumsum(steps)
    starts = np.cumsum(n_docs) - n_docs
    score = np.round(top[qi] - (csum - np.repeat(csum[starts] - steps[starts], n_docs)), 4)
    # relevant passages: 1 per query (7% 2, 1% 3); a hit in the top 100 for ~2/3 of the queries
    n_rel = 1 + (rng.random(queries) < 0.07) + (rng.random(queries) < 0.01)
    hit = rng.random(queries) < 0.66
    hit_rank = np.minimum(rng.geometric(0.15, size=queries), n_docs) - 1
    rq = np.repeat(np.arange(queries), n_rel)
    k = np.arange(len(rq)) - np.repeat(np.cumsum(n_rel) - n_rel, n_rel)
    rdoc = (a[rq] * (depth + k) + b[rq]) % prime  # never retrieved ...
    first = k == 0
    rdoc[first & hit[rq]] = ((a[rq] * hit_rank[rq] + b[rq]) % prime)[first & hit[rq]]  # ... unless a hit
    perm = rng.permutation(len(qi))
    run = pd.DataFrame(
        {
            "query_id": pd.array(qids[qi[perm]].astype(str), dtype="str"),
            "doc_id": pd.array(docs[perm].astype(str), dtype="str"),
            "score": score[perm],
        }
    )
    qrels = pd.DataFrame(
        {
            "query_id": pd.array(qids[rq].astype(str), dtype="str"),
            "doc_id": pd.array(rdoc.astype(str), dtype="str"),
            "relevance": np.ones(len(rq), dtype=np.int64),
        }
    )
    return run, qrels


def main() -> None:
    ap = argparse.ArgumentParser(description="generate and cache benchmark data")
    ap.add_argument("--rows", default="1e5", help="comma-separated, e.g. 1e5,1e6")
    ap.add_argument("--docs-per-query", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    for r in args.rows.split(","):
        for ordered in (False, True):
            run, qrels = make(int(float(r)), args.docs_per_query, args.seed, ordered=ordered)
            print(
                f"rows={len(run):,} ordered={ordered} qrels={len(qrels):,} "
                f"queries={run['query_id'].nunique():,}"
            )


if __name__ == "__main__":
    main()
