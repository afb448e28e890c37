"""Out-of-core evaluation: time and peak memory of ``irframe.evaluate_parquet`` vs its setting.

Two steps, both seeded and streaming (nothing is held whole in memory):

``generate``
    writes a synthetic run (``query_id, doc_id, score``; 100 documents per query, string ids,
    scores rounded to two decimals so ties occur) and its qrels (30 graded retrieved documents
    and 3 never-retrieved relevant ones per query, plus 5% queries absent from the run) as
    parquet files, in chunks of 5e6 rows, under ``--dir`` (default ``/tmp/irframe-ooc``).
    Keep it out of the repository: 1e8 rows take ~1 GB of parquet.
``run``
    evaluates the data set in a fresh child process once per ``--memory-limit`` setting and
    reports the wall time and the child's peak resident memory (``ru_maxrss``).

Examples
--------
::

    python benchmarks/outofcore.py generate --rows 1e7
    python benchmarks/outofcore.py run --rows 1e7 --memory-limit 512MB,1GB,2GB
    python benchmarks/outofcore.py run --rows 1e8 --memory-limit 2GB --json /tmp/ooc-1e8.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

DEFAULT_DIR = Path("/tmp/irframe-ooc")
MEASURES = ["nDCG@10", "AP", "P@10", "RR", "R@100"]
CHUNK = 5_000_000
DOCS = 100
CORPUS = 1_000_000_007  # prime: (a * j + b) mod CORPUS is distinct for distinct j


def _rows(text: str) -> int:
    return int(float(text))


def data_dir(base: Path, rows: int) -> Path:
    """Where the data set of ``rows`` rows lives."""
    return base / f"rows-{rows:.0e}".replace("+", "")


def generate(rows: int, base: Path = DEFAULT_DIR, seed: int = 0) -> Path:
    """Write ``run/part-*.parquet`` and ``qrels/part-*.parquet`` for ``rows`` run rows."""
    import numpy as np
    import polars as pl

    out = data_dir(base, rows)
    if (out / "done").exists():
        return out
    (out / "run").mkdir(parents=True, exist_ok=True)
    (out / "qrels").mkdir(parents=True, exist_ok=True)
    n_queries = max(1, rows // DOCS)
    extra = max(1, n_queries // 20)  # judged queries the run does not contain
    per_chunk = max(1, CHUNK // DOCS)
    rng = np.random.default_rng(seed)
    qid = pl.format("q{}", pl.col("qi").cast(pl.String).str.zfill(9)).alias("query_id")
    did = pl.format("d{}", pl.col("doc").cast(pl.String).str.zfill(10)).alias("doc_id")
    for c, q0 in enumerate(range(0, n_queries + extra, per_chunk)):
        nq = min(per_chunk, n_queries + extra - q0)
        qi = np.arange(q0, q0 + nq, dtype=np.int64)
        a = (qi * 2654435761 + seed) % (CORPUS - 1) + 1
        b = (qi * 40503 + 7 * seed) % CORPUS
        in_run = qi[qi < n_queries]
        if in_run.size:
            rq = np.repeat(in_run, DOCS)
            j = np.tile(np.arange(DOCS, dtype=np.int64), in_run.size)
            doc = (a[: in_run.size].repeat(DOCS) * j + b[: in_run.size].repeat(DOCS)) % CORPUS
            perm = rng.permutation(rq.size)
            run = pl.DataFrame(
                {"qi": rq[perm], "doc": doc[perm], "score": np.round(rng.random(rq.size), 2)}
            ).select(qid, did, "score")
            run.write_parquet(out / "run" / f"part-{c:05d}.parquet")
        # qrels: the first 30 ranked-by-j documents graded 0-3, and 3 unretrieved relevant ones
        j = np.concatenate([np.arange(30), np.arange(DOCS, DOCS + 3)]).astype(np.int64)
        jq = np.repeat(qi, j.size)
        jj = np.tile(j, nq)
        doc = (np.repeat(a, j.size) * jj + np.repeat(b, j.size)) % CORPUS
        grade = rng.choice(4, size=jq.size, p=[0.6, 0.2, 0.12, 0.08])
        grade = np.where(jj >= DOCS, rng.integers(1, 4, size=jq.size), grade)
        qrels = pl.DataFrame({"qi": jq, "doc": doc, "relevance": grade}).select(
            qid, did, pl.col("relevance").cast(pl.Int32)
        )
        qrels.write_parquet(out / "qrels" / f"part-{c:05d}.parquet")
    (out / "done").write_text(str(rows))
    return out


def _child(path: Path, memory_limit: str, measures: list[str]) -> None:
    """Evaluate in this (fresh) process; print a JSON line with time and results."""
    import irframe

    t0 = time.perf_counter()
    means = irframe.evaluate_parquet(
        str(path / "run" / "*.parquet"),
        measures,
        qrels=str(path / "qrels" / "*.parquet"),
        memory_limit=memory_limit,
    )
    seconds = time.perf_counter() - t0
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    status = Path("/proc/self/status")
    if status.exists():  # VmHWM: this image only (ru_maxrss keeps the parent's, across exec)
        peak_kib = int(re.search(r"VmHWM:\s+(\d+) kB", status.read_text()).group(1))  # type: ignore[union-attr]
    print(json.dumps({"seconds": seconds, "peak_rss_mb": peak_kib / 1024, "means": means.to_dicts()[0]}))


def run(rows: int, limits: list[str], base: Path = DEFAULT_DIR) -> list[dict[str, object]]:
    """Evaluate the ``rows`` data set once per memory setting, each in a fresh process."""
    path = generate(rows, base)
    results = []
    for limit in limits:
        cmd = [sys.executable, __file__, "_child", "--path", str(path), "--memory-limit", limit]
        proc = subprocess.run(cmd, check=True, capture_output=True, text=True)
        record = json.loads(proc.stdout.strip().splitlines()[-1])
        record.update(rows=rows, memory_limit=limit)
        results.append(record)
        print(
            f"rows={rows:.0e} memory_limit={limit:>6}  time={record['seconds']:8.1f} s  "
            f"peak RSS={record['peak_rss_mb']:8.0f} MB",
            flush=True,
        )
    return results


def main(argv: list[str] | None = None) -> None:
    """Command line: ``generate`` / ``run`` (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("generate")
    g.add_argument("--rows", type=_rows, default=10**7)
    g.add_argument("--dir", type=Path, default=DEFAULT_DIR)
    r = sub.add_parser("run")
    r.add_argument("--rows", type=_rows, default=10**7)
    r.add_argument("--dir", type=Path, default=DEFAULT_DIR)
    r.add_argument("--memory-limit", default="1GB", help="comma-separated settings")
    r.add_argument("--json", type=Path, help="also write the results here")
    c = sub.add_parser("_child")
    c.add_argument("--path", type=Path, required=True)
    c.add_argument("--memory-limit", required=True)
    c.add_argument("--measures", default=",".join(MEASURES))
    args = parser.parse_args(argv)
    if args.cmd == "generate":
        t0 = time.perf_counter()
        print(generate(args.rows, args.dir), f"{time.perf_counter() - t0:.0f} s")
    elif args.cmd == "run":
        results = run(args.rows, args.memory_limit.split(","), args.dir)
        if args.json:
            machine = {"cpus": os.cpu_count(), "platform": platform.platform()}
            args.json.write_text(json.dumps({"machine": machine, "results": results}, indent=1))
    else:
        _child(args.path, args.memory_limit, args.measures.split(","))


if __name__ == "__main__":
    main()
