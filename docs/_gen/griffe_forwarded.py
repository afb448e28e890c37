"""Griffe extension: show the real signature of the functions that forward evaluate's options.

``irframe.dask.evaluate``, ``irframe.spark.evaluate`` and ``irframe.evaluate_parquet`` take
``irframe.evaluate``'s keyword options as ``**options: Unpack[EvaluateOptions]`` and show them
at run time (``inspect.signature``) through ``irframe.functions.with_evaluate_options``, which
marks the function with ``__evaluate_options__``. Griffe reads the source, so this extension
gives such a function the parameters ``inspect.signature`` shows (each option with
``evaluate``'s annotation and default), and replaces the ``**options`` entry of its docstring
by one entry per option, described as ``irframe.evaluate``'s docstring describes it.

The ``.ir`` namespace's methods are generated from the functions at run time
(``irframe._namespaces``: ``evaluate = _FrameMethod(_fn.evaluate)`` in the source), so
this extension also replaces each such attribute of ``IrNamespace`` and ``ExprIrNamespace``
by a method with the generated one's signature and docstring (:func:`namespace_methods`).
Loaded by mkdocs.yml's mkdocstrings ``extensions`` option.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:py:)?(?:func|class|mod|meth|attr|data|exc|obj):`~?([^`]+)`")


@functools.cache
def _evaluate_docs() -> dict[str, griffe.DocstringParameter]:
    """``irframe.evaluate``'s documented parameters, by name."""
    import irframe

    text = ROLE.sub(r"`\1`", inspect.getdoc(irframe.evaluate) or "")
    sections = griffe.Docstring(text).parse("numpy", warnings=False)  # (its own page warns)
    return {p.name: p for s in sections if s.kind is griffe.DocstringSectionKind.parameters for p in s.value}


def _runtime(func: griffe.Function) -> Any:
    try:
        return getattr(importlib.import_module(func.module.path), func.name)
    except (ImportError, AttributeError):
        return None


def _option(param: inspect.Parameter) -> griffe.Parameter:
    annotation = param.annotation if isinstance(param.annotation, str) else None
    return griffe.Parameter(
        param.name,
        annotation=annotation,
        kind=griffe.ParameterKind.keyword_only,
        default=repr(param.default),
    )


def _documented(option: griffe.Parameter) -> griffe.DocstringParameter:
    found = _evaluate_docs().get(option.name)
    return griffe.DocstringParameter(
        option.name,
        description=found.description if found else "As for `irframe.evaluate`.",
        annotation=option.annotation,
        value=option.default,
    )


def _functions(obj: griffe.Object, seen: set[str]) -> list[griffe.Function]:
    """The functions defined in ``obj`` and its members (aliases are not followed)."""
    if obj.path in seen:
        return []
    seen.add(obj.path)
    found = [obj] if isinstance(obj, griffe.Function) else []
    for member in obj.members.values():
        if not member.is_alias and member.path.startswith(obj.path + "."):
            found += _functions(member, seen)  # type: ignore[arg-type]
    return found


def expand(func: griffe.Function) -> None:
    """The run-time signature of a function marked by ``with_evaluate_options``, and one
    docstring entry per option in place of its ``**options`` entry."""
    obj = _runtime(func)
    names = getattr(obj, "__evaluate_options__", None)
    var_kw = next((p for p in func.parameters if p.kind is griffe.ParameterKind.var_keyword), None)
    if not names or var_kw is None:
        return
    static = {p.name: p for p in func.parameters}
    runtime = inspect.signature(obj).parameters.values()
    params = [static[p.name] if p.name in static else _option(p) for p in runtime]
    # the docstring is parsed while **options is still a parameter (no warning for it)
    func.parameters = griffe.Parameters(*params, var_kw)
    if func.docstring is not None:
        for section in func.docstring.parsed:
            if section.kind is not griffe.DocstringSectionKind.parameters:
                continue
            entries = []
            for entry in section.value:
                if entry.name.lstrip("*") != var_kw.name:
                    entries.append(entry)
                    continue
                named = {e.name for e in section.value}
                entries += [_documented(p) for p in params if p.name in names and p.name not in named]
            section.value = entries
    del func.parameters[var_kw.name]


_KINDS = {
    inspect.Parameter.POSITIONAL_ONLY: griffe.ParameterKind.positional_only,
    inspect.Parameter.POSITIONAL_OR_KEYWORD: griffe.ParameterKind.positional_or_keyword,
    inspect.Parameter.VAR_POSITIONAL: griffe.ParameterKind.var_positional,
    inspect.Parameter.KEYWORD_ONLY: griffe.ParameterKind.keyword_only,
    inspect.Parameter.VAR_KEYWORD: griffe.ParameterKind.var_keyword,
}


def _parameter(param: inspect.Parameter) -> griffe.Parameter:
    empty = inspect.Parameter.empty
    return griffe.Parameter(
        param.name,
        annotation=param.annotation if isinstance(param.annotation, str) else None,
        kind=_KINDS[param.kind],
        default=None if param.default is empty else repr(param.default),
    )


def namespace_methods(pkg: griffe.Module) -> None:
    """Each ``.ir`` method generated at run time, in place of its attribute in the source."""
    if "_namespaces" not in pkg.members:
        return
    module = importlib.import_module(f"{pkg.path}._namespaces")
    for class_name in ("IrNamespace", "ExprIrNamespace"):
        cls, runtime = pkg[f"_namespaces.{class_name}"], getattr(module, class_name)
        for name, member in list(cls.members.items()):
            method = getattr(runtime, name, None)
            if not isinstance(member, griffe.Attribute) or not inspect.isfunction(method):
                continue
            sig = inspect.signature(method)
            returns = sig.return_annotation
            func = griffe.Function(
                name,
                lineno=member.lineno,
                endlineno=member.endlineno,
                parameters=griffe.Parameters(*(_parameter(p) for p in sig.parameters.values())),
                returns=returns if isinstance(returns, str) else None,
            )
            text = ROLE.sub(r"`\1`", inspect.getdoc(method) or "")
            # the function's own docstring, already checked against its signature where the
            # function is documented; here it names the frame parameter the method binds
            # (``run``, ``runs``) and options the method signature spells out: not warned twice
            options = {"warn_unknown_params": False, "warn_missing_types": False}
            func.docstring = griffe.Docstring(
                text, parent=func, parser=griffe.Parser.numpy, parser_options=options
            )
            del cls.members[name]
            cls.set_member(name, func)


class ForwardedSignatures(griffe.Extension):
    """Expand ``**options`` of the functions marked by ``with_evaluate_options`` (before
    ``griffe_params.SignatureDefaults``, which then finds the signatures already right)."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        for func in _functions(pkg, set()):
            expand(func)
        namespace_methods(pkg)
