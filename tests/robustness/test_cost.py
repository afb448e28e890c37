"""Cost proportional to the work (issue 35, class 7), without changing a number.

compare and check draw the Monte-Carlo sign vectors and bootstrap indices of one shape once
(:mod:`irframe._resample`); every p-value and interval must be the very number the test
gives alone.  (That compiling N measures runs a bounded number of polars queries is
tests/engine/test_compile_cost.py; the time of ``compare(pairs="all")`` over 200 systems is
benchmarks/compare_all.py.)
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import irframe
from _support.helpers import examples
from irframe._compare.report import resample_count
from irframe._report.compare import unreachable_note
from irframe._resample import _exact_table, reusing_draws
from irframe.stats import bootstrap_ci, bootstrap_test, paired_test, randomization_test

# per-query deltas as IR measures give them: few distinct values, many ties and zeros
GRID = [0.0, 0.0, 0.1, -0.1, 0.25, -0.25, 0.5, -0.5, 1 / 3, -1 / 3, 1.0, -1.0]
DELTAS = st.lists(st.lists(st.sampled_from(GRID), min_size=2, max_size=40), min_size=1, max_size=6)


def _numbers(deltas: list[list[float]], seed: int) -> list[tuple[float, ...]]:
    out = []
    for d in deltas:
        r = randomization_test(d, n_permutations=300, seed=seed)
        b = bootstrap_test(d, n_bootstrap=300, seed=seed)
        ci = bootstrap_ci(d, n_bootstrap=300, seed=seed, method="bca")
        out.append((r.p_value, b.p_value, ci.low, ci.high))
    return out


@settings(max_examples=examples(60), deadline=None)
@given(deltas=DELTAS, seed=st.integers(0, 3))
def test_shared_draws_give_every_test_its_own_numbers(deltas: list[list[float]], seed: int) -> None:
    alone = _numbers(deltas, seed)
    with reusing_draws():
        shared = _numbers(deltas, seed) + _numbers(deltas, seed)  # the second time from the cache
    assert shared == alone + alone or _same_nan(shared, alone + alone)


def _same_nan(a: list[tuple[float, ...]], b: list[tuple[float, ...]]) -> bool:
    return all(x == y or (math.isnan(x) and math.isnan(y)) for ra, rb in zip(a, b, strict=True)
               for x, y in zip(ra, rb, strict=True))  # fmt: skip


def test_a_generator_seed_is_never_shared() -> None:
    d = [0.1, -0.25, 0.5, 0.1] * 6
    rng = np.random.default_rng(5)
    alone = [randomization_test(d, seed=rng).p_value for _ in range(2)]  # the generator moves on
    rng = np.random.default_rng(5)
    with reusing_draws():
        shared = [randomization_test(d, seed=rng).p_value for _ in range(2)]
    assert shared == alone


def test_the_exact_sign_table_is_built_once_per_count() -> None:
    _exact_table.cache_clear()
    for _ in range(3):
        paired_test([0.1, -0.2, 0.3, 0.4, -0.5, 0.6])
    info = _exact_table.cache_info()
    assert (info.misses, info.hits) == (1, 2)
    assert not _exact_table(6).flags.writeable


def test_compare_gives_the_numbers_of_each_test_alone() -> None:
    g = irframe.datasets.golden()
    table = irframe.compare(g.runs, g.qrels, ["RR", "nDCG@10"], pairs="all", n_permutations=700,
                            n_bootstrap=400, seed=3)  # fmt: skip
    per_query = irframe.evaluate(g.runs, ["RR", "nDCG@10"], g.qrels, by="system", per_query=True)
    for row in table.iter_rows(named=True):
        sides = [per_query.filter(pl.col("system") == s).sort("query_id")[row["measure"]] for s in
                 (row["system"], row["baseline"])]  # fmt: skip
        d = (sides[0] - sides[1]).to_numpy()
        d = np.where(np.abs(d) < 1e-12, 0.0, d)
        assert row["p_value"] == paired_test(d, n_permutations=700, seed=3).p_value
        ci = bootstrap_ci(d, n_bootstrap=400, seed=3)
        assert (row["ci_low"], row["ci_high"]) == (ci.low, ci.high)
        nonzero = int(np.count_nonzero(d))
        assert row["resamples"] == (2**nonzero if nonzero <= 16 else 700)


def test_the_report_says_when_no_comparison_can_be_significant() -> None:
    assert unreachable_note(pl.Series([10_000] * 3), 19_900, 0.05, "holm").startswith("No comparison can be")
    assert unreachable_note(pl.Series([10_000] * 3), 100, 0.05, "holm") == ""  # 100/10,001 < 0.05
    assert unreachable_note(pl.Series([10_000, None]), 19_900, 0.05, "holm") == ""  # a t-test row
    assert unreachable_note(pl.Series([10_000]), 19_900, 0.05, "bh") == ""  # BH does not multiply the minimum


@pytest.mark.parametrize(("test", "method", "deltas", "want"), [
    ("randomization", "exact", [0.5, 0.0, -0.25], 4),
    ("randomization", "monte-carlo", [0.5] * 20, 10_000),
    ("bootstrap", "monte-carlo", [0.5, 0.1], 2_000),
    ("t", "t-distribution", [0.5, 0.1], None),
])  # fmt: skip
def test_resamples_counts_what_the_p_value_counts_over(
    test: str, method: str, deltas: list[float], want: int | None
) -> None:
    class Result:
        pass

    class Settings:
        n_permutations, n_bootstrap = 10_000, 2_000

    r = Result()
    r.test, r.method = test, method  # type: ignore[attr-defined]
    assert resample_count(r, deltas, Settings()) == want
