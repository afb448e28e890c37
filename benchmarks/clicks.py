"""irframe.clicks against polars' own floor on an impression log (in memory).

The floors are the unavoidable work, written with polars alone on the same frame:

* ``sdbn`` floor: the last-click window (the impression's last clicked position, ``over``),
  the filter of the rows at or above it, and the ``group_by(query, doc)`` sums of the clicked
  column and the row count: SDBN's attractiveness counts, without its satisfaction counts,
  the checks, or the result's ordering.  irframe's time is ``click_judgments(log, "sdbn")``
  end to end: reading and checking the log (``_input/logs.check_log``), both counts, the
  natural order.
* ``pivot`` floor: the ``group_by(query, doc, position)`` CTR, its join with the position-1
  cells, and the ``group_by(position)`` sums.  irframe's: ``position_bias(log, "pivot",
  n_bootstrap=0)`` (checks included, no bootstrap).
* EM: ``click_model(log, "pbm")`` with 21 and with 1 iteration; the difference over 20 is
  the time of one EM iteration, compared with one pass of the sdbn floor.

Rounds are interleaved (floor, irframe, floor, irframe...); the ratio is the median of the
per-round ratios.

Out of core (``--out-of-core 1GB``): the same log written as parquet files of 5e6 rows (under
``--dir``, default ``/tmp/irframe-clicks-ooc``; impression ids offset per file), then
``click_judgments(dir, "sdbn", memory_limit=...)`` and ``position_bias(dir, "pivot",
memory_limit=..., n_bootstrap=0)`` each in a fresh process, with the wall time, the process's peak
RSS (VmHWM) and the number of buckets; with ``--compare``, also in memory (``pl.read_parquet``
then the same call) in a fresh process, and the two results compared (max abs difference).
``--kinds`` picks what runs out of core: ``sdbn``, ``pivot`` (the default), ``pbm`` and ``ubm``
(``click_model`` with PyClick's 50 EM iterations), ``ips`` (``counterfactual`` of a ranking of
every query's documents by their true relevance, ``DCG@10`` with the log's true theta).

The log: ``rows / 10`` impressions of 10 results over 100,000 queries of
30 documents, each impression served by one of 3 noisy rankers (so documents move between
positions), clicks from a position-based model.  The load average is reported with the
numbers (2 shared cores: read the ratios, not the seconds).

    python benchmarks/clicks.py --rows 1e7 --repeats 3
    python benchmarks/clicks.py --rows 1e7 --out-of-core 1GB --compare
    python benchmarks/clicks.py --rows 1e8 --out-of-core 2GB --kinds pbm,ubm
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import time
import warnings
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from irframe import clicks
from irframe.exceptions import ClickLogWarning

RESULTS = Path(__file__).parent / "results"


def make_log(rows: int, seed: int = 0) -> pl.DataFrame:
    """A seeded impression log of ``rows`` rows (10 per impression)."""
    rng = np.random.default_rng(seed)
    n_imp, n_q, n_d = rows // 10, 100_000, 30
    q = rng.integers(0, n_q, size=n_imp)
    ranker = rng.integers(0, 3, size=n_imp)
    # each (query, ranker) shows a fixed top 10 of the query's 30 documents: a hashed permutation
    base = (q[:, None] * 7 + ranker[:, None] * 11 + np.arange(10)[None, :] * (1 + ranker[:, None])) % n_d
    doc = q[:, None] * n_d + base
    rel = ((doc * 2654435761) % 1000) / 1000.0
    theta = 1.0 / np.arange(1, 11) ** 0.8
    clicked = rng.random((n_imp, 10)) < theta[None, :] * rel * 0.6
    return pl.DataFrame({
        "impression_id": np.repeat(np.arange(n_imp, dtype=np.int64), 10),
        "query_id": np.repeat(q, 10),
        "doc_id": doc.ravel(),
        "position": np.tile(np.arange(1, 11, dtype=np.int8), n_imp),
        "clicked": clicked.ravel().astype(np.int8),
    })  # fmt: skip


def ideal_run(n_q: int = 100_000, n_d: int = 30) -> pl.DataFrame:
    """Every query's documents of :func:`make_log` ranked by their true relevance (a new ranking)."""
    doc = np.arange(n_q * n_d, dtype=np.int64)
    rel = ((doc * 2654435761) % 1000) / 1000.0
    run = pl.DataFrame({"query_id": doc // n_d, "doc_id": doc, "score": rel})
    return run.with_columns(pl.col("score").rank("ordinal", descending=True).over("query_id").alias("rank"))


def floor_sdbn(log: pl.DataFrame) -> pl.DataFrame:
    """polars' last-click window + filter + group_by of the same columns."""
    last = pl.when(pl.col("clicked") > 0).then(pl.col("position")).max().over("impression_id")
    return (
        log.lazy()
        .with_columns(last.alias("last"))
        .filter((pl.col("position") <= pl.col("last")) | pl.col("last").is_null())
        .group_by("query_id", "doc_id")
        .agg(pl.col("clicked").sum(), pl.len())
        .collect()
    )


def floor_pivot(log: pl.DataFrame) -> pl.DataFrame:
    """polars' per-cell CTR, its join with the position-1 cells, and the per-position sums."""
    cells = log.lazy().group_by("query_id", "doc_id", "position").agg(pl.col("clicked").mean().alias("c"))
    top = cells.filter(pl.col("position") == 1).select("query_id", "doc_id", pl.col("c").alias("c0"))
    return (
        cells.join(top, on=["query_id", "doc_id"]).group_by("position").agg(pl.col("c", "c0").sum()).collect()
    )


def _ours(kind: str) -> Callable[[pl.DataFrame], Any]:
    if kind == "sdbn":
        return lambda log: clicks.click_judgments(log, "sdbn")
    return lambda log: clicks.position_bias(log, "pivot", n_bootstrap=0)


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _timed(fn: Callable[[], Any]) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def _pair(log: pl.DataFrame, floor: Callable[[pl.DataFrame], Any], ours: Callable[[pl.DataFrame], Any],
          repeats: int) -> dict[str, Any]:  # fmt: skip
    t_floor, t_ours = [], []
    for _ in range(repeats):
        t_floor.append(_timed(lambda: floor(log)))
        t_ours.append(_timed(lambda: ours(log)))
    ratios = [o / f for o, f in zip(t_ours, t_floor, strict=True)]
    return {"floor_s": t_floor, "irframe_s": t_ours, "ratio_median": statistics.median(ratios)}


def _em(log: pl.DataFrame, repeats: int) -> dict[str, Any]:
    per_iteration, floors = [], []
    for _ in range(repeats):
        floors.append(_timed(lambda: floor_sdbn(log)))
        one = _timed(lambda: clicks.click_model(log, "pbm", iterations=1))
        many = _timed(lambda: clicks.click_model(log, "pbm", iterations=21))
        per_iteration.append((many - one) / 20)
    ratios = [p / f for p, f in zip(per_iteration, floors, strict=True)]
    return {"iteration_s": per_iteration, "floor_s": floors, "ratio_median": statistics.median(ratios)}


def run(rows: int, repeats: int) -> dict[str, Any]:
    """Every comparison at ``rows`` rows."""
    log = make_log(rows)
    out: dict[str, Any] = {"rows": rows, "load_before": _load(), "polars": pl.__version__}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ClickLogWarning)  # EM at 1 and 21 iterations does not converge
        out["sdbn"] = _pair(log, floor_sdbn, _ours("sdbn"), repeats)
        out["pivot"] = _pair(log, floor_pivot, _ours("pivot"), repeats)
        out["em_iteration"] = _em(log, repeats)
    out["load_after"] = _load()
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


OOC_DIR = Path("/tmp/irframe-clicks-ooc")
CHUNK = 5_000_000


def write_log(rows: int, base: Path = OOC_DIR) -> Path:
    """:func:`make_log` in parquet files of ``CHUNK`` rows under ``<base>/rows-<n>/log`` (seeded
    per file; kept for reuse)."""
    out = base / f"rows-{rows:.0e}".replace("+", "") / "log"
    if (out.parent / "done").exists():
        return out
    out.mkdir(parents=True, exist_ok=True)
    for c, start in enumerate(range(0, rows, CHUNK)):
        part = make_log(min(CHUNK, rows - start), seed=c)
        part = part.with_columns(pl.col("impression_id") + start // 10)
        part.write_parquet(out / f"part-{c:05d}.parquet")
    (out.parent / "done").write_text(str(rows))
    return out


def _child(path: str, kind: str, memory_limit: str, result: str) -> None:
    """One call in this (fresh) process: a JSON line with its time, peak RSS and buckets."""
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ClickLogWarning)
        log: Any = path if memory_limit != "none" else pl.read_parquet(Path(path) / "*.parquet")
        kw: dict[str, Any] = {} if memory_limit == "none" else {"memory_limit": memory_limit}
        if kind == "ips":  # a new ranking of every query's 30 documents, the log's true theta
            theta = {k: 1.0 / k**0.8 for k in range(1, 11)}
            out = clicks.counterfactual(log, ideal_run(), ["DCG@10"], propensities=theta, n_bootstrap=0, **kw)
            buckets = None
        elif kind in ("sdbn", "pbm", "ubm"):
            fit = clicks.click_model(log, kind, **kw)  # (pbm, ubm: PyClick's 50 EM iterations)
            out, buckets = fit.judgments, fit.summary.get("n_buckets", 0)
        else:
            bias = clicks.position_bias_fit(log, "pivot", n_bootstrap=0, **kw)
            out, buckets = bias.theta, bias.summary.get("n_buckets", 0)
    seconds = time.perf_counter() - t0
    out.write_parquet(result)
    status = Path("/proc/self/status").read_text()
    peak_kib = int(re.search(r"VmHWM:\s+(\d+) kB", status).group(1))  # type: ignore[union-attr]
    print(json.dumps({"seconds": seconds, "peak_rss_mb": peak_kib / 1024, "buckets": buckets}))


def _spawn(path: Path, kind: str, limit: str, result: Path) -> dict[str, Any]:
    cmd = [sys.executable, __file__, "--child", str(path), kind, limit, str(result)]
    proc = subprocess.run(cmd, check=True, capture_output=True, text=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def out_of_core(
    rows: int, limit: str, *, compare: bool, kinds: tuple[str, ...] = ("sdbn", "pivot")
) -> dict[str, Any]:
    """Each kind out of core (and in memory with ``compare``), each in a fresh process."""
    path = write_log(rows)
    out: dict[str, Any] = {
        "rows": rows,
        "memory_limit": limit,
        "load_before": _load(),
        "polars": pl.__version__,
    }
    for kind in kinds:
        got = _spawn(path, kind, limit, path.parent / f"result-{kind}-ooc.parquet")
        if compare:
            got["in_memory"] = _spawn(path, kind, "none", path.parent / f"result-{kind}-mem.parquet")
            a = pl.read_parquet(path.parent / f"result-{kind}-ooc.parquet")
            b = pl.read_parquet(path.parent / f"result-{kind}-mem.parquet")
            floats = [c for c in b.columns if b[c].dtype.is_float()]
            same = a.drop(floats).equals(b.drop(floats))
            got["max_abs_diff"] = (
                max(float((a[c] - b[c]).abs().max() or 0.0) for c in floats) if same else None
            )
        out[kind] = got
    out["load_after"] = _load()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--rows", type=lambda s: int(float(s)), default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-save", action="store_true")
    parser.add_argument("--out-of-core", metavar="LIMIT", help="out of core within LIMIT (e.g. 1GB)")
    parser.add_argument("--compare", action="store_true", help="out of core: also in memory, compared")
    parser.add_argument(
        "--kinds",
        default="sdbn,pivot",
        help="out of core: what to run, of sdbn, pivot, pbm, ubm (default sdbn,pivot)",
    )
    if sys.argv[1:2] == ["--child"]:
        _child(*sys.argv[2:6])
        return
    args = parser.parse_args()
    if args.out_of_core:
        kinds = tuple(args.kinds.split(","))
        result = out_of_core(args.rows, args.out_of_core, compare=args.compare, kinds=kinds)
        _report_out_of_core(result, args.no_save)
        return
    result = run(args.rows, args.repeats)
    for name in ("sdbn", "pivot", "em_iteration"):
        r = result[name]
        ours = r.get("irframe_s", r.get("iteration_s"))
        floor = statistics.median(r["floor_s"])
        ratio = r["ratio_median"]
        print(f"{name:>13}: irframe {statistics.median(ours):.3f}s  floor {floor:.3f}s  ratio {ratio:.2f}x")
    load = f"load {result['load_before']} -> {result['load_after']}"
    print(f"{load}; peak RSS {result['peak_rss_mb']:.0f} MB")
    if not args.no_save:
        RESULTS.mkdir(exist_ok=True)
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        path = RESULTS / f"{stamp}-clicks-{args.rows:.0e}.json".replace("+", "")
        path.write_text(json.dumps(result, indent=1) + "\n")
        print(f"wrote {path}")


def _report_out_of_core(result: dict[str, Any], no_save: bool) -> None:
    for kind in ("sdbn", "pivot", "pbm", "ubm", "ips"):
        if kind not in result:
            continue
        r = result[kind]
        buckets = "" if r["buckets"] is None else f", {r['buckets']} buckets"
        line = f"{kind:>6} out of core ({result['memory_limit']}{buckets}): "
        line += f"{r['seconds']:.1f}s, peak RSS {r['peak_rss_mb']:.0f} MB"
        if "in_memory" in r:
            m = r["in_memory"]
            line += f"; in memory {m['seconds']:.1f}s, peak RSS {m['peak_rss_mb']:.0f} MB"
            line += f"; max |diff| {r['max_abs_diff']}"
        print(line)
    print(f"rows {result['rows']:.0e}; load {result['load_before']} -> {result['load_after']}")
    if not no_save:
        RESULTS.mkdir(exist_ok=True)
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        path = RESULTS / f"{stamp}-clicks-ooc-{result['rows']:.0e}.json".replace("+", "")
        path.write_text(json.dumps(result, indent=1) + "\n")
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
