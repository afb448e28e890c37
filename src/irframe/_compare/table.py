"""compare() and compare_report(): validate, pair, test each comparison, correct over the family."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast, overload

import polars as pl

from irframe._compare.pairing import (
    _BASE,
    _BSYS,
    _DELTA,
    _MEAS,
    _QKEY,
    _SYS,
    _VAL,
    MeasureLike,
    _check_by,
    _per_query_long,
    _resolve_columns,
    _resolve_pairs,
    _with_queries,
    check_missing,
    check_shared_queries,
    pair_values,
)
from irframe._compare.report import ComparisonReport, Sources, resample_count
from irframe._compare.values import refuse_run_options, value_labels, values_long
from irframe._compare.weighted import W, check_weights_name, resolve, system_means, with_weights
from irframe._golden.holes import (
    HOLE_COLUMNS,
    SUMMARY_SCHEMA,
    check_depth,
    check_grade,
    hole_summary,
    with_holes,
)
from irframe._input.by_exprs import has_expressions, protected_columns, with_by_columns
from irframe._input.columns import natural_order, natural_sorted
from irframe._input.options import Missing, Options
from irframe._input.params import check_level, check_resamples, check_seed
from irframe._input.runs import Stack, stack_runs, user_terms
from irframe._log import INFO
from irframe._log import compare as log
from irframe.exceptions import InvalidParameterError
from irframe.functions import ColumnOptions, options_of, with_column_options
from irframe.measures import parse_measures
from irframe.measures._parse import Parsed
from irframe.progress import Progress, Steps, check_progress, reporter

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = ["DEFAULT_MEASURES", "CompareOptions", "compare", "compare_report"]

DEFAULT_MEASURES: tuple[str, ...] = ("nDCG@10", "RR", "R@100")
FrameT = TypeVar("FrameT")
_WHERE = "compare"


class CompareOptions(ColumnOptions, total=False):
    """The keyword options of :func:`compare_report` (their one list, with the defaults), for
    the type checkers (:func:`compare`, which forwards them, its overloads, ``df.ir.compare``):
    its keyword-only parameters (a test keeps them equal), then the column options of
    :func:`irframe.evaluate`."""

    baseline: str | None
    pairs: Literal["baseline", "all"]
    test: Literal["randomization", "t", "wilcoxon", "bootstrap"]
    correction: Literal["holm", "bonferroni", "bh", "none"]
    by: str | pl.Expr | Sequence[str | pl.Expr] | None
    alpha: float
    n_permutations: int
    n_bootstrap: int
    ci: float
    ci_method: Literal["percentile", "bca"]
    seed: int
    system_col: str
    missing: Missing
    queries: Any
    weights: str | None
    holes: bool
    holes_depth: int
    holes_grade: float | None
    progress: Progress


def check_choice(name: str, value: object, table: Mapping[str, str], where: str) -> str:
    """The canonical name of ``value`` in ``table`` (case-insensitive; e.g. a test or a correction).

    Examples
    --------
    >>> check_choice("correction", "BH", {"bh": "bh", "fdr_bh": "bh"}, "compare")
    'bh'
    """
    got = table.get(value.lower()) if isinstance(value, str) else None
    if got is None:
        expected = "one of " + ", ".join(repr(v) for v in dict.fromkeys(table.values()))
        err = InvalidParameterError.for_value(name, where, expected, value)
        raise err
    return got


def _nan_to_none(x: float) -> float | None:
    return None if x is None or math.isnan(x) else float(x)


@dataclass(frozen=True)
class Settings:
    """compare's statistical settings, checked once."""

    test: str
    correction: str
    by: list[str]
    alpha: float
    n_permutations: int
    n_bootstrap: int
    ci: float
    ci_method: str
    seed: Any
    missing: str

    @classmethod
    def check(
        cls,
        *,
        test: object,
        correction: object,
        by: str | Sequence[str] | None,
        alpha: object,
        n_permutations: int,
        n_bootstrap: int,
        ci: float,
        ci_method: object,
        seed: int,
        missing: object,
        system_col: str,
    ) -> Settings:
        from irframe.stats import CORRECTIONS, TESTS

        test_name = check_choice("test", test, TESTS, _WHERE)
        corr_name = check_choice("correction", correction, CORRECTIONS, _WHERE)
        if ci_method not in ("percentile", "bca"):
            err = InvalidParameterError.for_value("ci_method", _WHERE, "'percentile' or 'bca'", ci_method)
            raise err
        return cls(
            test=test_name,
            correction=corr_name,
            by=_check_by(by, _WHERE, system_col),
            alpha=check_level(alpha, "alpha", _WHERE),
            n_permutations=check_resamples(n_permutations, "n_permutations", _WHERE),
            n_bootstrap=check_resamples(n_bootstrap, "n_bootstrap", _WHERE),
            ci=check_level(ci, "ci", _WHERE),
            ci_method=str(ci_method),
            seed=check_seed(seed, _WHERE),
            missing=check_missing(missing, _WHERE),
        )


def group_pairs(
    pairs: pl.DataFrame, systems: Sequence[str], labels: Sequence[str], by: Sequence[str]
) -> pl.DataFrame:
    """One row per (baseline, system, *by, measure) with the paired vectors, in input order."""
    sys_rank = {s: i for i, s in enumerate(systems)}
    meas_rank = {m: i for i, m in enumerate(labels)}
    extra = [pl.col(c) for c in (W, *HOLE_COLUMNS) if c in pairs.columns]  # weights, holes
    groups = natural_order(pairs.schema, by)
    return (
        pairs.group_by([_BSYS, _SYS, *by, _MEAS], maintain_order=True)
        .agg(pl.col(_VAL), pl.col(_BASE), pl.col(_DELTA), *extra)
        .with_columns(
            pl.col(_BSYS).replace_strict(sys_rank, return_dtype=pl.Int64).alias("__ir_bi"),
            pl.col(_SYS).replace_strict(sys_rank, return_dtype=pl.Int64).alias("__ir_si"),
            pl.col(_MEAS).replace_strict(meas_rank, return_dtype=pl.Int64).alias("__ir_mi"),
        )
        .sort(["__ir_bi", "__ir_si", "__ir_mi", *groups], nulls_last=True)
    )


def compare_one(row: Mapping[str, Any], by: Sequence[str], s: Settings) -> dict[str, Any]:
    """Means, delta, CI, p-value, effect size and W/T/L of one (system, measure[, group]);
    weighted when the row has the pairs' weights (:data:`irframe._compare.weighted.W`)."""
    import numpy as np

    from irframe.stats import bootstrap_ci, cohens_dz, paired_test

    x = np.asarray(row[_VAL], dtype=np.float64)
    y = np.asarray(row[_BASE], dtype=np.float64)
    d = np.asarray(row[_DELTA], dtype=np.float64)
    w = None if row.get(W) is None else np.asarray(row[W], dtype=np.float64)
    if w is not None and not np.any(w > 0):
        return _weightless(row, by, d)
    if w is None:
        mean, base_mean, delta = float(x.mean()), float(y.mean()), float(d.mean())
    else:
        mean, base_mean, delta = (float(np.average(v, weights=w)) for v in (x, y, d))
    res = paired_test(d, test=s.test, n_permutations=s.n_permutations, n_bootstrap=s.n_bootstrap, seed=s.seed,
                      weights=w)  # fmt: skip
    interval = bootstrap_ci(d, n_bootstrap=s.n_bootstrap, ci=s.ci, method=s.ci_method, seed=s.seed, weights=w)  # type: ignore[arg-type]
    weighted = {} if w is None else {"sum_weights": float(w.sum())}
    return {
        "system": row[_SYS],
        "baseline": row[_BSYS],
        "measure": row[_MEAS],
        **{b: row[b] for b in by},
        "mean": mean,
        "baseline_mean": base_mean,
        "delta": delta,
        "rel_delta": delta / base_mean if base_mean != 0 else None,
        "ci_low": _nan_to_none(interval.low),
        "ci_high": _nan_to_none(interval.high),
        "p_value": _nan_to_none(res.p_value),
        "effect_size": _nan_to_none(cohens_dz(d, weights=w)),
        "wins": int(np.count_nonzero(d > 0)),
        "ties": int(np.count_nonzero(d == 0)),
        "losses": int(np.count_nonzero(d < 0)),
        "n_queries": int(d.size),
        **weighted,
        "note": res.note,
        "resamples": resample_count(res, d if w is None else w * d, s),
    }


def _weightless(row: Mapping[str, Any], by: Sequence[str], d: Any) -> dict[str, Any]:
    """A comparison whose paired queries all weigh 0: counted, not tested."""
    return {
        "system": row[_SYS], "baseline": row[_BSYS], "measure": row[_MEAS], **{b: row[b] for b in by},
        "wins": int((d > 0).sum()), "ties": int((d == 0).sum()), "losses": int((d < 0).sum()),
        "n_queries": int(d.size), "sum_weights": 0.0, "p_value": None,
        "note": "every paired query weighs 0: no weighted mean",
    }  # fmt: skip


def _compare_all(paired: pl.DataFrame, by: Sequence[str], s: Settings, step: Steps) -> list[dict[str, Any]]:
    """Every comparison of the table, one progress step each (the random draws of one shape
    made once for all: :func:`irframe._resample.reusing_draws`, the same numbers)."""
    from irframe._resample import reusing_draws

    records = []
    step.expect(paired.height)
    with reusing_draws():
        for row in paired.iter_rows(named=True):
            records.append(compare_one(row, by, s))
            step(f"{row[_SYS]} {row[_MEAS]}" + "".join(f" {row[b]}" for b in by))
    return records


def correct_family(records: list[dict[str, Any]], s: Settings) -> int:
    """Adjust the p-values of ``records`` over the whole family, in place; return the family size."""
    import numpy as np

    from irframe.stats import adjust_p_values

    raw = np.array([np.nan if r["p_value"] is None else r["p_value"] for r in records])
    adjusted = adjust_p_values(raw, s.correction)
    family = int(np.count_nonzero(np.isfinite(raw)))
    for r, p_adj in zip(records, adjusted, strict=True):
        r["p_adjusted"] = _nan_to_none(float(p_adj))
        r["significant"] = bool(np.isfinite(p_adj) and p_adj < s.alpha)
        r["test"] = s.test
        r["correction"] = s.correction
        r["family_size"] = family
    return family


def _table_schema(
    by_schema: Mapping[str, Any], weighted: bool = False, holes: bool = False
) -> dict[str, Any]:
    f64, i64, s = pl.Float64, pl.Int64, pl.String
    return {
        "system": s,
        "baseline": s,
        "measure": s,
        **by_schema,
        **dict.fromkeys(["mean", "baseline_mean", "delta", "rel_delta", "ci_low", "ci_high"], f64),
        "p_value": f64,
        "p_adjusted": f64,
        "significant": pl.Boolean,
        "effect_size": f64,
        **dict.fromkeys(["wins", "ties", "losses", "n_queries"], i64),
        **({"sum_weights": f64} if weighted else {}),
        **(SUMMARY_SCHEMA if holes else {}),
        "test": s,
        "correction": s,
        "family_size": i64,
        "note": s,
        "resamples": i64,
    }


def _system_means(long: pl.DataFrame, by: Sequence[str]) -> pl.DataFrame:
    """Mean of each measure (and group) of every system over its non-null queries."""
    return (
        long.filter(pl.col(_VAL).is_not_null())
        .group_by([_SYS, *by, _MEAS], maintain_order=True)
        .agg(pl.col(_VAL).mean().alias("mean"))
        .rename({_SYS: "system", _MEAS: "measure"})
    )


def _means_with_overall(
    long: pl.DataFrame, by: Sequence[str], query_col: str, table: pl.DataFrame | None
) -> pl.DataFrame:
    """Each system's means (weighted by ``table``'s weights when given): overall (``by``
    null), then per segment, as the comparisons are."""

    def means(keys: Sequence[str]) -> pl.DataFrame:
        return _system_means(long, keys) if table is None else system_means(long, keys, query_col, table)

    if not by:
        return means([])
    per_group = means(by)
    nulls = [pl.lit(None, dtype=long.schema[b]).alias(b) for b in by]
    return pl.concat([means([]).with_columns(nulls).select(per_group.columns), per_group])


@with_column_options
def compare_report(
    runs: Any,
    qrels: Any = None,
    measures: MeasureLike | Iterable[MeasureLike] = DEFAULT_MEASURES,
    *,
    baseline: str | None = None,
    pairs: Literal["baseline", "all"] = "baseline",
    test: Literal["randomization", "t", "wilcoxon", "bootstrap"] = "randomization",
    correction: Literal["holm", "bonferroni", "bh", "none"] = "holm",
    by: str | pl.Expr | Sequence[str | pl.Expr] | None = None,
    alpha: float = 0.05,
    n_permutations: int = 10_000,
    n_bootstrap: int = 10_000,
    ci: float = 0.95,
    ci_method: Literal["percentile", "bca"] = "percentile",
    seed: int = 0,
    system_col: str = "system",
    missing: Missing = "zero",
    queries: Any = None,
    weights: str | None = None,
    holes: bool = False,
    holes_depth: int = 10,
    holes_grade: float | None = None,
    progress: Progress = None,
    **column_kwargs: Unpack[ColumnOptions],
) -> ComparisonReport:
    """Compare systems with a baseline (or every pair); return a :class:`ComparisonReport`.

    Same parameters as :func:`compare`; the report holds the table (``.table``) and
    renders it as text (``str(report)``), Markdown (``.to_markdown()``) and LaTeX
    (``.to_latex()``).

    Examples
    --------
    >>> import polars as pl
    >>> qrels = pl.DataFrame({"query_id": ["q1", "q2", "q3"], "doc_id": ["a", "b", "c"],
    ...                       "relevance": [1, 1, 1]})
    >>> runs = pl.DataFrame({
    ...     "system": ["bm25"] * 3 + ["dense"] * 3,
    ...     "query_id": ["q1", "q2", "q3"] * 2,
    ...     "doc_id": ["a", "x", "y", "a", "b", "c"],
    ...     "rank": [1, 1, 1, 1, 1, 1]})
    >>> report = compare_report(runs, qrels, ["P@1"], test="t")
    >>> print(report.to_text(details=False))  # doctest: +NORMALIZE_WHITESPACE
    system  P@1
    ------  ----------------
    bm25    0.3333
    dense   1.0000 (+200.0%)
    <BLANKLINE>
    ▲/▼ significantly better/worse than 'bm25' after Holm correction (p_adj < 0.05); △/▽ p < 0.05
    before correction only.
    <BLANKLINE>
    Baseline 'bm25'; 3 queries paired per comparison. Two-sided paired t test. Holm correction
    over a family of 1 comparisons (1 system(s) x 1 measure(s)); alpha = 0.05. CI: 95% paired
    bootstrap (percentile, 10,000 resamples) of the mean delta.
    <BLANKLINE>
    The markers follow the paired t test's p-value after Holm correction (p_adj < 0.05); the 95% CI
    is a paired bootstrap (percentile) of the mean delta, another method and uncorrected, so the two
    can disagree near the line: a CI that excludes 0 next to p = 0.057 gets no marker. Read the
    marker for the decision, the CI for the size.
    """
    names, runs, qrels, queries = _by_columns(by, runs, qrels, queries, system_col, column_kwargs)
    settings = Settings.check(
        test=test, correction=correction, by=names, alpha=alpha, n_permutations=n_permutations,
        n_bootstrap=n_bootstrap, ci=ci, ci_method=ci_method, seed=seed, missing=missing,
        system_col=system_col,
    )  # fmt: skip
    opts = Options.build(_WHERE, missing=settings.missing, **column_kwargs)
    by_cols = settings.by
    weights = check_weights_name(weights, by_cols, _WHERE)
    look = _check_holes(holes, holes_depth, holes_grade)
    stacked = stack_runs(runs, system_col, _WHERE, at_least=2)
    values = value_labels(stacked.lf.collect_schema(), measures, opts, _WHERE)  # per-query values?
    if values is not None:
        refuse_run_options(_WHERE, qrels=qrels, holes=look)
    parsed = None if values is not None else parse_measures(measures)  # (once: passed down)
    labels = values or [label for label, _ in parsed or ()]
    opts = _resolve_columns(stacked, qrels, opts, _WHERE)
    table = resolve(stacked.lf, qrels, queries, opts, weights=weights, where=_WHERE)
    stacked, qrels = _with_queries(stacked, qrels, queries, by_cols, opts)
    base_name, pair_list = _resolve_pairs(baseline, pairs, stacked.systems, _WHERE)
    check_shared_queries(stacked.lf, qrels, pair_list, where=_WHERE, opts=opts)
    with reporter(check_progress(progress, _WHERE), 1, "comparing") as step:
        long, query_col = _long(stacked, values, parsed, qrels=qrels, labels=labels, settings=settings,
                                opts=opts, system_col=system_col)  # fmt: skip
        step(f"evaluated {len(stacked.systems)} systems")
        pair_rows = with_weights(pair_values(long, pair_list, [*by_cols, query_col]), query_col, table)
        hole_table = None
        if look:
            step.expect(1)
            pair_rows, hole_table = with_holes(
                pair_rows, [lf for _, lf in stacked.alike()], qrels,
                names=(_SYS, _BSYS, _MEAS, _BASE, _DELTA, query_col),
                pairs=pair_list, labels=labels, opts=opts, depth=holes_depth, grade=holes_grade,
            )  # fmt: skip
            step("looked at the judgment holes")
        records = _records(pair_rows, stacked.systems, labels, settings, step, query_col=query_col)
    family = correct_family(records, settings)
    _log_table(stacked.systems, labels, len(records), family, settings)
    schema = _table_schema({b: long.schema[b] for b in by_cols}, table is not None, look)
    means = _means_with_overall(long, by_cols, query_col, table)
    return ComparisonReport(
        baseline=base_name, systems=stacked.systems, measures=labels, by=by_cols, alpha=settings.alpha,
        test=settings.test, correction=settings.correction, family_size=family, ci=settings.ci,
        ci_method=settings.ci_method, n_permutations=settings.n_permutations,
        n_bootstrap=settings.n_bootstrap, system_col=system_col, pairs=str(pairs),
        _table=pl.DataFrame(records, schema=schema), _means=means, _origin=stacked.origin, weights=weights,
        _holes=None if hole_table is None else hole_table.rename({_SYS: system_col}),
        **_page_inputs(pair_rows, by_cols, query_col, Sources(stacked.lf, qrels, opts, queries)),
    )  # fmt: skip


def _long(
    stacked: Stack, values: list[str] | None, parsed: Parsed | None, *, qrels: Any, labels: list[str],
    settings: Settings, opts: Options, system_col: str,
) -> tuple[pl.DataFrame, str]:  # fmt: skip
    """Every system's per-query values as compare's long table: the runs evaluated (the
    measures as parsed once, ``parsed``), or the per-query values as given (``values``,
    their column names; :mod:`irframe._compare.values`)."""
    if values is None:
        return _per_query_long(
            stacked, qrels=qrels, labels=labels, measures=parsed or (), by=settings.by,
            missing=settings.missing, system_col=system_col, opts=opts,
        )  # fmt: skip
    with user_terms(system_col):
        return values_long(stacked.lf, values, settings.by, opts.query_col, _WHERE), opts.query_col


def _log_table(systems: Sequence[str], labels: Sequence[str], n: int, family: int, s: Settings) -> None:
    """INFO: what was compared."""
    if log.isEnabledFor(INFO):
        log.info(
            "compared %d systems (%s) on %d measure(s)%s: %d comparisons, %s test, %s correction over "
            "a family of %d", len(systems), ", ".join(systems[:5]) + ("..." if len(systems) > 5 else ""),
            len(labels), f" by {', '.join(s.by)}" if s.by else "", n, s.test, s.correction, family,
        )  # fmt: skip


def _page_inputs(
    pair_rows: pl.DataFrame, by: Sequence[str], query_col: str, sources: Sources
) -> dict[str, Any]:
    """What a report keeps for its HTML page: the per-query pairs (the query id as text)
    and where the documents come from."""
    query = pl.col(query_col).cast(pl.String).alias(_QKEY)
    return {
        "_pairs": pair_rows.select(_SYS, _BSYS, _MEAS, *by, query, _BASE, _VAL, _DELTA),
        "_sources": sources,
    }


def _by_columns(  # noqa: PLR0917 - the four inputs, as compare takes them
    by: Any, runs: Any, qrels: Any, queries: Any, system_col: str, column_kwargs: Mapping[str, Any]
) -> tuple[str | Sequence[str] | None, Any, Any, Any]:
    """``by`` as names, with its expressions computed as columns (:mod:`irframe._input.by_exprs`)
    on the runs (each of a dict, or the stacked frame), the qrels and the queries table."""
    if not has_expressions(by):
        return cast("str | Sequence[str] | None", by), runs, qrels, queries
    roles = {f"run {k!r}": v for k, v in runs.items()} if isinstance(runs, Mapping) else {"runs": runs}
    protected = protected_columns({k: v for k, v in column_kwargs.items() if k != "duplicates"})
    by, out = with_by_columns(
        by, {**roles, "qrels": qrels, "queries": queries}, where=_WHERE, protected={*protected, system_col}
    )
    runs = {k: out[f"run {k!r}"] for k in runs} if isinstance(runs, Mapping) else out["runs"]
    return by, runs, out["qrels"], out["queries"]


def _records(
    pair_rows: pl.DataFrame,
    systems: Sequence[str],
    labels: Sequence[str],
    settings: Settings,
    step: Steps,
    *,
    query_col: str,
) -> list[dict[str, Any]]:
    """Every comparison's statistics (with its hole columns when the pairs have them); with
    ``by``, each (system, measure)'s overall comparison first (its ``by`` columns null: a
    segment value is never null), then its segments, all in the correction family, as the
    gate's table has them."""
    paired = group_pairs(pair_rows, systems, labels, settings.by)
    if settings.by:
        paired = _with_overall(paired, pair_rows, settings.by, (systems, labels), query_col)
    records = _compare_all(paired, settings.by, settings, step)
    if HOLE_COLUMNS[0] in pair_rows.columns:
        for record, row in zip(records, paired.iter_rows(named=True), strict=True):
            record.update(hole_summary(row, row.get(W)))
    return records


def _with_overall(
    paired: pl.DataFrame, pairs: pl.DataFrame, by: Sequence[str],
    names: tuple[Sequence[str], Sequence[str]], query_col: str,
) -> pl.DataFrame:  # fmt: skip
    """The segments' paired vectors with the overall ones (``by`` null) before them; the
    overall vectors in natural query order, as compare without ``by`` pairs them (the same
    resamples: the same CI)."""
    nulls = [pl.lit(None, dtype=pairs.schema[b]).alias(b) for b in by]
    in_order = natural_sorted(pairs, [query_col]) if query_col in pairs.columns else pairs
    overall = group_pairs(in_order, *names, []).with_columns(nulls).select(paired.columns)
    both = pl.concat([overall, paired])
    groups = natural_order(both.schema, by)
    return both.sort(["__ir_bi", "__ir_si", "__ir_mi", *groups], nulls_last=False)


def _check_holes(holes: object, depth: object, grade: object) -> bool:
    """``holes`` (a bool), with ``holes_depth`` and ``holes_grade`` checked."""
    if not isinstance(holes, bool):
        raise InvalidParameterError.for_value("holes", _WHERE, "a bool", holes)
    check_depth(depth, _WHERE)
    check_grade(grade, _WHERE)
    return holes


@overload
def compare(
    runs: Mapping[str, FrameT],
    qrels: Any = ...,
    measures: MeasureLike | Iterable[MeasureLike] = ...,
    **kwargs: Unpack[CompareOptions],
) -> FrameT: ...
@overload
def compare(
    runs: FrameT,
    qrels: Any = ...,
    measures: MeasureLike | Iterable[MeasureLike] = ...,
    **kwargs: Unpack[CompareOptions],
) -> FrameT: ...
@options_of(compare_report)
def compare(
    runs: Any,
    qrels: Any = None,
    measures: MeasureLike | Iterable[MeasureLike] = DEFAULT_MEASURES,
    **options: Unpack[CompareOptions],
) -> Any:
    """Compare every system with a baseline: means, deltas, CIs, corrected paired tests.

    Parameters
    ----------
    runs : dict of name -> frame, or one stacked frame
        pandas or polars runs (long format, as for :func:`irframe.evaluate`); a stacked
        frame names the system in ``system_col``.
    qrels : frame, optional
        Judgments; without them grades are read from the runs' relevance column.
    measures : str, Measure or list, default ("nDCG@10", "RR", "R@100")
        Measures to compare (output ``measure`` values use these spellings).
    baseline : str, optional
        The system every other one is compared with; default (None) the first (dict order,
        or first appearance in the stacked frame). Must stay None with ``pairs="all"``.
    pairs : {"baseline", "all"}, default "baseline"
        ``"baseline"``: every other system against the baseline. ``"all"``: every pair of
        systems, each later one (input order) against each earlier one (in the ``baseline``
        column), with one correction over the whole family (pairs x measures x groups).
    test : {"randomization", "t", "wilcoxon", "bootstrap"}, default "randomization"
        Paired two-sided test on per-query deltas (see :mod:`irframe.stats`).
    correction : {"holm", "bonferroni", "bh", "none"}, default "holm"
        Multiple-testing correction over the whole table (systems x measures x groups).
    by : str or list of str, optional
        Query-attribute columns (e.g. query type) to compare within each group. The column
        may be in the runs, the qrels or both; it is copied to the other by query id. Not
        the system column (the systems are what is compared).
        A polars expression (``pl.col("query_len") >= 5``, or ``.alias("long")``) is
        computed as that column on each run, the qrels and ``queries`` that hold its
        inputs, then compared within like one (see :func:`irframe.evaluate`).
    alpha : float, default 0.05
        Level for ``significant = p_adjusted < alpha``.
    n_permutations, n_bootstrap : int, default 10_000
        Random sign vectors of the randomization test; bootstrap resamples of the CI.
        At most ``irframe.stats.MAX_RESAMPLES`` (1_000_000): more would take minutes and
        gigabytes per comparison.
    ci : float, default 0.95
        Confidence level of the interval of the mean delta.
    ci_method : {"percentile", "bca"}, default "percentile"
        Bootstrap interval method.
    seed : int, default 0
        Seed of every Monte-Carlo step (an int >= 0, or None for fresh randomness); each
        comparison uses it afresh, so a comparison's p-value does not depend on which other
        systems are in the table.
    system_col : str, default "system"
        System column of a stacked frame, and name of the output's system column.
    missing : {"zero", "drop", "error"}, default "zero"
        Judged queries absent from a run (see :func:`irframe.evaluate`).
    queries : frame, optional
        Query attributes keyed by query id; its columns can be used in ``by``.
    weights : str, optional
        A column of query weights (traffic, or :func:`irframe.sample_queries`'
        ``segment_weight``), read from ``queries`` or else the qrels, never a run (see
        :func:`irframe.evaluate`).  Every statistic is then weighted: ``mean``,
        ``baseline_mean`` and ``delta`` are weighted means, the randomization test flips
        the signs of ``w * d``, the t-test uses the linearization standard error on Kish's
        effective degrees of freedom, the bootstrap resamples queries with their weights,
        ``effect_size`` is the weighted d_z (the conventions of :mod:`irframe.stats`);
        wins, ties, losses and ``n_queries`` still count queries, and a ``sum_weights``
        column is added.  Not with ``test="wilcoxon"`` (no weighted form).
    holes : bool, default False
        Look at the judgment holes: per system and judged query, the unjudged documents of
        its top ``holes_depth``, and the range each delta could take once they are judged
        (each query's holes judged non-relevant, the system's judged relevant at
        ``holes_grade``, or the baseline's: see :mod:`irframe._golden.holes`).  Adds the
        columns ``n_holes`` (the system's holes over the compared queries),
        ``n_holes_baseline``, ``n_to_judge`` (the distinct pairs of both, what
        ``irframe pool`` of the two runs at that depth lists) and ``delta_low``,
        ``delta_high`` (the bounds of the mean delta); :attr:`ComparisonReport.holes` lists
        the holes per system and query.  Needs the qrels; costs one more evaluation of
        the queries with holes.
    holes_depth : int, default 10
        The top documents of each ranking looked at for holes.
    holes_grade : float, optional
        The grade a hole judged relevant gets; default the qrels' highest grade (1 if none
        is above 0): the widest range a judge's grades could give.
    progress : bool or callable, optional
        Report the steps: the systems evaluated, then each comparison (system, measure,
        group).  ``True`` shows a bar (tqdm when installed, else one line on stderr),
        ``False`` nothing; a callable gets ``(done, total, info)``.  Default (None): a
        bar on a terminal when it takes more than a second (see :mod:`irframe.progress`).
    **options
        :func:`irframe.evaluate`'s column names and reading rules (``query_col``,
        ``doc_col``, ``rank_col``, ``score_col``, ``relevance_col``, ``qrels_*_col``,
        ``duplicates``, ``columns``, ``order``, ``depth``, ``ties``: see
        :class:`irframe.functions.ColumnOptions`), passed to it.

    Returns
    -------
    Frame of the caller's type
        One row per (non-baseline system, measure[, group]), or with ``pairs="all"`` per
        (pair of systems, measure[, group]): ``system``, ``baseline`` (the one it is compared with),
        ``measure``, [by columns], ``mean``, ``baseline_mean`` (both over the paired
        queries), ``delta``, ``rel_delta`` (delta / baseline_mean), ``ci_low``,
        ``ci_high`` (bootstrap CI of the mean delta), ``p_value``, ``p_adjusted``,
        ``significant``, ``effect_size`` (Cohen's d_z = mean / sd of the deltas),
        ``wins``, ``ties``, ``losses``, ``n_queries``, ``test``, ``correction``,
        ``family_size`` (number of tests in the correction), ``note`` (why a p-value
        is null, e.g. ``"n < 2"``) and ``resamples`` (how many sign vectors or bootstrap
        resamples the p-value counts over: ``2**m`` when the randomization test enumerates
        them all, ``n_permutations`` when it draws them; null for the t and Wilcoxon tests).

    Examples
    --------
    >>> import pandas as pd
    >>> qrels = pd.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["a", "b"], "relevance": [1, 1]})
    >>> a = pd.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["a", "x"], "score": [1.0, 1.0]})
    >>> b = pd.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["a", "b"], "score": [1.0, 1.0]})
    >>> t = compare({"bm25": a, "new": b}, qrels, ["P@1", "RR"])
    >>> t[["system", "measure", "delta", "wins", "ties", "p_value", "family_size"]]
      system measure  delta  wins  ties  p_value  family_size
    0    new     P@1    0.5     1     1      1.0            2
    1    new      RR    0.5     1     1      1.0            2

    Every pair of three systems, one Holm correction over the 3 comparisons:

    >>> c = pd.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["x", "b"], "score": [1.0, 1.0]})
    >>> t = compare({"bm25": a, "new": b, "other": c}, qrels, "P@1", pairs="all")
    >>> t[["system", "baseline", "delta", "wins", "losses", "family_size"]]
      system baseline  delta  wins  losses  family_size
    0    new     bm25    0.5     1       0            3
    1  other     bm25    0.0     1       1            3
    2  other      new   -0.5     0       1            3
    """
    report = compare_report(runs, qrels, measures, **options)
    return report.table
