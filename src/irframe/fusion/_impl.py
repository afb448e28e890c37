"""The implementation of :mod:`irframe.fusion`: the kernels (polars expressions keyed by the
names of :data:`irframe.fusion.METHODS` and :data:`irframe.fusion.NORMS`), reading and checking
the runs, the fused plan, and the tuning grid.

The public module declares the methods and norms (names, what they read, defaults, ranx's
names, formulas) without importing polars; this one is imported by its functions.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any, Literal

import polars as pl

from irframe._input.columns import natural_order, ranking_order, resolve_run
from irframe._input.frames import Origin, from_lazy, to_lazy
from irframe._input.keys import SYSTEM
from irframe._input.options import DEFAULT_RANK, Missing, Options
from irframe._input.runs import stack_runs
from irframe.exceptions import (
    ColumnNotFoundError,
    DuplicateRowsError,
    InvalidDataError,
    InvalidParameterError,
    IrFrameError,
    closest,
)
from irframe.fusion import (
    DEFAULT_K,
    DEFAULT_RRF_GRID,
    EPS,
    FAR,
    MAX_DEFAULT_GRID_RUNS,
    METHODS,
    NORMS,
    SMALL_SET,
    WEIGHT_STEPS,
    FusionTuning,
    Method,
    Norm,
)

__all__ = ["KERNELS", "NORM_EXPRS", "fuse_runs", "tune"]

# columns of the stacked, prepared frame (the caller's query and doc columns keep their names)
_SYS, _SCORE, _KEY, _CHECK, _POS = (f"__fuse_{c}" for c in ("sys", "score", "key", "check", "pos"))
_SETTING = "__fuse_setting"
# The engine a fused run is computed on: in memory, each document's scores are summed in
# the runs' order, every call alike (polars' default engine changed the last bit of
# fused scores from one call to the next), and the tuning grid ran faster (decisions.md, fusion-engine)
ENGINE: Literal["in-memory"] = "in-memory"


@dataclass(frozen=True)
class _Ctx:
    """What the expressions of a method or a norm need: the stacked frame's columns."""

    query: str
    doc: str
    n_systems: int
    k: float
    weights: tuple[float, ...]

    @property
    def run_query(self) -> list[str]:
        """The window of one run's results for one query."""
        return [_SYS, self.query]


def _pos() -> pl.Expr:
    return pl.col(_POS).cast(pl.Float64)


def _score() -> pl.Expr:
    return pl.col(_SCORE)


@dataclass(frozen=True)
class Kernel:
    """A method's expressions: one value per run and document (``row``, from the run's
    normalised score), combined per query and document over the runs that retrieved it
    (``agg``), plus a constant per query (``per_query``) when the method has one."""

    row: Callable[[_Ctx, pl.Expr], pl.Expr]
    agg: Callable[[_Ctx, pl.Expr], pl.Expr]
    per_query: Callable[[_Ctx], pl.Expr] | None = None


def _minmax(c: _Ctx) -> pl.Expr:
    lo, hi = _score().min().over(c.run_query), _score().max().over(c.run_query)
    return (_score() - lo) / pl.max_horizontal(hi - lo, EPS)


def _sum(c: _Ctx) -> pl.Expr:
    lo, n = _score().min().over(c.run_query), pl.len().over(c.run_query)
    return (_score() - lo) / pl.max_horizontal(_score().sum().over(c.run_query) - lo * n, EPS)


def _zscore(c: _Ctx) -> pl.Expr:
    mean, sd = _score().mean().over(c.run_query), _score().std(ddof=0).over(c.run_query)
    return (_score() - mean) / pl.max_horizontal(sd, EPS)


NORM_EXPRS: dict[str, Callable[[_Ctx], pl.Expr]] = {
    "minmax": _minmax,
    "max": lambda c: _score() / pl.max_horizontal(_score().max().over(c.run_query), EPS),
    "sum": _sum,
    "zscore": _zscore,
    "rank": lambda c: 1.0 - _pos() / pl.len().over(c.run_query),
}
"""Each norm of :data:`irframe.fusion.NORMS` (its formula there) as an expression."""


def _borda_row(c: _Ctx, _: pl.Expr) -> pl.Expr:
    # a run's points for a document it ranked, less the points it gives each one it did not
    cands = pl.col(c.doc).n_unique().over(c.query).cast(pl.Float64)
    return (cands - _pos()) - (cands - pl.len().over(c.run_query) + 1) / 2


def _borda_unranked(c: _Ctx) -> pl.Expr:
    # the points every run gives each document it did not rank: sum over runs of (c - n + 1) / 2
    cands = pl.col(c.doc).n_unique().over(c.query).cast(pl.Float64)
    return (c.n_systems * (cands + 1) - pl.len().over(c.query)) / 2


def _weighted(c: _Ctx, v: pl.Expr) -> pl.Expr:
    return pl.col(_SYS).replace_strict(range(c.n_systems), c.weights, return_dtype=pl.Float64) * v


def _bounded(c: _Ctx, best: pl.Expr, far: float) -> pl.Expr:
    """ranx's combmax/combmin: a run without the document counts as ``far``."""
    horizontal = pl.max_horizontal if far < 0 else pl.min_horizontal
    return pl.when(pl.len() < c.n_systems).then(horizontal(best, far)).otherwise(best)


def _same(_: _Ctx, v: pl.Expr) -> pl.Expr:
    return v


KERNELS: dict[str, Kernel] = {
    "rrf": Kernel(lambda c, _: 1.0 / (c.k + _pos() + 1), lambda c, v: v.sum()),
    "combsum": Kernel(_same, lambda c, v: v.sum()),
    "combmnz": Kernel(_same, lambda c, v: v.sum() * pl.len()),
    "combmax": Kernel(_same, lambda c, v: _bounded(c, v.max(), -FAR)),
    "combmin": Kernel(_same, lambda c, v: _bounded(c, v.min(), FAR)),
    "combanz": Kernel(_same, lambda c, v: v.sum() / pl.len()),
    "wsum": Kernel(_weighted, lambda c, v: v.sum()),
    "borda": Kernel(_borda_row, lambda c, v: v.sum(), _borda_unranked),
}
"""Each method of :data:`irframe.fusion.METHODS` (its formula there) as expressions."""


# --- parameters ----------------------------------------------------------------------------
def _choice_error(name: str, where: str, table: Mapping[str, Any], got: object, extra: str = "") -> Exception:
    """``name`` is none of ``table``'s keys: say which are, and hint at ranx's spelling or a near name."""
    msg = str(
        InvalidParameterError.for_value(name, where, "one of " + ", ".join(map(repr, table)) + extra, got)
    )
    if isinstance(got, str):
        ranx = [key for key, entry in table.items() if entry.ranx == got]
        near = closest(got, table)
        if ranx:
            msg += f" Hint: ranx's {got!r} is {name}={ranx[0]!r} here."
        elif near:
            msg += f" Hint: did you mean {name}={near[0]!r}?"
    return InvalidParameterError(msg)


@dataclass(frozen=True)
class _Spec:
    """A validated choice of method, norm and parameters; weights by system once bound."""

    method: Method
    norm: Norm | None
    k: float
    weights: Any  # as given (validated: finite numbers), until bound to the systems
    bound: tuple[float, ...] = ()

    @property
    def reads(self) -> Literal["score", "rank"]:
        """What the fusion reads of each run: the scores' values, or only the ranking."""
        if self.method.reads == "rank" or (self.norm is not None and self.norm.reads == "rank"):
            return "rank"
        return "score"

    def label(self) -> str:
        return self.method.name + (f", norm={self.norm.name!r}" if self.norm else ", norm=None")


def _spec(method: object, norm: object, k: object, weights: object, where: str) -> _Spec:
    """Check method, norm, k and weights (the data-free part) into one value."""
    if not isinstance(method, str) or method not in METHODS:
        raise _choice_error("method", where, METHODS, method)
    m = METHODS[method]
    if norm == "default":
        norm = m.default_norm
    if norm is not None and (not isinstance(norm, str) or norm not in NORMS):
        raise _choice_error("norm", where, NORMS, norm, ", None or 'default'")
    if m.reads == "rank" and norm is not None:
        msg = (
            f"The 'norm' parameter of {where} has no effect with method={method!r}, which reads only "
            f"each run's ranking (ranx's norm leaves its result as it is). Got {norm!r}. "
            "Hint: leave norm unset; to fuse normalised scores, use a score method such as 'combsum'."
        )
        raise InvalidParameterError(msg)
    if k is not None and "k" not in m.params:
        msg = (
            f"The 'k' parameter of {where} is RRF's (method='rrf'); method={method!r} takes none. Got {k!r}."
        )
        raise InvalidParameterError(msg)
    if weights is not None and "weights" not in m.params:
        msg = (
            f"The 'weights' parameter of {where} is wsum's (method='wsum'; ranx has no weighted {method}). "
            f"Got {weights!r}. Hint: method='wsum', weights=..."
        )
        raise InvalidParameterError(msg)
    if weights is None and "weights" in m.params:
        msg = (
            f"The 'weights' parameter of {where} must be given with method='wsum': a list of one number "
            "per run (in the runs' order) or a {system: number} dict."
        )
        raise InvalidParameterError(msg)
    if weights is not None:
        _weight_values(weights, where)
    return _Spec(m, NORMS[norm] if norm is not None else None, _check_k(k, where), weights)


def _check_k(k: object, where: str) -> float:
    if k is None:
        return float(DEFAULT_K)
    if isinstance(k, bool) or not isinstance(k, Real) or not math.isfinite(k) or k < 0:
        raise InvalidParameterError.for_value("k", where, "a finite number >= 0 (RRF's k, default 60)", k)
    return float(k)


def _weight_values(weights: object, where: str) -> list[tuple[Hashable | None, float]]:
    """``weights`` as (name or None, value) pairs; values must be finite numbers."""
    expected = "a list of one finite number per run, or a {system: number} dict"
    if isinstance(weights, Mapping):
        items: list[tuple[Hashable | None, object]] = list(weights.items())
    elif isinstance(weights, str | bytes) or not isinstance(weights, Iterable):
        raise InvalidParameterError.for_value("weights", where, expected, weights)
    else:
        items = [(None, w) for w in weights]
    for name, w in items:
        if isinstance(w, bool) or not isinstance(w, Real) or not math.isfinite(w):
            got = f"{w!r} for {name!r}" if name is not None else repr(w)
            msg = f"The 'weights' parameter of {where} must hold finite numbers. Got {got} in {weights!r}."
            raise InvalidParameterError(msg)
    return [(name, float(w)) for name, w in items]  # type: ignore[arg-type]


def _bind(spec: _Spec, systems: Sequence[Hashable], where: str) -> _Spec:
    """The weights in the systems' order, checked against their names and number."""
    if spec.weights is None:
        return spec
    pairs = _weight_values(spec.weights, where)
    if isinstance(spec.weights, Mapping):
        given = dict(pairs)
        unknown = [n for n in given if n not in systems]
        missing = [s for s in systems if s not in given]
        if unknown or missing:
            msg = f"The 'weights' parameter of {where} must name each system once: {list(systems)}."
            if missing:
                msg += f" Missing: {missing}."
            if unknown:
                near = closest(str(unknown[0]), [str(s) for s in systems])
                msg += f" Unknown: {unknown}" + (f" (did you mean {near[0]!r}?)." if near else ".")
            raise InvalidParameterError(msg)
        values = tuple(given[s] for s in systems)
    else:
        if len(pairs) != len(systems):
            msg = (
                f"The 'weights' parameter of {where} must hold one number per run: {len(systems)} "
                f"({', '.join(map(repr, systems))}, in that order). Got {len(pairs)}: {spec.weights!r}. "
                "Hint: a {system: weight} dict says which weight is whose."
            )
            raise InvalidParameterError(msg)
        values = tuple(v for _, v in pairs)
    return _Spec(spec.method, spec.norm, spec.k, spec.weights, values)


# --- the runs, stacked -----------------------------------------------------------------------
@dataclass(frozen=True)
class _Inputs:
    """The runs as one lazy stacked frame of the columns the fusion reads (schemas checked)."""

    frame: pl.LazyFrame  # query, doc, _SYS (the system's index), _SCORE or _KEY/_CHECK
    systems: tuple[str, ...]  # in input order
    origin: Origin
    opts: Options  # the column names (the first run's, after detection)
    id_dtypes: tuple[pl.DataType, pl.DataType]

    @property
    def query(self) -> str:
        return self.opts.query_col

    @property
    def doc(self) -> str:
        return self.opts.doc_col

    @property
    def score_out(self) -> str:
        return self.opts.score_col

    @property
    def rank_out(self) -> str:
        return self.opts.rank_col or DEFAULT_RANK

    def schema(self) -> pl.Schema:
        """The fused run's schema."""
        q, d = self.id_dtypes
        return pl.Schema(
            [(self.query, q), (self.doc, d), (self.score_out, pl.Float64), (self.rank_out, pl.Int64)]
        )


def _id(schema: pl.Schema, col: str) -> pl.Expr:
    dtype = schema[col]
    categorical = dtype == pl.Categorical or isinstance(dtype, pl.Enum)
    return pl.col(col).cast(pl.String) if categorical else pl.col(col)


def _read_columns(
    lf: pl.LazyFrame, opts: Options, spec: _Spec, *, run: str, where: str, tag: pl.Expr
) -> tuple[Options, pl.LazyFrame]:
    """One run's columns as the fusion reads them, and ``tag`` (its system); the query and
    doc keep their names (the first run's are the output's)."""
    schema = lf.collect_schema()
    o = opts.detect(list(schema), where)
    try:
        cols = resolve_run(
            schema, query_col=o.query_col, doc_col=o.doc_col, rank_col=o.rank_col, score_col=o.score_col,
            relevance_col=None, by=(), need_relevance=False, order_rule=o.order,
        )  # fmt: skip
    except (ColumnNotFoundError, InvalidDataError) as exc:
        msg = f"{run}: {exc}"
        raise type(exc)(msg) from exc
    out = [_id(schema, o.query_col), _id(schema, o.doc_col), tag]
    if spec.reads == "score":
        if o.score_col not in schema or not schema[o.score_col].is_numeric():
            raise _needs_scores(spec, run, o.score_col, schema)
        out.append(pl.col(o.score_col).cast(pl.Float64).alias(_SCORE))
    else:
        key = pl.col(cols.order_col).cast(pl.Float64)
        out.append((key if cols.order == "rank" else -key).alias(_KEY))  # ascending: the ranking
        check = pl.col(cols.check_score).cast(pl.Float64) if cols.check_score else pl.lit(None, pl.Float64)
        out.append(check.alias(_CHECK))
    return o, lf.select(out)


def _needs_scores(spec: _Spec, run: str, score_col: str, schema: pl.Schema) -> IrFrameError:
    """The error for a run without a numeric score, when the method reads the scores."""
    if score_col in schema:
        msg = (
            f"{run}: the score column {score_col!r} must be numeric; it has dtype {schema[score_col]}. "
            f"Hint: cast it, e.g. pl.col({score_col!r}).cast(pl.Float64)."
        )
        return InvalidDataError(msg)
    msg = (
        f"{run}: method {spec.label()} reads the runs' scores, and this run has no score column "
        f"{score_col!r} (columns: {list(schema)}). Hint: rrf and borda, or norm='rank' with any "
        "method, need only the ranks; or name the score column with score_col=..."
    )
    return ColumnNotFoundError(msg)


def _id_dtypes(frame: pl.LazyFrame, o: Options) -> tuple[pl.DataType, pl.DataType]:
    schema = frame.collect_schema()
    return schema[o.query_col], schema[o.doc_col]


def _check_like(first: tuple[str, Options, pl.LazyFrame], other: tuple[str, Options, pl.LazyFrame]) -> None:
    """Two runs must name their ids alike and type them alike (str with str, int with int)."""
    (n1, o1, f1), (n2, o2, f2) = first, other
    if (o1.query_col, o1.doc_col) != (o2.query_col, o2.doc_col):
        msg = (
            f"The runs name their ids differently: {n1!r} has ({o1.query_col!r}, {o1.doc_col!r}), "
            f"{n2!r} has ({o2.query_col!r}, {o2.doc_col!r}). Hint: rename the columns of one, or "
            "pass query_col=... and doc_col=..."
        )
        raise InvalidParameterError(msg)
    for col, t1, t2 in zip((o1.query_col, o1.doc_col), _id_dtypes(f1, o1), _id_dtypes(f2, o2), strict=True):
        kinds = {"int" if t.is_integer() else str(t) for t in (t1, t2)}
        if len(kinds) > 1:
            msg = (
                f"The id column {col!r} has dtype {t1} in run {n1!r} and {t2} in run {n2!r}: the same "
                f"document would not match. Hint: cast one, e.g. pl.col({col!r}).cast(pl.String)."
            )
            raise InvalidDataError(msg)


def _stack(runs: object, opts: Options, spec: _Spec, system_col: str, where: str) -> _Inputs:
    """The runs as one lazy frame of the columns the fusion reads; schemas only (the names,
    kinds and number of the runs by THE rules of :func:`irframe._input.runs.stack_runs`).
    Each run of a dict is read on its own (one may rank by rank, another by score)."""
    stack = stack_runs(runs, system_col, where, at_least=2)
    if not isinstance(runs, Mapping):  # (the caller's system column name in messages)
        index = range(len(stack.systems))
        tag = pl.col(system_col).replace_strict(stack.systems, index, return_dtype=pl.UInt32).alias(_SYS)
        lf = stack.lf.rename({SYSTEM: system_col})
        o, frame = _read_columns(lf, opts, spec, run="the runs", where=where, tag=tag)
        return _Inputs(frame, tuple(stack.systems), stack.origin, o, _id_dtypes(frame, o))
    read = []
    for i, name in enumerate(stack.systems):
        lf, _ = to_lazy(runs[name], f"run {name!r}")
        o, frame = _read_columns(
            lf, opts, spec, run=f"run {name!r}", where=where, tag=pl.lit(i, pl.UInt32).alias(_SYS)
        )
        read.append((name, o, frame))
    for other in read[1:]:
        _check_like(read[0], other)
    o = read[0][1]
    frame = pl.concat([r[2] for r in read], how="vertical_relaxed")  # (one set of columns: read above)
    return _Inputs(frame, tuple(stack.systems), stack.origin, o, _id_dtypes(frame, o))


# --- reading and checking the rows ----------------------------------------------------------
def _examples(df: pl.DataFrame, cols: Sequence[str], limit: int = 3) -> str:
    rows = df.select(cols).head(limit).rows()
    return ", ".join(repr(r[0] if len(r) == 1 else r) for r in rows) + (", ..." if df.height > limit else "")


def _collected(inp: _Inputs, spec: _Spec, where: str) -> tuple[pl.DataFrame, tuple[Hashable, ...]]:
    """The stacked rows (checked), with each row's 0-based position in its run's ranking of
    the query when the fusion reads ranks; and the systems in input order."""
    df = inp.frame.collect()
    systems = inp.systems
    _check_rows(df, inp, spec, systems)
    if spec.reads == "rank":
        by, descending = ranking_order("rank", _KEY, inp.doc)  # _KEY: rank, or -score
        df = df.sort(by, descending=descending).with_columns(
            pl.int_range(pl.len(), dtype=pl.UInt32).over(_SYS, inp.query).alias(_POS)
        )
    return df, systems


def _check_rows(df: pl.DataFrame, inp: _Inputs, spec: _Spec, systems: Sequence[Hashable]) -> None:
    """Null ids, duplicate documents, unusable scores or ranks, rank and score disagreeing."""
    q, d = inp.query, inp.doc

    def run_of(bad: pl.DataFrame) -> str:
        return f"run {systems[int(bad.item(0, _SYS))]!r}"

    bad = df.filter(pl.col(q).is_null() | pl.col(d).is_null())
    if bad.height:
        msg = f"{run_of(bad)} has {bad.height} rows with a null {q!r} or {d!r}. Hint: drop them first."
        raise InvalidDataError(msg)
    dups = df.group_by(_SYS, q, d).len().filter(pl.col("len") > 1).sort(_SYS, q, d)
    if dups.height:
        msg = (
            f"{run_of(dups)} has documents twice in one query's ranking: {dups.height} ({q}, {d}) pairs, "
            f"e.g. {_examples(dups, [q, d])}. Each run may rank a document once per query. Hint: keep "
            f"the best-ranked row, e.g. run.sort(...).unique([{q!r}, {d!r}], keep='first')."
        )
        raise DuplicateRowsError(msg)
    col = _SCORE if spec.reads == "score" else _KEY
    v = pl.col(col)
    bad = df.filter(v.is_null() | v.is_nan() | v.is_infinite())
    if bad.height:
        what = (
            f"the scores method {spec.label()} reads" if spec.reads == "score"
            else "the rank (or score) values that order the run"
        )  # fmt: skip
        msg = (
            f"{run_of(bad)} has {bad.height} null, NaN or infinite values in {what}, e.g. for "
            f"({q}, {d}) {_examples(bad, [q, d])}. Hint: drop or fill those rows first."
        )
        raise InvalidDataError(msg)
    if spec.reads == "rank":
        _check_rank_and_score(df, q, run_of)


def _check_rank_and_score(df: pl.DataFrame, q: str, run_of: Callable[[pl.DataFrame], str]) -> None:
    """order="auto" with a rank and a score: within a query the score must not rise along the ranks."""
    if df.get_column(_CHECK).null_count() == df.height:
        return  # no run has both
    rises = pl.col(_CHECK).sort_by([_KEY, _CHECK], descending=[False, True]).diff() > 0
    bad = df.group_by(_SYS, q).agg(rises.any().alias("bad")).filter(pl.col("bad")).sort(_SYS, q)
    if bad.height:
        msg = (
            f"{run_of(bad)}: its rank and score columns disagree in {bad.height} queries, e.g. "
            f"{_examples(bad, [q])} (a reranked frame that kept its first-stage ranks?). Hint: say "
            "which one orders the documents: order='rank' or order='score'."
        )
        raise InvalidDataError(msg)


# --- fusing ---------------------------------------------------------------------------------
def _fused(df: pl.DataFrame, inp: _Inputs, spec: _Spec, n_systems: int) -> pl.LazyFrame:
    """The fused run of the checked rows: per (query, doc) the method's score; ranked."""
    q, d, score = inp.query, inp.doc, inp.score_out
    ctx = _Ctx(q, d, n_systems, spec.k, spec.bound)
    m = KERNELS[spec.method.name]
    if spec.norm is not None:
        base = NORM_EXPRS[spec.norm.name](ctx)
    else:
        base = _score() if spec.method.reads == "score" else pl.lit(None)
    lf = df.lazy().with_columns(m.row(ctx, base).alias("__fuse_v"))
    aggs = [m.agg(ctx, pl.col("__fuse_v")).alias(score)]
    if m.per_query is not None:
        lf = lf.with_columns(m.per_query(ctx).alias("__fuse_q"))
        aggs.append(pl.col("__fuse_q").first())
    out = lf.group_by(q, d).agg(aggs)
    if m.per_query is not None:
        out = out.with_columns(pl.col(score) + pl.col("__fuse_q")).drop("__fuse_q")
    by, descending = ranking_order("score", score, d)
    out = out.sort(by, descending=descending).with_columns(
        pl.int_range(1, pl.len() + 1, dtype=pl.Int64).over(q).alias(inp.rank_out)
    )
    # the queries in natural order: sorted once each (the text keys are costly), then by number
    queries = out.select(q).unique().sort(natural_order(inp.schema(), [q])).with_row_index("__fuse_qi")
    return out.join(queries, on=q).sort("__fuse_qi", inp.rank_out).drop("__fuse_qi")


def _fuse_rows(inp: _Inputs, spec: _Spec, where: str) -> pl.DataFrame:
    df, systems = _collected(inp, spec, where)
    return _fused(df, inp, _bind(spec, systems, where), len(systems)).collect(engine=ENGINE)


def fuse_runs(
    runs: Any, opts: Options, *, method: object, norm: object, weights: object, k: object, system_col: str
) -> Any:
    """:func:`irframe.fusion.fuse` after its options are checked."""
    where = "fuse"
    spec = _spec(method, norm, k, weights, where)
    inp = _stack(runs, opts, spec, system_col, where)
    _bind(spec, inp.systems, where)  # the weights' names and number, before any row is read
    if inp.origin.kind == "polars-lazy":
        return pl.defer(lambda: _fuse_rows(inp, spec, where), schema=inp.schema())
    return from_lazy(_fuse_rows(inp, spec, where), inp.origin)


# --- tuning ---------------------------------------------------------------------------------
Setting = tuple[str, dict[str, Any], _Spec]  # (label, fuse keyword arguments, bound spec)


def _weight_grid(grid: object, systems: Sequence[Hashable], where: str) -> list[Any]:
    if grid is not None:
        return _as_list(grid, "grid", where, "weights (lists or {system: weight} dicts)")
    if len(systems) > MAX_DEFAULT_GRID_RUNS:
        msg = (
            f"The 'grid' parameter of {where} must be given for more than {MAX_DEFAULT_GRID_RUNS} runs "
            f"(the default, weights in steps of 0.1 summing to 1, has too many settings for {len(systems)})."
        )
        raise InvalidParameterError(msg)
    steps = itertools.product(range(WEIGHT_STEPS + 1), repeat=len(systems))
    return [[s / WEIGHT_STEPS for s in c] for c in steps if sum(c) == WEIGHT_STEPS]  # integers: exact


def _as_list(value: object, name: str, where: str, what: str) -> list[Any]:
    if isinstance(value, str | bytes | Mapping) or not isinstance(value, Iterable):
        raise InvalidParameterError.for_value(name, where, f"a non-empty list of {what}", value)
    items = list(value)
    if not items:
        raise InvalidParameterError.for_value(name, where, f"a non-empty list of {what}", value)
    return items


def _settings(
    method: str, base: _Spec, grid: object, systems: Sequence[Hashable], where: str
) -> list[Setting]:
    """(label, fuse keyword arguments, bound spec) of every setting of the grid."""
    out = []
    if method == "wsum":
        for w in _weight_grid(grid, systems, where):
            spec = _bind(_Spec(base.method, base.norm, base.k, w), systems, where)
            label = " ".join(f"{s}={v:g}" for s, v in zip(systems, spec.bound, strict=True))
            out.append((label, {"weights": dict(zip(systems, spec.bound, strict=True))}, spec))
    else:
        for k in _as_list(DEFAULT_RRF_GRID if grid is None else grid, "grid", where, "RRF k values"):
            value = _check_k(k, where)
            params: dict[str, Any] = {"k": value}
            out.append((f"k={value:g}", params, _Spec(base.method, base.norm, value, None)))
    return out


def _split(queries: list[Any], holdout: object, seed: object, where: str) -> set[Any]:
    """The held-out queries: a seeded fraction of ``queries`` (sorted first), or the ids given."""
    import numpy as np

    if holdout is None:
        return set()
    if isinstance(seed, bool) or not isinstance(seed, Integral) or seed < 0:
        raise InvalidParameterError.for_value("seed", where, "an int >= 0 (the split is reproducible)", seed)
    if isinstance(holdout, Real) and not isinstance(holdout, bool):
        if not 0 < float(holdout) < 1:
            raise InvalidParameterError.for_value(
                "holdout", where, "a fraction in (0, 1) or query ids", holdout
            )
        if len(queries) < 2:
            raise InvalidParameterError.for_value("holdout", where, "None with fewer than 2 queries", holdout)
        n = min(max(round(float(holdout) * len(queries)), 1), len(queries) - 1)
        order = np.random.default_rng(int(seed)).permutation(len(queries))
        return {sorted(queries)[i] for i in order[:n]}
    ids = set(_as_list(holdout, "holdout", where, "query ids (or a fraction)"))
    unknown = sorted(ids - set(queries), key=str)
    if unknown or len(ids) >= len(queries):
        got = f"{len(ids)} ids" + (
            f", {len(unknown)} not judged queries (e.g. {unknown[:3]})" if unknown else ""
        )
        raise InvalidParameterError.for_value(
            "holdout", where, "judged query ids, leaving some to tune on", got
        )
    return ids


def _per_query(
    frame: pl.DataFrame, qrels: Any, measure: str, inp: _Inputs, *, by: str, missing: Missing, **cols: Any
) -> pl.DataFrame:
    """(by, query, value) of ``measure`` per query, judged queries only (irframe.evaluate)."""
    from irframe.functions import evaluate

    q, d, r = inp.opts.qrels_columns
    per = evaluate(
        frame, [measure], qrels, by=by, per_query=True, missing=missing, query_col=inp.query, doc_col=inp.doc,
        qrels_query_col=q, qrels_doc_col=d, qrels_relevance_col=r, **cols,
    )  # fmt: skip
    value = next(c for c in per.columns if c not in (by, inp.query))
    return per.select(by, inp.query, pl.col(value).alias("__fuse_value")).drop_nulls("__fuse_value")


def _input_runs(df: pl.DataFrame, inp: _Inputs, spec: _Spec) -> tuple[pl.DataFrame, dict[str, Any]]:
    """The input runs as one frame evaluate reads the same way fuse read them."""
    if spec.reads == "rank":
        frame = df.select(inp.query, inp.doc, _SYS, (pl.col(_POS) + 1).alias("__fuse_rank"))
        return frame, {"rank_col": "__fuse_rank", "order": "rank"}
    return df.select(inp.query, inp.doc, _SYS, pl.col(_SCORE)), {"score_col": _SCORE, "order": "score"}


def _scored(per: pl.DataFrame, key: str, held: set[Any], q: str) -> pl.DataFrame:
    """(key, tune mean, held-out mean, tuning queries) from the per-query values."""
    is_held = pl.col(q).is_in(list(held)) if held else pl.lit(False)
    v = pl.col("__fuse_value")
    return per.group_by(key, maintain_order=True).agg(
        v.filter(~is_held).mean().alias("tune"), v.filter(is_held).mean().alias("heldout"),
        v.filter(~is_held).len().cast(pl.Int64).alias("n_queries"),
    )  # fmt: skip


def _table(
    per: pl.DataFrame, settings: Sequence[Setting], held: set[Any], *, q: str, measure: str
) -> pl.DataFrame:
    """The grid's table, best first: mean, paired delta to the best and its standard error."""
    tune = per.filter(~pl.col(q).is_in(list(held))) if held else per
    means = _scored(per, _SETTING, held, q).sort(_SETTING)
    best = int(means.sort("tune", descending=True, maintain_order=True).item(0, _SETTING))
    ref = tune.filter(pl.col(_SETTING) == best).select(q, pl.col("__fuse_value").alias("__fuse_best"))
    delta = pl.col("__fuse_value") - pl.col("__fuse_best")
    paired = tune.join(ref, on=q, how="left").group_by(_SETTING).agg(
        delta.mean().alias("delta"), (delta.std(ddof=1) / pl.len().sqrt()).fill_null(0.0).alias("se_delta")
    )  # fmt: skip
    if settings[0][2].method.name == "wsum":
        param = pl.Series("weights", [list(s[2].bound) for s in settings], dtype=pl.List(pl.Float64))
    else:
        param = pl.Series("k", [s[2].k for s in settings], dtype=pl.Float64)
    labels = pl.DataFrame(
        [pl.Series(_SETTING, range(len(settings))), pl.Series("setting", [s[0] for s in settings]), param]
    )
    table = labels.join(means, on=_SETTING).join(paired, on=_SETTING)
    table = table.with_columns((pl.col("delta").abs() <= 2 * pl.col("se_delta") + 1e-12).alias("within_2se"))
    table = table.sort(["tune", _SETTING], descending=[True, False])
    return table.select(
        _SETTING, "setting", param.name, pl.col("tune").alias(measure), "heldout", "delta", "se_delta",
        "within_2se", "n_queries",
    )  # fmt: skip


def _note(t: pl.DataFrame, n_tune: int, n_held: int, seed: object) -> str:
    """The words that go with the numbers: how optimistic the tuned score is."""
    n, close = t.height, int(t.get_column("within_2se").sum())
    parts = [
        f"The tuned score is the best of {n} settings on the {n_tune} queries it was chosen on: "
        "an optimistic estimate of the setting's score on new queries."
    ]
    if close > 1:
        parts.append(
            f"{close} of the {n} settings are within two standard errors of the best (paired per "
            "query): these queries do not tell them apart."
        )
    if n_tune < SMALL_SET:
        parts.append(
            f"With fewer than {SMALL_SET} tuning queries, expect another sample to choose otherwise."
        )
    if n_held:
        parts.append(f"The held-out score ({n_held} queries not tuned on, seed {seed}) is the one to report.")
    else:
        parts.append(
            "No query was held out: pass holdout=0.3 (a fraction) or a list of query ids to score "
            "the chosen setting on queries it was not tuned on."
        )
    return " ".join(parts)


def tune(
    runs: Any, qrels: Any, measure: str, opts: Options, *, method: str, norm: object, grid: object,
    holdout: object, seed: object, system_col: str, missing: Missing,
) -> FusionTuning:  # fmt: skip
    """:func:`irframe.fusion.tune_fusion` after its options are checked."""
    where = "tune_fusion"
    base = _spec(method, norm, None, [] if method == "wsum" else None, where)
    inp = _stack(runs, opts, base, system_col, where)
    df, systems = _collected(inp, base, where)
    settings = _settings(method, base, grid, systems, where)
    # each setting's plan collected on its own (faster than one concatenated query:
    # benchmarks/results/decisions.md, fusion-engine)
    fused = pl.concat(
        _fused(df, inp, s[2], len(systems)).with_columns(pl.lit(i).alias(_SETTING)).collect(engine=ENGINE)
        for i, s in enumerate(settings)
    )
    out_cols = {"score_col": inp.score_out, "rank_col": inp.rank_out, "order": "rank"}
    per = _per_query(fused, qrels, measure, inp, by=_SETTING, missing=missing, **out_cols)
    held = _split(per.get_column(inp.query).unique().to_list(), holdout, seed, where)
    table = _table(per, settings, held, q=inp.query, measure=measure)
    frame, cols = _input_runs(df, inp, base)
    singles = _scored(
        _per_query(frame, qrels, measure, inp, by=_SYS, missing=missing, **cols), _SYS, held, inp.query
    )
    singles = singles.sort(_SYS).select(pl.Series("system", [str(s) for s in systems]), "tune", "heldout")
    heldout, n_tune = table.item(0, "heldout"), int(table.item(0, "n_queries"))
    best = settings[int(table.item(0, _SETTING))][1]
    return FusionTuning(
        table=from_lazy(table.drop(_SETTING, "heldout"), inp.origin), best=best,
        method=method, norm=base.norm.name if base.norm else None, measure=measure,
        tuned=float(table.item(0, measure)), heldout=None if heldout is None else float(heldout),
        inputs=from_lazy(singles, inp.origin), n_tune=n_tune, n_heldout=len(held),
        n_within_2se=int(table.get_column("within_2se").sum()), note=_note(table, n_tune, len(held), seed),
    )  # fmt: skip
