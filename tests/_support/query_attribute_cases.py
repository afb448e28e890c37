"""Query attributes (``queries=``) for every backend: shared data and expectations.

``SMALL`` is small enough to compute by hand (see ``HAND_MEANS``); the golden set gives
the backends a realistic case whose reference is the in-process result.  ``BAD_QUERIES``
gives query ``q01`` two segments.
"""

from __future__ import annotations

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from irframe.datasets import golden

G = golden()
QUERIES = G.queries.select("query_id", "segment")
BAD_QUERIES = pl.concat([QUERIES, pl.DataFrame({"query_id": ["q01"], "segment": ["other"]})])
BY = ["system", "segment"]

# q1: relevant b at rank 2 (RR 1/2); q3: relevant a at rank 1 (RR 1); q2: relevant z at
# rank 3 (RR 1/3); q4 is judged but not in the run (0 under missing="zero"); q6 is in the
# run but not judged; q5 is only in the queries table.
SMALL_RUN = pl.DataFrame({
    "query_id": ["q1", "q1", "q1", "q2", "q2", "q2", "q3", "q6"],
    "doc_id": ["a", "b", "c", "x", "y", "z", "a", "a"],
    "rank": [1, 2, 3, 1, 2, 3, 1, 1],
})  # fmt: skip
SMALL_QRELS = pl.DataFrame({
    "query_id": ["q1", "q2", "q3", "q4"], "doc_id": ["b", "z", "a", "w"], "relevance": [1, 1, 2, 1],
})  # fmt: skip
SMALL_QUERIES = pl.DataFrame({
    "query_id": ["q1", "q2", "q3", "q4", "q5", "q6"],
    "segment": ["head", "tail", "head", "tail", "head", "tail"],
    "tier": [1, 2, 1, 2, 1, 2],
})  # fmt: skip
# by="segment", RR: head = (1/2 + 1) / 2; tail = (1/3 + 0) / 2 with q4 missing (and q6
# unjudged, not counted).
HAND_MEANS = {
    "head": {"RR": 0.75, "n_queries": 2, "n_missing": 0, "n_unjudged": 0},
    "tail": {"RR": 1 / 6, "n_queries": 2, "n_missing": 1, "n_unjudged": 1},
}


def assert_hand_means(means: pl.DataFrame) -> None:
    """The means by segment of ``SMALL`` are the hand-computed ones."""
    got = {row.pop("segment"): row for row in means.iter_rows(named=True)}
    assert set(got) == set(HAND_MEANS)
    for segment, want in HAND_MEANS.items():
        assert got[segment] == pytest.approx(want, abs=1e-12), segment


def assert_same_as_in_process(got: pl.DataFrame, want: pl.DataFrame, *, per_query: bool) -> None:
    """Per query: the same frame (rows in the same order); means: up to summation order."""
    if per_query:
        assert_frame_equal(got, want, check_exact=True)
        return
    keys = [c for c in want.columns if want.schema[c] == pl.String]
    assert_frame_equal(got.sort(keys), want.sort(keys), check_exact=False, rel_tol=1e-12, abs_tol=1e-12)
