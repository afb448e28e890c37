"""Helpers shared by the test areas: frame constructors and result conversion.

``CONSTRUCTORS[name](data)`` turns a dict of lists into a frame of one supported type;
``to_polars(result)`` brings any irframe result back to an eager polars DataFrame;
``per_query_dict(result)`` reads a per-query result as ``{query_id: {label: value}}``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import polars as pl
import pytest

Data = Mapping[str, Sequence[Any]]
Constructor = Callable[[Data], Any]

# ../shared beside the repository; IRFRAME_SHARED_DIR points elsewhere (a worktree's ../shared is not there)
SHARED_DIR = Path(os.environ.get("IRFRAME_SHARED_DIR") or Path(__file__).resolve().parents[3] / "shared")
TREC_EVAL_TEST_DIR = SHARED_DIR / "data" / "trec_eval_test"
PEERS_DIR = SHARED_DIR / "data" / "peers"  # the peers' test data and pinned cases (never copied here)


def _polars(data: Data) -> pl.DataFrame:
    return pl.DataFrame(dict(data), strict=False)


def _polars_lazy(data: Data) -> pl.LazyFrame:
    return pl.DataFrame(dict(data), strict=False).lazy()


def _pandas(data: Data) -> Any:
    pd = pytest.importorskip("pandas")
    return pd.DataFrame({k: list(v) for k, v in data.items()})


def _pandas_pyarrow(data: Data) -> Any:
    pd = pytest.importorskip("pandas")
    pa = pytest.importorskip("pyarrow")
    cols = {}
    for k, v in data.items():
        arr = pa.array(list(v), from_pandas=True)
        if pa.types.is_null(arr.type):  # all None: give it a numeric type
            arr = arr.cast(pa.float64())
        cols[k] = pd.array(arr.to_pylist(), dtype=pd.ArrowDtype(arr.type))
    return pd.DataFrame(cols)


CONSTRUCTORS: dict[str, Constructor] = {
    "polars": _polars,
    "polars-lazy": _polars_lazy,
    "pandas": _pandas,
    "pandas-pyarrow": _pandas_pyarrow,
}


class NamedConstructor:
    """A constructor that knows its name (``ctor.name``) and the type it builds."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._build = CONSTRUCTORS[name]

    def __call__(self, data: Data) -> Any:
        return self._build(data)

    @property
    def native_type(self) -> type:
        return native_type(self.name)

    @property
    def is_lazy(self) -> bool:
        return self.name == "polars-lazy"

    def __repr__(self) -> str:
        return f"constructor[{self.name}]"


def examples(default: int) -> int:
    """Examples per property test: ``default``, or more for a deep run.

    ``IRFRAME_HYPOTHESIS_EXAMPLES=2000 pytest tests`` raises every property test to at
    least 2000 examples (one knob for all of them; a deep run never lowers a default).
    """
    deep = os.environ.get("IRFRAME_HYPOTHESIS_EXAMPLES")
    return max(default, int(deep)) if deep else default


def graded_run(run: Data, qrels: Data) -> pl.DataFrame:
    """The run with each row's grade from the qrels (null: not judged), in the run's
    order: a run carrying its own grades, as ``df.ir.ndcg(k=10)`` without qrels reads it."""
    grades = pl.DataFrame(dict(qrels), strict=False)
    return pl.DataFrame(dict(run), strict=False).join(
        grades, on=["query_id", "doc_id"], how="left", maintain_order="left"
    )


def native_type(name: str) -> type:
    """The frame type a constructor produces (and irframe must return)."""
    if name == "polars":
        return pl.DataFrame
    if name == "polars-lazy":
        return pl.LazyFrame
    import pandas as pd

    return pd.DataFrame


def to_polars(obj: Any) -> pl.DataFrame:
    """Any result (polars eager/lazy, pandas) as an eager polars DataFrame."""
    if isinstance(obj, pl.LazyFrame):
        return obj.collect()
    if isinstance(obj, pl.DataFrame):
        return obj
    import pandas as pd

    if isinstance(obj, pd.DataFrame):
        return pl.from_pandas(obj.reset_index(drop=True))
    msg = f"not a frame: {type(obj)!r}"
    raise TypeError(msg)


def per_query_dict(result: Any, labels: Sequence[str]) -> dict[str, dict[str, float | None]]:
    """A per-query result as ``{str(query_id): {label: value or None}}``."""
    df = to_polars(result)
    out: dict[str, dict[str, float | None]] = {}
    for row in df.iter_rows(named=True):
        q = str(row["query_id"])
        assert q not in out, f"query {q!r} appears twice in the per-query result"
        vals: dict[str, float | None] = {}
        for label in labels:
            v = row[label]
            vals[label] = None if v is None else float(v)  # NaN stays NaN: nulls must be nulls
        out[q] = vals
    return out


def assert_close_dicts(
    got: Mapping[str, Mapping[str, float | None]],
    expected: Mapping[str, Mapping[str, float | None]],
    *,
    tol: float = 1e-9,
    context: str = "",
) -> None:
    """Per-query, per-measure comparison with a precise message on the first mismatch."""
    assert sorted(got) == sorted(expected), (
        f"query sets differ{context}: got {sorted(got)}, expected {sorted(expected)}"
    )
    for q, exp_vals in expected.items():
        for label, exp in exp_vals.items():
            g = got[q][label]
            if exp is None or g is None:
                where = f"{context} query {q!r} {label}"
                assert g is None, f"{where}: got {g!r}, expected null"
                assert exp is None, f"{where}: got null, expected {exp!r}"
            else:
                assert abs(g - exp) <= tol, f"{context} query {q!r} {label}: got {g!r}, expected {exp!r}"


@contextmanager
def only_executor(name: str) -> Iterator[list[str]]:
    """Run the engine's executor ``name`` first (then the general one, its fallback);
    the list records which ran (tests/engine's differential tests)."""
    from irframe._engine import strategy

    ran: list[str] = []
    table = {s.name: s for s in strategy.STRATEGIES}

    def spied(s: strategy.Strategy) -> strategy.Strategy:
        def run(job: strategy.Job) -> strategy.Executed | None:
            out = s.run(job)
            if out is not None:
                ran.append(out.name)
            return out

        return strategy.Strategy(s.name, s.when, s.applies, run)

    rows = (table[name], table["general"]) if name != "general" else (table["general"],)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(strategy, "STRATEGIES", tuple(spied(s) for s in rows))
        yield ran
