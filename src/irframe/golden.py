"""Building and growing a golden set: pool what to judge next, merge the judgments back.

The public home (and API page) of the golden-set helpers; each is also at the top level
(``irframe.pool``...).  The code lives in the private package ``irframe._golden``.

Examples
--------
>>> import polars as pl
>>> from irframe.golden import add_judgments, pool
>>> run = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [2.0, 1.0]})
>>> p = pool(run, depth=2, system_col=None)
>>> sheet = p.to_judge.select("query_id", "doc_id").with_columns(grade=pl.Series([2, 0]))
>>> add_judgments(None, sheet).qrels.rows()
[('q1', 'a', 2), ('q1', 'b', 0)]
"""

from __future__ import annotations

from irframe._golden.judgments import JudgmentMerge, add_judgments
from irframe._golden.pool import Pool, pool

__all__ = ["JudgmentMerge", "Pool", "add_judgments", "pool"]
