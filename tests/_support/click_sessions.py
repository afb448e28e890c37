"""Generated impression logs for the click-model tests, as a polars log and as PyClick sessions."""

from __future__ import annotations

import sys
import warnings
from typing import Any

import numpy as np
import polars as pl
import pytest

from _support.helpers import SHARED_DIR

PYCLICK_DIR = SHARED_DIR / "tools" / "pyclick"


def pyclick() -> Any:
    """PyClick's package (GPL, a test oracle only) from IRFRAME_SHARED_DIR/tools/pyclick, or a skip."""
    if not (PYCLICK_DIR / "pyclick").is_dir():
        pytest.skip(
            f"PyClick is not at {PYCLICK_DIR}: set IRFRAME_SHARED_DIR to the shared folder "
            "(../shared beside the repository) that holds tools/pyclick"
        )
    if str(PYCLICK_DIR) not in sys.path:
        sys.path.insert(0, str(PYCLICK_DIR))
    with warnings.catch_warnings():  # its docstrings hold "\\m" escapes (a SyntaxWarning on compile)
        warnings.simplefilter("ignore", SyntaxWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        import pyclick as module
        import pyclick.click_models
        import pyclick.search_session

    return module


def generated_log(
    seed: int, n_sessions: int, lengths: tuple[int, ...], n_queries: int = 3, n_docs: int = 7
) -> pl.DataFrame:
    """Sessions of the given lengths: each shows a random order of its query's documents; clicks
    follow a cascade with satisfaction, so there are sessions with no, one and several clicks."""
    rng = np.random.default_rng(seed)
    attract = rng.uniform(0.05, 0.9, size=(n_queries, n_docs))
    satisfy = rng.uniform(0.1, 0.9, size=(n_queries, n_docs))
    rows: dict[str, list[Any]] = {
        k: [] for k in ("impression_id", "query_id", "doc_id", "position", "clicked")
    }
    for imp in range(n_sessions):
        q = int(rng.integers(n_queries))
        length = int(rng.choice(lengths))
        docs = rng.permutation(n_docs)[:length]
        examining = True
        for pos, d in enumerate(docs, start=1):
            click = examining and rng.random() < attract[q, d]
            if (click and rng.random() < satisfy[q, d]) or (examining and rng.random() > 0.85):
                examining = False
            rows["impression_id"].append(imp)
            rows["query_id"].append(f"q{q}")
            rows["doc_id"].append(f"d{d}")
            rows["position"].append(pos)
            rows["clicked"].append(int(click))
    return pl.DataFrame(rows)


def sessions(log: pl.DataFrame) -> list[Any]:
    """The log as PyClick ``SearchSession`` objects (one per impression, results in position order)."""
    pyclick()
    from pyclick.search_session import SearchResult, SearchSession

    out = []
    for _, group in log.sort("impression_id", "position").group_by("impression_id", maintain_order=True):
        session = SearchSession(group["query_id"][0])
        for doc, click in zip(group["doc_id"], group["clicked"], strict=True):
            session.web_results.append(SearchResult(doc, int(click)))
        out.append(session)
    return out


def simulated_log(
    seed: int,
    *,
    theta: tuple[float, ...] = (1.0, 0.6, 0.4, 0.3, 0.22, 0.17),
    n_queries: int = 30,
    n_docs: int = 8,
    n_impressions: int = 3000,
    n_rankers: int = 3,
) -> tuple[pl.DataFrame, dict[tuple[str, str], float]]:
    """A position-based-model log with known truth: each impression picks a query and one of
    ``n_rankers`` noisy rankers (so documents move between positions), shows the top
    ``len(theta)`` documents; a row is clicked with probability theta[position] x relevance.
    Returns the log and the true relevance of every (query, document)."""
    rng = np.random.default_rng(seed)
    depth = len(theta)
    rel = rng.beta(0.6, 1.2, size=(n_queries, n_docs))
    noise = rng.normal(0, 0.35, size=(n_rankers, n_queries, n_docs))
    q = rng.integers(n_queries, size=n_impressions)
    ranker = rng.integers(n_rankers, size=n_impressions)
    scores = rel[q] + noise[ranker, q]
    shown = np.argsort(-scores, axis=1)[:, :depth]
    prob = np.asarray(theta)[None, :] * rel[q[:, None], shown]
    clicked = (rng.random(prob.shape) < prob).astype(np.int64)
    log = pl.DataFrame(
        {
            "impression_id": np.repeat(np.arange(n_impressions), depth),
            "query_id": [f"q{i}" for i in np.repeat(q, depth)],
            "doc_id": [f"d{i}" for i in shown.ravel()],
            "position": np.tile(np.arange(1, depth + 1), n_impressions),
            "clicked": clicked.ravel(),
        }
    )
    truth = {(f"q{i}", f"d{j}"): float(rel[i, j]) for i in range(n_queries) for j in range(n_docs)}
    return log, truth


def slate_log(seed: int, n: int = 200, slots: int = 3, n_queries: int = 1) -> pl.DataFrame:
    """``n`` random slates of ``slots`` rows with obp's propensity columns (slate, item at its
    position, cascade: cumulative) of a logging and an evaluation policy, over ``n_queries``
    queries (``q``: one query; else ``q0``, ``q1``... by impression)."""
    rng = np.random.default_rng(seed)
    slate_b, slate_e = rng.uniform(0.05, 1.0, n), rng.uniform(0.0, 1.0, n)
    item_b, item_e = rng.uniform(0.05, 1.0, (n, slots)), rng.uniform(0.0, 1.0, (n, slots))
    casc_b, casc_e = np.cumprod(item_b, axis=1), np.cumprod(item_e, axis=1)
    impressions = np.repeat(np.arange(n), slots)
    queries = ["q"] * (n * slots) if n_queries == 1 else [f"q{i % n_queries}" for i in impressions]
    return pl.DataFrame(
        {
            "impression_id": impressions, "query_id": queries,
            "doc_id": [f"d{i}" for i in rng.integers(0, 9, n * slots)],
            "position": np.tile(np.arange(1, slots + 1), n),
            "clicked": rng.integers(0, 2, n * slots), "pscore": np.repeat(slate_b, slots),
            "evaluation_policy_pscore": np.repeat(slate_e, slots), "pscore_item_position": item_b.ravel(),
            "evaluation_policy_pscore_item_position": item_e.ravel(), "pscore_cascade": casc_b.ravel(),
            "evaluation_policy_pscore_cascade": casc_e.ravel(),
        }
    )  # fmt: skip
