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

from irframe.exceptions import InvalidDataError, IrFrameError

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
        return _from_pandas(obj, role)
    kind = type(obj).__module__.split(".")[0] + "." + type(obj).__name__
    msg = (
        f"The {role} must be a pandas.DataFrame, polars.DataFrame or polars.LazyFrame; got {kind}."
        " Hint: for a dask or Spark frame use irframe.dask / irframe.spark; for files use"
        " irframe.read_trec_run / read_trec_qrels."
    )
    raise IrFrameError(msg)


def _from_pandas(frame: Any, role: str) -> tuple[pl.LazyFrame, Origin]:
    """A pandas frame as a ``pl.LazyFrame``; the columns that cannot convert are named."""
    pd = _pandas()
    dup = frame.columns[frame.columns.duplicated()].unique().tolist()
    if dup:
        msg = (
            f"The {role} pandas DataFrame has several columns named {_names(dup)}. "
            "Hint: keep one of each, e.g. df.loc[:, ~df.columns.duplicated()], or rename them."
        )
        raise InvalidDataError(msg)
    arrow = any(isinstance(dt, pd.ArrowDtype) for dt in frame.dtypes)
    if not isinstance(frame.index, pd.RangeIndex):
        frame = _index_to_columns(frame, role)
    try:
        return pl.from_pandas(frame).lazy(), Origin("pandas", arrow_dtypes=arrow)
    except (TypeError, ValueError, pl.exceptions.PolarsError) as exc:
        raise _conversion_error(frame, role, exc) from exc


def _names(names: list[Any]) -> str:
    return ", ".join(repr(n) for n in names)


def _index_to_columns(frame: Any, role: str) -> Any:
    """Index levels that carry ids (e.g. after a groupby) become columns again; a level
    named like a column is dropped when it holds the same values (``set_index(c,
    drop=False)``) and refused otherwise."""
    pd = _pandas()
    names = [n for n in frame.index.names if n is not None]
    if not names:
        return frame.reset_index(drop=True)
    same = [n for n in names if n in frame.columns]
    for name in same:
        if not pd.Index(frame[name]).equals(frame.index.get_level_values(name)):
            msg = (
                f"The {role} pandas DataFrame has an index level and a column both named "
                f"{name!r}, with different values. Hint: drop the index "
                "(df.reset_index(drop=True)) or rename it (df.rename_axis(...))."
            )
            raise InvalidDataError(msg)
    if same:
        frame = frame.reset_index(level=same, drop=True)
    rest = [n for n in frame.index.names if n is not None]
    return frame.reset_index(drop=not rest)


def _conversion_error(frame: Any, role: str, exc: Exception) -> InvalidDataError:
    """Name the column(s) pandas -> Arrow could not convert, and the value types they mix."""
    bad: list[str] = []
    for col in frame.columns:
        try:
            pl.from_pandas(frame[[col]])
        except (TypeError, ValueError, pl.exceptions.PolarsError):
            types = sorted({type(v).__name__ for v in frame[col].dropna().tolist()})
            bad.append(f"{col!r} (values of types {', '.join(types)})")
    where = f"column {bad[0]} mixes" if len(bad) == 1 else f"columns {', '.join(bad)} mix"
    if not bad:
        where = "a column mixes"
    msg = (
        f"Cannot convert the {role} pandas DataFrame to Arrow: {where} value types "
        f"({exc}). Hint: give each column one type, e.g. df[col] = df[col].astype(str) for ids."
    )
    return InvalidDataError(msg)


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
