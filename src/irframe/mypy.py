"""A mypy plugin that types ``df.ir``: enable it in the project that uses irframe.

``import irframe`` adds ``.ir`` to polars' ``DataFrame``, ``LazyFrame`` and ``Expr`` and to
pandas' ``DataFrame`` at run time, which type checkers cannot see: mypy reports
``"DataFrame" has no attribute "ir"``.  With this plugin, mypy knows the attribute and its
type: ``df.ir`` is ``IrNamespace[pl.DataFrame]`` (each method returns the frame's own type
and checks every keyword, as :func:`irframe.ir` does), ``pl.col("g").ir`` is
``ExprIrNamespace``::

    # pyproject.toml
    [tool.mypy]
    plugins = ["irframe.mypy"]

(pandas frames are typed when pandas-stubs is installed; without it mypy does not check
pandas at all.)  Pyright and other checkers have no plugins: there, ``irframe.ir(df)`` is
the typed spelling of ``df.ir`` (polars offers no typing hook for registered namespaces yet:
pola-rs/polars#27795).

The plugin adds an ``ir`` attribute to those classes while mypy reads them, and gives it
its type when mypy checks an access (when irframe's own module is in the build, which the
plugin ensures; else ``Any``).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from mypy.nodes import MDEF, MypyFile, SymbolTableNode, Var
from mypy.plugin import AttributeContext, ClassDefContext, Plugin
from mypy.types import AnyType, Type, TypeOfAny

__all__ = ["IrPlugin", "plugin"]

_NAMESPACES = "irframe._namespaces"
_FRAME = f"{_NAMESPACES}.IrNamespace"
_EXPR = f"{_NAMESPACES}.ExprIrNamespace"
# the classes that get .ir (their full names where mypy reads them) -> the namespace's type
OWNERS = {
    "polars.dataframe.frame.DataFrame": _FRAME,
    "polars.lazyframe.frame.LazyFrame": _FRAME,
    "polars.expr.expr.Expr": _EXPR,
    "pandas.core.frame.DataFrame": _FRAME,
}
_MODULES = {name.rsplit(".", 1)[0] for name in OWNERS}


def _add_ir(ctx: ClassDefContext) -> None:
    """While mypy reads the class: an ``ir`` attribute (typed on access, :func:`_ir_type`)."""
    info = ctx.cls.info
    if "ir" in info.names:
        return
    var = Var("ir", AnyType(TypeOfAny.special_form))
    var.info = info
    var._fullname = f"{info.fullname}.ir"
    info.names["ir"] = SymbolTableNode(MDEF, var, plugin_generated=True)


def _ir_type(namespace: str, ctx: AttributeContext) -> Type:
    """``frame.ir``'s type: ``IrNamespace[<the frame's type>]`` or ``ExprIrNamespace``."""
    args: list[Type] = [] if namespace == _EXPR else [ctx.type]
    try:
        return ctx.api.named_generic_type(namespace, args)
    except (KeyError, AssertionError):  # irframe is not in this build: no type to give
        return ctx.default_attr_type


class IrPlugin(Plugin):
    """The hooks: add ``ir`` to the frame classes, type it on access, read irframe's namespaces."""

    def get_customize_class_mro_hook(self, fullname: str) -> Callable[[ClassDefContext], None] | None:
        return _add_ir if fullname in OWNERS else None

    def get_attribute_hook(self, fullname: str) -> Callable[[AttributeContext], Type] | None:
        owner, _, name = fullname.rpartition(".")
        return partial(_ir_type, OWNERS[owner]) if name == "ir" and owner in OWNERS else None

    def get_additional_deps(self, file: MypyFile) -> list[tuple[int, str, int]]:
        return [(10, _NAMESPACES, -1)] if file.fullname in _MODULES else []


def plugin(version: str) -> type[Plugin]:
    """mypy's entry point (``plugins = ["irframe.mypy"]``)."""
    return IrPlugin
