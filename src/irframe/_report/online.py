"""The online experiments' reports: an A/B comparison and an interleaving, as text, Markdown
and one self-contained HTML page (:mod:`irframe._report.page`).

The renderers read plain polars frames (:func:`irframe.online.compare`'s table, an
interleaving's pairs) and a few facts; they compute nothing but formatting.  Their tables
and numbers are every report's (:mod:`irframe._report.tables`).

Examples
--------
>>> print(_num(0.25), _num(0.000123456), _num(float("nan")), _num(12), _p(0.00001))
0.2500 0.0001235 - 12 <0.0001
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Literal

import polars as pl

from irframe._escape import markdown, terminal
from irframe._report.notes import correction_name
from irframe._report.page import Plot, esc, page, paragraph, plots, section, table
from irframe._report.tables import markdown_table, num, p_text, text_table

__all__ = [
    "ab_html",
    "ab_report",
    "interleaving_html",
    "interleaving_report",
]


def _num(v: Any) -> str:
    """A value (:func:`irframe._report.tables.num`); a rate below 0.001 with four significant digits."""
    if isinstance(v, float) and v != 0 and abs(v) < 1e-3:
        return f"{v:.4g}"
    return num(v) if v is None or isinstance(v, float) else str(v)


def _pct(v: Any) -> str:
    return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{100 * v:+.2f}%"


def _p(v: Any) -> str:
    return p_text(v, digits=4)


# --- A/B ------------------------------------------------------------------------------------------
_AB_HEADER = [
    "metric",
    "arm",
    "control",
    "treatment",
    "diff [CI]",
    "lift [CI]",
    "p",
    "p_adj",
    "units c/t",
    "",
]


def _ab_rows(tab: pl.DataFrame, by: Sequence[str]) -> list[list[str]]:
    rows = []
    for r in tab.iter_rows(named=True):
        metric = r["metric"] + (f" @{r['position']}" if r["position"] is not None else "")
        seg = [str(r[b]) for b in by]
        mark = ("▲" if r["diff"] > 0 else "▼") if r["significant"] else ""
        rows.append([
            *seg, metric, str(r["arm"]), _num(r["control_value"]), _num(r["treatment_value"]),
            f"{_num(r['diff'])} [{_num(r['diff_ci_low'])}, {_num(r['diff_ci_high'])}]",
            f"{_pct(r['lift'])} [{_pct(r['lift_ci_low'])}, {_pct(r['lift_ci_high'])}]",
            _p(r["p_value"]), _p(r["p_adjusted"]), f"{r['n_control']}/{r['n_treatment']}", mark,
        ])  # fmt: skip
    return rows


def _srm_lines(tab: pl.DataFrame, by: Sequence[str], srm_alpha: float) -> list[str]:
    keys = [*by, "srm_p_value"]
    lines = []
    for r in tab.select(keys).unique(maintain_order=True).iter_rows(named=True):
        seg = ", ".join(f"{b}={r[b]}" for b in by)
        flag = "MISMATCH: the arms may not be comparable" if r["srm_p_value"] < srm_alpha else "ok"
        where = f" ({seg})" if seg else ""
        lines.append(
            f"Sample ratio{where}: chi-square p = {_p(r['srm_p_value'])}, {flag} (flagged below {srm_alpha})."
        )
    return lines


def _ab_notes(tab: pl.DataFrame, facts: dict[str, Any]) -> list[str]:
    level = facts["level"]
    return [
        f"Each arm against the control {facts['control']!r}; the randomization unit is {facts['unit']!r}: "
        "every metric is a ratio of per-unit sums, its variance the delta method over units (ddof=1), the "
        "test Welch's t with Welch-Satterthwaite degrees of freedom (tea-tasting's RatioOfMeans); the "
        "lift's interval is computed on the log scale.",
        f"{correction_name(facts['correction'])} correction over the {tab.height} comparisons of the table; "
        f"▲/▼: p_adj < {1 - level:.3g}. {round(level * 100)}% intervals, uncorrected.",
        *facts["notes"],
    ]


def _render(
    fmt: Literal["text", "markdown"],
    title: str,
    *,
    above: Sequence[str] | None,
    header: Sequence[str],
    rows: list[list[str]],
    numeric: range,
    notes: Sequence[str],
) -> str:
    """A titled report: the lines ``above`` (None: no block), the table, the notes."""
    if fmt == "text":
        table_ = text_table(header, rows, numeric=numeric)
        return "\n".join([title, *map(terminal, above or ()), "", table_, "", *map(terminal, notes)])
    bullets = [f"- {markdown(line)}" for line in notes]
    head = ["", *(f"- {markdown(line)}" for line in above)] if above is not None else []
    return "\n".join([f"## {title}", *head, "", markdown_table(header, rows), "", *bullets])


def ab_report(
    tab: pl.DataFrame, by: Sequence[str], facts: dict[str, Any], fmt: Literal["text", "markdown"]
) -> str:
    """The A/B report as plain text or Markdown."""
    header = [*by, *_AB_HEADER]
    srm = _srm_lines(tab, by, facts["srm_alpha"])
    numeric = range(len(by) + 2, len(header) - 1)
    rows, notes = _ab_rows(tab, by), _ab_notes(tab, facts)
    title = "irframe online compare"
    return _render(fmt, title, above=srm, header=header, rows=rows, numeric=numeric, notes=notes)


def _lift_plot(tab: pl.DataFrame, by: Sequence[str] = ()) -> Plot:
    """The lifts with their intervals, one line per row (its segment, with ``by``, in its label)."""
    rows = [r for r in tab.iter_rows(named=True) if r["lift"] is not None and not math.isnan(r["lift"])]

    def draw(ax: Any) -> None:
        labels = [
            f"{r['metric']}{'' if r['position'] is None else ' @' + str(r['position'])} ({r['arm']})"
            + "".join(f" [{b}={r[b]}]" for b in by)
            for r in rows
        ]
        y = list(range(len(rows)))[::-1]
        for yi, r in zip(y, rows, strict=True):
            color = (
                "#1f7a5c"
                if r["significant"] and r["lift"] > 0
                else "#9b2226"
                if r["significant"]
                else "#5c6670"
            )
            ax.plot([100 * r["lift_ci_low"], 100 * r["lift_ci_high"]], [yi, yi], color=color, lw=2)
            ax.plot([100 * r["lift"]], [yi], "o", color=color)
        ax.axvline(0, color="#1d232a", lw=0.8)
        ax.set_yticks(y, labels)
        ax.set_xlabel("relative lift over the control (%), with its interval")

    return (
        "Relative lift per metric and arm (green/red: significant after correction)",
        (7.5, 0.5 + 0.4 * len(rows)),
        draw,
    )


def ab_html(tab: pl.DataFrame, by: Sequence[str], facts: dict[str, Any]) -> str:
    """The A/B report as one self-contained HTML page."""
    srm = _srm_lines(tab, by, facts["srm_alpha"])
    bad = any("MISMATCH" in s for s in srm)
    header = [*by, *_AB_HEADER]
    body = [
        "<h1>irframe online compare</h1>",
        paragraph(" ".join(srm), "verdict bad" if bad else "verdict"),
        section("Effects", table(header, _ab_rows(tab, by), numeric=range(len(by) + 2, len(header) - 1))),
        section("Lifts", plots([_lift_plot(tab, by)], "lift")),
        section("How to read it", *map(paragraph, _ab_notes(tab, facts))),
    ]
    return page("irframe online compare", "\n".join(body))


# --- interleaving -----------------------------------------------------------------------------------
_IL_HEADER = ["system", "vs", "wins", "losses", "ties", "delta [CI]", "share won", "p", "p_adj"]


def _il_rows(pairs: pl.DataFrame) -> list[list[str]]:
    return [
        [str(r["system_a"]), str(r["system_b"]), str(r["wins_a"]), str(r["wins_b"]), str(r["ties"]),
         f"{_num(r['delta'])} [{_num(r['delta_ci_low'])}, {_num(r['delta_ci_high'])}]", _num(r["share_a"]),
         _p(r["p_value"]), _p(r["p_adjusted"])]
        for r in pairs.iter_rows(named=True)
    ]  # fmt: skip


def _il_notes(facts: dict[str, Any]) -> list[str]:
    counts = ", ".join(f"{k.replace('_', ' ')}: {v}" for k, v in facts["counts"].items())
    per = facts["per"]
    return [
        f"{facts['method'].replace('_', '-')} interleaving, credit summed per {per}; a {per} where both "
        "systems have the same credit (no click included) is a tie. delta = (wins + ties/2) / n - 1/2, "
        f"with a bootstrap interval over the {per} units; share won = wins / (wins + losses); p: the "
        "two-sided sign test on the wins of wins + losses (ties left out), corrected over the pairs.",
        f"Counted: {counts}.",
    ]


def interleaving_report(pairs: pl.DataFrame, facts: dict[str, Any], fmt: Literal["text", "markdown"]) -> str:
    """An interleaving's pairs as plain text or Markdown."""
    title = "irframe online interleaving"
    rows = _il_rows(pairs)
    return _render(
        fmt, title, above=None, header=_IL_HEADER, rows=rows, numeric=range(2, 9), notes=_il_notes(facts)
    )


def interleaving_html(pairs: pl.DataFrame, facts: dict[str, Any]) -> str:
    """An interleaving's pairs as one self-contained HTML page."""
    body = [
        "<h1>irframe online interleaving</h1>",
        section("Pairs", table(_IL_HEADER, _il_rows(pairs), numeric=range(2, 9))),
        section("How to read it", *(paragraph(n) for n in _il_notes(facts))),
    ]
    return page(f"irframe online interleaving ({esc(facts['method'])})", "\n".join(body))
