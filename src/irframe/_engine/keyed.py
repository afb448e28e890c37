"""The keyed fast path for in-memory input: u64 hash keys instead of string keys.

Two steps of the general plan are the expensive ones on a shuffled run with string ids:
the left join with the qrels on (query, doc) and putting each query's rows into ranking
order.  Here, for a run and qrels already in memory (or a run carrying its own grades,
which needs no join):

- the join is on ONE u64 key, the XOR of one hash per id column (each with its own
  seed: the duplicate probe's key, so ``n_unique(key) == height`` proves a frame
  distinct and collision-free on it); the ids of every matched row are then compared
  exactly, and any mismatch (a collision between the two frames) falls back;
- the ranking order comes from ONE sort of u64 values: the top bits of the query's
  hash, then a code linear in the score (descending) or rank (ascending), ``-0.0`` on
  ``0.0``, then the row number (so the sorted values are the permutation).  That key
  is coarser than the ranking rule, so it is made exact where it matters: a bucket of queries
  whose hashes share their top bits, and a run of equal keys whose grades differ, are
  sorted again exactly (score or rank, then doc id descending, compared as the same
  strings as the general plan).  A run of equal keys with equal grades needs no order:
  the kernels read only the grades, in ranking order;
- a 64-bit collision between two queries' ids is caught by comparing every row's ids
  with those of its query's first row;
- the checks that need no order (the duplicate probes, the joined ids' comparison, the
  qrels' per-query table) run as background polars queries beside the sort
  (:mod:`~irframe._engine.background`);
- a run already in ranking order (a TREC run file, a search log) is not sorted at all:
  :func:`segment_rows` checks the order in one pass and keeps it;
- ``order="auto"`` with a rank and a score: :func:`scores_rise` checks, in the rank
  order built here, that no score rises from one rank to a later one.

Whatever the path does not handle (nulls, NaN scores, duplicates, a collision) returns
``None``, and the general plan runs instead (and raises the usual errors).  The result
is the general plan's, query for query.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import polars as pl

from irframe import kernels as K
from irframe._engine.background import Background, Pending
from irframe._input.columns import RunColumns, ranking_order

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "GID",
    "Joined",
    "Keyed",
    "can_key",
    "column_hash",
    "combined_hash",
    "distinct_query",
    "join_grades",
    "keyed_rows",
    "order_bits",
    "query_and_row_hashes",
    "scores_rise",
    "segment_rows",
    "surplus_rows",
]

GID = "__ir_kgid"
_QI = "__ir_qi"
_RI = "__ir_ri"
_MIN_BITS = 16  # the sort key's fewest bits for the query and for the order
_MAX_ROWS = (1 << 32) - 1  # the most rows the sort key numbers (its row bits <= 32)
_PROBE = 4096  # segment_rows checks this many rows first


def column_hash(name: str, seed: int) -> pl.Expr:
    """The u64 hash of one id column (a seam: tests replace it to force collisions)."""
    return pl.col(name).hash(seed=seed)


def combined_hash(cols: Sequence[str]) -> pl.Expr:
    """XOR of one hash per column, seeds 1, 2, ... by position (so swapping values
    between columns does not collide); 2.3x cheaper than hashing a struct at 1e7 rows."""
    h = column_hash(cols[0], 1)
    for i, c in enumerate(cols[1:], start=2):
        h = h ^ column_hash(c, i)
    return h


def query_and_row_hashes(run: pl.DataFrame, keys: Sequence[str], doc: str) -> tuple[pl.Series, pl.Series]:
    """``combined_hash(keys)`` and ``combined_hash([*keys, doc])``, each id hashed once."""
    gk = run.select(combined_hash(keys)).to_series()
    return gk, gk ^ run.select(column_hash(doc, len(keys) + 1)).to_series()


@dataclass(frozen=True)
class Keyed:
    """The run's rows in ranking order, each query's rows contiguous.

    ``rows``: ``GID`` (0, 1, ..., flagged sorted) and the grade ``K.REL``;
    ``groups``: one row per ``GID``, in that order: the query's key columns;
    ``perm``: the run's row of each sorted row (``None``: the run's own order).
    """

    rows: pl.DataFrame
    groups: pl.DataFrame
    perm: pl.Series | None = None


@dataclass(frozen=True)
class _Layout:
    """The bits of the u64 sort key, high to low: the top ``query`` bits of the query's
    hash, ``order`` bits of the coarse ranking order, the ``row`` bits of the row number.

    The row number makes the key's sorted VALUES the permutation (one value sort: ~4x
    cheaper than sorting the key with a row index beside it).  The query bits are about
    twice the bits of the number of queries (few buckets shared by two queries), the
    rest go to the order; each gets at least ``_MIN_BITS``.  With ``2 * b - 2`` query bits
    for fewer than ``2**b`` queries, about one pair of queries shares a bucket (its rows
    are sorted again exactly).
    """

    query: int
    order: int
    row: int

    @classmethod
    def of(cls, n_rows: int, n_queries: int) -> _Layout:
        row = max(1, (n_rows - 1).bit_length())
        free = 64 - row
        query = min(max(2 * n_queries.bit_length() - 2, _MIN_BITS), free - _MIN_BITS)
        return cls(query=query, order=free - query, row=row)


def order_bits(order: pl.Series, *, descending: bool, bits: int) -> np.ndarray | None:
    """u64 codes in ``[0, 2**bits)``: a non-decreasing function of the ranking order
    (the order values descending, or ascending), linear in the value (``None``: a range
    too wide for float64, left to the general plan).

    Equal values get equal codes (``-0.0`` and ``0.0`` too); close values may share one
    (the key is coarse; the caller sorts ties exactly).  ``inf`` and ``-inf`` share the
    code of the largest and smallest finite value.  Linear in the value, not in its IEEE
    bits: scores spanning both signs and many binades keep as many distinct codes.

    Examples
    --------
    >>> import polars as pl
    >>> order_bits(pl.Series([2.0, -1.0, -0.0, 0.0, 3.0]), descending=True, bits=2).tolist()
    [0, 3, 2, 2, 0]
    """
    import numpy as np

    x = order.cast(pl.Float64).to_numpy()
    lo, hi = float(x.min()), float(x.max())
    if not (math.isfinite(lo) and math.isfinite(hi)):
        finite = x[np.isfinite(x)]
        lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 0.0)
        x = np.clip(x, lo, hi)
    if not math.isfinite(hi - lo):
        return None
    f = np.subtract(hi, x) if descending else np.subtract(x, lo)
    if hi > lo:  # two steps: (hi - lo) may be tiny, and f / (hi - lo) <= 1 exactly
        f /= hi - lo
        f *= (1 << bits) - 1
    out: np.ndarray = f.astype(np.uint64)  # (truncation: the floor, f >= 0)
    return out


def can_key(run: pl.DataFrame, qrels: pl.DataFrame | None, cols: RunColumns, qkeys: Sequence[str]) -> bool:
    """Nothing the fast path leaves to the general plan's checks: nulls, NaN, no rows."""
    ids = [*cols.keys, cols.doc, cols.order_col]
    if run.height == 0 or any(run.get_column(c).null_count() for c in ids):
        return False
    if qrels is not None and any(qrels.get_column(c).null_count() for c in [*qkeys, cols.doc]):
        return False
    order = run.get_column(cols.order_col)
    return not (order.dtype.is_float() and bool(order.is_nan().any()))


def surplus_rows(key: pl.Expr) -> pl.Expr:
    """Rows minus distinct values of ``key``, a row hash (:func:`combined_hash`): 0 proves
    the rows distinct on the hashed columns (the duplicate probe of both plans).  More
    than 0 is a duplicate or a collision: the exact check decides.

    Examples
    --------
    >>> import polars as pl
    >>> df = pl.DataFrame({"q": ["a", "a", "b"], "d": ["x", "x", "x"]})
    >>> df.select(surplus_rows(combined_hash(["q", "d"]))).item()
    1
    """
    return pl.len() - key.n_unique()


def distinct_query(key: pl.Series) -> pl.LazyFrame:
    """Whether the rows' keys are all different (:func:`surplus_rows` is 0): a lazy 1x1
    query, to run in the background."""
    return key.to_frame("k").lazy().select(surplus_rows(pl.col("k")) == 0)


@dataclass(frozen=True)
class Joined:
    """:func:`join_grades`' answer: each run row's grade (NaN: not judged), and the
    background queries (1x1 Boolean frames) that must all say True for the grades to
    hold: the qrels' keys are distinct, every matched pair of rows has the same ids."""

    grades: pl.Series
    checks: tuple[Pending, ...]


def join_grades(
    run: pl.DataFrame, qrels: pl.DataFrame, on: Sequence[str], doc: str, key: pl.Series, *, bg: Background
) -> Joined:  # fmt: skip
    """Each run row's grade, joined on one u64 key and verified exactly.

    ``key``: the run's ``combined_hash([*on, doc])``.  An inner join
    of the row numbers (half the time of a left join keeping the run's order), run by
    the lazy engine (1.5-2x faster than the eager join at 1e6-1e7 rows); the grades are
    then scattered into a column of NaN.  Whether the qrels' keys are distinct, and the
    matched pairs' ids the same, is computed in ``bg``, beside the caller's next steps:
    until both say True (:attr:`Joined.checks`) the grades are not to be used.
    """
    cols = [*on, doc]
    qk = qrels.select(combined_hash(cols).alias("k"), K.REL).with_row_index(_QI)
    distinct_qrels = bg.start(distinct_query(qk.get_column("k")))
    rk = key.alias("k").to_frame()
    hits = rk.lazy().with_row_index(_RI).join(qk.lazy(), on="k", how="inner").collect()
    del rk
    same_ids = bg.start(_same_ids(run, qrels, cols, hits.select(_RI, _QI)))
    ri = hits.get_column(_RI)
    # NaN, not null, for "not judged" until the rows are in order: gathers of a column
    # without a validity mask are faster (callers turn NaN into null at the end;
    # benchmarks/results/decisions.md, keyed-executor)
    grades = pl.repeat(float("nan"), run.height, dtype=pl.Float64, eager=True).alias(K.REL)
    return Joined(grades.scatter(ri, hits.get_column(K.REL)), (distinct_qrels, same_ids))


def _same_ids(
    run: pl.DataFrame, qrels: pl.DataFrame, cols: Sequence[str], pairs: pl.DataFrame
) -> pl.LazyFrame:  # fmt: skip
    """Whether each pair of rows (run row ``_RI``, qrels row ``_QI``) has the same ids,
    compared exactly: a lazy 1x1 query.

    A column per thread: long ids (a 16-byte doc id is not inlined in its string view)
    cost a cache miss per row on each side, so this is ~2x faster than the columns one
    after the other (28 against 60 ms for 405k pairs).
    """

    def gathered(df: pl.DataFrame, c: str, rows: str) -> pl.Expr:
        return pl.lit(df.get_column(c)).gather(pl.col(rows))

    same = [(gathered(run, c, _RI) == gathered(qrels, c, _QI)).all() for c in cols]
    return pairs.lazy().select(pl.all_horizontal(same))


def _coarse_order(
    gk: pl.Series, order: pl.Series, rel: pl.Series, *, descending: bool
) -> tuple[pl.Series, pl.DataFrame, _Layout] | None:
    """ONE sort of u64 values (query bucket, coarse order, row number; see
    :class:`_Layout`): the permutation, the sorted values ``key`` (row number
    included: :func:`_dirty` ignores those bits), query hash and grade (``None``: more
    than ``_MAX_ROWS`` rows, or :func:`order_bits` refused the order).

    The key is built in numpy in place (one scratch column); polars sorts the values
    (its integer sort: 14 against 52 ms for numpy's at 1e6 rows, 0.15 against 0.65 s at
    1e7; the values are distinct, so the sort's stability does not matter).
    """
    import numpy as np

    if len(gk) > _MAX_ROWS:
        return None  # (the row numbers would not fit the key's 32 low bits)
    queries = gk.approx_n_unique()  # (HyperLogLog: cheap, decisions.md, keyed-executor)
    layout = _Layout.of(len(gk), queries if isinstance(queries, int) else len(gk))
    key = order_bits(order, descending=descending, bits=layout.order)
    if key is None:
        return None
    key <<= np.uint64(layout.row)
    buf = np.empty_like(key)  # one scratch column: the query bits, then the row numbers
    np.right_shift(gk.to_numpy(), np.uint64(64 - layout.query), out=buf)
    buf <<= np.uint64(layout.order + layout.row)
    key |= buf
    buf.fill(1)
    buf[:1] = 0
    key |= np.cumsum(buf, out=buf)  # 0, 1, ..., n - 1 (np.arange would be another column)
    del buf
    key = pl.Series(key).sort().to_numpy()  # (read-only: a view of the sorted Series)
    idx = key.astype(np.uint32)  # (the low 32 bits; row <= 32)
    idx &= np.uint32((1 << layout.row) - 1)
    perm = pl.Series("i", idx)
    s = pl.DataFrame([pl.Series("key", key), gk.gather(perm).alias("gk"), rel.gather(perm).alias("rel")])
    return perm, s, layout


def _starts(values: np.ndarray) -> np.ndarray:
    """Boolean per row: its value differs from the previous row's (the first row: True)."""
    import numpy as np  # (only unordered runs need it: the CLI on a TREC file does not)

    out = np.empty(len(values), dtype=bool)
    out[:1] = True
    np.not_equal(values[1:], values[:-1], out=out[1:])
    return out


def _any_in_run(start: np.ndarray, mark: np.ndarray) -> np.ndarray:
    """Per row: whether its run (a new run at each ``start``) has a ``mark``ed row."""
    import numpy as np

    run_id = np.cumsum(start, dtype=np.uint32)  # (1-based; at most _MAX_ROWS rows)
    bad = np.zeros(int(run_id[-1]) + 1, dtype=bool)
    bad[run_id[mark]] = True
    out: np.ndarray = bad[run_id]
    return out


def _key_starts(key: np.ndarray, layout: _Layout) -> tuple[np.ndarray, np.ndarray]:
    """Per sorted row: whether its coarse key (query bucket and order; not the row
    number) differs from the previous row's, and whether its bucket does (first row:
    True).  One XOR of neighbours serves both: bits above ``layout.row`` differ, bits
    above ``layout.row + layout.order`` differ (no shifted copy of the key)."""
    import numpy as np

    new_key = np.empty(len(key), dtype=bool)
    new_bucket = np.empty(len(key), dtype=bool)
    new_key[:1] = new_bucket[:1] = True
    diff = np.bitwise_xor(key[1:], key[:-1])
    np.greater_equal(diff, np.uint64(1 << layout.row), out=new_key[1:])
    np.greater_equal(diff, np.uint64(1 << (layout.row + layout.order)), out=new_bucket[1:])
    return new_key, new_bucket


def _dirty(s: pl.DataFrame, layout: _Layout) -> pl.Series | None:
    """Sorted positions whose coarse order may differ from the ranking rule: buckets
    holding two queries (hashes sharing their top bits), and runs of equal keys whose
    grades differ (null differs from every grade).  numpy over the sorted columns
    (linear passes; 5x faster than the same in polars expressions at 1e6 rows)."""
    import numpy as np

    gk = s.get_column("gk").to_numpy()
    rel = s.get_column("rel").to_numpy()  # NaN (or null): not judged; a grade is never NaN
    new_key, new_bucket = _key_starts(s.get_column("key").to_numpy(), layout)
    coll = ~new_bucket & _starts(gk)
    nan = np.isnan(rel)
    diff = np.zeros(len(rel), dtype=bool)
    diff[1:] = (rel[1:] != rel[:-1]) & ~(nan[1:] & nan[:-1])
    diff &= ~new_key
    has_coll, has_diff = bool(coll.any()), bool(diff.any())
    if not (has_coll or has_diff):
        return None
    dirty = _any_in_run(new_key, diff) if has_diff else np.zeros(len(rel), dtype=bool)
    if has_coll:
        dirty |= _any_in_run(new_bucket, coll)
    return pl.Series("pos", np.flatnonzero(dirty), dtype=pl.UInt32)


def _exact_redo(
    run: pl.DataFrame, cols: RunColumns, perm: pl.Series, s: pl.DataFrame, pos: pl.Series
) -> pl.Series:  # fmt: skip
    """Sort the dirty positions' rows exactly (query hash, ranking rule) in place.

    The positions are in (bucket, coarse order) order; the hash sorts the buckets alike
    (a bucket is the hash's top bits) and the ranking rule agrees with the coarse order.
    """
    idx = perm.gather(pos)
    sub = pl.DataFrame(
        {
            "g": s.get_column("gk").gather(pos),
            "o": run.get_column(cols.order_col).gather(idx),
            "d": run.get_column(cols.doc).gather(idx),
            "i": idx,
        }
    )
    by, desc = ranking_order(cols.order, "o", "d")  # THE ranking rule
    exact = sub.sort([pl.col("g"), *by], descending=[False, *desc])
    return perm.scatter(pos, exact.get_column("i"))


def _groups(run: pl.DataFrame, keys: Sequence[str], perm: pl.Series, gk: pl.Series) -> Keyed | None:
    """Each query's key values (its first sorted row's) and every sorted row's GID;
    ``None`` if two different key values share a hash (their rows would merge).

    The check compares every run row, in the run's order, with its query's first row
    (the query table is small, so the gather stays in cache): 15 against 25 ms at 1e6
    rows for gathering all ids into sorted order and comparing neighbours.
    """
    import numpy as np

    start = _starts(gk.to_numpy())
    gid = np.cumsum(start, dtype=np.uint32)
    gid -= np.uint32(1)
    p = perm.to_numpy()
    first = np.flatnonzero(start)
    groups = run.select(keys)[pl.Series(p[first])]
    of_row = np.empty(len(p), dtype=np.uint32)  # each run row's GID
    of_row[p] = gid
    at = pl.lit(pl.Series(of_row))
    same = pl.all_horizontal(pl.col(c) == pl.lit(groups.get_column(c)).gather(at) for c in keys)
    if not run.lazy().select(same.all()).collect().item():
        return None
    return Keyed(rows=pl.DataFrame([pl.Series(GID, gid).set_sorted()]), groups=groups)


def keyed_rows(run: pl.DataFrame, cols: RunColumns, rel: pl.Series, gk: pl.Series) -> Keyed | None:
    """The run's grades in ranking order, each query's rows contiguous (``None``: fall back).

    ``run`` has no null id or order value and no NaN order value; ``rel`` is each run
    row's grade (NaN: not judged, as :func:`join_grades` gives it); ``gk`` the run's
    ``combined_hash(cols.keys)`` (:func:`query_and_row_hashes`).
    """
    keys = list(cols.keys)
    descending = cols.ranking()[1][0]  # (score: descending; rank: ascending)
    coarse = _coarse_order(gk, run.get_column(cols.order_col), rel, descending=descending)
    if coarse is None:
        return None
    perm, s, layout = coarse
    pos = _dirty(s, layout)
    sorted_gk, sorted_rel = s.get_column("gk"), s.get_column("rel")
    if pos is not None:  # only the dirty positions' rows moved: patch them
        perm = _exact_redo(run, cols, perm, s, pos)
        moved = perm.gather(pos)
        sorted_gk = sorted_gk.scatter(pos, gk.gather(moved))
        sorted_rel = sorted_rel.scatter(pos, rel.gather(moved))
    gk, rel = sorted_gk, sorted_rel
    del s
    keyed = _groups(run, keys, perm, gk)
    if keyed is None:
        return None
    return Keyed(keyed.rows.with_columns(rel.fill_nan(None).alias(K.REL)), keyed.groups, perm)


def segment_rows(run: pl.DataFrame, cols: RunColumns, rel: pl.Series) -> Keyed | None:
    """The run's grades as they are, if the run is already in ranking order: each query's
    rows contiguous and ordered by the ranking rule (the usual shape of a TREC run file
    or a search log).  ``None`` if not: the rows must be sorted (:func:`keyed_rows`).

    One pass comparing each row with the previous one (ids compared exactly, no hash),
    after the same check on the first rows (a shuffled run fails there, at no cost).
    """
    if run.height > _PROBE and _query_starts(run.head(_PROBE), cols) is None:
        return None
    change = _query_starts(run, cols)
    if change is None:
        return None
    gid = (change.cum_sum() - 1).cast(pl.UInt32).set_sorted().alias(GID)
    groups = run.select(list(cols.keys)).filter(change)
    return Keyed(rows=pl.DataFrame([gid, rel.fill_nan(None).alias(K.REL)]), groups=groups)


def _query_starts(run: pl.DataFrame, cols: RunColumns) -> pl.Series | None:
    """Per row: whether it starts a query; ``None`` if a query's rows are not contiguous
    or not in ranking order."""
    keys = list(cols.keys)
    same = pl.all_horizontal((pl.col(k) == pl.col(k).shift(1)).fill_null(False) for k in keys)
    o, d = pl.col(cols.order_col), pl.col(cols.doc)
    worse = o > o.shift(1) if cols.ranking()[1][0] else o < o.shift(1)  # (against the ranking order)
    out_of_order = same & (worse | ((o == o.shift(1)) & (d > d.shift(1))))
    marks = run.select(out_of_order.any().alias("bad"), (~same).alias("new"))
    if marks.item(0, "bad"):
        return None
    change = marks.get_column("new")
    if run.select(keys).filter(change).is_duplicated().any():
        return None  # a query's rows are not contiguous
    return change


def scores_rise(run: pl.DataFrame, cols: RunColumns, keyed: Keyed) -> bool | None:
    """``order="auto"`` with a rank and a score: whether some query's score rises from one
    rank to a later one (``None``: a null or NaN score, for the general plan to judge).

    Exact with tied ranks: each row's score is compared with the lowest score of the
    query's earlier ranks (a running minimum taken where each rank starts).
    """
    score = run.get_column(str(cols.check_score)).cast(pl.Float64)
    if score.null_count() or bool(score.is_nan().any()):
        return None
    rank = run.get_column(cols.order_col)
    if keyed.perm is not None:
        score, rank = score.gather(keyed.perm), rank.gather(keyed.perm)
    g, r, sc = pl.col(GID), pl.col("r"), pl.col("s")
    new_query = (g != g.shift(1)).fill_null(True)
    new_rank = new_query | (r != r.shift(1))
    lowest = sc.cum_min().over(GID)  # (GID is sorted: each query's rows are contiguous)
    before = pl.when(new_query).then(float("inf")).when(new_rank).then(lowest.shift(1)).forward_fill()
    frame = pl.DataFrame([keyed.rows.get_column(GID), rank.alias("r"), score.alias("s")])
    return bool(frame.select((sc > before).any()).item())
