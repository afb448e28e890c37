"""Text, Markdown and plain-data views of a :class:`irframe._check.gate.CheckResult`.

The verdict comes first, then the deltas (with CIs, corrected p-values and markers)
overall and per segment, then the queries that moved most with their text and the top
documents of each side with their grades.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from irframe._check.gate import CheckResult

__all__ = ["as_dict", "render_markdown", "render_text", "verdict"]

_MARKS = {"unicode": {"better": "▲", "worse": "▽", "regression": "▼"},
          "ascii": {"better": "^", "worse": "v", "regression": "v!"}}  # fmt: skip


def _num(x: float | None, sign: bool = False) -> str:
    if x is None:
        return "-"
    return f"{x:+.4f}" if sign else f"{x:.4f}"


def _p(p: float | None) -> str:
    if p is None:
        return "-"
    return "<0.001" if p < 0.001 else f"{p:.3f}"


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
        p = f", p_adj {_p(r['p_adjusted'])}" if r["p_adjusted"] is not None else ""
        items.append(f"{r['measure']}{where} {_num(r['delta'], sign=True)}{p}")
    n = len(items)
    return f"FAIL: {n} regression{'s' * (n != 1)}: " + "; ".join(items) + "."


def _context(result: CheckResult) -> str:
    return (
        f"Candidate {result.candidate!r} vs baseline {result.baseline!r} ({result.baseline_kind}); "
        f"the check {result.gate.describe()}."
    )


def _delta_rows(result: CheckResult, style: str) -> tuple[list[str], list[list[str]]]:
    header = ["group", "measure", "baseline", "candidate", "delta", "95% CI", "p", "p_adj", "W/T/L", "n",
              "status"]  # fmt: skip
    rows = []
    for r in result._table.iter_rows(named=True):
        mark = _MARKS[style].get(r["status"], "")
        ci = "-" if r["ci_low"] is None else f"[{r['ci_low']:+.4f}, {r['ci_high']:+.4f}]"
        wtl = "-" if r["wins"] is None else f"{r['wins']}/{r['ties']}/{r['losses']}"
        rows.append([
            r["group"], r["measure"], _num(r["baseline_mean"]), _num(r["mean"]),
            _num(r["delta"], sign=True) + mark, ci, _p(r["p_value"]), _p(r["p_adjusted"]), wtl,
            str(r["n_queries"]), r["status"].upper() if r["status"] == "regression" else r["status"],
        ])  # fmt: skip
    return header, rows


def _moved_rows(result: CheckResult) -> tuple[list[str], list[list[str]]]:
    df = result._moved
    names = {"query_id": "query", "baseline": "baseline", "value": "candidate", "delta": "delta",
             "text": "text", "baseline_docs": "baseline top docs",
             "candidate_docs": "candidate top docs"}  # fmt: skip
    header = [names.get(c, c) for c in df.columns]
    rows = []
    for r in df.iter_rows(named=True):
        cells = []
        for c in df.columns:
            v = r[c]
            cells.append(_num(v, sign=c == "delta") if isinstance(v, float) else "-" if v is None else str(v))
        rows.append(cells)
    return header, rows


def _text_table(header: Sequence[str], rows: Sequence[Sequence[str]], numeric: set[int]) -> str:
    widths = [max(len(x) for x in col) for col in zip(header, *rows, strict=True)]
    lines = []
    for cells in [list(header), *rows]:
        parts = [
            c.rjust(w) if i in numeric else c.ljust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ]
        lines.append("  ".join(parts).rstrip())
    return "\n".join(lines)


def _moved_title(result: CheckResult) -> str:
    side = "" if result.baseline_kind == "run" else " (a snapshot has no rankings: candidate documents only)"
    return f"Queries that moved most on {result.moved_measure} (candidate - baseline){side}:"


def render_text(result: CheckResult, *, ascii: bool = False) -> str:
    """The plain-text report."""
    style = "ascii" if ascii else "unicode"
    parts = [verdict(result), _context(result)]
    parts += [f"Note: {n}" for n in result.notes]
    header, rows = _delta_rows(result, style)
    parts += ["", _text_table(header, rows, numeric={2, 3, 4, 6, 7, 9})]
    m = _MARKS[style]
    parts.append(
        f"{m['regression']} regression (fails the check), {m['worse']} significant drop within the "
        f"tolerance, {m['better']} significantly better (p_adj < {result.gate.alpha:g})."
    )
    if result._moved.height:
        mh, mr = _moved_rows(result)
        numeric = {i for i, h in enumerate(mh) if h in ("baseline", "candidate", "delta")}
        parts += ["", _moved_title(result), _text_table(mh, mr, numeric)]
    return "\n".join(parts)


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _md_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(_md_cell(h) for h in header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def render_markdown(result: CheckResult) -> str:
    """The report as GitHub Markdown (verdict heading, tables, the moved queries folded)."""
    icon = "✅" if result.passed else "❌"
    parts = [f"### {icon} irframe check: {verdict(result)}", "", _context(result)]
    parts += ["", *[f"> {n}" for n in result.notes]] if result.notes else []
    header, rows = _delta_rows(result, "unicode")
    parts += ["", _md_table(header, rows), ""]
    parts.append(
        f"▼ regression (fails the check), ▽ significant drop within the tolerance, "
        f"▲ significantly better (p_adj < {result.gate.alpha:g})."
    )
    if result._moved.height:
        mh, mr = _moved_rows(result)
        parts += ["", f"<details><summary>{_moved_title(result)}</summary>", "", _md_table(mh, mr), "",
                  "</details>"]  # fmt: skip
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
    return {
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
    }
