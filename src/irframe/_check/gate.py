"""The golden-set loop: snapshot a baseline, check every change against it, read what moved.

:func:`snapshot` stores a run's per-query values with fingerprints of the judgments (per
query), the queries table and the run, in a JSON file meant to be committed.
:func:`check` evaluates a candidate run against the same judgments, compares it with a
baseline (a run or a snapshot) per measure, overall and per query segment, with a
paired two-sided test and a multiple-testing correction (the statistics of
:func:`irframe.compare`), and decides:

* ``fail_on="significant"`` (default): a **regression** is a drop larger than
  ``max_drop`` (absolute, default 0) whose corrected p-value is below ``alpha``;
* ``fail_on="any-drop"``: any drop larger than ``max_drop`` is a regression.

Every row of the comparison table is gated: the overall rows and, with ``by``, the
rows of each segment.  The correction family is the whole table (measures x (overall
+ segments)).  The table is :func:`irframe.compare`'s for the pair {baseline, candidate}
(:mod:`irframe._check.table`): each run is evaluated once, as the caller gave it, and a
snapshot's stored values enter compare's pairing as an evaluated run's would; queries
are paired on those with a value on both sides, judged queries absent from a run counting
0 under ``missing="zero"``; per-query deltas under 1e-12 count as ties.  As for
:func:`irframe.moved`, a baseline and a candidate that share no judged query are refused
when the report lists top documents (``n_moved`` and ``docs_top`` > 0).

When the baseline is a snapshot and the judgments changed since it was taken (queries
added, removed or regraded), :func:`check` refuses with
:class:`~irframe.exceptions.JudgmentsChangedError` naming them, unless
``allow_changed_qrels=True``: then only the unchanged queries are compared and the
result says how many were left out.  A run baseline is simply evaluated again.

Examples
--------
>>> import irframe
>>> from irframe.datasets import golden
>>> g = golden()
>>> bm25 = g.runs.filter(system="bm25").drop("system")
>>> hybrid = g.runs.filter(system="hybrid").drop("system")
>>> base = irframe.snapshot(bm25, g.qrels, ["nDCG@10", "R@100"])
>>> result = irframe.check(hybrid, g.qrels, baseline=base)
>>> result.passed
True
>>> print(result.report().splitlines()[0])
PASS: no regression on 2 measures (nDCG@10, R@100) over 40 queries.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast

import polars as pl

from irframe._check import table as gate_table
from irframe._check.baseline import baseline_bytes
from irframe._check.result import CheckResult, JudgmentChanges, _Gate
from irframe._check.snapshot import (
    Snapshot,
    SnapshotSource,
    combined,
    is_snapshot_file,
    qrels_fingerprints,
    queries_fingerprint,
    run_fingerprint,
)
from irframe._check.snapshot_file import refuse_no_values
from irframe._compare import LONG, Settings, check_missing
from irframe._input.by_exprs import has_expressions, protected_columns, with_by_columns
from irframe._input.options import DEFAULT_RANK, Missing, Options
from irframe._log import INFO
from irframe._log import check as log
from irframe.exceptions import ColumnNotFoundError, InvalidParameterError, JudgmentsChangedError
from irframe.io._atomic import refuse_input_as_output
from irframe.progress import Progress, check_progress, reporter

if TYPE_CHECKING:
    from irframe._input.frames import Origin
    from irframe.measures._parse import Parsed

__all__ = [
    "DEFAULT_MEASURES",
    "CheckResult",
    "JudgmentChanges",
    "Snapshot",
    "check",
    "read_snapshot",
    "snapshot",
]

DEFAULT_MEASURES: tuple[str, ...] = ("nDCG@10", "RR", "R@100")
_Q = "query_id"

MeasureLike = str | Any  # a measure string or an irframe Measure
Frame = pl.DataFrame | pl.LazyFrame


# --- inputs -------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Run:
    """One run without a system column, with its name and origin: a polars frame as the
    caller gave it (a pandas or Arrow run converted once), so the engine's in-memory path
    evaluates an in-memory run."""

    frame: Frame
    name: str
    origin: Origin

    @property
    def lf(self) -> pl.LazyFrame:
        return self.frame.lazy()


def _options(where: str, column_kwargs: Mapping[str, Any], **rules: Any) -> Options:
    """The one options value of a call: unknown keywords raise with a did-you-mean, and
    ``columns=`` (a preset or a mapping) becomes explicit column names."""
    return dataclasses.replace(Options.build(where, **rules, **column_kwargs), columns=None)


def _detected(opts: Options, run: Frame, qrels: Frame, where: str) -> Options:
    """evaluate's column detection (a PyTerrier or ranx frame given without ``columns=``),
    once for the call, from the run and the qrels as given."""
    schema, qschema = run.collect_schema().names(), qrels.collect_schema().names()
    return dataclasses.replace(opts.detect(schema, where, qrels_schema=qschema), columns=None)


def _read_path(path: str | os.PathLike[str], kind: str) -> pl.DataFrame:
    from irframe.io.sniff import load, load_queries

    if kind == "queries":
        return load_queries(str(path), {})
    return load(str(path), "qrels" if kind == "qrels" else "run", {}, None)[0]


def _frame(obj: Any, kind: str) -> tuple[Frame, Origin, str]:
    """A frame or a file path as a polars frame (converted at most once), its origin and a
    display name; a polars frame is kept as it is."""
    from irframe._input.frames import Origin, to_lazy

    if isinstance(obj, str | os.PathLike):
        from irframe.io._source import strip_suffixes

        return _read_path(obj, kind), Origin("polars"), strip_suffixes(str(obj))
    lf, origin = to_lazy(obj, role=kind)
    if isinstance(obj, pl.DataFrame | pl.LazyFrame):
        return obj, origin, kind
    return lf.collect(), origin, kind


def _as_run(obj: Any, kind: str) -> _Run:
    """One system's run; a ``system`` column with one value names it."""
    frame, origin, name = _frame(obj, kind)
    if "system" in frame.collect_schema():
        systems = frame.lazy().select(pl.col("system").unique()).collect()["system"].to_list()
        if len(systems) > 1:
            shown = sorted(str(s) for s in systems)[:5]
            msg = (
                f"The {kind} run holds {len(systems)} systems ({', '.join(shown)}); check compares "
                f"one run with a baseline. Hint: select one system, e.g. run.filter(system={shown[0]!r})."
            )
            raise InvalidParameterError(msg)
        if systems and systems[0] is not None and not isinstance(obj, str | os.PathLike):
            name = str(systems[0])
        frame = frame.drop("system")
    return _Run(frame, name, origin)


def _labels(measures: MeasureLike | Iterable[MeasureLike] | None, default: Sequence[str]) -> list[str]:
    """Canonical measure strings, in order, without repeats."""
    from irframe.measures import parse_measure

    if measures is None:
        items: list[Any] = list(default)
    elif isinstance(measures, str) or not isinstance(measures, Iterable):
        items = [measures]
    else:
        items = list(measures)
    return list(dict.fromkeys(str(parse_measure(m)) for m in items))


def _per_query(
    run: _Run, qrels: Frame | None, labels: Sequence[str], opts: Options, parsed: Parsed | None = None
) -> pl.DataFrame:
    """``query_id`` (string) and one column per measure label: one pass of the engine
    (``parsed``: the labels parsed once per call; None: parsed here), or (``qrels`` None)
    the run's per-query values as they are, checked as compare checks them."""
    from irframe import _engine as engine
    from irframe._engine import compose

    if qrels is None:
        from irframe._compare.values import values_long
        from irframe._input.keys import SYSTEM

        values_long(run.lf.with_columns(pl.lit(run.name).alias(SYSTEM)), labels, [], opts.query_col, "check")
        return (
            run.frame.lazy()
            .select(
                pl.col(opts.query_col).cast(pl.String).alias(_Q),
                *(pl.col(m).cast(pl.Float64) for m in labels),
            )
            .collect()
        )
    # (a step of check's or snapshot's own progress: no bar of its own)
    plan, table, _ = compose.evaluate(run.frame, parsed or list(labels), qrels, opts, progress=False)
    out = engine.per_query_table(plan, table)
    df = out.collect() if isinstance(out, pl.LazyFrame) else out
    return df.select(pl.col(opts.query_col).cast(pl.String).alias(_Q), *labels)


def _qrels_hashes(
    qrels: pl.LazyFrame, opts: Options, *, legacy: bool = False, against_snapshot: bool = False
) -> dict[str, str]:
    schema = qrels.collect_schema()
    names = dict(zip(("qrels_query", "qrels_doc", "qrels_relevance"), opts.qrels_columns, strict=True))
    for role, key in (("query_id", "qrels_query"), ("doc_id", "qrels_doc"), ("relevance", "qrels_relevance")):
        if names[key] not in schema:
            raise ColumnNotFoundError.from_missing(
                role=role, missing=names[key], available=list(schema), frame="qrels", parameter=f"{key}_col"
            )
    q, d, _ = opts.qrels_columns
    _refuse_duplicated(qrels, (q, d), against_snapshot=against_snapshot)
    return qrels_fingerprints(qrels, *opts.qrels_columns, legacy=legacy)


def _refuse_duplicated(qrels: pl.LazyFrame, ids: tuple[str, str], *, against_snapshot: bool) -> None:
    """A (query, document) judged twice is refused before any fingerprint is compared: a
    snapshot check would otherwise see its query as regraded (it is duplicated)."""
    from irframe._engine.checks import refuse_duplicate_judgments

    note = " (duplicated lines: compared with the snapshot, not a regrading)" if against_snapshot else ""
    refuse_duplicate_judgments(qrels, *ids, note)


def _queries_frame(queries: Any, opts: Options) -> pl.DataFrame | None:
    """The queries table as polars with a string ``query_id`` column."""
    if queries is None:
        return None
    lf = _frame(queries, "queries")[0].lazy()
    qcol = opts.query_col
    names = lf.collect_schema().names()
    if qcol not in names:
        raise ColumnNotFoundError.from_missing(
            role="query_id", missing=qcol, available=names, frame="queries", parameter="query_col"
        )
    return lf.with_columns(pl.col(qcol).cast(pl.String)).rename({qcol: _Q} if qcol != _Q else {}).collect()


# --- snapshot -----------------------------------------------------------------------------
def _version() -> str:
    from irframe import __version__

    return __version__


def snapshot(
    run: Any,
    qrels: Any,
    measures: MeasureLike | Iterable[MeasureLike] = DEFAULT_MEASURES,
    *,
    queries: Any = None,
    path: str | os.PathLike[str] | None = None,
    missing: Missing = "zero",
    duplicates: Literal["error", "first"] = "error",
    progress: Progress = None,
    **column_kwargs: Any,
) -> Snapshot:
    """Store a run's per-query values and the fingerprints of what they were computed on.

    Parameters
    ----------
    run : frame or path
        One system's run (pandas or polars frame, or a TREC/table file path).
    qrels : frame or path
        The judgments.
    measures : str, Measure or list, default ("nDCG@10", "RR", "R@100")
        Stored under their canonical strings (``str(parse_measure(m))``).
    queries : frame or path, optional
        Queries table (``query_id`` and attributes such as ``text`` or ``segment``);
        only its fingerprint is stored.
    path : str or path-like, optional
        Also write the snapshot file there (see :meth:`Snapshot.to_json`).
    missing, duplicates, **column_kwargs
        As for :func:`irframe.evaluate`.
    progress : bool or callable, optional
        Report the steps (inputs read, run evaluated, fingerprints, file written): as for
        :func:`irframe.evaluate` (default: a bar on a terminal when it takes a while).

    Returns
    -------
    Snapshot

    Examples
    --------
    >>> from irframe.datasets import golden
    >>> g = golden()
    >>> snap = snapshot(g.runs.filter(system="bm25"), g.qrels, ["ndcg_cut_10", "RR"])
    >>> snap.measures
    ('nDCG(gain=linear)@10', 'RR')
    >>> print(snap.to_json().splitlines()[7])
        "q01": {"qrels": "...", "nDCG(gain=linear)@10": 0.49588..., "RR": 0.3333...},
    """
    opts = _options("snapshot", column_kwargs, missing=missing, duplicates=duplicates)
    labels = _labels(measures, DEFAULT_MEASURES)
    if path is not None:
        refuse_input_as_output(path, {"run": run, "qrels": qrels, "queries": queries}, "snapshot")
    with reporter(check_progress(progress, "snapshot"), 3 + (path is not None), "snapshot") as step:
        the_run = _as_run(run, "run")
        qrels_frame = _frame(qrels, "qrels")[0]
        opts = _detected(opts, the_run.frame, qrels_frame, "snapshot")
        step(f"read the run {the_run.name!r} and the qrels")
        values = _per_query(the_run, qrels_frame, labels, opts)
        refuse_no_values(values, labels, "snapshot")
        step(f"evaluated {values.height} queries")
        per_query = _qrels_hashes(qrels_frame.lazy(), opts)
        run_cols = [opts.query_col, opts.doc_col, opts.rank_col or DEFAULT_RANK, opts.score_col]
        fingerprints = {
            "qrels": combined(per_query),
            "queries": queries_fingerprint(_queries_frame(queries, opts)),
            "run": run_fingerprint(the_run.lf, run_cols),
        }
        step("fingerprinted the qrels, the queries and the run")
        snap = Snapshot(measures=tuple(labels), values=values, qrels=per_query, fingerprints=fingerprints,
                        missing=missing, irframe_version=_version())  # fmt: skip
        if path is not None:
            snap.write(path)
            step(f"wrote {path}")
    log.info("snapshot of %r: %d queries x %d measure(s)%s", the_run.name, values.height, len(labels),
             "" if path is None else f", written to {path}")  # fmt: skip
    return snap


def read_snapshot(path: SnapshotSource) -> Snapshot:
    """Read a snapshot file written by :func:`snapshot` or ``irframe snapshot``: a path (a
    pipe such as ``<(cat base.json)`` too) or a binary stream, checked against the schema
    (:mod:`irframe._check.snapshot_file`: a tampered file is an InvalidDataError naming the
    key, query or measure).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from irframe.datasets import golden
    >>> g = golden()
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "bm25.snapshot.json"
    >>> _ = snapshot(g.runs.filter(system="bm25"), g.qrels, ["RR"], path=f)
    >>> read_snapshot(f).values.shape
    (40, 2)
    """
    return Snapshot.read(path)


# --- judgments that changed ---------------------------------------------------------------
def _judgment_changes(snap: Snapshot, current: Mapping[str, str], allow: bool) -> JudgmentChanges:
    changes = JudgmentChanges.between(snap.qrels, current)
    if changes and not allow:
        msg = (
            f"The judgments changed since the snapshot {snap.name} was taken: "
            f"{changes.describe()}. Hint: take a new snapshot of the baseline, or pass "
            "allow_changed_qrels=True (--allow-changed-qrels) to compare on the unchanged queries only."
        )
        raise JudgmentsChangedError(msg)
    return changes


# --- check --------------------------------------------------------------------------------
def _baseline(obj: Any) -> Snapshot | _Run:
    if isinstance(obj, Snapshot):
        return obj
    if isinstance(obj, str | os.PathLike):
        if not Path(obj).exists():
            msg = f"the baseline file {str(obj)!r} does not exist"
            raise FileNotFoundError(msg)
        if is_snapshot_file(obj):
            return Snapshot.read(obj)
    read_once = baseline_bytes(obj)  # a pipe or a binary stream: its content sniffed, read once
    if isinstance(read_once, Snapshot):
        return read_once
    if read_once is not None:
        return dataclasses.replace(_as_run(read_once[0], "baseline"), name=read_once[1])
    if obj is None:
        msg = "check needs a baseline: a run, a snapshot or the path of either (baseline=...)."
        raise InvalidParameterError(msg)
    return _as_run(obj, "baseline")


def _inputs(  # noqa: PLR0917 (check's three inputs, what it asks, its options and extras)
    candidate: Any, qrels: Any, baseline: Any, asked: tuple[Any, str | None], opts: Options, extras: _Extras
) -> tuple[_Run, Frame | None, Snapshot | _Run, list[str], str, Options]:
    """The candidate, the qrels (None for per-query values), the baseline, the measures, the
    missing rule and the options.  Per-query values (:mod:`irframe._compare.values`: no
    document column, a column per measure) are compared as they are, with a baseline of
    per-query values and no qrels."""
    from irframe._compare.values import refuse_run_options, value_labels

    measures, missing = asked
    cand = _as_run(candidate, "candidate")
    schema = cand.frame.collect_schema()
    values = None if measures is None else value_labels(schema, measures, opts, "check")
    if values is None:
        qrels_frame = _frame(qrels, "qrels")[0]
        opts = _detected(opts, cand.frame, qrels_frame, "check")
        base = _baseline(baseline)
        return cand, qrels_frame, base, *_measures_and_missing(measures, missing, base), opts
    refuse_run_options("check", qrels=qrels, holes=extras.holes)
    base = _baseline(baseline)
    if isinstance(base, Snapshot) or value_labels(base.frame.collect_schema(), values, opts, "check") is None:
        msg = (
            "check reads the candidate as per-query values (no document column, a column per measure); the "
            "baseline must be per-query values too, with the same columns. Hint: pass the baseline's "
            "per-query values (a snapshot or a run is compared with a run)."
        )
        raise InvalidParameterError(msg)
    return cand, None, base, values, check_missing(missing or "zero", "check"), opts


def _measures_and_missing(measures: Any, missing: str | None, base: Snapshot | _Run) -> tuple[list[str], str]:
    if not isinstance(base, Snapshot):
        labels = _labels(measures, DEFAULT_MEASURES)
        rule = missing or "zero"
    else:
        labels = _labels(measures, base.measures)
        absent = [m for m in labels if m not in base.measures]
        if absent:
            msg = (
                f"The snapshot {base.name} has no values for {', '.join(absent)}; it has "
                f"{', '.join(base.measures)}. Hint: take a new snapshot with these measures."
            )
            raise InvalidParameterError(msg)
        if missing is not None and missing != base.missing:
            msg = (
                f"The snapshot {base.name} was taken with missing={base.missing!r}; the check asks "
                f"missing={missing!r}. Hint: use the snapshot's rule or take a new snapshot."
            )
            raise InvalidParameterError(msg)
        rule = base.missing
    return labels, check_missing(rule, "check")


def _snapshot_notes(
    base: Snapshot, current: Mapping[str, str], allow: bool, queries: pl.DataFrame | None
) -> tuple[JudgmentChanges, set[str] | None, list[str]]:
    """Judgment changes (refused unless allowed), the queries kept, and notes."""
    changes = _judgment_changes(base, current, allow)
    notes: list[str] = []
    keep = None
    if changes:
        keep = set(base.query_ids) - set(changes.queries)
        notes.append(
            f"{len(changes.queries)} queries left out because their judgments changed since the "
            f"snapshot: {changes.describe()}."
        )
    if base.irframe_version != _version():
        notes.append(f"The snapshot was taken with irframe {base.irframe_version}; this is {_version()}.")
    if base.format_version == 1:
        notes.append(
            f"The snapshot {base.name} is of format 1, whose judgment fingerprints cannot tell a "
            "document id holding a TAB or a newline from two judgments (checked in that encoding). "
            "Hint: refresh it with `irframe snapshot QRELS RUN -o FILE` (or irframe.snapshot(..., path=...))."
        )
    old_q = base.fingerprints.get("queries")
    if queries is not None and old_q is not None and old_q != queries_fingerprint(queries):
        notes.append("The queries table differs from the one the snapshot was taken with.")
    return changes, keep, notes


def _long_values(
    base: Snapshot | _Run,
    cand: _Run,
    qrels: Frame | None,
    labels: Sequence[str],
    opts: Options,
    *,
    allow: bool,
    queries: pl.DataFrame | None,
    step: Callable[[str], None],
) -> tuple[pl.DataFrame, set[str] | None, JudgmentChanges, list[str]]:
    """Both sides' per-query values as compare's long table (each run evaluated once; a
    snapshot's values as they are), the queries kept (None: all), the judgment changes and notes."""
    from irframe.measures._parse import parse_measures

    changes, keep, notes = JudgmentChanges(), None, list[str]()
    parsed = None if qrels is None else parse_measures(list(labels))  # (once for both runs)
    if isinstance(base, Snapshot):  # (with qrels: per-query values have no snapshot baseline, _inputs)
        current = _qrels_hashes(
            cast("Frame", qrels).lazy(), opts, legacy=base.format_version == 1, against_snapshot=True
        )
        changes, keep, notes = _snapshot_notes(base, current, allow, queries)
        base_values = base.values.select(_Q, *labels)
        step(f"compared the judgments with the snapshot's: {len(changes.queries)} queries changed")
    else:
        base_values = _per_query(base, qrels, labels, opts, parsed)
        step(f"evaluated the baseline {base.name!r}")
    long = gate_table.long_table(base_values, _per_query(cand, qrels, labels, opts, parsed), labels)
    step(f"evaluated the candidate {cand.name!r}")
    return long, keep, changes, notes


def _moved(
    base: Snapshot | _Run,
    cand: _Run,
    qrels: Frame | None,
    tables: tuple[pl.DataFrame, pl.DataFrame],
    measure: str,
    *,
    n: int,
    k: int,
    queries: pl.DataFrame | None,
    attrs: pl.DataFrame | None,
    opts: Options,
) -> pl.DataFrame:
    """The ``n`` queries that moved most on ``measure``, with their text, their segments
    (``attrs``) and the top ``k`` documents of both runs (of the candidate only, for a
    snapshot baseline)."""
    long, pairs = tables
    out = gate_table.moved_queries(pairs, measure, n, queries, attrs)
    if isinstance(base, Snapshot):  # no ranking: as if the candidate were listed against itself
        runs, base_queries = (
            {gate_table.CAND: cand.lf},
            base.values.lazy().select(pl.col(_Q).alias(opts.query_col)),
        )
        valued = long.filter((pl.col(LONG.system) == gate_table.CAND) & pl.col(LONG.value).is_not_null())
    else:
        runs, base_queries = {gate_table.BASE: base.lf, gate_table.CAND: cand.lf}, base.lf
        valued = pairs
    shown = valued.filter(pl.col(LONG.measure) == measure).height > 0
    docs = gate_table.documents(runs, base_queries, qrels, shown, out[_Q].to_list(), k=k, opts=opts)
    return out if docs is None else out.join(docs, on=_Q, how="left", maintain_order="left")


@dataclass(frozen=True)
class _Extras:
    """The options compare's table gains in check: weights and holes, validated once."""

    weights: str | None
    holes: str
    depth: int
    grade: float | None

    @classmethod
    def build(
        cls, weights: object, holes: object, depth: object, grade: object, by: Sequence[str]
    ) -> _Extras:
        from irframe._compare.weighted import check_weights_name
        from irframe._golden.holes import check_depth, check_grade, check_mode

        return cls(check_weights_name(weights, by, "check"), check_mode(holes, "check"),
                   check_depth(depth, "check"), check_grade(grade, "check"))  # fmt: skip


def _weights_table(
    extras: _Extras, base: Snapshot | _Run, cand: _Run, qrels: Frame | None, *, queries: pl.DataFrame | None,
    opts: Options,
) -> pl.DataFrame | None:  # fmt: skip
    """The weights table (queries table, else qrels; never a run: each run is checked)."""
    from irframe._compare.weighted import resolve

    if extras.weights is None:
        return None
    table = resolve(cand.lf, qrels, queries, opts, weights=extras.weights, where="check")
    if isinstance(base, _Run):  # (the baseline run must not carry weights either)
        resolve(base.lf, qrels, queries, opts, weights=extras.weights, where="check")
    return table


def _with_holes(
    pairs: pl.DataFrame, base: Snapshot | _Run, cand: _Run, qrels: Frame | None, *, labels: Sequence[str],
    opts: Options, extras: _Extras,
) -> tuple[pl.DataFrame, pl.DataFrame | None]:  # fmt: skip
    """The pairs with their hole columns, and the hole table (per side and query); the
    pairs as they are under ``holes="ignore"``."""
    from irframe._golden.holes import with_holes
    from irframe._input.keys import SYSTEM
    from irframe._input.runs import stack_runs

    if extras.holes == "ignore":
        return pairs, None
    sides = [(gate_table.BASE, base)] if isinstance(base, _Run) else []
    sides.append((gate_table.CAND, cand))
    stack = stack_runs({name: run.lf for name, run in sides}, None, "check")
    runs = [lf for _, lf in stack.alike()]
    names = (LONG.system, LONG.baseline, LONG.measure, LONG.baseline_value, LONG.delta, _Q)
    out, table = with_holes(
        pairs, runs, qrels, names=names, pairs=[(gate_table.CAND, gate_table.BASE)], labels=labels,
        opts=opts, depth=extras.depth, grade=extras.grade, base_ranked=isinstance(base, _Run),
    )  # fmt: skip
    return out, table.rename({SYSTEM: "system"})


def _decided(
    pairs: pl.DataFrame, base: Snapshot | _Run, cand: _Run, qrels: Frame | None, *, labels: Sequence[str],
    opts: Options, extras: _Extras, gate: _Gate, settings: Settings, queries: pl.DataFrame | None,
) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame | None, list[dict[str, Any]]]:  # fmt: skip
    """The pairs (weighted, with holes), the decided table, the hole table and the power lines."""
    from irframe._check.extras import power_lines
    from irframe._compare.weighted import with_weights

    weights = _weights_table(extras, base, cand, qrels, queries=queries, opts=opts)
    pairs = with_weights(pairs, _Q, weights)
    pairs, holes = _with_holes(pairs, base, cand, qrels, labels=labels, opts=opts, extras=extras)
    rows = gate_table.comparisons(pairs, labels, settings.by, settings)
    table, family = gate_table.decide(rows, gate, settings, extras.holes)
    return pairs, table, holes, power_lines(pairs, labels, gate, family)


def _source(obj: Any, placeholder: str) -> str:
    return str(obj) if isinstance(obj, str | os.PathLike) else placeholder


def _pool_command(qrels: Any, candidate: Any, baseline: Any, depth: int) -> str:
    """``irframe pool`` of the baseline's (a run's) and the candidate's holes."""
    from irframe._check.extras import pool_command

    runs = (
        []
        if isinstance(baseline, Snapshot) or is_snapshot_path(baseline)
        else [_source(baseline, "BASELINE")]
    )
    return pool_command(_source(qrels, "QRELS"), [*runs, _source(candidate, "CANDIDATE")], depth)


def is_snapshot_path(obj: Any) -> bool:
    """A path to a snapshot file."""
    return isinstance(obj, str | os.PathLike) and Path(obj).exists() and is_snapshot_file(obj)


def _count(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidParameterError.for_value(name, "check", "an int >= 0", value)
    return value


def _by_frames(by: Any, queries: Any, qrels: Any, column_kwargs: Mapping[str, Any]) -> tuple[Any, Any, Any]:
    """``by`` as names, its expressions computed as columns of the queries table and the qrels."""
    if not has_expressions(by):
        return by, queries, qrels
    protected = protected_columns({k: v for k, v in column_kwargs.items() if k.endswith("_col")})
    by, found = with_by_columns(by, {"queries": queries, "qrels": qrels}, where="check", protected=protected)
    return by, found["queries"], found["qrels"]


def _log_check(
    candidate: str, base: Snapshot | _Run, table: pl.DataFrame, failed: Sequence[str], left_out: Sequence[str]
) -> None:  # fmt: skip
    """INFO: what was checked and the verdict."""
    if log.isEnabledFor(INFO):
        kind = "snapshot" if isinstance(base, Snapshot) else "run"
        verdict = f"FAILED ({', '.join(dict.fromkeys(failed))})" if failed else "passed"
        log.info(
            "check: candidate %r against the %s %r, %d comparisons, %d queries left out (judgments "
            "changed): %s", candidate, kind, base.name, table.height, len(left_out), verdict,
        )  # fmt: skip


def check(
    candidate: Any,
    qrels: Any,
    baseline: Any,
    measures: MeasureLike | Iterable[MeasureLike] | None = None,
    *,
    queries: Any = None,
    by: str | pl.Expr | Sequence[str | pl.Expr] | None = None,
    max_drop: float = 0.0,
    alpha: float = 0.05,
    fail_on: Literal["significant", "any-drop"] = "significant",
    test: Literal["randomization", "t", "wilcoxon", "bootstrap"] = "randomization",
    correction: Literal["holm", "bonferroni", "bh", "none"] = "holm",
    allow_changed_qrels: bool = False,
    missing: Missing | None = None,
    duplicates: Literal["error", "first"] = "error",
    n_moved: int = 10,
    docs_top: int = 3,
    n_permutations: int = 10_000,
    n_bootstrap: int = 10_000,
    seed: int = 0,
    weights: str | None = None,
    holes: Literal["report", "fail", "ignore"] = "ignore",
    holes_depth: int = 10,
    holes_grade: float | None = None,
    progress: Progress = None,
    **column_kwargs: Any,
) -> CheckResult:
    """Compare a candidate run with a baseline on a golden set and decide pass or fail.

    Parameters
    ----------
    candidate : frame or path
        The run under test (one system).
    qrels : frame or path
        The judgments.
    baseline : frame, path or Snapshot
        A run (evaluated here), a :class:`Snapshot` or a snapshot file.
    measures : str, Measure or list, optional
        Default: the snapshot's measures, else ("nDCG@10", "RR", "R@100").
    queries : frame or path, optional
        Queries table: ``query_id``, ``text`` (shown for the queries that moved) and
        attributes usable in ``by``.
    by : str, pl.Expr or a list of them, optional
        Segment columns (from ``queries`` or the qrels): each segment is compared and
        gated too. A polars expression (``pl.col("n_terms") >= 5``, or ``.alias("long")``)
        is computed as that column on ``queries`` and the qrels where they hold its inputs.
    max_drop : float, default 0
        Largest tolerated drop of a mean (absolute).
    alpha : float, default 0.05
        Level of the corrected p-value under ``fail_on="significant"``.
    fail_on : {"significant", "any-drop"}, default "significant"
        Whether a drop beyond ``max_drop`` must also be significant to fail.
    test, correction, n_permutations, n_bootstrap, seed
        As for :func:`irframe.compare`.
    allow_changed_qrels : bool, default False
        Compare a snapshot on its unchanged queries when judgments changed, instead of
        raising :class:`~irframe.exceptions.JudgmentsChangedError`.
    missing : {"zero", "drop", "error"}, optional
        Default: the snapshot's rule, else "zero".
    duplicates, **column_kwargs
        As for :func:`irframe.evaluate`.
    n_moved : int, default 10
        How many of the queries that moved most to list.
    docs_top : int, default 3
        Top documents (with grades) shown for each listed query (0: none).
    weights : str, optional
        A column of query weights (traffic, or :func:`irframe.sample_queries`'
        ``segment_weight``) in ``queries`` or the qrels: the means, deltas, tests and CIs
        are weighted as in :func:`irframe.compare` (not with ``test="wilcoxon"``).
    holes : {"report", "fail", "ignore"}, default "ignore"
        The judgment holes: the unjudged documents of each run's top ``holes_depth``
        (per judged query), and the range each delta could take once they are judged
        (see :func:`irframe.compare`'s ``holes``).  A regression whose range reaches no
        drop (``delta_high >= -max_drop``) is *possibly a judgment hole*: ``"report"``
        passes it with a note ("judge N documents first", with the ``irframe pool``
        command), ``"fail"`` fails with the same note, ``"ignore"`` looks at no hole (the
        report is as without the option).  A snapshot baseline has no ranking: only the
        candidate's holes are filled, the snapshot's values stay.
    holes_depth : int, default 10
        The top documents of each ranking looked at for holes.
    holes_grade : float, optional
        The grade a hole judged relevant gets (default: the qrels' highest grade).
    progress : bool or callable, optional
        Report the steps (inputs read, baseline and candidate evaluated, comparisons,
        moved queries): as for :func:`irframe.evaluate` (default: a bar on a terminal
        when it takes a while).

    Returns
    -------
    CheckResult
        ``.passed``, ``.regressions``, ``.comparisons``, ``.moved``, ``.report()``,
        ``.to_markdown()``, ``.to_dict()``.

    Examples
    --------
    >>> from irframe.datasets import golden
    >>> g = golden()
    >>> runs = {s: g.runs.filter(system=s) for s in ("bm25", "dense")}
    >>> result = check(runs["dense"], g.qrels, baseline=runs["bm25"], measures="R@100")
    >>> result.passed
    False
    >>> result.regressions.select("group", "measure", "delta").rows()
    [('all', 'R@100', -0.17916...)]
    """
    opts = _options("check", column_kwargs, duplicates=duplicates)
    by, queries, qrels = _by_frames(by, queries, qrels, column_kwargs)
    gate = _Gate.build(max_drop=max_drop, alpha=alpha, fail_on=fail_on, test=test, correction=correction,
                       n_permutations=n_permutations, n_bootstrap=n_bootstrap, seed=seed)  # fmt: skip
    n_moved, docs_top = _count("n_moved", n_moved), _count("docs_top", docs_top)
    by_cols = cast("list[str]", [by] if isinstance(by, str) else list(by or []))  # (names by now)
    extras = _Extras.build(weights, holes, holes_depth, holes_grade, by_cols)
    with reporter(check_progress(progress, "check"), 5, "checking") as step:
        cand, qrels_frame, base, labels, rule, opts = _inputs(
            candidate, qrels, baseline, (measures, missing), opts, extras
        )
        opts = dataclasses.replace(opts, missing=cast("Missing", rule))
        queries_df = _queries_frame(queries, opts)
        step(f"read the inputs: candidate {cand.name!r}, baseline {base.name!r}")
        long, keep, changes, notes = _long_values(
            base, cand, qrels_frame, labels, opts, allow=allow_changed_qrels, queries=queries_df, step=step
        )
        no_qrels = pl.LazyFrame(schema={opts.qrels_columns[0]: pl.String})  # (per-query values)
        attrs = gate_table.attributes(
            by_cols, queries_df, no_qrels if qrels_frame is None else qrels_frame.lazy(), opts
        )
        pairs, table, hole_table, power = _decided(
            gate_table.paired(long, keep, attrs), base, cand, qrels_frame, labels=labels, opts=opts,
            extras=extras, gate=gate, settings=gate.settings(by_cols, rule), queries=queries_df,
        )  # fmt: skip
        step(f"compared {len(labels)} measure(s): {table.height} comparisons")
        failed = table.filter(pl.col("regression"))["measure"].to_list()
        moved_measure = failed[0] if failed else labels[0]
        moved = _moved(base, cand, qrels_frame, (long, pairs), moved_measure, n=n_moved,
                       k=docs_top if n_moved else 0, queries=queries_df, attrs=attrs, opts=opts)  # fmt: skip
        step(f"listed the {moved.height} queries that moved most")
    gate_table.refuse_uncompared(table, changes.queries)  # after compare's shared-query rule
    _log_check(cand.name, base, table, failed, changes.queries)
    return CheckResult(
        passed=not failed, candidate=cand.name, baseline=base.name,
        baseline_kind="snapshot" if isinstance(base, Snapshot) else "run", measures=labels, by=by_cols,
        gate=gate, moved_measure=moved_measure, changes=changes, left_out=changes.queries,
        notes=notes if extras.weights is None else [*notes, f"Queries weighted by {extras.weights!r}."],
        _table=table, _moved=moved, _origin=cand.origin, holes_mode=extras.holes, holes_depth=extras.depth,
        pool_command=None if hole_table is None else _pool_command(qrels, candidate, baseline, extras.depth),
        weights=extras.weights, power=power, _holes=hole_table,
        _deltas=pairs.select(_Q, pl.col(LONG.measure).alias("measure"), pl.col(LONG.delta).alias("delta")),
    )  # fmt: skip
