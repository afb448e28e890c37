"""irframe: information-retrieval evaluation for pandas and polars dataframes.

Importing irframe registers the ``.ir`` namespace on ``polars.DataFrame``,
``polars.LazyFrame`` and (when pandas is installed) ``pandas.DataFrame``.

Examples
--------
>>> import polars as pl, irframe
>>> run = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"],
...                     "score": [2.0, 1.0, 5.0], "relevance": [0, 1, 1]})
>>> run.ir.evaluate(["RR", "P@1"])
shape: (1, 5)
┌──────┬─────┬───────────┬───────────┬────────────┐
│ RR   ┆ P@1 ┆ n_queries ┆ n_missing ┆ n_unjudged │
│ ---  ┆ --- ┆ ---       ┆ ---       ┆ ---        │
│ f64  ┆ f64 ┆ i64       ┆ i64       ┆ i64        │
╞══════╪═════╪═══════════╪═══════════╪════════════╡
│ 0.75 ┆ 0.5 ┆ 2         ┆ 0         ┆ 0          │
└──────┴─────┴───────────┴───────────┴────────────┘
"""

from __future__ import annotations

from irframe import _namespaces
from irframe.exceptions import IrFrameError
from irframe.functions import (
    ap,
    bpref,
    evaluate,
    judged,
    mrr,
    ndcg,
    precision,
    recall,
    rprec,
    success,
)
from irframe.measures import Measure, parse_measure
from irframe.outofcore import evaluate_parquet

__version__ = "0.1.0"

__all__ = [
    "IrFrameError",
    "Measure",
    "__version__",
    "ap",
    "bpref",
    "evaluate",
    "evaluate_parquet",
    "judged",
    "mrr",
    "ndcg",
    "parse_measure",
    "precision",
    "recall",
    "rprec",
    "success",
]

_namespaces.register_pandas()
