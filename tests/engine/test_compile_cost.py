"""Compiling N measures is O(N) work with a bounded number of polars queries (issue 35, class 7)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import polars as pl
import pytest

from irframe import kernels
from irframe._engine import compiler
from irframe.measures import parse_measures


@contextmanager
def counted_queries() -> Iterator[list[int]]:
    """Count the polars queries run: ``LazyFrame.collect`` and its eager form (which
    ``pl.select`` and every DataFrame method go through), and ``pl.collect_all`` (one per
    frame it collects)."""
    calls = [0]

    def counting(real: Any) -> Any:
        def run(self: pl.LazyFrame, *args: Any, **kwargs: Any) -> Any:
            calls[0] += 1
            return real(self, *args, **kwargs)

        return run

    real_all = pl.collect_all

    def collect_all(frames: Any, *args: Any, **kwargs: Any) -> Any:
        frames = list(frames)
        calls[0] += len(frames)
        return real_all(frames, *args, **kwargs)

    with pytest.MonkeyPatch.context() as mp:
        for name in ("collect", "_collect_eager"):
            mp.setattr(pl.LazyFrame, name, counting(getattr(pl.LazyFrame, name)))
        mp.setattr(pl, "collect_all", collect_all)
        yield calls


def test_a_thousand_cutoffs_compile_with_at_most_one_query() -> None:
    kernels._all_discounts.cache_clear()  # (the discount table is computed once, then sliced)
    pairs = parse_measures([f"nDCG@{k}" for k in range(1, 1001)] + [f"P@{k}" for k in range(1, 1001)])
    with counted_queries() as calls:
        _, finals = compiler._compile(pairs, inline_rn=False)
    assert len(finals) == 2000
    assert calls[0] <= 1  # it was one query per distinct nDCG cutoff: 1,000


def test_discount_slices_equal_the_per_group_expression() -> None:
    """A slice of the one table holds the values the expression gives for that many ranks."""
    for n in (1, 2, 10, 999, kernels._TABLE_ROWS):
        direct = pl.select(kernels._first_discounts(n)).to_series()
        assert kernels._discount_table(n).to_list() == direct.to_list()


def test_sorted_cutoffs_are_computed_once_per_sum() -> None:
    """The second compiler pass reads each sum's cutoffs in order from one sorted list."""
    pairs = parse_measures([f"P@{k}" for k in (30, 5, 10, 1000, 20)])
    probe = compiler.Compiler(inline_rn=False)
    for _, m in pairs:
        probe.value(m)
    comp = compiler.Compiler(inline_rn=False, cutoffs=probe.cutoffs)
    assert all(cuts == sorted(cuts) for cuts in comp._cuts.values())
    assert [5, 10, 20, 30, 1000] in comp._cuts.values()
