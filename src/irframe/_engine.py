"""The engine: prepare once (join, order), ONE ``group_by(keys).agg`` for every measure.

Data flow, all in one lazy polars plan::

    run ─┐
         ├─ left join on (query, doc) ─ sort (keys, order) ─ group_by(keys).agg(numerators)
    qrels┘                                                          │
    qrels ─ group_by(query).agg(R, N, ideal DCG) ───────────────────┴─ full join on query
                                                                     → measures per query

What happens to the edge cases is decided here, once:

- a qrels query absent from the run (``missing``): ``"zero"`` scores it 0 and counts it
  (trec_eval ``-c``); ``"drop"`` leaves it out; ``"error"`` raises.  Either way it is
  counted in ``n_missing``.
- a run query with no judgments: not judged, so its measures are null; it is excluded
  from the means and counted in ``n_unjudged``.
- a judged query with no relevant document: every measure is 0 and it counts.
- ``by`` columns that the qrels also carry are query attributes (join keys); the others
  partition the run (systems), and missing queries are filled in per partition.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

import polars as pl

from irframe import kernels as K
from irframe._columns import RunColumns
from irframe.exceptions import (
    DuplicateRowsError,
    EmptyInputError,
    InvalidDataError,
    InvalidParameterError,
    MissingQueriesError,
)
from irframe.measures import Gain, Measure

__all__ = ["Plan", "build_plan", "check", "checked", "per_query_table", "summarize"]

Missing = Literal["zero", "drop", "error"]
Duplicates = Literal["error", "first"]

P = "__ir_"
N_ROWS = P + "n"
N_BAD = P + "nbad"
N_NULLDOC = P + "nnulldoc"
N_INF = P + "ninf"
Q_N = P + "qn"
Q_NULL = P + "qnull"
IN_RUN = P + "in_run"
RANKED = P + "ranked"
GID = P + "gid"
JUDGED = P + "judged"


def _num(x: float | None) -> str:
    if x is None:
        return "all"
    return str(int(x)) if float(x).is_integer() else str(x).replace(".", "p").replace("-", "m")


@dataclass
class _Needs:
    """What the measures need: per-query denominators and numerators over the ranking."""

    gains: list[Gain] = field(default_factory=list)
    dens: dict[str, pl.Expr] = field(default_factory=dict)  # from the judgments, any order
    ranked: dict[str, pl.Expr] = field(default_factory=dict)  # over the ranking, in order
    rn: set[str] = field(default_factory=set)  # R/N columns the ranked kernels read

    def gain_id(self, g: Gain) -> int:
        if g not in self.gains:
            self.gains.append(g)
        return self.gains.index(g)


def _final_expr(m: Measure, needs: _Needs, inline_rn: bool) -> pl.Expr:
    """Register what ``m`` needs and return its per-query value from those columns.

    ``inline_rn``: Rprec/Bpref count R and N in the group itself (grades on the run rows,
    rows already in ranking order) instead of reading them from joined columns.
    """
    t, k = m.rel, m.cutoff
    fam = m.family

    def R() -> pl.Expr:  # noqa: N802 - the usual name of the quantity
        name = f"{P}R_{_num(t)}"
        needs.dens[name] = K.relevant(t).sum()
        return pl.col(name).cast(pl.Float64)

    def over_r(numer: pl.Expr) -> pl.Expr:
        r = R()
        return pl.when(r > 0).then(numer.cast(pl.Float64) / r).otherwise(0.0)

    def ranked(name: str, expr: pl.Expr) -> pl.Expr:
        needs.ranked[name] = expr
        return pl.col(name).cast(pl.Float64)

    def relret() -> pl.Expr:
        return ranked(f"{P}relret_{_num(t)}_{_num(k)}", K.rel_ret(t, k))

    def per_k(numer: pl.Expr) -> pl.Expr:
        # IEEE numer / k like trec_eval: polars divides a column by a scalar as
        # numer * (1 / k) once it has >= 3 rows (3 * 0.2 != 3 / 5), so a query's value
        # would depend on how many queries share the frame. A column divisor is exact.
        return numer / (pl.col(N_ROWS) * 0 + k).cast(pl.Float64)

    if fam == "P":
        return per_k(relret())
    if fam == "Success":
        return (relret() > 0).cast(pl.Float64)
    if fam == "R":
        return over_r(relret())
    if fam == "NumRelRet":
        return relret()
    if fam == "NumRel":
        return R()
    if fam == "RR":
        return ranked(f"{P}rr_{_num(t)}_{_num(k)}", K.reciprocal_rank(t, k))
    if fam == "AP":
        return over_r(ranked(f"{P}ap_{_num(t)}_{_num(k)}", K.ap_sum(t, k)))
    if fam == "nDCG":
        gid = needs.gain_id(m.gain)
        ideal = f"{P}idcg_{gid}_{_num(k)}"
        needs.dens[ideal] = K.idcg(m.gain, k)
        value = ranked(f"{P}dcg_{gid}_{_num(k)}", K.dcg(m.gain, k))
        return pl.when(pl.col(ideal) > 0).then(value / pl.col(ideal)).otherwise(0.0)
    if fam == "Judged":  # over the documents in the top k that exist (ir_measures)
        n = pl.col(N_ROWS).cast(pl.Float64)
        shown = n if k is None else n.clip(upper_bound=k)
        judged = ranked(f"{P}judged_{_num(k)}", K.judged(k))
        return pl.when(shown > 0).then(judged / shown).otherwise(0.0)
    if fam == "NumRet":
        n = pl.col(N_ROWS).cast(pl.Float64)
        return n if k is None else n.clip(upper_bound=k)
    if fam in ("Rprec", "Bpref"):
        r_name = f"{P}R_{_num(t)}"
        n_name = f"{P}N_{_num(t)}"
        R()
        needs.dens[n_name] = K.judged_nonrelevant(t).sum()
        if inline_rn:
            r, n = needs.dens[r_name], needs.dens[n_name]
        else:
            r, n = pl.col(r_name).first(), pl.col(n_name).first()
            needs.rn.update((r_name, n_name))
        if fam == "Rprec":
            return over_r(ranked(f"{P}rprec_{_num(t)}", K.rprec_hits(t, r)))
        return over_r(ranked(f"{P}bpref_{_num(t)}", K.bpref_sum(t, r, n)))
    msg = f"no kernel for measure family {fam!r}"  # pragma: no cover - registry and engine agree
    raise NotImplementedError(msg)


@dataclass(frozen=True)
class Plan:
    """A lazy per-query table with diagnostics, and what is needed to finish it."""

    frame: pl.LazyFrame
    cols: RunColumns
    allow_empty: bool
    dup_probe: pl.LazyFrame | None  # 1x1: rows minus distinct (keys, doc) hashes
    qrels_rows: pl.LazyFrame | None  # the prepared qrels (query, doc, grade) ...
    qrels_keys: tuple[str, ...]  # ... and their per-query keys, for the duplicate check
    n_segments: int | None  # presorted plan: runs of equal keys found by the order check
    slow: Callable[[], Plan] | None  # the general plan, if the presorted one must be redone
    labels: tuple[str, ...]
    partitions: tuple[str, ...]  # by-columns that partition the run (systems)
    missing: Missing
    has_qrels: bool
    run: pl.LazyFrame
    qrels: pl.LazyFrame | None
    qrels_query: str

    @property
    def keys(self) -> tuple[str, ...]:
        return self.cols.keys


def _harmonize_ids(
    run: pl.LazyFrame, qrels: pl.LazyFrame, pairs: Sequence[tuple[str, str]]
) -> tuple[pl.LazyFrame, pl.LazyFrame]:
    """Give run and qrels id columns one dtype: equal dtypes stay, anything else becomes str."""
    rs, qs = run.collect_schema(), qrels.collect_schema()
    for rc, qc in pairs:
        if rs[rc] == qs[qc] and rs[rc] != pl.Categorical and not isinstance(rs[rc], pl.Enum):
            continue
        run = run.with_columns(pl.col(rc).cast(pl.String))
        qrels = qrels.with_columns(pl.col(qc).cast(pl.String))
    return run, qrels


def build_plan(
    run: pl.LazyFrame,
    cols: RunColumns,
    measures: Sequence[tuple[str, Measure]],
    qrels: pl.LazyFrame | None,
    qrels_cols: tuple[str, str, str] | None,
    *,
    missing: Missing,
    duplicates: Duplicates,
    partition_values: pl.LazyFrame | None = None,
    allow_empty: bool = False,
    detect_order: bool = False,
) -> Plan:
    """Build the lazy plan that computes every measure of every query.

    1. the run's needed columns, left-joined once with the grades;
    2. ONE ``group_by(keys)``: each query's grades sorted into ranking order (a short
       per-group sort, much cheaper than a global sort on string keys), plus input
       diagnostics (and, without qrels, the denominators);
    3. the per-query denominators from the qrels, joined per query (full join: missing
       queries appear here);
    4. the ranked grades exploded in place and aggregated by an integer group id: every
       kernel runs on ordered rows with the query's R and N at hand.

    With ``detect_order`` (in-memory input), a run whose rows are already in ranking
    order within each query (the usual shape of a search log) is detected with one cheap
    pass and not re-sorted: the kernels run directly in the group_by of step 2.
    """
    args = (run, cols, measures, qrels, qrels_cols)
    kwargs = {
        "missing": missing,
        "duplicates": duplicates,
        "partition_values": partition_values,
        "allow_empty": allow_empty,
    }
    inside_run = qrels is None
    keys = list(cols.keys)

    # ---- 1. the run: only the columns we need, ids of one dtype, grades joined once ----
    select = [*keys, cols.doc, cols.order_col]
    if cols.relevance is not None:
        select.append(cols.relevance)
    rows = run.select(list(dict.fromkeys(select)))
    schema = rows.collect_schema()
    qrels_by: list[str] = []
    qq = cols.query
    q: pl.LazyFrame | None = None
    qkeys = [cols.query]
    if qrels is not None and qrels_cols is not None:
        qq, qd, qr = qrels_cols
        qrels_by = [b for b in cols.by if b in qrels.collect_schema()]
        q = (
            qrels.select(list(dict.fromkeys([*qrels_by, qq, qd, qr])))
            .rename({qq: cols.query, qd: cols.doc})
            .with_columns(pl.col(qr).cast(pl.Float64).fill_nan(None).alias(K.REL))
        )
        rows, q = _harmonize_ids(rows, q, [(c, c) for c in (*qrels_by, cols.query, cols.doc)])
        qkeys = [*qrels_by, cols.query]
    else:
        # a NaN grade is no grade (pandas reads missing values as NaN): not judged
        rows = rows.with_columns(
            pl.col(str(cols.relevance)).cast(pl.Float64).fill_nan(None).alias(K.REL)
        )
    if schema[cols.doc].is_integer():
        # trec_eval breaks score ties by docno as a string ("9" ranks above "10")
        rows = rows.with_columns(pl.col(cols.doc).cast(pl.String))
        if q is not None:
            q = q.with_columns(pl.col(cols.doc).cast(pl.String))
    by_order, desc = cols.ranking()
    n_segments: int | None = None
    if detect_order and duplicates == "error":
        n_segments = _ordered_segments(rows, cols)
    presorted = n_segments is not None
    needs = _Needs()
    finals = {
        label: _final_expr(m, needs, inline_rn=presorted and inside_run).cast(pl.Float64)
        for label, m in measures
    }
    if q is not None:
        rows = rows.join(
            q.select([*qkeys, cols.doc, K.REL]),
            on=[*qkeys, cols.doc],
            how="left",
            maintain_order="left" if presorted else "none",
        )
    if duplicates == "first":
        # keep the best-ranked row of a repeated document: order first, then dedupe
        rows = rows.sort(by_order, descending=desc, nulls_last=True).unique(
            subset=[*keys, cols.doc], keep="first", maintain_order=True
        )

    # ---- denominators from the qrels (small: one row per judged query) ------------------
    qstats: pl.LazyFrame | None = None
    if q is not None:
        qstats = q.group_by(qkeys).agg(
            **{
                Q_N: pl.len(),
                Q_NULL: pl.col(K.REL).null_count()
                + pl.col(K.REL).is_infinite().sum()
                + pl.col(cols.doc).null_count(),
                JUDGED: pl.lit(True),
            },
            **needs.dens,
        )

    # ---- 2. one group_by: ranked grades (or, presorted, the kernels) and diagnostics -----
    order_col = pl.col(cols.order_col)
    bad = order_col.is_null().sum()
    if schema[cols.order_col].is_float():
        bad = bad + order_col.is_nan().sum()
    diag = {N_ROWS: pl.len(), N_BAD: bad, N_NULLDOC: pl.col(cols.doc).null_count()}
    if inside_run:
        diag[N_INF] = pl.col(K.REL).is_infinite().sum()
    in_run_dens = {JUDGED: pl.col(K.REL).is_not_null().any(), **needs.dens} if inside_run else {}
    if presorted:
        if qstats is not None and needs.rn:
            rows = rows.join(
                qstats.select([*qkeys, *sorted(needs.rn)]),
                on=qkeys,
                how="left",
                maintain_order="left",
            )
        # Materialise the ordered rows: the lazy optimiser may drop a join's
        # maintain_order when the consumer is a group_by, but a DataFrame's row order is
        # kept within groups (and presorted input is in memory anyway).
        rows = rows.collect(engine="in-memory").lazy()
        per_q = rows.group_by(keys, maintain_order=True).agg(**diag, **in_run_dens, **needs.ranked)
    else:
        per_q = rows.group_by(keys).agg(
            pl.col(K.REL).sort_by(by_order, descending=desc).alias(RANKED), **diag, **in_run_dens
        )
    per_q = per_q.with_columns(pl.lit(True).alias(IN_RUN))

    # ---- 3. one join per query with the denominators ------------------------------------
    partitions = tuple(b for b in cols.by if b not in qrels_by)
    if qstats is not None:
        if partitions:
            # every partition (system) is expected to answer every judged query; the
            # partition values come from the run unless given (a bucket of a larger run)
            if partition_values is None:
                partition_values = per_q.select(list(partitions)).unique()
            expected = partition_values.select(list(partitions)).join(qstats, how="cross")
        else:
            expected = qstats
        table = per_q.join(expected, on=keys, how="full", coalesce=True)
    else:
        table = per_q
    table = table.with_columns(
        pl.col(IN_RUN).fill_null(False),
        pl.col(JUDGED).fill_null(False),
        pl.col([N_ROWS, *needs.dens, *(needs.ranked if presorted else ())]).fill_null(0),
    )

    # ---- 4. kernels over the ranked grades, grouped by an integer id ---------------------
    if presorted:
        pass
    elif needs.ranked:
        others = [c for c in table.collect_schema() if c != RANKED]
        table = (
            table.with_row_index(GID)
            .explode(RANKED)
            .rename({RANKED: K.REL})
            .group_by(GID, maintain_order=True)
            .agg(pl.col(others).first(), **needs.ranked)
            .drop(GID)
        )
    else:
        table = table.drop(RANKED)
    values = [
        pl.when(pl.col(JUDGED)).then(expr).otherwise(None).alias(label) for label, expr in finals.items()
    ]
    table = table.with_columns(values)
    return Plan(
        frame=table,
        cols=cols,
        allow_empty=allow_empty,
        dup_probe=None
        if duplicates == "first"
        else run.select(_dup_probe([*keys, cols.doc])),
        qrels_rows=q,
        qrels_keys=tuple(qkeys),
        labels=tuple(finals),
        partitions=partitions,
        missing=missing,
        has_qrels=q is not None,
        n_segments=n_segments,
        slow=None if not presorted else lambda: build_plan(*args, **kwargs),  # type: ignore[arg-type]
        run=run,
        qrels=qrels,
        qrels_query=qq,
    )


def _ordered_segments(rows: pl.LazyFrame, cols: RunColumns) -> int | None:
    """If each query's rows already follow ranking order, the number of runs of equal keys.

    One vectorised pass comparing each row with the previous one. Whether the runs are
    whole queries (keys contiguous) is verified after the group_by by :func:`collect`.
    """
    same = pl.all_horizontal(
        (pl.col(k) == pl.col(k).shift(1)).fill_null(False) for k in cols.keys
    )
    o, d = pl.col(cols.order_col), pl.col(cols.doc)
    worse = o < o.shift(1) if cols.order == "rank" else o > o.shift(1)
    out_of_order = same & (worse | ((o == o.shift(1)) & (d > d.shift(1))))
    res = rows.select(
        out_of_order.any().alias("bad"), (~same).sum().alias("segments"), pl.len().alias("n")
    ).collect()
    if res.item(0, "bad") or res.item(0, "n") == 0:
        return None
    return int(res.item(0, "segments"))


def collect(plan: Plan) -> tuple[Plan, pl.DataFrame]:
    """Collect the per-query table and check the input; redo a presorted plan whose key
    runs turn out not to be whole queries (then the input was not grouped by query)."""
    df, probes = _collect_with_probes(plan)
    if plan.slow is not None and df.filter(pl.col(IN_RUN)).height != plan.n_segments:
        plan = plan.slow()
        df, probes = _collect_with_probes(plan)
    check(plan, df, probes)
    return plan, df


def _dup_probe(cols: Sequence[str]) -> pl.Expr:
    """Rows minus distinct row hashes: 0 proves the rows are distinct on ``cols``.

    The row hash XORs one hash per column, each with its own seed (so swapping values
    between columns does not collide): 2.3x cheaper than hashing a struct at 1e7 rows.
    A collision only costs the exact check that runs before any error is raised.
    """
    row_hash = pl.col(cols[0]).hash(seed=1)
    for i, c in enumerate(cols[1:], start=2):
        row_hash = row_hash ^ pl.col(c).hash(seed=i)
    return pl.len() - row_hash.n_unique()


def _probes(plan: Plan) -> dict[str, pl.LazyFrame]:
    """The duplicate probes (1x1 frames: rows minus distinct key hashes)."""
    out = {}
    if plan.dup_probe is not None:
        out["run"] = plan.dup_probe
    if plan.qrels_rows is not None:
        keys = [*plan.qrels_keys, plan.cols.doc]
        out["qrels"] = plan.qrels_rows.select(_dup_probe(keys))
    return out


def _collect_with_probes(plan: Plan) -> tuple[pl.DataFrame, dict[str, int]]:
    """Collect the table and the probes together (polars shares the work between them)."""
    probes = _probes(plan)
    frames = pl.collect_all([plan.frame, *probes.values()])
    return frames[0], {k: int(f.item()) for k, f in zip(probes, frames[1:], strict=True)}


def _examples(values: Sequence[object], limit: int = 5) -> str:
    shown = ", ".join(repr(v) for v in values[:limit])
    return shown + (f", ... ({len(values) - limit} more)" if len(values) > limit else "")


def _keys_of(df: pl.DataFrame, keys: Sequence[str]) -> list[object]:
    if len(keys) == 1:
        return df.get_column(keys[0]).to_list()
    return [tuple(r) for r in df.select(keys).iter_rows()]


def check(plan: Plan, df: pl.DataFrame, probes: dict[str, int] | None = None) -> None:
    """Raise for bad input found by the diagnostics; nothing is dropped silently.

    ``probes``: the duplicate probes already collected with ``df`` (else collected here).
    """
    if probes is None:
        probes = {k: int(f.collect().item()) for k, f in _probes(plan).items()}
    keys = list(plan.keys)
    query = plan.cols.query
    in_run = df.filter(pl.col(IN_RUN))
    if plan.allow_empty and in_run.height == 0:
        return
    if in_run.height == 0 or int(in_run.get_column(N_ROWS).sum()) == 0:
        msg = "The run has no rows. Hint: check the filter that produced it."
        raise EmptyInputError(msg)
    null_keys = in_run.filter(pl.any_horizontal(pl.col(keys).is_null()))
    if null_keys.height:
        n = int(null_keys.get_column(N_ROWS).sum())
        cols_with_null = [c for c in keys if null_keys.get_column(c).null_count()]
        msg = (
            f"{n} run rows have a null in {cols_with_null[0]!r}. "
            "Hint: drop them (df.drop_nulls(...)/df.dropna(subset=...)) or fill the ids."
        )
        raise InvalidDataError(msg)
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
        col = plan.cols.order_col
        msg = (
            f"{int(bad.get_column(N_BAD).sum())} run rows have a null or NaN {plan.cols.order} in "
            f"column {col!r}, e.g. in queries {_examples(_keys_of(bad, keys))}. They cannot be "
            "ranked. Hint: drop them or fill them (e.g. with the lowest score)."
        )
        raise InvalidDataError(msg)
    if N_INF in df.columns:
        inf = in_run.filter(pl.col(N_INF) > 0)
        if inf.height:
            msg = (
                f"{int(inf.get_column(N_INF).sum())} run rows have an infinite grade in column "
                f"{plan.cols.relevance!r}, e.g. in queries {_examples(_keys_of(inf, keys))}. "
                "Hint: grades must be finite numbers; use null for 'not judged'."
            )
            raise InvalidDataError(msg)
    _check_duplicates(plan, probes.get("run", 0))
    if plan.has_qrels:
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
        _check_qrels_duplicates(plan, probes.get("qrels", 0))
        if judged.height == 0 and not plan.allow_empty:
            msg = (
                "No query of the run is in the qrels (and the qrels are empty or share no "
                "query id with it). Hint: check that both use the same query ids."
            )
            raise EmptyInputError(msg)
        if plan.partitions and plan.missing != "drop" and not plan.allow_empty:
            # (a partition of a larger run cannot tell: the backends check all partitions)
            _check_partitions(plan, df)
        if plan.missing == "error":
            miss = df.filter(~pl.col(IN_RUN) & pl.col(JUDGED))
            if miss.height:
                msg = (
                    f"{miss.height} judged queries are missing from the run: "
                    f"{_examples(_keys_of(miss, keys), limit=10)}. Hint: pass missing='zero' "
                    "to score them 0 (trec_eval -c) or missing='drop' to leave them out."
                )
                raise MissingQueriesError(msg)


def _check_qrels_duplicates(plan: Plan, probe: int) -> None:
    """A document judged twice for one query: hash probe, confirmed exactly (as for runs)."""
    q = plan.qrels_rows
    if q is None:
        return
    keys, doc = list(plan.qrels_keys), plan.cols.doc
    if probe == 0:
        return
    dups = q.group_by([*keys, doc]).len().filter(pl.col("len") > 1).collect()
    if dups.height == 0:
        return
    queries = dups.get_column(plan.cols.query).unique().to_list()
    msg = (
        f"The qrels judge the same document twice in queries "
        f"{_examples(sorted(queries, key=str))}. "
        "trec_eval refuses such qrels. Hint: keep one grade per (query, document), "
        "e.g. qrels.unique(subset=[query, doc], keep='last')."
    )
    raise DuplicateRowsError(msg)


def _check_duplicates(plan: Plan, probe: int) -> None:
    """Duplicate (query, doc) rows: a cheap hash probe, confirmed exactly before raising.

    Equal rows always hash equal, so a probe of 0 proves there is no duplicate; a
    positive probe (a duplicate, or a hash collision) is confirmed on the strings.
    """
    if probe == 0:
        return
    keys, doc = list(plan.keys), plan.cols.doc
    dups = plan.run.group_by([*keys, doc]).len().filter(pl.col("len") > 1).collect()
    if dups.height == 0:
        return
    n_extra = int((dups.get_column("len") - 1).sum())
    n_queries = dups.select(keys).unique().height
    sample = dups.sort([*keys, doc]).head(5).select([*keys, doc])
    shown = ", ".join(str(tuple(r)) for r in sample.iter_rows())
    msg = (
        f"The run has {n_extra} duplicate ({', '.join(keys)}, {doc}) rows in {n_queries} "
        f"queries, e.g. {shown}. trec_eval refuses such runs. "
        "Hint: pass duplicates='first' to keep the best-ranked row of each document."
    )
    raise DuplicateRowsError(msg)


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


def per_query_table(plan: Plan, table: pl.LazyFrame) -> pl.LazyFrame:
    """The public per-query table: keys and one Float64 column per measure, sorted by keys.

    Missing queries are kept (as zeros) unless ``missing='drop'``; unjudged run queries
    are kept with null values so that they stay visible.
    """
    if plan.missing == "drop":
        table = table.filter(pl.col(IN_RUN))
    return table.select(*plan.keys, *plan.labels).sort(list(plan.keys), nulls_last=True)


def summarize(plan: Plan, table: pl.LazyFrame | pl.DataFrame) -> pl.LazyFrame:
    """Means over judged queries per by-group, with the counts of left-out queries."""
    lf = table.lazy()
    by = list(plan.cols.by)
    judged = pl.col(JUDGED) & pl.col(IN_RUN) if plan.missing == "drop" else pl.col(JUDGED)
    aggs = [
        *(pl.col(label).filter(judged).mean().alias(label) for label in plan.labels),
        judged.sum().cast(pl.Int64).alias("n_queries"),
        (pl.col(JUDGED) & ~pl.col(IN_RUN)).sum().cast(pl.Int64).alias("n_missing"),
        (~pl.col(JUDGED) & pl.col(IN_RUN)).sum().cast(pl.Int64).alias("n_unjudged"),
    ]
    if by:
        return lf.group_by(by).agg(aggs).sort(by, nulls_last=True)
    return lf.select(aggs)


def checked(plan: Plan) -> pl.LazyFrame:
    """The plan's table with the input checks attached (they run when it is collected)."""

    def _check(df: pl.DataFrame) -> pl.DataFrame:
        check(plan, df)
        return df

    return plan.frame.map_batches(_check, schema=plan.frame.collect_schema())
