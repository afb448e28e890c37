"""The golden-set loop: snapshot a baseline, check every change against it, read what moved.

:func:`snapshot` stores a run's per-query values with fingerprints of the judgments (per
query), the queries table and the run, in a JSON file meant to be committed.
:func:`check` evaluates a candidate run against the same judgments, compares it with a
baseline (a run or a snapshot) per measure, overall and per query segment, with a
paired two-sided test and a multiple-testing correction (the statistics of
:func:`irframe.compare`), and decides:

* ``fail_on="significant"`` (default): a **regression** is a drop larger than
  ``max_drop`` (absolute, default 0) whose corrected p-value is below ``alpha``;
* ``fail_on="any-drop"``: any drop larger than ``max_drop`` is a regression.

Every row of the comparison table is gated: the overall rows and, with ``by``, the
rows of each segment.  The correction family is the whole table (measures x (overall
+ segments)).  Queries are paired as :func:`irframe.compare` pairs them: on the queries
with a value on both sides, judged queries absent from a run counting 0 under
``missing="zero"``; per-query deltas under 1e-12 count as ties.

When the baseline is a snapshot and the judgments changed since it was taken (queries
added, removed or regraded), :func:`check` refuses with
:class:`~irframe.exceptions.JudgmentsChangedError` naming them, unless
``allow_changed_qrels=True``: then only the unchanged queries are compared and the
result says how many were left out.  A run baseline is simply evaluated again.

Examples
--------
>>> import irframe
>>> from irframe.datasets import golden
>>> g = golden()
>>> bm25 = g.runs.filter(system="bm25").drop("system")
>>> hybrid = g.runs.filter(system="hybrid").drop("system")
>>> base = irframe.snapshot(bm25, g.qrels, ["nDCG@10", "R@100"])
>>> result = irframe.check(hybrid, g.qrels, baseline=base)
>>> result.passed
True
>>> print(result.report().splitlines()[0])
PASS: no regression on 2 measures (nDCG@10, R@100) over 40 queries.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import polars as pl

from irframe._check.snapshot import (
    Snapshot,
    combined,
    is_snapshot_file,
    natural_key,
    qrels_fingerprints,
    queries_fingerprint,
    run_fingerprint,
)
from irframe._input.options import COLUMN_OPTIONS, DEFAULT_RANK, Missing, Options
from irframe.exceptions import (
    ColumnNotFoundError,
    InvalidDataError,
    InvalidParameterError,
    JudgmentsChangedError,
    closest,
)

if TYPE_CHECKING:
    from irframe._input.frames import Origin

__all__ = [
    "DEFAULT_MEASURES",
    "CheckResult",
    "JudgmentChanges",
    "Snapshot",
    "check",
    "read_snapshot",
    "snapshot",
]

DEFAULT_MEASURES: tuple[str, ...] = ("nDCG@10", "RR", "R@100")
FAIL_ON = ("significant", "any-drop")
TIE_TOLERANCE = 1e-12  # as irframe.compare: smaller per-query deltas are float noise
_Q = "query_id"
_COLUMN_KEYS = COLUMN_OPTIONS | {"order"}  # columns= is expanded into the *_col names first

MeasureLike = str | Any  # a measure string or an irframe Measure


# --- inputs -------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Run:
    """One run as a LazyFrame without a system column, with its name and origin."""

    lf: pl.LazyFrame
    name: str
    origin: Origin


def _columns(kw: Mapping[str, Any]) -> dict[str, str]:
    """Run and qrels column names from the column keywords (the one Options value's defaults)."""
    opts = Options.build("check", **kw)
    qq, qd, qr = opts.qrels_columns
    return {
        "query": opts.query_col,
        "doc": opts.doc_col,
        "rank": opts.rank_col or DEFAULT_RANK,
        "score": opts.score_col,
        "qrels_query": qq,
        "qrels_doc": qd,
        "qrels_relevance": qr,
    }


def _check_column_kwargs(kw: dict[str, Any], where: str) -> None:
    """Unknown keywords raise with a did-you-mean (the options value validates them);
    ``columns=`` (a preset or a mapping) is expanded in place into explicit names."""
    opts = Options.build(where, **kw)
    if kw.get("columns") is not None:
        given = {k: v for k, v in opts.column_kwargs().items() if k in kw or v != getattr(Options(), k)}
        kw.clear()
        kw.update(given)


def _read_path(path: str | os.PathLike[str], kind: str) -> pl.DataFrame:
    from irframe.io.sniff import load, load_queries

    if kind == "queries":
        return load_queries(str(path), {})
    return load(str(path), "qrels" if kind == "qrels" else "run", {}, None)[0]


def _lazy(obj: Any, kind: str) -> tuple[pl.LazyFrame, Origin, str]:
    """A frame or a file path as a LazyFrame, its origin and a display name."""
    from irframe._input.frames import Origin, to_lazy

    if isinstance(obj, str | os.PathLike):
        from irframe.io._source import strip_suffixes

        return _read_path(obj, kind).lazy(), Origin("polars"), strip_suffixes(str(obj))
    lf, origin = to_lazy(obj, role=kind)
    return lf, origin, kind


def _as_run(obj: Any, kind: str) -> _Run:
    """One system's run; a ``system`` column with one value names it."""
    lf, origin, name = _lazy(obj, kind)
    if "system" in lf.collect_schema():
        systems = lf.select(pl.col("system").unique()).collect()["system"].to_list()
        if len(systems) > 1:
            shown = sorted(str(s) for s in systems)[:5]
            msg = (
                f"The {kind} run holds {len(systems)} systems ({', '.join(shown)}); check compares "
                f"one run with a baseline. Hint: select one system, e.g. run.filter(system={shown[0]!r})."
            )
            raise InvalidParameterError(msg)
        if systems and systems[0] is not None and not isinstance(obj, str | os.PathLike):
            name = str(systems[0])
        lf = lf.drop("system")
    return _Run(lf, name, origin)


def _labels(measures: MeasureLike | Iterable[MeasureLike] | None, default: Sequence[str]) -> list[str]:
    """Canonical measure strings, in order, without repeats."""
    from irframe.measures import parse_measure

    if measures is None:
        items: list[Any] = list(default)
    elif isinstance(measures, str) or not isinstance(measures, Iterable):
        items = [measures]
    else:
        items = list(measures)
    return list(dict.fromkeys(str(parse_measure(m)) for m in items))


def _per_query(
    run: pl.LazyFrame, qrels: pl.LazyFrame, labels: Sequence[str], missing: str, kw: Mapping[str, Any]
) -> pl.DataFrame:
    """``query_id`` (string) and one column per measure label."""
    from irframe.functions import evaluate

    out = evaluate(run, list(labels), qrels, per_query=True, **{"missing": missing, **kw})
    df = out.collect() if isinstance(out, pl.LazyFrame) else out
    qcol = _columns(kw)["query"]
    return df.select(pl.col(qcol).cast(pl.String).alias(_Q), *labels)


def _qrels_hashes(qrels: pl.LazyFrame, kw: Mapping[str, Any]) -> dict[str, str]:
    cols = _columns(kw)
    schema = qrels.collect_schema()
    for role, key in (("query_id", "qrels_query"), ("doc_id", "qrels_doc"), ("relevance", "qrels_relevance")):
        if cols[key] not in schema:
            raise ColumnNotFoundError.from_missing(
                role=role, missing=cols[key], available=list(schema), frame="qrels", parameter=f"{key}_col"
            )
    return qrels_fingerprints(qrels, cols["qrels_query"], cols["qrels_doc"], cols["qrels_relevance"])


def _queries_frame(queries: Any, kw: Mapping[str, Any]) -> pl.DataFrame | None:
    """The queries table as polars with a string ``query_id`` column."""
    if queries is None:
        return None
    lf, _, _ = _lazy(queries, "queries")
    qcol = _columns(kw)["query"]
    names = lf.collect_schema().names()
    if qcol not in names:
        raise ColumnNotFoundError.from_missing(
            role="query_id", missing=qcol, available=names, frame="queries", parameter="query_col"
        )
    return lf.with_columns(pl.col(qcol).cast(pl.String)).rename({qcol: _Q} if qcol != _Q else {}).collect()


# --- snapshot -----------------------------------------------------------------------------
def _version() -> str:
    from irframe import __version__

    return __version__


def snapshot(
    run: Any,
    qrels: Any,
    measures: MeasureLike | Iterable[MeasureLike] = DEFAULT_MEASURES,
    *,
    queries: Any = None,
    path: str | os.PathLike[str] | None = None,
    missing: Missing = "zero",
    duplicates: Literal["error", "first"] = "error",
    **column_kwargs: Any,
) -> Snapshot:
    """Store a run's per-query values and the fingerprints of what they were computed on.

    Parameters
    ----------
    run : frame or path
        One system's run (pandas or polars frame, or a TREC/table file path).
    qrels : frame or path
        The judgments.
    measures : str, Measure or list, default ("nDCG@10", "RR", "R@100")
        Stored under their canonical strings (``str(parse_measure(m))``).
    queries : frame or path, optional
        Queries table (``query_id`` and attributes such as ``text`` or ``segment``);
        only its fingerprint is stored.
    path : str or path-like, optional
        Also write the snapshot file there (see :meth:`Snapshot.to_json`).
    missing, duplicates, **column_kwargs
        As for :func:`irframe.evaluate`.

    Returns
    -------
    Snapshot

    Examples
    --------
    >>> from irframe.datasets import golden
    >>> g = golden()
    >>> snap = snapshot(g.runs.filter(system="bm25"), g.qrels, ["ndcg_cut_10", "RR"])
    >>> snap.measures
    ('nDCG(gain=linear)@10', 'RR')
    >>> print(snap.to_json().splitlines()[7])
        "q01": {"qrels": "...", "nDCG(gain=linear)@10": 0.49588..., "RR": 0.3333...},
    """
    column_kwargs = dict(column_kwargs)
    _check_column_kwargs(column_kwargs, "snapshot")
    kw = {"duplicates": duplicates, **column_kwargs}
    labels = _labels(measures, DEFAULT_MEASURES)
    the_run = _as_run(run, "run")
    qrels_lf, _, _ = _lazy(qrels, "qrels")
    values = _per_query(the_run.lf, qrels_lf, labels, missing, kw)
    per_query = _qrels_hashes(qrels_lf, column_kwargs)
    cols = _columns(column_kwargs)
    fingerprints = {
        "qrels": combined(per_query),
        "queries": queries_fingerprint(_queries_frame(queries, column_kwargs)),
        "run": run_fingerprint(the_run.lf, [cols["query"], cols["doc"], cols["rank"], cols["score"]]),
    }
    snap = Snapshot(
        measures=tuple(labels),
        values=values,
        qrels=per_query,
        fingerprints=fingerprints,
        missing=missing,
        irframe_version=_version(),
    )
    if path is not None:
        snap.write(path)
    return snap


def read_snapshot(path: str | os.PathLike[str]) -> Snapshot:
    """Read a snapshot file written by :func:`snapshot` or ``irframe snapshot``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from irframe.datasets import golden
    >>> g = golden()
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "bm25.snapshot.json"
    >>> _ = snapshot(g.runs.filter(system="bm25"), g.qrels, ["RR"], path=f)
    >>> read_snapshot(f).values.shape
    (40, 2)
    """
    return Snapshot.read(path)


# --- judgments that changed ---------------------------------------------------------------
@dataclass(frozen=True)
class JudgmentChanges:
    """Queries whose judgments differ from a snapshot's."""

    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    regraded: list[str] = field(default_factory=list)

    @classmethod
    def between(cls, old: Mapping[str, str], new: Mapping[str, str]) -> JudgmentChanges:
        """Compare two ``{query: fingerprint}`` mappings."""
        return cls(
            added=sorted((q for q in new if q not in old), key=natural_key),
            removed=sorted((q for q in old if q not in new), key=natural_key),
            regraded=sorted((q for q in new if q in old and new[q] != old[q]), key=natural_key),
        )

    @property
    def queries(self) -> list[str]:
        """Every changed query, in natural order."""
        return sorted([*self.added, *self.removed, *self.regraded], key=natural_key)

    def __bool__(self) -> bool:
        return bool(self.added or self.removed or self.regraded)

    def describe(self, limit: int = 10) -> str:
        """``"2 added (q41, q42), 1 regraded (q07)"``."""
        parts = []
        for what, qs in (("added", self.added), ("removed", self.removed), ("regraded", self.regraded)):
            if qs:
                shown = ", ".join(qs[:limit]) + (f", ... ({len(qs) - limit} more)" if len(qs) > limit else "")
                parts.append(f"{len(qs)} {what} ({shown})")
        return ", ".join(parts)


def _judgment_changes(snap: Snapshot, current: Mapping[str, str], allow: bool) -> JudgmentChanges:
    changes = JudgmentChanges.between(snap.qrels, current)
    if changes and not allow:
        msg = (
            f"The judgments changed since the snapshot {snap.name} was taken: "
            f"{changes.describe()}. Hint: take a new snapshot of the baseline, or pass "
            "allow_changed_qrels=True (--allow-changed-qrels) to compare on the unchanged queries only."
        )
        raise JudgmentsChangedError(msg)
    return changes


# --- pairing and statistics ---------------------------------------------------------------
@dataclass(frozen=True)
class _Gate:
    """The decision rule and the statistics settings, validated once."""

    max_drop: float
    alpha: float
    fail_on: str
    test: str
    correction: str
    n_permutations: int
    n_bootstrap: int
    seed: int

    @classmethod
    def build(cls, **values: Any) -> _Gate:
        from irframe.stats import CORRECTIONS, TESTS

        max_drop, alpha = values["max_drop"], values["alpha"]
        if isinstance(max_drop, bool) or not isinstance(max_drop, int | float) or not max_drop >= 0:
            raise InvalidParameterError.for_value("max_drop", "check", "a number >= 0", max_drop)
        if isinstance(alpha, bool) or not isinstance(alpha, int | float) or not 0 < alpha < 1:
            raise InvalidParameterError.for_value("alpha", "check", "a float in (0, 1)", alpha)
        if values["fail_on"] not in FAIL_ON:
            raise InvalidParameterError.for_value(
                "fail_on", "check", "'significant' or 'any-drop'", values["fail_on"]
            )
        for name, table in (("test", TESTS), ("correction", CORRECTIONS)):
            got = values[name]
            if not isinstance(got, str) or got.lower() not in table:
                expected = "one of " + ", ".join(repr(v) for v in dict.fromkeys(table.values()))
                raise InvalidParameterError.for_value(name, "check", expected, got)
            values[name] = table[got.lower()]
        return cls(**{**values, "max_drop": float(max_drop), "alpha": float(alpha)})

    def describe(self) -> str:
        """The rule in words."""
        drop = f"a drop larger than {self.max_drop:g}"
        if self.fail_on == "any-drop":
            return f"fails on {drop} (any drop)"
        corr = {"holm": "Holm", "bonferroni": "Bonferroni", "bh": "Benjamini-Hochberg", "none": "no"}
        return (
            f"fails on {drop} with p_adj < {self.alpha:g} ({self.test} test, "
            f"{corr[self.correction]} correction over the table)"
        )


def _attributes(
    by: Sequence[str], queries: pl.DataFrame | None, qrels: pl.LazyFrame, kw: Mapping[str, Any]
) -> pl.DataFrame | None:
    """``query_id`` and the ``by`` columns, from the queries table or the qrels."""
    if not by:
        return None
    qcol = _columns(kw)["qrels_query"]
    qschema = qrels.collect_schema().names()
    out = pl.DataFrame({_Q: []}, schema={_Q: pl.String})
    for col in by:
        if queries is not None and col in queries.columns:
            table = queries.select(_Q, col)
        elif col in qschema:
            table = qrels.select(pl.col(qcol).cast(pl.String).alias(_Q), col).unique().collect()
        else:
            avail = [*(queries.columns if queries is not None else []), *qschema]
            near = closest(col, avail)
            msg = f"The by column {col!r} is neither in the queries table nor in the qrels."
            msg += (
                f" Hint: did you mean {near[0]!r}?"
                if near
                else " Hint: give a queries table (--queries FILE)."
            )
            raise ColumnNotFoundError(msg)
        dup = table[_Q].is_duplicated()
        if dup.any():
            q = table.filter(dup)[_Q][0]
            msg = f"by={col!r}: query {q!r} has several values; a query attribute needs one per query."
            raise InvalidDataError(msg)
        out = out.join(table, on=_Q, how="full", coalesce=True)
    return out


def _pairs(
    base: pl.DataFrame, cand: pl.DataFrame, labels: Sequence[str], keep: set[str] | None
) -> pl.DataFrame:
    """Long (query_id, measure, baseline, value, delta) over the queries valued on both sides."""
    long_b = base.unpivot(index=_Q, on=list(labels), variable_name="measure", value_name="baseline")
    long_c = cand.unpivot(index=_Q, on=list(labels), variable_name="measure", value_name="value")
    delta = pl.col("value") - pl.col("baseline")
    out = (
        long_b.join(long_c, on=[_Q, "measure"], how="inner")
        .filter(pl.col("baseline").is_not_null() & pl.col("value").is_not_null())
        .with_columns(pl.when(delta.abs() <= TIE_TOLERANCE).then(0.0).otherwise(delta).alias("delta"))
    )
    if keep is not None:
        out = out.filter(pl.col(_Q).is_in(sorted(keep)))
    return out


def _groups(
    pairs: pl.DataFrame, attrs: pl.DataFrame | None, by: Sequence[str]
) -> list[tuple[str, pl.DataFrame]]:
    """``("all", pairs)`` then one entry per segment, labelled ``col=value``."""
    out = [("all", pairs)]
    if attrs is None:
        return out
    joined = pairs.join(attrs, on=_Q, how="left")
    keys = joined.select(by).unique().rows()
    for key in sorted(keys, key=lambda k: tuple(natural_key("" if v is None else str(v)) for v in k)):
        cond = pl.lit(True)
        for col, val in zip(by, key, strict=True):
            cond = cond & (pl.col(col).is_null() if val is None else pl.col(col) == val)
        label = ", ".join(f"{c}={'(none)' if v is None else v}" for c, v in zip(by, key, strict=True))
        out.append((label, joined.filter(cond)))
    return out


def _finite(x: float | None) -> float | None:
    import math

    return None if x is None or not math.isfinite(x) else float(x)


def _stat_row(group: str, measure: str, sub: pl.DataFrame, gate: _Gate) -> dict[str, Any]:
    import numpy as np

    from irframe.stats import bootstrap_ci, paired_test

    d = sub["delta"].to_numpy().astype(np.float64)
    row: dict[str, Any] = {"group": group, "measure": measure, "n_queries": int(d.size)}
    if d.size == 0:
        return {**row, "note": "no query valued on both sides"}
    res = paired_test(d, test=gate.test, n_permutations=gate.n_permutations, n_bootstrap=gate.n_bootstrap,
                      seed=gate.seed)  # fmt: skip
    ci = bootstrap_ci(d, n_bootstrap=gate.n_bootstrap, seed=gate.seed)
    return {
        **row,
        "baseline_mean": float(sub["baseline"].mean()),  # type: ignore[arg-type]
        "mean": float(sub["value"].mean()),  # type: ignore[arg-type]
        "delta": float(d.mean()),
        "ci_low": _finite(ci.low),
        "ci_high": _finite(ci.high),
        "p_value": _finite(res.p_value),
        "wins": int(np.count_nonzero(d > 0)),
        "ties": int(np.count_nonzero(d == 0)),
        "losses": int(np.count_nonzero(d < 0)),
        "note": res.note,
    }


_TABLE_SCHEMA: dict[str, Any] = {
    "group": pl.String, "measure": pl.String, "n_queries": pl.Int64, "baseline_mean": pl.Float64,
    "mean": pl.Float64, "delta": pl.Float64, "ci_low": pl.Float64, "ci_high": pl.Float64,
    "p_value": pl.Float64, "p_adjusted": pl.Float64, "significant": pl.Boolean, "wins": pl.Int64,
    "ties": pl.Int64, "losses": pl.Int64, "regression": pl.Boolean, "status": pl.String,
    "note": pl.String,
}  # fmt: skip


def _decide(rows: list[dict[str, Any]], gate: _Gate) -> pl.DataFrame:
    """Correct the p-values over the table and mark regressions."""
    import numpy as np

    from irframe.stats import adjust_p_values

    raw = np.array([np.nan if r.get("p_value") is None else r["p_value"] for r in rows], dtype=np.float64)
    adjusted = adjust_p_values(raw, gate.correction) if rows else raw
    for r, p_adj in zip(rows, adjusted, strict=True):
        r["p_adjusted"] = float(p_adj) if np.isfinite(p_adj) else None
        r["significant"] = bool(np.isfinite(p_adj) and p_adj < gate.alpha)
        delta = r.get("delta")
        dropped = delta is not None and -delta > gate.max_drop
        r["regression"] = bool(dropped and (gate.fail_on == "any-drop" or r["significant"]))
        r["status"] = _status(r, delta)
    return pl.DataFrame(rows, schema=_TABLE_SCHEMA)


def _status(r: Mapping[str, Any], delta: float | None) -> str:
    if r["regression"]:
        return "regression"
    if r["significant"] and delta is not None and delta != 0:
        return "better" if delta > 0 else "worse"
    return ""


# --- the queries that moved ---------------------------------------------------------------
def _top_documents(
    base: _Run | None,
    *,
    cand: _Run,
    qrels: pl.LazyFrame,
    measure: str,
    k: int,
    missing: str,
    kw: Mapping[str, Any],
) -> pl.DataFrame | None:
    """Top ``k`` documents (with grades) of both runs per query, through :func:`irframe.moved`.

    With a snapshot baseline there is no baseline ranking: the candidate is listed
    against itself and only its documents are kept.
    """
    from irframe._compare import moved

    if k <= 0:
        return None
    runs = {"__baseline": (base or cand).lf, "__candidate": cand.lf}
    rule: Any = missing
    out = moved(runs, qrels, measure, baseline="__baseline", n=None, docs_top=k, missing=rule, **kw)
    df = out.collect() if isinstance(out, pl.LazyFrame) else out
    if "system_docs" not in df.columns:
        return None
    qcol = _columns(kw)["query"]
    cols = [pl.col(qcol).cast(pl.String).alias(_Q)]
    if base is not None:
        cols.append(pl.col("baseline_docs"))
    cols.append(pl.col("system_docs").alias("candidate_docs"))
    return df.select(cols)


def _moved_queries(
    pairs: pl.DataFrame, measure: str, n: int, queries: pl.DataFrame | None, docs: pl.DataFrame | None
) -> pl.DataFrame:
    """The ``n`` queries whose ``measure`` changed most (ties: natural query order)."""
    sub = pairs.filter((pl.col("measure") == measure) & (pl.col("delta") != 0))
    rows = sorted(sub.iter_rows(named=True), key=lambda r: (-abs(r["delta"]), natural_key(r[_Q])))[:n]
    out = pl.DataFrame(
        [{_Q: r[_Q], "baseline": r["baseline"], "value": r["value"], "delta": r["delta"]} for r in rows],
        schema={_Q: pl.String, "baseline": pl.Float64, "value": pl.Float64, "delta": pl.Float64},
    )
    if queries is not None and "text" in queries.columns:
        text = queries.select(_Q, pl.col("text").cast(pl.String)).unique(_Q, keep="first")
        out = out.join(text, on=_Q, how="left", maintain_order="left").select(
            _Q, "text", pl.exclude(_Q, "text")
        )
    if docs is not None:
        out = out.join(docs, on=_Q, how="left", maintain_order="left")
    return out


# --- the result ---------------------------------------------------------------------------
@dataclass(frozen=True)
class CheckResult:
    """What :func:`check` found: the verdict, the comparisons, the queries that moved.

    Attributes
    ----------
    passed : bool
        No row of the comparison table is a regression.
    candidate, baseline : str
        Names of the candidate run and of the baseline (run name or snapshot file).
    baseline_kind : {"run", "snapshot"}
    measures : list of str
        Canonical measure strings compared.
    by : list of str
        Segment columns (empty for none).
    gate : rule
        ``max_drop``, ``alpha``, ``fail_on``, ``test``, ``correction``...
    moved_measure : str
        The measure whose per-query changes :attr:`moved` lists.
    changes : JudgmentChanges
        Queries whose judgments differ from the snapshot's (empty for a run baseline).
    left_out : list of str
        Queries left out of the comparison because their judgments changed.
    notes : list of str
        Other things worth knowing (e.g. a snapshot from another irframe version).
    """

    passed: bool
    candidate: str
    baseline: str
    baseline_kind: str
    measures: list[str]
    by: list[str]
    gate: _Gate
    moved_measure: str
    changes: JudgmentChanges
    left_out: list[str]
    notes: list[str]
    _table: pl.DataFrame = field(repr=False)
    _moved: pl.DataFrame = field(repr=False)
    _origin: Origin = field(repr=False)

    def __repr__(self) -> str:
        n = self._table.filter(pl.col("regression")).height
        return (
            f"CheckResult(passed={self.passed}, candidate={self.candidate!r}, baseline={self.baseline!r}, "
            f"measures={self.measures}, regressions={n})"
        )

    @property
    def exit_code(self) -> int:
        """0 when the check passed, 1 when it found a regression (as ``irframe check``)."""
        return 0 if self.passed else 1

    @property
    def comparisons(self) -> Any:
        """Every comparison (group x measure), in the candidate's frame type.

        Columns: ``group`` (``"all"`` or ``"segment=..."``), ``measure``, ``n_queries``,
        ``baseline_mean``, ``mean``, ``delta``, ``ci_low``, ``ci_high`` (95% paired
        bootstrap CI of the mean delta), ``p_value``, ``p_adjusted``, ``significant``,
        ``wins``, ``ties``, ``losses``, ``regression``, ``status`` (``"regression"``,
        ``"worse"``, ``"better"`` or ``""``) and ``note``.
        """
        from irframe._input.frames import from_lazy

        return from_lazy(self._table, self._origin)

    @property
    def regressions(self) -> Any:
        """The rows of :attr:`comparisons` that fail the check."""
        from irframe._input.frames import from_lazy

        return from_lazy(self._table.filter(pl.col("regression")), self._origin)

    @property
    def moved(self) -> Any:
        """The queries that moved most on :attr:`moved_measure`, with text and top documents."""
        from irframe._input.frames import from_lazy

        return from_lazy(self._moved, self._origin)

    def report(self, *, ascii: bool = False) -> str:
        """Plain text: the verdict, the deltas with CIs and markers, the queries that moved."""
        from irframe._check.render import render_text

        return render_text(self, ascii=ascii)

    def __str__(self) -> str:
        return self.report()

    def to_markdown(self) -> str:
        """The report as Markdown, for a pull-request comment."""
        from irframe._check.render import render_markdown

        return render_markdown(self)

    def _repr_markdown_(self) -> str:
        return self.to_markdown()

    def to_dict(self) -> dict[str, Any]:
        """The report as plain data (full-precision numbers), as ``-f json`` prints it."""
        from irframe._check.render import as_dict

        return as_dict(self)


# --- check --------------------------------------------------------------------------------
def _baseline(obj: Any) -> Snapshot | _Run:
    if isinstance(obj, Snapshot):
        return obj
    if isinstance(obj, str | os.PathLike):
        if not Path(obj).exists():
            msg = f"the baseline file {str(obj)!r} does not exist"
            raise FileNotFoundError(msg)
        if is_snapshot_file(obj):
            return Snapshot.read(obj)
    if obj is None:
        msg = "check needs a baseline: a run, a snapshot or the path of either (baseline=...)."
        raise InvalidParameterError(msg)
    return _as_run(obj, "baseline")


def _measures_and_missing(measures: Any, missing: str | None, base: Snapshot | _Run) -> tuple[list[str], str]:
    if not isinstance(base, Snapshot):
        labels = _labels(measures, DEFAULT_MEASURES)
        rule = missing or "zero"
    else:
        labels = _labels(measures, base.measures)
        absent = [m for m in labels if m not in base.measures]
        if absent:
            msg = (
                f"The snapshot {base.name} has no values for {', '.join(absent)}; it has "
                f"{', '.join(base.measures)}. Hint: take a new snapshot with these measures."
            )
            raise InvalidParameterError(msg)
        if missing is not None and missing != base.missing:
            msg = (
                f"The snapshot {base.name} was taken with missing={base.missing!r}; the check asks "
                f"missing={missing!r}. Hint: use the snapshot's rule or take a new snapshot."
            )
            raise InvalidParameterError(msg)
        rule = base.missing
    if rule not in ("zero", "drop", "error"):
        raise InvalidParameterError.for_value("missing", "check", "one of 'zero', 'drop', 'error'", rule)
    return labels, rule


def _snapshot_notes(
    base: Snapshot, current: Mapping[str, str], allow: bool, queries: pl.DataFrame | None
) -> tuple[JudgmentChanges, set[str] | None, list[str]]:
    """Judgment changes (refused unless allowed), the queries kept, and notes."""
    changes = _judgment_changes(base, current, allow)
    notes: list[str] = []
    keep = None
    if changes:
        keep = set(base.query_ids) - set(changes.queries)
        notes.append(
            f"{len(changes.queries)} queries left out because their judgments changed since the "
            f"snapshot: {changes.describe()}."
        )
    if base.irframe_version != _version():
        notes.append(f"The snapshot was taken with irframe {base.irframe_version}; this is {_version()}.")
    old_q = base.fingerprints.get("queries")
    if queries is not None and old_q is not None and old_q != queries_fingerprint(queries):
        notes.append("The queries table differs from the one the snapshot was taken with.")
    return changes, keep, notes


def _paired_values(
    base: Snapshot | _Run,
    cand: _Run,
    qrels: pl.LazyFrame,
    labels: Sequence[str],
    rule: str,
    *,
    allow: bool,
    queries: pl.DataFrame | None,
    kw: Mapping[str, Any],
) -> tuple[pl.DataFrame, JudgmentChanges, list[str]]:
    """Both sides' per-query values paired (see :func:`_pairs`), the judgment changes and notes."""
    column_kwargs = {k: v for k, v in kw.items() if k in _COLUMN_KEYS}
    changes, keep, notes = JudgmentChanges(), None, list[str]()
    if isinstance(base, Snapshot):
        current = _qrels_hashes(qrels, column_kwargs)
        changes, keep, notes = _snapshot_notes(base, current, allow, queries)
        base_values = base.values.select(_Q, *labels)
    else:
        base_values = _per_query(base.lf, qrels, labels, rule, kw)
    return _pairs(base_values, _per_query(cand.lf, qrels, labels, rule, kw), labels, keep), changes, notes


def _count(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidParameterError.for_value(name, "check", "an int >= 0", value)
    return value


def check(
    candidate: Any,
    qrels: Any,
    baseline: Any,
    measures: MeasureLike | Iterable[MeasureLike] | None = None,
    *,
    queries: Any = None,
    by: str | Sequence[str] | None = None,
    max_drop: float = 0.0,
    alpha: float = 0.05,
    fail_on: Literal["significant", "any-drop"] = "significant",
    test: Literal["randomization", "t", "wilcoxon", "bootstrap"] = "randomization",
    correction: Literal["holm", "bonferroni", "bh", "none"] = "holm",
    allow_changed_qrels: bool = False,
    missing: Missing | None = None,
    duplicates: Literal["error", "first"] = "error",
    n_moved: int = 10,
    docs_top: int = 3,
    n_permutations: int = 10_000,
    n_bootstrap: int = 10_000,
    seed: int = 0,
    **column_kwargs: Any,
) -> CheckResult:
    """Compare a candidate run with a baseline on a golden set and decide pass or fail.

    Parameters
    ----------
    candidate : frame or path
        The run under test (one system).
    qrels : frame or path
        The judgments.
    baseline : frame, path or Snapshot
        A run (evaluated here), a :class:`Snapshot` or a snapshot file.
    measures : str, Measure or list, optional
        Default: the snapshot's measures, else ("nDCG@10", "RR", "R@100").
    queries : frame or path, optional
        Queries table: ``query_id``, ``text`` (shown for the queries that moved) and
        attributes usable in ``by``.
    by : str or list of str, optional
        Segment columns (from ``queries`` or the qrels): each segment is compared and
        gated too.
    max_drop : float, default 0
        Largest tolerated drop of a mean (absolute).
    alpha : float, default 0.05
        Level of the corrected p-value under ``fail_on="significant"``.
    fail_on : {"significant", "any-drop"}, default "significant"
        Whether a drop beyond ``max_drop`` must also be significant to fail.
    test, correction, n_permutations, n_bootstrap, seed
        As for :func:`irframe.compare`.
    allow_changed_qrels : bool, default False
        Compare a snapshot on its unchanged queries when judgments changed, instead of
        raising :class:`~irframe.exceptions.JudgmentsChangedError`.
    missing : {"zero", "drop", "error"}, optional
        Default: the snapshot's rule, else "zero".
    duplicates, **column_kwargs
        As for :func:`irframe.evaluate`.
    n_moved : int, default 10
        How many of the queries that moved most to list.
    docs_top : int, default 3
        Top documents (with grades) shown for each listed query (0: none).

    Returns
    -------
    CheckResult
        ``.passed``, ``.regressions``, ``.comparisons``, ``.moved``, ``.report()``,
        ``.to_markdown()``, ``.to_dict()``.

    Examples
    --------
    >>> from irframe.datasets import golden
    >>> g = golden()
    >>> runs = {s: g.runs.filter(system=s) for s in ("bm25", "dense")}
    >>> result = check(runs["dense"], g.qrels, baseline=runs["bm25"], measures="R@100")
    >>> result.passed
    False
    >>> result.regressions.select("group", "measure", "delta").rows()
    [('all', 'R@100', -0.17916...)]
    """
    column_kwargs = dict(column_kwargs)
    _check_column_kwargs(column_kwargs, "check")
    gate = _Gate.build(max_drop=max_drop, alpha=alpha, fail_on=fail_on, test=test, correction=correction,
                       n_permutations=n_permutations, n_bootstrap=n_bootstrap, seed=seed)  # fmt: skip
    n_moved, docs_top = _count("n_moved", n_moved), _count("docs_top", docs_top)
    by_cols = [by] if isinstance(by, str) else list(by or [])
    cand = _as_run(candidate, "candidate")
    qrels_lf = _lazy(qrels, "qrels")[0]
    base = _baseline(baseline)
    labels, rule = _measures_and_missing(measures, missing, base)
    kw = {"duplicates": duplicates, **column_kwargs}
    queries_df = _queries_frame(queries, column_kwargs)
    pairs, changes, notes = _paired_values(
        base, cand, qrels_lf, labels, rule, allow=allow_changed_qrels, queries=queries_df, kw=kw
    )
    attrs = _attributes(by_cols, queries_df, qrels_lf, column_kwargs)
    groups = _groups(pairs, attrs, by_cols)
    rows = [_stat_row(g, m, sub.filter(pl.col("measure") == m), gate) for g, sub in groups for m in labels]
    table = _decide(rows, gate)
    failed = table.filter(pl.col("regression"))["measure"].to_list()
    moved_measure = failed[0] if failed else labels[0]
    run_base = None if isinstance(base, Snapshot) else base
    k = docs_top if n_moved else 0
    docs = _top_documents(
        run_base, cand=cand, qrels=qrels_lf, measure=moved_measure, k=k, missing=rule, kw=kw
    )
    return CheckResult(
        passed=not failed,
        candidate=cand.name,
        baseline=base.name,
        baseline_kind="snapshot" if isinstance(base, Snapshot) else "run",
        measures=labels,
        by=by_cols,
        gate=gate,
        moved_measure=moved_measure,
        changes=changes,
        left_out=changes.queries,
        notes=notes,
        _table=table,
        _moved=_moved_queries(pairs, moved_measure, n_moved, queries_df, docs),
        _origin=cand.origin,
    )
