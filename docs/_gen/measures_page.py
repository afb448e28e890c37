"""The measure reference, generated from irframe's measure registry (no hand-kept list).

Written against the registry's documented shape (``irframe.measures.families()`` returning
``Family`` objects with ``name``, ``description``, ``params``, ``cutoff``, ``aliases``, ``trec``,
``aggregate``, ``formula``, ``ir_measures``, ``peers``, ``kind``) and read with ``getattr`` defaults
so that an older registry (the ``FAMILIES`` dict) still builds. Every worked example is computed
here, during the build, by ``irframe.evaluate``.
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Sequence
from typing import Any

import polars as pl

import irframe
from irframe import measures as registry

K = 2  # the cutoff of the worked examples

# The worked example: two queries, graded qrels with a relevant document the run never returned
# (d5), an unjudged retrieved document (d4) and a query whose first result is judged non-relevant.
RUN = pl.DataFrame(
    {
        "query_id": ["q1", "q1", "q1", "q1", "q2", "q2", "q2"],
        "doc_id": ["d2", "d1", "d4", "d3", "d7", "d8", "d6"],
        "score": [0.9, 0.8, 0.7, 0.6, 0.9, 0.5, 0.4],
    }
)
QRELS = pl.DataFrame(
    {
        "query_id": ["q1", "q1", "q1", "q1", "q2", "q2"],
        "doc_id": ["d1", "d2", "d3", "d5", "d6", "d7"],
        "relevance": [2, 0, 1, 1, 1, 0],
    }
)

# The diversity families read subtopic qrels (query, subtopic, doc, relevance): the same run,
# judged per subtopic; q1's subtopic s3 has no relevant document (it does not count).
SUBTOPIC_QRELS = pl.DataFrame(
    {
        "query_id": ["q1", "q1", "q1", "q1", "q1", "q1", "q2", "q2"],
        "subtopic": ["s1", "s1", "s2", "s2", "s2", "s3", "s1", "s2"],
        "doc_id": ["d1", "d3", "d1", "d2", "d5", "d4", "d6", "d7"],
        "relevance": [1, 1, 1, 1, 1, 0, 1, 0],
    }
)


# --- reading the registry, old or new shape -------------------------------------------------
def families() -> list[Any]:
    """The registered families, in registry order."""
    fn = getattr(registry, "families", None)
    if callable(fn):
        return list(fn())
    return list(registry.FAMILIES.values())


def _param(p: Any) -> dict[str, str]:
    if isinstance(p, str):  # old registry: parameter names only
        defaults = getattr(registry, "_DEFAULTS", {})
        return {"name": p, "type": "", "default": _show(defaults.get(p)), "doc": ""}
    type_name = ""
    for attr in ("type_name", "type", "dtype", "kind"):
        value = getattr(p, attr, None)
        if value is not None:
            type_name = getattr(value, "__name__", str(value))
            break
    default = _show(getattr(p, "default", None))
    if getattr(p, "required", False):  # no default: the measure must set it (SDCG's max_rel)
        default = f"required (e.g. `{p.example}`)"
    return {
        "name": str(p.name),
        "type": type_name,
        "default": default,
        "doc": str(getattr(p, "doc", "") or ""),
    }


def _show(value: object) -> str:
    if value is None:
        return "—"
    return f"`{value}`"


def _aliases(fam: Any) -> list[str]:
    aliases = getattr(fam, "aliases", None)
    if aliases is not None:
        return list(aliases)
    return [a for a, name in getattr(registry, "ALIASES", {}).items() if name == fam.name]


def _trec(fam: Any) -> list[str]:
    trec = getattr(fam, "trec", None)
    if trec is not None:
        out = []
        for t in trec:
            fixed = getattr(t, "fixed", None) or {}
            pattern = getattr(t, "pattern", str(t))
            extra = ", ".join(f"{k}={v}" for k, v in fixed.items())
            out.append(trec_pattern(pattern) + (f" ({extra})" if extra else ""))
        return out
    name = getattr(fam, "trec_name", None)
    return [trec_pattern(name)] if name else []


def trec_pattern(pattern: str) -> str:
    """A trec_eval name pattern as code with its placeholders in italics: ``P_{k}`` -> P_*k*.

    Written as HTML so that Markdown reads neither ``{k}`` (attribute lists) nor ``_`` (emphasis).
    """
    parts = re.split(r"\{(\w+)\}", pattern)
    text = "".join(
        f"<var>{html.escape(part)}</var>" if i % 2 else html.escape(part).replace("_", "&#95;")
        for i, part in enumerate(parts)
    )
    return f"<code>{text}</code>"


def _ir_measures(fam: Any) -> str:
    value = getattr(fam, "ir_measures", None)
    if not value:
        return "—"
    return _cell(str(value)) if " " in str(value) else f"`{value}`"  # a name, or a sentence


_CELL_ESCAPES = str.maketrans({"|": "&#124;", "{": "&#123;", "}": "&#125;", "*": "&#42;", "_": "&#95;"})


def _cell(text: str) -> str:
    """Text safe inside a Markdown table cell.

    ``|`` would split it, ``{...}`` read as attributes, ``*`` and ``_`` as emphasis
    (``a*relret + b*nonrelret``); code spans are left as they are (the table reads them whole).
    """
    parts = re.split(r"(`[^`]*`)", text)  # odd items are the code spans
    return "".join(part if i % 2 else part.translate(_CELL_ESCAPES) for i, part in enumerate(parts))


KINDS = {
    "binary": "Binary relevance",
    "graded": "Graded relevance",
    "counts": "Counts",
    "diversity": "Diversity (intent-aware, on subtopic qrels)",
}

AGGREGATE = {
    "mean": "arithmetic mean over queries",
    "gmean": "geometric mean over queries",
    "sum": "sum over queries (trec_eval's `all` row); `evaluate` reports the mean",
}


def _examples(fam: Any) -> list[str]:
    cutoff = getattr(fam, "cutoff", "optional")
    example = getattr(fam, "example", None)  # a measure with the family's required parameters set
    if callable(example):
        cuts = [K] if cutoff == "required" else [None] if cutoff == "none" else [None, K]
        return [str(example(k)) for k in cuts]
    if cutoff == "required":
        return [f"{fam.name}@{K}"]
    if cutoff == "none":
        return [fam.name]
    return [fam.name, f"{fam.name}@{K}"]


# --- rendering ----------------------------------------------------------------------------
def _fmt(value: object) -> str:
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        return f"{value:.4f}".rstrip("0").rstrip(".") if value != int(value) else str(int(value))
    return str(value)


def _md_table(df: pl.DataFrame) -> list[str]:
    lines = ["| " + " | ".join(df.columns) + " |", "|" + "---|" * len(df.columns)]
    lines += ["| " + " | ".join(_fmt(v) for v in row) + " |" for row in df.iter_rows()]
    return lines


def _example_frame() -> list[str]:
    joined = RUN.join(QRELS, on=["query_id", "doc_id"], how="left").with_columns(
        pl.col("relevance").cast(pl.Utf8).fill_null("unjudged")
    )
    missing = QRELS.join(RUN, on=["query_id", "doc_id"], how="anti")
    return [
        "## The worked examples",
        "",
        "Every family below is computed, while this page is built, on the same two queries:",
        "",
        "```python",
        "import polars as pl, irframe",
        "run = pl.DataFrame({",
        f'    "query_id": {RUN["query_id"].to_list()},',
        f'    "doc_id": {RUN["doc_id"].to_list()},',
        f'    "score": {RUN["score"].to_list()},',
        "})",
        "qrels = pl.DataFrame({",
        f'    "query_id": {QRELS["query_id"].to_list()},',
        f'    "doc_id": {QRELS["doc_id"].to_list()},',
        f'    "relevance": {QRELS["relevance"].to_list()},',
        "})",
        "```",
        "",
        "The run in ranking order, with each document's grade:",
        "",
        *_md_table(joined),
        "",
        "Judged but never retrieved: "
        + ", ".join(f"{q}/{d} (grade {r})" for q, d, r in missing.iter_rows())
        + f". The cutoff in the examples is k = {K}.",
        "",
    ]


def _diversity_example() -> list[str]:
    return [
        "These families read subtopic qrels: the qrels' second field is the subtopic, as ndeval and",
        "ir_measures read it (`irframe.read_trec_qrels(path, subtopics=True)`, or a frame with a",
        "`subtopic` column; `qrels_subtopic_col=` names another). A document is relevant to a subtopic",
        "when its grade for it is >= `rel`; a subtopic without a relevant document does not count.",
        "Other measures read qrels as trec_eval does, one grade per (query, document). The examples",
        "use the run above with these subtopic qrels:",
        "",
        *_md_table(SUBTOPIC_QRELS),
        "",
    ]


def _worked(fam: Any) -> list[str]:
    names = _examples(fam)
    qrels = SUBTOPIC_QRELS if getattr(fam, "kind", "") == "diversity" else QRELS
    per_query = irframe.evaluate(RUN, names, qrels, per_query=True)
    mean = irframe.evaluate(RUN, names, qrels)
    table = per_query.select("query_id", *names)
    label = str(getattr(fam, "aggregate", "mean") or "mean")  # "sum" for NumQ, "gmean" for GMAP
    mean_row = pl.DataFrame({"query_id": [label], **{n: [mean[n][0]] for n in names}}, schema=table.schema)
    return [
        "**Worked example** (computed during the build):",
        "",
        "```python",
        f"irframe.evaluate(run, {names!r}, {'subtopic_qrels' if qrels is SUBTOPIC_QRELS else 'qrels'}, "
        "per_query=True)",
        "```",
        "",
        *_md_table(pl.concat([table, mean_row])),
        "",
    ]


def _params_table(fam: Any) -> list[str]:
    params = [_param(p) for p in getattr(fam, "params", ())]
    cutoff = getattr(fam, "cutoff", "optional")
    rows = []
    if cutoff != "none":
        req = "required" if cutoff == "required" else "optional (default: the whole ranking)"
        rows.append(f"| `@k` (cutoff) | int ≥ 1 | {req} | rank cutoff |")
    rows += [
        f"| `{p['name']}` | {_cell(p['type'])} | {_cell(p['default'])} | {_cell(p['doc'])} |" for p in params
    ]
    if not rows:
        return ["**Parameters**: none.", ""]
    return ["**Parameters**", "", "| parameter | type | default | meaning |", "|---|---|---|---|", *rows, ""]


def _family(fam: Any) -> list[str]:
    description = str(fam.description).rstrip(".")
    lines = [f"### {fam.name}", "", description[:1].upper() + description[1:] + ".", ""]
    formula = str(getattr(fam, "formula", "") or "").strip()
    if formula:
        lines += ["$$", formula, "$$", ""]
    lines += _params_table(fam)
    aliases = _aliases(fam)
    trec = _trec(fam)
    aggregate = str(getattr(fam, "aggregate", "mean") or "mean")
    written = f"`{_examples(fam)[-1]}`" + (
        f"; aliases {', '.join(f'`{a}`' for a in aliases)}" if aliases else ""
    )
    lines += [
        "| written | trec_eval | ir_measures | over queries |",
        "|---|---|---|---|",
        f"| {written} | {', '.join(trec) if trec else '— (not in trec_eval)'} | {_ir_measures(fam)} "
        f"| {AGGREGATE.get(aggregate, aggregate)} |",
        "",
    ]
    peers = str(getattr(fam, "peers", "") or "").strip()
    if peers:
        lines += [f"**How peers differ**: {peers}", ""]
    lines += _worked(fam)
    return lines


def _summary(fams: Sequence[Any]) -> list[str]:
    lines = [
        "| family | what it measures | cutoff | trec_eval | aliases |",
        "|---|---|---|---|---|",
    ]
    for fam in fams:
        anchor = fam.name.lower()
        lines.append(
            f"| [{fam.name}](#{anchor}) | {_cell(fam.description)} | {getattr(fam, 'cutoff', '')} | "
            f"{', '.join(_trec(fam)) or '—'} | {', '.join(f'`{a}`' for a in _aliases(fam)) or '—'} |"
        )
    return [*lines, ""]


def _grouped(fams: Sequence[Any]) -> dict[str, list[Any]]:
    groups: dict[str, list[Any]] = {}
    for fam in fams:
        groups.setdefault(str(getattr(fam, "kind", "") or ""), []).append(fam)
    return groups


def page() -> str:
    """The measure reference page in markdown."""
    fams = families()
    lines = [
        "# Measures",
        "",
        f"Generated at build time from the measure registry of irframe {irframe.__version__}: "
        f"{len(fams)} families. `irframe measures` prints the same list in a terminal.",
        "",
        "Measures are written in ir_measures notation: the family, optional parameters in parentheses,",
        "an optional cutoff after `@` — `nDCG@10`, `P(rel=2)@5`, `nDCG(gain=linear)@10`. trec_eval names",
        "(`ndcg_cut_10`, `P_5`, `map`, `recip_rank`) parse to the same measure. Relevant means",
        "`grade >= rel` (default 1); documents without a judgment count as non-relevant.",
        "The semantics shared by every family (ranking order, ties, missing queries) are in",
        "[Migrating](../guides/migrating.md#the-semantics-side-by-side).",
        "",
        *_summary(fams),
        *_example_frame(),
    ]
    groups = _grouped(fams)
    for kind, members in groups.items():
        if kind and len(groups) > 1:
            lines += [f"## {KINDS.get(kind, kind.capitalize())} measures", ""]
            if kind == "diversity":
                lines += _diversity_example()
        elif len(groups) == 1:
            lines += ["## Families", ""]
        for fam in members:
            lines += _family(fam)
    return "\n".join(lines) + "\n"
