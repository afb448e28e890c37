"""agreement: how far judges agree on grades, and whether they rank the systems alike.

What is compared, the statistics and the ranking correlations are written once, in
:func:`agreement`'s Notes.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import polars as pl

from irframe._input.frames import Origin, from_lazy, to_lazy
from irframe._input.keys import SYSTEM
from irframe._input.runs import stack_runs
from irframe._report.tables import text_table
from irframe.exceptions import (
    ColumnNotFoundError,
    DuplicateRowsError,
    InvalidDataError,
    InvalidParameterError,
)

__all__ = ["Agreement", "agreement", "confusion_statistics", "kendall_tau_b", "spearman_rho", "tau_ap"]

_WHERE = "agreement"
_J, _Q, _D, _G, _P = "judge", "query_id", "doc_id", "grade", "__ir_pos"
_STATS = ("agreement", "kappa", "kappa_linear", "kappa_quadratic", "alpha_ordinal")
FloatArray = npt.NDArray[np.float64]


# --- the statistics, vectorised over groups -------------------------------------------------
def confusion_statistics(
    group: npt.ArrayLike, a: npt.ArrayLike, b: npt.ArrayLike, k: int, n_groups: int | None = None
) -> dict[str, FloatArray]:
    """Agreement, kappas and ordinal alpha of paired positions, for every group at once.

    Parameters
    ----------
    group : array-like of int
        Group index (0 .. G-1) of each pair: a pair of judges, or a (pair, query).
    a, b : array-like of int
        Positions (0 .. k-1) on the scale of the two judges' grades.
    k : int
        Number of grades on the scale.
    n_groups : int, optional
        Number of groups (default: the largest index + 1); a group with no pair gets ``NaN``.

    Returns
    -------
    dict of str to numpy.ndarray
        ``n`` and each of ``agreement``, ``kappa``, ``kappa_linear``, ``kappa_quadratic``,
        ``alpha_ordinal`` per group (``NaN`` where 0/0).

    Examples
    --------
    >>> s = confusion_statistics([0, 0, 0, 0], [0, 1, 2, 2], [0, 1, 1, 2], 3)
    >>> float(s["agreement"][0]), round(float(s["kappa"][0]), 4)
    (0.75, 0.6364)
    """
    g = np.asarray(group, dtype=np.int64)
    pa = np.asarray(a, dtype=np.int64)
    pb = np.asarray(b, dtype=np.int64)
    if n_groups is None:
        n_groups = int(g.max()) + 1 if g.size else 0
    cells = np.bincount((g * k + pa) * k + pb, minlength=n_groups * k * k)
    c = cells.reshape(n_groups, k, k).astype(np.float64)
    n = c.sum(axis=(1, 2))
    expected = c.sum(axis=2)[:, :, None] * c.sum(axis=1)[:, None, :] / np.where(n > 0, n, 1)[:, None, None]
    pos = np.arange(k, dtype=np.float64)
    dist = pos[:, None] - pos[None, :]
    with np.errstate(invalid="ignore", divide="ignore"):
        out = {"n": n, "agreement": np.trace(c, axis1=1, axis2=2) / n}
        weights = {"kappa": dist != 0, "kappa_linear": np.abs(dist), "kappa_quadratic": dist**2}
        for name, weight in weights.items():
            w = np.asarray(weight, dtype=np.float64)
            out[name] = 1.0 - (c * w).sum(axis=(1, 2)) / (expected * w).sum(axis=(1, 2))
        out["alpha_ordinal"] = _alpha_from_coincidences(c + c.transpose(0, 2, 1))
    return out


def _alpha_from_coincidences(o: FloatArray) -> FloatArray:
    """Krippendorff's ordinal alpha of each coincidence matrix ``o[g]`` (G x K x K)."""
    marg = o.sum(axis=2)
    total = marg.sum(axis=1)
    cum = np.cumsum(marg, axis=1)
    delta = (cum[:, None, :] - cum[:, :, None] + (marg[:, :, None] - marg[:, None, :]) / 2.0) ** 2
    observed = (o * delta).sum(axis=(1, 2))
    expected = (marg[:, :, None] * marg[:, None, :] * delta).sum(axis=(1, 2))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(1.0 - (total - 1.0) * observed / expected, dtype=np.float64)


def _overall_alpha(units: npt.ArrayLike, pos: npt.ArrayLike, k: int) -> tuple[float, int]:
    """Ordinal alpha of all judges together over the units at least two of them graded."""
    u = np.asarray(units, dtype=np.int64)
    p = np.asarray(pos, dtype=np.int64)
    n_units = int(u.max()) + 1 if u.size else 0
    counts = np.bincount(u * k + p, minlength=n_units * k).reshape(n_units, k).astype(np.float64)
    m = counts.sum(axis=1)
    keep = m >= 2
    counts, m = counts[keep], m[keep]
    if not counts.shape[0]:
        return math.nan, 0
    scaled = counts / (m - 1.0)[:, None]
    o = scaled.T @ counts - np.diag(scaled.sum(axis=0))
    return float(_alpha_from_coincidences(o[None])[0]), int(counts.shape[0])


def _average_ranks(x: FloatArray) -> FloatArray:
    _, inverse, counts = np.unique(x, return_inverse=True, return_counts=True)
    ends = np.cumsum(counts)
    return np.asarray((ends - (counts - 1) / 2.0)[inverse], dtype=np.float64)


def kendall_tau_b(x: npt.ArrayLike, y: npt.ArrayLike) -> float:
    """Kendall's tau-b of two score vectors (ties corrected, as ``scipy.stats.kendalltau``).

    Examples
    --------
    >>> kendall_tau_b([0.1, 0.2, 0.3, 0.4], [0.1, 0.3, 0.2, 0.4])
    0.6666666666666666
    """
    xa, ya = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    iu = np.triu_indices(xa.size, 1)
    sx = np.sign(xa[:, None] - xa[None, :])[iu]
    sy = np.sign(ya[:, None] - ya[None, :])[iu]
    denom = math.sqrt(float(np.count_nonzero(sx)) * float(np.count_nonzero(sy)))
    return float((sx * sy).sum()) / denom if denom > 0 else math.nan


def spearman_rho(x: npt.ArrayLike, y: npt.ArrayLike) -> float:
    """Spearman's rho: Pearson's r of the average ranks (as ``scipy.stats.spearmanr``).

    Examples
    --------
    >>> spearman_rho([0.1, 0.2, 0.3, 0.4], [0.1, 0.3, 0.2, 0.4])
    0.8
    """
    rx = _average_ranks(np.asarray(x, dtype=np.float64))
    ry = _average_ranks(np.asarray(y, dtype=np.float64))
    rx, ry = rx - rx.mean(), ry - ry.mean()
    denom = math.sqrt(float((rx**2).sum()) * float((ry**2).sum()))
    return float((rx * ry).sum()) / denom if denom > 0 else math.nan


def tau_ap(truth: npt.ArrayLike, estimate: npt.ArrayLike, names: Sequence[str] | None = None) -> float:
    """tau_AP (Yilmaz, Aslam and Robertson 2008) of ``estimate``'s ranking against ``truth``'s.

    Both are score vectors over the same systems (higher ranks first).  Ties: a pair
    tied in either ranking counts one half; ``estimate``'s ties are ordered by ``names``
    (default: position).  Asymmetric: errors near the top cost more.

    Examples
    --------
    Swapping the last two of four systems costs less than swapping the first two:

    >>> tau_ap([4, 3, 2, 1], [4, 3, 1, 2]), tau_ap([4, 3, 2, 1], [3, 4, 2, 1])
    (0.7777777777777777, 0.33333333333333326)
    """
    t = np.asarray(truth, dtype=np.float64)
    e = np.asarray(estimate, dtype=np.float64)
    n = t.size
    if n < 2:
        return math.nan
    tie_key = np.arange(n) if names is None else np.argsort(np.argsort(np.asarray(names, dtype=object)))
    order = np.lexsort((tie_key, -e))
    t, e = t[order], e[order]
    above = np.tril(np.ones((n, n), dtype=bool), -1)  # above[i, j]: j is ranked above i
    right = (t[None, :] > t[:, None]).astype(np.float64)
    tied = (t[None, :] == t[:, None]) | (e[None, :] == e[:, None])
    credit = np.where(tied, 0.5, right) * above
    c = credit.sum(axis=1)[1:]
    return float(2.0 / (n - 1) * float((c / np.arange(1, n)).sum()) - 1.0)


# --- the result --------------------------------------------------------------------------------
@dataclass(frozen=True, repr=False)
class Agreement:
    """What :func:`agreement` found: the judges' agreement and, given runs, their system rankings.

    Attributes
    ----------
    pairs : frame
        One row per pair of judges: ``judge_a``, ``judge_b``, ``n_common`` (pairs both
        judged), ``n_only_a``, ``n_only_b``, ``n_queries`` (queries with a common pair),
        ``agreement``, ``kappa``, ``kappa_linear``, ``kappa_quadratic``, ``alpha_ordinal``.
    per_query : frame
        The same statistics per (judge_a, judge_b, query) over the query's common pairs.
    disagreements : frame
        Every common pair the two judges graded differently: ``judge_a``, ``judge_b``,
        query, document, ``grade_a``, ``grade_b``, ``distance`` (positions apart on the
        scale); largest distance first, then by query and document.
    system_scores : frame or None
        Given runs: ``judge``, ``system``, ``measure``, ``value`` (mean over queries),
        ``n_judgments`` (the judge's judgments used).
    rankings : frame or None
        Given runs: per pair of judges and measure ``n_systems``, ``kendall_tau``,
        ``tau_ap``, ``spearman``, ``n_swapped`` (pairs of systems ordered oppositely),
        ``swapped`` (their names), ``verdict``.
    verdicts : tuple of str
        One line per pair of judges and measure: "judge 'llm' ranks the 4 systems as
        judge 'human' does on nDCG@10: tau 1.0".
    alpha : float
        Krippendorff's ordinal alpha of all judges together (``NaN`` without two grades
        on any pair).
    n_units : int
        The (query, document) pairs at least two judges graded (those ``alpha`` uses).
    judges, scale : tuple
        The judges in order, and the grades on the scale.
    """

    pairs: Any
    per_query: Any
    disagreements: Any
    system_scores: Any
    rankings: Any
    verdicts: tuple[str, ...]
    alpha: float
    n_units: int
    judges: tuple[str, ...]
    scale: tuple[float | int, ...]
    _pairs: pl.DataFrame = field(default_factory=pl.DataFrame, compare=False)
    _disagreements: pl.DataFrame = field(default_factory=pl.DataFrame, compare=False)

    def to_text(self, top: int = 5) -> str:
        """The pairs table, the ``top`` largest disagreements of each pair and the verdicts.

        Examples
        --------
        >>> import polars as pl, irframe
        >>> qrels = pl.DataFrame({"judge": ["human"] * 3 + ["llm"] * 3,
        ...     "query_id": ["q1"] * 6, "doc_id": ["a", "b", "c"] * 2,
        ...     "relevance": [2, 1, 0, 2, 0, 0]})
        >>> print(irframe.agreement(qrels).to_text())
        judges human, llm; scale 0, 1, 2; alpha (ordinal, all judges) 0.7778 over 3 pairs
        judge_a  judge_b  common  only_a  only_b  agreement   kappa  kappa_lin  kappa_quad  alpha_ord
        human    llm           3       0       0     0.6667  0.5000     0.6667      0.8000     0.7778
        largest disagreements (1 of 1):
          human/llm q1 b: 1 vs 0
        """
        p = self._pairs
        scale = ", ".join(f"{g:g}" if isinstance(g, float) else str(g) for g in self.scale)
        alpha = "-" if math.isnan(self.alpha) else f"{self.alpha:.4f}"
        lines = [
            f"judges {', '.join(self.judges)}; scale {scale}; alpha (ordinal, all judges) {alpha} "
            f"over {self.n_units} pairs"
        ]
        head = ["judge_a", "judge_b", "common", "only_a", "only_b", "agreement", "kappa", "kappa_lin"]
        rows = [[*head, "kappa_quad", "alpha_ord"]]
        for r in p.iter_rows(named=True):
            stats = ["-" if r[s] is None else f"{r[s]:.4f}" for s in _STATS]
            rows.append(
                [
                    r["judge_a"],
                    r["judge_b"],
                    *(str(r[c]) for c in ("n_common", "n_only_a", "n_only_b")),
                    *stats,
                ]
            )
        lines.append(text_table(rows[0], rows[1:], numeric=range(2, len(rows[0])), rule=False))
        d = self._disagreements
        if d.height:
            shown = d.group_by("judge_a", "judge_b", maintain_order=True).head(top)
            lines.append(f"largest disagreements ({shown.height} of {d.height}):")
            lines += [
                f"  {r['judge_a']}/{r['judge_b']} {r[d.columns[2]]} {r[d.columns[3]]}: "
                f"{r['grade_a']} vs {r['grade_b']}"
                for r in shown.iter_rows(named=True)
            ]
        lines += list(self.verdicts)
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.to_text()

    def __repr__(self) -> str:
        return f"Agreement(judges={list(self.judges)!r}, alpha={self.alpha:.4f}, n_units={self.n_units})"


# --- input ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Cols:
    judge: str
    query: str
    doc: str
    relevance: str


def _missing(frame: str, role: str, col: str, names: list[str], parameter: str) -> ColumnNotFoundError:
    return ColumnNotFoundError.from_missing(
        role=role, missing=col, available=names, frame=frame, parameter=parameter
    )


def _one_judge(lf: pl.LazyFrame, frame: str, cols: _Cols, judge: str | None) -> pl.LazyFrame:
    """One qrels frame as (judge, query, doc, grade) with string ids."""
    schema = lf.collect_schema()
    names = list(schema.names())
    wanted = [(cols.query, "query_id", "query_col"), (cols.doc, "doc_id", "doc_col")]
    wanted.append((cols.relevance, "relevance", "relevance_col"))
    if judge is None and cols.judge not in names:
        msg = (
            f"The {frame} frame has no judge column {cols.judge!r}. Available columns: "
            f"[{', '.join(repr(n) for n in names[:12])}].\nHint: name it with judge_col=..., or pass "
            "the judges' qrels as a mapping {'human': qrels_h, 'llm': qrels_l}."
        )
        raise ColumnNotFoundError(msg)
    for col, role, param in wanted:
        if col not in names:
            raise _missing(frame, role, col, names, param)
    if not schema[cols.relevance].is_numeric():
        msg = (
            f"The {frame} frame's grades ({cols.relevance!r}) must be numeric; got "
            f"{schema[cols.relevance]}. Hint: cast them, e.g. pl.col({cols.relevance!r}).cast(pl.Int64)."
        )
        raise InvalidDataError(msg)
    who = pl.lit(judge, pl.String) if judge is not None else pl.col(cols.judge).cast(pl.String)
    return lf.select(
        who.alias(_J),
        pl.col(cols.query).cast(pl.String).alias(_Q),
        pl.col(cols.doc).cast(pl.String).alias(_D),
        pl.col(cols.relevance).alias(_G),
    )


def _judgments(qrels: Any, cols: _Cols) -> tuple[pl.DataFrame, list[str], Origin]:
    """All judgments stacked as (judge, query, doc, grade), the judges in order, the origin."""
    if isinstance(qrels, Mapping):
        if not qrels or not all(isinstance(k, str) for k in qrels):
            err = InvalidParameterError.for_value(
                "qrels", _WHERE, "a frame with a judge column or a mapping {judge name: qrels}", qrels
            )
            raise err
        parts, origins = [], []
        for name, frame in qrels.items():
            lf, origin = to_lazy(frame, f"qrels {name!r}")
            parts.append(_one_judge(lf, f"qrels {name!r}", cols, name))
            origins.append(origin)
        df = pl.concat(parts, how="vertical_relaxed").collect()
        origin = origins[0]
    else:
        lf, origin = to_lazy(qrels, "qrels")
        df = _one_judge(lf, "qrels", cols, None).collect()
    _refuse_nulls(df, cols)
    judges = [str(j) for j in df[_J].unique(maintain_order=True).to_list()]
    if len(judges) < 2:
        where = "mapping" if isinstance(qrels, Mapping) else f"judge column {cols.judge!r}"
        msg = (
            f"{_WHERE} needs at least 2 judges; the {where} holds {len(judges)} "
            f"({', '.join(repr(j) for j in judges) or 'none'}). Hint: stack the judges' qrels with a "
            "judge column, or pass {'human': qrels_h, 'llm': qrels_l}."
        )
        raise InvalidDataError(msg)
    dup = df.group_by(_J, _Q, _D).len().filter(pl.col("len") > 1)
    if dup.height:
        r = dup.row(0, named=True)
        msg = (
            f"{dup.height} (judge, query, document) triple(s) are judged more than once: judge "
            f"{r[_J]!r} graded query {r[_Q]!r}, document {r[_D]!r} {r['len']} times. Hint: keep one "
            "grade per judge (e.g. the latest), or name the rounds as different judges."
        )
        raise DuplicateRowsError(msg)
    return df, judges, origin


def _refuse_nulls(df: pl.DataFrame, cols: _Cols) -> None:
    for col, name in ((_J, cols.judge), (_Q, cols.query), (_D, cols.doc), (_G, cols.relevance)):
        nulls = df.filter(
            pl.col(col).is_null() | (pl.col(col).is_nan() if df.schema[col].is_float() else False)
        )
        if nulls.height:
            r = nulls.row(0, named=True)
            msg = (
                f"The qrels have {nulls.height} row(s) with a null or NaN {name!r} (e.g. judge {r[_J]!r}, "
                f"query {r[_Q]!r}, document {r[_D]!r}). Hint: drop the rows nobody graded."
            )
            raise InvalidDataError(msg)


def _with_positions(df: pl.DataFrame, scale: Iterable[float] | None) -> tuple[pl.DataFrame, tuple[Any, ...]]:
    """Each grade's position on the scale (declared, or the distinct grades); refuses grades off it."""
    observed = df[_G].unique().sort()
    if scale is None:
        values = observed.to_list()
    else:
        try:
            values = sorted({float(v) for v in scale})
        except (TypeError, ValueError):
            err = InvalidParameterError.for_value("scale", _WHERE, "a sequence of numeric grades", scale)
            raise err from None
        values = [int(v) if v.is_integer() and df.schema[_G].is_integer() else v for v in values]
        if not values:
            raise InvalidParameterError.for_value("scale", _WHERE, "a non-empty sequence of grades", scale)
    lookup = pl.DataFrame({"__ir_g": pl.Series(values, dtype=pl.Float64), _P: range(len(values))})
    out = df.with_columns(pl.col(_G).cast(pl.Float64).alias("__ir_g")).join(lookup, on="__ir_g", how="left")
    off = out.filter(pl.col(_P).is_null())
    if off.height:
        r = off.row(0, named=True)
        msg = (
            f"{off.height} grade(s) are outside the declared scale {values}: judge {r[_J]!r} graded query "
            f"{r[_Q]!r}, document {r[_D]!r} {r[_G]!r}. Hint: fix the grade, or declare the scale "
            "with scale=[...] including it."
        )
        raise InvalidDataError(msg)
    return out.drop("__ir_g"), tuple(values)


# --- pairs of judges -------------------------------------------------------------------------------
def _common(df: pl.DataFrame, judges: list[str]) -> tuple[pl.DataFrame, list[dict[str, Any]]]:
    """The pairs both judges of each pair graded (with a pair index) and each pair's counts."""
    parts, counts = [], []
    for i, (a, b) in enumerate(itertools.combinations(judges, 2)):  # over judges, not queries
        ja = df.filter(pl.col(_J) == a).select(_Q, _D, _G, _P)
        jb = df.filter(pl.col(_J) == b).select(_Q, _D, _G, _P)
        both = ja.join(jb, on=[_Q, _D], how="inner", suffix="_b")
        parts.append(both.with_columns(pl.lit(i, pl.Int64).alias("__ir_pair")))
        counts.append({
            "judge_a": a, "judge_b": b, "n_common": both.height,
            "n_only_a": ja.height - both.height, "n_only_b": jb.height - both.height,
            "n_queries": both[_Q].n_unique(),
        })  # fmt: skip
    return pl.concat(parts), counts


def _stats_frame(stats: dict[str, FloatArray]) -> pl.DataFrame:
    return pl.DataFrame({s: stats[s] for s in _STATS}).with_columns(pl.col(_STATS).fill_nan(None))


def _pair_tables(
    common: pl.DataFrame, counts: list[dict[str, Any]], k: int, cols: _Cols
) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """The pairs, per-query and disagreements tables."""
    pair_names = pl.DataFrame(counts).select("judge_a", "judge_b").with_row_index("__ir_pair")
    pair_names = pair_names.with_columns(pl.col("__ir_pair").cast(pl.Int64))
    overall = confusion_statistics(
        common["__ir_pair"], common[_P], common[f"{_P}_b"], k, n_groups=len(counts)
    )
    pairs = pl.concat([pl.DataFrame(counts), _stats_frame(overall)], how="horizontal")
    groups = common.group_by("__ir_pair", _Q).agg(pl.len().cast(pl.Int64).alias("n_common"))
    groups = (
        groups.sort("__ir_pair", _Q)
        .with_row_index("__ir_gid")
        .with_columns(pl.col("__ir_gid").cast(pl.Int64))
    )
    keyed = common.join(groups.select("__ir_pair", _Q, "__ir_gid"), on=["__ir_pair", _Q])
    per_q = confusion_statistics(keyed["__ir_gid"], keyed[_P], keyed[f"{_P}_b"], k, n_groups=groups.height)
    per_query = pl.concat([groups, _stats_frame(per_q)], how="horizontal").join(pair_names, on="__ir_pair")
    per_query = per_query.select("judge_a", "judge_b", pl.col(_Q).alias(cols.query), "n_common", *_STATS)
    distance = (pl.col(_P) - pl.col(f"{_P}_b")).abs().cast(pl.Int64).alias("distance")
    dis = common.filter(pl.col(_P) != pl.col(f"{_P}_b")).with_columns(distance)
    dis = dis.sort(["__ir_pair", "distance", _Q, _D], descending=[False, True, False, False]).join(
        pair_names, on="__ir_pair", maintain_order="left"
    )
    dis = dis.select(
        "judge_a", "judge_b", pl.col(_Q).alias(cols.query), pl.col(_D).alias(cols.doc),
        pl.col(_G).alias("grade_a"), pl.col(f"{_G}_b").alias("grade_b"), "distance",
    )  # fmt: skip
    return pairs, per_query, dis


# --- system rankings -------------------------------------------------------------------------------
def _stacked_runs(runs: Any, cols: _Cols, system_col: str) -> pl.DataFrame:
    """The runs stacked (THE rules: :func:`irframe._input.runs.stack_runs`), the system in
    ``system_col``, the ids as text (the judges' ids are text)."""
    stack = stack_runs(runs, system_col, _WHERE, at_least=2)
    lf = stack.lf.drop(system_col, strict=False).rename({SYSTEM: system_col})
    names = lf.collect_schema().names()
    return lf.with_columns(pl.col(c).cast(pl.String) for c in (cols.query, cols.doc) if c in names).collect()


def _system_scores(
    df: pl.DataFrame,
    judges: list[str],
    runs: pl.DataFrame,
    *,
    labels: list[str],
    ranking_on: str,
    cols: _Cols,
    system_col: str,
    options: Mapping[str, Any],
) -> pl.DataFrame:
    """Each system's mean of each measure under each judge (long: judge, system, measure, value)."""
    from irframe import evaluate

    if ranking_on == "common":
        everyone = df.group_by(_Q, _D).agg(pl.col(_J).n_unique().alias("__ir_nj"))
        df = df.join(
            everyone.filter(pl.col("__ir_nj") == len(judges)).select(_Q, _D), on=[_Q, _D], how="semi"
        )
    parts = []
    for judge in judges:  # over judges, not queries
        qrels = df.filter(pl.col(_J) == judge).select(
            pl.col(_Q).alias(cols.query), pl.col(_D).alias(cols.doc), pl.col(_G).alias("relevance")
        )
        means = evaluate(
            runs, labels, qrels, by=system_col, query_col=cols.query, doc_col=cols.doc,
            qrels_relevance_col="relevance", **options,
        )  # fmt: skip
        long = means.unpivot(labels, index=system_col, variable_name="measure", value_name="value")
        parts.append(
            long.with_columns(
                pl.lit(judge).alias("judge"), pl.lit(qrels.height, pl.Int64).alias("n_judgments")
            )
        )
    scores = pl.concat(parts).rename({system_col: "system"})
    return scores.select("judge", "system", "measure", pl.col("value").cast(pl.Float64), "n_judgments")


def _number(x: float) -> str:
    if math.isnan(x):
        return "undefined"
    text = f"{x:.3f}".rstrip("0")
    return text + "0" if text.endswith(".") else text


def _compare_rankings(
    judges: tuple[str, str], measure: str, systems: list[str], xa: FloatArray, xb: FloatArray
) -> dict[str, Any]:
    """The rank correlations of two judges' scores of the systems, and the verdict line."""
    a, b = judges
    n = len(systems)
    tau, rho, tap = kendall_tau_b(xa, xb), spearman_rho(xa, xb), tau_ap(xa, xb, systems)
    iu = np.triu_indices(n, 1)
    sa = np.sign(xa[:, None] - xa[None, :])[iu]
    sb = np.sign(xb[:, None] - xb[None, :])[iu]
    swapped = [f"{systems[i]}/{systems[j]}" for i, j, s in zip(iu[0], iu[1], sa * sb, strict=True) if s < 0]
    tied_once = int(np.count_nonzero((sa == 0) != (sb == 0)))
    if not swapped and not tied_once and tau == 1.0:
        verdict = f"judge {b!r} ranks the {n} systems as judge {a!r} does on {measure}: tau 1.0"
    else:
        verdict = (
            f"judge {b!r} ranks the {n} systems differently from judge {a!r} on {measure}: tau "
            f"{_number(tau)}, tau_AP {_number(tap)}, Spearman {_number(rho)}; {len(swapped)} of "
            f"{len(sa)} pairs of systems swapped"
        )
        if swapped:
            verdict += " (" + ", ".join(swapped[:5]) + (", ..." if len(swapped) > 5 else "") + ")"
        if tied_once:
            verdict += f"; {tied_once} pair(s) tied under one judge only"
    return {
        "judge_a": a, "judge_b": b, "measure": measure, "n_systems": n, "kendall_tau": tau,
        "tau_ap": tap, "spearman": rho, "n_swapped": len(swapped), "swapped": ", ".join(swapped),
        "verdict": verdict,
    }  # fmt: skip


def _rankings(scores: pl.DataFrame, judges: list[str], labels: list[str]) -> pl.DataFrame:
    rows = []
    systems = sorted(scores["system"].unique().to_list())
    for measure in labels:
        for a, b in itertools.combinations(judges, 2):

            def vec(judge: str, m: str = measure) -> FloatArray:
                part = scores.filter((pl.col("judge") == judge) & (pl.col("measure") == m))
                by_name = dict(zip(part["system"].to_list(), part["value"].to_list(), strict=True))
                return np.array([by_name[s] if by_name[s] is not None else math.nan for s in systems])

            rows.append(_compare_rankings((a, b), measure, systems, vec(a), vec(b)))
    frame = pl.DataFrame(rows)
    return frame.with_columns(pl.col("kendall_tau", "tau_ap", "spearman").fill_nan(None))


def _labels(measures: Any) -> list[str]:
    items = [measures] if isinstance(measures, str) or not isinstance(measures, Iterable) else list(measures)
    if not items:
        raise InvalidParameterError.for_value("measures", _WHERE, "a measure or a non-empty list", measures)
    return [str(m) for m in items]


def agreement(
    qrels: Any,
    *,
    judge_col: str = "judge",
    scale: Iterable[float] | None = None,
    runs: Any = None,
    measures: Any = "nDCG@10",
    ranking_on: Literal["common", "all"] = "common",
    query_col: str = "query_id",
    doc_col: str = "doc_id",
    relevance_col: str = "relevance",
    system_col: str = "system",
    **evaluate_options: Any,
) -> Agreement:
    """How far judges agree (per pair of judges, overall, per query) and whether they rank systems alike.

    The statistics, what is compared when judges judged different documents, and the
    ranking correlations are defined in the Notes below.

    Parameters
    ----------
    qrels : frame or mapping of str to frame
        Judgments with a judge (or source) column, e.g. human, LLM and click-derived
        grades stacked; or ``{judge name: qrels}``.
    judge_col : str, default "judge"
        The judge column (of a stacked frame).
    scale : sequence of numbers, optional
        The declared grades (e.g. ``[0, 1, 2, 3]``); a grade outside raises. Default:
        the distinct grades given.
    runs : mapping of str to frame, or a stacked frame with ``system_col``, optional
        Systems to evaluate under each judge and rank.
    measures : str or list of str, default "nDCG@10"
        The measures the systems are ranked by.
    ranking_on : {"common", "all"}, default "common"
        Evaluate on the pairs all judges judged, or on each judge's own judgments.
    query_col, doc_col, relevance_col : str
        Column names of the qrels (and the runs' query and doc columns).
    system_col : str, default "system"
        The system column of stacked runs.
    **evaluate_options
        Passed to :func:`irframe.evaluate` (``missing``, ``order``, ``rank_col``...).

    Returns
    -------
    Agreement
        ``.pairs``, ``.per_query``, ``.disagreements`` (frames in the qrels' type), and
        with runs ``.system_scores``, ``.rankings``, ``.verdicts``; ``str()`` shows them.

    Raises
    ------
    ColumnNotFoundError
        The judge, query, doc or grade column is missing.
    InvalidDataError
        Fewer than 2 judges, a grade outside ``scale``, null grades, fewer than 2 systems.
    DuplicateRowsError
        A judge graded the same (query, document) twice.

    Notes
    -----
    *What is compared.*
    Every pair of judges (in the order they first appear, or the mapping's order) is
    compared on the (query, document) pairs **both** judged; the pairs only one of them
    judged are counted (``n_only_a``, ``n_only_b``) and left out of that pair's statistics.

    Grades are ordinal categories on a scale: the declared ``scale`` (a grade outside it
    raises), else the sorted distinct grades the judges gave.  Weighted kappas and
    Krippendorff's alpha use the grades' **positions** on the scale (0, 1, 2, ...), which
    are the grades themselves for a scale of consecutive integers from 0.

    *The statistics (each pair of judges, overall and per query).*
    From the confusion matrix ``C`` of the pair (``C[i, j]``: pairs judge a graded ``i`` and
    judge b graded ``j``, ``n`` pairs) and ``E = outer(rows, cols) / n``:

    * ``agreement``: ``trace(C) / n``;
    * ``kappa`` (Cohen 1960), ``kappa_linear``, ``kappa_quadratic`` (Cohen 1968):
      ``1 - sum(W * C) / sum(W * E)`` with ``W[i, j]`` = ``i != j``, ``|i - j|``,
      ``(i - j)**2`` (as ``sklearn.metrics.cohen_kappa_score(labels=scale, weights=...)``);
    * ``alpha_ordinal``: Krippendorff's alpha with the ordinal metric, from the coincidence
      matrix ``O = C + C.T`` (two values per pair) and its marginals ``n_g``:
      ``delta(c, k) = (sum_{g=c..k} n_g - (n_c + n_k) / 2) ** 2`` and
      ``alpha = 1 - (N - 1) sum(O * delta) / sum(n_c n_k delta)``, ``N = 2 n``.

    A statistic is null where it is 0/0: the pair's grades leave no room for chance
    disagreement (both judges gave one and the same grade to everything), typical of a
    single query with few documents.  The overall ``alpha`` of all judges together uses
    every (query, document) pair at least two judges graded (Krippendorff's alpha allows
    missing values), as the ``krippendorff`` package does.

    *System rankings (given runs).*
    Each system is evaluated under each judge with :func:`irframe.evaluate`.  With
    ``ranking_on="common"`` (default) every judge's qrels are cut to the (query, document)
    pairs **all** judges judged, so a ranking change comes from the grades, not from
    coverage; ``"all"`` uses each judge's own judgments.  The number of judgments used is
    in ``system_scores``.  Per pair of judges and measure: Kendall's tau-b (as
    ``scipy.stats.kendalltau``), Spearman's rho (average ranks, as ``scipy.stats.spearmanr``)
    and tau_AP (Yilmaz, Aslam and Robertson 2008) with judge a's ranking as the truth:
    ``tau_AP = 2 / (N - 1) * sum_{i=2..N} C(i) / (i - 1) - 1``, where ``C(i)`` counts the
    systems above rank ``i`` in judge b's ranking that judge a also ranks above it.  A
    pair tied in either ranking counts one half in ``C(i)``; judge b's ties are ordered by
    system name.

    Examples
    --------
    >>> import polars as pl, irframe
    >>> qrels = pl.DataFrame({
    ...     "judge": ["human"] * 4 + ["llm"] * 4,
    ...     "query_id": ["q1", "q1", "q2", "q2"] * 2,
    ...     "doc_id": ["a", "b", "c", "d"] * 2,
    ...     "relevance": [2, 0, 1, 0,   2, 0, 1, 1]})
    >>> runs = {"bm25": pl.DataFrame({"query_id": ["q1", "q1", "q2", "q2"],
    ...                               "doc_id": ["b", "a", "d", "c"], "rank": [1, 2, 1, 2]}),
    ...         "dense": pl.DataFrame({"query_id": ["q1", "q1", "q2", "q2"],
    ...                                "doc_id": ["a", "b", "c", "d"], "rank": [1, 2, 1, 2]})}
    >>> a = irframe.agreement(qrels, runs=runs, measures="RR")
    >>> a.pairs.select("judge_a", "judge_b", "n_common", "agreement", "kappa")
    shape: (1, 5)
    ┌─────────┬─────────┬──────────┬───────────┬──────────┐
    │ judge_a ┆ judge_b ┆ n_common ┆ agreement ┆ kappa    │
    │ ---     ┆ ---     ┆ ---      ┆ ---       ┆ ---      │
    │ str     ┆ str     ┆ i64      ┆ f64       ┆ f64      │
    ╞═════════╪═════════╪══════════╪═══════════╪══════════╡
    │ human   ┆ llm     ┆ 4        ┆ 0.75      ┆ 0.636364 │
    └─────────┴─────────┴──────────┴───────────┴──────────┘
    >>> print(a.verdicts[0])
    judge 'llm' ranks the 2 systems as judge 'human' does on RR: tau 1.0
    """
    cols = _Cols(judge_col, query_col, doc_col, relevance_col)
    if ranking_on not in ("common", "all"):
        raise InvalidParameterError.for_value("ranking_on", _WHERE, "'common' or 'all'", ranking_on)
    df, judges, origin = _judgments(qrels, cols)
    df, values = _with_positions(df, scale)
    common, counts = _common(df, judges)
    pairs, per_query, dis = _pair_tables(common, counts, len(values), cols)
    units = df.select(pl.struct(_Q, _D).rank("dense").cast(pl.Int64) - 1).to_series()
    alpha, n_units = _overall_alpha(units, df[_P], len(values))
    scores = rankings = None
    verdicts: tuple[str, ...] = ()
    if runs is not None:
        labels = _labels(measures)
        stacked = _stacked_runs(runs, cols, system_col)
        scores = _system_scores(
            df, judges, stacked, labels=labels, ranking_on=ranking_on, cols=cols,
            system_col=system_col, options=evaluate_options,
        )  # fmt: skip
        rankings = _rankings(scores, judges, labels)
        verdicts = tuple(rankings["verdict"].to_list())

    def back(frame: pl.DataFrame | None) -> Any:
        return None if frame is None else from_lazy(frame, origin)

    return Agreement(
        pairs=back(pairs), per_query=back(per_query), disagreements=back(dis),
        system_scores=back(scores), rankings=back(rankings), verdicts=verdicts,
        alpha=alpha, n_units=n_units, judges=tuple(judges), scale=values,
        _pairs=pairs, _disagreements=dis,
    )  # fmt: skip
