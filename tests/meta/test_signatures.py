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
from irframe import clicks, online
from irframe._backends.registry import backend_named
from irframe._clicks.bias import PositionBiasOptions
from irframe._clicks.models import ClickModelOptions
from irframe._compare.movers import MovedOptions, moved_frame
from irframe._compare.table import CompareOptions
from irframe._input.options import Options
from irframe.functions import BackendOptions, ColumnOptions, EvaluateOptions, MeasureOptions, options_of
from irframe.online._experiment import ABOptions

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


def _keyword_only(fn: Callable[..., Any]) -> dict[str, inspect.Parameter]:
    params = inspect.signature(fn).parameters.values()
    return {p.name: p for p in params if p.kind is inspect.Parameter.KEYWORD_ONLY}


def _hints(typed_dict: type) -> dict[str, str]:
    """A TypedDict's keys and annotations, as text (they are strings in the source)."""
    return {k: getattr(v, "__forward_arg__", v) for k, v in typed_dict.__annotations__.items()}


def _same_options(typed_dict: type, params: dict[str, inspect.Parameter], where: str) -> None:
    hints = _hints(typed_dict)
    assert sorted(hints) == sorted(params), f"{typed_dict.__name__} is not {where}'s keyword options"
    for option, param in params.items():
        assert hints[option] == param.annotation, (
            f"{option}: {hints[option]!r} != {where}'s {param.annotation!r}"
        )


def test_the_typed_dict_is_evaluates_options() -> None:
    """``EvaluateOptions`` (what mypy reads) has ``evaluate``'s option names and types."""
    _same_options(EvaluateOptions, _options(), "evaluate")


def test_the_column_options_are_evaluates() -> None:
    """``ColumnOptions`` (``compare``'s and ``moved``'s ``**column_kwargs``): evaluate's
    options that are fields of ``Options``, but those compare and moved take themselves."""
    own = {"by", "missing", "weights"}
    _same_options(
        ColumnOptions, {k: p for k, p in _options().items() if k in FIELDS and k not in own}, "evaluate"
    )


@pytest.mark.parametrize(
    ("typed_dict", "functions"),
    [
        (CompareOptions, (irframe.compare, irframe.compare_report)),
        (MovedOptions, (irframe.moved, moved_frame)),
        (ABOptions, (online.compare, online.compare_report)),
        (ClickModelOptions, (clicks.click_model, clicks.click_judgments)),
        (PositionBiasOptions, (clicks.position_bias,)),
    ],
    ids=["compare", "moved", "online.compare", "click_model", "position_bias"],
)
def test_the_overloads_typed_dicts_are_the_keyword_options(
    typed_dict: type, functions: tuple[Callable[..., Any], ...]
) -> None:
    """The TypedDicts of ``compare``'s and ``moved``'s overloads (what the checkers read,
    through ``df.ir`` too) are the keyword options their signatures show."""
    for fn in functions:
        _same_options(typed_dict, _keyword_only(fn), fn.__name__)


def test_a_wrapper_shows_the_keywords_of_what_it_wraps() -> None:
    """``compare`` and ``moved_frame`` take their keywords as ``**options`` (one list:
    ``compare_report``'s, ``moved``'s implementation's) and show exactly that list, with its
    defaults and annotations; a wrapper whose positional parameters differ is refused."""
    pairs = (
        (irframe.compare, irframe.compare_report), (moved_frame, irframe.moved),
        (online.compare, online.compare_report), (clicks.click_judgments, clicks.click_model),
        (clicks.position_bias, clicks.position_bias_fit),
    )  # fmt: skip
    for wrapper, source in pairs:
        assert list(inspect.signature(wrapper).parameters.values()) == list(
            inspect.signature(source).parameters.values()
        )
    assert inspect.signature(moved_frame).return_annotation == "pl.DataFrame"

    def full(run: Any, qrels: Any = None, *, top: int = 3) -> int:
        return top

    def other(frame: Any, **options: Any) -> int:
        return full(frame, **options)

    with pytest.raises(TypeError, match="does not take the positional parameters of full"):
        options_of(full)(other)


_SHORTCUTS = ("ndcg", "precision", "recall", "mrr", "ap", "rprec", "bpref", "success", "judged")


@pytest.mark.parametrize("name", _SHORTCUTS)
def test_the_one_measure_functions_show_evaluates_options(name: str) -> None:
    """A one-measure function shows every option of ``evaluate`` but ``per_query`` (its own,
    default True) as evaluate does, and takes the backends' options (``**kwargs``)."""
    fn = getattr(irframe, name)
    params = _keyword_only(fn)
    assert params["per_query"].default is True
    for option, want in _options().items():
        if option != "per_query":
            assert params[option] == want, f"{name}: {params[option]} is not evaluate's {want}"
    hints = _hints(MeasureOptions)
    own = set(params) - set(_options())  # gain, rel
    assert sorted(hints) == sorted((set(params) - own - {"per_query"}) | set(_hints(BackendOptions)))
    var_kw = list(inspect.signature(fn).parameters.values())[-1]
    assert var_kw.kind is inspect.Parameter.VAR_KEYWORD, name


def test_the_backend_options_are_the_registrys() -> None:
    """``BackendOptions`` (``evaluate``'s ``**backend_options``) are the options the
    registered backends take, but ``queries`` and ``progress`` (evaluate's own)."""
    taken = {o for b in ("dask", "spark", "parquet", "in-process") for o in backend_named(b).options}
    assert sorted(_hints(BackendOptions)) == sorted(taken - {"queries", "progress"})
    for option in ("queries", "progress"):
        assert all(option in backend_named(b).options for b in ("dask", "spark", "parquet", "in-process"))


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
