"""Pairing: stack the runs, give runs and qrels the same query attributes, pair per query.

Every frame here is polars; the caller's type comes back in :mod:`irframe._compare.table`
and :mod:`irframe._compare.movers`.  The internal column names (``__ir_*``) never clash with
the caller's and never reach a message.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import polars as pl

from irframe._engine import compose, per_query_table
from irframe._engine.repeats import warn_dropped
from irframe._input.frames import to_lazy
from irframe._input.keys import MEASURE, QUERY_KEY, SYSTEM, VALUE
from irframe._input.options import Options
from irframe._input.queries import with_query_attributes
from irframe._input.runs import Stack, stack_runs, user_terms
from irframe.exceptions import InvalidParameterError, closest
from irframe.functions import evaluate
from irframe.measures import Measure
from irframe.measures._parse import Measures

MeasureLike = str | Measure
TIE_TOLERANCE = 1e-12

# internal column names (never clash with the caller's); the shared ones are in _input/keys.py
_SYS, _MEAS, _VAL, _QKEY = SYSTEM, MEASURE, VALUE, QUERY_KEY
_BASE = "__ir_base"
_BSYS = "__ir_baseline"  # the name of the system a row is compared with
_DELTA = "__ir_delta"


def _resolve_columns(stacked: Stack, qrels: Any, opts: Options, where: str) -> Options:
    """The options with the column convention of the runs (and qrels) detected, if needed."""
    qnames = None if qrels is None else to_lazy(qrels, role="qrels")[0].collect_schema().names()
    return opts.detect(list(stacked.lf.collect_schema()), where, qrels_schema=qnames)


def _with_queries(
    stacked: Stack, qrels: Any, queries: Any, by: Sequence[str], opts: Options
) -> tuple[Stack, Any]:
    """Give runs and qrels every ``by`` column (THE rule: :mod:`irframe._input.queries`).

    compare's groups are query attributes (query type, segment...): a column of the
    ``queries`` table or of the qrels is copied onto the runs by query id, and one only the
    runs carry is copied onto the qrels; each needs one value per query.
    """
    if not by:
        return stacked, qrels
    qrels_lf = None if qrels is None else to_lazy(qrels, role="qrels")[0]
    lf, qrels_lf = with_query_attributes(
        stacked.lf, qrels_lf, queries, opts.with_(by=list(by)), "compare", run_attributes=True
    )
    return replace(stacked, lf=lf), qrels_lf


def _resolve_baseline(baseline: str | None, systems: Sequence[str], where: str) -> str:
    if baseline is None:
        return systems[0]
    if baseline not in systems:
        near = closest(str(baseline), systems)
        msg = f"The baseline {baseline!r} of {where} is not one of the systems {list(systems)}."
        if near:
            msg += f"\nHint: did you mean baseline={near[0]!r}?"
        raise InvalidParameterError(msg)
    return baseline


def _resolve_pairs(
    baseline: str | None, pairs: object, systems: Sequence[str], where: str
) -> tuple[str | None, list[tuple[str, str]]]:
    """The baseline (None for every pair) and the (system, baseline) pairs to compare.

    ``pairs="baseline"``: every other system against ``baseline`` (default the first).
    ``pairs="all"``: every pair, each later system (input order) against each earlier one.
    """
    if pairs == "all":
        if baseline is not None:
            msg = (
                f"{where}(pairs='all') compares every pair of systems, so baseline={baseline!r} "
                "has no role. Hint: drop baseline=..., or pass pairs='baseline' to compare "
                "every system with one baseline."
            )
            raise InvalidParameterError(msg)
        return None, [(later, earlier) for i, earlier in enumerate(systems) for later in systems[i + 1 :]]
    if pairs != "baseline":
        err = InvalidParameterError.for_value("pairs", where, "'baseline' or 'all'", pairs)
        raise err
    base = _resolve_baseline(baseline, systems, where)
    return base, [(s, base) for s in systems if s != base]


def _check_by(by: object, where: str, system_col: str) -> list[str]:
    """``by`` as a list of query-attribute columns: None, one name, or a sequence of names."""
    if by is None:
        return []
    if isinstance(by, str):
        by = [by]
    if not isinstance(by, Sequence) or not all(isinstance(b, str) for b in by):
        err = InvalidParameterError.for_value(
            "by", where, "a column name, a list of column names or None", by
        )
        raise err
    if system_col in by:
        msg = (
            f"The 'by' parameter of {where} names the system column {system_col!r}; {where} already "
            "compares the systems with each other. Hint: by= takes query attributes (query type, "
            "segment...); leave the system column out."
        )
        raise InvalidParameterError(msg)
    return list(by)


def check_missing(missing: object, where: str) -> str:
    """The ``missing`` rule, checked (one of "zero", "drop", "error")."""
    if missing not in ("zero", "drop", "error"):
        err = InvalidParameterError.for_value("missing", where, "one of 'zero', 'drop', 'error'", missing)
        raise err
    return str(missing)


def _per_query_long(
    stacked: Stack,
    *,
    qrels: Any,
    labels: Sequence[str],
    measures: Measures,
    by: Sequence[str],
    missing: str,
    system_col: str,
    opts: Options,
) -> tuple[pl.DataFrame, str]:
    """Per-query values of every system: columns [_SYS, *by, query, _MEAS, _VAL].

    ``duplicates="first"``: the rows it drops are said in a
    :class:`~irframe.exceptions.DuplicatesWarning` (the stacked runs are lazy here, and
    evaluate counts an in-memory run's only).
    """
    query_col = opts.query_col
    if opts.duplicates == "first" and {query_col, opts.doc_col} <= set(stacked.lf.collect_schema()):
        role_cols = [c for c in (opts.rank_col, opts.score_col, opts.relevance_col) if c is not None]
        warn_dropped(stacked.lf, [_SYS, *by, query_col], opts.doc_col, role_cols)
    with user_terms(system_col):  # (a step of compare's own progress: no bar of its own)
        every = opts.with_(by=[_SYS, *by], missing=missing)
        parts = []
        for _, lf in stacked.alike():  # each run ranked by its own order column
            plan, table, _ = compose.evaluate(lf, measures, qrels, every, progress=False)
            pq = per_query_table(plan, table)
            parts.append(pq.collect() if isinstance(pq, pl.LazyFrame) else pq)
        df = parts[0] if len(parts) == 1 else _in_system_order(parts, stacked.systems)
    long = df.unpivot(index=[_SYS, *by, query_col], on=list(labels), variable_name=_MEAS, value_name=_VAL)
    return long, query_col


def _in_system_order(parts: Sequence[pl.DataFrame], systems: Sequence[str]) -> pl.DataFrame:
    """Per-query tables of groups of systems as one, the systems in input order."""
    index = {name: i for i, name in enumerate(systems)}
    df = pl.concat(parts, how="vertical_relaxed")
    return df.sort(pl.col(_SYS).replace_strict(index, return_dtype=pl.Int64), maintain_order=True)


def check_shared_queries(
    runs: pl.LazyFrame,
    qrels: Any,
    pairs: Sequence[tuple[str, str]],
    *,
    where: str,
    opts: Options,
) -> None:
    """Raise when a (system, baseline) pair has no judged query in both runs: nothing to pair.

    ``runs`` are the stacked runs (their query column and the internal system column).
    A query is judged when the qrels have it (without qrels: when the runs have it).
    """
    query_col = opts.query_col
    if query_col not in runs.collect_schema():
        return  # evaluate() names the missing column
    judged = runs.select(_SYS, pl.col(query_col).cast(pl.String).alias(_QKEY)).unique().collect()
    if judged.get_column(_QKEY).has_nulls():
        return  # evaluate() names the rows with a null query id
    if qrels is not None:
        qlf, _ = to_lazy(qrels, role="qrels")
        qq = opts.qrels_columns[0]
        if qq not in qlf.collect_schema():
            return
        qkeys = qlf.select(pl.col(qq).cast(pl.String).alias(_QKEY)).unique().collect()
        judged = judged.join(qkeys, on=_QKEY, how="semi")
    per_system = judged.group_by(_SYS).agg(pl.col(_QKEY).sort())
    queries: dict[str, list[str]] = dict(per_system.iter_rows())
    for system, base in pairs:
        if not set(queries.get(system, ())).isdisjoint(queries.get(base, ())):
            continue
        raise _disjoint_error(where, (system, base), queries, query_col=query_col)


def _disjoint_error(
    where: str,
    pair: tuple[str, str],
    queries: Mapping[str, list[str]],
    *,
    query_col: str,
) -> InvalidParameterError:
    def have(name: str) -> str:
        got = queries.get(name, [])
        if not got:
            return f"{name!r} has no judged query"
        return f"{name!r} has {len(got)} (e.g. {got[0]!r})"

    system, base = pair
    msg = (
        f"The systems {base!r} and {system!r} of {where} share no judged query: no value of the "
        f"query column {query_col!r} is in both runs and in the judgments, so there is nothing to "
        f"pair ({have(base)}; {have(system)})."
    )
    respelled = _respelled(queries.get(base, []), queries.get(system, []))
    if respelled is not None:
        msg += (
            f" Hint: the same queries seem spelled two ways ({respelled[0]!r} and {respelled[1]!r}): "
            "write the query ids the same way in every run and the qrels."
        )
    else:
        msg += (
            " They are not paired: an A/B test? compare pairs each query's values across systems; "
            "two arms shown to different sessions or users are independent samples: compare them "
            "with irframe.online.compare (unpaired). If the runs should share queries, check that "
            "they write the query ids the same way (e.g. '1' vs 'q1' or 'Q1')."
        )
    return InvalidParameterError(msg)


def _spelling(query: str) -> str:
    """A query id without case, punctuation, a leading non-digit prefix and leading zeros."""
    plain = "".join(ch for ch in query.lower() if ch.isalnum())
    digits = plain.lstrip("abcdefghijklmnopqrstuvwxyz")
    return (digits.lstrip("0") or "0") if digits.isdigit() else plain


def _respelled(left: Sequence[str], right: Sequence[str]) -> tuple[str, str] | None:
    """An example pair of ids spelled differently, when at least half of the smaller side's
    queries match the other side's once spelled alike (else the sides are simply apart).

    Examples
    --------
    >>> _respelled(["q1", "q2"], ["1", "2"])
    ('q1', '1')
    >>> _respelled(["s1", "s2"], ["s51", "s52"]) is None
    True
    """
    if not left or not right:
        return None
    plain = {_spelling(q): q for q in right}
    shared = [(q, plain[_spelling(q)]) for q in left if _spelling(q) in plain]
    return shared[0] if shared and 2 * len(shared) >= min(len(left), len(right)) else None


def pair_values(long: pl.DataFrame, pairs: Sequence[tuple[str, str]], keys: Sequence[str]) -> pl.DataFrame:
    """Join each (system, baseline) pair's values on (*by, query, measure); drop nulls.

    Columns: those of ``long`` (the system's value in _VAL), _BSYS (the baseline's name),
    _BASE (its value) and _DELTA (system - baseline, float noise set to 0).
    """
    pair_frame = pl.DataFrame(
        {_SYS: [s for s, _ in pairs], _BSYS: [b for _, b in pairs]},
        schema={_SYS: pl.String, _BSYS: pl.String},
    )
    base = long.select(pl.col(_SYS).alias(_BSYS), *keys, _MEAS, pl.col(_VAL).alias(_BASE))
    delta = pl.col(_VAL) - pl.col(_BASE)
    return (
        long.join(pair_frame, on=_SYS, how="inner", maintain_order="left")
        .join(base, on=[_BSYS, *keys, _MEAS], how="inner", maintain_order="left")
        .filter(pl.col(_VAL).is_not_null() & pl.col(_BASE).is_not_null())
        .with_columns(pl.when(delta.abs() <= TIE_TOLERANCE).then(0.0).otherwise(delta).alias(_DELTA))
    )


@dataclass(frozen=True)
class LongColumns:
    """The columns of compare's long and paired tables, for code that reads them (check)."""

    system: str = _SYS
    measure: str = _MEAS
    value: str = _VAL
    baseline: str = _BSYS  # the name of the system a paired row is compared with
    baseline_value: str = _BASE
    delta: str = _DELTA


LONG = LongColumns()


def long_values(system: str, per_query: pl.DataFrame, labels: Sequence[str], query_col: str) -> pl.DataFrame:
    """One system's per-query values in compare's long layout ``[system, query, measure, value]``.

    The way into compare for values computed elsewhere, such as a snapshot's: ``per_query``
    has a query column and one Float64 column per measure label (null: no value), as
    ``evaluate(..., per_query=True)`` gives them.  Stacked with other systems' long values,
    :func:`pair_values` pairs them and compare's statistics, correction and groups treat the
    system as they treat an evaluated run.

    Examples
    --------
    >>> values = pl.DataFrame({"query_id": ["q1", "q2"], "RR": [1.0, None], "P@1": [1.0, 0.0]})
    >>> long_values("old", values, ["RR", "P@1"], "query_id").rows()  # doctest: +NORMALIZE_WHITESPACE
    [('old', 'q1', 'RR', 1.0), ('old', 'q2', 'RR', None),
     ('old', 'q1', 'P@1', 1.0), ('old', 'q2', 'P@1', 0.0)]
    """
    return per_query.select(pl.lit(system, dtype=pl.String).alias(_SYS), query_col, *labels).unpivot(
        index=[_SYS, query_col], on=list(labels), variable_name=_MEAS, value_name=_VAL
    )


def system_names(runs: Any, *, system_col: str = "system") -> list[str]:
    """The systems of ``runs`` in input order (dict order, or first appearance in a stacked frame).

    Parameters
    ----------
    runs : dict of name -> frame, or one stacked frame
        As for :func:`irframe.compare.compare` (at least two systems).
    system_col : str, default "system"
        System column of a stacked frame.

    Returns
    -------
    list of str

    Examples
    --------
    >>> import polars as pl
    >>> runs = pl.DataFrame({"system": ["b", "a", "b"], "query_id": ["q1"] * 3, "doc_id": ["x", "y", "z"]})
    >>> system_names(runs)
    ['b', 'a']
    """
    return stack_runs(runs, system_col, "system_names", at_least=2).systems


def system_means(
    runs: Any,
    qrels: Any = None,
    measures: MeasureLike | Sequence[MeasureLike] = "nDCG@10",
    *,
    system_col: str = "system",
    missing: str = "zero",
    **column_kwargs: Any,
) -> pl.DataFrame:
    """Mean of each measure for every system, one row per system in input order, as polars.

    The same numbers as :func:`irframe.evaluate` on each run; a helper for plots and other
    consumers that want one polars frame whatever the runs' type.

    Parameters
    ----------
    runs, qrels, system_col, missing, **column_kwargs
        As for :func:`irframe.compare.compare`.
    measures : str, Measure or list
        Measures to average.

    Returns
    -------
    polars.DataFrame
        ``system_col`` (str), one column per measure, then :func:`irframe.evaluate`'s
        counts (``n_queries``, ``n_missing``, ``n_unjudged``).

    Examples
    --------
    >>> import polars as pl
    >>> qrels = pl.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["a", "b"], "relevance": [1, 1]})
    >>> runs = {"x": pl.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["a", "c"], "rank": [1, 1]}),
    ...         "y": pl.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["a", "b"], "rank": [1, 1]})}
    >>> system_means(runs, qrels, ["P@1"]).select("system", "P@1").rows()
    [('x', 0.5), ('y', 1.0)]
    """
    opts = Options.build("system_means", missing=missing, **column_kwargs)
    stacked = stack_runs(runs, system_col, "system_means", at_least=2)
    listed = [measures] if isinstance(measures, str | Measure) else list(measures)
    parts = []
    with user_terms(system_col):  # one system at a time: systems may answer disjoint queries
        for systems, lf in stacked.alike():  # each run ranked by its own order column
            for name in systems:
                run = lf.filter(pl.col(_SYS) == name).drop(_SYS)
                means = evaluate(run, listed, qrels, progress=False, **opts.as_kwargs())
                df = means.collect() if isinstance(means, pl.LazyFrame) else means
                parts.append(df.select(pl.lit(name, dtype=pl.String).alias(system_col), pl.all()))
    out = pl.concat(parts, how="vertical")
    index = {name: i for i, name in enumerate(stacked.systems)}
    return out.sort(pl.col(system_col).replace_strict(index, return_dtype=pl.Int64), maintain_order=True)
