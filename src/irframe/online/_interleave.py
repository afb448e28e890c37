"""Interleaving runs into the lists a user would be served (for shadow tests and simulation).

The three methods as Radlinski et al. (2008), Joachims (2003) and Hofmann et al. (2011)
define them, and as mpkato/interleaving implements them (its tests pin the outputs):

* ``team_draft``: each round, the team with the fewest picks (a coin flip between teams of
  equal size) adds its highest-ranked document not yet shown; a team whose run has no
  document left drops out.  With three or more runs this is team-draft multileaving
  (Schuth et al., 2014).  ``team`` is the picking system.
* ``balanced``: a coin flip decides which run leads; the run whose pointer is behind (the
  leader on a tie) adds its next document unless it is already shown; it stops when either
  run is exhausted.  ``team`` is the run whose pointer added the document.
* ``probabilistic``: each step picks a run at random and draws a document from its softmax
  over ranks, ``P(d) proportional to 1 / rank(d)**tau`` over the documents not yet shown
  (``tau=3``); a run with none left drops out.  ``team`` is the drawing run.

The random draws come from one ``numpy.random.default_rng(seed)``, queries in natural order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import polars as pl

from irframe._input.frames import from_lazy
from irframe._input.params import check_seed
from irframe.exceptions import InvalidParameterError
from irframe.online._outofcore import in_memory_only
from irframe.online._runs import read_rankings

__all__ = ["METHODS", "balanced", "interleave", "probabilistic", "team_draft"]

METHODS = ("team_draft", "balanced", "probabilistic")
Picked = tuple[list[Any], list[int]]  # documents, the index of the system each came from
_WHY = (
    "the served lists are drawn from one random stream over the queries in order (a seed gives one set "
    "of lists; buckets would change it), and the runs are read in memory."
)


def team_draft(lists: Sequence[Sequence[Any]], k: int, rng: np.random.Generator) -> Picked:
    """One team-draft (multi)leaved list of length at most ``k``."""
    shown: set[Any] = set()
    docs: list[Any] = []
    teams: list[int] = []
    sizes = [0] * len(lists)
    pointers = [0] * len(lists)
    empty: set[int] = set()
    while len(docs) < k:
        live = [i for i in range(len(lists)) if i not in empty]
        if not live:
            break
        smallest = min(sizes[i] for i in live)
        tied = [i for i in live if sizes[i] == smallest]
        team = tied[int(rng.integers(len(tied)))] if len(tied) > 1 else tied[0]
        ranking = lists[team]
        while pointers[team] < len(ranking) and ranking[pointers[team]] in shown:
            pointers[team] += 1
        if pointers[team] == len(ranking):
            empty.add(team)
            continue
        doc = ranking[pointers[team]]
        shown.add(doc)
        docs.append(doc)
        teams.append(team)
        sizes[team] += 1
    return docs, teams


def balanced(lists: Sequence[Sequence[Any]], k: int, rng: np.random.Generator) -> Picked:
    """One balanced-interleaved list of two runs, of length at most ``k``."""
    a, b = lists
    a_first = int(rng.integers(2)) == 0
    docs: list[Any] = []
    teams: list[int] = []
    shown: set[Any] = set()
    ka = kb = 0
    while ka < len(a) and kb < len(b) and len(docs) < k:
        take_a = ka < kb or (ka == kb and a_first)
        doc = a[ka] if take_a else b[kb]
        if doc not in shown:
            shown.add(doc)
            docs.append(doc)
            teams.append(0 if take_a else 1)
        if take_a:
            ka += 1
        else:
            kb += 1
    return docs, teams


def probabilistic(
    lists: Sequence[Sequence[Any]], k: int, rng: np.random.Generator, tau: float = 3.0
) -> Picked:
    """One probabilistic-interleaved list (softmax over ranks with ``tau``), of length at most ``k``."""
    weights = [1.0 / np.arange(1, len(r) + 1, dtype=np.float64) ** tau for r in lists]
    where = [{d: i for i, d in enumerate(r)} for r in lists]
    live = [w > 0 for w in weights]
    rankers = [i for i in range(len(lists)) if len(lists[i])]
    docs: list[Any] = []
    teams: list[int] = []
    while len(docs) < k and rankers:
        r = rankers[int(rng.integers(len(rankers)))]
        w = np.where(live[r], weights[r], 0.0)
        total = w.sum()
        if not total > 0:
            rankers.remove(r)
            continue
        i = int(np.searchsorted(np.cumsum(w), rng.random() * total, side="right"))
        i = min(i, len(w) - 1)
        doc = lists[r][i]
        docs.append(doc)
        teams.append(r)
        for j, index in enumerate(where):
            if doc in index:
                live[j][index[doc]] = False
    return docs, teams


def interleave(
    runs: Any,
    *,
    method: str = "team_draft",
    k: int | None = None,
    seed: int | None = 0,
    tau: float = 3.0,
    system_col: str = "system",
    query_col: str = "query_id",
    doc_col: str = "doc_id",
    rank_col: str = "rank",
    score_col: str = "score",
    memory_limit: None = None,
) -> Any:
    """The list each query would be served by interleaving the runs, with each row's team.

    Parameters
    ----------
    runs : dict of name -> run frame, or one stacked frame with ``system_col``
        Two runs (three or more: team-draft multileaving).
    method : {"team_draft", "balanced", "probabilistic"}
        See :mod:`irframe.online._interleave`.
    k : int, optional
        The served list's length; by default the longer run's, per query.
    seed : int, optional
        The seed of the draws (the same seed gives the same lists).
    tau : float, default 3.0
        The probabilistic method's softmax exponent.
    system_col, query_col, doc_col, rank_col, score_col : str
        The runs' columns; the ranking order is irframe's (rank, else score descending).
    memory_limit : None
        Refused: there is no out-of-core (or Dask) path.  The draws are one random stream
        over the queries in natural order, so that a seed gives the same lists; split into
        buckets, the same seed would give other lists.  The runs are read in memory (their
        top ``k`` per query is what is interleaved), and the output is ``k`` rows per query.

    Returns
    -------
    frame
        ``query_id``, ``position`` (1-based), ``doc_id``, ``team`` (the system the document
        was drawn from), in the runs' frame type.

    Examples
    --------
    >>> import polars as pl
    >>> from irframe import online
    >>> a = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["x", "y", "z"], "rank": [1, 2, 3]})
    >>> b = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["y", "w", "x"], "rank": [1, 2, 3]})
    >>> served = online.interleave({"A": a, "B": b}, seed=1)
    >>> served["doc_id"].to_list(), served["team"].to_list()
    (['x', 'y', 'w'], ['A', 'B', 'B'])
    """
    where = "irframe.online.interleave"
    in_memory_only(memory_limit, where, _WHY)
    if method not in METHODS:
        raise InvalidParameterError.for_value("method", where, f"one of {list(METHODS)}", method)
    if k is not None and (isinstance(k, bool) or not isinstance(k, int) or k < 1):
        raise InvalidParameterError.for_value("k", where, "an int >= 1 or None", k)
    rank = read_rankings(
        runs, where=where, system_col=system_col, query_col=query_col, doc_col=doc_col, rank_col=rank_col,
        score_col=score_col, at_most=None if method == "team_draft" else 2,
    )  # fmt: skip
    rng = np.random.default_rng(check_seed(seed, where))  # type: ignore[arg-type]
    rows: dict[str, list[Any]] = {"query_id": [], "position": [], "doc_id": [], "team": []}
    for q in rank.queries:
        lists = rank.lists[q]
        size = k if k is not None else max(len(r) for r in lists)
        if method == "team_draft":
            docs, teams = team_draft(lists, size, rng)
        elif method == "balanced":
            docs, teams = balanced(lists, size, rng)
        else:
            docs, teams = probabilistic(lists, size, rng, tau)
        rows["query_id"] += [q] * len(docs)
        rows["position"] += list(range(1, len(docs) + 1))
        rows["doc_id"] += docs
        rows["team"] += [rank.systems[t] for t in teams]
    schema: dict[str, pl.DataType] = {
        "query_id": rank.query_dtype, "position": pl.Int64(), "doc_id": rank.doc_dtype, "team": pl.String()
    }  # fmt: skip
    return from_lazy(pl.DataFrame(rows, schema=schema), rank.origin)
