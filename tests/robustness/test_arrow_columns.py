"""Arrow columns polars cannot take (issue 35, class 3): refused by name at the input boundary,
never a polars panic (a ``BaseException`` that ``except Exception`` does not catch).

The run is a pyarrow Table (or a stream over it, or a pyarrow-backed pandas frame) with the
usual columns and one more of a type polars cannot import: an interval, a union, a
decimal256, a run-end encoded or list-view array, or a nested type holding one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import irframe
from _support.helpers import examples
from irframe.datasets import golden
from irframe.exceptions import InvalidDataError, IrFrameError

pa = pytest.importorskip("pyarrow")

G = golden()
BM25 = G.runs.filter(pl.col("system") == "bm25").drop("system")
HYBRID = G.runs.filter(pl.col("system") == "hybrid").drop("system")


def _union(n: int) -> Any:
    return pa.UnionArray.from_sparse(pa.array([i % 2 for i in range(n)], type=pa.int8()),
                                     [pa.array(range(n)), pa.array([str(i) for i in range(n)])])  # fmt: skip


def _interval(n: int) -> Any:
    return pa.array([pa.MonthDayNano([1, 2, 3])] * n, type=pa.month_day_nano_interval())


UNREADABLE: dict[str, Callable[[int], Any]] = {
    "interval": _interval,
    "sparse union": _union,
    "dense union": lambda n: pa.UnionArray.from_dense(
        pa.array([0] * n, type=pa.int8()), pa.array(range(n), type=pa.int32()), [pa.array(range(n))]
    ),
    "decimal256": lambda n: pa.array(range(n), type=pa.decimal256(40, 2)),
    "run-end encoded": lambda n: pa.RunEndEncodedArray.from_arrays(
        pa.array([n], type=pa.int32()), pa.array([1])
    ),
    "list view": lambda n: pa.array([[1]] * n, type=pa.list_view(pa.int64())),
    "list of unions": lambda n: pa.ListArray.from_arrays(pa.array(range(n + 1), type=pa.int32()), _union(n)),
    "struct holding an interval": lambda n: pa.StructArray.from_arrays([_interval(n)], names=["span"]),
}
READABLE: dict[str, Callable[[int], Any]] = {
    "decimal128": lambda n: pa.array(range(n), type=pa.decimal128(20, 2)),
    "dictionary": lambda n: pa.array(["a"] * n).dictionary_encode(),
    "float16": lambda n: pa.array([1.0] * n, type=pa.float16()),
    "map": lambda n: pa.array([[("k", 1)]] * n, type=pa.map_(pa.string(), pa.int64())),
    "string view": lambda n: pa.array(["a"] * n, type=pa.string_view()),
}


def _table(run: pl.DataFrame, extra: dict[str, Any]) -> Any:
    table = run.to_arrow()
    for name, make in extra.items():
        table = table.append_column(name, make(table.num_rows))
    return table


def _stream(table: Any) -> Any:
    return pa.RecordBatchReader.from_batches(table.schema, table.to_batches())


def _pandas_arrow(table: Any) -> Any:
    pd = pytest.importorskip("pandas")
    return table.to_pandas(types_mapper=pd.ArrowDtype)


FORMS: dict[str, Callable[[Any], Any]] = {
    "table": lambda t: t,
    "stream": _stream,
    "pandas[pyarrow]": _pandas_arrow,
}
# every front end, given the hostile run (and a clean one where it needs two)
FRONT_ENDS: dict[str, Callable[[Any], Any]] = {
    "evaluate": lambda run: irframe.evaluate(run, ["RR"], G.qrels),
    "compare": lambda run: irframe.compare({"a": run, "b": HYBRID}, G.qrels, "RR"),
    "moved": lambda run: irframe.moved({"a": HYBRID, "b": run}, G.qrels, "RR"),
    "snapshot": lambda run: irframe.snapshot(run, G.qrels, ["RR"]),
    "check (candidate)": lambda run: irframe.check(run, G.qrels, baseline=BM25, measures="RR"),
    "check (baseline)": lambda run: irframe.check(HYBRID, G.qrels, baseline=run, measures="RR"),
}


def _outcome(call: Callable[[], Any]) -> BaseException | None:
    try:
        call()
    except BaseException as exc:  # (a panic is what this file is about)
        return exc
    return None


@pytest.mark.parametrize("kind", list(UNREADABLE))
@pytest.mark.parametrize("form", list(FORMS))
def test_an_unreadable_column_is_refused_by_name_in_evaluate(kind: str, form: str) -> None:
    if form == "pandas[pyarrow]" and kind in ("run-end encoded", "list view", "dense union"):
        pytest.skip("pandas cannot hold this Arrow type")
    run = FORMS[form](_table(BM25, {"extra_col": UNREADABLE[kind]}))
    error = _outcome(lambda: irframe.evaluate(run, ["RR"], G.qrels))
    assert isinstance(error, InvalidDataError), repr(error)
    assert "'extra_col'" in str(error)
    assert "drop_columns(['extra_col'])" in str(error)


@pytest.mark.parametrize("front", list(FRONT_ENDS))
def test_every_front_end_refuses_an_unreadable_column_by_name(front: str) -> None:
    table = _table(BM25, {"iv": _interval, "u": _union, "d256": UNREADABLE["decimal256"]})
    for form in ("table", "stream"):
        error = _outcome(lambda: FRONT_ENDS[front](FORMS[form](table)))  # noqa: B023
        assert isinstance(error, IrFrameError), (front, form, repr(error))
        assert all(f"'{c}'" in str(error) for c in ("iv", "u", "d256")), str(error)


def test_a_decimal256_score_is_refused_naming_the_score_column() -> None:
    table = BM25.to_arrow()
    i = table.schema.get_field_index("score")
    table = table.set_column(i, "score", table["score"].cast(pa.decimal256(40, 10)))
    error = _outcome(lambda: irframe.evaluate(table, ["RR"], G.qrels))
    assert isinstance(error, InvalidDataError)
    assert "'score' (decimal256(40, 10))" in str(error)
    assert "float64" in str(error)  # the way out


@pytest.mark.parametrize("kind", list(READABLE))
def test_a_readable_extra_column_changes_nothing(kind: str) -> None:
    want = irframe.evaluate(BM25.to_arrow(), ["RR", "nDCG@10"], G.qrels)
    got = irframe.evaluate(_table(BM25, {"extra": READABLE[kind]}), ["RR", "nDCG@10"], G.qrels)
    assert got.equals(want)


NESTING = st.recursive(
    st.sampled_from(["int64", "string", "interval", "union", "decimal256"]),
    lambda inner: st.tuples(st.sampled_from(["list", "struct", "map"]), inner),
    max_leaves=3,
)


def _type(spec: Any) -> Any:
    leaf = {"int64": pa.int64(), "string": pa.string(), "interval": pa.month_day_nano_interval(),
            "union": pa.sparse_union([pa.field("0", pa.int64())]),
            "decimal256": pa.decimal256(40, 2)}  # fmt: skip
    if isinstance(spec, str):
        return leaf[spec]
    outer, inner = spec
    t = _type(inner)
    if outer == "list":
        return pa.list_(t)
    if outer == "struct":
        return pa.struct([pa.field("x", t)])
    return pa.map_(pa.string(), t)


def _holds_unreadable(spec: Any) -> bool:
    return (
        spec in ("interval", "union", "decimal256") if isinstance(spec, str) else _holds_unreadable(spec[1])
    )


@settings(max_examples=examples(40), deadline=None)
@given(spec=NESTING)
def test_a_nested_type_is_refused_exactly_when_it_holds_an_unreadable_one(spec: Any) -> None:
    t = _type(spec)
    table = BM25.to_arrow()
    table = table.append_column(pa.field("nested", t), pa.nulls(table.num_rows, type=t))
    error = _outcome(lambda: irframe.evaluate(table, ["RR"], G.qrels))
    if _holds_unreadable(spec):
        assert isinstance(error, InvalidDataError), repr(error)
        assert "'nested'" in str(error)
    else:
        assert error is None, repr(error)
