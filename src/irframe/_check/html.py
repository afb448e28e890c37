"""The check report as one self-contained HTML page (``irframe check -f html``,
:meth:`irframe.CheckResult.html_page`).

Top to bottom, as the text report: the verdict, what was compared under which rule, the
notes (judgment holes, queries left out, the measures' conventions), the deltas with CIs,
p-values and markers overall and per segment (regressions first, highlighted), the
legend and the footnote, the power of the gate, the plots (the forest plot of every
delta, the per-query changes on the measure the moved queries are listed for), and the
queries that moved most with their text and both sides' top documents (grades shown,
unjudged marked).  The blocks are :mod:`irframe._report.page`'s; the sentences are the
text report's (:mod:`irframe._check.render`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import polars as pl

from irframe._check import render
from irframe._report import page as H
from irframe._report.notes import conventions

if TYPE_CHECKING:
    from irframe._check.result import CheckResult

__all__ = ["html_page"]

_ROW_CLASS = {"regression": "regression", "possible hole": "hole"}


def _deltas(result: CheckResult) -> list[str]:
    """The comparisons: overall, then per segment (with their group), regressions first."""
    header, rows = render._delta_rows(result, "unicode")
    classes = [_ROW_CLASS.get(r["status"], "") for r in render.ordered_rows(result)]
    numeric = range(2, len(header) - 1)
    overall = [(row[1:], css) for row, css in zip(rows, classes, strict=True) if row[0] == "all"]
    segments = [(row, css) for row, css in zip(rows, classes, strict=True) if row[0] != "all"]
    out = [
        H.section(
            "Overall",
            H.table(header[1:], [r for r, _ in overall], numeric=range(1, len(header) - 2),
                    row_classes=[c for _, c in overall]),
        )
    ]  # fmt: skip
    if segments:
        out.append(
            H.section(
                "Per segment",
                H.table(
                    header, [r for r, _ in segments], numeric=numeric, row_classes=[c for _, c in segments]
                ),
            )
        )
    return out


def _moved(result: CheckResult) -> list[str]:
    """The queries that moved most, with both sides' documents (or the candidate's)."""
    df = result._moved
    if df.height == 0:
        return []
    names = {"query_id": "query", "value": "candidate", "baseline_docs": "baseline top docs",
             "candidate_docs": "candidate top docs"}  # fmt: skip
    header = [names.get(c, c) for c in df.columns]
    numeric = [i for i, c in enumerate(df.columns) if c in ("baseline", "value", "delta")]
    raw = [i for i, c in enumerate(df.columns) if c.endswith("_docs")]
    rows: list[list[H.Cell]] = []
    for r in df.iter_rows(named=True):
        cells: list[H.Cell] = []
        for c in df.columns:
            v = r[c]
            if c.endswith("_docs"):
                cells.append(H.docs_cell(v))
            elif isinstance(v, float):
                cells.append(f"{v:+.4f}" if c == "delta" else f"{v:.4f}")
            else:
                cells.append("-" if v is None else str(v))
        rows.append(cells)
    intro = H.paragraph(f"Largest |delta| first; each document with its grade, {H.UNJUDGED_TEXT}.", "muted")
    title = render._moved_title(result).rstrip(":")
    return [H.section(title, intro, H.table(header, rows, numeric=numeric, raw=raw))]


def _plots(result: CheckResult) -> list[H.Plot]:
    from irframe._report.plots import check_forest, delta_bars

    n = sum(1 for r in render.ordered_rows(result) if r["delta"] is not None)
    items: list[H.Plot] = [
        ("Every delta with its 95% CI (filled: significant after the correction; dark red: a regression)",
         (7.5, 0.45 * n + 1.6), lambda ax: check_forest(result, render.ordered_rows(result), ax=ax)),
    ]  # fmt: skip
    deltas = result._deltas
    if deltas is None or n == 0:
        return items
    from irframe._input.columns import natural_key

    part = deltas.filter(pl.col("measure") == result.moved_measure)
    qids, values = part.get_column("query_id").to_list(), part.get_column("delta").to_list()
    order = sorted(range(len(qids)), key=lambda i: natural_key(qids[i]))  # ties: natural query order
    names = (result.candidate, result.baseline, result.moved_measure)
    width = max(7.5, 0.16 * len(qids) + 2)

    def draw(ax: Any) -> Any:
        return delta_bars([values[i] for i in order], [qids[i] for i in order], names=names, ax=ax)

    items.append((f"Per-query change on {result.moved_measure}", (width, 4.0), draw))
    return items


def html_page(result: CheckResult) -> str:
    """The whole page (see the module's docstring)."""
    import irframe

    state = "pass" if result.passed else "fail"
    title = f"irframe check: {result.candidate} vs {result.baseline}"
    body = [f"<h1>{H.esc(title)}</h1>", H.paragraph(render.verdict(result), f"verdict {state}")]
    body.append(H.paragraph(render._context(result), "muted"))
    notes = [*render._hole_notes(result), *result.notes, *conventions(result.measures)]
    body += [H.paragraph(f"Note: {note}", "note") for note in notes]
    body += _deltas(result)
    body += [
        H.paragraph(render._legend(result, "unicode"), "foot"),
        H.paragraph(render.footnote(result), "foot"),
    ]
    if result.power:
        items = "".join(
            f"<li>{H.esc(line['sentence'][:1].upper() + line['sentence'][1:])}.</li>" for line in result.power
        )
        body.append(H.section("Power of the gate", f"<ul>{items}</ul>"))
    body.append(H.section("Plots", H.plots(_plots(result), "chk")))
    body += _moved(result)
    body.append(H.paragraph(f"Made by irframe {irframe.__version__}; the page needs no network.", "foot"))
    return H.page(title, "\n".join(body))
