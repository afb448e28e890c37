r"""Defaults that other tools read differently for the same name, said where the number is read.

irframe's ``nDCG@10`` uses the gain ``2^rel - 1`` (the project's definition, Burges et
al.'s, ranx's ``ndcg_burges``); trec_eval's ``ndcg_cut_10``, ir_measures' ``nDCG@10``
(BEIR's tables) and ranx's ``ndcg@10`` use the linear gain.  The same string then gives
two numbers (0.5037 and 0.4946 on one run): a reader must learn which one this is.

The form, decided once:

* **Python**: a :class:`~irframe.exceptions.ConventionWarning` (a ``UserWarning``) when
  the number is computed (the engine's entry, every backend; the tie-aware path; the
  polars expressions), **once per process per measure** (``nDCG@10`` and ``nDCG@5`` warn
  once each, the tenth ``evaluate`` of ``nDCG@10`` says nothing): a frame cannot carry a
  note (pandas and polars print none), and a warning reaches scripts, notebooks and logs
  without a flood.  Spelling the convention out (``nDCG(gain=linear)@10``, ``ndcg_cut_10``)
  gives no warning: the label then says it.
* **Reports and the CLI**: the same sentence as a note (the comparison report, the check
  report, ``irframe eval``'s table); the CLI prints the notes and so raises no warning
  (:func:`shown_as_notes`).

Only the families whose default a peer reads differently under the same name are listed
(the registry's ``peers`` notes): nDCG and DCG (gain), RBP (ir_measures' ``RBP`` is the
raw grades, trec_eval's ``rbp`` is ``p = 0.9``).

Examples
--------
>>> from irframe.measures import parse_measure
>>> print(convention_note(parse_measure("nDCG@10")))  # doctest: +NORMALIZE_WHITESPACE
nDCG@10 uses the gain 2^rel - 1 (irframe's default); trec_eval's ndcg_cut_10, ir_measures' nDCG@10 and
ranx's ndcg@10 use the linear gain (rel): nDCG(gain=linear)@10 gives their numbers.
>>> convention_note(parse_measure("ndcg_cut_10")) is None  # nDCG(gain=linear)@10: said in its name
True
"""

from __future__ import annotations

import contextlib
import os
import sys
import warnings
from collections.abc import Callable, Iterable, Iterator
from contextvars import ContextVar

from irframe.exceptions import ConventionWarning
from irframe.measures._base import Measure

__all__ = ["convention_note", "convention_notes", "shown_as_notes", "stacklevel", "warn_conventions"]

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the irframe package
_SEEN: set[str] = set()  # the measures warned about in this process
_SILENCE = (
    " (Said once per measure and process; to silence it: warnings.filterwarnings('ignore', "
    "category=irframe.exceptions.ConventionWarning).)"
)
_QUIET: ContextVar[bool] = ContextVar("irframe_conventions_quiet", default=False)


def _with(m: Measure, **params: object) -> str:
    return str(Measure(m.family, m.cutoff, **{**m.params, **params}))


def _ndcg(m: Measure) -> str | None:
    if m.params.get("gain") != "exp":
        return None
    k = m.cutoff
    at = "" if k is None else f"@{k}"
    trec = "ndcg" if k is None else f"ndcg_cut_{k}"
    return (
        f"{m} uses the gain 2^rel - 1 (irframe's default); trec_eval's {trec}, ir_measures' nDCG{at} "
        f"and ranx's ndcg{at} use the linear gain (rel): {_with(m, gain='linear')} gives their numbers."
    )


def _dcg(m: Measure) -> str | None:
    if m.params.get("gain") != "exp":
        return None
    return (
        f"{m} uses the gain 2^rel - 1 (irframe's default); trec_eval's dcg and ranx's dcg use the "
        f"linear gain (rel): {_with(m, gain='linear')} gives their numbers."
    )


def _rbp(m: Measure) -> str | None:
    if m.params.get("gain") != "scaled" or m.params.get("rel") is not None or m.params.get("residual"):
        return None  # (a residual has no ir_measures counterpart: nothing to tell apart)
    p = m.params.get("p")
    trec = " (trec_eval's rbp is RBP(p=0.9))" if p != 0.9 else " (as trec_eval's rbp)"
    return (
        f"{m} scales each grade by the query's highest judged grade{trec}; ir_measures' RBP uses "
        f"the raw grades: {_with(m, gain='linear')} gives its numbers."
    )


_NOTES: dict[str, Callable[[Measure], str | None]] = {"nDCG": _ndcg, "DCG": _dcg, "RBP": _rbp}


def convention_note(measure: Measure) -> str | None:
    """The sentence saying how ``measure`` differs from a peer's reading of its name, or None.

    Examples
    --------
    >>> from irframe.measures import parse_measure
    >>> print(convention_note(parse_measure("RBP")))  # doctest: +NORMALIZE_WHITESPACE
    RBP scales each grade by the query's highest judged grade (trec_eval's rbp is RBP(p=0.9));
    ir_measures' RBP uses the raw grades: RBP(gain=linear) gives its numbers.
    >>> convention_note(parse_measure("RR")) is None
    True
    """
    note = _NOTES.get(measure.family)
    return None if note is None else note(measure)


def convention_notes(measures: Iterable[str | Measure]) -> list[str]:
    """The notes of ``measures`` (labels or measures), in order, without repeats.

    Examples
    --------
    >>> [n.split(" uses ")[0] for n in convention_notes(["nDCG@10", "RR", "nDCG@10", "DCG@5"])]
    ['nDCG@10', 'DCG@5']
    """
    from irframe.measures import parse_measure

    notes = (convention_note(m if isinstance(m, Measure) else parse_measure(m)) for m in measures)
    return list(dict.fromkeys(n for n in notes if n is not None))


def stacklevel() -> int:
    """The level of the first frame outside irframe (the caller's line, not the engine's)."""
    frame, level = sys._getframe(1), 1  # (warn_conventions: level 1)
    while frame.f_back is not None and frame.f_code.co_filename.startswith(_ROOT):
        frame, level = frame.f_back, level + 1
    return level


def warn_conventions(measures: Iterable[Measure]) -> None:
    """A :class:`~irframe.exceptions.ConventionWarning` for each of ``measures`` with a note,
    once per process per measure (none inside :func:`shown_as_notes`).

    Examples
    --------
    >>> import warnings
    >>> from irframe.measures import parse_measure
    >>> with warnings.catch_warnings(record=True) as seen:
    ...     warnings.simplefilter("always")
    ...     for _ in range(3):
    ...         warn_conventions([parse_measure("DCG(judged_only=True)@93")])  # a first use
    >>> len(seen), seen[0].category.__name__
    (1, 'ConventionWarning')
    """
    if _QUIET.get():
        return
    for m in measures:
        key = str(m)
        if key in _SEEN:
            continue
        note = convention_note(m)
        if note is not None:
            warnings.warn(note + _SILENCE, ConventionWarning, stacklevel=stacklevel())
        _SEEN.add(key)


@contextlib.contextmanager
def shown_as_notes() -> Iterator[None]:
    """Within it, no :class:`~irframe.exceptions.ConventionWarning`: the caller prints the
    notes itself (the CLI), and a later call outside still warns.

    Examples
    --------
    >>> import warnings
    >>> from irframe.measures import parse_measure
    >>> with warnings.catch_warnings(record=True) as seen, shown_as_notes():
    ...     warnings.simplefilter("always")
    ...     warn_conventions([parse_measure("DCG(judged_only=True)@4")])
    >>> seen
    []
    """
    token = _QUIET.set(True)
    try:
        yield
    finally:
        _QUIET.reset(token)
