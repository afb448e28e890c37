"""The contenders: each turns the same pandas (run, qrels) into per-query values of five measures.

Measures (trec_eval names): ndcg_cut_10, P_10, recall_100, recip_rank, map;
irframe labels: ``nDCG(gain=linear)@10, P@10, R@100, RR, AP``.  ``irframe-polars-47`` computes
the 47 classic trec measures (``CLASSIC_47``) instead, for the 47-vs-5 time ratio.

Each contender has

* ``prepare(run, qrels) -> state``  -- untimed set-up (e.g. ``pl.from_pandas`` for the
  polars entries, a numba warm-up call for ranx); a ``files`` contender (trec_eval) gets
  ``prepare((qrels_path, run_path))``: the size's TREC files, written once by ``run.py``;
* ``call(state) -> (native_result, phases)`` -- the timed work, from the contender's
  input to its *native* per-query result (a dict for pytrec_eval, a DataFrame for
  irframe ...).  ``phases`` optionally splits the time (e.g. ranx convert / evaluate);
  a contender whose work runs in a child process (trec_eval) returns the child's wall time
  and peak RSS as ``_seconds`` and ``_peak_bytes``;
* ``normalize(native) -> pandas.DataFrame`` -- untimed: index ``query_id``, the five
  ``KEYS`` columns, float64; ``None`` for floors that compute no measures.

Missing queries: irframe is called with ``missing="drop"``; pytrec_eval and
ir_measures only report queries present in both run and qrels (the same set);
ranx is called with ``make_comparable=True`` (queries missing from the run get 0)
and the agreement check compares on the common query set.
"""

from __future__ import annotations

import atexit
import os
import re
import subprocess
import tempfile
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

MEASURES = ["nDCG(gain=linear)@10", "P@10", "R@100", "RR", "AP"]
KEYS = ["nDCG@10", "P@10", "R@100", "RR", "AP"]
TREC = ["ndcg_cut_10", "P_10", "recall_100", "recip_rank", "map"]
RANX = ["ndcg@10", "precision@10", "recall@100", "mrr", "map"]
Q, D, S, REL, RANK = "query_id", "doc_id", "score", "relevance", "rank"

# "The 47 classic trec measures": the measures of trec_eval 10.0's ``all_trec`` set that irframe
# computes today, at trec_eval's default cutoffs, in trec_eval's print order.  Fixed on purpose
# (not derived from irframe's registry), so the benchmark measures the same work over commits.
_CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
CLASSIC_47 = [
    "num_ret", "num_rel", "num_rel_ret", "map", "Rprec", "bpref", "recip_rank",
    *(f"P_{k}" for k in _CUTS), *(f"recall_{k}" for k in _CUTS), "ndcg",
    *(f"ndcg_cut_{k}" for k in _CUTS), *(f"map_cut_{k}" for k in _CUTS),
    *(f"success_{k}" for k in (1, 5, 10)),
]  # fmt: skip
assert len(CLASSIC_47) == 47
TREC_EVAL_ENV = "IRFRAME_BENCH_TREC_EVAL"  # run.py --trec-eval PATH sets it for the workers


@dataclass
class Contender:
    name: str
    prepare: Callable[[pd.DataFrame, pd.DataFrame], Any]
    call: Callable[[Any], tuple[Any, dict[str, float]]]
    normalize: Callable[[Any], pd.DataFrame | None] | None
    note: str = ""
    # "trec": ties broken by doc_id descending like trec_eval; "input": by input order (ranx)
    ties: str = "trec"
    ordered_only: bool = False
    available: Callable[[], str | None] = field(default=lambda: None)
    # reads the size's TREC files: ``prepare`` gets ``(qrels_path, run_path)`` instead of frames
    files: bool = False


def trec_eval_args(names: Sequence[str]) -> list[str]:
    """trec_eval ``-m`` options for measure names such as ``P_10`` or ``map``.

    >>> trec_eval_args(["map", "P_5", "P_10", "ndcg_cut_10"])
    ['-m', 'map', '-m', 'P.5,10', '-m', 'ndcg_cut.10']
    """
    groups: dict[str, list[str]] = {}
    for n in names:
        m = re.fullmatch(r"(P|recall|ndcg_cut|map_cut|success)_(\d+)", n)
        groups.setdefault(m[1] if m else n, []).extend([m[2]] if m else [])
    out: list[str] = []
    for g, cuts in groups.items():
        out += ["-m", f"{g}.{','.join(cuts)}" if cuts else g]
    return out


# Runs one command and reports its wall time and peak RSS.  It runs in a fresh small interpreter
# (``python -S``, ~10 MB) because Linux counts in a child's ``ru_maxrss`` the RSS of the process
# that spawned it up to its ``exec`` (vfork shares the parent's memory): spawned from a worker
# holding 1 GB of frames, trec_eval would "use" 1 GB.  argv: out_path, command...
_LAUNCHER = """
import os, subprocess, sys, time
out_path, cmd = sys.argv[1], sys.argv[2:]
with open(out_path, "wb") as out:
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.PIPE)
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    dt = time.perf_counter() - t0
proc.returncode = os.waitstatus_to_exitcode(status)
sys.stderr.buffer.write(err[-3000:])
print(dt, usage.ru_maxrss * 1024, proc.returncode)
"""


def run_child(cmd: Sequence[str], out_path: str | os.PathLike[str]) -> tuple[float, int]:
    """Run ``cmd`` with stdout to ``out_path``: (wall seconds, the child's peak RSS in bytes).

    The wall time runs from spawning the child to reaping it (``os.wait4``, which also gives the
    peak RSS of this one child), measured by a small launcher process (see ``_LAUNCHER``).
    """
    import sys

    p = subprocess.run(
        [sys.executable, "-S", "-c", _LAUNCHER, str(out_path), *map(str, cmd)],
        capture_output=True,
        text=True,
        check=False,
    )
    try:
        dt, peak, rc = p.stdout.split()
    except ValueError:
        rc = p.returncode
        dt = peak = "nan"
    if int(rc) != 0:
        msg = f"{' '.join(map(str, cmd))} exited with {rc}: {p.stderr[-3000:]}"
        raise RuntimeError(msg)
    return float(dt), int(peak)


def parse_trec_output(text: str) -> tuple[dict[tuple[str, str], float], int]:
    """trec_eval's ``measure query value`` lines as {(measure, query): value}, and the fewest
    decimals printed (4 for trec_eval, 15 for a full-precision build).  ``runid`` is skipped."""
    out: dict[tuple[str, str], float] = {}
    decimals = 99
    for line in text.splitlines():
        parts = line.split()
        if len(parts) != 3 or parts[0] == "runid":
            continue
        out[(parts[0], parts[1])] = float(parts[2])
        if "." in parts[2]:
            decimals = min(decimals, len(parts[2]) - parts[2].index(".") - 1)
    return out, decimals


def _trec_eval_available() -> str | None:
    path = os.environ.get(TREC_EVAL_ENV)
    if not path:
        return "no trec_eval binary (run.py --trec-eval PATH)"
    if not os.access(path, os.X_OK):
        return f"trec_eval binary {path!r} not found or not executable"
    return None


def _trec_eval_files(files: tuple[Path, Path]) -> tuple[str, Path, Path, Path]:
    """State of the trec_eval contender: the binary, the TREC files (written once per size by
    run.py, untimed) and an output file."""
    qrels_path, run_path = files
    out = Path(tempfile.gettempdir()) / f"irframe-bench-trec_eval-{os.getpid()}.txt"
    atexit.register(out.unlink, missing_ok=True)
    return os.environ[TREC_EVAL_ENV], qrels_path, run_path, out


def _trec_eval_call(state: tuple[str, Path, Path, Path]) -> tuple[Any, dict[str, float]]:
    binary, qrels_path, run_path, out = state
    cmd = [binary, "-c", "-q", *trec_eval_args(TREC), str(qrels_path), str(run_path)]
    dt, peak = run_child(cmd, out)
    return out, {"_seconds": dt, "_peak_bytes": peak}


def _trec_eval_norm(out: Path) -> pd.DataFrame:
    values, decimals = parse_trec_output(out.read_text())
    rows: dict[str, dict[str, float]] = {}
    for (m, q), v in values.items():
        if q != "all" and m in TREC:
            rows.setdefault(q, {})[KEYS[TREC.index(m)]] = v
    df = pd.DataFrame.from_dict(rows, orient="index")[KEYS].astype("float64")
    df.index.name = Q
    df.attrs["tol"] = 0.5 * 10.0**-decimals + 1e-9  # printed rounded: half a unit of the last digit
    return df


def _missing(module: str) -> Callable[[], str | None]:
    def check() -> str | None:
        try:
            __import__(module)
        except Exception as exc:
            return f"{module} not importable: {exc}"
        return None

    return check


# --------------------------------------------------------------------------------------------
# irframe
# --------------------------------------------------------------------------------------------
def _irframe_available() -> str | None:
    reason = _missing("irframe")()
    if reason:
        return reason
    import irframe

    if getattr(irframe, "evaluate", None) is None:
        return "irframe.evaluate not found"
    return None


def _irframe_cols(df: Any) -> pd.DataFrame:
    if not isinstance(df, pd.DataFrame):
        df = df.to_pandas()
    df = df.set_index(Q)
    labels = list(df.columns)
    try:
        from irframe.measures import parse_measure

        want = [str(parse_measure(m)) for m in MEASURES]
        if all(w in labels for w in want):
            labels = want
    except Exception:
        pass
    out = df[labels[: len(KEYS)]].astype("float64")
    out.columns = KEYS
    out.index = out.index.astype(str)
    return out


def _irframe_call(state: tuple[Any, Any]) -> tuple[Any, dict[str, float]]:
    import irframe

    run, qrels = state
    return irframe.evaluate(run, MEASURES, qrels, per_query=True, missing="drop"), {}


def _irframe_first_call(state: tuple[Any, Any]) -> tuple[Any, dict[str, float]]:
    import irframe

    run, qrels = state
    out = irframe.evaluate(run, MEASURES, qrels, per_query=True, missing="drop", duplicates="first")
    return out, {}


def _read_qrels_call(files: tuple[Path, Path]) -> tuple[Any, dict[str, float]]:
    from irframe.io import read_trec_qrels

    return read_trec_qrels(files[0]), {}


def _read_run_call(files: tuple[Path, Path]) -> tuple[Any, dict[str, float]]:
    from irframe.io import read_trec_run

    return read_trec_run(files[1]), {}


def _irframe47_call(state: tuple[Any, Any]) -> tuple[Any, dict[str, float]]:
    import irframe

    run, qrels = state
    return irframe.evaluate(run, CLASSIC_47, qrels, per_query=True, missing="drop"), {}


def _irframe47_cols(df: Any) -> pd.DataFrame:
    """The five benchmark measures out of the 47 (their trec_eval names), for the agreement check."""
    if not isinstance(df, pd.DataFrame):
        df = df.to_pandas()
    out = df.set_index(Q)[TREC].astype("float64")
    out.columns = KEYS
    out.index = out.index.astype(str)
    return out


# Grades on the run's rows only know the returned documents: nDCG's ideal ranking, recall and AP's
# count of relevant documents need the qrels.  P@10 and RR read only the returned rows' grades.
GRADED_KEYS = ["P@10", "RR"]


def _prep_graded(run: pd.DataFrame, qrels: pd.DataFrame) -> tuple[pd.DataFrame, None]:
    """The run with each row's grade (null: not judged), merged untimed; no qrels: the input
    ``df.ir.ndcg(k=10)`` reads (one row per query and document, a score and a grade)."""
    return run.merge(qrels[[Q, D, REL]], on=[Q, D], how="left", validate="one_to_one"), None


def _irframe_graded_cols(df: Any) -> pd.DataFrame:
    """The measures the graded input shares with the qrels (:data:`GRADED_KEYS`)."""
    return _irframe_cols(df)[GRADED_KEYS]


def _prep_polars(run: pd.DataFrame, qrels: pd.DataFrame) -> tuple[Any, Any]:
    import polars as pl

    return pl.from_pandas(run), pl.from_pandas(qrels)


# --------------------------------------------------------------------------------------------
# hand-written polars (reference point) and the floors
# --------------------------------------------------------------------------------------------
def polars_reference(run: Any, qrels: Any) -> Any:
    """The five measures as one polars ``group_by().agg`` (trec_eval semantics, drop missing)."""
    import polars as pl

    rel = pl.col(REL)
    qstats = (
        qrels.lazy()
        .filter(rel > 0)
        .group_by(Q)
        .agg(
            nrel=pl.len(),
            idcg=(
                rel.sort(descending=True).head(10).cast(pl.Float64)
                / (pl.int_range(pl.len().clip(upper_bound=10)) + 2).log(2)
            ).sum(),
        )
    )
    judged_q = qrels.lazy().select(Q).unique()
    x = (
        run.lazy()
        .join(judged_q, on=Q, how="semi")
        .join(qrels.lazy(), on=[Q, D], how="left")
        .sort([Q, S, D], descending=[False, True, True])
        .with_columns(rank=pl.int_range(1, pl.len() + 1).over(Q), g=rel.fill_null(0).clip(0))
        .with_columns(r=pl.col("g") > 0)
        .group_by(Q)
        .agg(
            dcg=(pl.col("g").cast(pl.Float64) / (pl.col(RANK) + 1).log(2)).filter(pl.col(RANK) <= 10).sum(),
            p10=pl.col("r").filter(pl.col(RANK) <= 10).sum(),
            r100=pl.col("r").filter(pl.col(RANK) <= 100).sum(),
            first=pl.col(RANK).filter(pl.col("r")).min(),
            apsum=(pl.col("r").cum_sum() / pl.col(RANK)).filter(pl.col("r")).sum(),
        )
        .join(qstats, on=Q, how="left")
        .with_columns(pl.col("nrel").fill_null(0), pl.col("idcg").fill_null(0.0))
    )
    has = pl.col("nrel") > 0
    return x.select(
        Q,
        pl.when(has).then(pl.col("dcg") / pl.col("idcg")).otherwise(0.0).alias(MEASURES[0]),
        (pl.col("p10") / 10).alias(MEASURES[1]),
        pl.when(has).then(pl.col("r100") / pl.col("nrel")).otherwise(0.0).alias(MEASURES[2]),
        (1.0 / pl.col("first")).fill_null(0.0).alias(MEASURES[3]),
        pl.when(has).then(pl.col("apsum") / pl.col("nrel")).otherwise(0.0).alias(MEASURES[4]),
    ).collect()


def _polars_floor(state: tuple[Any, Any]) -> tuple[Any, dict[str, float]]:
    """Join + one global sort, lazily (faster than the eager calls on this machine)."""
    run, qrels = state
    out = (
        run.lazy()
        .join(qrels.lazy(), on=[Q, D], how="left")
        .sort([Q, S, D], descending=[False, True, True])
        .collect()
    )
    return out, {}


def _polars_floor_grouped(state: tuple[Any, Any]) -> tuple[Any, dict[str, float]]:
    """Join + order each query's grades inside one group_by (no global sort)."""
    import polars as pl

    run, qrels = state
    order = [RANK, D] if RANK in run.columns else [S, D]
    desc = [False, True] if RANK in run.columns else [True, True]
    out = (
        run.lazy()
        .join(qrels.lazy(), on=[Q, D], how="left")
        .group_by(Q)
        .agg(pl.col(REL).sort_by(order, descending=desc))
        .collect()
    )
    return out, {}


# --------------------------------------------------------------------------------------------
# numpy single pass over the already-ordered run (rank column, sorted trec_eval way)
# --------------------------------------------------------------------------------------------
def _numpy_pass(state: tuple[Any, Any]) -> tuple[Any, dict[str, float]]:
    """Floor for ordered input: polars only matches string keys, numpy does the rest in one pass."""
    import polars as pl

    run, qrels = state
    t0 = time.perf_counter()
    j = run.select(Q, D, RANK).join(qrels, on=[Q, D], how="left", maintain_order="left")
    qs = (
        qrels.filter(pl.col(REL) > 0)
        .group_by(Q)
        .agg(nrel=pl.len(), top=pl.col(REL).sort(descending=True).head(10))
    )
    t1 = time.perf_counter()
    rank = j.get_column(RANK).to_numpy()
    g = np.clip(j.get_column(REL).fill_null(0).to_numpy(), 0, None).astype(np.float64)
    starts = np.flatnonzero(rank == 1)
    qids = j.get_column(Q).gather(starts)
    r = g > 0
    in10 = rank <= 10
    disc = 1.0 / np.log2(rank + 1.0)
    dcg = np.add.reduceat(np.where(in10, g * disc, 0.0), starts)
    p10 = np.add.reduceat(r & in10, starts) / 10.0
    r100 = np.add.reduceat(r & (rank <= 100), starts).astype(np.float64)
    first = np.minimum.reduceat(np.where(r, rank, np.iinfo(np.int64).max), starts)
    csum = np.cumsum(r)
    before = np.concatenate([[0], csum[starts[1:] - 1]])
    within = csum - np.repeat(before, np.diff(np.append(starts, len(rank))))
    apsum = np.add.reduceat(np.where(r, within / rank, 0.0), starts)
    # qrels side: num_rel and ideal DCG@10 per query, aligned on the run's queries
    a = pl.DataFrame({Q: qids}).join(qs, on=Q, how="left", maintain_order="left")
    nrel = a.get_column("nrel").fill_null(0).to_numpy().astype(np.float64)
    top = a.get_column("top")
    lens = top.list.len().fill_null(0).to_numpy()
    flat = top.explode().drop_nulls().to_numpy().astype(np.float64)
    pos = np.arange(len(flat)) - np.repeat(np.cumsum(lens) - lens, lens)
    idcg = np.zeros(len(qids))
    np.add.at(idcg, np.repeat(np.arange(len(qids)), lens), flat / np.log2(pos + 2.0))
    has = nrel > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        res = {
            "nDCG@10": np.where(has, dcg / idcg, 0.0),
            "P@10": p10,
            "R@100": np.where(has, r100 / nrel, 0.0),
            "RR": np.where(first < np.iinfo(np.int64).max, 1.0 / first, 0.0),
            "AP": np.where(has, apsum / nrel, 0.0),
        }
    t2 = time.perf_counter()
    return (qids, res), {"polars join+qrels stats": t1 - t0, "numpy pass": t2 - t1}


def _numpy_norm(native: Any) -> pd.DataFrame:
    qids, res = native
    return pd.DataFrame(res, index=pd.Index(qids.to_list(), name=Q))


# --------------------------------------------------------------------------------------------
# pytrec_eval
# --------------------------------------------------------------------------------------------
def _to_nested(df: pd.DataFrame, value: str) -> dict[str, dict[str, Any]]:
    """{qid: {docid: value}}: factorize + stable argsort + per-query slices of Python lists.

    The fastest pandas/numpy conversion among those we tried (groupby loop, itertuples,
    defaultdict loop, sort_values + slices).
    """
    codes, uniq = pd.factorize(df[Q])
    order = np.argsort(codes, kind="stable")
    counts = np.bincount(codes)
    ends = np.cumsum(counts)
    starts = ends - counts
    docs = df[D].to_numpy()[order].tolist()
    vals = df[value].to_numpy()[order].tolist()
    return {
        q: dict(zip(docs[a:b], vals[a:b], strict=True))
        for q, a, b in zip(uniq.tolist(), starts.tolist(), ends.tolist(), strict=True)
    }


def _trec_call(state: tuple[pd.DataFrame, pd.DataFrame]) -> tuple[Any, dict[str, float]]:
    import pytrec_eval

    run, qrels = state
    t0 = time.perf_counter()
    qd = _to_nested(qrels, REL)
    rd = _to_nested(run, S)
    t1 = time.perf_counter()
    ev = pytrec_eval.RelevanceEvaluator(qd, {"ndcg_cut.10", "P.10", "recall.100", "recip_rank", "map"})
    t2 = time.perf_counter()
    res = ev.evaluate(rd)
    t3 = time.perf_counter()
    return res, {"to dicts": t1 - t0, "RelevanceEvaluator": t2 - t1, "evaluate": t3 - t2}


def _trec_norm(native: dict[str, dict[str, float]]) -> pd.DataFrame:
    df = pd.DataFrame.from_dict(native, orient="index")[TREC]
    df.columns = KEYS
    df.index.name = Q
    return df


# --------------------------------------------------------------------------------------------
# ir_measures
# --------------------------------------------------------------------------------------------
def _irm_call(state: tuple[pd.DataFrame, pd.DataFrame]) -> tuple[Any, dict[str, float]]:
    import ir_measures
    from ir_measures import AP, RR, P, R, nDCG

    run, qrels = state
    return list(ir_measures.iter_calc([nDCG @ 10, P @ 10, R @ 100, RR, AP], qrels, run)), {}


def _irm_norm(native: list[Any]) -> pd.DataFrame:
    names = {"nDCG@10": "nDCG@10", "P@10": "P@10", "R@100": "R@100", "RR": "RR", "AP": "AP"}
    df = pd.DataFrame(
        {
            "q": [m.query_id for m in native],
            "m": [names[str(m.measure)] for m in native],
            "v": [m.value for m in native],
        }
    ).pivot(index="q", columns="m", values="v")[KEYS]
    df.index.name = Q
    df.columns.name = None
    return df


# --------------------------------------------------------------------------------------------
# ranx
# --------------------------------------------------------------------------------------------
def _ranx_prep(run: pd.DataFrame, qrels: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    from ranx import Qrels, Run, evaluate

    tiny_q = pd.DataFrame({Q: ["a", "a", "b"], D: ["x", "y", "x"], REL: [1, 0, 2]})
    tiny_q = tiny_q.astype({Q: object, D: object})
    tiny_r = pd.DataFrame({Q: ["a", "a", "b"], D: ["x", "y", "z"], S: [0.3, 0.2, 0.1]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        evaluate(
            Qrels.from_df(tiny_q, Q, D, REL),
            Run.from_df(tiny_r.astype({Q: object, D: object}), Q, D, S),
            RANX,
            return_mean=False,
            make_comparable=True,
        )  # numba JIT warm-up
    return run, qrels


def _ranx_call(state: tuple[pd.DataFrame, pd.DataFrame]) -> tuple[Any, dict[str, float]]:
    from ranx import Qrels, Run, evaluate

    run, qrels = state
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        # ranx asserts object dtype; pandas 3 reads strings as the arrow-backed "str" dtype
        qr = Qrels.from_df(qrels.astype({Q: object, D: object}), Q, D, REL)
        rr = Run.from_df(run.astype({Q: object, D: object}), Q, D, S)
        t1 = time.perf_counter()
        evaluate(qr, rr, RANX, return_mean=False, make_comparable=True)
        t2 = time.perf_counter()
    return rr, {"from_df": t1 - t0, "evaluate": t2 - t1}


def _ranx_norm(native: Any) -> pd.DataFrame:
    df = pd.DataFrame({k: dict(native.scores[m]) for k, m in zip(KEYS, RANX, strict=True)})
    df.index.name = Q
    return df


# --------------------------------------------------------------------------------------------
# naive pandas groupby().apply
# --------------------------------------------------------------------------------------------
def _naive_call(state: tuple[pd.DataFrame, pd.DataFrame]) -> tuple[Any, dict[str, float]]:
    run, qrels = state
    pos = qrels[qrels[REL] > 0]
    nrel = pos.groupby(Q).size()
    ideal = pos.groupby(Q)[REL].apply(lambda s: np.sort(s.to_numpy())[::-1][:10])
    m = run.merge(qrels, on=[Q, D], how="left")
    m = m[m[Q].isin(qrels[Q].unique())]
    m[REL] = m[REL].fillna(0).clip(lower=0)

    def one(g: pd.DataFrame) -> pd.Series:
        g = g.sort_values([S, D], ascending=[False, False])
        gain = g[REL].to_numpy(dtype=np.float64)
        r = gain > 0
        rank = np.arange(1, len(g) + 1)
        q = g[Q].iat[0]
        n = int(nrel.get(q, 0))
        if n == 0:
            return pd.Series([0.0] * 5, index=KEYS)
        ig = ideal[q]
        idcg = float(np.sum(ig / np.log2(np.arange(2, len(ig) + 2))))
        dcg = float(np.sum(gain[:10] / np.log2(rank[:10] + 1)))
        hits = np.flatnonzero(r)
        return pd.Series(
            [
                dcg / idcg,
                r[:10].sum() / 10,
                r[:100].sum() / n,
                1.0 / (hits[0] + 1) if len(hits) else 0.0,
                float(np.sum(np.cumsum(r)[r] / rank[r])) / n,
            ],
            index=KEYS,
        )

    return m.groupby(Q)[[Q, S, D, REL]].apply(one), {}


def _ident(df: pd.DataFrame) -> pd.DataFrame:
    return df


# --------------------------------------------------------------------------------------------
CONTENDERS: dict[str, Contender] = {
    c.name: c
    for c in [
        Contender(
            "irframe-pandas",
            lambda r, q: (r, q),
            _irframe_call,
            _irframe_cols,
            note="irframe.evaluate on the pandas frames (boundary conversion included)",
            available=_irframe_available,
        ),
        Contender(
            "irframe-polars",
            _prep_polars,
            _irframe_call,
            _irframe_cols,
            note="irframe.evaluate on polars frames; pl.from_pandas done untimed in prepare "
            "(its time is reported as a separate line)",
            available=_irframe_available,
        ),
        Contender(
            "irframe-pandas-graded",
            _prep_graded,
            _irframe_call,
            _irframe_graded_cols,
            note="irframe.evaluate on one pandas frame carrying each row's grade (merged from the qrels "
            "untimed in prepare), no qrels: no join; checked on P@10 and RR (the other three count "
            "relevant documents the run did not return, which only the qrels know)",
            available=_irframe_available,
        ),
        Contender(
            "irframe-polars-47",
            _prep_polars,
            _irframe47_call,
            _irframe47_cols,
            note="irframe.evaluate on polars frames with the 47 classic trec measures "
            "(contenders.CLASSIC_47); checked on the five measures it shares with the others",
            available=_irframe_available,
        ),
        Contender(
            "irframe-polars-first",
            _prep_polars,
            _irframe_first_call,
            _irframe_cols,
            note="irframe.evaluate on polars frames with duplicates='first' (the rows it keeps counted "
            "and reported); not in the default set",
            available=_irframe_available,
        ),
        Contender(
            "irframe-read-qrels",
            lambda files: files,  # type: ignore[arg-type,return-value]
            _read_qrels_call,  # type: ignore[arg-type]
            None,
            files=True,
            note="irframe.io.read_trec_qrels of the size's TREC qrels file (page cache warm); not in "
            "the default set",
            available=_irframe_available,
        ),
        Contender(
            "irframe-read-run",
            lambda files: files,  # type: ignore[arg-type,return-value]
            _read_run_call,  # type: ignore[arg-type]
            None,
            files=True,
            note="irframe.io.read_trec_run of the size's TREC run file (page cache warm); not in the "
            "default set",
            available=_irframe_available,
        ),
        Contender(
            "trec_eval",
            _trec_eval_files,  # type: ignore[arg-type]
            _trec_eval_call,
            _trec_eval_norm,
            files=True,
            note="trec_eval 10.0 (C) -c -q on TREC files written once per size (untimed), output to a "
            "file; wall time of the child; extra MB = the child's peak RSS (os.wait4); agreement to "
            "half a unit of its last printed decimal",
            available=_trec_eval_available,
        ),
        Contender(
            "polars-floor",
            _prep_polars,
            _polars_floor,
            None,
            note="polars only: left-join qrels onto the run + one sort "
            "(query, score desc, doc desc); computes no measure",
        ),
        Contender(
            "polars-floor-grouped",
            _prep_polars,
            _polars_floor_grouped,
            None,
            note="polars only: left-join + each query's grades put in ranking order inside "
            "one group_by (list sort_by, no global sort); computes no measure",
        ),
        Contender(
            "numpy-pass",
            _prep_polars,
            _numpy_pass,
            _numpy_norm,
            ordered_only=True,
            note="ordered input only: polars joins the string keys, then one numpy pass "
            "(reduceat/cumsum) computes all five measures",
        ),
        Contender(
            "polars-handwritten",
            _prep_polars,
            lambda s: (polars_reference(*s), {}),
            _irframe_cols,
            note="a hand-written one-group_by polars implementation (reference point)",
        ),
        Contender(
            "pytrec_eval",
            lambda r, q: (r, q),
            _trec_call,
            _trec_norm,
            note="DataFrames -> {qid: {doc: x}} dicts (sort + list slices) + RelevanceEvaluator + evaluate",
            available=_missing("pytrec_eval"),
        ),
        Contender(
            "ir_measures",
            lambda r, q: (r, q),
            _irm_call,
            _irm_norm,
            note="ir_measures.iter_calc on the DataFrames, materialized to a list",
            available=_missing("ir_measures"),
        ),
        Contender(
            "ranx",
            _ranx_prep,
            _ranx_call,
            _ranx_norm,
            ties="input",
            note="astype(object) + Qrels/Run.from_df + evaluate(make_comparable=True); numba warmed up "
            "untimed; ties broken by input order, not doc_id",
            available=_missing("ranx"),
        ),
        Contender(
            "pandas-naive",
            lambda r, q: (r, q),
            _naive_call,
            _ident,
            note="merge + groupby(query).apply(python function)",
        ),
    ]
}

DEFAULT = [
    "irframe-pandas",
    "irframe-polars",
    "irframe-pandas-graded",
    "irframe-polars-47",
    "polars-floor",
    "polars-floor-grouped",
    "polars-handwritten",
    "pytrec_eval",
    "ir_measures",
    "ranx",
    "pandas-naive",
]
DEFAULT_ORDERED = ["irframe-pandas", "irframe-polars", "polars-floor", "polars-floor-grouped", "numpy-pass"]
