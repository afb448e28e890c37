"""Measure handling of the command line: ``--rel``/``--gain`` resolution and trec_eval's layout.

These read the measure definitions; they are kept together so that they can be moved
onto the measure registry in one place.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import polars as pl

    from irframe.measures import Measure

__all__ = ["count_labels", "measures_data", "measures_listing", "render_trec", "resolve_measures"]

_TREC_NAME = re.compile(
    r"^(map|ndcg|recip_rank|Rprec|bpref|num_ret|num_rel|num_rel_ret"
    r"|(P|recall|ndcg_cut|map_cut|success|num_ret)_\d+)$"
)
# families whose 'all' row trec_eval sums instead of averaging
_SUMMED_FAMILIES = ("NumRet", "NumRel", "NumRelRet")


def _explicit_params(spec: str) -> set[str]:
    """Parameter names written in a measure string: ``P(rel=2)@5`` -> ``{"rel"}``."""
    m = re.search(r"\((.*)\)", spec)
    if not m:
        return set()
    return {part.split("=", 1)[0].strip() for part in m.group(1).split(",") if "=" in part}


def resolve_measures(
    specs: Sequence[str], rel: float | None = None, gain: str | None = None
) -> list[str | Measure]:
    """Apply ``--rel`` and ``--gain`` to the measures that do not set them.

    A measure left unchanged keeps the user's spelling (its output label); a changed one
    is labelled by its canonical form, e.g. ``P(rel=2)@5``.  trec_eval names keep their
    meaning: ``--rel`` applies to them (like trec_eval's ``-l``), ``--gain`` does not
    (``ndcg_cut_10`` is linear by definition).

    Examples
    --------
    >>> resolve_measures(["P@5", "P(rel=3)@5", "nDCG@10", "ndcg_cut_10"], rel=2, gain="linear")
    [P(rel=2)@5, 'P(rel=3)@5', nDCG(gain=linear)@10, 'ndcg_cut_10']
    """
    from irframe.measures import FAMILIES, parse_measure

    out: list[str | Measure] = []
    for spec in specs:
        m = parse_measure(spec)
        explicit = _explicit_params(spec)
        new = m
        if rel is not None and "rel" in FAMILIES[m.family].params.names and "rel" not in explicit:
            new = new(rel=rel)
        if (
            gain is not None
            and "gain" in FAMILIES[m.family].params.names
            and not explicit & {"gain", "gains"}
            and not _TREC_NAME.match(spec.strip())
        ):
            new = new(gain=gain)
        out.append(spec if new == m else new)
    return out


def count_labels(labels: Sequence[str], measures: Sequence[str | Measure]) -> set[str]:
    """Labels of the counting measures (summed in trec_eval's ``all`` rows)."""
    from irframe.measures import parse_measure

    return {
        lab for lab, m in zip(labels, measures, strict=True) if parse_measure(m).family in _SUMMED_FAMILIES
    }


def _trec_value(label: str, value: float | None, count: bool) -> str:
    if value is None:
        return f"{label:<22}\t"
    if count:
        return f"{round(value)}"
    return f"{value:6.4f}"


def _trec_query_lines(pq: pl.DataFrame, labels: Sequence[str], counts: set[str]) -> list[str]:
    import polars as pl

    lines: list[str] = []
    judged = pq.filter(pl.any_horizontal(pl.col(list(labels)).is_not_null()))
    for row in judged.iter_rows(named=True):
        for label in labels:
            value = row[label]
            if value is None:
                continue
            text = _trec_value(label, value, label in counts)
            lines.append(f"{label:<22}\t{row['query_id']}\t{text}")
    return lines


def render_trec(
    per_query: pl.DataFrame,
    summary: pl.DataFrame,
    labels: Sequence[str],
    counts: set[str],
    *,
    show_queries: bool,
) -> str:
    """trec_eval's layout ``measure<TAB>query<TAB>value``, 4 decimals, one block per system.

    Per-query rows (``-q``) come first, then ``runid``, ``num_q`` and the ``all`` rows.
    Counting measures (``NumRet``, ``NumRel``, ``NumRelRet``) are summed in ``all``, as
    trec_eval does; the others are means.
    """
    import polars as pl

    lines: list[str] = []
    for (system,), block in summary.group_by("system", maintain_order=True):
        pq = per_query.filter(pl.col("system") == system)
        if show_queries:
            lines += _trec_query_lines(pq, labels, counts)
        srow = block.row(0, named=True)
        lines.append(f"{'runid':<22}\tall\t{system}")
        lines.append(f"{'num_q':<22}\tall\t{srow['n_queries']}")
        for label in labels:
            value = srow[label]
            if label in counts:
                value = pq[label].sum()
            text = _trec_value(label, value, label in counts)
            lines.append(f"{label:<22}\tall\t{text}")
    return "\n".join(lines)


def _default_text(value: object) -> str:
    if isinstance(value, tuple):  # explicit gains
        return "{" + ",".join(f"{g:g}:{v:g}" for g, v in value) + "}"
    return str(value)


def measures_data() -> list[dict[str, object]]:
    """Every registered family as plain data (``irframe measures -f json``).

    Examples
    --------
    >>> fam = next(f for f in measures_data() if f["name"] == "P")
    >>> fam["cutoff"], fam["aggregate"], [p["name"] for p in fam["params"]]
    ('required', 'mean', ['rel', 'judged_only'])
    >>> fam["trec_names"]
    ['P_{k}']
    """
    from irframe.measures import FAMILIES
    from irframe.measures.user import is_user_defined

    out: list[dict[str, object]] = []
    for fam in FAMILIES.values():
        params = [
            {
                "name": p.name,
                "default": p.default if not isinstance(p.default, tuple) else _default_text(p.default),
                "type": p.type_name,
                "aliases": list(p.aliases),
                "doc": p.doc,
            }
            for p in fam.params
        ]
        out.append({
            "name": fam.name,
            "aliases": list(fam.aliases),
            "description": fam.description,
            "cutoff": fam.cutoff,
            "params": params,
            "aggregate": fam.aggregate,
            "trec_total": fam.total,
            "trec_names": [t.pattern for t in fam.trec],
            "trec_groups": sorted({g for t in fam.trec for g in t.groups}),
            "kind": fam.kind,
            "formula": fam.formula,
            "ir_measures": fam.ir_measures,
            "user_defined": is_user_defined(fam),
        })  # fmt: skip
    return out


def measures_listing() -> str:
    """The text of ``irframe measures``: every family with its parameters and defaults,
    trec_eval names, aggregation and a one-line definition (all from the registry)."""
    from irframe.measures import ALIASES

    data = measures_data()
    rows = []
    for fam in data:
        cut = {"required": "@k", "optional": "[@k]", "none": ""}[str(fam["cutoff"])]
        shown = [f"{p['name']}={p['default']}" for p in fam["params"]]  # type: ignore[attr-defined]
        params = "(" + ",".join(shown) + ")" if shown else ""
        trec = ", ".join(str(t).replace("{k}", "k") for t in fam["trec_names"]) or "-"  # type: ignore[attr-defined]
        agg = str(fam["aggregate"])
        if fam["trec_total"] != fam["aggregate"]:
            agg += f" (trec all: {fam['trec_total']})"
        rows.append((f"{fam['name']}{params}{cut}", agg, trec, str(fam["description"])))
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    head = ("measure (parameters with defaults)", "agg", "trec_eval")
    widths = [max(w, len(h)) for w, h in zip(widths, head, strict=True)]
    lines = ["Families (ir_measures notation; @k is the rank cutoff, [@k] optional):"]
    lines.append("  " + "  ".join(h.ljust(w) for h, w in zip(head, widths, strict=True)) + "  definition")
    for r in rows:
        lines.append("  " + "  ".join(c.ljust(w) for c, w in zip(r[:3], widths, strict=True)) + "  " + r[3])
    lines.append("\nAliases: " + ", ".join(f"{k} = {v}" for k, v in ALIASES.items()))
    lines.append(
        "Parameters: rel = minimum relevant grade (trec_eval -l); gain = exp (2^g-1), linear or "
        "gains={g:v}; judged_only = drop unjudged documents before the cutoff (trec_eval -J)."
    )
    lines.append(
        "Examples: nDCG@10, P(rel=2)@5, nDCG(gain=linear)@10, nDCG(gains={0:0,1:1,2:5}), "
        "AP(judged_only=True)@100, ERR@20, F(beta=2)@10; trec_eval names: ndcg_cut_10, P_5, map."
    )
    lines.append("Aggregation (agg): mean, sum or gmean over the judged queries; -f json: all of it as data.")
    return "\n".join(lines)
