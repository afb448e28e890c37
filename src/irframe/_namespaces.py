"""The ``.ir`` namespace on polars DataFrame/LazyFrame/Expr and pandas DataFrame.

Each method forwards to the typed function of the same name in
:mod:`irframe.functions`; no logic lives here. This module imports neither polars
nor :mod:`irframe.functions` at its top: ``import irframe`` stays light, and the
namespace is registered on each frame library the moment that library is imported
(:func:`register_frames`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:
    import importlib.machinery
    import types

    from irframe._compare import ComparisonReport

__all__ = ["ExprIrNamespace", "IrNamespace", "ir", "register_frames", "register_pandas"]

T = TypeVar("T")
_METHODS = (
    "evaluate", "ndcg", "precision", "recall", "mrr", "ap", "rprec", "bpref", "success", "judged",
    "compare", "compare_report", "moved",
)  # fmt: skip


class IrNamespace(Generic[T]):
    """``frame.ir``: information-retrieval evaluation of a long-format run.

    Examples
    --------
    >>> import polars as pl, irframe
    >>> run = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"],
    ...                     "rank": [1, 2], "relevance": [0, 1]})
    >>> run.ir.mrr().item(0, "RR")
    0.5
    """

    def __init__(self, frame: T) -> None:
        self._frame = frame

    def __repr__(self) -> str:
        kind = type(self._frame)
        return (
            f"<irframe .ir namespace of a {kind.__module__.split('.')[0]}.{kind.__name__}; "
            f"methods: {', '.join(_METHODS)}>"
        )

    def compare(
        self,
        measures: Any = ("nDCG@10", "RR", "R@100"),
        qrels: Any = None,
        *,
        system: str = "system",
        **kwargs: Any,
    ) -> T:
        """See :func:`irframe.compare`."""
        from irframe._compare import compare

        return compare(self._frame, qrels, measures, system_col=system, **kwargs)

    def compare_report(
        self,
        measures: Any = ("nDCG@10", "RR", "R@100"),
        qrels: Any = None,
        *,
        system: str = "system",
        **kwargs: Any,
    ) -> ComparisonReport:
        """See :func:`irframe.compare_report`."""
        from irframe._compare import compare_report

        return compare_report(self._frame, qrels, measures, system_col=system, **kwargs)

    def moved(
        self, measure: Any = "nDCG@10", qrels: Any = None, *, system_col: str = "system", **kwargs: Any
    ) -> T:
        """See :func:`irframe.moved`."""
        from irframe._compare import moved

        return moved(self._frame, qrels, measure, system_col=system_col, **kwargs)

    def evaluate(self, measures: Any, qrels: Any = None, **kwargs: Any) -> T:
        """See :func:`irframe.evaluate`."""
        from irframe.functions import evaluate

        return evaluate(self._frame, measures, qrels, **kwargs)

    def ndcg(self, k: int | None = None, qrels: Any = None, **kwargs: Any) -> T:
        """See :func:`irframe.ndcg`."""
        from irframe.functions import ndcg

        return ndcg(self._frame, k, qrels, **kwargs)

    def precision(self, k: int, qrels: Any = None, **kwargs: Any) -> T:
        """See :func:`irframe.precision`."""
        from irframe.functions import precision

        return precision(self._frame, k, qrels, **kwargs)

    def recall(self, k: int | None = None, qrels: Any = None, **kwargs: Any) -> T:
        """See :func:`irframe.recall`."""
        from irframe.functions import recall

        return recall(self._frame, k, qrels, **kwargs)

    def mrr(self, k: int | None = None, qrels: Any = None, **kwargs: Any) -> T:
        """See :func:`irframe.mrr`."""
        from irframe.functions import mrr

        return mrr(self._frame, k, qrels, **kwargs)

    def ap(self, k: int | None = None, qrels: Any = None, **kwargs: Any) -> T:
        """See :func:`irframe.ap`."""
        from irframe.functions import ap

        return ap(self._frame, k, qrels, **kwargs)

    def rprec(self, qrels: Any = None, **kwargs: Any) -> T:
        """See :func:`irframe.rprec`."""
        from irframe.functions import rprec

        return rprec(self._frame, qrels, **kwargs)

    def bpref(self, qrels: Any = None, **kwargs: Any) -> T:
        """See :func:`irframe.bpref`."""
        from irframe.functions import bpref

        return bpref(self._frame, qrels, **kwargs)

    def success(self, k: int, qrels: Any = None, **kwargs: Any) -> T:
        """See :func:`irframe.success`."""
        from irframe.functions import success

        return success(self._frame, k, qrels, **kwargs)

    def judged(self, k: int, qrels: Any = None, **kwargs: Any) -> T:
        """See :func:`irframe.judged`."""
        from irframe.functions import judged

        return judged(self._frame, k, qrels, **kwargs)


class ExprIrNamespace:
    """``pl.col("relevance").ir``: :mod:`irframe.expr`'s measures over this grade expression.

    Each method is the function of the same name in :mod:`irframe.expr` with
    ``grade=`` the expression (``rank=``/``score=``, ``doc=``, ``judgments=`` as there).

    Examples
    --------
    >>> import polars as pl, irframe
    >>> run = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"],
    ...                     "score": [2.0, 1.0], "relevance": [0, 1]})
    >>> run.group_by("query_id").agg(pl.col("relevance").ir.mrr(score="score")).item(0, "RR")
    0.5
    """

    def __init__(self, expr: Any) -> None:
        self._expr = expr

    def measures(self, measures: Any, **kwargs: Any) -> Any:
        """See :func:`irframe.expr.measures`."""
        from irframe import expr

        return expr.measures(measures, grade=self._expr, **kwargs)

    def ndcg(self, k: int | None = None, **kwargs: Any) -> Any:
        """See :func:`irframe.expr.ndcg`."""
        from irframe import expr

        return expr.ndcg(k, grade=self._expr, **kwargs)

    def precision(self, k: int, **kwargs: Any) -> Any:
        """See :func:`irframe.expr.precision`."""
        from irframe import expr

        return expr.precision(k, grade=self._expr, **kwargs)

    def recall(self, k: int | None = None, **kwargs: Any) -> Any:
        """See :func:`irframe.expr.recall`."""
        from irframe import expr

        return expr.recall(k, grade=self._expr, **kwargs)

    def mrr(self, k: int | None = None, **kwargs: Any) -> Any:
        """See :func:`irframe.expr.mrr`."""
        from irframe import expr

        return expr.mrr(k, grade=self._expr, **kwargs)

    def ap(self, k: int | None = None, **kwargs: Any) -> Any:
        """See :func:`irframe.expr.ap`."""
        from irframe import expr

        return expr.ap(k, grade=self._expr, **kwargs)

    def rprec(self, **kwargs: Any) -> Any:
        """See :func:`irframe.expr.rprec`."""
        from irframe import expr

        return expr.rprec(grade=self._expr, **kwargs)

    def bpref(self, **kwargs: Any) -> Any:
        """See :func:`irframe.expr.bpref`."""
        from irframe import expr

        return expr.bpref(grade=self._expr, **kwargs)

    def success(self, k: int, **kwargs: Any) -> Any:
        """See :func:`irframe.expr.success`."""
        from irframe import expr

        return expr.success(k, grade=self._expr, **kwargs)

    def judged(self, k: int, **kwargs: Any) -> Any:
        """See :func:`irframe.expr.judged`."""
        from irframe import expr

        return expr.judged(k, grade=self._expr, **kwargs)


def ir(frame: T) -> IrNamespace[T]:
    """The ``.ir`` namespace of ``frame``, typed: its methods return ``frame``'s type.

    ``df.ir`` is added at run time, so type checkers do not see it; ``irframe.ir(df)`` is
    the same namespace with a type mypy --strict and pyright accept.

    Examples
    --------
    >>> import polars as pl, irframe
    >>> run = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"],
    ...                     "rank": [1, 2], "relevance": [0, 1]})
    >>> irframe.ir(run).mrr().item(0, "RR")   # a pl.DataFrame, typed as one
    0.5
    >>> irframe.ir(run)  # doctest: +ELLIPSIS
    <irframe .ir namespace of a polars.DataFrame; methods: evaluate, ndcg, ...>
    """
    return IrNamespace(frame)


_POLARS_DONE = False
_PANDAS_DONE = False


def _register_polars(pl: Any) -> None:
    """``.ir`` on polars DataFrames and LazyFrames; ``pl`` is the imported polars module."""
    global _POLARS_DONE  # noqa: PLW0603 - one registration per process
    if not _POLARS_DONE:
        pl.api.register_dataframe_namespace("ir")(IrNamespace)
        pl.api.register_lazyframe_namespace("ir")(IrNamespace)
        pl.api.register_expr_namespace("ir")(ExprIrNamespace)
        _POLARS_DONE = True


def _register_now(pd: Any) -> None:
    global _PANDAS_DONE  # noqa: PLW0603 - one registration per process
    if not _PANDAS_DONE:
        pd.api.extensions.register_dataframe_accessor("ir")(IrNamespace)
        _PANDAS_DONE = True


def _register_dask(dd: Any) -> None:
    """``.ir`` on dask DataFrames; ``dd`` is the just-executed dask.dataframe module."""
    if not hasattr(dd.DataFrame, "ir"):
        import importlib

        extensions = importlib.import_module("dask.dataframe.extensions")
        extensions.register_dataframe_accessor("ir")(IrNamespace)


class _PostImportHook:
    """Runs ``callback(module)`` the moment ``name`` is imported, so ``import irframe``
    registers ``.ir`` on polars, pandas and dask frames without importing them.

    It finds the module's real spec with the other finders and wraps its loader's
    ``exec_module``; once the module has executed, the hook removes itself and the
    callback runs. A spec that is only looked up, never loaded (polars probes for
    pandas with ``importlib.util.find_spec``), leaves the hook in place. (A duck-typed
    finder: importing importlib.abc costs ~60 ms.)
    """

    def __init__(self, name: str, callback: Callable[[types.ModuleType], None]) -> None:
        self.name = name
        self.callback = callback
        self._finding = False

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: types.ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != self.name or self._finding:
            return None
        import importlib.util

        self._finding = True  # the other finders' answer, not ours again
        try:
            spec = importlib.util.find_spec(fullname)
        finally:
            self._finding = False
        if spec is None or spec.loader is None or isinstance(spec.loader, type):
            return spec  # nothing to load, or a loader class shared by many modules
        loader = spec.loader
        exec_module = loader.exec_module

        def _exec_then_register(module: types.ModuleType) -> None:
            exec_module(module)
            if self in sys.meta_path:
                sys.meta_path.remove(self)
            self.callback(module)

        loader.exec_module = _exec_then_register  # type: ignore[method-assign]
        return spec


def _on_import(name: str, callback: Callable[[Any], None]) -> None:
    """``callback(module)`` now if ``name`` is imported, else when it gets imported."""
    module = sys.modules.get(name)
    if module is not None:
        callback(module)
    elif not any(isinstance(f, _PostImportHook) and f.name == name for f in sys.meta_path):
        sys.meta_path.insert(0, _PostImportHook(name, callback))


def register_frames() -> None:
    """Make ``.ir`` available on polars, pandas and dask frames, without importing them.

    Each library already imported gets the namespace at once; the others get it when
    they are imported (``import irframe`` then ``import polars`` works like the
    other order).
    """
    _on_import("polars", _register_polars)
    register_pandas()


def register_pandas() -> None:
    """Make ``.ir`` available on pandas (and dask) DataFrames, without importing them.

    If the library is already imported the accessor is registered at once; otherwise
    it is registered when it gets imported (both are optional and heavy to import).
    """
    _on_import("pandas", _register_now)
    _on_import("dask.dataframe", _register_dask)
