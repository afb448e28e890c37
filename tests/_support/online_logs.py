"""Simulated impression logs for the online tests (seeded; plain numpy)."""

from __future__ import annotations

import numpy as np
import polars as pl

from irframe import online


def ab_log(
    n_users: int = 300, *, seed: int = 0, lift: float = 0.0, k: int = 5, arms: tuple[str, ...] = ("A", "B")
) -> pl.DataFrame:
    """Users split over ``arms``; each has 1-8 impressions of ``k`` results, sessions of up to 3
    impressions, timestamps, click times and dwell.  ``lift`` raises the click probability of
    every arm but the first."""
    rng = np.random.default_rng(seed)
    rows: dict[str, list[object]] = {c: [] for c in (
        "impression_id", "query_id", "doc_id", "position", "clicked", "user_id", "session_id",
        "timestamp", "click_time", "dwell", "arm", "device")}  # fmt: skip
    imp = 0
    for u in range(n_users):
        arm = arms[u % len(arms)]
        taste = rng.uniform(0.5, 1.5)  # users differ: clicks correlate within a user
        device = "mobile" if u % 3 == 0 else "desktop"
        t = float(rng.integers(0, 10_000))
        for i in range(int(rng.integers(1, 9))):
            imp += 1
            session = f"s{u}-{i // 3}"
            t += float(rng.choice([5, 40, 200, 900]))
            q = f"q{int(rng.integers(0, 20))}"
            for pos in range(1, k + 1):
                p = min(0.95, taste * (0.5 / pos) * (1 + (lift if arm != arms[0] else 0.0)))
                c = int(rng.random() < p)
                ct = t + pos * 2.5 + float(rng.integers(0, 4)) if c else None
                dwell = float(rng.choice([3, 12, 45, 120])) if c else None
                doc = f"d{int(rng.integers(0, 50))}"
                values = (imp, q, doc, pos, c, f"u{u}", session, t, ct, dwell, arm, device)
                for col, v in zip(rows, values, strict=True):
                    rows[col].append(v)
    return pl.DataFrame(rows)


def interleaved_log(
    method: str, n_queries: int = 40, reps: int = 3
) -> tuple[pl.DataFrame, dict[str, pl.DataFrame]]:
    """Two runs over ``n_queries`` queries, each query served ``reps`` times (seeds 0..reps-1),
    clicks drawn at random (seeded): an interleaved log with several impressions per query."""
    rng = np.random.default_rng(5)
    runs = {
        name: pl.DataFrame(
            [
                (f"q{q}", f"d{d}", r)
                for q in range(n_queries)
                for r, d in enumerate(rng.choice(12, size=6, replace=False), 1)
            ],
            schema=["query_id", "doc_id", "rank"],
            orient="row",
        )
        for name in ("A", "B")
    }
    served = [
        online.interleave(runs, method=method, seed=s).with_columns(pl.lit(s).alias("rep"))
        for s in range(reps)
    ]
    log = pl.concat(served).with_columns(
        pl.struct("query_id", "rep").rank("dense").cast(pl.Int64).alias("impression_id"),
        (pl.lit(rng.random(sum(f.height for f in served))) < 0.3 / pl.col("position").sqrt())
        .cast(pl.Int8).alias("clicked"),
    )  # fmt: skip
    return log, runs
