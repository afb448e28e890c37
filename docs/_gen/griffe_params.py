"""Griffe extension: the API reference shows each parameter's own default and type.

Two things griffe gets wrong on irframe's code, fixed here once the package is loaded:

1. **Signatures made at run time.** Griffe reads the source; a function whose signature is set or
   forwarded when irframe is imported (``__signature__``, ``functools.wraps``, a generated method)
   shows the source's ``(*args, **kwargs)``. When ``inspect.signature`` of the imported object
   disagrees with the source (other names, kinds or defaults), the parameters are taken from it.
2. **Grouped numpydoc entries.** For ``query_col, doc_col, rank_col : str`` griffe's numpy parser gives
   every name the *first* name's default and type (all ``'query_id'``; ``Any`` and *required* when the
   first is untyped and required). Each name gets its own default from the signature, and its own
   annotation when the signature has one (the group's written type otherwise). A written type that is
   not a Python annotation (``array-like``, ``frame or path``) is shown as written, not parsed into
   ``array - like``.

A default written as a constant (``rank_col=DEFAULT_RANK``) is shown as its value (``'rank'``), and
a return type written with reST double backticks ("Same type as ``run``") loses them (the column is code).

Loaded by mkdocs.yml's mkdocstrings ``extensions`` option after griffe's ``dataclasses`` (which makes
the dataclasses' ``__init__``). ``docs/_gen/test_api_signatures.py`` checks the result against
``inspect.signature`` for every public function.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import math
import re
from collections.abc import Iterator
from typing import Any

import griffe

# a numpydoc parameter line: "name : type", "a, b, c : type", "**kwargs", "name" (no type)
_ITEM = re.compile(r"^\s*(?P<names>\*{0,2}\w+(?:\s*,\s*\*{0,2}\w+)*)\s*(?::\s*(?P<type>.*?))?\s*$")
_DEFAULT = re.compile(r",\s+default(?: |: |=).*$")  # "bool, default False": the default is the signature's
_PARAM_KINDS = (griffe.DocstringSectionKind.parameters, griffe.DocstringSectionKind.other_parameters)
_RETURN_KINDS = (griffe.DocstringSectionKind.returns, griffe.DocstringSectionKind.yields)
_KIND = {
    inspect.Parameter.POSITIONAL_ONLY: griffe.ParameterKind.positional_only,
    inspect.Parameter.POSITIONAL_OR_KEYWORD: griffe.ParameterKind.positional_or_keyword,
    inspect.Parameter.VAR_POSITIONAL: griffe.ParameterKind.var_positional,
    inspect.Parameter.KEYWORD_ONLY: griffe.ParameterKind.keyword_only,
    inspect.Parameter.VAR_KEYWORD: griffe.ParameterKind.var_keyword,
}
_ANNOTATION_NODES = (ast.Expression, ast.Name, ast.Attribute, ast.Subscript, ast.Constant, ast.Load)
_ANNOTATION_NODES += (ast.Tuple, ast.List, ast.BinOp, ast.BitOr)


def runtime_object(obj: griffe.Object) -> Any:
    """The imported object griffe's ``obj`` describes (None when it cannot be imported)."""
    module_path = obj.module.path
    try:
        value: Any = importlib.import_module(module_path)
    except Exception:
        return None
    for part in obj.path[len(module_path) + 1 :].split(".") if obj.path != module_path else ():
        value = inspect.getattr_static(value, part, None)
        if isinstance(value, (staticmethod, classmethod)):
            value = value.__func__
        if value is None:
            return None
    return value


def runtime_signature(obj: griffe.Object) -> inspect.Signature | None:
    """``inspect.signature`` of the imported function (None for what has none)."""
    value = runtime_object(obj)
    if not callable(value) or isinstance(value, type):
        return None
    try:
        return inspect.signature(value)
    except (TypeError, ValueError):
        return None


_PLAIN = (str, int, float, bool, type(None), tuple, frozenset)


def same_default(text: str | griffe.Expr | None, real: Any, namespace: dict[str, Any]) -> bool:
    """Whether griffe's default (source text) is the run-time default.

    Defaults that are plain values (literals, or a constant's name such as ``DEFAULT_RANK``) are
    compared by value (NaN equals NaN); a computed one (a lambda, ``dict()``, a dataclass factory) is
    taken as written: only its presence is compared.
    """
    if (text is None) != (real is inspect.Parameter.empty):
        return False
    if text is None or not isinstance(real, _PLAIN):
        return True
    try:
        value = ast.literal_eval(str(text))
    except (ValueError, SyntaxError):
        try:
            value = eval(str(text), namespace)
        except Exception:
            return True
    if isinstance(value, float) and isinstance(real, float) and math.isnan(value) and math.isnan(real):
        return True
    return type(value) is type(real) and value == real


def _same(params: griffe.Parameters, sig: inspect.Signature, namespace: dict[str, Any]) -> bool:
    ours = [p for p in params if p.name not in {"self", "cls"}]
    theirs = [p for p in sig.parameters.values() if p.name not in {"self", "cls"}]
    if [(p.name, p.kind) for p in ours] != [(p.name, _KIND[p.kind]) for p in theirs]:
        return False
    return all(
        same_default(mine.default, real.default, namespace)
        for mine, real in zip(ours, theirs, strict=True)
        if real.kind not in {real.VAR_POSITIONAL, real.VAR_KEYWORD}
    )


def _annotation_text(annotation: Any) -> str | None:
    if annotation is inspect.Parameter.empty:
        return None
    return annotation if isinstance(annotation, str) else inspect.formatannotation(annotation)


def _class_init(cls: griffe.Class, sig: inspect.Signature) -> None:
    """A class whose constructor griffe cannot see (a ``tuple`` subclass) gets the run-time one."""
    init = griffe.Function("__init__", parent=cls, parameters=griffe.Parameters(griffe.Parameter("self")))
    init.returns = "None"
    _from_runtime(init, sig.replace(return_annotation=inspect.Signature.empty))
    cls.set_member("__init__", init)


def _from_runtime(func: griffe.Function, sig: inspect.Signature) -> None:
    """Replace griffe's parameters (and return type) with the run-time signature's."""
    first = next(iter(func.parameters), None)
    params = [first] if first is not None and first.name in {"self", "cls"} else []
    for p in sig.parameters.values():
        if p.name in {"self", "cls"}:
            continue
        default = None if p.default is inspect.Parameter.empty else repr(p.default)
        params.append(
            griffe.Parameter(
                p.name, annotation=_annotation_text(p.annotation), kind=_KIND[p.kind], default=default
            )
        )
    func.parameters = griffe.Parameters(*params)
    returns = _annotation_text(sig.return_annotation)
    if returns is not None:
        func.returns = returns


def _literal_defaults(func: griffe.Function, sig: inspect.Signature) -> None:
    """A default written as a constant's name (``DEFAULT_RANK``) is shown as its value (``'rank'``)."""
    for param in func.parameters:
        real = sig.parameters.get(param.name)
        if real is None or param.default is None or real.default is inspect.Parameter.empty:
            continue
        try:
            ast.literal_eval(str(param.default))
        except (ValueError, SyntaxError):
            text = repr(real.default)
            try:
                ast.literal_eval(text)
            except (ValueError, SyntaxError):
                continue
            param.default = text


def _is_annotation(text: str) -> bool:
    """Whether a docstring type reads as a Python annotation (``str | None``, ``pl.DataFrame``)."""
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        return False
    if isinstance(tree.body, (ast.Tuple, ast.List)):
        return False
    nodes = list(ast.walk(tree))
    ops_ok = all(isinstance(n.op, ast.BitOr) for n in nodes if isinstance(n, ast.BinOp))
    return ops_ok and all(isinstance(n, _ANNOTATION_NODES) for n in nodes)


def _written_types(docstring: str, params: griffe.Parameters) -> dict[str, tuple[str | None, int]]:
    """``{name: (the type written for it or None, how many names share its line)}``."""
    out: dict[str, tuple[str | None, int]] = {}
    for line in docstring.splitlines():
        match = _ITEM.match(line)
        if not match:
            continue
        names = [n.strip().lstrip("*") for n in match.group("names").split(",")]
        if not all(n in params for n in names):
            continue
        written = _DEFAULT.sub("", (match.group("type") or "").removesuffix(", optional")).strip() or None
        for name in names:
            out.setdefault(name, (written, len(names)))
    return out


def _fix_parameter(
    item: griffe.DocstringParameter, param: griffe.Parameter, written: str | None, group: int
) -> None:
    if param.kind is griffe.ParameterKind.var_keyword:
        item.value = "{}"
    elif param.kind is griffe.ParameterKind.var_positional:
        item.value = "()"
    else:
        item.value = param.default
    if group > 1 and param.annotation is not None and str(param.annotation) != "Any":
        item.annotation = param.annotation  # the group's type was written for the first name
    elif written is not None and (group > 1 or not _is_annotation(written)):
        item.annotation = written  # shown as written
    elif written is None:
        item.annotation = param.annotation


def fix_docstring(obj: griffe.Object) -> None:
    """Give each documented parameter its own default and type (see the module docstring)."""
    if obj.docstring is None or not isinstance(obj, (griffe.Function, griffe.Class)):
        return
    params = obj.parameters
    written = _written_types(obj.docstring.value, params)
    for section in obj.docstring.parsed:
        if section.kind in _RETURN_KINDS:
            for item in section.value:  # "Same type as ``run``": the type column is code already
                if isinstance(item.annotation, str) and "``" in item.annotation:
                    item.annotation = item.annotation.replace("``", "")
        if section.kind not in _PARAM_KINDS:
            continue
        for item in section.value:
            name = item.name.lstrip("*")
            if name in params:
                _fix_parameter(item, params[name], *written.get(name, (None, 1)))


def _walk(obj: griffe.Object, seen: set[str]) -> Iterator[griffe.Object]:
    if obj.path in seen:
        return
    seen.add(obj.path)
    yield obj
    for member in obj.members.values():
        if not member.is_alias and member.path.startswith(obj.path + "."):
            yield from _walk(member, seen)  # type: ignore[arg-type]


class SignatureDefaults(griffe.Extension):
    """Run-time signatures where the source has another, and per-name docstring defaults."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        objects = list(_walk(pkg, set()))
        for obj in objects:
            if isinstance(obj, griffe.Class) and "__init__" not in obj.all_members:
                value = runtime_object(obj)
                try:
                    sig = inspect.signature(value) if isinstance(value, type) else None
                except (TypeError, ValueError):
                    sig = None
                if sig is not None and sig.parameters and not getattr(value, "_is_protocol", False):
                    _class_init(obj, sig)
            elif isinstance(obj, griffe.Function):
                sig = runtime_signature(obj)
                namespace = vars(importlib.import_module(obj.module.path))
                if sig is None:
                    continue
                if not _same(obj.parameters, sig, namespace):
                    _from_runtime(obj, sig)
                _literal_defaults(obj, sig)
        for obj in objects:
            fix_docstring(obj)
