"""Every public evaluating function takes every option of the options value, with its default.

``irframe.evaluate``'s signature is the one full list of the options; the backends' entry
points (``irframe.dask.evaluate``, ``irframe.spark.evaluate``, ``irframe.evaluate_parquet``)
take them as ``**options: Unpack[EvaluateOptions]`` and show them through
:func:`irframe.functions.with_evaluate_options`.  The options are validated once, by
:class:`irframe._input.options.Options`.  These tests keep the three one decision: a
default changed in ``Options`` but not in ``evaluate``, an option the TypedDict lacks, or
an entry point whose signature does not show ``evaluate``'s options (``irframe.dask.evaluate``
lacked ``columns`` and ``order`` until 2026-11-30, although ``irframe.evaluate`` on a Dask
frame took them) fails here.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import irframe
from irframe._backends.registry import backend_named
from irframe._input.options import Options
from irframe.functions import EvaluateOptions

FIELDS = {f.name: f.default for f in dataclasses.fields(Options)}
# module, function, the optional dependency it needs, its backend
PUBLIC = [
    ("irframe", "evaluate", None, None),
    ("irframe", "evaluate_parquet", None, "parquet"),
    ("irframe.dask", "evaluate", "dask.dataframe", "dask"),
    ("irframe.spark", "evaluate", None, "spark"),  # (imports without pyspark)
]
FORWARDING = [p for p in PUBLIC if p[3] is not None]


def _function(module: str, name: str, needs: str | None) -> Callable[..., Any]:
    if needs is not None:
        pytest.importorskip(needs)
    fn: Callable[..., Any] = getattr(importlib.import_module(module), name)
    return fn


def _options() -> dict[str, inspect.Parameter]:
    """``irframe.evaluate``'s keyword options."""
    params = inspect.signature(irframe.evaluate).parameters.values()
    return {p.name: p for p in params if p.kind is inspect.Parameter.KEYWORD_ONLY}


@pytest.mark.parametrize(
    ("module", "name", "needs", "backend"), PUBLIC, ids=[f"{m}.{n}" for m, n, _, _ in PUBLIC]
)
def test_signatures_take_every_option_with_its_default(
    module: str, name: str, needs: str | None, backend: str | None
) -> None:
    params = inspect.signature(_function(module, name, needs)).parameters
    lacking = [f for f in FIELDS if f not in params]
    assert not lacking, f"{module}.{name} lacks the options {lacking}"
    for field, default in FIELDS.items():
        given = params[field].default
        if field == "by":
            given = () if given is None else given  # (None: no breakdown, as the empty tuple)
        assert given == default, f"{module}.{name}: {field}={given!r}, Options says {default!r}"
        assert params[field].kind is inspect.Parameter.KEYWORD_ONLY, f"{module}.{name}: {field}"


@pytest.mark.parametrize(
    ("module", "name", "needs", "backend"), FORWARDING, ids=[f"{m}.{n}" for m, n, _, _ in FORWARDING]
)
def test_entry_points_show_evaluates_options_and_their_own(
    module: str, name: str, needs: str | None, backend: str
) -> None:
    """The forwarded signature: ``evaluate``'s options exactly (name, kind, default,
    annotation), then the backend's own options, each one its registry accepts."""
    fn = _function(module, name, needs)
    params = inspect.signature(fn).parameters
    assert list(params)[:3] == ["run" if name == "evaluate" else "source", "measures", "qrels"]
    for option, want in _options().items():
        assert params[option] == want, f"{module}.{name}: {params[option]} is not evaluate's {want}"
    own = [p for p in params if p not in _options() and p not in ("run", "source", "measures", "qrels")]
    assert own, f"{module}.{name} shows no option of its backend"
    assert set(own) <= set(backend_named(backend).options), (own, backend_named(backend).options)
    assert not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())


def test_the_typed_dict_is_evaluates_options() -> None:
    """``EvaluateOptions`` (what mypy reads) has ``evaluate``'s option names and types."""
    hints = EvaluateOptions.__annotations__
    assert list(hints) == list(_options())
    for option, param in _options().items():
        annotation = hints[option]
        text = getattr(annotation, "__forward_arg__", annotation)
        assert text == param.annotation, f"{option}: {text!r} != evaluate's {param.annotation!r}"


def test_forwarded_options_reach_the_backend(tmp_path: Path) -> None:
    """An option given to an entry point is the option the backend evaluates with, and a
    misspelled one is refused naming the entry point."""
    import polars as pl

    run = pl.DataFrame({"qid": ["q1", "q1"], "docno": ["a", "b"], "rank": [1, 2], "label": [0, 1]})
    run.write_parquet(tmp_path / "run.parquet")
    got = irframe.evaluate_parquet(tmp_path / "run.parquet", ["RR"], columns="pyterrier", per_query=True)
    assert got.rows() == [("q1", 0.5)]
    with pytest.raises(
        irframe.exceptions.InvalidParameterError, match=r"evaluate_parquet\(\) got an unexpected"
    ):
        irframe.evaluate_parquet(tmp_path / "run.parquet", ["RR"], colums="pyterrier")  # type: ignore[call-arg]
    with pytest.raises(
        irframe.exceptions.InvalidParameterError, match="'per_query' parameter of evaluate_parquet"
    ):
        irframe.evaluate_parquet(tmp_path / "run.parquet", ["RR"], per_query="yes")  # type: ignore[typeddict-item]


_SAMPLE = """
from typing import Any
import irframe, irframe.dask, irframe.spark
frame: Any = None
irframe.evaluate_parquet("run.parquet", ["RR"], per_query=True, buckets=4, columns="ranx")
irframe.dask.evaluate(frame, ["RR"], npartitions=2, by="system")
irframe.evaluate_parquet("run.parquet", ["RR"], per_qeury=True)
irframe.spark.evaluate(frame, ["RR"], missing="sometimes")
"""


@pytest.mark.slow
def test_mypy_reads_the_forwarded_options(tmp_path: Path) -> None:
    """mypy accepts the options by name and refuses a misspelled one and a wrong value."""
    pytest.importorskip("mypy")
    (tmp_path / "sample.py").write_text(_SAMPLE)
    src = Path(irframe.__file__).resolve().parents[1]
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--ignore-missing-imports", "--no-incremental",
         "--python-version", "3.10", str(tmp_path / "sample.py")],
        check=False, capture_output=True, text=True, cwd=tmp_path, env={"MYPYPATH": str(src), "PATH": ""},
    )  # fmt: skip
    errors = [line for line in proc.stdout.splitlines() if ": error:" in line]
    assert len(errors) == 2, proc.stdout
    assert errors[0].startswith("sample.py:7:"), errors
    assert '"per_qeury"' in errors[0], errors  # the misspelled keyword
    assert errors[1].startswith("sample.py:8:"), errors
    assert '"missing"' in errors[1], errors  # a value its Literal refuses
