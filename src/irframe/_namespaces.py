"""The ``.ir`` namespace on polars DataFrame/LazyFrame and pandas DataFrame.

Each method forwards to the typed function of the same name in
:mod:`irframe.functions`; no logic lives here.
"""

from __future__ import annotations

import sys
from typing import Any, Generic, TypeVar

import polars as pl

from irframe import functions as F

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


def register_pandas() -> None:
    """Register ``.ir`` on pandas.DataFrame if pandas is importable (idempotent)."""
    global _PANDAS_DONE  # noqa: PLW0603 - one registration per process
    if _PANDAS_DONE:
        return
    pd: Any = sys.modules.get("pandas")
    if pd is None:
        try:
            import pandas
        except ImportError:  # pandas is optional
            return
        pd = pandas
    pd.api.extensions.register_dataframe_accessor("ir")(IrNamespace)
    _PANDAS_DONE = True
