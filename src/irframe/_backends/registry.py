"""One backend registry: native input type -> the code that evaluates it.

``irframe.evaluate`` looks its input up here, as narwhals looks up a namespace per
native type: a polars or pandas frame (the in-process engine), a dask DataFrame, a
Spark DataFrame, or a path to parquet files (out of core).  Backend modules are named,
not imported: dask and pyspark are never imported to test a type (``sys.modules`` is
consulted), and nothing here imports a backend module at import time, so there is no
import cycle between the public API and the backends.

Backend options (``npartitions`` for Dask, ``num_partitions`` for Spark, ``memory_limit``
for parquet, ``queries`` and ``progress`` for every built-in backend) pass through
``irframe.evaluate(..., **backend_options)``.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from irframe.exceptions import InvalidParameterError, closest

__all__ = ["Backend", "backend_for", "backend_named", "backends", "register_backend"]


@dataclass(frozen=True)
class Backend:
    """How one kind of native input is evaluated.

    ``target`` is ``"module:function"``, imported on first use, or the function; it is
    called as ``fn(run, measures, qrels, opts, per_query, **backend_options)``.  A
    partitioned backend's function runs :func:`irframe._backends.skeleton.evaluate` with
    its primitives.
    """

    name: str
    is_native: Callable[[object], bool]
    target: str | Callable[..., Any]
    options: tuple[str, ...] = ()

    def evaluate(
        self, run: Any, measures: Any, qrels: Any, opts: Any, per_query: bool, **backend_options: Any
    ) -> Any:
        """Check the backend options, import the backend and evaluate."""
        for key in backend_options:
            if key not in self.options:
                allowed = ", ".join(self.options) or "none"
                hint = closest(key, self.options)
                msg = (
                    f"evaluate() got an unexpected keyword argument {key!r} for a {self.name} input "
                    f"(its backend options: {allowed})."
                )
                if hint:
                    msg += f" Hint: did you mean {hint[0]!r}?"
                raise InvalidParameterError(msg)
        fn = self.target
        if isinstance(fn, str):
            module, _, func = fn.partition(":")
            fn = getattr(importlib.import_module(module), func)
        return fn(run, measures, qrels, opts, per_query, **backend_options)


def _of_module(module: str, attr: str) -> Callable[[object], bool]:
    def is_native(obj: object) -> bool:
        mod = sys.modules.get(module)
        return mod is not None and isinstance(obj, getattr(mod, attr))

    return is_native


def _is_path(obj: object) -> bool:
    return isinstance(obj, str | os.PathLike)


_BACKENDS: list[Backend] = [
    Backend(
        "dask",
        _of_module("dask.dataframe", "DataFrame"),
        "irframe._backends.dask:evaluate_options",
        ("npartitions", "queries", "progress"),
    ),
    Backend(
        "spark",
        _of_module("pyspark.sql", "DataFrame"),
        "irframe._backends.spark:evaluate_options",
        ("num_partitions", "queries", "progress"),
    ),
    Backend(
        "parquet",
        _is_path,
        "irframe._backends.parquet:evaluate_options",
        ("memory_limit", "buckets", "output", "tmp_dir", "progress", "queries"),
    ),
]
_LOCAL = Backend(
    "in-process", lambda obj: True, "irframe._backends.local:evaluate_options", ("queries", "progress")
)


def register_backend(backend: Backend) -> None:
    """Add a backend, consulted before the built-in ones."""
    _BACKENDS.insert(0, backend)


def backends() -> list[Backend]:
    """The registered backends in lookup order (the in-process engine comes last)."""
    return [*_BACKENDS, _LOCAL]


def backend_named(name: str) -> Backend:
    """The registered backend of this name (an entry point that evaluates on one backend)."""
    return next(b for b in backends() if b.name == name)


def backend_for(run: object) -> Backend:
    """The backend for this native input: the first whose ``is_native`` accepts it."""
    return next(b for b in backends() if b.is_native(run))
