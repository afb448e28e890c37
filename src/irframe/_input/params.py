"""Parameter checks shared by :mod:`irframe.stats` and :mod:`irframe.compare` (no numpy import).

Messages follow scikit-learn's shape: "The 'seed' parameter of compare must be ... Got ... instead."
"""

from __future__ import annotations

import sys
from numbers import Integral, Real

from irframe.exceptions import InvalidParameterError

__all__ = ["MAX_RESAMPLES", "check_level", "check_resamples", "check_seed"]

#: Largest ``n_permutations`` / ``n_bootstrap`` accepted: about a second per comparison on
#: 50 queries; 100 times more took gigabytes and minutes (benchmarks/results/decisions.md, max-resamples).
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
