"""Merge a filled judging sheet into the qrels: validated, conflicts refused, every row counted.

Each row of the sheet ends in exactly one of: ``added`` (a pair the qrels lacked),
``unchanged`` (judged again with the same grade), ``changed`` (a different grade, the
sheet's kept: ``on_conflict="sheet"``), ``kept`` (a different grade, the qrels' kept:
``on_conflict="qrels"``) or ``not judged`` (an empty grade, left out).  With the default
``on_conflict="error"`` a different grade raises, listing the pairs.  The merged qrels
are sorted by :func:`irframe._golden._ids.judgment_order`, so that a file written from
them diffs cleanly in git.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any, Literal

import polars as pl

from irframe._golden._ids import examples, judgment_order
from irframe._golden.pool import Pool
from irframe._golden.ranked import judged_pairs
from irframe._input.columns import resolve_qrels
from irframe._input.frames import from_lazy, to_lazy
from irframe._input.keys import DOC_KEY, GRADE, QUERY_KEY
from irframe._input.options import Options
from irframe.exceptions import (
    ColumnNotFoundError,
    DuplicateRowsError,
    InvalidDataError,
    InvalidParameterError,
)

__all__ = ["ACTIONS", "JudgmentMerge", "add_judgments"]

OnConflict = Literal["error", "sheet", "qrels"]
Empty = Literal["skip", "error"]
Unasked = Literal["error", "add"]
ACTIONS = ("added", "changed", "kept", "unchanged", "not judged")
_OLD = "__ir_old"
_EMPTY = "__ir_empty"
_ACTION = "__ir_action"
ASKED_MARK = "n_systems"  # a column every sheet written from a pool has, filled on its rows
_SHOWN = 10


@dataclass(frozen=True)
class JudgmentMerge:
    """The result of :func:`add_judgments`: the merged qrels and what happened to each sheet row.

    Attributes
    ----------
    qrels : frame
        The merged judgments, sorted by query (natural order) then doc id: the qrels'
        columns (the sheet's judge and time columns added when the qrels lack them).
    changes : frame
        One row per sheet row: the query and doc ids, ``previous`` (the qrels' grade,
        null if none), ``grade`` (the sheet's, null if empty), ``action`` (``added``,
        ``changed``, ``kept``, ``unchanged``, ``not judged``) and the judge/time columns.
    n_sheet_rows, n_added, n_changed, n_kept, n_unchanged, n_not_judged : int
        The counts of ``changes``' actions (they sum to ``n_sheet_rows``).
    on_conflict : str
        The rule the merge ran with.

    Examples
    --------
    >>> import polars as pl, irframe
    >>> sheet = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "grade": [1, None]})
    >>> m = irframe.add_judgments(None, sheet)
    >>> m.counts
    {'added': 1, 'changed': 0, 'kept': 0, 'unchanged': 0, 'not judged': 1}
    >>> m.changes.rows()
    [('q1', 'a', None, 1.0, 'added'), ('q1', 'b', None, None, 'not judged')]
    """

    qrels: Any
    changes: Any
    n_sheet_rows: int
    n_added: int
    n_changed: int
    n_kept: int
    n_unchanged: int
    n_not_judged: int
    on_conflict: str

    @property
    def counts(self) -> dict[str, int]:
        """The number of sheet rows per action."""
        return {
            "added": self.n_added, "changed": self.n_changed, "kept": self.n_kept,
            "unchanged": self.n_unchanged, "not judged": self.n_not_judged,
        }  # fmt: skip

    def __str__(self) -> str:
        parts = [f"{self.n_added} added"]
        if self.n_changed:
            parts.append(f"{self.n_changed} changed (the sheet's grade won)")
        if self.n_kept:
            parts.append(f"{self.n_kept} conflicting kept the qrels' grade")
        parts.append(f"{self.n_unchanged} unchanged (same grade again)")
        parts.append(f"{self.n_not_judged} not judged yet (empty grade, left out)")
        return f"{self.n_sheet_rows} sheet rows: " + ", ".join(parts)


def _check_options(
    on_conflict: object, empty: object, unasked: object, scale: object
) -> frozenset[float] | None:
    for name, value, allowed in (
        ("on_conflict", on_conflict, ("error", "sheet", "qrels")),
        ("empty", empty, ("skip", "error")),
        ("unasked", unasked, ("error", "add")),
    ):
        if value not in allowed:
            expected = "one of " + ", ".join(repr(a) for a in allowed)
            raise InvalidParameterError.for_value(name, "add_judgments", expected, value)
    return _scale(scale)


def _scale(scale: object) -> frozenset[float] | None:
    """``scale=``: the allowed grades (a list, set or range of numbers)."""
    if scale is None:
        return None
    expected = "a list, set or range of the allowed grades, e.g. range(0, 4) or [0, 1, 2, 3]"
    if isinstance(scale, str | bytes | Mapping) or not isinstance(scale, Collection):
        raise InvalidParameterError.for_value("scale", "add_judgments", expected, scale)
    values = list(scale)
    if not values or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
        raise InvalidParameterError.for_value("scale", "add_judgments", expected, scale)
    if isinstance(scale, tuple) and len(values) == 2 and abs(values[1] - values[0]) > 1:
        lo, hi = sorted(values)
        msg = (
            f"The 'scale' parameter of add_judgments got the pair {scale!r}: the two grades {lo} and {hi}, "
            f"or every grade from {lo} to {hi}? Hint: pass [{lo}, {hi}] for the two, or "
            f"range({int(lo)}, {int(hi) + 1}) for all of them."
        )
        raise InvalidParameterError(msg)
    return frozenset(float(v) for v in values)


def _need(schema: pl.Schema, col: str, role: str, frame: str, parameter: str) -> None:
    if col not in schema:
        raise ColumnNotFoundError.from_missing(
            role=role, missing=col, available=list(schema), frame=frame, parameter=parameter
        )


def _meta_columns(schema: pl.Schema, judge_col: str | None, timestamp_col: str | None) -> list[str]:
    """The judge and time columns the sheet has; one named explicitly must be there."""
    out = []
    for col, default, parameter in (
        (judge_col, "judge", "judge_col"),
        (timestamp_col, "judged_at", "timestamp_col"),
    ):
        if col is None:
            continue
        if col in schema:
            out.append(col)
        elif col != default:
            _need(schema, col, parameter.removesuffix("_col"), "sheet", parameter)
    return out


def _grades(sheet: pl.DataFrame, grade_col: str, query_col: str, doc_col: str) -> pl.DataFrame:
    """The sheet with GRADE (Float64) and _EMPTY; a grade that is not a number raises."""
    dtype = sheet.schema[grade_col]
    g = pl.col(grade_col)
    if dtype == pl.String:
        text = g.str.strip_chars()
        empty = text.is_null() | (text == "")
        value = text.cast(pl.Float64, strict=False)
    elif dtype.is_numeric() or dtype in (pl.Boolean, pl.Null):
        value = g.cast(pl.Float64).fill_nan(None)
        empty = value.is_null()
    else:
        msg = (
            f"The sheet's grade column {grade_col!r} has dtype {dtype}; grades must be numbers "
            "(or their text). Hint: name the grade column with grade_col=..."
        )
        raise InvalidDataError(msg)
    out = sheet.with_columns(value.alias(GRADE), empty.alias(_EMPTY))
    bad = out.filter(~pl.col(_EMPTY) & (pl.col(GRADE).is_null() | ~pl.col(GRADE).is_finite()))  # "nan" too
    if bad.height:
        rows = bad.select(query_col, doc_col, grade_col).rows()
        msg = (
            f"The sheet's grade column {grade_col!r} has {bad.height} values that are not finite numbers, "
            f"as (query, doc, grade): {examples(rows, bad.height)}. Hint: grades are numbers such as "
            "0, 1, 2; leave the field empty for a pair not judged yet."
        )
        raise InvalidDataError(msg)
    return out


def _check_ids(sheet: pl.DataFrame, query_col: str, doc_col: str) -> None:
    for col in (query_col, doc_col):
        n = sheet.get_column(col).null_count()
        if n:
            msg = f"The sheet has {n} rows with a null {col!r}. Hint: drop them or fill the ids."
            raise InvalidDataError(msg)
        if sheet.schema[col].is_float():
            msg = (
                f"The sheet's id column {col!r} has float dtype {sheet.schema[col]}; ids must be str or int."
            )
            raise InvalidDataError(msg)


def _check_graded(
    graded: pl.DataFrame, scale: frozenset[float] | None, grade_col: str, cols: tuple[str, str]
) -> None:
    """A grade outside ``scale``, or a pair graded twice in the sheet, raises naming them."""
    q, d = cols
    if scale is not None:
        out = graded.filter(~pl.col(GRADE).is_in(sorted(scale)))
        if out.height:
            shown = sorted(int(v) if v.is_integer() else v for v in scale)
            msg = (
                f"The sheet has {out.height} grades outside the scale {shown} in column {grade_col!r}, as "
                f"(query, doc, grade): {examples(out.select(q, d, grade_col).rows(), out.height)}."
            )
            raise InvalidDataError(msg)
    twice = graded.filter(pl.struct(QUERY_KEY, DOC_KEY).is_duplicated())
    if twice.height:
        pairs = twice.group_by(QUERY_KEY, DOC_KEY).agg(pl.col(q).first(), pl.col(d).first(), pl.col(GRADE))
        pairs = pairs.sort(judgment_order())
        rows = [
            (r[q], r[d], "graded " + " and ".join(_num(v) for v in r[GRADE]))
            for r in pairs.iter_rows(named=True)
        ]
        msg = (
            f"The sheet grades {pairs.height} (query, document) pairs more than once: "
            f"{examples(rows, pairs.height)}. Hint: keep one row per pair (e.g. the latest judgment: "
            "sheet.unique(subset=[query, doc], keep='last'))."
        )
        raise DuplicateRowsError(msg)


def _num(v: float | None) -> str:
    if v is None:
        return "null"
    return str(int(v)) if float(v).is_integer() else repr(v)


def _asked_pairs(pool: Any, sheet: pl.DataFrame, opts: Options) -> pl.DataFrame | None:
    """The (QUERY_KEY, DOC_KEY) pairs that were asked, or None when nothing tells."""
    if pool is None:
        if ASKED_MARK not in sheet.columns:
            return None
        mark = pl.col(ASKED_MARK).cast(pl.String).str.strip_chars()
        return sheet.filter(mark.is_not_null() & (mark != "")).select(QUERY_KEY, DOC_KEY)
    frames = [pool.to_judge, pool.judged] if isinstance(pool, Pool) else [pool]
    q = pool.query_col if isinstance(pool, Pool) else opts.query_col
    d = pool.doc_col if isinstance(pool, Pool) else opts.doc_col
    parts = []
    for frame in frames:
        lf, _ = to_lazy(frame, role="pool")
        schema = lf.collect_schema()
        _need(schema, q, "query_id", "pool", "query_col")
        _need(schema, d, "doc_id", "pool", "doc_col")
        parts.append(
            lf.select(pl.col(q).cast(pl.String).alias(QUERY_KEY), pl.col(d).cast(pl.String).alias(DOC_KEY))
        )
    return pl.concat(parts).collect()


def _check_asked(
    graded: pl.DataFrame, asked: pl.DataFrame | None, cols: tuple[str, str], by_pool: bool
) -> None:
    if asked is None:
        return
    extra = graded.join(asked, on=[QUERY_KEY, DOC_KEY], how="anti").sort(judgment_order())
    if extra.height:
        what = (
            "the pool"
            if by_pool
            else f"the pool the sheet was written from (its {ASKED_MARK!r} is empty there)"
        )
        msg = (
            f"The sheet grades {extra.height} (query, document) pairs that are not in {what}: "
            f"{examples(extra.select(*cols).rows(), extra.height)}. Hint: check the ids (a typo, another "
            "query's sheet?), or pass unasked='add' to add them anyway."
        )
        raise InvalidDataError(msg)


def _qrels_frame(qrels: Any, opts: Options) -> tuple[pl.DataFrame, tuple[str, str, str]]:
    """The qrels with QUERY_KEY, DOC_KEY and GRADE; null ids or grades and pairs judged
    twice raise (:func:`irframe._golden.ranked.judged_pairs`)."""
    lf, _ = to_lazy(qrels, role="qrels")
    judged_pairs(lf, opts)
    qq, qd, qr = resolve_qrels(
        lf.collect_schema(), query_col=opts.qrels_columns[0], doc_col=opts.qrels_columns[1],
        relevance_col=opts.qrels_columns[2],
    )  # fmt: skip
    df = lf.collect().with_columns(
        pl.col(qq).cast(pl.String).alias(QUERY_KEY),
        pl.col(qd).cast(pl.String).alias(DOC_KEY),
        pl.col(qr).cast(pl.Float64).alias(GRADE),
    )
    return df, (qq, qd, qr)


def _classify(
    rows: pl.DataFrame, base: pl.DataFrame | None, on_conflict: str, cols: tuple[str, str]
) -> pl.DataFrame:
    """Every sheet row with _OLD (the qrels' grade) and _ACTION; a conflict raises with
    ``on_conflict="error"``, listing the pairs."""
    if base is None:
        joined = rows.with_columns(pl.lit(None, dtype=pl.Float64).alias(_OLD))
    else:
        old = base.select(QUERY_KEY, DOC_KEY, pl.col(GRADE).alias(_OLD))
        joined = rows.join(old, on=[QUERY_KEY, DOC_KEY], how="left", maintain_order="left")
    graded, old_g = ~pl.col(_EMPTY), pl.col(_OLD)
    conflict = graded & old_g.is_not_null() & (old_g != pl.col(GRADE))
    if on_conflict == "error":
        bad = joined.filter(conflict).sort(judgment_order())
        if bad.height:
            shown = [
                (q, d, f"qrels {_num(o)}, sheet {_num(g)}")
                for q, d, o, g in bad.select(*cols, _OLD, GRADE).rows()
            ]
            msg = (
                f"The sheet grades {bad.height} already-judged (query, document) pairs differently from "
                f"the qrels: {examples(shown, bad.height, limit=_SHOWN)}. Hint: say which grade wins: "
                "on_conflict='sheet' (the new judgment) or on_conflict='qrels' (the old one)."
            )
            raise InvalidDataError(msg)
    action = (
        pl.when(pl.col(_EMPTY)).then(pl.lit("not judged"))
        .when(old_g.is_null()).then(pl.lit("added"))
        .when(old_g == pl.col(GRADE)).then(pl.lit("unchanged"))
        .otherwise(pl.lit("changed" if on_conflict == "sheet" else "kept"))
    )  # fmt: skip
    return joined.with_columns(action.alias(_ACTION))


def _grade_dtype(base_dtype: pl.DataType | None, new: pl.Series) -> pl.DataType:
    """Integers stay integers when every new grade is integral; else Float64."""
    integral = bool((new == new.floor()).all())
    if base_dtype is None:
        return pl.Int64() if integral else pl.Float64()
    return base_dtype if base_dtype.is_integer() and integral else pl.Float64()


def _cast_ids(added: pl.DataFrame, targets: Mapping[str, pl.DataType]) -> pl.DataFrame:
    """The sheet's ids of added rows in the qrels' id dtypes; an id that does not convert raises."""
    out = added.with_columns(pl.col(c).cast(pl.String).cast(t, strict=False) for c, t in targets.items())
    for col, dtype in targets.items():
        bad = added.filter(out.get_column(col).is_null()).get_column(col).unique(maintain_order=True)
        if bad.len():
            msg = (
                f"The sheet's ids {examples([(v,) for v in bad.head(5).to_list()], bad.len())} in column "
                f"{col!r} do not convert to the qrels' id dtype {dtype}. Hint: cast the qrels' ids to str."
            )
            raise InvalidDataError(msg)
    return out


def _merged(
    rows: pl.DataFrame,
    base: pl.DataFrame | None,
    names: tuple[str, str, str],
    sheet_cols: tuple[str, str],
    meta: list[str],
) -> pl.DataFrame:
    """The qrels with the sheet's changed grades and added rows, in the judgment order."""
    qq, qd, qr = names
    new = rows.filter(pl.col(_ACTION).is_in(["added", "changed"]))
    dtype = _grade_dtype(None if base is None else base.schema[qr], new.get_column(GRADE))
    added = new.filter(pl.col(_ACTION) == "added").select(
        pl.col(sheet_cols[0]).alias(qq), pl.col(sheet_cols[1]).alias(qd), pl.col(GRADE).alias(qr), *meta,
        QUERY_KEY, DOC_KEY,
    )  # fmt: skip
    if base is None:
        merged = added
    else:
        added = _cast_ids(added, {qq: base.schema[qq], qd: base.schema[qd]})
        changed = new.filter(pl.col(_ACTION) == "changed").select(
            QUERY_KEY,
            DOC_KEY,
            pl.col(GRADE).alias("__ir_new"),
            *[pl.col(c).alias(f"__ir_m_{c}") for c in meta],
        )
        hit = pl.col("__ir_new").is_not_null()
        kept = [pl.col(c) if c in base.columns else pl.lit(None, dtype=rows.schema[c]) for c in meta]
        updated = base.join(changed, on=[QUERY_KEY, DOC_KEY], how="left", maintain_order="left").with_columns(
            pl.when(hit).then(pl.col("__ir_new")).otherwise(pl.col(GRADE)).alias(qr),
            *[
                pl.when(hit).then(pl.col(f"__ir_m_{c}")).otherwise(k).alias(c)
                for c, k in zip(meta, kept, strict=True)
            ],
        )
        order = list(dict.fromkeys([*base.columns, *meta]))
        merged = pl.concat([updated.select(order), added], how="diagonal_relaxed")
    merged = merged.with_columns(pl.col(qr).cast(dtype)).sort(judgment_order())
    return merged.drop(QUERY_KEY, DOC_KEY, GRADE, strict=False)


def add_judgments(
    qrels: Any,
    sheet: Any,
    *,
    on_conflict: OnConflict = "error",
    scale: Collection[float] | None = None,
    empty: Empty = "skip",
    unasked: Unasked = "error",
    pool: Any = None,
    grade_col: str = "grade",
    judge_col: str | None = "judge",
    timestamp_col: str | None = "judged_at",
    **column_kwargs: Any,
) -> JudgmentMerge:
    """Merge a filled judging sheet into the qrels, refusing what does not add up.

    Parameters
    ----------
    qrels : frame or None
        The judgments so far (query, doc, relevance); ``None`` to start from nothing.
    sheet : frame
        The filled sheet (:func:`irframe.io.read_judging_sheet` reads one back): the query
        and doc id columns and ``grade_col``, numbers or their text; an empty (null or
        blank) grade is a pair not judged yet.
    on_conflict : {"error", "sheet", "qrels"}, default "error"
        A pair the qrels and the sheet grade differently: raise listing them, keep the
        sheet's grade, or keep the qrels'.  A pair graded twice in the sheet always raises.
    scale : list, set or range of numbers, optional
        The allowed grades, e.g. ``range(0, 4)``; a grade outside raises, naming the pair.
    empty : {"skip", "error"}, default "skip"
        Rows with an empty grade: left out and counted (``not judged``), or raise.
    unasked : {"error", "add"}, default "error"
        A graded pair that was not asked for raises, naming it: not in ``pool`` when
        given, else (a sheet written from a pool) a row whose ``n_systems`` is empty.
        ``"add"`` adds such pairs like the others.
    pool : Pool or frame, optional
        What was asked: a :class:`irframe.Pool` (its pooled pairs) or a frame with the
        query and doc id columns.
    grade_col : str, default "grade"
        The sheet's grade column.
    judge_col, timestamp_col : str or None, default "judge", "judged_at"
        The sheet's columns naming who judged a row (or its source: ``"llm"``,
        ``"clicks"``) and when, copied into the merged qrels for added and changed pairs
        when the sheet has them (a name given explicitly must be there); ``None``: not copied.
    **column_kwargs
        ``query_col``, ``doc_col`` (the sheet's id columns, default ``query_id`` and
        ``doc_id``), ``relevance_col`` and ``qrels_query_col``, ``qrels_doc_col``,
        ``qrels_relevance_col`` (the qrels' columns, by default the same names), as for
        :func:`irframe.evaluate`.

    Returns
    -------
    JudgmentMerge
        ``qrels`` (the qrels' frame type, or the sheet's without qrels) sorted by query in
        natural order then doc id, ``changes`` (every sheet row and its action) and the counts.

    Examples
    --------
    >>> import polars as pl, irframe
    >>> qrels = pl.DataFrame({"query_id": ["q1", "q10"], "doc_id": ["a", "a"], "relevance": [1, 0]})
    >>> sheet = pl.DataFrame({"query_id": ["q2", "q1", "q1"], "doc_id": ["c", "b", "a"],
    ...                       "grade": ["2", "", "1"], "judge": ["ann", None, "bo"]})
    >>> m = irframe.add_judgments(qrels, sheet, scale=range(0, 4))
    >>> print(m)
    3 sheet rows: 1 added, 1 unchanged (same grade again), 1 not judged yet (empty grade, left out)
    >>> m.qrels.rows()
    [('q1', 'a', 1, None), ('q2', 'c', 2, 'ann'), ('q10', 'a', 0, None)]
    >>> irframe.add_judgments(qrels, sheet.with_columns(grade=pl.lit("0")))
    Traceback (most recent call last):
    ...
    irframe.exceptions.InvalidDataError: The sheet grades 1 already-judged ... 'qrels 1, sheet 0')....
    """
    scale_set = _check_options(on_conflict, empty, unasked, scale)
    opts = Options.build("add_judgments", **column_kwargs)
    lf, origin = to_lazy(sheet, role="sheet")
    cols = (opts.query_col, opts.doc_col)
    schema = lf.collect_schema()
    for col, role, parameter in (
        (cols[0], "query_id", "query_col"),
        (cols[1], "doc_id", "doc_col"),
        (grade_col, "grade", "grade_col"),
    ):
        _need(schema, col, role, "sheet", parameter)
    meta = _meta_columns(schema, judge_col, timestamp_col)
    rows = _grades(lf.collect(), grade_col, *cols)
    _check_ids(rows, *cols)
    rows = rows.with_columns(
        pl.col(cols[0]).cast(pl.String).alias(QUERY_KEY), pl.col(cols[1]).cast(pl.String).alias(DOC_KEY)
    )
    _check_empty(rows, empty, cols)
    graded = rows.filter(~pl.col(_EMPTY))
    _check_graded(graded, scale_set, grade_col, cols)
    if unasked == "error":
        _check_asked(graded, _asked_pairs(pool, rows, opts), cols, by_pool=pool is not None)
    base, names = (None, (*cols, opts.qrels_columns[2])) if qrels is None else _qrels_frame(qrels, opts)
    if qrels is not None:
        origin = to_lazy(qrels, role="qrels")[1]
    done = _classify(rows, base, on_conflict, cols)
    merged = _merged(done, base, names, cols, meta)
    return _result(done, merged=merged, origin=origin, cols=cols, meta=meta, on_conflict=on_conflict)


def _check_empty(rows: pl.DataFrame, empty: str, cols: tuple[str, str]) -> None:
    blank = rows.filter(pl.col(_EMPTY))
    if empty == "error" and blank.height:
        msg = (
            f"The sheet has {blank.height} rows without a grade, as (query, doc): "
            f"{examples(blank.select(*cols).rows(), blank.height)}. Hint: grade them, or pass "
            "empty='skip' to leave them out (counted as 'not judged')."
        )
        raise InvalidDataError(msg)


def _result(
    done: pl.DataFrame,
    *,
    merged: pl.DataFrame,
    origin: Any,
    cols: tuple[str, str],
    meta: list[str],
    on_conflict: str,
) -> JudgmentMerge:
    changes = done.select(
        *cols,
        pl.col(_OLD).alias("previous"),
        pl.col(GRADE).alias("grade"),
        pl.col(_ACTION).alias("action"),
        *meta,
    )
    counts = dict(changes.get_column("action").value_counts().iter_rows())
    return JudgmentMerge(
        qrels=from_lazy(merged, origin),
        changes=from_lazy(changes, origin),
        n_sheet_rows=changes.height,
        n_added=counts.get("added", 0),
        n_changed=counts.get("changed", 0),
        n_kept=counts.get("kept", 0),
        n_unchanged=counts.get("unchanged", 0),
        n_not_judged=counts.get("not judged", 0),
        on_conflict=on_conflict,
    )
