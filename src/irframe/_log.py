"""irframe's loggers: ``logging.getLogger("irframe")`` and a child per area.

What was done is recorded at INFO (sizes, the executor, buckets, the paths read, the rows
and queries a documented rule left out) and DEBUG (timings, each bucket or stage);
nothing at WARNING unless it is a warning.  The library adds a ``NullHandler`` to the
``irframe`` logger only; to see the records, configure logging, e.g.
``logging.basicConfig(level=logging.INFO)`` or
``logging.getLogger("irframe").setLevel(logging.DEBUG)`` with a handler.

=====================  ====================================================================
logger                 records
=====================  ====================================================================
``irframe.engine``     an in-process evaluation: rows, measures, executor, buckets; the
                       queries left out (missing, unjudged), rows cut (``depth``),
                       duplicates dropped (``duplicates="first"``)
``irframe.backends``   Dask, Spark and out-of-core evaluations: each stage; out of core
                       the paths read, the size estimate, the buckets and their rows
``irframe.compare``    the systems, queries and comparisons of ``compare``
``irframe.check``      ``check`` and ``snapshot``: the inputs, the verdict, the file written
=====================  ====================================================================

Messages that cost something to build are guarded by ``logger.isEnabledFor`` (a small
evaluation pays nothing for its logging).

Examples
--------
>>> import logging
>>> engine.name, engine.parent is logging.getLogger("irframe")
('irframe.engine', True)
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["DEBUG", "INFO", "backends", "check", "compare", "engine", "root", "timed"]

DEBUG, INFO = logging.DEBUG, logging.INFO

root = logging.getLogger("irframe")
root.addHandler(logging.NullHandler())
engine = logging.getLogger("irframe.engine")
backends = logging.getLogger("irframe.backends")
compare = logging.getLogger("irframe.compare")
check = logging.getLogger("irframe.check")


@contextmanager
def timed(logger: logging.Logger, what: str) -> Iterator[None]:
    """Log ``what`` and the seconds the block took, at DEBUG (only when DEBUG is enabled).

    Examples
    --------
    >>> with timed(engine, "nothing"):
    ...     pass
    """
    if not logger.isEnabledFor(DEBUG):
        yield
        return
    start = time.perf_counter()
    try:
        yield
    finally:
        logger.debug("%s: %.3f s", what, time.perf_counter() - start)
