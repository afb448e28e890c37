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

from typing import TYPE_CHECKING

from irframe import _namespaces
from irframe.check import CheckResult, Snapshot, check, read_snapshot, snapshot
from irframe.compare import ComparisonReport, compare, compare_report, moved
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
from irframe.measures import Measure, define_measure, parse_measure

if TYPE_CHECKING:
    from irframe import datasets
    from irframe.io import (
        read_table,
        read_trec_qrels,
        read_trec_run,
        read_trec_runs,
        scan_table,
        write_trec_qrels,
        write_trec_run,
    )
    from irframe.outofcore import evaluate_parquet

__version__ = "0.1.0"

__all__ = [
    "CheckResult",
    "ComparisonReport",
    "IrFrameError",
    "Measure",
    "Snapshot",
    "__version__",
    "ap",
    "bpref",
    "check",
    "compare",
    "compare_report",
    "datasets",
    "define_measure",
    "evaluate",
    "evaluate_parquet",
    "judged",
    "moved",
    "mrr",
    "ndcg",
    "parse_measure",
    "precision",
    "read_snapshot",
    "read_table",
    "read_trec_qrels",
    "read_trec_run",
    "read_trec_runs",
    "recall",
    "rprec",
    "scan_table",
    "snapshot",
    "success",
    "write_trec_qrels",
    "write_trec_run",
]

# Loaded on first use (PEP 562): they pull in pyarrow, file readers or data files, and
# `import irframe` (every CLI call) stays light.
_LAZY: dict[str, tuple[str, str | None]] = {
    "evaluate_parquet": ("irframe.outofcore", "evaluate_parquet"),
    "datasets": ("irframe.datasets", None),
    **{
        name: ("irframe.io", name)
        for name in (
            "read_table",
            "read_trec_qrels",
            "read_trec_run",
            "read_trec_runs",
            "scan_table",
            "write_trec_qrels",
            "write_trec_run",
        )
    },
}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        import importlib

        module_name, attr = _LAZY[name]
        module = importlib.import_module(module_name)
        value = module if attr is None else getattr(module, attr)
        globals()[name] = value
        return value
    msg = f"module 'irframe' has no attribute {name!r}"
    raise AttributeError(msg)


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


_namespaces.register_pandas()  # .ir on pandas and dask frames, now or when they are imported
