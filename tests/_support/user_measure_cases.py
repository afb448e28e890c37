"""One case for the user-defined measures on the distributed backends (Dask, Spark).

Hand counts: ``Hits@10`` relevant retrieved in the top 10; ``Hits(rel=2)@5`` grade >= 2 in
the top 5; ``Missed`` judged relevant documents not retrieved (as in
tests/measures/test_user_measures.py).
"""

from __future__ import annotations

import polars as pl

RUN = pl.DataFrame({
    "query_id": ["q1"] * 5 + ["q2"] * 2,
    "doc_id": ["a", "b", "c", "d", "e", "x", "y"],
    "score": [5.0, 4.0, 3.0, 2.0, 1.0, 2.0, 1.0],
})  # fmt: skip
QRELS = pl.DataFrame({
    "query_id": ["q1"] * 5 + ["q2"] * 2 + ["q3"],
    "doc_id": ["a", "c", "d", "e", "f", "x", "y", "z"],
    "relevance": [1, 2, 0, -1, 3, 0, 1, 2],
})  # fmt: skip
EXPECTED = {
    "Hits@10": {"q1": 2.0, "q2": 1.0, "q3": 0.0},
    "Hits(rel=2)@5": {"q1": 1.0, "q2": 0.0, "q3": 0.0},
    "Missed": {"q1": 1.0, "q2": 0.0, "q3": 1.0},
}
