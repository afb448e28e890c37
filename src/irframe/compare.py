"""Compare systems against a baseline: paired tests, corrections, CIs, and the queries that moved.

Everything is built on :func:`irframe.evaluate` (``per_query=True``) and the plain numpy
statistics of :mod:`irframe.stats`.  Runs are given as a ``{name: frame}`` mapping or as
one stacked frame with a system column; results come back in the caller's frame type.

Which queries are compared
--------------------------
For every (system, measure[, group]) the baseline and the system are paired on the
queries that have a value for both under the same ``missing`` rule: with
``missing="zero"`` (default) judged queries absent from a run count as 0 for that run,
with ``missing="drop"`` they are left out (and so the pair is left out); queries that
are in a run but have no judgments (null values) never count.  Deltas smaller than
``1e-12`` in absolute value are float noise and count as ties (zero).

Multiple testing
----------------
The correction family is the whole table: every non-baseline system x every measure x
every ``by`` group.  Its size is in the ``family_size`` column and in the report text.

Examples
--------
>>> import polars as pl, irframe
>>> from irframe.compare import compare
>>> qrels = pl.DataFrame({"query_id": ["q1", "q2", "q3", "q4"],
...                       "doc_id": ["a", "b", "c", "d"], "relevance": [1, 1, 1, 1]})
>>> def run(first):  # the relevant document at rank 1 for the queries in `first`
...     q = ["q1", "q2", "q3", "q4"]
...     return pl.DataFrame({"query_id": q * 2,
...                          "doc_id": [*"abcd", *"xyzw"],
...                          "rank": [1 if x in first else 2 for x in q]
...                                + [2 if x in first else 1 for x in q]})
>>> runs = {"bm25": run({"q1"}), "dense": run({"q1", "q2", "q3"})}
>>> t = compare(runs, qrels, ["RR"], baseline="bm25")
>>> t.select("system", "measure", "mean", "baseline_mean", "delta", "wins", "ties", "losses")
shape: (1, 8)
┌────────┬─────────┬───────┬───────────────┬───────┬──────┬──────┬────────┐
│ system ┆ measure ┆ mean  ┆ baseline_mean ┆ delta ┆ wins ┆ ties ┆ losses │
│ ---    ┆ ---     ┆ ---   ┆ ---           ┆ ---   ┆ ---  ┆ ---  ┆ ---    │
│ str    ┆ str     ┆ f64   ┆ f64           ┆ f64   ┆ i64  ┆ i64  ┆ i64    │
╞════════╪═════════╪═══════╪═══════════════╪═══════╪══════╪══════╪════════╡
│ dense  ┆ RR      ┆ 0.875 ┆ 0.625         ┆ 0.25  ┆ 2    ┆ 2    ┆ 0      │
└────────┴─────────┴───────┴───────────────┴───────┴──────┴──────┴────────┘
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import polars as pl

from irframe._columns import ranking_order
from irframe._frames import Origin, from_lazy, to_lazy
from irframe.exceptions import (
    ColumnNotFoundError,
    InvalidParameterError,
    closest,
)
from irframe.functions import evaluate
from irframe.measures import Measure, parse_measures

__all__ = ["ComparisonReport", "compare", "compare_report", "moved"]

MeasureLike = str | Measure
DEFAULT_MEASURES: tuple[str, ...] = ("nDCG@10", "RR", "R@100")
TIE_TOLERANCE = 1e-12

# internal column names (never clash with the caller's)
_SYS = "__ir_system"
_MEAS = "__ir_measure"
_VAL = "__ir_value"
_BASE = "__ir_base"
_DELTA = "__ir_delta"
_QKEY = "__ir_qkey"  # query id as text, for joins across frames with other id dtypes

_TEST_TEXT = {
    "randomization": "randomization (sign-flip permutation)",
    "t": "paired t",
    "wilcoxon": "Wilcoxon signed-rank",
    "bootstrap": "paired bootstrap",
}
_CORRECTION_TEXT = {
    "holm": "Holm",
    "bonferroni": "Bonferroni",
    "bh": "Benjamini-Hochberg",
    "none": "no",
}


# --------------------------------------------------------------------------------------
# inputs
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Stacked:
    lf: pl.LazyFrame  # every run, one system column (String) named _SYS
    origin: Origin
    systems: list[str]


def _stack(runs: object, system_col: str, where: str) -> _Stacked:
    """One stacked LazyFrame with an internal String system column, from a dict or a frame."""
    if isinstance(runs, Mapping):
        if len(runs) < 2:
            msg = (
                f"{where} needs at least two runs (a baseline and a system); got {len(runs)}. "
                "Hint: pass {'baseline_name': run_a, 'system_name': run_b}."
            )
            raise InvalidParameterError(msg)
        parts: list[pl.LazyFrame] = []
        origins: list[Origin] = []
        names: list[str] = []
        for name, frame in runs.items():
            if not isinstance(name, str):
                msg = f"{where}: run names must be strings; got {type(name).__name__} {name!r}."
                raise InvalidParameterError(msg)
            lf, o = to_lazy(frame, role=f"run {name!r}")
            origins.append(o)
            names.append(name)
            parts.append(lf.with_columns(pl.lit(name, dtype=pl.String).alias(_SYS)))
        try:
            stacked = pl.concat(parts, how="diagonal_relaxed")
        except pl.exceptions.PolarsError as exc:
            msg = (
                f"{where}: the runs cannot be stacked ({exc}). "
                "Hint: give every run the same column names and id dtypes."
            )
            raise InvalidParameterError(msg) from exc
        return _Stacked(stacked, origins[0], names)
    lf, origin = to_lazy(runs, role="runs")
    schema = lf.collect_schema()
    if system_col not in schema:
        raise ColumnNotFoundError.from_missing(
            role="system",
            missing=system_col,
            available=list(schema),
            frame="stacked runs",
            parameter="system_col",
        )
    lf = lf.with_columns(pl.col(system_col).cast(pl.String).alias(_SYS)).drop(system_col)
    systems = lf.select(pl.col(_SYS).unique(maintain_order=True).drop_nulls()).collect().to_series().to_list()
    if len(systems) < 2:
        msg = (
            f"{where} needs at least two systems in column {system_col!r}; found {systems}. "
            "Hint: stack the runs (pl.concat / pd.concat) with a column naming the system."
        )
        raise InvalidParameterError(msg)
    return _Stacked(lf, origin, systems)


def _align_query_attributes(
    stacked: _Stacked, qrels: Any, by: Sequence[str], column_kwargs: Mapping[str, Any]
) -> tuple[_Stacked, Any]:
    """Give runs and qrels every ``by`` column, so that evaluate() treats them as query attributes.

    compare's groups are query attributes (query type, segment...): a column only the qrels
    carry is copied onto the runs by query id, and one only the runs carry is copied onto
    the qrels (it must then have one value per query).
    """
    if not by or qrels is None:
        return stacked, qrels
    schema = stacked.lf.collect_schema()
    qlf, _ = to_lazy(qrels, role="qrels")
    qschema = qlf.collect_schema()
    query_col = column_kwargs.get("query_col", "query_id")
    qq = column_kwargs.get("qrels_query_col") or query_col
    if query_col not in schema or qq not in qschema:
        return stacked, qrels  # evaluate() names the missing column
    to_run = [b for b in by if b not in schema and b in qschema]
    to_qrels = [b for b in by if b in schema and b not in qschema]
    if not to_run and not to_qrels:
        return stacked, qrels
    same = schema[query_col] == qschema[qq]
    run_key = pl.col(query_col) if same else pl.col(query_col).cast(pl.String)
    lf = stacked.lf if same else stacked.lf.with_columns(run_key)
    if not same:
        qlf = qlf.with_columns(pl.col(qq).cast(pl.String))
    if to_run:
        attrs = qlf.select(pl.col(qq).alias(query_col), *to_run).unique(query_col, keep="first")
        lf = lf.join(attrs, on=query_col, how="left", maintain_order="left")
    if to_qrels:
        run_attrs = lf.select(query_col, *to_qrels).unique().collect()
        dup = run_attrs.filter(pl.col(query_col).is_duplicated())
        if dup.height:
            msg = (
                f"The by-column(s) {to_qrels} of compare take several values within query "
                f"{dup.item(0, query_col)!r}; compare's groups are query attributes. "
                "Hint: compare per segment of queries, e.g. by='query_type' with one value per query."
            )
            raise InvalidParameterError(msg)
        qlf = qlf.join(run_attrs.lazy().rename({query_col: qq}), on=qq, how="left", maintain_order="left")
    return _Stacked(lf, stacked.origin, stacked.systems), qlf


def _resolve_baseline(baseline: str | None, systems: Sequence[str], where: str) -> str:
    if baseline is None:
        return systems[0]
    if baseline not in systems:
        near = closest(str(baseline), systems)
        msg = f"The baseline {baseline!r} of {where} is not one of the systems {list(systems)}."
        if near:
            msg += f"\nHint: did you mean baseline={near[0]!r}?"
        raise InvalidParameterError(msg)
    return baseline


def _as_list(by: str | Sequence[str] | None) -> list[str]:
    if by is None:
        return []
    return [by] if isinstance(by, str) else list(by)


def _per_query_long(
    stacked: _Stacked,
    *,
    qrels: Any,
    labels: Sequence[str],
    measures: Sequence[MeasureLike],
    by: Sequence[str],
    missing: str,
    column_kwargs: dict[str, Any],
) -> tuple[pl.DataFrame, str]:
    """Per-query values of every system: columns [_SYS, *by, query, _MEAS, _VAL]."""
    query_col = column_kwargs.get("query_col", "query_id")
    pq = evaluate(
        stacked.lf,
        list(measures),
        qrels,
        by=[_SYS, *by],
        per_query=True,
        missing=missing,  # type: ignore[arg-type]
        **column_kwargs,
    )
    df = pq.collect() if isinstance(pq, pl.LazyFrame) else pq
    long = df.unpivot(index=[_SYS, *by, query_col], on=list(labels), variable_name=_MEAS, value_name=_VAL)
    return long, query_col


def _paired(long: pl.DataFrame, baseline: str, keys: Sequence[str]) -> pl.DataFrame:
    """Join each system's values with the baseline's on (*by, query, measure); drop nulls."""
    base = long.filter(pl.col(_SYS) == baseline).select(*keys, _MEAS, pl.col(_VAL).alias(_BASE))
    delta = pl.col(_VAL) - pl.col(_BASE)
    return (
        long.filter(pl.col(_SYS) != baseline)
        .join(base, on=[*keys, _MEAS], how="inner")
        .filter(pl.col(_VAL).is_not_null() & pl.col(_BASE).is_not_null())
        .with_columns(pl.when(delta.abs() <= TIE_TOLERANCE).then(0.0).otherwise(delta).alias(_DELTA))
    )


def _check_choice(name: str, value: object, table: Mapping[str, str], where: str) -> str:
    got = table.get(value.lower()) if isinstance(value, str) else None
    if got is None:
        expected = "one of " + ", ".join(repr(v) for v in dict.fromkeys(table.values()))
        err = InvalidParameterError.for_value(name, where, expected, value)
        raise err
    return got


def _check_alpha(alpha: object, where: str) -> float:
    if isinstance(alpha, bool) or not isinstance(alpha, int | float) or not 0 < alpha < 1:
        err = InvalidParameterError.for_value("alpha", where, "a float in the open interval (0, 1)", alpha)
        raise err
    return float(alpha)


def _nan_to_none(x: float) -> float | None:
    return None if x is None or math.isnan(x) else float(x)


# --------------------------------------------------------------------------------------
# the report
# --------------------------------------------------------------------------------------
@dataclass
class ComparisonReport:
    r"""Result of :func:`compare_report`: the tidy table plus text, Markdown and LaTeX views.

    ``str(report)`` is a terminal table: one row per system (baseline first), one column
    per measure with the mean, a marker and the relative change, then the details of
    every comparison.  Markers: ``▲``/``▼`` significantly better/worse than the baseline
    after the correction (``p_adjusted < alpha``); ``△``/``▽`` ``p < alpha`` before the
    correction only.

    Attributes
    ----------
    baseline : str
        Name of the baseline system.
    systems : list of str
        Every system, baseline included, in input order.
    measures : list of str
        Measure labels, in the order asked.
    by : list of str
        Grouping columns (empty for none).
    alpha, test, correction, family_size, ci, ci_method, n_permutations, n_bootstrap
        The settings the table was computed with.

    Examples
    --------
    >>> from irframe.datasets import golden
    >>> g = golden()
    >>> report = compare_report(g.runs, g.qrels, ["nDCG@10", "R@100"], baseline="bm25")
    >>> report.baseline, report.systems, report.family_size
    ('bm25', ['bm25', 'dense', 'hybrid'], 4)
    >>> print(report.to_markdown().splitlines()[4])
    | hybrid | 0.7874▲ (+18.7%) | 0.8417 (-0.2%) |
    >>> print(report.to_latex().splitlines()[8])
    hybrid & 0.7874$^{\blacktriangle}$ (+18.7\%) & 0.8417 (-0.2\%) \\
    """

    baseline: str
    systems: list[str]
    measures: list[str]
    by: list[str]
    alpha: float
    test: str
    correction: str
    family_size: int
    ci: float
    ci_method: str
    n_permutations: int
    n_bootstrap: int
    system_col: str
    _table: pl.DataFrame = field(repr=False)
    _baseline_means: pl.DataFrame = field(repr=False)
    _origin: Origin = field(repr=False)

    @property
    def table(self) -> Any:
        """The tidy comparison table in the caller's frame type (see :func:`compare`)."""
        table = self._table
        if self.system_col != "system" and self.system_col not in table.columns:
            table = table.rename({"system": self.system_col})
        return from_lazy(table, self._origin)

    def __repr__(self) -> str:
        return (
            f"ComparisonReport(baseline={self.baseline!r}, systems={self.systems}, "
            f"measures={self.measures}, test={self.test!r}, correction={self.correction!r}, "
            f"family_size={self.family_size})"
        )

    # --- text pieces ---------------------------------------------------------------------
    def _marker(self, row: Mapping[str, Any], style: str) -> str:
        delta = row["delta"]
        if delta is None or row["p_value"] is None or delta == 0:
            return ""
        up = delta > 0
        if row["significant"]:
            sym = ("▲" if up else "▼") if style != "ascii" else ("+*" if up else "-*")
        elif row["p_value"] < self.alpha:
            sym = ("△" if up else "▽") if style != "ascii" else ("+" if up else "-")
        else:
            return ""
        if style == "latex":
            sym = {"▲": r"$^{\blacktriangle}$", "▼": r"$^{\blacktriangledown}$",
                   "△": r"$^{\vartriangle}$", "▽": r"$^{\triangledown}$"}[sym]  # fmt: skip
        return sym

    def _n_text(self) -> str:
        ns = self._table.get_column("n_queries")
        if ns.len() == 0:
            return "0 queries"
        lo, hi = int(ns.min()), int(ns.max())  # type: ignore[arg-type]
        return f"{lo} queries" if lo == hi else f"{lo}-{hi} queries"

    def method_text(self) -> str:
        """One paragraph saying what was tested, how, and over which family."""
        test = self.test
        how = _TEST_TEXT[test]
        if test == "randomization":
            how += (
                f" test, exact over all sign vectors up to 16 non-zero deltas, else "
                f"{self.n_permutations:,} random ones, p = (count + 1) / (B + 1)"
            )
        elif test == "bootstrap":
            how += f" test, {self.n_bootstrap:,} resamples"
        else:
            how += " test"
        n_other = len(self.systems) - 1
        n_groups = max(1, self._table.select(self.by).unique().height) if self.by else 1
        fam = f"{n_other} system(s) x {len(self.measures)} measure(s)"
        if self.by:
            fam += f" x {n_groups} group(s)"
        left_out = self._table.height - self.family_size
        if left_out:
            fam += f"; {left_out} comparison(s) without a p-value left out"
        corr = _CORRECTION_TEXT[self.correction]
        return (
            f"Baseline {self.baseline!r}; {self._n_text()} paired per comparison. "
            f"Two-sided {how}. {corr} correction over a family of {self.family_size} "
            f"comparisons ({fam}); alpha = {self.alpha:g}. "
            f"CI: {self.ci:.0%} paired bootstrap ({self.ci_method}, {self.n_bootstrap:,} "
            "resamples) of the mean delta."
        )

    def legend(self, style: str = "unicode") -> str:
        """What the markers mean."""
        up, down, hup, hdown = ("+*", "-*", "+", "-") if style == "ascii" else ("▲", "▼", "△", "▽")
        corr = _CORRECTION_TEXT[self.correction]
        return (
            f"{up}/{down} significantly better/worse than {self.baseline!r} after {corr} "
            f"correction (p_adj < {self.alpha:g}); {hup}/{hdown} p < {self.alpha:g} "
            "before correction only."
        )

    def _group_keys(self) -> list[tuple[Any, ...]]:
        if not self.by:
            return [()]
        return [tuple(r) for r in self._table.select(self.by).unique(maintain_order=True).rows()]

    def _wide_rows(self, style: str) -> tuple[list[str], list[list[str]]]:
        header = [*self.by, "system", *self.measures]
        rows: list[list[str]] = []
        for key in self._group_keys():
            cond = pl.lit(True)
            for col, val in zip(self.by, key, strict=True):
                cond = cond & (pl.col(col) == val) if val is not None else cond
            base = self._baseline_means.filter(cond)
            base_map = dict(zip(base.get_column("measure"), base.get_column("mean"), strict=True))
            cells = [_fmt(base_map.get(m)) for m in self.measures]
            rows.append([*[str(k) for k in key], self.baseline, *cells])
            sub = self._table.filter(cond)
            for system in self.systems:
                if system == self.baseline:
                    continue
                srows = {r["measure"]: r for r in sub.filter(pl.col("system") == system).to_dicts()}
                cells = []
                for m in self.measures:
                    r = srows.get(m)
                    if r is None:
                        cells.append("")
                        continue
                    mark = self._marker(r, style)
                    rel = r["rel_delta"]
                    rel_s = f" ({rel:+.1%})" if rel is not None else ""
                    if style == "latex":
                        rel_s = rel_s.replace("%", r"\%")
                    cells.append(f"{_fmt(r['mean'])}{mark}{rel_s}")
                rows.append([*[str(k) for k in key], system, *cells])
        return header, rows

    def _detail_rows(self) -> tuple[list[str], list[list[str]]]:
        pct = f"{self.ci:.0%} CI"
        header = ["measure", "system", *self.by, "mean", "delta", pct, "p", "p_adj", "d_z",
                  "W/T/L", "n"]  # fmt: skip
        rows = []
        for r in self._table.to_dicts():
            ci = (
                f"[{r['ci_low']:+.4f}, {r['ci_high']:+.4f}]"
                if r["ci_low"] is not None and r["ci_high"] is not None
                else "-"
            )
            rows.append(
                [
                    r["measure"],
                    r["system"],
                    *[str(r[b]) for b in self.by],
                    _fmt(r["mean"]),
                    f"{r['delta']:+.4f}" if r["delta"] is not None else "-",
                    ci,
                    _fmt_p(r["p_value"]),
                    _fmt_p(r["p_adjusted"]) + self._marker(r, "unicode"),
                    f"{r['effect_size']:+.2f}" if r["effect_size"] is not None else "-",
                    f"{r['wins']}/{r['ties']}/{r['losses']}",
                    str(r["n_queries"]),
                ]
            )
        return header, rows

    # --- renderers -----------------------------------------------------------------------
    def to_text(self, *, ascii: bool = False, details: bool = True) -> str:
        """Aligned plain-text tables for the terminal (``ascii=True``: no Unicode markers)."""
        style = "ascii" if ascii else "unicode"
        header, rows = self._wide_rows(style)
        parts = [_text_table(header, rows), "", _wrap(self.legend(style))]
        if details:
            dh, dr = self._detail_rows()
            if ascii:
                dr = [[c.translate(_ASCII) for c in row] for row in dr]
            parts += ["", _text_table(dh, dr)]
        parts += ["", _wrap(self.method_text())]
        return "\n".join(parts)

    def __str__(self) -> str:
        return self.to_text()

    def to_markdown(self, *, details: bool = False) -> str:
        """A Markdown (GitHub) table, with the legend and method as a paragraph below."""
        header, rows = self._wide_rows("unicode")
        out = [_md_table(header, rows)]
        if details:
            out += ["", _md_table(*self._detail_rows())]
        out += ["", self.legend("unicode") + " " + self.method_text()]
        return "\n".join(out)

    def _repr_markdown_(self) -> str:
        return self.to_markdown()

    def to_latex(self, *, caption: str | None = None, label: str | None = None) -> str:
        r"""A LaTeX ``table`` (booktabs; markers need ``amssymb``).

        The caption defaults to the legend and the method text.
        """
        header, rows = self._wide_rows("latex")
        cols = "l" * (len(self.by) + 1) + "r" * len(self.measures)
        legend = self.legend("unicode")
        for k, v in {"▲": r"$^{\blacktriangle}$", "▼": r"$^{\blacktriangledown}$",
                     "△": r"$^{\vartriangle}$", "▽": r"$^{\triangledown}$"}.items():  # fmt: skip
            legend = legend.replace(k, v)
        cap = caption if caption is not None else legend + " " + self.method_text()
        lines = [
            r"\begin{table}[t]",
            r"\centering",
            rf"\begin{{tabular}}{{{cols}}}",
            r"\toprule",
            " & ".join(_tex(h) for h in header) + r" \\",
            r"\midrule",
        ]
        lines += [" & ".join(_tex(c, keep_math=True) for c in row) + r" \\" for row in rows]
        lines += [r"\bottomrule", r"\end{tabular}", rf"\caption{{{_tex(cap, keep_math=True)}}}"]
        if label:
            lines.append(rf"\label{{{label}}}")
        lines.append(r"\end{table}")
        return "\n".join(lines)


_ASCII = str.maketrans({"▲": "^", "▼": "v", "△": "'", "▽": ","})


def _fmt(x: float | None) -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.4f}"


def _fmt_p(p: float | None) -> str:
    if p is None:
        return "-"
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def _text_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(header)]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(c.ljust(w) for w, c in zip(widths, cells, strict=True)).rstrip()

    return "\n".join([line(header), "  ".join("-" * w for w in widths), *map(line, rows)])


def _md_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    def esc(s: str) -> str:
        return s.replace("|", r"\|")

    lines = ["| " + " | ".join(esc(h) for h in header) + " |"]
    lines.append("|" + "|".join(":---" if i == 0 else "---:" for i in range(len(header))) + "|")
    lines += ["| " + " | ".join(esc(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


_TEX_SPECIAL = {"&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
                "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
                "<": "$<$", ">": "$>$"}  # fmt: skip


def _tex(s: str, keep_math: bool = False) -> str:
    if keep_math:
        # leave $...$ segments (our markers) and already escaped \% alone
        out, inside = [], False
        for part in s.split("$"):
            out.append(part if inside else _tex_escape(part))
            inside = not inside
        return "$".join(out)
    return _tex_escape(s)


def _tex_escape(s: str) -> str:
    out = []
    i = 0
    while i < len(s):
        ch = s[i]
        if ch == "\\" and i + 1 < len(s) and s[i + 1] == "%":
            out.append(r"\%")
            i += 2
            continue
        out.append(_TEX_SPECIAL.get(ch, ch))
        i += 1
    return "".join(out)


def _wrap(text: str, width: int = 100) -> str:
    words, lines, cur = text.split(), [], ""
    for w in words:
        if cur and len(cur) + 1 + len(w) > width:
            lines.append(cur)
            cur = w
        else:
            cur = f"{cur} {w}" if cur else w
    if cur:
        lines.append(cur)
    return "\n".join(lines)


# --------------------------------------------------------------------------------------
# compare
# --------------------------------------------------------------------------------------
def compare_report(
    runs: Any,
    qrels: Any = None,
    measures: MeasureLike | Iterable[MeasureLike] = DEFAULT_MEASURES,
    *,
    baseline: str | None = None,
    test: Literal["randomization", "t", "wilcoxon", "bootstrap"] = "randomization",
    correction: Literal["holm", "bonferroni", "bh", "none"] = "holm",
    by: str | Sequence[str] | None = None,
    alpha: float = 0.05,
    n_permutations: int = 10_000,
    n_bootstrap: int = 10_000,
    ci: float = 0.95,
    ci_method: Literal["percentile", "bca"] = "percentile",
    seed: int = 0,
    system_col: str = "system",
    missing: Literal["zero", "drop", "error"] = "zero",
    **column_kwargs: Any,
) -> ComparisonReport:
    """Compare systems with a baseline; return a :class:`ComparisonReport`.

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
    """
    # numpy and the statistics load on first use, so that exporting compare keeps
    # `import irframe` light
    import numpy as np

    from irframe.stats import CORRECTIONS, TESTS, adjust_p_values, bootstrap_ci, cohens_dz, paired_test

    where = "compare"
    test_name = _check_choice("test", test, TESTS, where)
    corr_name = _check_choice("correction", correction, CORRECTIONS, where)
    alpha_f = _check_alpha(alpha, where)
    if ci_method not in ("percentile", "bca"):
        err = InvalidParameterError.for_value("ci_method", where, "'percentile' or 'bca'", ci_method)
        raise err
    if missing not in ("zero", "drop", "error"):
        err = InvalidParameterError.for_value("missing", where, "one of 'zero', 'drop', 'error'", missing)
        raise err
    parsed = parse_measures(measures)
    labels = [label for label, _ in parsed]
    by_cols = _as_list(by)
    stacked, qrels = _align_query_attributes(_stack(runs, system_col, where), qrels, by_cols, column_kwargs)
    base_name = _resolve_baseline(baseline, stacked.systems, where)

    long, query_col = _per_query_long(
        stacked,
        qrels=qrels,
        labels=labels,
        measures=labels,
        by=by_cols,
        missing=missing,
        column_kwargs=column_kwargs,
    )
    pairs = _paired(long, base_name, [*by_cols, query_col])
    sys_rank = {s: i for i, s in enumerate(stacked.systems)}
    meas_rank = {m: i for i, m in enumerate(labels)}
    grouped = (
        pairs.group_by([_SYS, *by_cols, _MEAS], maintain_order=True)
        .agg(pl.col(_VAL), pl.col(_BASE), pl.col(_DELTA))
        .with_columns(
            pl.col(_SYS).replace_strict(sys_rank, return_dtype=pl.Int64).alias("__ir_si"),
            pl.col(_MEAS).replace_strict(meas_rank, return_dtype=pl.Int64).alias("__ir_mi"),
        )
        .sort(["__ir_si", "__ir_mi", *by_cols], nulls_last=True)
    )

    records: list[dict[str, Any]] = []
    for row in grouped.iter_rows(named=True):
        x = np.asarray(row[_VAL], dtype=np.float64)
        y = np.asarray(row[_BASE], dtype=np.float64)
        d = np.asarray(row[_DELTA], dtype=np.float64)
        n = int(d.size)
        mean, base_mean = float(x.mean()), float(y.mean())
        delta = float(d.mean())
        res = paired_test(
            d,
            test=test_name,
            n_permutations=n_permutations,
            n_bootstrap=n_bootstrap,
            seed=seed,
        )
        interval = bootstrap_ci(d, n_bootstrap=n_bootstrap, ci=ci, method=ci_method, seed=seed)
        records.append(
            {
                "system": row[_SYS],
                "baseline": base_name,
                "measure": row[_MEAS],
                **{b: row[b] for b in by_cols},
                "mean": mean,
                "baseline_mean": base_mean,
                "delta": delta,
                "rel_delta": delta / base_mean if base_mean != 0 else None,
                "ci_low": _nan_to_none(interval.low),
                "ci_high": _nan_to_none(interval.high),
                "p_value": _nan_to_none(res.p_value),
                "effect_size": _nan_to_none(cohens_dz(d)),
                "wins": int(np.count_nonzero(d > 0)),
                "ties": int(np.count_nonzero(d == 0)),
                "losses": int(np.count_nonzero(d < 0)),
                "n_queries": n,
                "note": res.note,
            }
        )
    raw = np.array([np.nan if r["p_value"] is None else r["p_value"] for r in records])
    adjusted = adjust_p_values(raw, corr_name)
    family = int(np.count_nonzero(np.isfinite(raw)))
    for r, p_adj in zip(records, adjusted, strict=True):
        r["p_adjusted"] = _nan_to_none(float(p_adj))
        r["significant"] = bool(np.isfinite(p_adj) and p_adj < alpha_f)
        r["test"] = test_name
        r["correction"] = corr_name
        r["family_size"] = family

    by_schema = {b: long.schema[b] for b in by_cols}
    schema: dict[str, Any] = {
        "system": pl.String,
        "baseline": pl.String,
        "measure": pl.String,
        **by_schema,
        "mean": pl.Float64,
        "baseline_mean": pl.Float64,
        "delta": pl.Float64,
        "rel_delta": pl.Float64,
        "ci_low": pl.Float64,
        "ci_high": pl.Float64,
        "p_value": pl.Float64,
        "p_adjusted": pl.Float64,
        "significant": pl.Boolean,
        "effect_size": pl.Float64,
        "wins": pl.Int64,
        "ties": pl.Int64,
        "losses": pl.Int64,
        "n_queries": pl.Int64,
        "test": pl.String,
        "correction": pl.String,
        "family_size": pl.Int64,
        "note": pl.String,
    }
    table = pl.DataFrame(records, schema=schema)

    base_means = (
        long.filter((pl.col(_SYS) == base_name) & pl.col(_VAL).is_not_null())
        .group_by([*by_cols, _MEAS], maintain_order=True)
        .agg(pl.col(_VAL).mean().alias("mean"))
        .rename({_MEAS: "measure"})
    )
    return ComparisonReport(
        baseline=base_name,
        systems=stacked.systems,
        measures=labels,
        by=by_cols,
        alpha=alpha_f,
        test=test_name,
        correction=corr_name,
        family_size=family,
        ci=ci,
        ci_method=ci_method,
        n_permutations=n_permutations,
        n_bootstrap=n_bootstrap,
        system_col=system_col,
        _table=table,
        _baseline_means=base_means,
        _origin=stacked.origin,
    )


def compare(
    runs: Any,
    qrels: Any = None,
    measures: MeasureLike | Iterable[MeasureLike] = DEFAULT_MEASURES,
    *,
    baseline: str | None = None,
    test: Literal["randomization", "t", "wilcoxon", "bootstrap"] = "randomization",
    correction: Literal["holm", "bonferroni", "bh", "none"] = "holm",
    by: str | Sequence[str] | None = None,
    alpha: float = 0.05,
    n_permutations: int = 10_000,
    n_bootstrap: int = 10_000,
    ci: float = 0.95,
    ci_method: Literal["percentile", "bca"] = "percentile",
    seed: int = 0,
    system_col: str = "system",
    missing: Literal["zero", "drop", "error"] = "zero",
    **column_kwargs: Any,
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
        The system every other one is compared with; default the first (dict order, or
        first appearance in the stacked frame).
    test : {"randomization", "t", "wilcoxon", "bootstrap"}, default "randomization"
        Paired two-sided test on per-query deltas (see :mod:`irframe.stats`).
    correction : {"holm", "bonferroni", "bh", "none"}, default "holm"
        Multiple-testing correction over the whole table (systems x measures x groups).
    by : str or list of str, optional
        Query-attribute columns (e.g. query type) to compare within each group. The column
        may be in the runs, the qrels or both; it is copied to the other by query id.
    alpha : float, default 0.05
        Level for ``significant = p_adjusted < alpha``.
    n_permutations, n_bootstrap : int, default 10_000
        Random sign vectors of the randomization test; bootstrap resamples of the CI.
    ci : float, default 0.95
        Confidence level of the interval of the mean delta.
    ci_method : {"percentile", "bca"}, default "percentile"
        Bootstrap interval method.
    seed : int, default 0
        Seed of every Monte-Carlo step; each comparison uses it afresh, so a comparison's
        p-value does not depend on which other systems are in the table.
    system_col : str, default "system"
        System column of a stacked frame, and name of the output's system column.
    missing : {"zero", "drop", "error"}, default "zero"
        Judged queries absent from a run (see :func:`irframe.evaluate`).
    **column_kwargs
        ``query_col``, ``doc_col``, ``rank_col``, ``score_col``, ``relevance_col``,
        ``qrels_*_col``, ``duplicates`` — passed to :func:`irframe.evaluate`.

    Returns
    -------
    Frame of the caller's type
        One row per (non-baseline system, measure[, group]): ``system``, ``baseline``,
        ``measure``, [by columns], ``mean``, ``baseline_mean`` (both over the paired
        queries), ``delta``, ``rel_delta`` (delta / baseline_mean), ``ci_low``,
        ``ci_high`` (bootstrap CI of the mean delta), ``p_value``, ``p_adjusted``,
        ``significant``, ``effect_size`` (Cohen's d_z = mean / sd of the deltas),
        ``wins``, ``ties``, ``losses``, ``n_queries``, ``test``, ``correction``,
        ``family_size`` (number of tests in the correction) and ``note`` (why a p-value
        is null, e.g. ``"n < 2"``).

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
    """
    report = compare_report(
        runs,
        qrels,
        measures,
        baseline=baseline,
        test=test,
        correction=correction,
        by=by,
        alpha=alpha,
        n_permutations=n_permutations,
        n_bootstrap=n_bootstrap,
        ci=ci,
        ci_method=ci_method,
        seed=seed,
        system_col=system_col,
        missing=missing,
        **column_kwargs,
    )
    return report.table


# --------------------------------------------------------------------------------------
# moved
# --------------------------------------------------------------------------------------
def _top_docs(
    run: pl.LazyFrame,
    keys: pl.DataFrame,
    grades: pl.LazyFrame | None,
    *,
    query_col: str,
    doc_col: str,
    rank_col: str | None,
    score_col: str,
    k: int,
) -> pl.DataFrame | None:
    """The first ``k`` doc ids (with grades) per (system, query) in ``keys``, as text."""
    schema = run.collect_schema()
    if doc_col not in schema:
        return None
    doc_s = pl.col(doc_col).cast(pl.String)
    if rank_col is not None and rank_col in schema:
        order, desc = ranking_order("rank", rank_col, doc_col)
    elif score_col in schema:
        order, desc = ranking_order("score", score_col, doc_col)
    else:
        return None
    rows = (
        run.select(_SYS, pl.col(query_col).cast(pl.String).alias(_QKEY), doc_s, order[0])
        .join(keys.lazy(), on=[_SYS, _QKEY], how="semi")
        .sort([_SYS, _QKEY, *order], descending=[False, False, *desc])
        .group_by([_SYS, _QKEY], maintain_order=True)
        .head(k)
    )
    label = pl.col(doc_col)
    if grades is not None:
        rows = rows.join(grades, on=[_QKEY, doc_col], how="left", maintain_order="left")
        label = pl.concat_str(
            [
                pl.col(doc_col),
                pl.lit(" ("),
                pl.col("__ir_grade").cast(pl.String).fill_null("?"),
                pl.lit(")"),
            ]
        )
    return (
        rows.group_by([_SYS, _QKEY], maintain_order=True)
        .agg(label.str.join(", ").alias("__ir_docs"))
        .collect()
    )


def moved(
    runs: Any,
    qrels: Any = None,
    measure: MeasureLike = "nDCG@10",
    *,
    baseline: str | None = None,
    system: str | Sequence[str] | None = None,
    n: int | None = 20,
    queries: Any = None,
    text_col: str = "text",
    docs_top: int = 3,
    system_col: str = "system",
    missing: Literal["zero", "drop", "error"] = "zero",
    **column_kwargs: Any,
) -> Any:
    """The queries that moved most between the baseline and each system, to read what changed.

    Parameters
    ----------
    runs : dict of name -> frame, or one stacked frame
        As for :func:`compare`.
    qrels : frame, optional
        Judgments (else grades are read from the runs).
    measure : str or Measure, default "nDCG@10"
        The one measure whose per-query change is listed.
    baseline : str, optional
        Default the first system.
    system : str or list of str, optional
        Which systems to list (default every non-baseline system).
    n : int or None, default 20
        Queries per system, largest absolute change first (``None``: all paired queries).
    queries : frame, optional
        Query texts: the query id column (same name as in the run) and ``text_col``.
    text_col : str, default "text"
        Column of ``queries`` holding the text.
    docs_top : int, default 3
        How many top-ranked doc ids of each system to show (0: none). Order: the rank
        column if present, else score descending with doc id descending on ties (as
        trec_eval). Each id is followed by its grade in parentheses (``?`` = unjudged).
    system_col, missing, **column_kwargs
        As for :func:`compare`.

    Returns
    -------
    Frame of the caller's type
        ``system``, the query id, [``text_col``], ``baseline_value``, ``value``,
        ``delta`` (value - baseline_value), [``baseline_docs``, ``system_docs``]; sorted
        by system (input order), then ``|delta|`` descending, then query id.

    Examples
    --------
    >>> import polars as pl
    >>> qrels = pl.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["a", "b"], "relevance": [2, 1]})
    >>> runs = {
    ...     "bm25": pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["x", "a", "b"],
    ...                           "score": [2.0, 1.0, 1.0]}),
    ...     "new": pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "x", "b"],
    ...                          "score": [2.0, 1.0, 1.0]}),
    ... }
    >>> queries = pl.DataFrame({"query_id": ["q1", "q2"], "text": ["cheap flights", "weather"]})
    >>> m = moved(runs, qrels, "RR", queries=queries, docs_top=2)
    >>> m.select("query_id", "text", "baseline_value", "value", "delta").rows()
    [('q1', 'cheap flights', 0.5, 1.0, 0.5), ('q2', 'weather', 1.0, 1.0, 0.0)]
    >>> m.select("baseline_docs", "system_docs").row(0)
    ('x (?), a (2)', 'a (2), x (?)')
    """
    out, origin = _moved_frame(
        runs,
        qrels,
        measure,
        baseline=baseline,
        system=system,
        n=n,
        queries=queries,
        text_col=text_col,
        docs_top=docs_top,
        system_col=system_col,
        missing=missing,
        **column_kwargs,
    )
    return from_lazy(out, origin)


def _moved_frame(
    runs: Any,
    qrels: Any = None,
    measure: MeasureLike = "nDCG@10",
    *,
    baseline: str | None = None,
    system: str | Sequence[str] | None = None,
    n: int | None = 20,
    queries: Any = None,
    text_col: str = "text",
    docs_top: int = 3,
    system_col: str = "system",
    missing: Literal["zero", "drop", "error"] = "zero",
    **column_kwargs: Any,
) -> tuple[pl.DataFrame, Origin]:
    """:func:`moved` as a polars DataFrame, with the origin of the runs."""
    where = "moved"
    parsed = parse_measures(measure)
    if len(parsed) != 1:
        msg = f"moved lists one measure at a time; got {[label for label, _ in parsed]}."
        raise InvalidParameterError(msg)
    label = parsed[0][0]
    if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 1):
        err = InvalidParameterError.for_value("n", where, "an int >= 1 or None", n)
        raise err
    if isinstance(docs_top, bool) or not isinstance(docs_top, int) or docs_top < 0:
        err = InvalidParameterError.for_value("docs_top", where, "an int >= 0", docs_top)
        raise err
    stacked = _stack(runs, system_col, where)
    base_name = _resolve_baseline(baseline, stacked.systems, where)
    others = [s for s in stacked.systems if s != base_name]
    if system is not None:
        wanted = [system] if isinstance(system, str) else list(system)
        for s in wanted:
            if s not in others:
                near = closest(str(s), others)
                msg = f"The system {s!r} of moved is not one of {others}."
                if near:
                    msg += f"\nHint: did you mean system={near[0]!r}?"
                raise InvalidParameterError(msg)
        others = [s for s in others if s in wanted]

    long, query_col = _per_query_long(
        stacked,
        qrels=qrels,
        labels=[label],
        measures=[label],
        by=[],
        missing=missing,
        column_kwargs=column_kwargs,
    )
    sys_rank = {s: i for i, s in enumerate(stacked.systems)}
    pairs = (
        _paired(long, base_name, [query_col])
        .filter(pl.col(_SYS).is_in(others))
        .with_columns(
            pl.col(_SYS).replace_strict(sys_rank, return_dtype=pl.Int64).alias("__ir_si"),
            pl.col(_DELTA).abs().alias("__ir_abs"),
            pl.col(query_col).cast(pl.String).alias(_QKEY),
        )
        .sort(["__ir_si", "__ir_abs", query_col], descending=[False, True, False])
    )
    if n is not None:
        pairs = pairs.group_by(_SYS, maintain_order=True).head(n)
    out = pairs.select(
        pl.col(_SYS).alias("system"),
        query_col,
        pl.col(_BASE).alias("baseline_value"),
        pl.col(_VAL).alias("value"),
        pl.col(_DELTA).alias("delta"),
        _QKEY,
    )

    if queries is not None:
        qlf, _ = to_lazy(queries, role="queries")
        qschema = qlf.collect_schema()
        for col, role in ((query_col, "query_id"), (text_col, "text")):
            if col not in qschema:
                raise ColumnNotFoundError.from_missing(
                    role=role,
                    missing=col,
                    available=list(qschema),
                    frame="queries",
                    parameter="query_col" if role == "query_id" else "text_col",
                )
        texts = (
            qlf.select(pl.col(query_col).cast(pl.String).alias(_QKEY), pl.col(text_col))
            .unique(_QKEY, keep="first", maintain_order=True)
            .collect()
        )
        out = out.join(texts, on=_QKEY, how="left", maintain_order="left")
        out = out.select("system", query_col, text_col, "baseline_value", "value", "delta", _QKEY)

    if docs_top > 0 and out.height:
        doc_col = column_kwargs.get("doc_col", "doc_id")
        grades = _grades(stacked.lf, qrels, query_col, doc_col, column_kwargs)
        keys = pl.concat(
            [
                out.select(pl.col("system").alias(_SYS), _QKEY),
                out.select(pl.lit(base_name, dtype=pl.String).alias(_SYS), _QKEY),
            ]
        ).unique()
        top = _top_docs(
            stacked.lf,
            keys,
            grades,
            query_col=query_col,
            doc_col=doc_col,
            rank_col=column_kwargs.get("rank_col", "rank"),
            score_col=column_kwargs.get("score_col", "score"),
            k=docs_top,
        )
        if top is not None:
            base_top = top.filter(pl.col(_SYS) == base_name).select(
                _QKEY, pl.col("__ir_docs").alias("baseline_docs")
            )
            sys_top = top.select(
                pl.col(_SYS).alias("system"), _QKEY, pl.col("__ir_docs").alias("system_docs")
            )
            out = out.join(base_top, on=_QKEY, how="left", maintain_order="left").join(
                sys_top, on=["system", _QKEY], how="left", maintain_order="left"
            )
    out = out.drop(_QKEY)
    if system_col != "system" and system_col not in out.columns:
        out = out.rename({"system": system_col})
    return out, stacked.origin


def _grades(
    run: pl.LazyFrame,
    qrels: Any,
    query_col: str,
    doc_col: str,
    column_kwargs: Mapping[str, Any],
) -> pl.LazyFrame | None:
    """(query, doc, __ir_grade) as strings/numbers, from the qrels or the run's grades."""
    rel_col = column_kwargs.get("relevance_col", "relevance")
    if qrels is None:
        schema = run.collect_schema()
        if rel_col not in schema:
            return None
        src, qc, dc, rc = run, query_col, doc_col, rel_col
    else:
        src, _ = to_lazy(qrels, role="qrels")
        qc = column_kwargs.get("qrels_query_col") or query_col
        dc = column_kwargs.get("qrels_doc_col") or doc_col
        rc = column_kwargs.get("qrels_relevance_col") or rel_col
        schema = src.collect_schema()
        if any(c not in schema for c in (qc, dc, rc)):
            return None
    grade = pl.col(rc)
    grade = grade.cast(pl.Int64) if schema[rc].is_integer() or schema[rc] == pl.Boolean else grade
    return (
        src.select(
            pl.col(qc).cast(pl.String).alias(_QKEY),
            pl.col(dc).cast(pl.String).alias(doc_col),
            grade.alias("__ir_grade"),
        )
        .drop_nulls("__ir_grade")
        .unique([_QKEY, doc_col], keep="first")
    )
