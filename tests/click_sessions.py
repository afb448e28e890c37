"""Generated impression logs for the click-model tests, as a polars log and as PyClick sessions."""

from __future__ import annotations

import sys
import warnings
from typing import Any

import numpy as np
import polars as pl
import pytest

from helpers import SHARED_DIR

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
