"""The random draws of :mod:`irframe.stats`, made once and shared where that changes no number.

A Monte-Carlo test with an integer seed starts a fresh ``numpy.random.default_rng(seed)``:
its random sign vectors (randomization test) and its bootstrap indices depend only on the
seed and their shape (resamples x queries), not on the deltas.  Inside
:func:`reusing_draws` (``irframe.compare`` runs every comparison inside it) each shape is
drawn once and reused by every test that asks for it, read-only: the p-values and
intervals are the very numbers each test would get alone (the same arrays, the same
arithmetic).  Outside it, and for a seed that is ``None`` or a ``Generator`` (whose state
must advance), every test draws its own, in chunks, as it always has.

The table of all ``2**m`` sign vectors of the exact randomization test is built once per
``m`` (up to 16: at most 8 MiB each) and kept.

Examples
--------
>>> import numpy as np
>>> with reusing_draws():
...     a = sign_chunks(0, lambda: np.random.default_rng(0), 1000, 30)
...     b = sign_chunks(0, lambda: np.random.default_rng(0), 1000, 30)
>>> a[0] is b[0], np.array_equal(a[0], list(sign_chunks(0, lambda: np.random.default_rng(0), 1000, 30))[0])
(True, True)
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache
from typing import Any, cast

import numpy as np
import numpy.typing as npt

__all__ = ["CHUNK_ELEMENTS", "exact_signs", "index_chunks", "reusing_draws", "sign_chunks"]

# Elements per chunk of resampling matrices (chunk rows x n queries).
CHUNK_ELEMENTS = 2_000_000
_BUDGET = 256 * 2**20  # bytes of draws kept inside one reusing_draws() block

Chunks = Iterable[npt.NDArray[Any]]


class _Draws:
    """Draws by key, least recently used first out beyond the byte budget; thread-safe."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self._items: OrderedDict[tuple[Any, ...], tuple[npt.NDArray[Any], ...]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get(
        self, key: tuple[Any, ...], draw: Callable[[], Iterator[npt.NDArray[Any]]]
    ) -> tuple[npt.NDArray[Any], ...]:
        with self._lock:
            hit = self._items.get(key)
            if hit is not None:
                self._items.move_to_end(key)
                return hit
        value = tuple(draw())
        for a in value:
            a.flags.writeable = False
        size = sum(a.nbytes for a in value)
        with self._lock:
            if key not in self._items and size <= self.budget:
                self._items[key] = value
                self._bytes += size
                while self._bytes > self.budget:
                    _, old = self._items.popitem(last=False)
                    self._bytes -= sum(a.nbytes for a in old)
        return value


_SHARED: ContextVar[_Draws | None] = ContextVar("irframe_shared_draws", default=None)


@contextmanager
def reusing_draws(budget: int = _BUDGET) -> Iterator[None]:
    """Within the block, Monte-Carlo draws of one shape and one integer seed are made once."""
    token = _SHARED.set(_Draws(budget))
    try:
        yield
    finally:
        _SHARED.reset(token)


def _shared(seed: object, size: int) -> _Draws | None:
    """The block's draws, when ``seed`` is an integer and the draws fit its budget."""
    draws = _SHARED.get()
    if draws is None or isinstance(seed, bool) or not isinstance(seed, int | np.integer):
        return None
    return draws if size <= draws.budget else None


def _signs(rng: np.random.Generator, n: int, m: int) -> Iterator[npt.NDArray[np.int8]]:
    rows = max(1, CHUNK_ELEMENTS // m)
    done = 0
    while done < n:
        c = min(rows, n - done)
        yield rng.integers(0, 2, size=(c, m), dtype=np.int8) * np.int8(2) - np.int8(1)
        done += c


def sign_chunks(seed: object, rng: Callable[[], np.random.Generator], n: int, m: int) -> Chunks:
    """``n`` random sign vectors (rows of +1/-1) over ``m`` deltas, in chunks, as the
    generator ``rng()`` draws them; shared inside :func:`reusing_draws` (integer seeds, as
    float64 rows)."""
    shared = _shared(seed, n * m * 8)
    if shared is None:
        return _signs(rng(), n, m)
    # kept as float64: the product with the deltas then casts nothing (the same numbers)
    floats = lambda: (s.astype(np.float64) for s in _signs(rng(), n, m))  # noqa: E731
    return shared.get(("signs", int(cast("int", seed)), n, m), floats)


def _indices(rng: np.random.Generator, n_boot: int, n: int) -> Iterator[npt.NDArray[np.int64]]:
    rows = max(1, CHUNK_ELEMENTS // n)
    done = 0
    while done < n_boot:
        c = min(rows, n_boot - done)
        yield rng.integers(0, n, size=(c, n))
        done += c


def index_chunks(seed: object, rng: Callable[[], np.random.Generator], n_boot: int, n: int) -> Chunks:
    """``n_boot`` bootstrap resamples of ``n`` queries (rows of indices), in chunks, as the
    generator ``rng()`` draws them; shared inside :func:`reusing_draws` (integer seeds)."""
    shared = _shared(seed, n_boot * n * 8)
    if shared is None:
        return _indices(rng(), n_boot, n)
    return shared.get(("indices", int(cast("int", seed)), n_boot, n), lambda: _indices(rng(), n_boot, n))


@lru_cache(maxsize=17)
def _exact_table(m: int) -> npt.NDArray[np.float64]:
    bits = (np.arange(2**m, dtype=np.int64)[:, None] >> np.arange(m, dtype=np.int64)) & 1
    table = (1 - 2 * bits).astype(np.float64)
    table.flags.writeable = False
    return table


def exact_signs(m: int, keep: int = 16) -> npt.NDArray[np.float64]:
    """All ``2**m`` sign vectors as rows of +1.0/-1.0 (the first row all +1), read-only;
    kept for ``m <= keep``."""
    if m <= keep:
        return _exact_table(m)
    bits = (np.arange(2**m, dtype=np.int64)[:, None] >> np.arange(m, dtype=np.int64)) & 1
    return cast("npt.NDArray[np.float64]", (1 - 2 * bits).astype(np.float64))
