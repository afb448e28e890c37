"""trec_eval's output layout: ``measure<TAB>query<TAB>value``, one block per system.

What ``irframe eval -f trec`` prints, made here next to the TREC readers and writers:
per-query lines (``-q``), then ``runid``, ``num_q`` and the ``all`` rows; values with
4 decimals as trec_eval prints them, counts as integers; the text measure
``relstring``.  Lines are made by polars where that is exact (:func:`trec_blocks`) and
written as bytes (:func:`write_block`).

Examples
--------
>>> import polars as pl
>>> pq = pl.DataFrame({"system": "s", "query_id": ["q1", "q2"], "P_5": [0.2, 0.4]})
>>> summary = pl.DataFrame({"system": ["s"], "P_5": [0.3], "n_queries": [2]})
>>> print(render_trec(pq, summary, ["P_5"], set(), show_queries=False).replace("\\t", " | "))
runid                  | all | s
num_q                  | all | 2
P_5                    | all | 0.3000
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, BinaryIO, Literal, TextIO

if TYPE_CHECKING:
    import polars as pl

__all__ = ["block_text", "relstrings", "render_trec", "trec_blocks", "write_block"]


_EMPTY = "''"  # trec_eval's relstring of a query absent from the run (-c)


def _rel_char(grade: pl.Expr) -> pl.Expr:
    """One character per grade: the digit, ``>`` above 9, ``-`` not judged, ``.`` negative."""
    import polars as pl

    digit = grade.cast(pl.Int64, strict=False).cast(pl.String)
    return (
        pl.when(grade.is_null())
        .then(pl.lit("-"))
        .when(grade < 0)
        .then(pl.lit("."))
        .when(grade > 9)
        .then(pl.lit(">"))
        .otherwise(digit)
    )


def relstrings(
    runs: pl.DataFrame, qrels: pl.DataFrame, order: Literal["rank", "score"] = "score"
) -> dict[tuple[str, str], str]:
    """trec_eval's ``relstring`` per (system, query): the grades of the top 10, one character
    each (digit, ``>`` above 9, ``-`` not judged, ``.`` negative), in the ranking order of
    :func:`irframe._input.columns.ranking_order` (``order``: the rank or the score column).

    Examples
    --------
    >>> import polars as pl
    >>> run = pl.DataFrame({"system": "s", "query_id": "q", "doc_id": ["a", "x", "c"], "score": [3, 2, 1]})
    >>> qrels = pl.DataFrame({"query_id": "q", "doc_id": ["a", "c"], "relevance": [1, -1]})
    >>> relstrings(run, qrels)
    {('s', 'q'): "'1-.'"}
    """
    import polars as pl

    from irframe._input.columns import ranking_order

    by, descending = ranking_order(order, order, "doc_id")
    grades = qrels.select(
        pl.col("query_id").cast(pl.String),
        pl.col("doc_id").cast(pl.String),
        pl.col("relevance").cast(pl.Float64),
    )
    ranked = (
        runs.with_columns(pl.col("query_id").cast(pl.String), pl.col("doc_id").cast(pl.String))
        .sort([pl.col("system"), pl.col("query_id"), *by], descending=[False, False, *descending])
        .group_by(["system", "query_id"], maintain_order=True)
        .head(10)
        .join(grades, on=["query_id", "doc_id"], how="left", maintain_order="left")
        .group_by(["system", "query_id"], maintain_order=True)
        .agg(_rel_char(pl.col("relevance")).str.join("").alias("text"))
    )
    keys = zip(ranked["system"].cast(pl.String), ranked["query_id"], strict=True)
    return dict(zip(keys, ("'" + ranked["text"] + "'").to_list(), strict=True))


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
    text_at: int | None = None,
) -> list[str]:
    """The per-query lines, query by query; the ``texts`` after the first ``text_at``
    labels (default: after all of them), where trec_eval prints them."""
    import polars as pl

    lines: list[str] = []
    judged = pq.filter(pl.any_horizontal(pl.col(list(labels)).is_not_null()))
    at = len(labels) if text_at is None else text_at
    shown = [(i, label, name) for i, (label, name) in enumerate(zip(labels, names, strict=True))]
    for row in judged.iter_rows(named=True):
        qid = row["query_id"]
        said = [f"{name:<22}\t{qid}\t{values.get(str(qid), _EMPTY)}" for name, values in texts.items()]
        for i, label, name in shown:
            if i == at:
                lines += said
            value = row[label]
            if value is None or label in skip:
                continue
            text = _trec_value(label, value, label in counts)
            lines.append(f"{name:<22}\t{qid}\t{text}")
        if at >= len(labels):
            lines += said
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
    # the four decimals as the last digits of 10000 + r % 10000: faster than zfill (decisions.md)
    body = pl.concat_str(
        [(r // 10_000).cast(pl.String), pl.lit("."), (r % 10_000 + 10_000).cast(pl.String).str.slice(1)]
    )
    # one lazy query (its steps share the passes: benchmarks/results/decisions.md, trec-output)
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
    text_at: int | None = None,
    runid: bool = True,
    num_q: bool = True,
    all_rows: bool = True,
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
    are printed per query only, after the first ``text_at`` labels (default: after the
    numbers); a query without text prints ``''``.  ``runid`` and ``num_q``: whether the
    ``all`` rows begin with those lines (trec_eval prints them when asked for, as
    ``-m official`` does); a ``num_q`` among the labels is printed there, from the query count.
    ``all_rows=False``: no ``all`` rows at all (trec_eval's ``-n``).
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
                found = _trec_query_lines(pq, labels, shown, counts, skip=skip, texts=mine, text_at=text_at)
                fast = iter(["\n".join(found)])
            yield from (part for part in fast if len(part))
        if not all_rows:
            continue
        srow = block.row(0, named=True)
        lines = [f"{'runid':<22}\tall\t{system}"] if runid else []
        lines += [f"{'num_q':<22}\tall\t{srow['n_queries']}"] if num_q or "num_q" in shown else []
        for label, name in zip(labels, shown, strict=True):
            if name == "num_q":  # printed above, from the query count
                continue
            value = srow[label]
            if label in counts:
                value = pq[label].sum()
            text = _trec_value(label, value, label in counts)
            lines.append(f"{name:<22}\tall\t{text}")
        if lines:
            yield "\n".join(lines)
