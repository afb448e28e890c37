"""The check report (:class:`irframe.CheckResult`): text, Markdown, plain data and one HTML page.

The verdict comes first (with the judgment holes' notes when holes are looked at), then
the deltas (with CIs, corrected p-values and markers) overall and per segment, the
regressions first, the legend, the footnote on the markers and the CIs, the measures'
conventions and the power of the gate (one line per measure), then the queries that
moved most with their text and the top documents of each side with their grades.

The HTML page (``irframe check -f html``, :meth:`irframe.CheckResult.html_page`) has the
same blocks top to bottom, with the plots (the forest plot of every delta, the per-query
changes on the measure the moved queries are listed for) before the moved queries (both
sides' top documents, grades shown, unjudged marked); its blocks are
:mod:`irframe._report.page`'s.  The renderers read the result; they compute nothing but
formatting, and import nothing of :mod:`irframe._check` (no import cycle).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

from irframe._escape import html, markdown, terminal
from irframe._report import page as H
from irframe._report.docs import docs_text
from irframe._report.notes import conventions, markers_footnote
from irframe._report.tables import ci_text, markdown_table, num, p_text, text_table

if TYPE_CHECKING:
    from irframe._check.result import CheckResult

__all__ = ["as_dict", "hole_note", "html_page", "render_markdown", "render_text", "verdict"]

_MARKS = {"unicode": {"better": "▲", "worse": "▽", "regression": "▼", "possible hole": "▼?"},
          "ascii": {"better": "^", "worse": "v", "regression": "v!", "possible hole": "v?"}}  # fmt: skip


def _n_queries(result: CheckResult) -> int:
    ns = [r["n_queries"] for r in result._table.iter_rows(named=True) if r["group"] == "all"]
    return max(ns, default=0)


def verdict(result: CheckResult) -> str:
    """The first line: PASS or FAIL and why."""
    if result.passed:
        ms = ", ".join(result.measures)
        return (
            f"PASS: no regression on {len(result.measures)} measure{'s' * (len(result.measures) != 1)} "
            f"({ms}) over {_n_queries(result)} queries."
        )
    rows = result._table.filter(result._table["regression"]).iter_rows(named=True)
    items = []
    for r in rows:
        where = "" if r["group"] == "all" else f" [{r['group']}]"
        p = f", p_adj {p_text(r['p_adjusted'])}" if r["p_adjusted"] is not None else ""
        hole = " (possibly a judgment hole)" if r.get("possible_hole") else ""
        items.append(f"{r['measure']}{where} {num(r['delta'], sign=True)}{p}{hole}")
    n = len(items)
    return f"FAIL: {n} regression{'s' * (n != 1)}: " + "; ".join(items) + "."


def _context(result: CheckResult) -> str:
    return (
        f"Candidate {result.candidate!r} vs baseline {result.baseline!r} ({result.baseline_kind}); "
        f"the check {result.gate.describe()}."
    )


def footnote(result: CheckResult) -> str:
    """Which test the markers follow, and why a CI and a p-value can disagree."""
    gate = result.gate
    return markers_footnote(test=gate.test, correction=gate.correction, alpha=gate.alpha,
                            any_drop=gate.fail_on == "any-drop")  # fmt: skip


def _delta_rows(result: CheckResult, style: str) -> tuple[list[str], list[list[str]]]:
    header = ["group", "measure", "baseline", "candidate", "delta", "95% CI", "p", "p_adj", "W/T/L", "n",
              "status"]  # fmt: skip
    holes = result.holes_mode != "ignore"
    if holes:
        header[-1:-1] = ["holes", "if judged"]
    rows = []
    for r in result._ordered_rows():
        mark = _MARKS[style].get(r["status"], "")
        ci = ci_text(r["ci_low"], r["ci_high"])
        wtl = "-" if r["wins"] is None else f"{r['wins']}/{r['ties']}/{r['losses']}"
        cells = [
            r["group"], r["measure"], num(r["baseline_mean"]), num(r["mean"]),
            num(r["delta"], sign=True) + mark, ci, p_text(r["p_value"]), p_text(r["p_adjusted"]), wtl,
            str(r["n_queries"]), r["status"].upper() if r["status"] == "regression" else r["status"],
        ]  # fmt: skip
        if holes:
            cells[-1:-1] = [str(r["n_to_judge"]), ci_text(r["delta_low"], r["delta_high"])]
        rows.append(cells)
    return header, rows


def hole_note(row: Mapping[str, Any], command: str) -> str:
    """The note of a possible hole: how many documents to judge first, and the command."""
    where = "" if row["group"] == "all" else f" [{row['group']}]"
    low, high = row["delta_low"], row["delta_high"]
    return (
        f"{row['measure']}{where} {row['delta']:+.4f} is possibly a judgment hole (judged, it could be "
        f"{low:+.4f} to {high:+.4f}): judge {row['n_to_judge']} documents first (`{command}`)."
    )


def _hole_notes(result: CheckResult) -> list[str]:
    """The notes of the rows that are possibly judgment holes."""
    table = result._table
    if "possible_hole" not in table.columns:
        return []
    command = result.pool_command or "irframe pool ..."
    return [hole_note(r, command) for r in table.filter(pl.col("possible_hole")).iter_rows(named=True)]


def _legend(result: CheckResult, style: str) -> str:
    m = _MARKS[style]
    text = (
        f"{m['regression']} regression (fails the check), {m['worse']} significant drop within the "
        f"tolerance, {m['better']} significantly better (p_adj < {result.gate.alpha:g})."
    )
    if result.holes_mode == "report":
        text += f" {m['possible hole']} possibly a judgment hole (passes: holes='report')."
    elif result.holes_mode == "fail":
        text += " A regression possibly from a judgment hole still fails (holes='fail')."
    return text


def _power(result: CheckResult) -> list[str]:
    return [f"Power: {line['sentence']}." for line in result.power]


def _moved_rows(
    result: CheckResult, docs: Callable[[Any], str] = docs_text
) -> tuple[list[str], list[list[str]]]:
    """The moved queries' header and cells; ``docs`` shows a list of documents (as text, or
    as the page's list with the grades marked)."""
    names = {"query_id": "query", "value": "candidate", "baseline_docs": "baseline top docs",
             "candidate_docs": "candidate top docs"}  # fmt: skip
    rows = [
        [docs(v) if c.endswith("_docs") else num(v, sign=c == "delta") if isinstance(v, float)
         else "-" if v is None else str(v) for c, v in r.items()]
        for r in result._moved.iter_rows(named=True)
    ]  # fmt: skip
    return [names.get(c, c) for c in result._moved.columns], rows


def _numbers(header: Sequence[str]) -> set[int]:
    return {i for i, h in enumerate(header) if h in ("baseline", "candidate", "delta")}


def _moved_title(result: CheckResult) -> str:
    side = "" if result.baseline_kind == "run" else " (a snapshot has no rankings: candidate documents only)"
    return f"Queries that moved most on {result.moved_measure} (candidate - baseline){side}:"


def render_text(result: CheckResult, *, ascii: bool = False) -> str:
    """The plain-text report."""
    style = "ascii" if ascii else "unicode"
    parts = [terminal(verdict(result)), terminal(_context(result))]
    parts += [f"Note: {terminal(n)}" for n in [*_hole_notes(result), *result.notes]]
    header, rows = _delta_rows(result, style)
    parts += [
        "",
        text_table(header, rows, rule=False, numeric={2, 3, 4, 6, 7, 9, *([10] if len(header) > 11 else [])}),
    ]
    parts += [terminal(_legend(result, style)), terminal(footnote(result))]
    parts += [*(f"Note: {terminal(n)}" for n in conventions(result.measures)), *map(terminal, _power(result))]
    if result._moved.height:
        mh, mr = _moved_rows(result)
        parts += ["", terminal(_moved_title(result)), text_table(mh, mr, numeric=_numbers(mh), rule=False)]
    return "\n".join(parts)


def render_markdown(result: CheckResult) -> str:
    """The report as GitHub Markdown (verdict heading, tables, the moved queries folded).

    User text (ids, query texts, documents, names) is Markdown text, escaped
    (:func:`irframe._escape.markdown`; HTML in the fold's summary: :func:`irframe._escape.html`):
    a ``</details>`` in a query's text does not close the fold.
    """
    icon = "✅" if result.passed else "❌"
    parts = [f"### {icon} irframe check: {markdown(verdict(result))}", "", markdown(_context(result))]
    notes = [*_hole_notes(result), *result.notes]
    parts += ["", *[f"> {markdown(n)}" for n in notes]] if notes else []
    header, rows = _delta_rows(result, "unicode")
    parts += ["", markdown_table(header, rows), ""]
    parts += [markdown(_legend(result, "unicode")), "", markdown(footnote(result))]
    parts += [x for n in conventions(result.measures) for x in ("", f"Note: {markdown(n)}")]
    parts += ["", *[f"- {markdown(line)}" for line in _power(result)]] if result.power else []
    if result._moved.height:
        mh, mr = _moved_rows(result)
        summary = f"<details><summary>{html(_moved_title(result))}</summary>"
        parts += ["", summary, "", markdown_table(mh, mr), "", "</details>"]
    return "\n".join(parts)


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def as_dict(result: CheckResult) -> dict[str, Any]:
    """Plain data (full precision), the body of ``irframe check -f json``."""
    out: dict[str, Any] = {
        "passed": result.passed,
        "verdict": verdict(result),
        "candidate": result.candidate,
        "baseline": result.baseline,
        "baseline_kind": result.baseline_kind,
        "measures": list(result.measures),
        "by": list(result.by),
        "gate": _plain(result.gate),
        "comparisons": result._table.to_dicts(),
        "moved_measure": result.moved_measure,
        "moved": result._moved.to_dicts(),
        "judgments_changed": _plain(result.changes),
        "left_out": list(result.left_out),
        "notes": list(result.notes),
        "conventions": conventions(result.measures),
        "footnote": footnote(result),
        "power": [dict(line) for line in result.power],
    }
    if result.weights is not None:
        out["weights"] = result.weights
    if result.holes_mode != "ignore":
        out["holes"] = {"mode": result.holes_mode, "depth": result.holes_depth,
                        "pool_command": result.pool_command, "notes": _hole_notes(result)}  # fmt: skip
    return out


# --- the HTML page ------------------------------------------------------------------------
_ROW_CLASS = {"regression": "regression", "possible hole": "hole"}


def _deltas(result: CheckResult) -> list[str]:
    """The comparisons: overall, then per segment (with their group), regressions first."""
    header, rows = _delta_rows(result, "unicode")
    classes = [_ROW_CLASS.get(r["status"], "") for r in result._ordered_rows()]
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
    header, rows = _moved_rows(result, H.docs_cell)
    raw = [i for i, c in enumerate(df.columns) if c.endswith("_docs")]
    intro = H.paragraph(f"Largest |delta| first; each document with its grade, {H.UNJUDGED_TEXT}.", "muted")
    title = _moved_title(result).rstrip(":")
    return [H.section(title, intro, H.table(header, rows, numeric=_numbers(header), raw=raw))]


def _plots(result: CheckResult) -> list[H.Plot]:
    from irframe._report.plots import check_forest, delta_bars

    n = sum(1 for r in result._ordered_rows() if r["delta"] is not None)
    items: list[H.Plot] = [
        ("Every delta with its 95% CI (filled: significant after the correction; dark red: a regression)",
         (7.5, 0.45 * n + 1.6), lambda ax: check_forest(result, result._ordered_rows(), ax=ax)),
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
    body = [f"<h1>{H.esc(title)}</h1>", H.paragraph(verdict(result), f"verdict {state}")]
    body.append(H.paragraph(_context(result), "muted"))
    notes = [*_hole_notes(result), *result.notes, *conventions(result.measures)]
    body += [H.paragraph(f"Note: {note}", "note") for note in notes]
    body += _deltas(result)
    body += [
        H.paragraph(_legend(result, "unicode"), "foot"),
        H.paragraph(footnote(result), "foot"),
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
