"""One self-contained HTML page: the blocks both reports' pages are built of.

The page needs nothing from the network (no CDN, no web font, no script): the CSS is
inline, the plots are inline SVG drawn by :mod:`irframe.plotting` (when matplotlib is
installed; else a note says so), and every text from the data is escaped by :func:`esc`.
Wide tables wrap their text cells instead of running off the page; numbers never wrap.
The page is written atomically (:func:`write_text`): a reader never sees half of it.

Examples
--------
>>> body = section("Verdict", paragraph("PASS <all>"))
>>> html = page("irframe check", body)
>>> html.startswith("<!DOCTYPE html>"), "PASS &lt;all&gt;" in html, "http" in html
(True, True, False)
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from irframe._escape import html as _escape_html
from irframe._report.docs import UNJUDGED, grade_text

__all__ = [
    "UNJUDGED_TEXT",
    "Cell",
    "Plot",
    "docs_cell",
    "esc",
    "figure",
    "page",
    "paragraph",
    "plots",
    "section",
    "table",
    "write_text",
]

Cell = str | tuple[str, str]  # text, or (text, css class of the cell)
UNJUDGED_TEXT = f"{UNJUDGED} = unjudged (no judgment)"
_MARKS = {"▲": "mark-up", "△": "mark-up", "▼": "mark-down", "▽": "mark-down"}

_CSS = """
:root { color-scheme: light; --ink: #1d232a; --muted: #5c6670; --line: #d6dbe0; --soft: #f4f6f8;
  --good: #1f7a5c; --bad: #9b2226; --warn: #9a6700; }
* { box-sizing: border-box; }
body { margin: 0; color: var(--ink); background: #fff;
  font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 1200px; margin: 0 auto; padding: 24px 20px 48px; }
h1 { font-size: 1.5rem; margin: 0 0 4px; }
h2 { font-size: 1.15rem; margin: 28px 0 8px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
h3 { font-size: 1rem; margin: 18px 0 6px; }
p, li { overflow-wrap: anywhere; }
.muted { color: var(--muted); }
.verdict { padding: 12px 16px; border-radius: 6px; font-weight: 600; font-size: 1.05rem;
  border: 1px solid var(--line); background: var(--soft); overflow-wrap: anywhere; }
.verdict.pass { background: #e6f4ee; border-color: #a9d8c4; color: #0f5132; }
.verdict.fail { background: #fbe9e9; border-color: #efb7b7; color: #842029; }
.note { border-left: 4px solid var(--warn); background: #fff8e6; padding: 6px 12px; margin: 8px 0; }
.foot { font-size: 0.9rem; color: var(--muted); }
table { border-collapse: collapse; width: auto; max-width: 100%; margin: 8px 0 4px; font-size: 0.88rem; }
caption { text-align: left; font-weight: 600; padding: 4px 0; }
.wide { max-width: 100%; overflow-x: auto; }
th, td { border-bottom: 1px solid var(--line); padding: 4px 8px; vertical-align: top; text-align: left;
  overflow-wrap: break-word; }
th { background: var(--soft); font-weight: 600; white-space: nowrap; }
td.num, th.num { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
tr.regression td { background: #fbe9e9; }
tr.hole td { background: #fff8e6; }
.mark-up { color: var(--good); } .mark-down { color: var(--bad); } .mark-hole { color: var(--warn); }
ol.docs { margin: 0; padding: 0; list-style: none; }
ol.docs li { display: block; white-space: nowrap; }
ol.docs .rank { color: var(--muted); font-size: 0.8rem; }
.grade { display: inline-block; min-width: 1.6em; padding: 0 4px; margin-left: 4px; border-radius: 3px;
  text-align: center; font-size: 0.8rem; font-variant-numeric: tabular-nums; background: #e9ecef; }
.grade.rel { background: #d1ecdf; color: #0f5132; }
.grade.unjudged { background: #fff3cd; color: #664d03; font-weight: 600; }
figure { margin: 12px 0 20px; }
figure svg { display: block; max-width: 100%; height: auto; }
figcaption { font-size: 0.85rem; color: var(--muted); }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.9em;
  overflow-wrap: anywhere; }
"""


def esc(text: object) -> str:
    """Text from the data as HTML text (an element's content or an attribute value): the
    one HTML escaping of every report (:func:`irframe._escape.html`)."""
    return _escape_html(str(text))


def page(title: str, body: str) -> str:
    """The whole document: ``title`` and ``body`` (HTML already escaped where needed)."""
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{esc(title)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n<main>\n"
        f"{body}\n</main>\n</body>\n</html>\n"
    )


def section(title: str, *blocks: str, level: int = 2) -> str:
    """A heading and its blocks."""
    return f"<section>\n<h{level}>{esc(title)}</h{level}>\n" + "\n".join(blocks) + "\n</section>"


def paragraph(text: str, css: str | None = None) -> str:
    """A paragraph of plain text (escaped)."""
    cls = f' class="{css}"' if css else ""
    return f"<p{cls}>{esc(text)}</p>"


def _cell(tag: str, cell: Cell, numeric: bool, raw: bool) -> str:
    text, css = cell if isinstance(cell, tuple) else (cell, "")
    classes = " ".join(c for c in ("num" if numeric else "", css) if c)
    attr = f' class="{classes}"' if classes else ""
    content = text if raw else esc(text)
    if not raw:
        for mark, css in _MARKS.items():  # the significance markers, coloured
            content = content.replace(mark, f'<span class="{css}">{mark}</span>')
    return f"<{tag}{attr}>{content}</{tag}>"


def table(
    header: Sequence[str],
    rows: Iterable[Sequence[Cell]],
    *,
    numeric: Iterable[int] = (),
    caption: str | None = None,
    row_classes: Sequence[str] | None = None,
    raw: Iterable[int] = (),
) -> str:
    """A table: ``numeric`` columns right-aligned and never wrapped, ``raw`` columns are
    HTML already (the documents), the others escaped text that wraps when long."""
    nums, html_cols = set(numeric), set(raw)
    head = "".join(_cell("th", h, i in nums, False) for i, h in enumerate(header))
    body = []
    for k, row in enumerate(rows):
        css = row_classes[k] if row_classes is not None and row_classes[k] else ""
        attr = f' class="{css}"' if css else ""
        cells = "".join(_cell("td", c, i in nums, i in html_cols) for i, c in enumerate(row))
        body.append(f"<tr{attr}>{cells}</tr>")
    cap = f"<caption>{esc(caption)}</caption>" if caption else ""
    inner = f"{cap}<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody>"
    return f'<div class="wide"><table>{inner}</table></div>'


def docs_cell(docs: Iterable[Mapping[str, Any]] | None) -> str:
    """Documents (``{doc_id, grade}``) as an ordered list, each grade marked; unjudged ``?``.

    Examples
    --------
    >>> cell = docs_cell([{"doc_id": "<a>", "grade": None}, {"doc_id": "b", "grade": 0}])
    >>> cell.count("<li>"), "&lt;a&gt;" in cell, cell.count('class="grade unjudged"')
    (2, True, 1)
    """
    if docs is None:
        return '<span class="muted">-</span>'
    items = []
    for rank, d in enumerate(docs, start=1):
        grade = d["grade"]
        if grade is None:
            badge = f'<span class="grade unjudged" title="unjudged: no judgment">{UNJUDGED}</span>'
        else:
            css = "grade rel" if grade > 0 else "grade"
            badge = (
                f'<span class="{css}" title="grade {esc(grade_text(grade))}">{esc(grade_text(grade))}</span>'
            )
        items.append(f'<li><span class="rank">{rank}.</span> {esc(d["doc_id"])}{badge}</li>')
    return '<ol class="docs">' + "".join(items) + "</ol>"


# --- plots ----------------------------------------------------------------------------------
_SVG_START = re.compile(r"^.*?(?=<svg\b)", re.DOTALL)
_METADATA = re.compile(r"<metadata>.*?</metadata>\s*", re.DOTALL)
_XMLNS = re.compile(r'\s+xmlns(:\w+)?="[^"]*"')


def svg_of(fig: Any, prefix: str, label: str) -> str:
    """A matplotlib figure as inline SVG: no XML prologue, no metadata, no namespace URLs
    (the HTML parser knows SVG), ids prefixed so that two plots on a page never share one."""
    import matplotlib

    buf = io.StringIO()
    with matplotlib.rc_context({"svg.hashsalt": "irframe", "svg.fonttype": "path"}):
        fig.savefig(buf, format="svg", metadata={"Date": None})
    text = _METADATA.sub("", _SVG_START.sub("", buf.getvalue(), count=1))
    text = _XMLNS.sub("", text)
    text = text.replace('id="', f'id="{prefix}-').replace('href="#', f'href="#{prefix}-')
    text = text.replace("url(#", f"url(#{prefix}-")
    return text.replace("<svg ", f'<svg role="img" aria-label="{esc(label)}" ', 1).strip()


def figure(svg: str, caption: str) -> str:
    """A plot and its caption."""
    return f"<figure>{svg}<figcaption>{esc(caption)}</figcaption></figure>"


Draw = Callable[[Any], Any]  # draws on the Axes it is given
Plot = tuple[str, tuple[float, float], Draw]  # caption, size in inches, drawing


def plots(items: Sequence[Plot], prefix: str) -> str:
    """The plots (caption, size in inches, drawing function), as figures; a note instead
    when matplotlib is not installed (the page is complete without them)."""
    try:
        from matplotlib.figure import Figure
    except ImportError:
        return paragraph(
            "No plots: they need matplotlib (pip install 'irframe[plot]'); the tables hold every number.",
            "note",
        )
    out = []
    for i, (caption, size, draw) in enumerate(items):
        fig = Figure(figsize=size, layout="constrained")  # (no pyplot: no GUI, no global state)
        draw(fig.add_subplot())
        out.append(figure(svg_of(fig, f"{prefix}{i}", caption), caption))
    return "\n".join(out)


def write_text(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` (UTF-8, ending with one newline) to ``path`` atomically: a temporary
    file beside it, then one rename (:func:`irframe.io._atomic.write_text`: an error names
    the path and leaves an old file whole)."""
    from irframe.io._atomic import write_text as atomic_text

    atomic_text(path, text if text.endswith("\n") else text + "\n")
