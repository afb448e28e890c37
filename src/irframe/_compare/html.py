"""The comparison report as one self-contained HTML page (:meth:`ComparisonReport.html_page`).

Top to bottom: the headline (which comparisons are significant after the correction), the
method, the measures' conventions, the means with their markers, the comparisons with CIs
(one table per segment with ``by``), the legend and the footnote, the judgment holes (with
``holes=True``), the plots (the forest plot of every delta and each system's per-query
deltas on the first measure), then the queries that moved most with both sides' top
documents.  The blocks are :mod:`irframe._report.page`'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

from irframe._compare.pairing import _BASE, _DELTA, _MEAS, _QKEY, _SYS, _VAL
from irframe._report import page as H
from irframe._report.notes import group_text

if TYPE_CHECKING:
    from irframe._compare.report import ComparisonReport

__all__ = ["headline", "html_page", "moved_table", "page_tables"]

_MAX_DELTA_PLOTS = 6  # per-query delta plots: the first systems only
_CORRECTIONS = {"holm": "Holm", "bonferroni": "Bonferroni", "bh": "Benjamini-Hochberg"}


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
    corr = f"{_CORRECTIONS.get(report.correction, 'no')} correction (alpha = {report.alpha:g})"
    if found.height == 0:
        return f"No significant difference after {corr} over {report.family_size} comparisons."
    items = []
    for r in found.iter_rows(named=True):
        vs = "" if report.baseline is not None else f" than {r['baseline']}"
        where = "".join(f" [{b} = {r[b]}]" for b in report.by if r[b] is not None)  # (null: overall)
        how = "better" if r["delta"] > 0 else "worse"
        p_adj = "<0.001" if r["p_adjusted"] < 0.001 else f"{r['p_adjusted']:.3f}"
        items.append(f"{r['system']} {how}{vs} on {r['measure']}{where} ({r['delta']:+.4f}, p_adj {p_adj})")
    n = f"{found.height} of {report.family_size} comparisons"
    return f"{n} significant after {corr}: " + "; ".join(items) + "."


def _numeric_from(header: Sequence[str], first: str) -> range:
    return range(list(header).index(first), len(header))


def page_tables(report: ComparisonReport) -> list[str]:
    """The means and the comparisons (one table per segment with ``by``)."""
    header, rows = report._wide_rows("unicode")
    out = [H.section("Means", H.table(header, rows, numeric=range(len(report.by) + 1, len(header))))]
    dh, dr = report._detail_rows()
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


def _holes(report: ComparisonReport) -> list[str]:
    """Per system: the queries looked at, the unjudged documents in their top k, Judged@k."""
    holes = report._holes
    if holes is None:
        return []
    system = report.system_col if report.system_col in holes.columns else "system"
    summary = holes.group_by(system, maintain_order=True).agg(
        pl.len().alias("queries"),
        (pl.col("n_unjudged") > 0).sum().alias("with a hole"),
        pl.col("n_unjudged").sum().alias("unjudged documents"),
        pl.col("judged").mean().alias("mean Judged@k"),
    )
    rows = [[str(r[0]), str(r[1]), str(r[2]), str(r[3]), f"{r[4]:.4f}"] for r in summary.rows()]
    header = ["system", *summary.columns[1:]]
    text = "Unjudged documents in each system's top documents (holes=True); see the holes table for the ids."
    return [H.section("Judgment holes", H.paragraph(text), H.table(header, rows, numeric=range(1, 5)))]


def _moved_pairs(report: ComparisonReport, n: int) -> pl.DataFrame:
    """Per listed system (baseline mode), the ``n`` queries that moved most on the first
    measure: largest ``|delta|`` first, then query id; zero deltas left out."""
    pairs = report._pairs
    if pairs is None or report.baseline is None or n <= 0 or not report.measures:
        return pl.DataFrame()
    rank = {s: i for i, s in enumerate(report.systems)}
    moved = (
        pairs.filter((pl.col(_MEAS) == report.measures[0]) & (pl.col(_DELTA) != 0))
        .with_columns(pl.col(_SYS).replace_strict(rank, return_dtype=pl.Int64).alias("__ir_si"))
        .sort(["__ir_si", pl.col(_DELTA).abs(), _QKEY], descending=[False, True, False])
    )
    return moved.group_by(_SYS, maintain_order=True).head(n)


def _texts(report: ComparisonReport) -> dict[str, str]:
    """The queries' texts (a ``text`` column of the queries table), by query id."""
    from irframe._input.frames import to_lazy

    src = report._sources
    if src is None or src.queries is None:
        return {}
    lf, _ = to_lazy(src.queries, role="queries")
    qcol = src.opts.query_col
    if qcol not in lf.collect_schema() or "text" not in lf.collect_schema():
        return {}
    rows = lf.select(pl.col(qcol).cast(pl.String), pl.col("text").cast(pl.String)).collect().rows()
    return dict(reversed(rows))  # (the first text of a query wins)


def moved_table(report: ComparisonReport, n: int, k: int) -> list[str]:
    """The moved queries' blocks: one table per system, with the top ``k`` documents."""
    from irframe._compare.movers import top_documents

    moved, src = _moved_pairs(report, n), report._sources
    if moved.height == 0 or src is None:
        return []
    texts, out = _texts(report), []
    for system in moved.get_column(_SYS).unique(maintain_order=True).to_list():
        part = moved.filter(pl.col(_SYS) == system)
        qids = part.get_column(_QKEY).to_list()
        docs = None
        if k > 0:
            runs = {"b": src.runs.filter(pl.col(_SYS) == report.baseline),
                    "s": src.runs.filter(pl.col(_SYS) == system)}  # fmt: skip
            docs = top_documents(runs, src.qrels, qids, k=k, opts=src.opts, where="compare_report")
        found = {} if docs is None else {r[0]: (r[1], r[2]) for r in docs.rows()}
        header = ["query", *(["text"] if texts else []), *report.by, report.baseline or "", system, "delta"]
        header += [f"{report.baseline} top {k}", f"{system} top {k}"] if docs is not None else []
        rows: list[list[H.Cell]] = []
        for r in part.iter_rows(named=True):
            q = r[_QKEY]
            cells: list[H.Cell] = [
                q,
                *([texts.get(q, "-")] if texts else []),
                *(str(r[b]) for b in report.by),
            ]
            cells += [f"{r[_BASE]:.4f}", f"{r[_VAL]:.4f}", f"{r[_DELTA]:+.4f}"]
            if docs is not None:
                cells += [H.docs_cell(d) for d in found.get(q, (None, None))]
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
    pairs = report._pairs
    if pairs is None or report.baseline is None or not report.measures:
        return items
    first = pairs.filter(pl.col(_MEAS) == report.measures[0])
    for system in [s for s in report.systems if s != report.baseline][:_MAX_DELTA_PLOTS]:
        part = first.filter(pl.col(_SYS) == system).sort(_QKEY)
        names = (system, report.baseline, report.measures[0])
        width = max(7.5, 0.16 * part.height + 2)

        def draw(ax: Any, part: pl.DataFrame = part, names: tuple[str, str, str] = names) -> Any:
            deltas, queries = part.get_column(_DELTA).to_numpy(), part.get_column(_QKEY).to_list()
            return delta_bars(deltas, queries, names=names, ax=ax)

        items.append((f"Per-query change of {system} against {report.baseline}", (width, 4.0), draw))
    return items


def html_page(report: ComparisonReport, *, n_moved: int = 10, docs_top: int = 3) -> str:
    """The whole page (see the module's docstring)."""
    import irframe

    who = (
        f"{', '.join(s for s in report.systems if s != report.baseline)} against {report.baseline}"
        if report.baseline is not None
        else f"every pair of {len(report.systems)} systems"
    )
    body = [f"<h1>irframe compare: {H.esc(who)}</h1>", H.paragraph(headline(report), "verdict")]
    body += [H.paragraph(report.method_text(), "muted")]
    body += [H.paragraph(f"Note: {note}", "note") for note in report.conventions()]
    body += page_tables(report)
    body += [H.paragraph(report.legend("unicode"), "foot"), H.paragraph(report.footnote(), "foot")]
    body += _holes(report)
    body.append(H.section("Plots", H.plots(_plots(report), "cmp")))
    moved = moved_table(report, n_moved, docs_top)
    if moved:
        intro = H.paragraph(
            f"Largest |delta| first; each document with its grade, {H.UNJUDGED_TEXT}.", "muted"
        )
        body.append(H.section(f"Queries that moved most on {report.measures[0]}", intro, *moved))
    body.append(H.paragraph(f"Made by irframe {irframe.__version__}; the page needs no network.", "foot"))
    return H.page(f"irframe compare: {who}", "\n".join(body))
