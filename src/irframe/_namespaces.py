"""The ``.ir`` namespace on polars DataFrame/LazyFrame/Expr and pandas DataFrame.

Each method is the typed function of the same name with the frame bound as its first
argument: ``df.ir.evaluate(["RR"], per_query=True)`` is ``irframe.evaluate(df, ["RR"],
per_query=True)``.  The methods are generated from the functions (:class:`_FrameMethod`),
never written twice: at run time each one gets its function's signature without the
first parameter and its docstring (``inspect.signature``, ``help()``, IPython's ``?`` and
Jupyter's Shift-Tab show them), and type checkers read the same signature through
``ParamSpec`` (``irframe.ir(df).evaluate(...)`` is checked keyword by keyword).

This module imports neither polars nor :mod:`irframe.functions` at its top: ``import
irframe`` stays light (a method's function is imported when the method is first looked
up), and the namespace is registered on each frame library the moment that library is
imported (:func:`register_frames`).
"""

from __future__ import annotations

import importlib
import inspect
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Concatenate, Generic, ParamSpec, TypeVar, overload

if TYPE_CHECKING:
    import importlib.machinery
    import types

    from typing_extensions import Self  # (typing.Self: Python 3.11)

    from irframe import _compare as _cmp
    from irframe import expr as _expr
    from irframe import functions as _fn

__all__ = ["ExprIrNamespace", "IrNamespace", "ir", "register_frames", "register_pandas"]

T = TypeVar("T")
R = TypeVar("R")
P = ParamSpec("P")


class _Ref:
    """A function named, not imported: ``module:name``, imported on first use."""

    def __init__(self, module: str, name: str) -> None:
        self.module, self.name = module, name

    def resolve(self) -> Callable[..., Any]:
        fn: Callable[..., Any] = getattr(importlib.import_module(self.module), self.name)
        return fn


class _Module:
    """At run time, ``_fn.evaluate`` is a :class:`_Ref` to ``irframe.functions:evaluate``
    (the type checkers import the module itself)."""

    def __init__(self, module: str) -> None:
        self._module = module

    def __getattr__(self, name: str) -> _Ref:
        return _Ref(self._module, name)


if not TYPE_CHECKING:
    _fn = _Module("irframe.functions")
    _cmp = _Module("irframe._compare")
    _expr = _Module("irframe.expr")


def _method_doc(fn: Callable[..., Any], call: str) -> str:
    """``fn``'s docstring, its summary line first, then how the method calls it."""
    doc = inspect.getdoc(fn) or ""
    summary, _, rest = doc.partition("\n")
    return f"{summary}\n\n{call}\n{rest}"


def _frame_method(fn: Callable[..., Any], name: str, owner: str) -> Callable[..., Any]:
    """``fn`` with the namespace's frame as its first argument, with its signature (but
    that parameter) and its docstring."""
    sig = inspect.signature(fn)
    first, *params = sig.parameters.values()

    def method(self: Any, /, *args: Any, **kwargs: Any) -> Any:
        return fn(self._frame, *args, **kwargs)

    self_param = inspect.Parameter("self", inspect.Parameter.POSITIONAL_ONLY)
    method.__signature__ = sig.replace(parameters=[self_param, *params])  # type: ignore[attr-defined]
    call = (
        f"``frame.ir.{name}(...)`` is ``irframe.{fn.__name__}(frame, ...)``: ``{first.name}`` is the frame."
    )
    method.__doc__ = _method_doc(fn, call)
    method.__name__, method.__qualname__, method.__module__ = name, f"{owner}.{name}", __name__
    return method


def _expr_method(fn: Callable[..., Any], name: str, owner: str) -> Callable[..., Any]:
    """``fn`` with ``grade=`` the namespace's expression; the signature shows the column
    keywords of :func:`irframe.expr.measures` in place of ``**kwargs`` (but ``grade``)."""
    sig = inspect.signature(fn)
    own = [p for p in sig.parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD]
    if len(own) < len(sig.parameters):
        taken = {p.name for p in own}
        columns = inspect.signature(_Ref("irframe.expr", "measures").resolve()).parameters.values()
        own += [p for p in columns if p.kind is inspect.Parameter.KEYWORD_ONLY and p.name not in taken]
    params = [p for p in own if p.name != "grade"]

    def method(self: Any, /, *args: Any, **kwargs: Any) -> Any:
        return fn(*args, grade=self._expr, **kwargs)

    self_param = inspect.Parameter("self", inspect.Parameter.POSITIONAL_ONLY)
    method.__signature__ = sig.replace(parameters=[self_param, *params])  # type: ignore[attr-defined]
    call = f"``expr.ir.{name}(...)`` is ``irframe.expr.{name}(..., grade=expr)``."
    method.__doc__ = _method_doc(fn, call)
    method.__name__, method.__qualname__, method.__module__ = name, f"{owner}.{name}", __name__
    return method


class _Forward:
    """A method generated from a function the first time it is looked up: the generated
    method then replaces this descriptor in its class (so later look-ups, ``help()``,
    IPython and ``inspect`` find a plain function)."""

    build: Callable[[Callable[..., Any], str, str], Callable[..., Any]] = staticmethod(_frame_method)

    def __init__(self, fn: Any) -> None:
        self._fn = fn
        self._name = ""
        self._owner: type = object

    def __set_name__(self, owner: type, name: str) -> None:
        self._owner, self._name = owner, name

    def _materialize(self) -> Callable[..., Any]:
        fn = self._fn.resolve() if isinstance(self._fn, _Ref) else self._fn
        method = self.build(fn, self._name, self._owner.__qualname__)
        setattr(self._owner, self._name, method)
        return method

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        method = self._materialize()
        return method if obj is None else method.__get__(obj, owner)


class _FrameMethod(_Forward, Generic[P]):
    """``frame.ir.<name>``: the function with ``frame`` bound first; returns the frame's type."""

    if TYPE_CHECKING:

        def __init__(self, fn: Callable[Concatenate[Any, P], Any]) -> None: ...
        @overload
        def __get__(self, obj: None, owner: type | None = None) -> Self: ...
        @overload
        def __get__(self, obj: IrNamespace[T], owner: type | None = None) -> Callable[P, T]: ...
        def __get__(self, obj: Any, owner: type | None = None) -> Any: ...


class _Method(_Forward, Generic[P, R]):
    """``frame.ir.<name>``: the function with ``frame`` bound first; returns what it returns."""

    if TYPE_CHECKING:

        def __init__(self, fn: Callable[Concatenate[Any, P], R]) -> None: ...
        @overload
        def __get__(self, obj: None, owner: type | None = None) -> Self: ...
        @overload
        def __get__(self, obj: object, owner: type | None = None) -> Callable[P, R]: ...
        def __get__(self, obj: Any, owner: type | None = None) -> Any: ...


class _ExprMethod(_Forward):
    """``expr.ir.<name>``: the :mod:`irframe.expr` function with ``grade=expr``."""

    build = staticmethod(_expr_method)


class IrNamespace(Generic[T]):
    """``frame.ir``: information-retrieval evaluation of a long-format run.

    Every method is the function of the same name (:func:`irframe.evaluate`,
    :func:`irframe.ndcg` ..., :func:`irframe.compare`, :func:`irframe.compare_report`,
    :func:`irframe.moved`) with the frame as its first argument, and returns what the
    function returns for it (the frame's own type).  ``irframe.ir(frame)`` is the same
    namespace for type checkers.

    Examples
    --------
    >>> import polars as pl, irframe
    >>> run = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"],
    ...                     "rank": [1, 2], "relevance": [0, 1]})
    >>> run.ir.mrr().item(0, "RR")
    0.5
    >>> import inspect
    >>> list(inspect.signature(run.ir.evaluate).parameters)[:4]
    ['measures', 'qrels', 'by', 'per_query']
    """

    evaluate = _FrameMethod(_fn.evaluate)
    ndcg = _FrameMethod(_fn.ndcg)
    precision = _FrameMethod(_fn.precision)
    recall = _FrameMethod(_fn.recall)
    mrr = _FrameMethod(_fn.mrr)
    ap = _FrameMethod(_fn.ap)
    rprec = _FrameMethod(_fn.rprec)
    bpref = _FrameMethod(_fn.bpref)
    success = _FrameMethod(_fn.success)
    judged = _FrameMethod(_fn.judged)
    compare = _FrameMethod(_cmp.compare)
    compare_report = _Method(_cmp.compare_report)
    moved = _FrameMethod(_cmp.moved)

    def __init__(self, frame: T) -> None:
        self._frame = frame

    def __repr__(self) -> str:
        kind = type(self._frame)
        return (
            f"<irframe .ir namespace of a {kind.__module__.split('.')[0]}.{kind.__name__}; "
            f"methods: {', '.join(_METHODS)}>"
        )


class ExprIrNamespace:
    """``pl.col("relevance").ir``: :mod:`irframe.expr`'s measures over this grade expression.

    Each method is the function of the same name in :mod:`irframe.expr` with
    ``grade=`` the expression (``rank=``/``score=``, ``doc=``, ``judgments=`` as there).

    Examples
    --------
    >>> import polars as pl, irframe
    >>> run = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"],
    ...                     "score": [2.0, 1.0], "relevance": [0, 1]})
    >>> run.group_by("query_id").agg(pl.col("relevance").ir.mrr(score="score")).item(0, "RR")
    0.5
    """

    measures = _ExprMethod(_expr.measures)
    ndcg = _ExprMethod(_expr.ndcg)
    precision = _ExprMethod(_expr.precision)
    recall = _ExprMethod(_expr.recall)
    mrr = _ExprMethod(_expr.mrr)
    ap = _ExprMethod(_expr.ap)
    rprec = _ExprMethod(_expr.rprec)
    bpref = _ExprMethod(_expr.bpref)
    success = _ExprMethod(_expr.success)
    judged = _ExprMethod(_expr.judged)

    def __init__(self, expr: Any) -> None:
        self._expr = expr


_METHODS = tuple(name for name, value in vars(IrNamespace).items() if isinstance(value, _Forward))


def ir(frame: T) -> IrNamespace[T]:
    """The ``.ir`` namespace of ``frame``, typed: its methods return ``frame``'s type.

    ``df.ir`` is added at run time, so type checkers do not see it (mypy and pyright
    report ``"DataFrame" has no attribute "ir"`` for a polars frame; a pandas frame
    without pandas-stubs is not checked at all); ``irframe.ir(df)`` is the same
    namespace with a type mypy --strict and pyright accept, which checks every keyword.

    Examples
    --------
    >>> import polars as pl, irframe
    >>> run = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"],
    ...                     "rank": [1, 2], "relevance": [0, 1]})
    >>> irframe.ir(run).mrr().item(0, "RR")   # a pl.DataFrame, typed as one
    0.5
    >>> irframe.ir(run)  # doctest: +ELLIPSIS
    <irframe .ir namespace of a polars.DataFrame; methods: evaluate, ndcg, ...>
    """
    return IrNamespace(frame)


_POLARS_DONE = False
_PANDAS_DONE = False


def _register_polars(pl: Any) -> None:
    """``.ir`` on polars DataFrames and LazyFrames; ``pl`` is the imported polars module."""
    global _POLARS_DONE  # noqa: PLW0603 - one registration per process
    if not _POLARS_DONE:
        pl.api.register_dataframe_namespace("ir")(IrNamespace)
        pl.api.register_lazyframe_namespace("ir")(IrNamespace)
        pl.api.register_expr_namespace("ir")(ExprIrNamespace)
        _POLARS_DONE = True


def _register_now(pd: Any) -> None:
    global _PANDAS_DONE  # noqa: PLW0603 - one registration per process
    if not _PANDAS_DONE:
        pd.api.extensions.register_dataframe_accessor("ir")(IrNamespace)
        _PANDAS_DONE = True


def _register_dask(dd: Any) -> None:
    """``.ir`` on dask DataFrames; ``dd`` is the just-executed dask.dataframe module."""
    if not hasattr(dd.DataFrame, "ir"):
        import importlib

        extensions = importlib.import_module("dask.dataframe.extensions")
        extensions.register_dataframe_accessor("ir")(IrNamespace)


class _PostImportHook:
    """Runs ``callback(module)`` the moment ``name`` is imported, so ``import irframe``
    registers ``.ir`` on polars, pandas and dask frames without importing them.

    It finds the module's real spec with the other finders and wraps its loader's
    ``exec_module``; once the module has executed, the hook removes itself and the
    callback runs. A spec that is only looked up, never loaded (polars probes for
    pandas with ``importlib.util.find_spec``), leaves the hook in place. (A duck-typed
    finder: importing importlib.abc costs ~60 ms.)
    """

    def __init__(self, name: str, callback: Callable[[types.ModuleType], None]) -> None:
        self.name = name
        self.callback = callback
        self._finding = False

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: types.ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != self.name or self._finding:
            return None
        import importlib.util

        self._finding = True  # the other finders' answer, not ours again
        try:
            spec = importlib.util.find_spec(fullname)
        finally:
            self._finding = False
        if spec is None or spec.loader is None or isinstance(spec.loader, type):
            return spec  # nothing to load, or a loader class shared by many modules
        loader = spec.loader
        exec_module = loader.exec_module

        def _exec_then_register(module: types.ModuleType) -> None:
            exec_module(module)
            if self in sys.meta_path:
                sys.meta_path.remove(self)
            self.callback(module)

        loader.exec_module = _exec_then_register  # type: ignore[method-assign]
        return spec


def _on_import(name: str, callback: Callable[[Any], None]) -> None:
    """``callback(module)`` now if ``name`` is imported, else when it gets imported."""
    module = sys.modules.get(name)
    if module is not None:
        callback(module)
    elif not any(isinstance(f, _PostImportHook) and f.name == name for f in sys.meta_path):
        sys.meta_path.insert(0, _PostImportHook(name, callback))


def register_frames() -> None:
    """Make ``.ir`` available on polars, pandas and dask frames, without importing them.

    Each library already imported gets the namespace at once; the others get it when
    they are imported (``import irframe`` then ``import polars`` works like the
    other order).
    """
    _on_import("polars", _register_polars)
    register_pandas()


def register_pandas() -> None:
    """Make ``.ir`` available on pandas (and dask) DataFrames, without importing them.

    If the library is already imported the accessor is registered at once; otherwise
    it is registered when it gets imported (both are optional and heavy to import).
    """
    _on_import("pandas", _register_now)
    _on_import("dask.dataframe", _register_dask)
