"""Parameter checks shared by :mod:`irframe.stats` and :mod:`irframe.compare` (no numpy import).

Messages follow scikit-learn's shape: "The 'seed' parameter of compare must be ... Got ... instead."
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable, Mapping
from functools import lru_cache
from numbers import Integral, Real
from typing import Any, TypeVar

from irframe.exceptions import InvalidParameterError

__all__ = [
    "MAX_RESAMPLES",
    "check_level",
    "check_resamples",
    "check_seed",
    "keywords_of",
    "shows_keywords_of",
    "with_defaults",
]

FnT = TypeVar("FnT", bound=Callable[..., Any])

#: Largest ``n_permutations`` / ``n_bootstrap`` accepted. 1e6 resamples take about a second
#: and 8 MB per comparison on 50 queries; 1e8 took 1.6 GB and minutes.
MAX_RESAMPLES = 1_000_000


def check_resamples(value: object, name: str, where: str) -> int:
    """A resample count in ``[1, MAX_RESAMPLES]``.

    Examples
    --------
    >>> check_resamples(10_000, "n_bootstrap", "compare")
    10000
    >>> check_resamples(10**8, "n_bootstrap", "compare")
    Traceback (most recent call last):
    ...
    irframe.exceptions.InvalidParameterError: The 'n_bootstrap' parameter of compare must be ...
    """
    if isinstance(value, bool) or not isinstance(value, Integral) or value < 1:
        err = InvalidParameterError.for_value(name, where, "an int in the range [1, inf)", value)
        raise err
    count = int(value)
    if count > MAX_RESAMPLES:
        msg = (
            f"The {name!r} parameter of {where} must be an int in the range [1, {MAX_RESAMPLES:_}]. "
            f"Got {count:_} instead: that many resamples would take minutes and gigabytes per "
            f"comparison, and a resolution finer than 1/{MAX_RESAMPLES:_} changes no decision. "
            f"Hint: keep the default {name}=10_000, or raise it up to {MAX_RESAMPLES:_}."
        )
        raise InvalidParameterError(msg)
    return count


def check_seed(seed: object, where: str) -> object:
    """A seed numpy accepts: an int >= 0, None or a ``numpy.random.Generator`` (bool refused).

    Examples
    --------
    >>> check_seed(7, "compare")
    7
    >>> check_seed(-1, "compare")
    Traceback (most recent call last):
    ...
    irframe.exceptions.InvalidParameterError: The 'seed' parameter of compare must be ... Got -1 instead.
    """
    if seed is None:
        return None
    np = sys.modules.get("numpy")  # a Generator exists only if numpy was imported
    if np is not None and isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, bool) or not isinstance(seed, Integral) or seed < 0:
        err = InvalidParameterError.for_value(
            "seed", where, "an int in the range [0, inf), None or a numpy Generator", seed
        )
        raise err
    return int(seed)


def check_level(value: object, name: str, where: str) -> float:
    """A level (``ci``, ``alpha``) in the open interval (0, 1).

    Examples
    --------
    >>> check_level(0.95, "ci", "compare")
    0.95
    """
    if isinstance(value, bool) or not isinstance(value, Real) or not 0 < value < 1:  # type: ignore[operator]
        err = InvalidParameterError.for_value(name, where, "a float in the open interval (0, 1)", value)
        raise err
    return float(value)


# --- one keyword list for a family of functions ----------------------------------------------------
# A public function whose keyword-only parameters are written once (names, defaults,
# annotations, docs) and a sibling taking the same options as ``**options`` (a report of
# it, a richer result of it) share that one list: the sibling fills its defaults from it.


@lru_cache(maxsize=64)
def _keyword_only(fn: Callable[..., Any]) -> tuple[inspect.Parameter, ...]:
    return tuple(p for p in inspect.signature(fn).parameters.values() if p.kind is p.KEYWORD_ONLY)


def keywords_of(fn: Callable[..., Any], values: Mapping[str, Any]) -> dict[str, Any]:
    """``fn``'s keyword-only options taken from ``values`` (``locals()`` in ``fn``'s body;
    the options a decorator shows in place of its ``**kwargs`` are not among them).

    Examples
    --------
    >>> def f(x, *, a=1, b=2):
    ...     return keywords_of(f, locals())
    >>> f(0, b=3)
    {'a': 1, 'b': 3}
    """
    return {p.name: values[p.name] for p in _keyword_only(fn) if p.name in values}


def with_defaults(fn: Callable[..., Any], given: Mapping[str, Any]) -> dict[str, Any]:
    """``fn``'s keyword-only options: ``given``, and ``fn``'s defaults for the rest; a name
    ``fn`` does not take is a ``TypeError``, as Python says it.

    Examples
    --------
    >>> def f(x, *, a=1, b=2): ...
    >>> with_defaults(f, {"b": 3})
    {'a': 1, 'b': 3}
    >>> with_defaults(f, {"c": 3})
    Traceback (most recent call last):
    ...
    TypeError: f() got an unexpected keyword argument 'c'
    """
    params = _keyword_only(fn)
    names = {p.name for p in params}
    for name in given:
        if name not in names:
            msg = f"{fn.__name__}() got an unexpected keyword argument {name!r}"
            raise TypeError(msg)
    return {p.name: given.get(p.name, p.default) for p in params}


def shows_keywords_of(source: Callable[..., Any]) -> Callable[[FnT], FnT]:
    """Show ``source``'s keyword-only options in place of the decorated function's
    ``**options`` (``inspect.signature``, ``help``, the docs); its own parameters and return
    annotation stay.

    Examples
    --------
    >>> def f(x, *, a=1, b=2) -> int: ...
    >>> @shows_keywords_of(f)
    ... def g(x, y=0, **options) -> str: ...
    >>> str(inspect.signature(g))
    "(x, y=0, *, a=1, b=2) -> 'str'"
    """

    def decorate(fn: FnT) -> FnT:
        own = inspect.signature(fn)
        head = [p for p in own.parameters.values() if p.kind is not p.VAR_KEYWORD]
        fn.__signature__ = own.replace(parameters=[*head, *_keyword_only(source)])  # type: ignore[attr-defined]
        return fn

    return decorate
