"""Regenerate the bundled click log (``python scripts/make_clicks.py``), in src/irframe/datasets/clicks/.

A script of the repository, not of the package: the wheel ships the files it wrote.

A simulated search log whose truth is known, so that what irframe estimates from it can
be checked against what generated it:

* 60 queries with 10 candidate documents each and hidden grades 0-3 (``truth.tsv``);
* users examine position k with probability theta_k (``theta.tsv``: 1/k^0.8 over 10
  positions), and click an examined document with probability 0.05, 0.25, 0.55 or 0.85
  by grade (the position-based model);
* 70% of the impressions were served by ranker ``a`` (production) and 30% by ``old``
  (its predecessor), so documents move between positions (the intervention harvesting
  of ``position_bias`` needs that);
* ``runs.tsv`` holds ``a``, ``old`` and ``b``: the new ranker, truly better than ``a``
  (``b`` sees the grades with less noise), and never served.

Judgments made of raw clicks credit the documents ``a`` put on top, so they reward ``a``
for its own positions: on this log they rank ``b`` below ``a``, while the hidden grades
rank it clearly above (the guide ``docs/guides/search-logs.md`` shows both).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl

__all__ = ["ATTRACT", "SEED", "main"]

SEED = 20261207
N_QUERIES, N_DOCS, N_IMPRESSIONS = 60, 10, 5000
THETA = 1.0 / np.arange(1, N_DOCS + 1) ** 0.8
ATTRACT = np.array([0.05, 0.25, 0.55, 0.85])  # P(click | examined) by grade
NOISE = {"a": 1.5, "old": 1.5, "b": 0.6}  # score = grade + noise: b is the better ranker
SHARE_OLD = 0.3
OUT = Path(__file__).resolve().parents[1] / "src" / "irframe" / "datasets" / "clicks"


def _doc(query: int, doc: int) -> str:
    return f"q{query + 1:02d}-d{doc + 1:02d}"


def _grades(rng: np.random.Generator) -> np.ndarray:
    return rng.choice(4, size=(N_QUERIES, N_DOCS), p=[0.45, 0.25, 0.18, 0.12])


def _runs(rng: np.random.Generator, grades: np.ndarray) -> pl.DataFrame:
    frames = []
    for system, noise in NOISE.items():
        scores = grades + rng.normal(0.0, noise, size=grades.shape)
        order = np.argsort(-scores, axis=1)
        q, r = np.meshgrid(np.arange(N_QUERIES), np.arange(N_DOCS), indexing="ij")
        frames.append(
            pl.DataFrame(
                {
                    "system": system,
                    "query_id": [f"q{i + 1:02d}" for i in q.ravel()],
                    "doc_id": [
                        f"q{i + 1:02d}-d{j + 1:02d}" for i, j in zip(q.ravel(), order.ravel(), strict=True)
                    ],
                    "rank": (r.ravel() + 1).astype(np.int64),
                }
            )
        )
    return pl.concat(frames)


def _log(rng: np.random.Generator, grades: np.ndarray, runs: pl.DataFrame) -> pl.DataFrame:
    order = {
        s: runs.filter(pl.col("system") == s)
        .sort("query_id", "rank")["doc_id"]
        .to_numpy()
        .reshape(N_QUERIES, N_DOCS)
        for s in ("a", "old")
    }
    q = rng.integers(N_QUERIES, size=N_IMPRESSIONS)
    served = np.where(rng.random(N_IMPRESSIONS) < SHARE_OLD, "old", "a")
    shown = np.stack([order[s][qi] for s, qi in zip(served, q, strict=True)])
    doc_index = np.vectorize(lambda d: int(d.split("-d")[1]) - 1)(shown)
    prob = THETA[None, :] * ATTRACT[grades[q[:, None], doc_index]]
    clicked = (rng.random(prob.shape) < prob).astype(np.int8)
    return pl.DataFrame(
        {
            "impression_id": np.repeat(np.arange(1, N_IMPRESSIONS + 1), N_DOCS),
            "query_id": [f"q{i + 1:02d}" for i in np.repeat(q, N_DOCS)],
            "doc_id": shown.ravel(),
            "position": np.tile(np.arange(1, N_DOCS + 1), N_IMPRESSIONS).astype(np.int8),
            "clicked": clicked.ravel(),
            "system": np.repeat(served, N_DOCS),
        }
    )


def main() -> None:
    """Write the log, the truth, theta and the runs."""
    rng = np.random.default_rng(SEED)
    grades = _grades(rng)
    runs = _runs(rng, grades)
    log = _log(rng, grades, runs)
    OUT.mkdir(parents=True, exist_ok=True)
    log.write_parquet(OUT / "log.parquet", compression="zstd", statistics=False)
    q, d = np.meshgrid(np.arange(N_QUERIES), np.arange(N_DOCS), indexing="ij")
    truth = pl.DataFrame(
        {
            "query_id": [f"q{i + 1:02d}" for i in q.ravel()],
            "doc_id": [_doc(i, j) for i, j in zip(q.ravel(), d.ravel(), strict=True)],
            "relevance": grades.ravel().astype(np.int64),
        }
    )
    truth.write_csv(OUT / "truth.tsv", separator="\t")
    pl.DataFrame({"position": np.arange(1, N_DOCS + 1), "theta": THETA}).write_csv(
        OUT / "theta.tsv", separator="\t"
    )
    runs.write_csv(OUT / "runs.tsv", separator="\t")


if __name__ == "__main__":
    main()
