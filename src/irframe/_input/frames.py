"""The boundary: the caller's frame in, a ``pl.LazyFrame`` inside, the caller's type out.

Only this module (and the namespace registration) knows about pandas and pyarrow, and it
never imports them to test a type: if pandas was not imported by the caller, the object
cannot be a pandas frame (``sys.modules`` lookup, as narwhals does).

Accepted: polars DataFrame/LazyFrame, pandas DataFrame, pyarrow Table (a pyarrow Table
comes back), and any object exporting the Arrow C stream interface
(``__arrow_c_stream__``: duckdb relations, ibis and DataFusion results, nanoarrow
streams...), read through polars' own Arrow import; a polars DataFrame comes back for
those, since they cannot be built from Arrow in general.

Why not narwhals: the boundary is these ~100 lines; every frame becomes a polars
LazyFrame anyway (the engine is polars), and polars reads the Arrow C stream interface
itself, so narwhals would add a dependency (and a second dispatch layer) for no
input we do not already take.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, TypeVar

import polars as pl

from irframe._input.peers import PEER_FORMS, peer_frame
from irframe.exceptions import InvalidDataError, IrFrameError

__all__ = [
    "ArrowRows", "Origin", "PolarsFrame", "PolarsRows", "Rows", "from_lazy", "in_memory_rows", "to_lazy",
]  # fmt: skip

# one step written once for both: a polars DataFrame (eager) or LazyFrame (lazy)
PolarsFrame = TypeVar("PolarsFrame", pl.DataFrame, pl.LazyFrame)

Kind = Literal["polars", "polars-lazy", "pandas", "pyarrow"]


@dataclass(frozen=True)
class Origin:
    """Where a frame came from, so the result can go back as the same type."""

    kind: Kind
    arrow_dtypes: bool = False  # pandas frame whose columns were pyarrow-backed


def _pandas() -> Any:
    return sys.modules.get("pandas")


def is_arrow_table(obj: object) -> bool:
    """True for a ``pyarrow.Table`` (without importing pyarrow)."""
    pa = sys.modules.get("pyarrow")
    return pa is not None and isinstance(obj, pa.Table)


def is_pandas_frame(obj: object) -> bool:
    """True for a ``pandas.DataFrame`` (without importing pandas)."""
    pd = _pandas()
    return pd is not None and isinstance(obj, pd.DataFrame)


def to_lazy(obj: object, role: str = "run") -> tuple[pl.LazyFrame, Origin]:
    """Turn a pandas or polars frame into a ``pl.LazyFrame``; the input is never modified.

    Parameters
    ----------
    obj : pandas.DataFrame, polars.DataFrame, polars.LazyFrame, pyarrow.Table or Arrow stream
        For a run or qrels (``role``) also the peers' forms (see :mod:`irframe._input.peers`):
        a dict of dicts, a ranx ``Run``/``Qrels``, ir_measures ``ScoredDoc``/``Qrel``
        tuples; they come back as polars frames (``Origin("polars")``).
    role : str
        Name used in error messages (``"run"``, ``"qrels"``); for the peers' forms it
        says what the values are (a run's scores or the qrels' grades).

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
    if is_arrow_table(obj):
        table: Any = readable_arrow(obj, role)
        return pl.DataFrame(table).lazy(), Origin("pyarrow")
    if is_pandas_frame(obj):
        return _from_pandas(obj, role)
    if hasattr(obj, "__arrow_c_stream__"):
        stream = readable_arrow(obj, role)
        try:
            return pl.DataFrame(stream).lazy(), Origin("polars")
        except (TypeError, ValueError, pl.exceptions.PolarsError) as exc:
            msg = f"Cannot read the {role} through its Arrow C stream: {exc}."
            raise IrFrameError(msg) from exc
    peer = peer_frame(obj, role)
    if peer is not None:
        return peer.lazy(), Origin("polars")
    kind = type(obj).__module__.split(".")[0] + "." + type(obj).__name__
    forms = f"; for a run or qrels also {PEER_FORMS}" if role.split(" ", 1)[0] in ("run", "qrels") else ""
    msg = (
        f"The {role} must be a pandas.DataFrame, polars.DataFrame or polars.LazyFrame, a "
        f"pyarrow.Table or an object with __arrow_c_stream__{forms}; got {kind}."
        " Hint: for a dask or Spark frame use irframe.dask / irframe.spark; for files use"
        " irframe.read_trec_run / read_trec_qrels; for a dict of columns, pl.DataFrame(the_dict)."
    )
    raise IrFrameError(msg)


def _checked_pandas(frame: Any, role: str) -> tuple[Any, Origin]:
    """The pandas frame with its id-carrying index levels as columns (see
    :func:`_index_to_columns`), and its origin; duplicated column names are refused."""
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
    return frame, Origin("pandas", arrow_dtypes=arrow)


def _from_pandas(frame: Any, role: str) -> tuple[pl.LazyFrame, Origin]:
    """A pandas frame as a ``pl.LazyFrame``; the columns that cannot convert are named."""
    frame, origin = _checked_pandas(readable_arrow(frame, role), role)
    try:
        return pl.from_pandas(frame).lazy(), origin
    except (TypeError, ValueError, NotImplementedError, pl.exceptions.PolarsError) as exc:
        raise _conversion_error(frame, role, exc) from exc


_PROBE_ROWS = 64  # rows converted to learn the dtypes a whole frame converts to


class Rows(Protocol):
    """An in-memory frame handed to the engine a part at a time (query buckets)."""

    @property
    def height(self) -> int: ...

    @property
    def converts(self) -> bool:
        """Whether a part is converted from another format (worth cutting ahead)."""
        ...

    def lazy(self) -> pl.LazyFrame:
        """The whole frame (for a pandas frame: converted only if collected)."""
        ...

    def slices(self, column: str, size: int) -> Iterator[pl.Series]:
        """One column, in order, ``size`` rows at a time."""
        ...

    def part(self, columns: Sequence[str], mask: pl.Series) -> pl.DataFrame:
        """The rows where ``mask`` is true, of the given columns."""
        ...

    def distinct(self, columns: Sequence[str]) -> pl.DataFrame:
        """The distinct rows of the given columns."""
        ...


@dataclass(frozen=True)
class PolarsRows:
    """A polars DataFrame as :class:`Rows`."""

    frame: pl.DataFrame
    converts = False

    @property
    def height(self) -> int:
        return self.frame.height

    def lazy(self) -> pl.LazyFrame:
        return self.frame.lazy()

    def slices(self, column: str, size: int) -> Iterator[pl.Series]:
        yield self.frame.get_column(column)  # (no copy: one slice)

    def part(self, columns: Sequence[str], mask: pl.Series) -> pl.DataFrame:
        return self.frame.select(columns).filter(mask)

    def distinct(self, columns: Sequence[str]) -> pl.DataFrame:
        return self.frame.select(columns).unique()


@dataclass(frozen=True)
class ArrowRows:
    """A ``pyarrow.Table`` (or a pandas frame as a Table sharing its buffers), converted
    to polars one part at a time: the whole frame is never copied into polars at once.

    Made by :func:`in_memory_rows` only when the table converts to exactly the frame
    ``pl.from_pandas`` (or ``pl.DataFrame(table)``) gives: checked on the first rows'
    schema, no dictionary column.
    """

    table: Any  # pyarrow.Table
    schema: pl.Schema
    converts = True

    @property
    def height(self) -> int:
        return int(self.table.num_rows)

    def lazy(self) -> pl.LazyFrame:
        return pl.defer(lambda: pl.DataFrame(pl.from_arrow(self.table)), schema=self.schema)

    def slices(self, column: str, size: int) -> Iterator[pl.Series]:
        col = self.table.column(column)
        for start in range(0, max(self.height, 1), size):
            yield pl.Series(column, col.slice(start, size))

    def part(self, columns: Sequence[str], mask: pl.Series) -> pl.DataFrame:
        return pl.DataFrame(pl.from_arrow(self.table.select(list(columns)).filter(mask.to_arrow())))

    def distinct(self, columns: Sequence[str]) -> pl.DataFrame:
        # a batch at a time: a system column of a 1e8-row log is never converted whole
        batches = self.table.select(list(columns)).to_batches()
        parts = [pl.DataFrame(pl.from_arrow(batch)).unique() for batch in batches]
        return pl.concat([pl.DataFrame(schema=self.schema).select(columns), *parts]).unique()


def _table_rows(table: Any) -> tuple[Rows, Origin] | None:
    """A ``pyarrow.Table`` as :class:`ArrowRows`; ``None`` with a dictionary column (a
    bucket's dictionary would differ from the whole's)."""
    import pyarrow as pa

    if any(pa.types.is_dictionary(t) for t in table.schema.types):
        return None
    return ArrowRows(table, pl.DataFrame(table.slice(0, _PROBE_ROWS)).schema), Origin("pyarrow")


def _arrow_shares(dtype: Any) -> bool:
    """A pandas column dtype whose Arrow conversion shares the buffers (numeric, bool,
    datetime, Arrow-backed): not object, categorical or Python-stored strings."""
    pd = _pandas()
    if isinstance(dtype, pd.ArrowDtype):
        return not str(dtype).startswith("dictionary")
    if isinstance(dtype, pd.StringDtype):
        return bool(dtype.storage == "pyarrow")
    return str(dtype.kind) in "biufmM" and not isinstance(dtype, pd.SparseDtype)


def in_memory_rows(obj: object, role: str = "run") -> tuple[Rows, Origin] | None:
    """``obj`` as :class:`Rows`: a polars DataFrame as it is; a ``pyarrow.Table``, and a
    pandas frame whose every column's dtype converts to Arrow sharing its buffers, as an
    :class:`ArrowRows`; the peers' forms of a run or qrels (a dict of dicts...: see
    :func:`to_lazy`) as the polars frame they convert to.  ``None`` for anything else (a
    lazy frame; a pandas frame with object or categorical columns, converted whole by
    :func:`to_lazy`).

    Examples
    --------
    >>> import pandas as pd
    >>> rows, origin = in_memory_rows(pd.DataFrame({"query_id": ["q1", "q2"], "score": [1.0, 0.5]}))
    >>> type(rows).__name__, rows.height, origin.kind
    ('ArrowRows', 2, 'pandas')
    """
    if isinstance(obj, pl.DataFrame):
        return PolarsRows(obj), Origin("polars")
    if is_arrow_table(obj):
        return _table_rows(readable_arrow(obj, role))
    if not is_pandas_frame(obj):
        peer = peer_frame(obj, role)
        return None if peer is None else (PolarsRows(peer), Origin("polars"))
    frame, origin = _checked_pandas(readable_arrow(obj, role), role)
    if not all(_arrow_shares(dt) for dt in frame.dtypes):
        return None
    import pyarrow as pa

    try:
        table = pa.Table.from_pandas(frame, preserve_index=False)
        head = pl.from_pandas(frame.iloc[:_PROBE_ROWS])
    except (TypeError, ValueError, pa.ArrowException, pl.exceptions.PolarsError):
        return None  # (to_lazy converts it, or names the column that does not convert)
    found = _table_rows(table)
    if found is None or found[0].lazy().collect_schema() != head.schema:
        return None  # (the table would convert to other dtypes than pl.from_pandas gives)
    return found[0], origin


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
    typed: list[str] = []  # columns of a dtype Arrow has no type for (complex numbers)
    for col in frame.columns:
        try:
            pl.from_pandas(frame[[col]])
        except (TypeError, ValueError, NotImplementedError, pl.exceptions.PolarsError):
            if frame[col].dtype != object:
                typed.append(f"{col!r} (dtype {frame[col].dtype})")
                continue
            types = sorted({type(v).__name__ for v in frame[col].dropna().tolist()})
            bad.append(f"{col!r} (values of types {', '.join(types)})")
    if typed:
        several = "columns" if len(typed) > 1 else "a column"
        msg = (
            f"Cannot convert the {role} pandas DataFrame to Arrow: it has {several} of a dtype "
            f"Arrow cannot hold: {', '.join(typed)}. Hint: drop {'them' if len(typed) > 1 else 'it'} "
            "before passing the frame (df.drop(columns=[...])), or convert, e.g. df[col].astype(str)."
        )
        return InvalidDataError(msg)
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
    if origin.kind == "pyarrow":
        return df.to_arrow()
    pd = _pandas()
    if origin.arrow_dtypes and pd is not None:
        return df.to_pandas(types_mapper=pd.ArrowDtype)
    return df.to_pandas()


# --- Arrow types polars cannot take ---------------------------------------------------------
def _unreadable(t: Any) -> bool:
    """Whether polars cannot import the Arrow type ``t`` (it raises or panics): intervals,
    unions, decimal256, run-end encoded arrays, list views, and nested types holding them."""
    import pyarrow as pa

    ty = pa.types
    if ty.is_interval(t) or ty.is_union(t) or ty.is_decimal256(t) or ty.is_run_end_encoded(t):
        return True
    if ty.is_list_view(t) or ty.is_large_list_view(t):
        return True
    if isinstance(t, pa.ExtensionType):
        return _unreadable(t.storage_type)
    if ty.is_list(t) or ty.is_large_list(t) or ty.is_fixed_size_list(t):
        return _unreadable(t.value_type)
    if ty.is_struct(t):
        return any(_unreadable(t.field(i).type) for i in range(t.num_fields))
    if ty.is_map(t):
        return _unreadable(t.key_type) or _unreadable(t.item_type)
    if ty.is_dictionary(t):
        return _unreadable(t.value_type)
    return False


def _arrow_fields(obj: Any) -> tuple[Any, list[tuple[str, Any]]]:
    """What polars is given for ``obj`` (a stream as a pyarrow reader over it) and the Arrow
    fields it holds (a pandas frame: its pyarrow-backed columns)."""
    if is_pandas_frame(obj):
        pd = _pandas()
        return obj, [
            (str(c), dt.pyarrow_dtype) for c, dt in obj.dtypes.items() if isinstance(dt, pd.ArrowDtype)
        ]
    import pyarrow as pa

    if not is_arrow_table(obj):
        try:
            obj = pa.RecordBatchReader.from_stream(obj)
        except (TypeError, ValueError, pa.ArrowException):
            return obj, []  # (polars' own import says what is wrong with it)
    return obj, [(f.name, f.type) for f in obj.schema]


def readable_arrow(obj: Any, role: str) -> Any:
    """``obj`` (a pyarrow Table, an Arrow C stream, a pandas frame) as polars can be given it,
    or an :class:`~irframe.exceptions.InvalidDataError` naming the columns of Arrow types
    polars cannot read (it would panic), with the way out: drop or cast them first.

    A stream is read through a ``pyarrow.RecordBatchReader`` (its schema is looked at, no
    batch is read here); a Table or a pandas frame comes back as it is.

    Examples
    --------
    >>> import pyarrow as pa
    >>> t = pa.table({"query_id": ["q1"], "span": pa.array([pa.MonthDayNano([1, 0, 0])])})
    >>> readable_arrow(t, "run")
    Traceback (most recent call last):
    ...
    irframe.exceptions.InvalidDataError: The run has a column ...: 'span' (month_day_nano_interval). ...
    """
    given, fields = _arrow_fields(obj)
    seen: set[str] = set()
    twice = sorted({name for name, _ in fields if name in seen or seen.add(name)})  # type: ignore[func-returns-value]
    if twice:
        msg = (
            f"The {role} has several columns named {_names(twice)}; a column name says which "
            f"column plays which role. Hint: rename or drop them first (pyarrow: "
            "table.rename_columns([...]); duckdb: SELECT with distinct aliases)."
        )
        raise InvalidDataError(msg)
    bad = [(name, t) for name, t in fields if _unreadable(t)]
    if not bad:
        return given
    names = [name for name, _ in bad]
    shown = ", ".join(f"{name!r} ({t})" for name, t in bad)
    several = "columns" if len(bad) > 1 else "a column"
    msg = (
        f"The {role} has {several} of an Arrow type polars cannot read: {shown}. Hint: drop "
        f"{'them' if len(bad) > 1 else 'it'} before passing the {role} (pyarrow: "
        f"table.drop_columns({names!r}); duckdb: SELECT * EXCLUDE ({', '.join(names)})), or cast "
        "to a type polars reads (a decimal256 to float64 or decimal128, an interval to int64 or text)."
    )
    raise InvalidDataError(msg)
