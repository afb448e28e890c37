"""irframe.answers against the peers' own loops, side by side.

    PYTHONPATH=src python benchmarks/answers.py --answers 1e4
    PYTHONPATH=src python benchmarks/answers.py --answers 1e5 --rounds 5

Cases (each a pair timed in the same rounds; the ratio is irframe's time over the peer's):

* ``nuggets``: ``nugget_scores(assignments, nuggets, per_query=True)`` against nuggetizer's
  ``calculate_nugget_scores`` over every answer's record (``../shared/tools/nuggetizer``; the
  records built once, untimed), ~6 nuggets per answer.
* ``ppi``: ``ppi_mean(..., by="group", lam=None)`` over 200 groups in one call against
  ``ppi_py.ppi_mean_ci(lam=None)`` called per group (the arrays split once, untimed).
* ``grounding`` (no peer): ``grounding(citations, run, qrels, k=10)`` alone, 3 citations per
  answer, a run of 100 documents per query.

How it measures: round r calls every timed function once, in an order rotated per round,
after ``gc.collect()``; ratios are computed within each round and the median over rounds is
reported with the median times.  Before the rounds, untimed, irframe's numbers are checked
against the peer's (to 1e-9).  Results: ``results/answers-<timestamp>-<answers>.json`` and
``results/answers-latest.md``.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
SHARED = Path(os.environ.get("IRFRAME_SHARED_DIR") or HERE.parents[1] / "shared")


def _nugget_data(
    n_answers: int, rng: np.random.Generator
) -> tuple[pl.DataFrame, pl.DataFrame, list[dict[str, Any]]]:
    n_queries = max(n_answers // 4, 1)
    sizes = rng.integers(3, 10, n_queries)
    q = np.repeat(np.arange(n_queries), sizes)
    nid = np.concatenate([np.arange(s) for s in sizes])
    importance = np.where(rng.random(q.size) < 0.4, "vital", "okay")
    nuggets = pl.DataFrame(
        {"query_id": q.astype(str), "nugget_id": nid.astype(str), "importance": importance}
    )
    systems = 4
    asg = nuggets.join(pl.DataFrame({"system": [f"s{i}" for i in range(systems)]}), how="cross")
    labels = np.array(["support", "partial_support", "not_support"])[rng.integers(0, 3, asg.height)]
    asg = asg.with_columns(pl.Series("assignment", labels)).select(
        "system", "query_id", "nugget_id", "importance", "assignment"
    )
    records = [
        {
            "qid": f"{s}|{qid}",
            "nuggets": [{"importance": i, "assignment": a} for i, a in zip(imps, asgs, strict=True)],
        }
        for s, qid, imps, asgs in asg.group_by("system", "query_id", maintain_order=True)
        .agg("importance", "assignment")
        .iter_rows()
    ]
    return asg.drop("importance"), nuggets, records


def _ppi_data(
    rng: np.random.Generator, groups: int = 200
) -> tuple[pl.DataFrame, pl.DataFrame, list[tuple[Any, ...]]]:
    size, n = 500, 40
    y = rng.uniform(0, 1, (groups, size))
    yhat = y + 0.1 + rng.normal(0, 0.2, (groups, size))
    g = np.repeat(np.arange(groups), size).astype(str)
    item = np.tile(np.arange(size), groups).astype(str)
    llm = pl.DataFrame({"group": g, "item": item, "score": yhat.ravel()})
    mask = np.zeros((groups, size), dtype=bool)
    mask[:, :n] = True
    human = pl.DataFrame({"group": g, "item": item, "human": y.ravel()}).filter(pl.Series(mask.ravel()))
    arrays = [(y[i, :n], yhat[i, :n], yhat[i, n:]) for i in range(groups)]
    return llm, human, arrays


def _grounding_data(
    n_answers: int, rng: np.random.Generator
) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    depth = 100
    q = np.repeat(np.arange(n_answers), depth).astype(str)
    docs = rng.integers(0, 50 * depth, q.size).astype(str)
    run = pl.DataFrame({"query_id": q, "doc_id": docs, "score": rng.random(q.size).round(3)})
    cq = np.repeat(np.arange(n_answers), 3).astype(str)
    cit = pl.DataFrame({"query_id": cq, "sentence_id": np.tile(["s1", "s2", "s3"], n_answers),
                        "doc_id": rng.integers(0, 50 * depth, cq.size).astype(str)})  # fmt: skip
    qrels = (
        run.filter(pl.col("score") > 0.9).select("query_id", "doc_id", pl.lit(1).alias("relevance")).unique()
    )
    return cit, run, qrels


def _check(
    cases: dict[str, tuple[Callable[[], Any], Callable[[], Any] | None]], extra: dict[str, Any]
) -> None:
    ours = cases["nuggets"][0]()
    theirs = cases["nuggets"][1]()  # type: ignore[misc]
    got = dict(zip(ours["system"] + "|" + ours["query_id"], ours["A"], strict=True))
    assert all(abs(got[m.qid] - m.all_score) < 1e-9 for m in theirs), "nugget scores disagree"
    est = cases["ppi"][0]().sort("group", descending=False)
    their = cases["ppi"][1]()  # type: ignore[misc]
    order = sorted(range(len(their)), key=str)  # (the groups' names sort as text)
    lows = [float(np.ravel(their[i][0])[0]) for i in order]
    assert np.allclose(est["ci_low"].to_numpy(), lows, atol=1e-9), "ppi intervals disagree"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--answers", type=float, default=1e4)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--no-save", action="store_true")
    args = ap.parse_args()
    sys.path.insert(0, str(SHARED / "tools" / "nuggetizer"))
    import ppi_py
    from nuggetizer.core.metrics import calculate_nugget_scores

    from irframe.answers import grounding, nugget_scores, ppi_mean

    rng = np.random.default_rng(0)
    n = int(args.answers)
    asg, nuggets, records = _nugget_data(n, rng)
    llm, human, arrays = _ppi_data(rng)
    cit, run, qrels = _grounding_data(n, rng)
    cases: dict[str, tuple[Callable[[], Any], Callable[[], Any] | None]] = {
        "nuggets": (lambda: nugget_scores(asg, nuggets, per_query=True),
                    lambda: [calculate_nugget_scores(r["qid"], r["nuggets"]) for r in records]),
        "ppi": (lambda: ppi_mean(llm, human, on="item", by="group", lam=None),
                lambda: [ppi_py.ppi_mean_ci(y, yh, yu, alpha=0.05, lam=None) for y, yh, yu in arrays]),
        "grounding": (lambda: grounding(cit, run, qrels, k=10), None),
    }  # fmt: skip
    _check(cases, {})
    timed = [
        (name, side, fn)
        for name, pair in cases.items()
        for side, fn in zip(("irframe", "peer"), pair, strict=True)
        if fn
    ]
    times: dict[tuple[str, str], list[float]] = {(c, s): [] for c, s, _ in timed}
    ratios: dict[str, list[float]] = {c: [] for c in cases if cases[c][1] is not None}
    for r in range(args.rounds):
        this: dict[tuple[str, str], float] = {}
        for c, s, fn in timed[r % len(timed) :] + timed[: r % len(timed)]:
            gc.collect()
            t0 = time.perf_counter()
            fn()
            this[(c, s)] = time.perf_counter() - t0
            times[(c, s)].append(this[(c, s)])
        for c, found in ratios.items():
            found.append(this[(c, "irframe")] / this[(c, "peer")])
    load = os.getloadavg()
    rows = [
        {"case": c, "irframe_s": statistics.median(times[(c, "irframe")]),
         "peer_s": statistics.median(times[(c, "peer")]) if (c, "peer") in times else None,
         "ratio": statistics.median(ratios[c]) if c in ratios else None}
        for c in cases
    ]  # fmt: skip
    table = [f"answers={n:.0e}, rounds={args.rounds}, load {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}",
             "| case | irframe (s) | peer (s) | ratio (median of rounds) |", "|---|---|---|---|"]  # fmt: skip
    for row in rows:
        peer = "-" if row["peer_s"] is None else f"{row['peer_s']:.4f}"
        ratio = "-" if row["ratio"] is None else f"{row['ratio']:.3f}"
        table.append(f"| {row['case']} | {row['irframe_s']:.4f} | {peer} | {ratio} |")
    print("\n".join(table))
    if not args.no_save:
        RESULTS.mkdir(exist_ok=True)
        stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        meta = {"answers": n, "rounds": args.rounds, "load": load, "python": platform.python_version(),
                "polars": pl.__version__, "rows": rows,
                "times": {f"{c}/{s}": v for (c, s), v in times.items()}}  # fmt: skip
        (RESULTS / f"answers-{stamp}-{n:.0e}.json").write_text(json.dumps(meta, indent=1))
        (RESULTS / "answers-latest.md").write_text("\n".join(table) + "\n")


if __name__ == "__main__":
    main()
