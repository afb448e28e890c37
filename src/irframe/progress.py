"""Progress of long work: ``progress=None | True | False | callable`` on the slow entry points.

``True`` shows a bar: tqdm's when tqdm is installed (``tqdm.auto``: a widget in a
notebook, text in a terminal), else one line on stderr rewritten in place.  A callable is
called as ``fn(done, total, info)`` after each step (``info`` says what was done, e.g.
``"bucket 3/8: 120,000 rows"`` or ``"dense nDCG@10"``); ``total`` may grow during the
work, once a step finds out how many steps follow (the buckets of a run, say).  ``False``
reports nothing.

``None``, the default, is automatic: a bar where someone watches (stderr is a terminal,
or a Jupyter kernel when tqdm can draw its widget: tqdm and ipywidgets installed) and only
for work that is large (more than :data:`AUTO_ROWS` rows in memory; every out-of-core,
Dask or Spark evaluation; a comparison; a check) and lasts (the bar appears after
:data:`AUTO_DELAY` seconds).  Elsewhere (a pipe, a log file, CI) nothing.

Examples
--------
>>> seen = []
>>> with reporter(lambda done, total, info: seen.append((done, total, info)), 2, "work") as step:
...     step("first")
...     step.expect(1)   # one more step than announced
...     step("second")
...     step("third")
>>> seen
[(1, 2, 'first'), (2, 3, 'second'), (3, 3, 'third')]
"""

from __future__ import annotations

import importlib.util
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TextIO

from irframe.exceptions import InvalidParameterError

__all__ = ["AUTO_DELAY", "AUTO_ROWS", "Progress", "Steps", "auto", "check_progress", "reporter", "wanted"]

Progress = bool | Callable[[int, int, str], object] | None
# progress=None reports an in-memory evaluation of more run rows than this (about a second
# of work: benchmarks/results/decisions.md, progress-auto-rows)
AUTO_ROWS = 1_000_000
# progress=None: a bar appears only once the work has lasted this long (seconds)
AUTO_DELAY = 1.0


def check_progress(progress: object, where: str) -> Progress:
    """``progress`` as given, or an InvalidParameterError naming the parameter."""
    if progress is None or isinstance(progress, bool) or callable(progress):
        return progress
    expected = "None, True, False or a callable(done, total, info)"
    raise InvalidParameterError.for_value("progress", where, expected, progress)


def _in_notebook() -> bool:
    """A Jupyter kernel (ipykernel imported, its shell running)."""
    shell = getattr(sys.modules.get("IPython"), "get_ipython", lambda: None)()
    return type(shell).__name__ == "ZMQInteractiveShell"


def auto(stream: Any = None) -> bool:
    """Whether ``progress=None`` shows a bar here: ``stream`` (stderr) is a terminal, or
    this is a notebook whose tqdm draws a widget (tqdm and ipywidgets installed).

    Examples
    --------
    >>> import io
    >>> auto(io.StringIO())   # a pipe, a file, a captured stream: no bar
    False
    """
    stream = sys.stderr if stream is None else stream
    isatty = getattr(stream, "isatty", None)
    try:
        if isatty is not None and isatty():
            return True
    except ValueError:  # (a closed stream)
        return False
    if "ipykernel" not in sys.modules or not _in_notebook():
        return False
    return importlib.util.find_spec("tqdm") is not None and importlib.util.find_spec("ipywidgets") is not None


def wanted(progress: Progress, *, large: bool = True) -> bool:
    """Whether ``progress`` reports anything for work that is ``large`` (or not): always
    for True or a callable, never for False; for None when ``large`` and :func:`auto`."""
    if progress is None:
        return large and auto()
    return bool(progress)


class Steps:
    """The step function :func:`reporter` yields: ``step(info)`` after each step,
    ``step.expect(n)`` when ``n`` more steps than announced are to come."""

    def __init__(self, total: int, on_step: Callable[[int, int, str], object] | None = None) -> None:
        self.done, self.total = 0, total
        self._on_step = on_step

    def __call__(self, info: str) -> None:
        self.done += 1
        self.total = max(self.total, self.done)
        if self._on_step is not None:
            self._on_step(self.done, self.total, info)

    def expect(self, n: int) -> None:
        """``n`` steps more than announced (negative: fewer)."""
        self.total = max(self.done, self.total + n)

    @property
    def active(self) -> bool:
        """Whether anything is reported (callers skip work done only to describe a step)."""
        return self._on_step is not None


def _line(desc: str, out: TextIO, delay: float) -> tuple[Callable[[int, int, str], None], Callable[[], None]]:
    """One stderr line rewritten in place: ``desc: done/total info``, once ``delay`` is over."""
    state = {"width": 0, "start": time.monotonic(), "shown": 0}

    def show(done: int, total: int, info: str) -> None:
        if not state["shown"] and time.monotonic() - state["start"] < delay:
            return
        state["shown"] = 1
        text = f"{desc}: {done}/{total} {info}".rstrip()
        pad = max(0, int(state["width"]) - len(text))
        state["width"] = len(text)
        out.write("\r" + text + " " * pad)
        out.flush()

    def close() -> None:
        if state["shown"]:
            out.write("\n")
            out.flush()

    return show, close


def _tqdm(total: int, desc: str, delay: float) -> tuple[Callable[[int, int, str], None], Callable[[], None]]:
    from tqdm.auto import tqdm

    # asked for (no delay): every step drawn, as the stderr line does; automatic: tqdm's pace
    bar: Any = tqdm(total=total, desc=desc, leave=False, delay=delay, **({} if delay else {"mininterval": 0}))

    def show(done: int, total: int, info: str) -> None:
        bar.total = total  # (it may have grown: no refresh, which would show it before the delay)
        bar.set_postfix_str(info, refresh=False)
        bar.update(done - bar.n)

    return show, bar.close


@contextmanager
def reporter(progress: Progress, total: int, desc: str, *, large: bool = True) -> Iterator[Steps]:
    """A :class:`Steps` reporting ``total`` steps (or more: ``expect``) as ``progress``
    asks, for work that is ``large`` or not (see :func:`wanted`)."""
    if not wanted(progress, large=large):
        yield Steps(total)
        return
    if callable(progress) and not isinstance(progress, bool):
        yield Steps(total, progress)
        return
    delay = AUTO_DELAY if progress is None else 0.0
    if importlib.util.find_spec("tqdm") is not None:
        show, close = _tqdm(total, desc, delay)
    else:
        show, close = _line(desc, sys.stderr, delay)
    try:
        yield Steps(total, show)
    finally:
        close()
