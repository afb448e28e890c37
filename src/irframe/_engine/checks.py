"""Input checks, run on the collected per-query table: nothing is dropped silently.

The diagnostics columns of the plan (rows per query, nulls, NaN, infinite grades, the
duplicate probes) are turned into errors that name the column, the queries and the fix.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import polars as pl

from irframe._engine import repeats
from irframe._engine.aggregate import check_not_empty
from irframe._engine.compiler import N_ROWS
from irframe._engine.facts import log_queries
from irframe._engine.plan import (
    DISAGREE,
    IN_RUN,
    JUDGED,
    MAX_GRADE,
    N_BAD,
    N_INF,
    N_NULLDOC,
    Q_N,
    Q_NULL,
    Plan,
)
from irframe._input.columns import natural_order
from irframe.exceptions import (
    DuplicateRowsError,
    InvalidDataError,
    InvalidParameterError,
    MissingQueriesError,
)

__all__ = [
    "GAIN_OVERFLOW_HINT",
    "attribute_like",
    "check",
    "checked",
    "collect",
    "collect_unchecked",
    "gain_overflows",
    "partition_stats",
    "partitions_error",
    "qrels_duplicates_error",
    "refuse_duplicate_judgments",
]


def collect(plan: Plan) -> tuple[Plan, pl.DataFrame]:
    """Collect the per-query table and check the input (the probes an executor computes
    from its table are read in the checks' one select, :func:`_flags`)."""
    probes = _probes(plan)
    if isinstance(plan.frame, pl.DataFrame):
        df, found = plan.frame, pl.collect_all(list(probes.values())) if probes else []
    else:
        df, *found = pl.collect_all([plan.frame, *probes.values()])
    check(plan, df, {k: int(f.item()) for k, f in zip(probes, found, strict=True)}, table_probes=True)
    return plan, df


def collect_unchecked(plan: Plan) -> tuple[Plan, pl.DataFrame, dict[str, int]]:
    """The per-query table and the duplicate probes, not yet checked."""
    df, probes = _collect_with_probes(plan)
    return plan, df, probes


def checked(plan: Plan) -> pl.LazyFrame:
    """The plan's table with the input checks attached (they run when it is collected)."""

    def _check(df: pl.DataFrame) -> pl.DataFrame:
        check(plan, df)
        return df

    frame = plan.frame.lazy()
    return frame.map_batches(_check, schema=frame.collect_schema())


def _probes(plan: Plan) -> dict[str, pl.LazyFrame]:
    """The duplicate probes (1x1 frames: rows minus distinct key hashes)."""
    out = {}
    if plan.dup_probe is not None:
        out["run"] = plan.dup_probe
    if plan.qrels_probe is not None:
        out["qrels"] = plan.qrels_probe
    return out


def _collect_with_probes(plan: Plan) -> tuple[pl.DataFrame, dict[str, int]]:
    """Collect the table and the probes together (polars shares the work between them);
    a table an eager executor computed comes with the probes it counted."""
    probes = _probes(plan)
    if isinstance(plan.frame, pl.DataFrame):
        found = pl.collect_all(list(probes.values())) if probes else []
        df = plan.frame
    else:
        df, *found = pl.collect_all([plan.frame, *probes.values()])
    values = {k: int(f.item()) for k, f in zip(probes, found, strict=True)}
    return df, {**_table_probes(plan, df), **values}


def _table_probes(plan: Plan, df: pl.DataFrame) -> dict[str, int]:
    """The probes an executor computes from its table: rows minus distinct, summed."""
    out = {}
    for name, (rows, distinct) in plan.table_probes.items():
        surplus = (df.get_column(rows) - df.get_column(distinct)).sum()  # (counts: rows >= distinct)
        out[name] = int(surplus or 0)
    return out


def _examples(values: Sequence[object], limit: int = 5) -> str:
    shown = ", ".join(repr(v) for v in values[:limit])
    return shown + (f", ... ({len(values) - limit} more)" if len(values) > limit else "")


def _keys_of(df: pl.DataFrame, keys: Sequence[str]) -> list[object]:
    """The rows' keys in natural order (``q2`` before ``q10``): a message names the same
    queries whatever order the group_by (or the query buckets) gave them."""
    df = df.sort(natural_order(df.schema, keys), nulls_last=True)
    if len(keys) == 1:
        return df.get_column(keys[0]).to_list()
    return [tuple(r) for r in df.select(keys).iter_rows()]


def check(
    plan: Plan, df: pl.DataFrame, probes: dict[str, int] | None = None, *, table_probes: bool = False
) -> None:  # fmt: skip
    """Raise for bad input found by the diagnostics; nothing is dropped silently.

    ``probes``: the duplicate probes already collected with ``df`` (else collected here);
    ``table_probes``: those the executor computes from its table are still to be read
    (in the same select as the flags).  One select first tells which checks can fail
    (:func:`_flags`); only those read the table again, in the same order, so that the
    first problem found is the one raised.
    """
    if probes is None:
        probes, table_probes = {k: int(f.collect().item()) for k, f in _probes(plan).items()}, True
    flags = _flags(plan, df, table_probes=table_probes)
    probes = {**probes, **{k: flags.pop(_PROBE + k) for k in plan.table_probes if _PROBE + k in flags}}
    if flags["gain"]:
        _check_gain_overflow(plan, df)
    if plan.allow_empty and flags["in_run"] == 0:
        return
    if flags["run_rows"]:
        _check_run_rows(plan, df, df.filter(pl.col(IN_RUN)))
    _check_duplicates(plan, probes.get("run", 0))
    if plan.has_qrels:
        _check_qrels(plan, df, probes.get("qrels", 0), flags)
    if flags["user_values"]:
        _check_user_values(plan, df)
    if not plan.allow_empty:
        check_not_empty(int(flags["in_run"]), int(flags["judged"]) if plan.has_qrels else None)
    log_queries(plan, flags)


def _user_labels(plan: Plan) -> list[str]:
    """The output columns of user-defined measures (:func:`irframe.define_measure`)."""
    return [label for label, m in plan.measures if m.definition.kind == "user"]


def _no_value(label: str) -> pl.Expr:
    """A judged run query for which the measure's kernel gave null or NaN."""
    value = pl.col(label)
    return pl.col(IN_RUN) & pl.col(JUDGED) & (value.is_null() | value.is_nan())


def _check_user_values(plan: Plan, df: pl.DataFrame) -> None:
    """A user kernel's null or NaN has one meaning on every backend: an error."""
    for label in _user_labels(plan):
        bad = df.filter(_no_value(label).fill_null(False))
        if bad.height:
            msg = (
                f"The kernel of measure {label!r} gave null or NaN for {bad.height} queries, e.g. "
                f"{_examples(_keys_of(bad, list(plan.keys)))}: a measure needs a number for every "
                "judged query. Hint: return one, e.g. expr.fill_null(0), or a defined value where "
                "yours is undefined (an empty top k...)."
            )
            raise InvalidDataError(msg)


_PROBE = "probe:"  # a table probe's name among the flags


def _flags(plan: Plan, df: pl.DataFrame, *, table_probes: bool = False) -> dict[str, int]:
    """Which checks find something, the run's and judged queries, and (``table_probes``)
    the duplicate probes the executor computes from its table (rows minus distinct
    documents, summed).

    Reductions of the per-query table's diagnostics columns with Series operators (a few
    microseconds each): on a small table a polars select of these dozen expressions cost
    ~0.3 ms, as much as a fifth of the whole evaluation.  A null count or flag (a query
    missing from the run has no run diagnostics) finds no problem, as ``fill_null(False)``
    would say: Kleene logic makes the row null and ``any`` skips it.
    """
    cols = set(df.columns)
    in_run, judged = df.get_column(IN_RUN), df.get_column(JUDGED)
    problems = [df.get_column(c) > 0 for c in (N_NULLDOC, N_BAD, N_INF) if c in cols]
    problems += [df.get_column(DISAGREE)] if DISAGREE in cols else []
    problems += [_nulls(df, k) for k in plan.keys if df.get_column(k).null_count()]
    qrels_problem = [_nulls(df, plan.cols.query)] if df.get_column(plan.cols.query).null_count() else []
    qrels_problem += [df.get_column(Q_NULL) > 0] if Q_NULL in cols else []
    no_value = [_nulls(df, label) | df.get_column(label).is_nan() for label in _user_labels(plan)]
    missing = ~in_run & judged
    out = {
        "gain": int(MAX_GRADE in cols and _may_overflow(df, Q_N if plan.has_qrels else N_ROWS)),
        "in_run": int(in_run.sum()),
        "judged": int(judged.sum()),
        "run_rows": int(bool(problems) and (in_run & _any_of(problems)).any()),
        "qrels": int(bool(qrels_problem) and (judged & _any_of(qrels_problem)).any()),
        "missing": int(missing.any()),
        "n_missing": int(missing.sum()),
        "n_unjudged": int((in_run & ~judged).sum()),
        "user_values": int(bool(no_value) and (in_run & judged & _any_of(no_value)).any()),
    }
    if table_probes:
        out.update({_PROBE + name: n for name, n in _table_probes(plan, df).items()})
    return out


def _nulls(df: pl.DataFrame, name: str) -> pl.Series:
    return df.get_column(name).is_null()


def _any_of(masks: Sequence[pl.Series]) -> pl.Series:
    out = masks[0]
    for m in masks[1:]:
        out = out | m
    return out


def _may_overflow(df: pl.DataFrame, rows: str) -> bool:
    """Whether 2^grade x rows may overflow float64 in some query (from the largest grade
    and row count: :func:`_check_gain_overflow` then finds the queries, if any)."""
    grade, n = df.get_column(MAX_GRADE).max(), df.get_column(rows).max()
    if grade is None or n is None:
        return False
    # 2^g x n < 2^(g + 1 + log2 n); float64 reaches 2^1024
    return float(grade) + 1.0 + math.log2(max(float(n), 1.0)) >= 1023.0  # type: ignore[arg-type]


def _null_key_message(plan: Plan, col: str, n: int, in_run: pl.DataFrame, nulls: pl.DataFrame) -> str:
    """Null query ids, or a ``by`` column without a value for some run queries: nulls in the
    run's own column, or a query attribute (from the queries table or the qrels) whose table
    lacks those queries or spells their ids otherwise (1 against 'q01': then it lacks all)."""
    if col == plan.cols.query:
        return (
            f"{n} run rows have a null in {col!r}. "
            "Hint: drop them (df.drop_nulls(...)/df.dropna(subset=...)) or fill the ids."
        )
    ids = _keys_of(nulls.select(plan.cols.query).unique(), [plan.cols.query])
    which = "any run query" if nulls.height == in_run.height else f"{len(ids)} run queries"
    return (
        f"by={col!r} has no value for {which} ({n} run rows; e.g. queries {_examples(ids)}). When the "
        "column comes from a queries table (or the qrels), those query ids are not in it, or are "
        "spelled or typed otherwise there (1 against 'q01'). Hint: give that table the run's query "
        "ids, spelled and typed alike, with a value for every query; or fill or drop the null rows."
    )


def _check_run_rows(plan: Plan, df: pl.DataFrame, in_run: pl.DataFrame) -> None:
    keys = list(plan.keys)
    null_keys = in_run.filter(pl.any_horizontal(pl.col(keys).is_null()))
    if null_keys.height:
        n = int(null_keys.get_column(N_ROWS).sum())
        cols_with_null = [c for c in keys if null_keys.get_column(c).null_count()]
        raise InvalidDataError(_null_key_message(plan, cols_with_null[0], n, in_run, null_keys))
    bad_doc = in_run.filter(pl.col(N_NULLDOC) > 0)
    if bad_doc.height:
        msg = (
            f"{int(bad_doc.get_column(N_NULLDOC).sum())} run rows have a null "
            f"{plan.cols.doc!r}, e.g. in queries {_examples(_keys_of(bad_doc, keys))}. "
            "Hint: drop or fill them."
        )
        raise InvalidDataError(msg)
    bad = in_run.filter(pl.col(N_BAD) > 0)
    if bad.height:
        msg = (
            f"{int(bad.get_column(N_BAD).sum())} run rows have a null or NaN {plan.cols.order} in "
            f"column {plan.cols.order_col!r}, e.g. in queries {_examples(_keys_of(bad, keys))}. They "
            "cannot be ranked. Hint: drop them or fill them (e.g. with the lowest score)."
        )
        raise InvalidDataError(msg)
    inf = in_run.filter(pl.col(N_INF) > 0) if N_INF in df.columns else in_run.clear()
    if inf.height:
        msg = (
            f"{int(inf.get_column(N_INF).sum())} run rows have an infinite grade in column "
            f"{plan.cols.relevance!r}, e.g. in queries {_examples(_keys_of(inf, keys))}. "
            "Hint: grades must be finite numbers; use null for 'not judged'."
        )
        raise InvalidDataError(msg)
    if DISAGREE in df.columns:
        _check_order(plan, in_run)


def _check_order(plan: Plan, in_run: pl.DataFrame) -> None:
    """order="auto" with a rank and a score column: they must agree within every query."""
    bad = in_run.filter(pl.col(DISAGREE).fill_null(False))
    if not bad.height:
        return
    cols = plan.cols
    example = bad.sort(natural_order(bad.schema, cols.keys)).row(0, named=True)  # the first query
    where = pl.all_horizontal(pl.col(k) == example[k] for k in cols.keys)
    by_order, desc = cols.ranking()
    score = str(cols.check_score)
    rows = (
        plan.run.filter(where).select(cols.order_col, score, cols.doc)
        .with_columns(pl.col(cols.doc).cast(pl.String)).sort(by_order, descending=desc).collect()
    )  # fmt: skip
    rise = (
        rows.with_columns(pl.col(score).diff().alias("_rise")).filter(pl.col("_rise") > 0).row(0, named=True)
    )
    before = rows.row(rows.get_column(cols.doc).to_list().index(rise[cols.doc]) - 1, named=True)
    q = example[cols.query]
    msg = (
        f"The rank column {cols.order_col!r} and the score column {score!r} disagree in "
        f"{bad.height} of {in_run.height} queries: e.g. in query {q!r} the score rises from "
        f"{before[score]!r} at {cols.order_col} {before[cols.order_col]!r} to {rise[score]!r} at "
        f"{cols.order_col} {rise[cols.order_col]!r} (a reranked frame that kept its first-stage "
        "ranks?). Hint: say which one orders the documents: order='rank' or order='score'."
    )
    raise InvalidDataError(msg)


def _check_gain_overflow(plan: Plan, df: pl.DataFrame) -> None:
    """Grades too large for the exp gain: 2^grade summed over a query's documents must stay
    a finite float64 (2^1024 is not), else nDCG is NaN or silently 0.

    The bound is 2^max_grade x (the query's judged rows) < 2^1024, which bounds every
    DCG and ideal DCG of the query; in practice grades up to about 1000 pass.
    """
    if MAX_GRADE not in df.columns:
        return
    n = pl.col(Q_N if plan.has_qrels else N_ROWS)
    over = df.filter(gain_overflows(pl.col(MAX_GRADE), n))
    if over.height == 0:
        return
    over = over.sort(MAX_GRADE, *plan.keys, descending=[True] + [False] * len(plan.keys))
    worst = over.row(0, named=True)
    grade = worst[MAX_GRADE]
    shown = int(grade) if float(grade).is_integer() and abs(grade) < 2**53 else grade
    n_rows = int(worst[Q_N if plan.has_qrels else N_ROWS])
    where = "qrels" if plan.has_qrels else "run"
    measures = ", ".join(repr(label) for label in plan.exp_gain)
    msg = (
        f"The {where} column {plan.grade_col!r} has grade {shown} in query "
        f"{worst[plan.cols.query]!r} ({n_rows} {where} rows; queries with such grades: "
        f"{_examples(sorted(set(over.get_column(plan.cols.query).to_list()), key=str))}): "
        f"the exp gain 2^grade - 1 of "
        f"{measures} overflows float64 (2^1024 is infinite) when summed over the query, and "
        f"the values would be NaN or infinite. {GAIN_OVERFLOW_HINT}"
    )
    raise InvalidDataError(msg)


GAIN_OVERFLOW_HINT = (
    "Hint: use the linear gain, e.g. 'nDCG(gain=linear)@10' (trec_eval's; on the command line "
    "--gain linear), or explicit gains such as 'nDCG(gains={1:1,2:3})@10'."
)


def gain_overflows(max_grade: pl.Expr, n_rows: pl.Expr) -> pl.Expr:
    """THE exp-gain overflow rule: a query whose largest grade ``g`` over ``n`` judged rows
    has 2^g x n infinite in float64 (every DCG and ideal DCG of the query is below it).

    Examples
    --------
    >>> df = pl.DataFrame({"max_grade": [1000.0, 1023.0], "n": [10, 2]})
    >>> df.select(gain_overflows(pl.col("max_grade"), pl.col("n")))["literal"].to_list()
    [False, True]
    """
    return (pl.lit(2.0).pow(max_grade) * n_rows.cast(pl.Float64)).is_infinite()


def _check_qrels(plan: Plan, df: pl.DataFrame, probe: int, flags: dict[str, int]) -> None:
    if flags["qrels"]:
        _check_qrels_rows(plan, df)
    _check_qrels_duplicates(plan, probe)
    if plan.partitions and plan.missing != "drop" and not plan.allow_empty:
        # (a partition of a larger run cannot tell: the backends check all partitions)
        _check_partitions(plan, df)
    if plan.missing == "error" and flags["missing"]:
        miss = df.filter(~pl.col(IN_RUN) & pl.col(JUDGED))
        msg = (
            f"{miss.height} judged queries are missing from the run: "
            f"{_examples(_keys_of(miss, list(plan.keys)), limit=10)}. Hint: pass missing='zero' "
            "to score them 0 (trec_eval -c) or missing='drop' to leave them out."
        )
        raise MissingQueriesError(msg)


def _check_qrels_rows(plan: Plan, df: pl.DataFrame) -> None:
    query = plan.cols.query
    judged = df.filter(pl.col(JUDGED))
    null_q = judged.filter(pl.col(query).is_null())
    if null_q.height:
        msg = (
            f"{int(null_q.get_column(Q_N).sum())} qrels rows have a null query id in column "
            f"{plan.qrels_query!r}. Hint: drop them (qrels.drop_nulls(...) / dropna(subset=...))."
        )
        raise InvalidDataError(msg)
    if Q_NULL in df.columns and judged.filter(pl.col(Q_NULL) > 0).height:
        msg = (
            "The qrels have null doc ids or null, NaN or infinite grades in queries "
            f"{_examples(_keys_of(judged.filter(pl.col(Q_NULL) > 0), [query]))}. "
            "Hint: drop those rows (unjudged documents simply have no qrels row)."
        )
        raise InvalidDataError(msg)


def _check_qrels_duplicates(plan: Plan, probe: int) -> None:
    """A document judged twice for one query: hash probe, confirmed exactly (as for runs)."""
    q = plan.qrels_rows
    if q is None or probe == 0:
        return
    refuse_duplicate_judgments(q, plan.cols.query, plan.cols.doc, keys=plan.qrels_keys)


def refuse_duplicate_judgments(
    qrels: pl.LazyFrame, query: str, doc: str, note: str = "", *, keys: Sequence[str] | None = None
) -> None:
    """THE rule of judgments: a document judged twice for one query (per ``keys``, default
    the query) is refused, in :func:`qrels_duplicates_error`'s words (``note`` appended to
    its first sentence); evaluate, check and the golden-set verbs call it.

    Examples
    --------
    >>> qrels = pl.LazyFrame({"q": ["q1", "q1"], "d": ["a", "a"], "grade": [1, 2]})
    >>> refuse_duplicate_judgments(qrels, "q", "d")
    Traceback (most recent call last):
    ...
    irframe.exceptions.DuplicateRowsError: The qrels judge the same document twice in queries 'q1', ...
    """
    dups = qrels.group_by([*(keys or [query]), doc]).len().filter(pl.col("len") > 1).collect()
    if dups.height:
        raise qrels_duplicates_error(dups, query, doc, note)


def qrels_duplicates_error(dups: pl.DataFrame, query: str, doc: str, note: str = "") -> DuplicateRowsError:
    """The error for the qrels' (``query``, ``doc``) pairs judged more than once (``dups``:
    one row per such pair), ``note`` appended to its first sentence."""
    queries = dups.get_column(query).unique().to_list()
    pairs = dups.sort([query, doc]).head(5).select([query, doc])
    shown = ", ".join(str(tuple(r)) for r in pairs.iter_rows())
    msg = (
        f"The qrels judge the same document twice in queries "
        f"{_examples(sorted(queries, key=str))}, e.g. (query, document) {shown}{note}. "
        "trec_eval refuses such qrels. Hint: keep one grade per (query, document), "
        "e.g. qrels.unique(subset=[query, doc], keep='last'). (Subtopic qrels, one judgment "
        "per subtopic, are for the diversity measures: alpha_nDCG@k, ERR_IA@k...)"
    )
    return DuplicateRowsError(msg)


def _check_duplicates(plan: Plan, probe: int) -> None:
    """Duplicate (query, doc) rows: a cheap hash probe, confirmed exactly before raising.

    Equal rows always hash equal, so a probe of 0 proves there is no duplicate; a
    positive probe (a duplicate, or a hash collision) is confirmed on the strings.
    """
    if probe == 0:
        return
    keys, doc = list(plan.keys), plan.cols.doc
    dups = duplicated_rows(plan.run, keys, doc).collect()
    if dups.height:
        raise duplicates_error(dups, keys, doc, cause=repeats.explain(plan.run, plan.cols))


def duplicated_rows(run: pl.LazyFrame, keys: Sequence[str], doc: str) -> pl.LazyFrame:
    """The (keys, doc) pairs found more than once in ``run``, with their count ``len``."""
    return run.group_by([*keys, doc]).len().filter(pl.col("len") > 1)


def duplicates_error(
    dups: pl.DataFrame, keys: Sequence[str], doc: str, *, cause: str | None = None
) -> DuplicateRowsError:
    """The error for :func:`duplicated_rows` ``dups`` (rows of several buckets concatenated
    count as one table: buckets never share a query). It keeps ``keys`` and ``doc``, so a
    caller that saw one bucket can count over all of them (out of core).  ``cause``: the
    likely cause read from the data (:func:`irframe._engine.repeats.explain`), which then
    leads the hint: ``duplicates='first'`` is for documents listed twice in one ranking."""
    n_extra = int((dups.get_column("len") - 1).sum())
    n_queries = dups.select(keys).unique().height
    sample = dups.sort([*keys, doc]).head(5).select([*keys, doc])
    shown = ", ".join(str(tuple(r)) for r in sample.iter_rows())
    msg = (
        f"The run has {n_extra} duplicate ({', '.join(keys)}, {doc}) rows in {n_queries} "
        f"queries, e.g. {shown}. trec_eval refuses such runs. "
    )
    msg += cause or "Hint: pass duplicates='first' to keep the best-ranked row of each document."
    error = DuplicateRowsError(msg)
    error.duplicate_keys = (tuple(keys), doc)
    return error


def _check_partitions(plan: Plan, df: pl.DataFrame) -> None:
    """A by-column that splits the queries (a segment) cannot receive missing queries."""
    ran = df.filter(pl.col(IN_RUN))
    parts = list(plan.partitions)
    distinct = {c: ran.get_column(c).n_unique() for c in parts}
    flagged = attribute_like(partition_stats(ran, plan.cols.query, parts), distinct)
    if flagged:
        raise partitions_error(flagged)


def partition_stats(in_run: pl.DataFrame, query: str, parts: Sequence[str]) -> pl.DataFrame:
    """One row: the number of queries and, per partitioning column, the largest number of
    its values any one query has. Rows from several buckets combine by sum and max."""
    per_query = in_run.group_by(query).agg(pl.col(c).n_unique() for c in parts)
    return per_query.select(
        pl.len().cast(pl.Int64).alias("n"), *(pl.col(c).max().cast(pl.Int64) for c in parts)
    )


def attribute_like(stats: pl.DataFrame, distinct: dict[str, int]) -> list[str]:
    """The partitioning columns that look like query attributes: at least two values,
    more than one query, and no query with two values (checked column by column, so a
    segment is caught next to a system column)."""
    if stats.height == 0 or int(stats.get_column("n").sum()) < 2:
        return []
    return [
        c
        for c, n_values in distinct.items()
        if n_values >= 2 and int(stats.get_column(c).max()) == 1  # type: ignore[arg-type]
    ]


def partitions_error(parts: Sequence[str]) -> InvalidParameterError:
    """The error for by-columns that look like query attributes (shared with the backends)."""
    names = ", ".join(repr(p) for p in parts)
    msg = (
        f"The by-column(s) {names} look like query attributes (each query has one value) "
        "and are not in the qrels, so a judged query the run never returned cannot be "
        "placed in a group; missing='zero' would add it to every group. Hint: say what "
        f"the column is by adding {names} to the qrels frame: for segments, each query's "
        "segment; for systems that answered disjoint query sets, the qrels cross-joined "
        "with the system names. Or pass missing='drop'."
    )
    return InvalidParameterError(msg)
