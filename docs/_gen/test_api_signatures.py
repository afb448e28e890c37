"""The API reference's defaults and types are the functions' own (``inspect.signature``).

Griffe (which mkdocstrings renders from) reads the source; these tests load irframe with the
extensions mkdocs.yml configures and compare what the pages will show, signature and parameter
table, with ``inspect.signature`` of every public function, method and class.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import math
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from types import FunctionType, ModuleType
from typing import Any

import pytest

griffe = pytest.importorskip("griffe", reason="the API reference needs pip install '.[docs]'")
yaml = pytest.importorskip("yaml", reason="reading mkdocs.yml needs PyYAML (installed with mkdocs)")

sys.path.insert(0, str(Path(__file__).resolve().parent))

import api  # noqa: E402
import griffe_params  # noqa: E402

import irframe  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


class _AnyTagLoader(yaml.SafeLoader):
    """mkdocs.yml may hold !!python/name tags: read them as plain values."""


_AnyTagLoader.add_multi_constructor("", lambda loader, suffix, node: None)


def _extensions() -> list[Any]:
    """The griffe extensions mkdocs.yml gives mkdocstrings, with paths made absolute."""
    config = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_AnyTagLoader)
    plugin = next(p["mkdocstrings"] for p in config["plugins"] if isinstance(p, dict) and "mkdocstrings" in p)
    names = plugin["handlers"]["python"]["options"]["extensions"]
    return [str(ROOT / n) if "/" in n else n for n in names]


def _load(package: str, search_path: Path, extensions: list[Any]) -> Any:
    loader = griffe.GriffeLoader(
        extensions=griffe.load_extensions(*extensions),
        search_paths=[str(search_path)],
        docstring_parser=griffe.Parser.numpy,
    )
    pkg = loader.load(package)
    loader.resolve_aliases(implicit=False, external=False)
    return pkg


@pytest.fixture(scope="module")
def documented() -> Any:
    return _load("irframe", Path(irframe.__file__).resolve().parents[1], _extensions())


def _public_callables() -> Iterator[tuple[str, Any]]:
    """(shown name, object) for everything the API pages document that has a signature."""
    seen: set[int] = set()
    modules: list[ModuleType] = [irframe] + [
        importlib.import_module(f"irframe.{m}") for m in api.public_modules()
    ]
    for module in modules:
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if id(obj) in seen or not (inspect.isfunction(obj) or isinstance(obj, type)):
                continue  # modules, and values such as the measure constants (irframe.measures.AP)
            seen.add(id(obj))
            if not getattr(obj, "_is_protocol", False):  # a Protocol has no constructor to show
                yield f"{module.__name__}.{name}", obj
            if isinstance(obj, type):
                for attr, member in vars(obj).items():
                    if not attr.startswith("_") and isinstance(
                        member, (FunctionType, staticmethod, classmethod)
                    ):
                        yield f"{module.__name__}.{name}.{attr}", getattr(obj, attr)


def _griffe_object(pkg: Any, obj: Any) -> Any:
    path = f"{obj.__module__}.{obj.__qualname__}"
    return pkg[path.removeprefix(f"{pkg.path}.")]


def _value(text: Any, namespace: dict[str, Any]) -> Any:
    if text is None:
        return inspect.Parameter.empty
    if str(text) == "<factory>":  # a dataclass field(default_factory=...) shown as such
        return dataclasses.MISSING
    try:
        return ast.literal_eval(str(text))
    except (ValueError, SyntaxError):
        pass
    try:
        return eval(str(text), namespace)
    except Exception:
        return f"<unreadable default {text}>"


def _equal(shown: Any, real: Any) -> bool:
    """Whether a shown default is the real one (frames compare by type and content, not ==)."""
    if real is getattr(dataclasses, "_HAS_DEFAULT_FACTORY", object()):  # a field(default_factory=...)
        return shown is not inspect.Parameter.empty
    if shown is real:
        return True
    if isinstance(shown, float) and isinstance(real, float) and math.isnan(shown) and math.isnan(real):
        return True
    if callable(shown) and callable(real) and not isinstance(real, type):  # a lambda made again
        return getattr(shown, "__name__", None) == getattr(real, "__name__", None)
    try:
        return bool(shown == real)
    except (TypeError, ValueError):
        return type(shown) is type(real) and repr(shown) == repr(real)


def _namespace(obj: Any) -> dict[str, Any]:
    func = obj.__init__ if isinstance(obj, type) else obj
    return dict(getattr(inspect.unwrap(func), "__globals__", {}))


def _mismatches(shown: str, obj: Any, doc: Any) -> list[str]:
    """What the page would show differently from ``inspect.signature`` (empty when they agree)."""
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return []
    params = {p.name: p for p in doc.parameters if p.name not in {"self", "cls"}}
    real = {p.name: p for p in sig.parameters.values() if p.name not in {"self", "cls"}}
    out = []
    if list(params) != list(real):
        return [f"{shown}: parameters {list(params)} shown, {list(real)} in the signature"]
    namespace = _namespace(obj)
    for name, param in params.items():
        if real[name].kind in {real[name].VAR_POSITIONAL, real[name].VAR_KEYWORD}:
            continue
        if not _equal(_value(param.default, namespace), real[name].default):
            out.append(f"{shown}({name}=...): signature shows {param.default}, is {real[name].default!r}")
    for section in doc.docstring.parsed if doc.docstring else ():
        if section.kind.value not in {"parameters", "other parameters"}:
            continue
        for item in section.value:
            name = item.name.lstrip("*")
            if name not in real or real[name].kind in {real[name].VAR_POSITIONAL, real[name].VAR_KEYWORD}:
                continue
            if not _equal(_value(item.value, namespace), real[name].default):
                out.append(f"{shown}: table shows {name} default {item.value}, is {real[name].default!r}")
    return out


def test_every_public_signature_and_parameter_table_matches_inspect(documented: Any) -> None:
    checked, problems = 0, []
    for shown, obj in _public_callables():
        try:
            doc = _griffe_object(documented, obj)
        except KeyError:
            continue  # defined outside irframe (a re-exported polars type): not on the pages
        problems += _mismatches(shown, obj, doc)
        checked += 1
    assert checked > 80  # every public function, class and method was looked at
    assert problems == [], "\n".join(problems)


def test_namespace_methods_match_inspect(documented: Any) -> None:
    from irframe._namespaces import _METHODS

    cls = irframe.IrNamespace
    names = list(_METHODS)  # (generated from the functions when first looked up)
    assert "evaluate" in names
    assert "compare_report" in names
    problems = [
        p
        for n in names
        for p in _mismatches(f"IrNamespace.{n}", getattr(cls, n), _griffe_object(documented, getattr(cls, n)))
    ]
    assert problems == []


# --- the extension on a module made for it: fails without it ------------------------------
SAMPLE = '''
"""A sample."""
from __future__ import annotations
import inspect
from typing import Any

RANK = "rank"


def grouped(run: Any, query_col: str = "query_id", rank_col: str | None = RANK, *, depth: int = 10) -> None:
    """Grouped entries.

    Parameters
    ----------
    run, query_col, rank_col, depth
        Shared text.
    """


def forwarded(*args: Any, **kwargs: Any) -> int:
    """Forwarded: its signature is set at import.

    Parameters
    ----------
    k : int
        A cutoff.
    x : array-like
        Values.
    """
    return 0


forwarded.__signature__ = inspect.Signature(
    [
        inspect.Parameter("k", inspect.Parameter.POSITIONAL_OR_KEYWORD, default=10, annotation="int"),
        inspect.Parameter("x", inspect.Parameter.KEYWORD_ONLY, default=None, annotation="ArrayLike | None"),
    ],
    return_annotation="int",
)
'''


@pytest.fixture
def sample(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Any, ModuleType]]:
    (tmp_path / "irframe_doc_sample.py").write_text(textwrap.dedent(SAMPLE), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("irframe_doc_sample")
    yield _load("irframe_doc_sample", tmp_path, _extensions()), module
    sys.modules.pop("irframe_doc_sample", None)


def _table(doc: Any) -> dict[str, tuple[str, str | None]]:
    section = next(s for s in doc.docstring.parsed if s.kind.value == "parameters")
    return {i.name: (str(i.annotation), None if i.value is None else str(i.value)) for i in section.value}


def test_grouped_entries_get_their_own_default_and_type(sample: tuple[Any, ModuleType]) -> None:
    pkg, module = sample
    table = _table(pkg["grouped"])
    # griffe alone gives every name run's: ('Any', None) -> "Any", "required"
    assert table == {
        "run": ("Any", None),
        "query_col": ("str", "'query_id'"),
        "rank_col": ("str | None", "'rank'"),  # the constant RANK shown as its value
        "depth": ("int", "10"),
    }
    assert _mismatches("grouped", module.grouped, pkg["grouped"]) == []


def test_a_signature_set_at_import_is_the_one_shown(sample: tuple[Any, ModuleType]) -> None:
    pkg, module = sample
    doc = pkg["forwarded"]
    assert [(p.name, p.kind.value, p.default) for p in doc.parameters] == [
        ("k", "positional or keyword", "10"),
        ("x", "keyword-only", "None"),
    ]
    assert str(doc.returns) == "int"
    # a written type that is no Python annotation is shown as written, not as "array - like"
    assert _table(doc) == {"k": ("int", "10"), "x": ("array-like", "None")}
    assert _mismatches("forwarded", module.forwarded, doc) == []


def test_the_extension_is_configured() -> None:
    names = _extensions()
    assert any(n.endswith("griffe_params.py:SignatureDefaults") for n in names)
    assert names.index("dataclasses") < next(i for i, n in enumerate(names) if "griffe_params" in n)
    assert griffe_params.SignatureDefaults.__doc__
