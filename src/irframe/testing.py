"""Helpers for test suites: fail a pytest test on a golden-set regression.

Examples
--------
>>> from irframe.datasets import golden
>>> g = golden()
>>> hybrid = g.runs.filter(system="hybrid")
>>> assert_no_regression(hybrid, g.qrels, baseline=g.runs.filter(system="bm25"), measures="nDCG@10")
CheckResult(passed=True, candidate='hybrid', baseline='bm25', measures=['nDCG@10'], regressions=0)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = ["assert_no_regression"]


def assert_no_regression(
    candidate: Any,
    qrels: Any,
    baseline: Any,
    measures: Any = None,
    **kwargs: Any,
) -> Any:
    """Raise ``AssertionError`` whose message is the check's report when it finds a regression.

    Parameters
    ----------
    candidate, qrels, baseline, measures, **kwargs
        As for :func:`irframe.check` (frames or file paths; the baseline may be a snapshot).

    Returns
    -------
    CheckResult
        The result, when the check passed.

    Examples
    --------
    >>> from irframe.datasets import golden
    >>> g = golden()
    >>> dense, bm25 = g.runs.filter(system="dense"), g.runs.filter(system="bm25")
    >>> assert_no_regression(dense, g.qrels, baseline=bm25, measures=["R@100"])
    Traceback (most recent call last):
    ...
    AssertionError: FAIL: 1 regression: R@100 -0.1792, p_adj <0.001.
    ...
    """
    __tracebackhide__ = True  # pytest shows the caller's line
    from irframe._check.gate import check

    if measures is not None and not isinstance(measures, str | Iterable):
        measures = [measures]
    result = check(candidate, qrels, baseline, measures, **kwargs)
    if not result.passed:
        raise AssertionError(result.report())
    return result
