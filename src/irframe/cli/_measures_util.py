"""Measure handling of the command line: ``--rel``/``--gain`` resolution and trec_eval's layout.

These read the measure definitions; they are kept together so that they can be moved
onto the measure registry in one place.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, BinaryIO, TextIO

if TYPE_CHECKING:
    import polars as pl

    from irframe.measures import Measure

__all__ = [
    "all_only_labels",
    "block_text",
    "count_labels",
    "expand_groups",
    "measures_data",
    "measures_listing",
    "relstrings",
    "render_trec",
    "resolve_measures",
    "text_measures",
    "trec_blocks",
    "trec_labels",
    "write_block",
]


# trec_eval's text measures: not numbers, so not registry families; `-f trec` prints them per query
TEXT_MEASURES: dict[str, tuple[str, ...]] = {"relstring": ("all_trec",)}


def text_measures(specs: Sequence[str]) -> list[str]:
    """The text measures asked for, by name or through a group (``-m all_trec``)."""
    wanted = {s.strip() for s in specs}
    return [name for name, groups in TEXT_MEASURES.items() if name in wanted or wanted & set(groups)]


_EMPTY = "''"  # trec_eval's relstring of a query absent from the run (-c)


def _rel_char(grade: float | None) -> str:
    if grade is None:
        return "-"  # not judged
    if grade < 0:
        return "."  # judged with a negative grade
    return str(int(grade)) if grade <= 9 else ">"


def relstrings(runs: pl.DataFrame, qrels: pl.DataFrame) -> dict[tuple[str, str], str]:
    """trec_eval's ``relstring`` per (system, query): the grades of the top 10, one character each
    (digit, ``>`` above 9, ``-`` not judged, ``.`` negative); ranking by score then doc id, descending.

    Examples
    --------
    >>> import polars as pl
    >>> run = pl.DataFrame({"system": "s", "query_id": "q", "doc_id": ["a", "x", "c"], "score": [3, 2, 1]})
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": ["a", "c"], "relevance": [1, -1]})
    >>> relstrings(run, qrels)
    {('s', 'q'): "'1-.'"}
    """
    import polars as pl

    if "score" in runs.columns:
        order, desc = ["score", "doc_id"], [True, True]
    else:
        order, desc = ["rank"], [False]
    grades = qrels.select(
        pl.col("query_id").cast(pl.String),
        pl.col("doc_id").cast(pl.String),
        pl.col("relevance").cast(pl.Float64),
    )
    ranked = (
        runs.with_columns(pl.col("query_id").cast(pl.String), pl.col("doc_id").cast(pl.String))
        .sort(["system", "query_id", *order], descending=[False, False, *desc])
        .group_by(["system", "query_id"], maintain_order=True)
        .head(10)
        .join(grades, on=["query_id", "doc_id"], how="left", maintain_order="left")
    )
    out: dict[tuple[str, str], str] = {}
    for (system, qid), block in ranked.group_by(["system", "query_id"], maintain_order=True):
        out[(str(system), str(qid))] = "'" + "".join(map(_rel_char, block["relevance"])) + "'"
    return out


def _trec_spelling(spec: str) -> list[str] | None:
    """trec_eval's -m spellings: ``P.5,10`` (given values) and a bare ``P`` or ``ndcg_cut``
    (trec_eval's default values), where irframe reads no measure of that name."""
    from irframe.exceptions import IrFrameError
    from irframe.measures import parse_measure
    from irframe.measures._parse import trec_bases, trec_dotted

    dotted = trec_dotted(spec)
    if dotted is not None or spec not in trec_bases():
        return dotted
    try:
        parse_measure(spec)
    except IrFrameError:
        return list(trec_bases()[spec])
    return None


def expand_groups(specs: Sequence[str]) -> list[str]:
    """Replace trec_eval group names (``-m all_trec``, ``-m official``) by their measures,
    and trec_eval's ``-m P.5,10`` / ``-m ndcg_cut`` by the names trec_eval prints.

    Text measures (``relstring``) are left out: ``-f trec`` prints them (:func:`text_measures`).

    Examples
    --------
    >>> names = expand_groups(["P@5", "set"])
    >>> names[0], "set_F" in names, "P_5" in names
    ('P@5', True, False)
    >>> expand_groups(["P.5,10", "ndcg_cut.10"]), len(expand_groups(["P"]))
    (['P_5', 'P_10', 'ndcg_cut_10'], 9)
    """
    from irframe.measures._parse import trec_groups

    groups = trec_groups()
    out: list[str] = []
    for spec in (s.strip() for s in specs):
        if spec not in TEXT_MEASURES:
            out.extend(groups.get(spec) or _trec_spelling(spec) or [spec])
    return list(dict.fromkeys(out))


def is_trec_name(spec: str) -> bool:
    """Whether ``spec`` is written as trec_eval writes it (``P_5``, ``map``), not ``P@5``."""
    from irframe.exceptions import IrFrameError
    from irframe.measures import parse_measure, to_trec_name

    try:
        return to_trec_name(parse_measure(spec)) == spec.strip()
    except IrFrameError:
        return False


def _explicit_params(spec: str) -> set[str]:
    """Parameter names written in a measure string: ``P(rel=2)@5`` -> ``{"rel"}``."""
    m = re.search(r"\((.*)\)", spec)
    if not m:
        return set()
    return {part.split("=", 1)[0].strip() for part in m.group(1).split(",") if "=" in part}


def resolve_measures(
    specs: Sequence[str], rel: float | None = None, gain: str | None = None
) -> list[str | Measure]:
    """Expand trec_eval groups, then apply ``--rel`` and ``--gain`` to the measures that do not set them.

    ``all_trec``, ``official`` and ``set`` stand for trec_eval's names of that group.
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
    from irframe.measures._params import GAIN, REL

    out: list[str | Measure] = []
    for spec in expand_groups(specs):
        m = parse_measure(spec)
        explicit = _explicit_params(spec)
        new = m
        # --rel is trec_eval's -l: a relevance threshold (RBP's rel makes a binary RBP, -l leaves rbp be)
        if rel is not None and FAMILIES[m.family].params.get("rel") is REL and "rel" not in explicit:
            new = new(rel=rel)
        if (
            gain is not None
            and FAMILIES[m.family].params.get("gain") is GAIN  # nDCG's gain, not RBP's scaled/linear
            and not explicit & {"gain", "gains"}
            and not is_trec_name(spec)
        ):
            new = new(gain=gain)
        out.append(spec if new == m else new)
    return out


def count_labels(labels: Sequence[str], measures: Sequence[str | Measure]) -> set[str]:
    """Labels of the counting measures: summed in trec_eval's ``all`` rows (``Family.total``)."""
    from irframe.measures import parse_measure

    return {
        lab for lab, m in zip(labels, measures, strict=True) if parse_measure(m).definition.total == "sum"
    }


def trec_labels(specs: Sequence[str], labels: Sequence[str], measures: Sequence[str | Measure]) -> list[str]:
    """The names ``-f trec`` prints: trec_eval's own for measures written as trec_eval names
    (kept under ``--rel``, as ``-l`` keeps them), the caller's label for the others."""
    from irframe.measures import parse_measure, to_trec_name

    out = []
    for spec, label, m in zip(expand_groups(specs), labels, measures, strict=True):
        name = to_trec_name(parse_measure(m)) if is_trec_name(spec) else None
        out.append(name or label)
    return out


def all_only_labels(labels: Sequence[str], measures: Sequence[str | Measure]) -> set[str]:
    """Labels trec_eval prints only in ``all`` (num_q, gm_map, gm_bpref): the families whose
    per-query value is not what the ``all`` row averages (``aggregate`` sum or gmean)."""
    from irframe.measures import parse_measure

    pairs = zip(labels, measures, strict=True)
    return {lab for lab, m in pairs if parse_measure(m).definition.aggregate != "mean"}


def _trec_value(label: str, value: float | None, count: bool) -> str:
    if value is None:
        return f"{label:<22}\t"
    if count:
        return f"{round(value)}"
    return f"{value:6.4f}"


def _trec_query_lines(
    pq: pl.DataFrame,
    labels: Sequence[str],
    names: Sequence[str],
    counts: set[str],
    *,
    skip: set[str],
    texts: dict[str, dict[str, str]],
) -> list[str]:
    import polars as pl

    lines: list[str] = []
    judged = pq.filter(pl.any_horizontal(pl.col(list(labels)).is_not_null()))
    shown = [(label, name) for label, name in zip(labels, names, strict=True) if label not in skip]
    for row in judged.iter_rows(named=True):
        qid = row["query_id"]
        for label, name in shown:
            value = row[label]
            if value is None:
                continue
            text = _trec_value(label, value, label in counts)
            lines.append(f"{name:<22}\t{qid}\t{text}")
        lines += [f"{name:<22}\t{qid}\t{values.get(str(qid), _EMPTY)}" for name, values in texts.items()]
    return lines


_EXACT_INT = 2.0**53  # counts below this print as the integer polars casts them to


def _exact_here(pq: pl.DataFrame, shown: Sequence[tuple[str, str]], counts: set[str]) -> bool:
    """Whether :func:`_fast_query_lines` prints what the general path prints: finite
    float values, integral counts below 2**53, query ids that are strings or integers."""
    import polars as pl

    qid = pq.schema["query_id"]
    if not (qid == pl.String or qid.is_integer()) or any(not pq.schema[lab].is_float() for lab, _ in shown):
        return False
    ok = [pl.col(label).is_finite().all() for label, _ in shown]  # nulls are ignored
    ok += [(pl.col(c) == pl.col(c).round(0)).all() & (pl.col(c).abs() < _EXACT_INT).all() for c in counts]
    return bool(pq.select(pl.all_horizontal(ok)).item())


_TIE = 1e-5  # |x| * 10^4 this close to a half: Python formats the value itself
_SMALL = 1e6  # below this, |x| * 10^4 is computed within 1.2e-6 of its exact value


def _four_decimals(x: pl.Series) -> pl.Series:
    """Finite floats as Python's ``f"{v:.4f}"`` prints them (the exact binary value rounded
    half to even; ``-0.0000`` for a negative value that rounds to zero), vectorised.

    ``a = |x| * 10^4`` in float64 is within ``|a| * 2^-53`` of the exact product: below
    ``_SMALL`` that is under 1.2e-6, so a fractional part farther than ``_TIE`` from one
    half rounds the same way as the exact value.  The other values (near a tie, or large)
    are formatted by Python, one by one.

    Examples
    --------
    >>> import polars as pl
    >>> _four_decimals(pl.Series([0.03125, 1 / 3, -0.0, -1e-9, 2.5, 123456789.0])).to_list()
    ['0.0312', '0.3333', '-0.0000', '-0.0000', '2.5000', '123456789.0000']
    """
    import polars as pl

    v = pl.col("x")
    a = v.abs() * 10_000.0
    whole = a.floor()
    frac = a - whole  # exact (Sterbenz)
    exact = ((frac - 0.5).abs() < _TIE) | (a >= _SMALL * 10_000.0)
    r = (whole + (frac > 0.5).cast(pl.Float64)).cast(pl.Int64, strict=False).fill_null(0)  # large: replaced
    negative = (v < 0) | ((v == 0) & ((1.0 / v) < 0))  # the sign bit (-0.0 included)
    # the four decimals as the last digits of 10000 + r % 10000: 1.6x faster than zfill
    body = pl.concat_str(
        [(r // 10_000).cast(pl.String), pl.lit("."), (r % 10_000 + 10_000).cast(pl.String).str.slice(1)]
    )
    # one lazy query (its steps share the passes): 35 ms instead of 44 for 330k values
    found = (
        x.to_frame("x")
        .lazy()
        .select(pl.when(negative).then(pl.lit("-") + body).otherwise(body).alias("t"), exact.alias("e"))
        .collect()
    )
    text, exact_rows = found.get_column("t"), found.get_column("e")
    where = exact_rows.fill_null(False).arg_true()
    if where.len():
        shown = [f"{v:.4f}" for v in x.gather(where).to_list()]
        text = text.scatter(where, pl.Series(shown, dtype=pl.String))
    return text.alias(x.name)


_CHUNK_VALUES = 1_000_000  # per-query values formatted (and written) at a time


def _fast_query_lines(
    pq: pl.DataFrame, labels: Sequence[str], names: Sequence[str], counts: set[str], *, skip: set[str]
) -> Iterator[pl.DataFrame] | None:
    """The lines of :func:`_trec_query_lines` without text measures, made by polars (no
    Python object per line), as frames of lines (:func:`_query_block`) of whole queries,
    about :data:`_CHUNK_VALUES` lines each; None when only the general path is exact.

    Values print as Python's ``{:.4f}`` does (see :func:`_four_decimals`); NaN and
    infinities take the general path.  At 1e7 run lines (100,000 queries, 47 measures:
    4.7 million lines) one block of all of them took ~210 MB more at the peak.
    """
    shown = [(label, name) for label, name in zip(labels, names, strict=True) if label not in skip]
    if not shown or pq.height == 0:
        return iter(())
    if not _exact_here(pq, shown, counts & {label for label, _ in shown}):
        return None
    step = max(1, _CHUNK_VALUES // len(shown))
    return (_query_block(pq.slice(i, step), shown, counts) for i in range(0, pq.height, step))


def _query_block(pq: pl.DataFrame, shown: Sequence[tuple[str, str]], counts: set[str]) -> pl.DataFrame:
    """The lines of these queries (see :func:`_fast_query_lines`) as a frame of lines: the
    padded name, the query id and the value, as strings (:func:`block_text`)."""
    import polars as pl

    k, n = len(shown), pq.height
    wide = pq.select(
        pl.col("query_id").cast(pl.String),
        *(pl.col(lab).alias(f"__v{i}") for i, (lab, _) in enumerate(shown)),
    )
    long = wide.unpivot(index="query_id", value_name="__x")  # measure by measure
    pos = pl.int_range(pl.len(), dtype=pl.Int64)  # query by query: position q * k + m
    measure = pos % k
    long = long.select(
        pl.lit(pl.Series([f"{name:<22}" for _, name in shown])).gather(measure).alias("name"),
        pl.col("query_id", "__x").gather(measure * n + pos // k),
        pl.lit(pl.Series([lab in counts for lab, _ in shown])).gather(measure).alias("__count"),
    ).drop_nulls("__x")  # a null value has no line, as in the general path
    decimals = _four_decimals(long.get_column("__x"))
    count = pl.col("__x").cast(pl.Int64, strict=False).cast(pl.String)  # (integral below 2**53)
    return long.select(
        "name", "query_id", pl.when(pl.col("__count")).then(count).otherwise(decimals).alias("value")
    )


# a frame of lines as text: its string columns separated by tabs, as they are
_LINES_CSV: dict[str, Any] = {"separator": "\t", "quote_style": "never", "include_header": False}


def block_text(block: str | pl.DataFrame) -> str:
    """A block of :func:`trec_blocks` as text, without a final line end.

    Examples
    --------
    >>> import polars as pl
    >>> lines = pl.DataFrame({"name": ["P_5", "P_5"], "q": ["q1", "q2"], "v": ["0.2000", "1.0000"]})
    >>> print(block_text(lines))
    P_5	q1	0.2000
    P_5	q2	1.0000
    """
    if isinstance(block, str):
        return block
    return str(block.write_csv(**_LINES_CSV)).removesuffix("\n")


def write_block(block: str | pl.DataFrame, out: TextIO) -> None:
    """Write a block of :func:`trec_blocks` and a line end.

    A frame of lines is written by polars' CSV writer into memory, and those bytes go to
    the stream under ``out`` when ``out`` writes UTF-8 with Unix line ends (a terminal,
    a pipe, a file): no Python string of the lines is made.  At 328k lines (MS MARCO
    dev, 47 measures) that takes 0.1 s less than joining, encoding and writing them as
    text.  (Python writes the bytes, not polars: a reader that went away, ``| head``,
    raises Python's ``BrokenPipeError``, which polars would turn into a plain
    ``OSError``.)
    """
    if isinstance(block, str) or (raw := _utf8_bytes(out)) is None:
        text = block_text(block)
        if text:
            out.write(text + "\n")
        return
    import io

    lines = io.BytesIO()
    block.write_csv(lines, **_LINES_CSV)
    out.flush()  # (what was written as text goes first)
    with lines.getbuffer() as view:
        raw.write(view)


def _utf8_bytes(out: TextIO) -> BinaryIO | None:
    """The binary stream under ``out`` if text written to ``out`` reaches it unchanged
    as UTF-8 (no other encoding, no line end translation); else None."""
    import codecs
    import os

    raw, encoding = getattr(out, "buffer", None), getattr(out, "encoding", None)
    if raw is None or not encoding or os.linesep != "\n":
        return None
    try:
        return raw if codecs.lookup(encoding).name == "utf-8" else None
    except LookupError:
        return None


def render_trec(
    per_query: pl.DataFrame, summary: pl.DataFrame, labels: Sequence[str], counts: set[str], **options: Any
) -> str:
    """:func:`trec_blocks` (same arguments) as one text, the blocks joined by line ends."""
    return "\n".join(block_text(b) for b in trec_blocks(per_query, summary, labels, counts, **options))


def trec_blocks(
    per_query: pl.DataFrame,
    summary: pl.DataFrame,
    labels: Sequence[str],
    counts: set[str],
    *,
    show_queries: bool,
    names: Sequence[str] | None = None,
    all_only: set[str] | None = None,
    texts: dict[str, dict[tuple[str, str], str]] | None = None,
) -> Iterator[str | pl.DataFrame]:
    """trec_eval's layout ``measure<TAB>query<TAB>value``, 4 decimals, one block per system,
    in blocks of whole lines made one at a time: the command line writes each
    (:func:`write_block`) before the next is made.  A block is a text without a final
    line end, or a frame of per-query lines (:func:`block_text` gives its text).

    Per-query rows (``-q``) come first, then ``runid``, ``num_q`` and the ``all`` rows.
    ``counts`` (families whose ``total`` is ``sum``: NumRet, NumRel, NumRelRet ...) are
    summed over the queries in ``all`` and printed as integers, as trec_eval does; the
    others are the summary's values (means, geometric means for GMAP).  ``names`` are
    the printed names (default: the labels); ``all_only`` labels (num_q, gm_map, gm_bpref)
    have no per-query rows.  ``texts`` (name -> (system, query) -> text, e.g. relstring)
    are printed per query only, after the numbers; a query without text prints ``''``.
    """
    import polars as pl

    shown = list(names or labels)
    skip = set(all_only or ())
    for (system,), block in summary.group_by("system", maintain_order=True):
        pq = per_query.filter(pl.col("system") == system)
        if show_queries:
            fast: Iterator[str | pl.DataFrame] | None = (
                None if texts else _fast_query_lines(pq, labels, shown, counts, skip=skip)
            )
            if fast is None:
                mine = {
                    name: {q: t for (s, q), t in v.items() if s == str(system)}
                    for name, v in (texts or {}).items()
                }
                fast = iter(["\n".join(_trec_query_lines(pq, labels, shown, counts, skip=skip, texts=mine))])
            yield from (part for part in fast if len(part))
        srow = block.row(0, named=True)
        lines = [f"{'runid':<22}\tall\t{system}", f"{'num_q':<22}\tall\t{srow['n_queries']}"]
        for label, name in zip(labels, shown, strict=True):
            if name == "num_q":  # printed above, from the query count
                continue
            value = srow[label]
            if label in counts:
                value = pq[label].sum()
            text = _trec_value(label, value, label in counts)
            lines.append(f"{name:<22}\tall\t{text}")
        yield "\n".join(lines)


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
