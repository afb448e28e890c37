"""One partition function for every backend: Arrow in, Arrow out, a fixed schema.

Per-query measures are decomposable: if each query's rows (and its judgments) sit in
one partition, evaluating partitions independently and concatenating gives exactly the
single-machine per-query table; means are then sums over counts.  Out-of-core, Dask and
Spark evaluation are built on these three functions:

- :func:`evaluate_partition` evaluates one partition (a ``pyarrow.Table`` or a frame);
- :func:`partial_sums` reduces per-query rows to per-group sums and counts;
- :func:`combine_partials` adds partial sums up and divides.

Examples
--------
>>> import polars as pl
>>> from irframe.partition import evaluate_partition, partial_sums, combine_partials
>>> run = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"],
...                     "score": [2.0, 1.0, 1.0]})
>>> qrels = pl.DataFrame({"query_id": ["q1", "q2", "q3"], "doc_id": ["b", "c", "z"],
...                       "relevance": [1, 1, 1]})
>>> parts = [evaluate_partition(run.filter(pl.col("query_id") == q), ["RR"],
...                             qrels.filter(pl.col("query_id") == q)) for q in ["q1", "q2"]]
>>> [p.num_rows for p in parts]
[1, 1]
>>> combine_partials(pl.concat([partial_sums(pl.from_arrow(p), ["RR"]) for p in parts]),
...                  ["RR"]).item(0, "RR")
0.75
"""

from __future__ import annotations

from irframe._backends.partition import (
    FLAGS,
    combine_partials,
    evaluate_partition,
    output_schema,
    partial_sums,
)

__all__ = ["FLAGS", "combine_partials", "evaluate_partition", "output_schema", "partial_sums"]
