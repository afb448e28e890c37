"""Every public evaluating function takes every option of the options value, with its default.

The signatures are written out (for ``help()`` and editors) while the options are validated
once, by :class:`irframe._input.options.Options`: this test keeps the two one decision.  A default
changed in ``Options`` but not in one signature, or an option one backend's signature lacks
(``irframe.dask.evaluate`` lacked ``columns`` and ``order`` until 2026-11-30, although
``irframe.evaluate`` on a Dask frame took them), fails here.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
from collections.abc import Callable
from typing import Any

import pytest

from irframe._input.options import Options

FIELDS = {f.name: f.default for f in dataclasses.fields(Options)}
# module, function, the optional dependency it needs
PUBLIC = [
    ("irframe", "evaluate", None),
    ("irframe", "evaluate_parquet", None),
    ("irframe.dask", "evaluate", "dask.dataframe"),
    ("irframe.spark", "evaluate", None),  # (imports without pyspark)
]


def _function(module: str, name: str, needs: str | None) -> Callable[..., Any]:
    if needs is not None:
        pytest.importorskip(needs)
    fn: Callable[..., Any] = getattr(importlib.import_module(module), name)
    return fn


@pytest.mark.parametrize(("module", "name", "needs"), PUBLIC, ids=[f"{m}.{n}" for m, n, _ in PUBLIC])
def test_signatures_take_every_option_with_its_default(module: str, name: str, needs: str | None) -> None:
    params = inspect.signature(_function(module, name, needs)).parameters
    lacking = [f for f in FIELDS if f not in params]
    assert not lacking, f"{module}.{name} lacks the options {lacking}"
    for field, default in FIELDS.items():
        given = params[field].default
        if field == "by":
            given = () if given is None else given  # (None: no breakdown, as the empty tuple)
        assert given == default, f"{module}.{name}: {field}={given!r}, Options says {default!r}"
        assert params[field].kind is inspect.Parameter.KEYWORD_ONLY, f"{module}.{name}: {field}"
