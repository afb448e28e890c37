"""The ``.ir`` namespace on polars DataFrame/LazyFrame and pandas DataFrame.

Each method forwards to the typed function of the same name in
:mod:`irframe.functions`; no logic lives here.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import polars as pl

from irframe import functions as F

if TYPE_CHECKING:
    import importlib.machinery
    import types

    from irframe.compare import ComparisonReport

__all__ = ["IrNamespace", "register_pandas"]

T = TypeVar("T")


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

    def compare(
        self,
        measures: Any = ("nDCG@10", "RR", "R@100"),
        qrels: Any = None,
        *,
        system: str = "system",
        **kwargs: Any,
    ) -> T:
        """See :func:`irframe.compare`."""
        from irframe.compare import compare

        return compare(self._frame, qrels, measures, system_col=system, **kwargs)  # type: ignore[no-any-return]

    def compare_report(
        self,
        measures: Any = ("nDCG@10", "RR", "R@100"),
        qrels: Any = None,
        *,
        system: str = "system",
        **kwargs: Any,
    ) -> ComparisonReport:
        """See :func:`irframe.compare_report`."""
        from irframe.compare import compare_report

        return compare_report(self._frame, qrels, measures, system_col=system, **kwargs)

    def moved(
        self, measure: Any = "nDCG@10", qrels: Any = None, *, system_col: str = "system", **kwargs: Any
    ) -> T:
        """See :func:`irframe.moved`."""
        from irframe.compare import moved

        return moved(self._frame, qrels, measure, system_col=system_col, **kwargs)  # type: ignore[no-any-return]

    def evaluate(self, measures: Any, qrels: Any = None, **kwargs: Any) -> T:
        """See :func:`irframe.evaluate`."""
        return F.evaluate(self._frame, measures, qrels, **kwargs)

    def ndcg(self, k: int | None = None, qrels: Any = None, **kwargs: Any) -> T:
        """See :func:`irframe.ndcg`."""
        return F.ndcg(self._frame, k, qrels, **kwargs)

    def precision(self, k: int, qrels: Any = None, **kwargs: Any) -> T:
        """See :func:`irframe.precision`."""
        return F.precision(self._frame, k, qrels, **kwargs)

    def recall(self, k: int | None = None, qrels: Any = None, **kwargs: Any) -> T:
        """See :func:`irframe.recall`."""
        return F.recall(self._frame, k, qrels, **kwargs)

    def mrr(self, k: int | None = None, qrels: Any = None, **kwargs: Any) -> T:
        """See :func:`irframe.mrr`."""
        return F.mrr(self._frame, k, qrels, **kwargs)

    def ap(self, k: int | None = None, qrels: Any = None, **kwargs: Any) -> T:
        """See :func:`irframe.ap`."""
        return F.ap(self._frame, k, qrels, **kwargs)

    def rprec(self, qrels: Any = None, **kwargs: Any) -> T:
        """See :func:`irframe.rprec`."""
        return F.rprec(self._frame, qrels, **kwargs)

    def bpref(self, qrels: Any = None, **kwargs: Any) -> T:
        """See :func:`irframe.bpref`."""
        return F.bpref(self._frame, qrels, **kwargs)

    def success(self, k: int, qrels: Any = None, **kwargs: Any) -> T:
        """See :func:`irframe.success`."""
        return F.success(self._frame, k, qrels, **kwargs)

    def judged(self, k: int, qrels: Any = None, **kwargs: Any) -> T:
        """See :func:`irframe.judged`."""
        return F.judged(self._frame, k, qrels, **kwargs)


pl.api.register_dataframe_namespace("ir")(IrNamespace)
pl.api.register_lazyframe_namespace("ir")(IrNamespace)

_PANDAS_DONE = False


def _register_now(pd: Any) -> None:
    global _PANDAS_DONE  # noqa: PLW0603 - one registration per process
    if not _PANDAS_DONE:
        pd.api.extensions.register_dataframe_accessor("ir")(IrNamespace)
        _PANDAS_DONE = True


class _PandasImportHook:
    """Registers ``.ir`` the moment pandas is imported, so ``import irframe`` stays light.

    It finds pandas' real module spec with the other finders and wraps its loader's
    ``exec_module``; once pandas has executed, the accessor is registered and the hook
    removes itself. (A duck-typed finder: importing importlib.abc costs ~60 ms.)
    """

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: types.ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != "pandas":
            return None
        import importlib.util

        sys.meta_path.remove(self)
        spec = importlib.util.find_spec("pandas")
        if spec is None or spec.loader is None:
            return spec
        loader = spec.loader
        exec_module = loader.exec_module

        def _exec_then_register(module: types.ModuleType) -> None:
            exec_module(module)
            _register_now(module)

        loader.exec_module = _exec_then_register  # type: ignore[method-assign]
        return spec


def register_pandas() -> None:
    """Make ``.ir`` available on pandas.DataFrame, without importing pandas.

    If pandas is already imported the accessor is registered at once; otherwise it is
    registered when pandas gets imported (pandas is optional and heavy to import).
    """
    pd = sys.modules.get("pandas")
    if pd is not None:
        _register_now(pd)
    elif not any(isinstance(f, _PandasImportHook) for f in sys.meta_path):
        sys.meta_path.insert(0, _PandasImportHook())
