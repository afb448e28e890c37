"""``irframe measures``: the known measures, their parameters and aliases."""

from __future__ import annotations

import argparse

from irframe.cli._common import SubParsers, _common

__all__ = ["add_parser", "cmd_measures", "measures_data", "measures_listing"]


def add_parser(sub: SubParsers) -> None:
    """Register ``irframe measures``."""
    p = sub.add_parser(
        "measures",
        parents=[_common()],
        help="list the known measures, their parameters and aliases",
    )
    p.add_argument(
        "-f",
        "--format",
        choices=("text", "json"),
        default="text",
        help="text (default) or json: every family with parameters, defaults, trec_eval names, aggregation",
    )
    p.set_defaults(func=cmd_measures)


def cmd_measures(args: argparse.Namespace) -> int:
    """Run ``irframe measures``: the registry, as text or JSON."""
    if args.format == "json":
        import json

        print(json.dumps(measures_data(), indent=2))
    else:
        print(measures_listing())
    return 0


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
                "required": p.required,  # no default: a measure must set it (SDCG's max_rel)
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
        shown = [
            str(p["name"]) if p["required"] else f"{p['name']}={p['default']}"
            for p in fam["params"]  # type: ignore[attr-defined]
        ]
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
