"""Shared fixtures: one ``constructor`` per supported frame type, and a way back to polars.

``constructor(data)`` turns a dict of lists into the frame type under test (its
``.name``, ``.native_type`` and ``.is_lazy`` describe it); ``helpers.to_polars`` brings
any result back to an eager polars DataFrame.  Tests that take ``constructor`` run once
per frame type.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import CONSTRUCTORS, TREC_EVAL_TEST_DIR, NamedConstructor
from trec_eval_oracle import TrecEval, require_trec_eval


@pytest.fixture(params=list(CONSTRUCTORS))
def constructor(request: pytest.FixtureRequest) -> NamedConstructor:
    """Build a frame of the type under test from a dict of lists."""
    return NamedConstructor(request.param)


@pytest.fixture
def trec_eval_test_dir() -> Path:
    """The trec_eval test files shipped beside the repo (skip when absent)."""
    if not TREC_EVAL_TEST_DIR.is_dir():
        pytest.skip(f"trec_eval test data not found at {TREC_EVAL_TEST_DIR}")
    return TREC_EVAL_TEST_DIR


@pytest.fixture
def trec_eval() -> TrecEval:
    """The trec_eval binary named by ``IRFRAME_TREC_EVAL`` (skip when unset or missing)."""
    return require_trec_eval()
