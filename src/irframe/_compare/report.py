r"""The report model shared by :func:`irframe.compare_report` and the CLI, and its renderings.

:class:`ComparisonReport` holds the tidy comparison table and the settings it was computed
with; it renders as aligned text (``str(report)``), Markdown, LaTeX and HTML (notebooks).
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, overload

import polars as pl

from irframe._escape import html, latex, markdown, terminal
from irframe._input.frames import Origin, from_lazy
from irframe._report.notes import conventions, group_text, markers_footnote

__all__ = ["ComparisonReport", "Sources", "resample_count", "unreachable_note"]

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
_LATEX_MARKERS = {"▲": r"$^{\blacktriangle}$", "▼": r"$^{\blacktriangledown}$",
                  "△": r"$^{\vartriangle}$", "▽": r"$^{\triangledown}$"}  # fmt: skip
_ASCII = str.maketrans({"▲": "^", "▼": "v", "△": "'", "▽": ","})


@dataclass(frozen=True)
class Sources:
    """What the HTML page reads the moved queries' documents from (kept, not computed, by
    :func:`compare_report`): the stacked runs (lazy, system column ``__ir_system``), the
    qrels, the resolved options and the queries table (texts), as given."""

    runs: pl.LazyFrame
    qrels: Any
    opts: Any
    queries: Any = None


@dataclass
class ComparisonReport:
    r"""Result of :func:`compare_report`: the tidy table plus text, Markdown and LaTeX views.

    ``str(report)`` is a terminal table: one row per system (baseline first), one column
    per measure with the mean, a marker and the relative change, then the details of
    every comparison.  Markers: ``▲``/``▼`` significantly better/worse than the baseline
    after the correction (``p_adjusted < alpha``); ``△``/``▽`` ``p < alpha`` before the
    correction only.

    With ``pairs="all"`` (no baseline) the first table holds every system's mean and the
    details compare every pair (``system`` against ``vs``), markers included.

    Attributes
    ----------
    baseline : str or None
        Name of the baseline system; None when every pair was compared.
    pairs : {"baseline", "all"}
        Every system against the baseline, or every pair of systems.
    systems : list of str
        Every system, baseline included, in input order.
    measures : list of str
        Measure labels, in the order asked.
    by : list of str
        Grouping columns (empty for none).
    alpha, test, correction, family_size, ci, ci_method, n_permutations, n_bootstrap
        The settings the table was computed with.
    weights : str or None
        The column the queries were weighted by (None: every query counts the same).

    Examples
    --------
    >>> from irframe._compare import compare_report
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

    baseline: str | None
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
    pairs: str
    _table: pl.DataFrame = field(repr=False)
    _means: pl.DataFrame = field(repr=False)
    _origin: Origin = field(repr=False)
    weights: str | None = None
    _holes: pl.DataFrame | None = field(default=None, repr=False)
    # per query: system, baseline, measure, by, query (text), both values and the delta (the
    # page's moved queries and plots), in compare's long names (irframe._compare.LONG)
    _pairs: pl.DataFrame | None = field(default=None, repr=False, compare=False)
    _sources: Sources | None = field(default=None, repr=False, compare=False)

    @property
    def holes(self) -> Any:
        """Per system and judged query (``holes=True``): the top ``holes_depth``'s size
        (``n_top``), its judged and unjudged documents (``n_judged``, ``n_unjudged``,
        ``judged``: evaluate's ``Judged@k``), the unjudged doc ids (``unjudged``, in ranking
        order) and their positions (``unjudged_at``); None without ``holes=True``."""
        return None if self._holes is None else from_lazy(self._holes, self._origin)

    @property
    def table(self) -> Any:
        """The tidy comparison table in the caller's frame type (see :func:`compare`)."""
        return from_lazy(self.to_polars(), self._origin)

    def to_polars(self) -> pl.DataFrame:
        """The tidy comparison table as a polars DataFrame, whatever the runs' frame type.

        The same rows and columns as :attr:`table` (the system column named ``system_col``).

        Examples
        --------
        >>> from irframe._compare import compare_report
        >>> from irframe.datasets import golden
        >>> g = golden(backend="pandas")
        >>> report = compare_report(g.runs, g.qrels, ["RR"], baseline="bm25")
        >>> type(report.table).__name__, type(report.to_polars()).__name__
        ('DataFrame', 'DataFrame')
        >>> report.to_polars().get_column("system").to_list()
        ['dense', 'hybrid']
        """
        table = self._table
        if self.system_col != "system" and self.system_col not in table.columns:
            table = table.rename({"system": self.system_col})
        return table

    def __repr__(self) -> str:
        pairs = ", pairs='all'" if self.baseline is None else ""
        return (
            f"ComparisonReport(baseline={self.baseline!r}{pairs}, systems={self.systems}, "
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
        return sym

    def _n_text(self) -> str:
        ns = self._table.get_column("n_queries")
        if ns.len() == 0:
            return "0 queries"
        lo, hi = int(ns.min()), int(ns.max())  # type: ignore[arg-type]
        return f"{lo} queries" if lo == hi else f"{lo}-{hi} queries"

    def _test_text(self) -> str:
        how = _TEST_TEXT[self.test]
        if self.test == "randomization":
            return how + (
                f" test, exact over all sign vectors up to 16 non-zero deltas, else "
                f"{self.n_permutations:,} random ones, p = (count + 1) / (B + 1)"
            )
        if self.test == "bootstrap":
            return how + f" test, {self.n_bootstrap:,} resamples"
        return how + " test"

    def _family_text(self) -> str:
        n_other = len(self.systems) - 1
        fam = f"{n_other} system(s) x {len(self.measures)} measure(s)"
        if self.baseline is None:
            fam = f"{n_other * (n_other + 1) // 2} pair(s) of systems x {len(self.measures)} measure(s)"
        if self.by:
            n_groups = self._table.select(self.by).unique().drop_nulls().height
            fam += f" x (overall + {n_groups} segment(s))"
        left_out = self._table.height - self.family_size
        if left_out:
            fam += f"; {left_out} comparison(s) without a p-value left out"
        return fam

    def method_text(self) -> str:
        """One paragraph saying what was tested, how, and over which family."""
        corr = _CORRECTION_TEXT[self.correction]
        who = f"Baseline {self.baseline!r}" if self.baseline is not None else "Every pair of systems"
        resamples = self._table.get_column("resamples") if "resamples" in self._table.columns else None
        floor = unreachable_note(resamples, self.family_size, self.alpha, self.correction)
        return (
            f"{who}; {self._n_text()} paired per comparison. "
            f"Two-sided {self._test_text()}. {corr} correction over a family of {self.family_size} "
            f"comparisons ({self._family_text()}); alpha = {self.alpha:g}. "
            f"CI: {self.ci:.0%} paired bootstrap ({self.ci_method}, {self.n_bootstrap:,} "
            "resamples) of the mean delta."
            + (
                ""
                if self.weights is None
                else f" Queries weighted by {self.weights!r}: weighted means, tests and CI (irframe.stats)."
            )
            + (f" {floor}" if floor else "")
        )

    def legend(self, style: str = "unicode") -> str:
        """What the markers mean."""
        up, down, hup, hdown = ("+*", "-*", "+", "-") if style == "ascii" else ("▲", "▼", "△", "▽")
        corr = _CORRECTION_TEXT[self.correction]
        than = repr(self.baseline) if self.baseline is not None else "the 'vs' system (details)"
        return (
            f"{up}/{down} significantly better/worse than {than} after {corr} "
            f"correction (p_adj < {self.alpha:g}); {hup}/{hdown} p < {self.alpha:g} "
            "before correction only."
        )

    def footnote(self) -> str:
        """Which test the markers follow, and why a CI and a p-value can disagree (every
        format prints it: :func:`irframe._report.notes.markers_footnote`)."""
        return markers_footnote(test=self.test, correction=self.correction, alpha=self.alpha,
                                ci=self.ci, ci_method=self.ci_method)  # fmt: skip

    def conventions(self) -> list[str]:
        """The measures' conventions a peer reads differently (nDCG's gain), one sentence each."""
        return conventions(self.measures)

    def _group_keys(self) -> list[tuple[Any, ...]]:
        if not self.by:
            return [()]
        return [tuple(r) for r in self._table.select(self.by).unique(maintain_order=True).rows()]

    def _group_filter(self, key: tuple[Any, ...]) -> pl.Expr:
        """The rows of one group; the overall rows have every ``by`` column null (a segment
        value is never null: the engine refuses null segments)."""
        cond = pl.lit(True)
        for col, val in zip(self.by, key, strict=True):
            cond = cond & (pl.col(col).is_null() if val is None else pl.col(col) == val)
        return cond

    def _system_cells(self, sub: pl.DataFrame, system: str, style: str) -> list[str]:
        srows = {r["measure"]: r for r in sub.filter(pl.col("system") == system).to_dicts()}
        cells = []
        for m in self.measures:
            r = srows.get(m)
            if r is None:
                cells.append("")
                continue
            rel = r["rel_delta"]
            rel_s = f" ({rel:+.1%})" if rel is not None else ""
            cells.append(f"{_fmt(r['mean'])}{self._marker(r, style)}{rel_s}")
        return cells

    def _means_of(self, system: str, cond: pl.Expr) -> dict[str, float]:
        means = self._means.filter(cond & (pl.col("system") == system))
        return dict(zip(means.get_column("measure"), means.get_column("mean"), strict=True))

    def _wide_rows(self, style: str) -> tuple[list[str], list[list[str]]]:
        """Baseline mode: the baseline's means, then each system's with marker and change.

        Every-pair mode: each system's means (the comparisons are in the details).
        """
        header = [*self.by, "system", *self.measures]
        rows: list[list[str]] = []
        for key in self._group_keys():
            cond = self._group_filter(key)
            keys = [group_text(k) for k in key]
            if self.baseline is None:
                for system in self.systems:
                    means = self._means_of(system, cond)
                    rows.append([*keys, system, *[_fmt(means.get(m)) for m in self.measures]])
                continue
            base_map = self._means_of(self.baseline, cond)
            rows.append([*keys, self.baseline, *[_fmt(base_map.get(m)) for m in self.measures]])
            sub = self._table.filter(cond)
            rows += [
                [*keys, system, *self._system_cells(sub, system, style)]
                for system in self.systems
                if system != self.baseline
            ]
        return header, rows

    def _detail_rows(self, style: str = "unicode") -> tuple[list[str], list[list[str]]]:
        """One row per comparison: CI, p, adjusted p with its marker, d_z, W/T/L, n."""
        vs = ["vs"] if self.baseline is None else []
        header = ["measure", "system", *vs, *self.by, "mean", "delta", f"{self.ci:.0%} CI", "p",
                  "p_adj", "d_z", "W/T/L", "n"]  # fmt: skip
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
                    *([r["baseline"]] if vs else []),
                    *[group_text(r[b]) for b in self.by],
                    _fmt(r["mean"]),
                    f"{r['delta']:+.4f}" if r["delta"] is not None else "-",
                    ci,
                    _fmt_p(r["p_value"]),
                    _fmt_p(r["p_adjusted"]) + self._marker(r, style),
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
        parts = [_text_table(header, rows), "", _wrap(terminal(self.legend(style)))]
        if details:
            dh, dr = self._detail_rows()
            if ascii:
                dr = [[c.translate(_ASCII) for c in row] for row in dr]
            parts += ["", _text_table(dh, dr)]
        parts += ["", _wrap(terminal(self.method_text())), "", _wrap(terminal(self.footnote()))]
        parts += [_wrap(terminal(f"Note: {note}")) for note in self.conventions()]
        return "\n".join(parts)

    def __str__(self) -> str:
        return self.to_text()

    def to_markdown(self, *, details: bool | None = None) -> str:
        """A Markdown (GitHub) table, with the legend and method as a paragraph below.

        ``details`` adds the table of every comparison; by default only with ``pairs="all"``
        (where the first table shows the means without markers).
        """
        header, rows = self._wide_rows("unicode")
        out = [_md_table(header, rows)]
        if details or (details is None and self.baseline is None):
            out += ["", _md_table(*self._detail_rows())]
        out += [
            "",
            markdown(self.legend("unicode") + " " + self.method_text()),
            "",
            markdown(self.footnote()),
        ]
        out += [x for note in self.conventions() for x in ("", f"Note: {markdown(note)}")]
        return "\n".join(out)

    def _repr_markdown_(self) -> str:
        return self.to_markdown()

    @overload
    def to_html(self, path: None = None, *, n_moved: int = ..., docs_top: int = ...) -> str: ...
    @overload
    def to_html(self, path: str | os.PathLike[str], *, n_moved: int = ..., docs_top: int = ...) -> None: ...
    def to_html(
        self, path: str | os.PathLike[str] | None = None, *, n_moved: int = 10, docs_top: int = 3
    ) -> str | None:
        """HTML: without ``path``, a fragment for notebooks (the summary table, the comparisons
        with CI, p and W/T/L, legend, method, footnote); with ``path``, the whole report as one
        self-contained page written there atomically (see :meth:`html_page`).

        Every name and value is HTML-escaped (:func:`irframe._escape.html`).

        Examples
        --------
        >>> from irframe._compare import compare_report
        >>> from irframe.datasets import golden
        >>> g = golden()
        >>> page = compare_report(g.runs, g.qrels, ["RR"], baseline="bm25").to_html()
        >>> page.count("<table"), "<th>W/T/L</th>" in page
        (2, True)
        """
        if path is not None:
            from irframe._report.page import write_text

            write_text(path, self.html_page(n_moved=n_moved, docs_top=docs_top))
            return None
        header, rows = self._wide_rows("unicode")
        dh, dr = self._detail_rows()
        return "\n".join(
            [
                '<div class="irframe-comparison">',
                _html_table(header, rows, caption="Means"),
                _html_table(dh, dr, caption="Comparisons"),
                f"<p>{html(self.legend('unicode'))}</p>",
                f"<p>{html(self.method_text())}</p>",
                f"<p>{html(self.footnote())}</p>",
                *(f"<p>Note: {html(note)}</p>" for note in self.conventions()),
                "</div>",
            ]
        )

    def _repr_html_(self) -> str:
        return self.to_html()

    def html_page(self, *, n_moved: int = 10, docs_top: int = 3) -> str:
        """The report as one self-contained HTML page (no network: inline CSS, plots as
        inline SVG when matplotlib is installed): the headline, the means with markers, the
        comparisons with CIs, per segment with ``by``, the ``n_moved`` queries that moved
        most per system on the first measure with the top ``docs_top`` documents of both
        sides (grades shown, unjudged marked), the notes and the plots.

        Examples
        --------
        >>> from irframe._compare import compare_report
        >>> from irframe.datasets import golden
        >>> g = golden()
        >>> page = compare_report(g.runs, g.qrels, ["RR"], baseline="bm25").html_page(n_moved=2)
        >>> page.startswith("<!DOCTYPE html>"), "Queries that moved most" in page, "https://" in page
        (True, True, False)
        """
        from irframe._compare.html import html_page

        return html_page(self, n_moved=n_moved, docs_top=docs_top)

    def to_latex(self, *, caption: str | None = None, label: str | None = None) -> str:
        r"""A LaTeX ``table`` (booktabs; markers need ``amssymb``).

        The caption defaults to the legend and the method text.  With ``pairs="all"`` the
        table lists every comparison (the details) instead of one row per system.  Names
        and values are text (:func:`irframe._escape.latex`); a ``caption`` given is LaTeX
        as written, ``$...$`` math included, its other special characters escaped.
        """
        if self.baseline is None:
            header, rows = self._detail_rows()
            cols = "l" * (len(self.by) + 3) + "r" * (len(header) - len(self.by) - 3)
        else:
            header, rows = self._wide_rows("unicode")
            cols = "l" * (len(self.by) + 1) + "r" * len(self.measures)
        cap = (
            _tex_caption(caption)
            if caption is not None
            else _tex(self.legend("unicode") + " " + self.method_text())
        )
        lines = [
            r"\begin{table}[t]",
            r"\centering",
            rf"\begin{{tabular}}{{{cols}}}",
            r"\toprule",
            " & ".join(_tex(h) for h in header) + r" \\",
            r"\midrule",
        ]
        lines += [" & ".join(_tex(c) for c in row) + r" \\" for row in rows]
        lines += [r"\bottomrule", r"\end{tabular}", rf"\caption{{{cap}}}"]
        if label:
            lines.append(rf"\label{{{label}}}")
        lines.append(r"\end{table}")
        return "\n".join(lines)


def resample_count(result: Any, deltas: Any, settings: Any) -> int | None:
    """How many sign vectors (or bootstrap resamples) a p-value counts over: ``2**m`` for
    an exact randomization test over ``m`` non-zero deltas, the drawn count for a
    Monte-Carlo one; None for the t and Wilcoxon tests (and a degenerate comparison).

    Examples
    --------
    >>> from types import SimpleNamespace as NS
    >>> resample_count(NS(test="randomization", method="exact"), [0.5, 0, -0.25], None)
    4
    """
    if result.method == "monte-carlo":
        return int(settings.n_bootstrap if result.test == "bootstrap" else settings.n_permutations)
    if result.test == "randomization" and result.method == "exact":
        return int(2 ** sum(1 for d in deltas if d != 0))
    return None


def unreachable_note(resamples: pl.Series | None, family: int, alpha: float, correction: str) -> str:
    """A sentence when no p-value can be significant after the correction: a p-value that
    counts over at most ``B`` sign vectors (or resamples) is at least about ``1 / (B + 1)``,
    and Holm or Bonferroni multiply the smallest one by the family size.

    Examples
    --------
    >>> note = unreachable_note(pl.Series([10_000, 65_536]), 19_900, 0.05, "holm")
    >>> note.startswith("No comparison can be significant"), "n_permutations >= 398,000" in note
    (True, True)
    """
    if resamples is None or correction not in ("holm", "bonferroni") or family == 0:
        return ""
    drawn = resamples.drop_nulls()
    if drawn.len() == 0 or drawn.len() < resamples.len():  # a t or Wilcoxon p-value has no floor
        return ""
    b = int(drawn.max())  # type: ignore[arg-type]
    if family / (b + 1) < alpha:
        return ""
    return (
        f"No comparison can be significant: each p-value counts over at most {b:,} sign vectors "
        f"(or resamples), so none is below 1/{b + 1:,}, which times the family of {family:,} "
        f"comparisons is above alpha = {alpha:g}. Hint: n_permutations >= {math.ceil(family / alpha):,}, "
        "or fewer comparisons."
    )


def _fmt(x: float | None) -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.4f}"


def _fmt_p(p: float | None) -> str:
    if p is None:
        return "-"
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def _text_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    header = [terminal(h) for h in header]
    rows = [[terminal(c) for c in r] for r in rows]
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(header)]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(c.ljust(w) for w, c in zip(widths, cells, strict=True)).rstrip()

    return "\n".join([line(header), "  ".join("-" * w for w in widths), *map(line, rows)])


def _html_table(header: Sequence[str], rows: Sequence[Sequence[str]], *, caption: str) -> str:
    def cells(tag: str, values: Sequence[str]) -> str:
        return "".join(f"<{tag}>{html(v)}</{tag}>" for v in values)

    body = "".join(f"<tr>{cells('td', r)}</tr>" for r in rows)
    return (
        f"<table><caption>{html(caption)}</caption>"
        f"<thead><tr>{cells('th', header)}</tr></thead><tbody>{body}</tbody></table>"
    )


def _md_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(markdown(h) for h in header) + " |"]
    lines.append("|" + "|".join(":---" if i == 0 else "---:" for i in range(len(header))) + "|")
    lines += ["| " + " | ".join(markdown(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def _tex(text: str) -> str:
    """Text (a name, a value, the legend) as LaTeX, the significance markers as math."""
    out = latex(text)
    for marker, math_mode in _LATEX_MARKERS.items():
        out = out.replace(marker, math_mode)
    return out


def _tex_caption(caption: str) -> str:
    """A caption given by the caller: its ``$...$`` math kept, the rest as text."""
    parts = caption.split("$")
    if len(parts) % 2 == 0:  # an unpaired $: all text
        return _tex(caption)
    return "$".join(part if i % 2 else _tex(part) for i, part in enumerate(parts))


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
