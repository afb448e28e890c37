"""Every skip says what enables the skipped test (issue 45: 419 skips needed IRFRAME_TREC_EVAL
and 50 IRFRAME_SHARED_DIR, and no message named them); the rule is tests/_support/skips.py, applied
to every report by tests/conftest.py."""

from __future__ import annotations

import pytest

from _support.helpers import PEERS_DIR, TREC_EVAL_TEST_DIR
from _support.skips import enabling
from _support.trec_eval_oracle import require_trec_eval


@pytest.mark.parametrize(
    ("reason", "said"),
    [
        ("could not import 'ranx': No module named 'ranx'", "pip install -e '.[oracles]'"),
        ("could not import 'pandas': No module named 'pandas'", "pip install -e '.[pandas]'"),
        ("could not import 'dask.dataframe': No module named 'dask'", "pip install -e '.[dask]'"),
        (f"trec_eval test data not found at {TREC_EVAL_TEST_DIR}", "IRFRAME_SHARED_DIR"),
        (f"ir_measures' cwl test files not found under {PEERS_DIR}", "IRFRAME_SHARED_DIR"),
        ("needs nuggetizer's scoring module in x (../shared/tools/nuggetizer)", "IRFRAME_SHARED_DIR"),
    ],
)
def test_a_skip_names_what_enables_it(reason: str, said: str) -> None:
    assert said in enabling(reason)


def test_a_skip_that_says_it_already_is_left_as_it_is(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("IRFRAME_TREC_EVAL", raising=False)
    with pytest.raises(pytest.skip.Exception) as skipped:
        require_trec_eval()
    assert "IRFRAME_TREC_EVAL" in str(skipped.value)
    assert enabling(str(skipped.value)) == str(skipped.value)
