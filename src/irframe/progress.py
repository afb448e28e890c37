"""Progress of long work: ``progress=True | False | callable`` on the slow entry points.

``True`` shows a bar: tqdm's when tqdm is installed (``tqdm.auto``: a widget in a
notebook, text in a terminal), else one line on stderr rewritten in place.  A callable is
called as ``fn(done, total, info)`` after each step (``info`` says what was done, e.g.
``"bucket 3/8"`` or ``"dense nDCG@10"``).  ``False`` (the default) reports nothing.

Examples
--------
>>> seen = []
>>> with reporter(lambda done, total, info: seen.append((done, total, info)), 2, "work") as step:
...     step("first")
...     step("second")
>>> seen
[(1, 2, 'first'), (2, 2, 'second')]
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TextIO

from irframe.exceptions import InvalidParameterError

__all__ = ["Progress", "check_progress", "reporter"]

Progress = bool | Callable[[int, int, str], object] | None
Step = Callable[[str], None]


def check_progress(progress: object, where: str) -> Progress:
    """``progress`` as given, or an InvalidParameterError naming the parameter."""
    if progress is None or isinstance(progress, bool) or callable(progress):
        return progress
    expected = "True, False or a callable(done, total, info)"
    raise InvalidParameterError.for_value("progress", where, expected, progress)


def _line(total: int, desc: str, out: TextIO) -> tuple[Step, Callable[[], None]]:
    """One stderr line rewritten in place: ``desc: done/total info``."""
    state = {"done": 0, "width": 0}

    def step(info: str) -> None:
        state["done"] += 1
        text = f"{desc}: {state['done']}/{total} {info}".rstrip()
        pad = max(0, state["width"] - len(text))
        state["width"] = len(text)
        out.write("\r" + text + " " * pad)
        out.flush()

    def close() -> None:
        if state["done"]:
            out.write("\n")
            out.flush()

    return step, close


def _tqdm(total: int, desc: str) -> tuple[Step, Callable[[], None]]:
    from tqdm.auto import tqdm

    bar: Any = tqdm(total=total, desc=desc, leave=False)

    def step(info: str) -> None:
        bar.set_postfix_str(info, refresh=False)
        bar.update(1)

    return step, bar.close


@contextmanager
def reporter(progress: Progress, total: int, desc: str) -> Iterator[Step]:
    """A ``step(info)`` function reporting ``total`` steps as ``progress`` asks."""
    if not progress:
        yield lambda info: None
        return
    if callable(progress) and not isinstance(progress, bool):
        fn = progress
        done = [0]

        def call(info: str) -> None:
            done[0] += 1
            fn(done[0], total, info)

        yield call
        return
    if importlib.util.find_spec("tqdm") is not None:
        step, close = _tqdm(total, desc)
    else:
        step, close = _line(total, desc, sys.stderr)
    try:
        yield step
    finally:
        close()
