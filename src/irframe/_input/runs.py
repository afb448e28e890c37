"""Several runs (or logs) as one stack: THE boundary of every verb that takes several systems.

A verb over several runs (compare, check, pool, the holes, agreement, fusion, and any new
verb over runs, logs or answer tables) calls :func:`stack_runs` once and works on its value:

>>> import polars as pl
>>> from irframe._input.keys import SYSTEM
>>> run = pl.DataFrame({"query_id": ["q1"], "doc_id": ["d1"], "rank": [1]})
>>> stack = stack_runs({"bm25": run, "dense": run}, "system", "my_verb", at_least=2)
>>> stack.systems
['bm25', 'dense']
>>> stack.lf.select(SYSTEM, "doc_id").collect().rows()
[('bm25', 'd1'), ('dense', 'd1')]

Then, in this order: the query attributes through :mod:`irframe._input.queries` (never
read a ``by`` column by hand), :func:`irframe.evaluate` on ``stack.lf`` with
``by=[SYSTEM, ...]`` (one plan for every system, inside :func:`user_terms` so that errors
name the caller's ``system_col``, not :data:`~irframe._input.keys.SYSTEM`), the verb's own
step, and the result back in ``stack.origin``'s type
(:func:`irframe._input.frames.from_lazy`); a report is data, rendered by a module in
``irframe._report``.  Never stack runs by hand (``pl.concat`` with a literal system
column): the rules below would then differ from verb to verb.

The rules, one set for every verb (``tests/compare/test_stack_rules.py`` pins them):

- a mapping ``{name: frame}``: names must be non-empty ``str``; the frames must be of one
  kind (all polars, all pandas...: the result comes back as that kind); their columns are
  stacked diagonally (a column one run lacks is null in its rows) and must have dtypes
  that can be stacked;
- one stacked frame: its ``system_col`` must exist (did-you-mean otherwise); its values are
  cast to text; a null or empty system name is refused (a row that belongs to no system
  would silently drop out of every comparison);
- ``system_col=None`` (verbs that also take a single run): one frame, named ``"run"``;
- fewer than ``at_least`` systems is refused, in one wording.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from irframe._input.frames import Origin, to_lazy
from irframe._input.keys import SYSTEM
from irframe.exceptions import ColumnNotFoundError, InvalidDataError, InvalidParameterError, IrFrameError

__all__ = ["SINGLE", "Stack", "stack_runs", "user_terms"]

SINGLE = "run"  # the system name of a single run (system_col=None)
_INTERNAL = re.compile(r"__ir_\w+")


@dataclass(frozen=True)
class Stack:
    """Several runs as one: the stacked rows, where they came from, the systems in input order."""

    lf: pl.LazyFrame  #: every run's rows; the system name (String, never null) in SYSTEM
    origin: Origin  #: the caller's frame type (the first run's, all runs are of one kind)
    systems: list[str]  #: dict order, or first appearance in a stacked frame
    parts: Mapping[str, pl.LazyFrame] | None = field(default=None, repr=False, compare=False)
    """A dict's runs, each on its own (with :data:`SYSTEM`); None: one stacked frame."""

    def columns_of(self, system: str) -> pl.Schema:
        """The columns of one system's own run (with :data:`SYSTEM`).

        A dict's runs may differ: a column one run lacks is null in its rows of :attr:`lf`,
        but it is no column of that run (a run with a rank column and one with only
        scores are each ranked by their own: :func:`irframe._input.columns.ranking_order`
        on this schema).  The systems of one stacked frame share its columns.

        Examples
        --------
        >>> ranked = pl.DataFrame({"query_id": ["q1"], "doc_id": ["d1"], "rank": [1]})
        >>> scored = pl.DataFrame({"query_id": ["q1"], "doc_id": ["d1"], "score": [0.5]})
        >>> stack = stack_runs({"a": ranked, "b": scored}, "system", "my_verb")
        >>> stack.lf.collect_schema().names()
        ['query_id', 'doc_id', 'rank', '__ir_system', 'score']
        >>> stack.columns_of("b").names()
        ['query_id', 'doc_id', 'score', '__ir_system']
        """
        part = self.lf if self.parts is None else self.parts[system]
        return part.collect_schema()

    def alike(self) -> list[tuple[list[str], pl.LazyFrame]]:
        """The systems in groups of runs with the same own columns (:meth:`columns_of`), each
        group with its rows of :attr:`lf` without the columns none of its runs has.

        A verb that evaluates the stack evaluates each group: a rank-only run and a
        score-only run are then each ranked by their own column (the engine's
        :func:`irframe._input.columns.ranking_order`), not the score run by its null ranks.
        Columns added to :attr:`lf` after stacking (query attributes) are kept.  One
        stacked frame, or runs with the same columns: one group, :attr:`lf` itself.

        Examples
        --------
        >>> ranked = pl.DataFrame({"query_id": ["q1"], "doc_id": ["d1"], "rank": [1]})
        >>> scored = pl.DataFrame({"query_id": ["q1"], "doc_id": ["d1"], "score": [0.5]})
        >>> stack = stack_runs({"a": ranked, "b": scored, "c": ranked}, "system", "my_verb")
        >>> for systems, lf in stack.alike():
        ...     print(systems, lf.collect_schema().names())
        ['a', 'c'] ['query_id', 'doc_id', 'rank', '__ir_system']
        ['b'] ['query_id', 'doc_id', '__ir_system', 'score']
        """
        if self.parts is None:
            return [(list(self.systems), self.lf)]
        groups: dict[frozenset[str], list[str]] = {}
        for system in self.systems:
            groups.setdefault(frozenset(self.columns_of(system).names()), []).append(system)
        if len(groups) == 1:
            return [(list(self.systems), self.lf)]
        stacked = set().union(*groups)
        names = self.lf.collect_schema().names()
        lacking = {own: [c for c in names if c in stacked - own] for own in groups}
        return [
            (systems, self.lf.filter(pl.col(SYSTEM).is_in(systems)).drop(lacking[own]))
            for own, systems in groups.items()
        ]


def stack_runs(
    runs: object, system_col: str | None, where: str, *, at_least: int = 1, single: bool = False
) -> Stack:
    """The runs as one :class:`Stack`, checked by the rules of the module docstring.

    Parameters
    ----------
    runs : mapping of name -> frame, or one frame
        A dict of runs by system name, or one stacked frame with ``system_col`` (any frame
        type :func:`irframe._input.frames.to_lazy` takes).
    system_col : str or None
        The system column of a stacked frame; ``None``: ``runs`` is a single run (named
        :data:`SINGLE`).
    where : str
        The verb, for messages (``"compare"``, ``"pool"``...).
    at_least : int, default 1
        The fewest systems the verb needs.
    single : bool, default False
        The verb also takes one run with ``system_col=None`` (said in the hint of a missing
        system column).

    Returns
    -------
    Stack

    Examples
    --------
    >>> import polars as pl
    >>> runs = pl.DataFrame({"system": [2, 1, 2], "doc_id": ["a", "b", "c"]})
    >>> stack_runs(runs, "system", "my_verb").systems
    ['2', '1']
    >>> stack_runs(runs.head(1), "system", "my_verb", at_least=2)
    Traceback (most recent call last):
    ...
    irframe.exceptions.InvalidParameterError: my_verb needs at least 2 systems; got 1: ['2']. Hint: ...
    """
    if isinstance(runs, Mapping):
        stack = _stack_mapping(runs, where)
    elif system_col is None:
        lf, origin = to_lazy(runs, role="run")
        stack = Stack(lf.with_columns(pl.lit(SINGLE, dtype=pl.String).alias(SYSTEM)), origin, [SINGLE])
    else:
        stack = _stack_frame(runs, system_col, where, single)
    if len(stack.systems) < at_least:
        column = "" if system_col is None else f" {system_col!r}"
        msg = (
            f"{where} needs at least {at_least} system{'s' if at_least > 1 else ''}; got "
            f"{len(stack.systems)}: {stack.systems}. Hint: give {at_least} or more runs, as a dict "
            f"{{'bm25': run_a, 'dense': run_b}} or as one frame with a column{column} naming each "
            "row's system."
        )
        raise InvalidParameterError(msg)
    return stack


def _stack_frame(runs: object, system_col: str, where: str, single: bool) -> Stack:
    lf, origin = to_lazy(runs, role="runs")
    schema = lf.collect_schema()
    if system_col not in schema:
        err = ColumnNotFoundError.from_missing(
            role="system", missing=system_col, available=list(schema), frame="stacked runs",
            parameter="system_col",
        )  # fmt: skip
        msg = f"{err} Or pass the runs as a dict {{name: run}}"
        msg += ", or system_col=None for a single run." if single else "."
        raise ColumnNotFoundError(msg)
    lf = lf.with_columns(pl.col(system_col).cast(pl.String).alias(SYSTEM)).drop(system_col)
    counts = lf.group_by(SYSTEM, maintain_order=True).len().collect()
    bad = counts.filter(pl.col(SYSTEM).is_null() | (pl.col(SYSTEM) == ""))
    if bad.height:
        n = int(bad["len"].sum())
        msg = (
            f"{where}: {n} rows of the stacked runs have a null or empty system name in column "
            f"{system_col!r}; they belong to no system. Hint: name every run's rows, or drop them."
        )
        raise InvalidDataError(msg)
    return Stack(lf, origin, counts[SYSTEM].to_list())


def _stack_mapping(runs: Mapping[Any, Any], where: str) -> Stack:
    parts: dict[str, pl.LazyFrame] = {}
    origins: list[Origin] = []
    for name, frame in runs.items():
        if not isinstance(name, str) or not name:
            msg = (
                f"{where}: run names (the dict's keys) must be non-empty strings; got "
                f"{type(name).__name__} {name!r}. Hint: name the runs, e.g. {{'bm25': run_a}}."
            )
            raise InvalidParameterError(msg)
        lf, origin = to_lazy(frame, role=f"run {name!r}")
        origins.append(origin)
        parts[name] = lf.with_columns(pl.lit(name, dtype=pl.String).alias(SYSTEM))
    if not parts:
        return Stack(pl.LazyFrame(schema={SYSTEM: pl.String}), Origin("polars"), [])
    if len({o.kind for o in origins}) > 1:
        kinds = ", ".join(f"{name!r}: {o.kind}" for name, o in zip(runs, origins, strict=True))
        msg = f"{where}: the runs are frames of different kinds ({kinds}). Hint: pass them all as one kind."
        raise InvalidParameterError(msg)
    try:
        stacked = pl.concat(list(parts.values()), how="diagonal_relaxed")
        stacked.collect_schema()
    except pl.exceptions.PolarsError as exc:
        msg = (
            f"{where}: the runs cannot be stacked ({exc}). "
            "Hint: give every run the same column names and id dtypes."
        )
        raise InvalidParameterError(msg) from exc
    return Stack(stacked, origins[0], list(runs), parts)


@contextmanager
def user_terms(system_col: str) -> Iterator[None]:
    """Re-raise irframe errors in the caller's terms: :data:`SYSTEM` is ``system_col``.

    A verb evaluating its :class:`Stack` (``by=[SYSTEM, ...]``) wraps the call in this, so
    no internal ``__ir_*`` name reaches a message.

    Examples
    --------
    >>> with user_terms("engine"):
    ...     raise InvalidDataError(f"column {SYSTEM!r} has nulls")
    Traceback (most recent call last):
    ...
    irframe.exceptions.InvalidDataError: column 'engine' has nulls
    """
    try:
        yield
    except IrFrameError as exc:
        text = str(exc)
        if "__ir_" not in text:
            raise
        text = _INTERNAL.sub("system", text.replace(SYSTEM, system_col))
        raise type(exc)(text) from exc.__cause__
