"""Top-k sums: one sum per cutoff (few cutoffs) or one shared cumulative list (many).

Both forms are forced on the same input and compared with the plain-Python oracle.
"""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest
from hypothesis import given, settings

import irframe
from _support.datagen import run_and_qrels
from _support.helpers import assert_close_dicts, examples, per_query_dict
from _support.oracle import oracle_evaluate
from irframe._engine import compiler as _compile

LABELS = ["P@1", "P@2", "P@3", "P@5", "P@20", "nDCG@2", "nDCG@4", "nDCG", "R@3", "Judged@3", "ERR@2"]
LABELS += ["AP", "AP@1", "AP@2", "AP@3", "AP@5"]  # the total and 4 cutoffs: one list serves all


@pytest.mark.parametrize("max_scalar", [0, 1, 100])
@settings(max_examples=examples(15), deadline=None)
@given(data=run_and_qrels(grades=(-1, 0, 1, 2, 3)))
def test_top_k_sums_equal_the_oracle(
    max_scalar: int, data: tuple[dict[str, list[Any]], dict[str, list[Any]]]
) -> None:
    run, qrels = data
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_compile, "MAX_SCALAR_CUTOFFS", max_scalar)
        got = irframe.evaluate(pl.DataFrame(run, strict=False), LABELS, pl.DataFrame(qrels, strict=False),
                               per_query=True)  # fmt: skip
    expected = oracle_evaluate(run, qrels, LABELS, missing="zero")
    assert_close_dicts(per_query_dict(got, LABELS), expected, tol=1e-12)


def test_the_form_follows_the_number_of_cutoffs() -> None:
    from irframe.measures import parse_measures

    comp, _ = _compile.compile_all(parse_measures(["P@5", "P@10", "nDCG@10"]), inline_rn=False)
    # 2 cutoffs of P, 1 of nDCG: top-k sums (the only list is IDCG's gains, sorted per query)
    assert comp.lists == {"__ir_IDCG:gains"}
    many = parse_measures([f"P@{k}" for k in (1, 2, 3, 4, 5)])
    comp, _ = _compile.compile_all(many, inline_rn=False)
    assert len(comp.lists) == 1  # one cumulative list serves the 5 cutoffs
    with_total = parse_measures(["AP", *(f"AP@{k}" for k in (1, 2, 3, 4))])
    comp, _ = _compile.compile_all(with_total, inline_rn=False)
    assert len(comp.lists) == 1  # ... and AP's total: its last element
    assert not any(key.endswith(":sum") for key in comp.ranked)
