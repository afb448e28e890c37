"""The boundary: the caller's frame in, a ``pl.LazyFrame`` inside, the caller's type out.

Only this module (and the namespace registration) knows about pandas, and it never
imports pandas to test a type: if pandas was not imported by the caller, the object
cannot be a pandas frame (``sys.modules`` lookup, as narwhals does).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any, Literal

import polars as pl

from irframe.exceptions import IrFrameError

__all__ = ["Origin", "from_lazy", "to_lazy"]

Kind = Literal["polars", "polars-lazy", "pandas"]


@dataclass(frozen=True)
class Origin:
    """Where a frame came from, so the result can go back as the same type."""

    kind: Kind
    arrow_dtypes: bool = False  # pandas frame whose columns were pyarrow-backed


def _pandas() -> Any:
    return sys.modules.get("pandas")


def is_pandas_frame(obj: object) -> bool:
    """True for a ``pandas.DataFrame`` (without importing pandas)."""
    pd = _pandas()
    return pd is not None and isinstance(obj, pd.DataFrame)


def to_lazy(obj: object, role: str = "run") -> tuple[pl.LazyFrame, Origin]:
    """Turn a pandas or polars frame into a ``pl.LazyFrame``; the input is never modified.

    Parameters
    ----------
    obj : pandas.DataFrame, polars.DataFrame or polars.LazyFrame
    role : str
        Name used in error messages (``"run"``, ``"qrels"``).

    Examples
    --------
    >>> import polars as pl
    >>> lf, origin = to_lazy(pl.DataFrame({"query_id": ["q1"]}))
    >>> origin.kind
    'polars'
    """
    if isinstance(obj, pl.LazyFrame):
        return obj, Origin("polars-lazy")
    if isinstance(obj, pl.DataFrame):
        return obj.lazy(), Origin("polars")
    if is_pandas_frame(obj):
        pd = _pandas()
        frame: Any = obj
        arrow = any(isinstance(dt, pd.ArrowDtype) for dt in frame.dtypes)
        if not isinstance(frame.index, pd.RangeIndex):
            # index levels that carry ids (e.g. after a groupby) become columns again
            names = [n for n in frame.index.names if n is not None]
            frame = frame.reset_index(drop=not names)
        try:
            return pl.from_pandas(frame).lazy(), Origin("pandas", arrow_dtypes=arrow)
        except (TypeError, ValueError, pl.exceptions.PolarsError) as exc:
            msg = (
                f"Cannot convert the {role} pandas DataFrame to Arrow: {exc}. "
                "Hint: make id columns str or int."
            )
            raise IrFrameError(msg) from exc
    kind = type(obj).__module__.split(".")[0] + "." + type(obj).__name__
    msg = (
        f"The {role} must be a pandas.DataFrame, polars.DataFrame or polars.LazyFrame; got {kind}."
        " Hint: for a dask or Spark frame use irframe.dask / irframe.spark; for files use"
        " irframe.read_trec_run / read_trec_qrels."
    )
    raise IrFrameError(msg)


def from_lazy(lf: pl.LazyFrame | pl.DataFrame, origin: Origin) -> Any:
    """Return ``lf`` as the caller's frame type (collecting unless the caller was lazy)."""
    if origin.kind == "polars-lazy":
        return lf.lazy()
    df = lf.collect() if isinstance(lf, pl.LazyFrame) else lf
    if origin.kind == "polars":
        return df
    pd = _pandas()
    if origin.arrow_dtypes and pd is not None:
        return df.to_pandas(types_mapper=pd.ArrowDtype)
    return df.to_pandas()
