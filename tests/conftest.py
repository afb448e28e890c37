"""Shared fixtures: one ``constructor`` per supported frame type, and a way back to polars.

``constructor(data)`` turns a dict of lists into the frame type under test (its
``.name``, ``.native_type`` and ``.is_lazy`` describe it); ``helpers.to_polars`` brings
any result back to an eager polars DataFrame.  Tests that take ``constructor`` run once
per frame type.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from _support.helpers import CONSTRUCTORS, TREC_EVAL_TEST_DIR, NamedConstructor
from _support.skips import enabling
from _support.trec_eval_oracle import TrecEval, require_trec_eval


def _said(report: pytest.TestReport | pytest.CollectReport) -> None:
    """A skip's reason with what enables the test (:func:`skips.enabling`)."""
    if report.skipped and isinstance(report.longrepr, tuple) and len(report.longrepr) == 3:
        path, line, reason = report.longrepr
        report.longrepr = (path, line, enabling(str(reason)))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> object:
    outcome = yield
    _said(outcome.get_result())  # type: ignore[attr-defined]
    return None


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> object:
    outcome = yield
    _said(outcome.get_result())  # type: ignore[attr-defined]
    return None


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
