"""The measure list as text, generated from the registry (README, docs, ``irframe measures``)."""

from __future__ import annotations

from irframe.measures._base import Family, families

__all__ = ["family_signature", "markdown_table"]

_CUT = {"required": "@k", "optional": "[@k]", "none": ""}


_SHARED = "judged_only"  # declared by every ranked family: a footnote, not a column of noise


def family_signature(fam: Family) -> str:
    """``nDCG(gain=exp)[@k]``: the family with its parameters' defaults and its cutoff rule
    (a required parameter by its name alone: ``SDCG(min_rel=0,max_rel,...)@k``)."""
    params = ",".join(
        p.name if p.required else f"{p.name}={_default(p.default)}" for p in fam.params if p.name != _SHARED
    )
    mark = "†" if _SHARED in fam.params.names else ""
    return fam.name + (f"({params})" if params else "") + _CUT[fam.cutoff] + mark


def _default(value: object) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _trec(pattern: str, fixed: dict[str, object]) -> str:
    text = f"`{pattern.replace('{k}', 'k')}`"
    return text + (" (" + ",".join(f"{k}={v}" for k, v in fixed.items()) + ")" if fixed else "")


def markdown_table() -> str:
    """Every registered family as a Markdown table (the README's measure list).

    Examples
    --------
    >>> print(markdown_table().splitlines()[2])
    | `P(rel=1)@k†` (alias `Precision`) | precision: relevant in the top k, divided by k | `P_k` | mean |
    """
    rows = [
        "| measure | what it measures | trec_eval | over queries |",
        "|---|---|---|---|",
    ]
    for fam in families():
        trec = ", ".join(_trec(t.pattern, dict(t.fixed)) for t in fam.trec) or "-"
        agg = fam.aggregate if fam.total == fam.aggregate else f"{fam.aggregate} (trec_eval: {fam.total})"
        aliases = f" (alias {', '.join(f'`{a}`' for a in fam.aliases)})" if fam.aliases else ""
        rows.append(f"| `{family_signature(fam)}`{aliases} | {fam.description} | {trec} | {agg} |")
    rows.append("")
    rows.append(
        f"† also takes `{_SHARED}=False`: `True` drops unjudged documents before the cutoff "
        "(trec_eval -J, ir_measures judged_only)."
    )
    return "\n".join(rows)
