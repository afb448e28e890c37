"""Ranking kernels give the same per-query values under polars' two engines.

The plans run their group_by under the engine polars chooses (streaming by default in
polars 2.x, in-memory for eager frames), so a kernel must not lean on an expression
whose result differs between them.  Known trap: a Boolean ``arg_max`` in a streaming
group_by returns the last maximum of ``[True, True]``, not the first.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest

from irframe import kernels as K

ENGINES = ("in-memory", "streaming")


def _first_relevant_oracle(grades: list[float | None], t: float) -> float:
    """Plain Python: the 1-based rank of the first grade >= t (None: unjudged), else 0."""
    for i, g in enumerate(grades):
        if g is not None and g >= t:
            return float(i + 1)
    return 0.0


def _groups(seed: int) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 5_000))
    gid = np.sort(rng.integers(0, max(1, n // 3), n))
    grades = rng.choice([0.0, 1.0, 2.0, math.nan], n, p=[0.5, 0.2, 0.1, 0.2])
    return pl.DataFrame({"gid": gid, K.REL: grades}).with_columns(pl.col(K.REL).fill_nan(None))


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("maintain_order", [True, False])
def test_first_relevant_two_relevant_in_a_row(engine: str, maintain_order: bool) -> None:
    df = pl.DataFrame({"gid": [0, 0, 1, 1, 1, 2], K.REL: [1.0, 1.0, 0.0, 2.0, 2.0, None]})
    out = (
        df.lazy()
        .group_by("gid", maintain_order=maintain_order)
        .agg(K.first_relevant(1).alias("r"))
        .sort("gid")
        .collect(engine=engine)  # type: ignore[arg-type]
    )
    assert out.get_column("r").to_list() == [1.0, 2.0, 0.0]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("seed", range(6))
def test_first_relevant_matches_plain_python(engine: str, seed: int) -> None:
    df = _groups(seed)
    out = (
        df.lazy()
        .group_by("gid")
        .agg(K.first_relevant(1).alias("r1"), K.first_relevant(2).alias("r2"))
        .sort("gid")
        .collect(engine=engine)  # type: ignore[arg-type]
    )
    per_group = df.group_by("gid", maintain_order=True).agg(pl.col(K.REL)).sort("gid")
    lists = per_group.get_column(K.REL).to_list()
    assert out.get_column("r1").to_list() == [_first_relevant_oracle(g, 1) for g in lists]
    assert out.get_column("r2").to_list() == [_first_relevant_oracle(g, 2) for g in lists]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("grades", "expected"),
    [([1.0, 1.0], 1.0), ([1.0, 1.0, 1.0], 1.0), ([0.0, 1.0, 1.0], 2.0), ([None, 0.0], 0.0)],
)
def test_first_relevant_one_query(engine: str, grades: list[float | None], expected: float) -> None:
    # one group of [True, True] is where the streaming Boolean arg_max gives the last index
    df = pl.DataFrame({"gid": [0] * len(grades), K.REL: grades}, schema={"gid": pl.Int64, K.REL: pl.Float64})
    out = df.lazy().group_by("gid").agg(K.first_relevant(1).alias("r")).collect(engine=engine)  # type: ignore[arg-type]
    assert out.get_column("r").to_list() == [expected] == [_first_relevant_oracle(grades, 1)]


def _dcg_oracle(grades: list[float | None], k: int) -> float:
    """Plain Python: sum of rel / log2(rank + 1) over the first k ranks (linear gain)."""
    return sum((g or 0.0) / math.log2(i + 2) for i, g in enumerate(grades[:k]) if (g or 0.0) > 0)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("k", [1, 3, 10])
def test_discount_table_matches_the_logs(engine: str, k: int) -> None:
    # the table form (a limit given) and the per-query logarithms give the same floats
    df = _groups(k)
    top = K.top(K.GRADES, k)
    out = (
        df.lazy()
        .group_by("gid")
        .agg(
            K.discounted("linear", top, k).sum().alias("table"),
            K.discounted("linear", top).sum().alias("logs"),
            pl.col(K.REL).alias("grades"),
        )
        .sort("gid")
        .collect(engine=engine)  # type: ignore[arg-type]
    )
    assert out.get_column("table").to_list() == out.get_column("logs").to_list()
    expected = [_dcg_oracle(g, k) for g in out.get_column("grades").to_list()]
    assert out.get_column("table").to_list() == pytest.approx(expected, rel=1e-12, abs=1e-12)
