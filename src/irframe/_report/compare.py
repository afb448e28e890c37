r"""The comparison report (:class:`irframe.ComparisonReport`): text, Markdown, LaTeX, the
notebook's HTML and one self-contained HTML page.

``str(report)`` is a terminal table: one row per system (baseline first), one column per
measure with the mean, a marker and the relative change, then the details of every
comparison, the legend, the method and the footnote.  The page (:func:`html_page`), top to
bottom: the headline (which comparisons are significant after the correction), the method,
the measures' conventions, the means with their markers, the comparisons with CIs (one
table per segment with ``by``), the legend and the footnote, the judgment holes (with
``holes=True``), the plots (the forest plot of every delta and each system's per-query
deltas on the first measure), then the queries that moved most with both sides' top
documents.  Its blocks are :mod:`irframe._report.page`'s.

The renderers read the report (its tables and the data its methods hand over); they
compute nothing but formatting and import nothing of :mod:`irframe._compare`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

from irframe._escape import html, latex, markdown, terminal
from irframe._report import page as H
from irframe._report.notes import conventions as _conventions
from irframe._report.notes import correction_name, group_text, markers_footnote
from irframe._report.tables import ci_text, markdown_table, num, p_text, text_table

if TYPE_CHECKING:
    from irframe._compare.report import ComparisonReport, Moved

__all__ = ["footnote", "fragment", "headline", "html_page", "legend", "method_text", "page_tables",
           "to_latex", "to_markdown", "to_text", "unreachable_note"]  # fmt: skip

_TEST_TEXT = {
    "randomization": "randomization (sign-flip permutation)",
    "t": "paired t",
    "wilcoxon": "Wilcoxon signed-rank",
    "bootstrap": "paired bootstrap",
}
_LATEX_MARKERS = {"▲": r"$^{\blacktriangle}$", "▼": r"$^{\blacktriangledown}$",
                  "△": r"$^{\vartriangle}$", "▽": r"$^{\triangledown}$"}  # fmt: skip
_ASCII = str.maketrans({"▲": "^", "▼": "v", "△": "'", "▽": ","})
_MAX_DELTA_PLOTS = 6  # per-query delta plots: the first systems only


def _marker(report: ComparisonReport, row: Mapping[str, Any], style: str) -> str:
    delta = row["delta"]
    if delta is None or row["p_value"] is None or delta == 0:
        return ""
    up = delta > 0
    if row["significant"]:
        return ("▲" if up else "▼") if style != "ascii" else ("+*" if up else "-*")
    if row["p_value"] < report.alpha:
        return ("△" if up else "▽") if style != "ascii" else ("+" if up else "-")
    return ""


def _n_text(report: ComparisonReport) -> str:
    ns = report._table.get_column("n_queries")
    if ns.len() == 0:
        return "0 queries"
    lo, hi = int(ns.min()), int(ns.max())  # type: ignore[arg-type]
    return f"{lo} queries" if lo == hi else f"{lo}-{hi} queries"


def _test_text(report: ComparisonReport) -> str:
    how = _TEST_TEXT[report.test]
    if report.test == "randomization":
        return how + (
            f" test, exact over all sign vectors up to 16 non-zero deltas, else "
            f"{report.n_permutations:,} random ones, p = (count + 1) / (B + 1)"
        )
    if report.test == "bootstrap":
        return how + f" test, {report.n_bootstrap:,} resamples"
    return how + " test"


def _family_text(report: ComparisonReport) -> str:
    n_other = len(report.systems) - 1
    fam = f"{n_other} system(s) x {len(report.measures)} measure(s)"
    if report.baseline is None:
        fam = f"{n_other * (n_other + 1) // 2} pair(s) of systems x {len(report.measures)} measure(s)"
    if report.by:
        n_groups = report._table.select(report.by).unique().drop_nulls().height
        fam += f" x (overall + {n_groups} segment(s))"
    left_out = report._table.height - report.family_size
    if left_out:
        fam += f"; {left_out} comparison(s) without a p-value left out"
    return fam


def method_text(report: ComparisonReport) -> str:
    """One paragraph saying what was tested, how, and over which family."""
    corr = correction_name(report.correction)
    who = f"Baseline {report.baseline!r}" if report.baseline is not None else "Every pair of systems"
    resamples = report._table.get_column("resamples") if "resamples" in report._table.columns else None
    floor = unreachable_note(resamples, report.family_size, report.alpha, report.correction)
    return (
        f"{who}; {_n_text(report)} paired per comparison. "
        f"Two-sided {_test_text(report)}. {corr} correction over a family of {report.family_size} "
        f"comparisons ({_family_text(report)}); alpha = {report.alpha:g}. "
        f"CI: {report.ci:.0%} paired bootstrap ({report.ci_method}, {report.n_bootstrap:,} "
        "resamples) of the mean delta."
        + (
            ""
            if report.weights is None
            else f" Queries weighted by {report.weights!r}: weighted means, tests and CI (irframe.stats)."
        )
        + (f" {floor}" if floor else "")
    )


def legend(report: ComparisonReport, style: str = "unicode") -> str:
    """What the markers mean."""
    up, down, hup, hdown = ("+*", "-*", "+", "-") if style == "ascii" else ("▲", "▼", "△", "▽")
    corr = correction_name(report.correction)
    than = repr(report.baseline) if report.baseline is not None else "the 'vs' system (details)"
    return (
        f"{up}/{down} significantly better/worse than {than} after {corr} "
        f"correction (p_adj < {report.alpha:g}); {hup}/{hdown} p < {report.alpha:g} "
        "before correction only."
    )


def footnote(report: ComparisonReport) -> str:
    """Which test the markers follow, and why a CI and a p-value can disagree (every
    format prints it: :func:`irframe._report.notes.markers_footnote`)."""
    return markers_footnote(test=report.test, correction=report.correction, alpha=report.alpha,
                            ci=report.ci, ci_method=report.ci_method)  # fmt: skip


def _group_keys(report: ComparisonReport) -> list[tuple[Any, ...]]:
    if not report.by:
        return [()]
    return [tuple(r) for r in report._table.select(report.by).unique(maintain_order=True).rows()]


def _group_filter(report: ComparisonReport, key: tuple[Any, ...]) -> pl.Expr:
    """The rows of one group; the overall rows have every ``by`` column null (a segment
    value is never null: the engine refuses null segments)."""
    cond = pl.lit(True)
    for col, val in zip(report.by, key, strict=True):
        cond = cond & (pl.col(col).is_null() if val is None else pl.col(col) == val)
    return cond


def _system_cells(report: ComparisonReport, sub: pl.DataFrame, system: str, style: str) -> list[str]:
    srows = {r["measure"]: r for r in sub.filter(pl.col("system") == system).to_dicts()}
    cells = []
    for m in report.measures:
        r = srows.get(m)
        if r is None:
            cells.append("")
            continue
        rel = r["rel_delta"]
        rel_s = f" ({rel:+.1%})" if rel is not None else ""
        cells.append(f"{num(r['mean'])}{_marker(report, r, style)}{rel_s}")
    return cells


def _means_of(report: ComparisonReport, system: str, cond: pl.Expr) -> dict[str, float]:
    means = report._means.filter(cond & (pl.col("system") == system))
    return dict(zip(means.get_column("measure"), means.get_column("mean"), strict=True))


def _wide_rows(report: ComparisonReport, style: str) -> tuple[list[str], list[list[str]]]:
    """Baseline mode: the baseline's means, then each system's with marker and change.

    Every-pair mode: each system's means (the comparisons are in the details).
    """
    header = [*report.by, "system", *report.measures]
    rows: list[list[str]] = []
    for key in _group_keys(report):
        cond = _group_filter(report, key)
        keys = [group_text(k) for k in key]
        if report.baseline is None:
            for system in report.systems:
                means = _means_of(report, system, cond)
                rows.append([*keys, system, *[num(means.get(m)) for m in report.measures]])
            continue
        base_map = _means_of(report, report.baseline, cond)
        rows.append([*keys, report.baseline, *[num(base_map.get(m)) for m in report.measures]])
        sub = report._table.filter(cond)
        rows += [
            [*keys, system, *_system_cells(report, sub, system, style)]
            for system in report.systems
            if system != report.baseline
        ]
    return header, rows


def _detail_rows(report: ComparisonReport, style: str = "unicode") -> tuple[list[str], list[list[str]]]:
    """One row per comparison: CI, p, adjusted p with its marker, d_z, W/T/L, n."""
    vs = ["vs"] if report.baseline is None else []
    header = ["measure", "system", *vs, *report.by, "mean", "delta", f"{report.ci:.0%} CI", "p",
              "p_adj", "d_z", "W/T/L", "n"]  # fmt: skip
    rows = [
        [r["measure"], r["system"], *([r["baseline"]] if vs else []), *[group_text(r[b]) for b in report.by],
         num(r["mean"]), num(r["delta"], sign=True), ci_text(r["ci_low"], r["ci_high"]), p_text(r["p_value"]),
         p_text(r["p_adjusted"]) + _marker(report, r, style),
         "-" if r["effect_size"] is None else f"{r['effect_size']:+.2f}",
         f"{r['wins']}/{r['ties']}/{r['losses']}", str(r["n_queries"])]
        for r in report._table.to_dicts()
    ]  # fmt: skip
    return header, rows


# --- text, Markdown, LaTeX, the notebook's HTML ----------------------------------------
def to_text(report: ComparisonReport, *, ascii: bool = False, details: bool = True) -> str:
    """Aligned plain-text tables for the terminal (``ascii=True``: no Unicode markers)."""
    style = "ascii" if ascii else "unicode"
    header, rows = _wide_rows(report, style)
    parts = [text_table(header, rows), "", _wrap(terminal(legend(report, style)))]
    if details:
        dh, dr = _detail_rows(report)
        if ascii:
            dr = [[c.translate(_ASCII) for c in row] for row in dr]
        parts += ["", text_table(dh, dr)]
    parts += ["", _wrap(terminal(method_text(report))), "", _wrap(terminal(footnote(report)))]
    parts += [_wrap(terminal(f"Note: {note}")) for note in _conventions(report.measures)]
    return "\n".join(parts)


def to_markdown(report: ComparisonReport, *, details: bool | None = None) -> str:
    """A Markdown (GitHub) table, with the legend and method as a paragraph below.

    ``details`` adds the table of every comparison; by default only with ``pairs="all"``
    (where the first table shows the means without markers).
    """
    header, rows = _wide_rows(report, "unicode")
    out = [markdown_table(header, rows, right_from=1)]
    if details or (details is None and report.baseline is None):
        out += ["", markdown_table(*_detail_rows(report), right_from=1)]
    out += [
        "",
        markdown(legend(report, "unicode") + " " + method_text(report)),
        "",
        markdown(footnote(report)),
    ]
    out += [x for note in _conventions(report.measures) for x in ("", f"Note: {markdown(note)}")]
    return "\n".join(out)


def fragment(report: ComparisonReport) -> str:
    """The HTML fragment for notebooks: the summary table, the comparisons with CI, p and
    W/T/L, the legend, the method, the footnote and the notes (every name and value escaped:
    :func:`irframe._escape.html`)."""
    header, rows = _wide_rows(report, "unicode")
    dh, dr = _detail_rows(report)
    return "\n".join(
        [
            '<div class="irframe-comparison">',
            H.table(header, rows, caption="Means"),
            H.table(dh, dr, caption="Comparisons"),
            f"<p>{html(legend(report, 'unicode'))}</p>",
            f"<p>{html(method_text(report))}</p>",
            f"<p>{html(footnote(report))}</p>",
            *(f"<p>Note: {html(note)}</p>" for note in _conventions(report.measures)),
            "</div>",
        ]
    )


def to_latex(report: ComparisonReport, *, caption: str | None = None, label: str | None = None) -> str:
    r"""A LaTeX ``table`` (booktabs; markers need ``amssymb``).

    The caption defaults to the legend and the method text.  With ``pairs="all"`` the
    table lists every comparison (the details) instead of one row per system.  Names
    and values are text (:func:`irframe._escape.latex`); a ``caption`` given is LaTeX
    as written, ``$...$`` math included, its other special characters escaped.
    """
    if report.baseline is None:
        header, rows = _detail_rows(report)
        cols = "l" * (len(report.by) + 3) + "r" * (len(header) - len(report.by) - 3)
    else:
        header, rows = _wide_rows(report, "unicode")
        cols = "l" * (len(report.by) + 1) + "r" * len(report.measures)
    cap = (
        _tex_caption(caption)
        if caption is not None
        else _tex(legend(report, "unicode") + " " + method_text(report))
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


# --- the HTML page ------------------------------------------------------------------------
def headline(report: ComparisonReport) -> str:
    """One sentence: the significant comparisons after the correction, or that there is none.

    Examples
    --------
    >>> from irframe._compare import compare_report
    >>> from irframe.datasets import golden
    >>> g = golden()
    >>> print(headline(compare_report(g.runs, g.qrels, ["nDCG@10", "R@100"], baseline="bm25")))
    ... # doctest: +NORMALIZE_WHITESPACE
    2 of 4 comparisons significant after Holm correction (alpha = 0.05): dense worse on R@100
    (-0.1792, p_adj 0.004); hybrid better on nDCG@10 (+0.1241, p_adj 0.031).
    """
    found = report._table.filter(pl.col("significant").fill_null(False) & (pl.col("delta") != 0))
    corr = f"{correction_name(report.correction)} correction (alpha = {report.alpha:g})"
    if found.height == 0:
        return f"No significant difference after {corr} over {report.family_size} comparisons."
    items = []
    for r in found.iter_rows(named=True):
        vs = "" if report.baseline is not None else f" than {r['baseline']}"
        where = "".join(f" [{b} = {r[b]}]" for b in report.by if r[b] is not None)  # (null: overall)
        how = "better" if r["delta"] > 0 else "worse"
        delta, p_adj = num(r["delta"], sign=True), p_text(r["p_adjusted"])
        items.append(f"{r['system']} {how}{vs} on {r['measure']}{where} ({delta}, p_adj {p_adj})")
    n = f"{found.height} of {report.family_size} comparisons"
    return f"{n} significant after {corr}: " + "; ".join(items) + "."


def _numeric_from(header: Sequence[str], first: str) -> range:
    return range(list(header).index(first), len(header))


def page_tables(report: ComparisonReport) -> list[str]:
    """The means and the comparisons (one table per segment with ``by``)."""
    header, rows = _wide_rows(report, "unicode")
    out = [H.section("Means", H.table(header, rows, numeric=range(len(report.by) + 1, len(header))))]
    dh, dr = _detail_rows(report)
    if not report.by:
        out.append(H.section("Comparisons", H.table(dh, dr, numeric=_numeric_from(dh, "mean"))))
        return out
    at, width = dh.index(report.by[0]), len(report.by)
    keep = [i for i in range(len(dh)) if not at <= i < at + width]
    sub_header = [dh[i] for i in keep]
    groups: dict[tuple[str, ...], list[list[str]]] = {}
    for row in dr:
        groups.setdefault(tuple(row[at : at + width]), []).append([row[i] for i in keep])
    blocks = [
        H.section(
            "All queries"
            if set(key) == {group_text(None)}
            else ", ".join(f"{b} = {v}" for b, v in zip(report.by, key, strict=True)),
            H.table(sub_header, grows, numeric=_numeric_from(sub_header, "mean")),
            level=3,
        )
        for key, grows in groups.items()
    ]
    out.append(H.section("Comparisons per segment", *blocks))
    return out


def _holes(summary: pl.DataFrame | None) -> list[str]:
    """Per system: the queries looked at, the unjudged documents in their top k, Judged@k."""
    if summary is None:
        return []
    rows = [[str(r[0]), str(r[1]), str(r[2]), str(r[3]), num(r[4])] for r in summary.rows()]
    header = ["system", *summary.columns[1:]]
    text = "Unjudged documents in each system's top documents (holes=True); see the holes table for the ids."
    return [H.section("Judgment holes", H.paragraph(text), H.table(header, rows, numeric=range(1, 5)))]


def _moved_tables(report: ComparisonReport, moved: Moved, k: int) -> list[str]:
    """The moved queries' blocks: one table per system, with the top ``k`` documents."""
    out, texts = [], moved.texts
    for system, part, docs in moved.systems:
        header = ["query", *(["text"] if texts else []), *report.by, report.baseline or "", system, "delta"]
        header += [f"{report.baseline} top {k}", f"{system} top {k}"] if docs is not None else []
        rows: list[list[H.Cell]] = []
        for q, *by, base, value, delta in part.rows():
            cells: list[H.Cell] = [q, *([texts.get(q, "-")] if texts else []), *(str(v) for v in by)]
            cells += [num(base), num(value), num(delta, sign=True)]
            if docs is not None:
                cells += [H.docs_cell(d) for d in docs.get(q, (None, None))]
            rows.append(cells)
        first = len(header) - (5 if docs is not None else 3)
        raw = range(len(header) - 2, len(header)) if docs is not None else range(0)
        title = f"{system} vs {report.baseline} on {report.measures[0]}"
        out.append(H.section(title, H.table(header, rows, numeric=range(first, first + 3), raw=raw), level=3))
    return out


def _plots(report: ComparisonReport) -> list[H.Plot]:
    from irframe._report.plots import delta_bars, plot_comparison

    n = report._table.height
    items: list[H.Plot] = [
        ("Every delta with its CI (filled: significant after the correction)", (7.5, 0.45 * n + 1.6),
         lambda ax: plot_comparison(report, ax=ax)),
    ]  # fmt: skip
    for system, queries, deltas in report._first_deltas()[:_MAX_DELTA_PLOTS]:
        names = (system, report.baseline or "", report.measures[0])
        width = max(7.5, 0.16 * len(queries) + 2)

        def draw(
            ax: Any, d: Any = deltas, q: list[str] = queries, names: tuple[str, str, str] = names
        ) -> Any:
            return delta_bars(d, q, names=names, ax=ax)

        items.append((f"Per-query change of {system} against {report.baseline}", (width, 4.0), draw))
    return items


def html_page(report: ComparisonReport, moved: Moved, *, docs_top: int) -> str:
    """The whole page (see the module's docstring); ``moved``: the queries that moved most,
    per system, with the top ``docs_top`` documents of both sides
    (:meth:`irframe.ComparisonReport.html_page` computes them)."""
    import irframe

    who = (
        f"{', '.join(s for s in report.systems if s != report.baseline)} against {report.baseline}"
        if report.baseline is not None
        else f"every pair of {len(report.systems)} systems"
    )
    body = [f"<h1>irframe compare: {H.esc(who)}</h1>", H.paragraph(headline(report), "verdict")]
    body += [H.paragraph(method_text(report), "muted")]
    body += [H.paragraph(f"Note: {note}", "note") for note in _conventions(report.measures)]
    body += page_tables(report)
    body += [H.paragraph(legend(report, "unicode"), "foot"), H.paragraph(footnote(report), "foot")]
    body += _holes(report._holes_summary())
    body.append(H.section("Plots", H.plots(_plots(report), "cmp")))
    tables = _moved_tables(report, moved, docs_top)
    if tables:
        intro = H.paragraph(
            f"Largest |delta| first; each document with its grade, {H.UNJUDGED_TEXT}.", "muted"
        )
        body.append(H.section(f"Queries that moved most on {report.measures[0]}", intro, *tables))
    body.append(H.paragraph(f"Made by irframe {irframe.__version__}; the page needs no network.", "foot"))
    return H.page(f"irframe compare: {who}", "\n".join(body))
