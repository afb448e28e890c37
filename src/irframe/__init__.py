"""irframe: information-retrieval evaluation for pandas and polars dataframes.

Importing irframe registers the ``.ir`` namespace on ``polars.DataFrame``,
``polars.LazyFrame``, ``polars.Expr`` (:mod:`irframe.expr`'s measures) and (when pandas
is installed) ``pandas.DataFrame``, each the
moment its library is imported; ``import irframe`` itself imports none of them, and
its public names load on first use.

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

import sys
from typing import TYPE_CHECKING

from irframe import _namespaces
from irframe._namespaces import IrNamespace, ir

if TYPE_CHECKING:
    from irframe import answers, clicks, datasets, expr
    from irframe._check.gate import Snapshot, check, read_snapshot, snapshot
    from irframe._check.result import CheckResult
    from irframe._compare import ComparisonReport, compare, compare_report, moved
    from irframe._golden.agreement import Agreement, agreement
    from irframe._golden.judgments import JudgmentMerge, add_judgments
    from irframe._golden.pool import Pool, pool
    from irframe._golden.power import power
    from irframe._golden.sample import QuerySample, sample_queries
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
        tied_at_cutoff,
    )
    from irframe.fusion import FusionTuning, fuse, tune_fusion
    from irframe.io import (
        read_judging_sheet,
        read_table,
        read_trec_qrels,
        read_trec_run,
        read_trec_runs,
        scan_table,
        write_judging_sheet,
        write_qrels_stub,
        write_trec_qrels,
        write_trec_run,
    )
    from irframe.measures import Measure, define_measure, parse_measure
    from irframe.outofcore import evaluate_parquet

__version__ = "0.1.0"

__all__ = [
    "Agreement",
    "CheckResult",
    "ComparisonReport",
    "FusionTuning",
    "IrFrameError",
    "IrNamespace",
    "JudgmentMerge",
    "Measure",
    "Pool",
    "QuerySample",
    "Snapshot",
    "__version__",
    "add_judgments",
    "agreement",
    "answers",
    "ap",
    "bpref",
    "check",
    "clicks",
    "compare",
    "compare_report",
    "datasets",
    "define_measure",
    "evaluate",
    "evaluate_parquet",
    "expr",
    "fuse",
    "ir",
    "judged",
    "moved",
    "mrr",
    "ndcg",
    "parse_measure",
    "pool",
    "power",
    "precision",
    "read_judging_sheet",
    "read_snapshot",
    "read_table",
    "read_trec_qrels",
    "read_trec_run",
    "read_trec_runs",
    "recall",
    "rprec",
    "sample_queries",
    "scan_table",
    "snapshot",
    "success",
    "tied_at_cutoff",
    "tune_fusion",
    "write_judging_sheet",
    "write_qrels_stub",
    "write_trec_qrels",
    "write_trec_run",
]

# Every public name but the namespace loads on first use (PEP 562): the engine pulls in
# polars, numpy and pyarrow, and `import irframe` (every CLI call) stays light.
_HOMES: dict[str, tuple[str, ...]] = {
    "irframe._check.gate": ("Snapshot", "check", "read_snapshot", "snapshot"),
    "irframe._check.result": ("CheckResult",),
    "irframe._compare": ("ComparisonReport", "compare", "compare_report", "moved"),
    "irframe._golden.judgments": ("JudgmentMerge", "add_judgments"),
    "irframe._golden.pool": ("Pool", "pool"),
    "irframe._golden.agreement": ("Agreement", "agreement"),
    "irframe._golden.power": ("power",),
    "irframe._golden.sample": ("QuerySample", "sample_queries"),
    "irframe.exceptions": ("IrFrameError",),
    "irframe.functions": (
        "ap", "bpref", "evaluate", "judged", "mrr", "ndcg", "precision", "recall", "rprec", "success",
        "tied_at_cutoff",
    ),
    "irframe.io": (
        "read_judging_sheet", "read_table", "read_trec_qrels", "read_trec_run", "read_trec_runs",
        "scan_table", "write_judging_sheet", "write_qrels_stub", "write_trec_qrels", "write_trec_run",
    ),
    "irframe.fusion": ("FusionTuning", "fuse", "tune_fusion"),
    "irframe.measures": ("Measure", "define_measure", "parse_measure"),
    "irframe.outofcore": ("evaluate_parquet",),
}  # fmt: skip
# the public submodules: `irframe.stats` after `import irframe` whatever ran before (Python
# sets a submodule on its package only once something imports it); irframe.mypy, the mypy
# plugin, is mypy's to import (it imports mypy)
SUBMODULES = (
    "answers", "clicks", "cli", "dask", "datasets", "exceptions", "expr", "functions", "fusion", "io",
    "kernels", "measures", "online", "outofcore", "partition", "plotting", "progress", "spark", "stats",
    "testing",
)  # fmt: skip
_LAZY: dict[str, tuple[str, str | None]] = {
    **{name: (f"irframe.{name}", None) for name in SUBMODULES},
    **{name: (module, name) for module, names in _HOMES.items() for name in names},
}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        module_name, attr = _LAZY[name]
        __import__(module_name)  # not importlib.import_module: -X importtime does not see that one
        module = sys.modules[module_name]
        value = module if attr is None else getattr(module, attr)
        globals()[name] = value
        return value
    msg = f"module 'irframe' has no attribute {name!r}"
    raise AttributeError(msg)


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


_namespaces.register_frames()  # .ir on polars, pandas and dask frames, now or when they are imported
