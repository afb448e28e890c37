"""Side-by-side speed of irframe against pytrec_eval, ranx, ir_measures and floors (the harness;
the rendering of its results is ``report.py``).

    python benchmarks/run.py --rows 1e6
    python benchmarks/run.py --rows 1e5,1e6,1e7 --repeats 3
    python benchmarks/run.py --rows 1e6 --ordered
    python benchmarks/run.py --rows 1e6 --contenders irframe-pandas,pytrec_eval
    python benchmarks/run.py --report-only          # re-render latest.md, README, scaling.png

How it measures
---------------
* Every contender lives in its own fresh worker process (``multiprocessing`` spawn) that
  loads the cached parquet inputs once, runs its untimed ``prepare`` and one warm-up call on
  a 20-query subset (imports, numba JIT, thread pools).
* Rounds are interleaved: round r calls every contender once (order rotated per round),
  ``--repeats`` rounds.  Reported: median time; ratios are computed within each round and
  then the median is taken.  Round 1's result is also the agreement check: every
  contender's per-query values are compared with irframe's on the common query set.
* Peak memory: before each call the worker runs ``gc.collect()``, resets the kernel's
  peak-RSS counter (``/proc/self/clear_refs`` <- 5) and reads VmRSS; after the call it
  reads VmHWM.  "extra MB" = max over rounds of (VmHWM - VmRSS before the call): memory
  beyond the already-loaded inputs (and the native result, which is still alive, counts).
* A call running longer than ``--timeout`` seconds kills its worker; the contender is
  reported as timed out for that size.
* ``--baseline SRC`` (another tree's ``src``, e.g. a detached worktree of an older commit) adds
  ``NAME@base`` beside every irframe contender: the same call in a worker that imports irframe
  from SRC.  Its rounds interleave with the others; ``x_head_over_base`` is the median over
  rounds of NAME's time / NAME@base's in the same round.  Those results go to
  ``results/versus/``, not among the peer results.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import multiprocessing as mp
import os
import platform
import re
import statistics
import subprocess
import sys
import time
import traceback
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from report import TOL, _fmt_rows, write_reports

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
BASE = "@base"  # suffix of a contender run on the --baseline tree
BASE_ENV = "IRFRAME_BENCH_BASELINE_SRC"  # that tree's src, inherited by the spawned workers


def contender(name: str) -> Any:
    """The contender ``name`` (``NAME@base`` is NAME's on the baseline tree)."""
    import contenders as C

    return C.CONTENDERS[name.removesuffix(BASE)]


# ------------------------------------------------------------------------------------------------
# memory helpers (Linux)
# ------------------------------------------------------------------------------------------------
def _status() -> dict[str, int]:
    out = {}
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(("VmRSS", "VmHWM")):
                k, v = line.split(":")
                out[k] = int(v.split()[0]) * 1024
    return out


def _reset_peak() -> bool:
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
    except OSError:
        return False
    return True


# ------------------------------------------------------------------------------------------------
# worker
# ------------------------------------------------------------------------------------------------
def _worker(conn: Any, name: str, rows: int, dpq: int, seed: int, ordered: bool) -> None:  # noqa: PLR0917
    try:
        import warnings

        warnings.simplefilter("ignore")
        if name.endswith(BASE):  # import irframe from the baseline tree
            sys.path.insert(0, os.environ[BASE_ENV])
        c = contender(name)
        rss0 = _status()["VmRSS"]
        if c.files:
            state, input_bytes, prep_s = _load_files(c, rows, dpq, seed)
        else:
            state, input_bytes, prep_s = _load_frames(c, rows, dpq, seed, ordered)
        gc.collect()
        rss_loaded = _status()["VmRSS"]
        conn.send(
            {
                "ready": True,
                "input_bytes": input_bytes,
                "prepare_s": prep_s,
                "input_rss": rss_loaded - rss0,
                "irframe": getattr(sys.modules.get("irframe"), "__file__", None),
            }
        )
        while True:
            msg = conn.recv()
            if msg == "stop":
                return
            gc.collect()
            can_peak = _reset_peak()
            base = _status()["VmRSS"]
            t0, c0 = time.perf_counter(), time.process_time()
            native, phases = c.call(state)
            dt, cpu = time.perf_counter() - t0, time.process_time() - c0
            st = _status()
            extra = (st["VmHWM"] - base) if can_peak else None
            if "_peak_bytes" in phases:  # a child process did the work: its wall time and peak RSS
                extra = phases.pop("_peak_bytes")
                dt = phases.pop("_seconds")
            reply: dict[str, Any] = {
                "time": dt,
                "cpu": cpu,
                "phases": phases,
                "extra": extra,
                "peak": st["VmHWM"],
            }
            if msg == "check" and c.normalize is not None:
                reply["result"] = c.normalize(native)
            del native
            conn.send(reply)
    except BaseException as exc:  # report, don't hang the parent
        with contextlib.suppress(Exception):
            conn.send({"error": f"{type(exc).__name__}: {exc}", "tb": traceback.format_exc()})


def _load_frames(c: Any, rows: int, dpq: int, seed: int, ordered: bool) -> tuple[Any, int, float]:
    """The contender's prepared state from the cached frames, after a warm-up on 20 queries."""
    import contenders as C
    import synth

    run, qrels = synth.make(rows, dpq, seed, ordered=ordered)
    input_bytes = int(run.memory_usage(deep=True).sum() + qrels.memory_usage(deep=True).sum())
    # warm-up on a 20-query subset: imports, JIT, thread pools
    qids = run[C.Q].unique()[:20]
    sub_r, sub_q = run[run[C.Q].isin(qids)], qrels[qrels[C.Q].isin(qids)]
    c.call(c.prepare(sub_r, sub_q))
    del sub_r, sub_q
    t0 = time.perf_counter()
    state = c.prepare(run, qrels)
    prep_s = time.perf_counter() - t0
    if all(hasattr(x, "estimated_size") for x in state):  # polars frames
        input_bytes = int(sum(x.estimated_size() for x in state))
    return state, input_bytes, prep_s  # the frames stay alive only if the state holds them


def _load_files(c: Any, rows: int, dpq: int, seed: int) -> tuple[Any, int, float]:
    """A file contender's state: the size's TREC files (written by the parent); one warm-up call."""
    import synth

    files = synth.trec_files(rows, dpq, seed)
    t0 = time.perf_counter()
    state = c.prepare(files)
    prep_s = time.perf_counter() - t0
    c.call(state)  # warm-up: the page cache holds the files, as the frames are in memory for the others
    return state, sum(f.stat().st_size for f in files), prep_s


class Worker:
    def __init__(self, name: str, rows: int, dpq: int, seed: int, ordered: bool) -> None:
        ctx = mp.get_context("spawn")
        self.name = name
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker, args=(child, name, rows, dpq, seed, ordered), daemon=True)
        self.proc.start()
        child.close()

    def recv(self, timeout: float) -> dict[str, Any]:
        if not self.conn.poll(timeout):
            self.kill()
            return {"error": f"timeout > {timeout:g}s"}
        try:
            return self.conn.recv()
        except EOFError:
            self.kill()
            return {"error": f"worker died (exit code {self.proc.exitcode}; out of memory?)"}

    def kill(self) -> None:
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join(5)

    def stop(self) -> None:
        with contextlib.suppress(Exception):
            self.conn.send("stop")
        self.proc.join(10)
        self.kill()


# ------------------------------------------------------------------------------------------------
# agreement
# ------------------------------------------------------------------------------------------------
def _tied_queries(rows: int, dpq: int, seed: int, ordered: bool) -> set[str]:
    """Queries whose value can depend on tie-breaking: a score shared by docs of different gain."""
    import polars as pl

    import synth

    run, qrels = synth.make(rows, dpq, seed, ordered=ordered)
    g = (
        pl.from_pandas(run[["query_id", "doc_id", "score"]])
        .join(pl.from_pandas(qrels), on=["query_id", "doc_id"], how="left")
        .with_columns(pl.col("relevance").fill_null(0).clip(0))
        .group_by("query_id", "score")
        .agg(pl.col("relevance").n_unique())
        .filter(pl.col("relevance") > 1)
    )
    return set(g.get_column("query_id").unique().to_list())


def _agreement(ref: Any, other: Any, tied: Any) -> dict[str, Any]:
    tol = max(TOL, other.attrs.get("tol", TOL))  # values printed rounded (trec_eval: 4 decimals)
    common = ref.index.intersection(other.index)
    cols = [c for c in ref.columns if c in other.columns]  # a contender may check fewer measures
    diff = (ref.loc[common, cols].sort_index() - other.loc[common].sort_index()[cols]).abs()
    bad = diff.index[(diff > tol).any(axis=1) | diff.isna().any(axis=1)]
    out = {
        "tolerance": tol,
        "common_queries": len(common),
        "ref_only": len(ref.index.difference(other.index)),
        "other_only": len(other.index.difference(ref.index)),
        "max_abs_diff": {k: float(v) for k, v in diff.max().items()},
        "mismatched_queries": len(bad),
        "ok": len(bad) == 0 and len(common) > 0,
    }
    if len(bad):
        t = tied()
        on_tied = sum(q in t for q in bad)
        untied = [q for q in common if q not in t]
        out["mismatched_on_tied_queries"] = on_tied
        out["tie_free_queries"] = len(untied)
        out["ok_on_tie_free"] = bool(on_tied == len(bad))
    return out


# ------------------------------------------------------------------------------------------------
# one size
# ------------------------------------------------------------------------------------------------
def _prepare_data(rows: int, names: list[str], args: argparse.Namespace) -> tuple[int, int, int, int]:
    """Generate (or reuse) the cached inputs and the TREC files; print the size header.

    Returns the run's rows and queries and the qrels' rows and queries.
    """
    import synth

    ordered = args.ordered
    import polars as pl

    t0 = time.perf_counter()
    paths = synth.cache_paths(rows, args.docs_per_query, args.seed)
    rkey = "ordered" if ordered else "run"
    if not (paths[rkey].exists() and paths["qrels"].exists()):
        synth.make(rows, args.docs_per_query, args.seed, ordered=ordered)  # generate + cache
    if any(contender(n).files and not contender(n).available() for n in names):
        synth.trec_files(rows, args.docs_per_query, args.seed)  # written once per size, untimed
    # count without holding the frames in this (parent) process
    n_rows, n_q = (
        pl.scan_parquet(paths[rkey]).select(pl.len(), pl.col("query_id").n_unique()).collect().row(0)
    )
    n_qrels, n_qq = (
        pl.scan_parquet(paths["qrels"]).select(pl.len(), pl.col("query_id").n_unique()).collect().row(0)
    )
    print(
        f"\n== rows={n_rows:,} ordered={ordered} queries={n_q:,} qrels={n_qrels:,} "
        f"(qrels queries {n_qq:,}; data ready in {time.perf_counter() - t0:.1f}s)",
        flush=True,
    )
    return n_rows, n_q, n_qrels, n_qq


def _start_workers(
    rows: int, names: list[str], args: argparse.Namespace
) -> tuple[dict[str, dict[str, Any]], dict[str, Worker]]:
    """One loaded worker per available contender; the per-contender result records."""
    res: dict[str, dict[str, Any]] = {}
    workers: dict[str, Worker] = {}
    for n in names:
        c = contender(n)
        why = c.available()
        if why:
            res[n] = {"skipped": why, "note": c.note}
            print(f"  {n}: skipped ({why})")
            continue
        res[n] = {"note": c.note, "times": [], "cpu": [], "phases": [], "extra": [], "error": None}
        workers[n] = Worker(n, rows, args.docs_per_query, args.seed, args.ordered)
        # start them one at a time: loading is memory- and CPU-heavy on 2 cores
        info = workers[n].recv(args.timeout)
        if "error" in info:
            res[n]["error"] = info["error"]
            print(f"  {n}: failed to start: {info['error']}\n{info.get('tb', '')}")
            workers.pop(n).kill()
            continue
        res[n].update({k: info[k] for k in ("input_bytes", "prepare_s", "input_rss", "irframe")})
    return res, workers


def _run_rounds(
    workers: dict[str, Worker], res: dict[str, dict[str, Any]], args: argparse.Namespace
) -> dict[str, Any]:
    """The interleaved timed rounds; returns round 1's normalized results per contender."""
    results: dict[str, Any] = {}
    alive = list(workers)
    for rnd in range(args.repeats):
        k = rnd % max(1, len(alive))
        order = alive[k:] + alive[:k]
        for n in order:
            w = workers[n]
            w.conn.send("check" if rnd == 0 else "time")
            r = w.recv(args.timeout)
            if "error" in r:
                res[n]["error"] = r["error"]
                print(f"  round {rnd + 1} {n}: {r['error']}{r.get('tb', '')}", flush=True)
                w.kill()
                alive.remove(n)
                continue
            res[n]["times"].append(r["time"])
            res[n]["cpu"].append(r["cpu"])
            res[n]["phases"].append(r["phases"])
            res[n]["extra"].append(r["extra"])
            if "result" in r:
                results[n] = r["result"]
            mb = "" if r["extra"] is None else f"  +{r['extra'] / 2**20:.0f} MB"
            print(f"  round {rnd + 1} {n:<20} {r['time']:9.3f}s{mb}", flush=True)
    for w in workers.values():
        w.stop()
    return results


def _agreement_line(n: str, a: dict[str, Any]) -> str:
    """The printed agreement line of contender ``n``."""
    extra = ""
    if not a["ok"] and a.get("ok_on_tie_free"):
        extra = (
            f"; all {a['mismatched_queries']} mismatches are on queries where a tied "
            f"score mixes gains (exact on the other {a['tie_free_queries']:,} queries)"
        )
    if a["tolerance"] > TOL:
        extra += f" (to {a['tolerance']:.1g}: it prints rounded values)"
    return (
        f"    {n:<20} {'OK' if a['ok'] else 'DIFF'} on {a['common_queries']:,} queries, "
        f"mismatched {a['mismatched_queries']:,}{extra}"
    )


def _check_agreement(
    rows: int, results: dict[str, Any], res: dict[str, dict[str, Any]], args: argparse.Namespace
) -> str | None:
    """Compare every contender's values with irframe's on the common query set; the reference's name."""
    ref_name = next((n for n in ("irframe-pandas", "irframe-polars") if n in results), None)
    tied_cache: dict[str, set[str]] = {}

    def tied() -> set[str]:
        if "t" not in tied_cache:
            tied_cache["t"] = _tied_queries(rows, args.docs_per_query, args.seed, args.ordered)
        return tied_cache["t"]

    if ref_name is None and results:
        ref_name = next(iter(results))
    print(f"  agreement with {ref_name} (|diff| <= {TOL:g} per query, common queries):")
    for n, df in results.items():
        if n == ref_name:
            continue
        a = _agreement(results[ref_name], df, tied)
        res[n]["agreement"] = a
        print(_agreement_line(n, a), flush=True)
    return ref_name


def _per_round(res: dict[str, dict[str, Any]], n: str, ref: str, key: str = "times") -> float | None:
    """Median over rounds of contender ``n``'s time / ``ref``'s time in the same round (``key``
    "cpu": the worker's CPU time, every thread, instead of the wall time)."""
    a, b = res.get(n, {}).get(key, []), res.get(ref, {}).get(key, [])
    m = min(len(a), len(b))
    if m == 0:
        return None
    return statistics.median(a[i] / b[i] for i in range(m))


def _summarize(res: dict[str, dict[str, Any]]) -> None:
    """Add medians, peak memory and per-round ratios to every contender's record."""
    for n, r in res.items():
        ts = r.get("times") or []
        if ts:
            r["median_s"] = statistics.median(ts)
            r["min_s"] = min(ts)
            ex = [e for e in r["extra"] if e is not None]
            r["extra_max_bytes"] = max(ex) if ex else None
            keys = r["phases"][0].keys() if r["phases"] else []
            r["phases_median"] = {k: statistics.median(p[k] for p in r["phases"]) for k in keys}
        r["x_irframe_pandas"] = _per_round(res, n, "irframe-pandas")
        r["x_irframe_polars"] = _per_round(res, n, "irframe-polars")
        r["x_irframe_pandas_graded"] = _per_round(res, n, "irframe-pandas-graded")
        if n + BASE in res:
            r["x_head_over_base"] = _per_round(res, n, n + BASE)
            r["x_head_over_base_cpu"] = _per_round(res, n, n + BASE, key="cpu")


def bench_size(rows: int, names: list[str], args: argparse.Namespace) -> dict[str, Any]:
    """Benchmark every contender in ``names`` at ``rows`` rows; the size's result record."""
    n_rows, n_q, n_qrels, n_qq = _prepare_data(rows, names, args)
    res, workers = _start_workers(rows, names, args)
    results = _run_rounds(workers, res, args)
    ref_name = _check_agreement(rows, results, res, args)
    _summarize(res)
    return {
        "rows": n_rows,
        "ordered": args.ordered,
        "queries": n_q,
        "qrels_rows": n_qrels,
        "qrels_queries": n_qq,
        "docs_per_query": args.docs_per_query,
        "seed": args.seed,
        "repeats": args.repeats,
        "timeout_s": args.timeout,
        "reference": ref_name,
        "contenders": res,
    }


# ------------------------------------------------------------------------------------------------
# machine, versions, import time
# ------------------------------------------------------------------------------------------------
def machine() -> dict[str, Any]:
    from importlib.metadata import PackageNotFoundError, version

    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    ram = None
    try:
        import psutil

        ram = psutil.virtual_memory().total
    except ImportError:
        pass
    vers = {}
    for p in (
        "irframe",
        "polars",
        "pandas",
        "numpy",
        "pyarrow",
        "pytrec-eval-terrier",
        "ir-measures",
        "ranx",
        "numba",
    ):
        try:
            vers[p] = version(p)
        except PackageNotFoundError:
            vers[p] = None
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=HERE, capture_output=True, text=True, check=False
        ).stdout.strip()
    except OSError:
        commit = ""
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "ram_bytes": ram,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "versions": vers,
        "git_commit": commit,
    }


def compile_bytecode() -> str:
    """Compile the bytecode of the irframe that ``sys.executable`` imports, as ``pip install``
    does for a wheel, and return its package directory.

    Without it every fresh interpreter compiles the modules whose ``.pyc`` is missing or
    stale (a work tree under ``PYTHONDONTWRITEBYTECODE``: ~0.08 s per ``irframe eval``),
    which no installed irframe pays."""
    p = subprocess.run(
        [sys.executable, "-c", "import irframe, os; print(os.path.dirname(irframe.__file__))"],
        capture_output=True,
        text=True,
        check=True,
    )
    where = p.stdout.strip()
    subprocess.run([sys.executable, "-m", "compileall", "-q", where], check=True)
    return where


def import_time(*modules: str, n: int = 5) -> float | None:
    """Median cumulative ``-X importtime`` in ms of ``import a, b, ...`` (default: irframe) in a
    fresh interpreter each time: the top-level modules' cumulative times summed."""
    modules = modules or ("irframe",)
    vals = []
    for _ in range(n):
        p = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", f"import {', '.join(modules)}"],
            capture_output=True,
            text=True,
            check=False,
        )
        if p.returncode:
            return None
        tops: dict[str, float] = {}
        for line in p.stderr.splitlines():
            m = re.match(r"import time:\s+\d+\s+\|\s+(\d+)\s+\|\s?(\S.*)$", line)
            if m and m.group(2).strip() in modules:
                tops[m.group(2).strip()] = int(m.group(1)) / 1000
        if len(tops) == len(modules):
            vals.append(sum(tops.values()))
    return statistics.median(vals) if vals else None


# ------------------------------------------------------------------------------------------------
def _parser() -> argparse.ArgumentParser:
    """The command-line parser."""
    import contenders as C

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", default="1e6", help="comma-separated sizes, e.g. 1e5,1e6,1e7")
    ap.add_argument("--repeats", type=int, default=3, help="interleaved rounds (>= 3 advised)")
    ap.add_argument(
        "--contenders", default=None, help=f"comma-separated subset of: {', '.join(C.CONTENDERS)}"
    )
    ap.add_argument(
        "--ordered",
        action="store_true",
        help="already-ordered input (sorted, rank column) incl. the numpy floor",
    )
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds per call")
    ap.add_argument(
        "--trec-eval",
        metavar="PATH",
        help="trec_eval binary: adds the trec_eval contender (TREC files written once per size); "
        "build it with ../shared/tools/trec_eval/build.sh OUTDIR",
    )
    ap.add_argument("--docs-per-query", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--on-demand", action="store_true", help="allow sizes >= 1e8 rows")
    ap.add_argument("--report-only", action="store_true")
    ap.add_argument("--no-save", action="store_true", help="print only; write no result files")
    ap.add_argument(
        "--baseline",
        metavar="SRC",
        help="another tree's src: adds NAME@base beside every irframe contender (results/versus/)",
    )
    return ap


def _with_baseline(names: list[str], baseline: str | None) -> list[str]:
    """``names`` with ``NAME@base`` right after every irframe contender when ``--baseline``
    is given (twins adjacent in every round; that tree's bytecode compiled first, as this
    tree's is)."""
    if not baseline:
        return names
    os.environ[BASE_ENV] = str(Path(baseline).resolve())
    subprocess.run([sys.executable, "-m", "compileall", "-q", os.environ[BASE_ENV]], check=True)
    return [m for n in names for m in ([n, n + BASE] if n.startswith("irframe") else [n])]


def main(argv: list[str] | None = None) -> int:
    import contenders as C

    ap = _parser()
    args = ap.parse_args(argv)

    if args.report_only:
        write_reports()
        print((RESULTS / "latest.md").read_text())
        return 0
    sizes = [int(float(s)) for s in args.rows.split(",")]
    if any(s >= 10**8 for s in sizes) and not args.on_demand:
        ap.error("1e8 rows and more only with --on-demand (needs tens of GB for the peers)")
    names = list(
        args.contenders.split(",") if args.contenders else (C.DEFAULT_ORDERED if args.ordered else C.DEFAULT)
    )
    if args.trec_eval:
        os.environ[C.TREC_EVAL_ENV] = str(Path(args.trec_eval).resolve())  # inherited by the workers
        why = C.CONTENDERS["trec_eval"].available()
        if why:
            ap.error(f"--trec-eval: {why}")
        if not args.contenders:
            names.append("trec_eval")
    unknown = [n for n in names if n not in C.CONTENDERS]
    if unknown:
        ap.error(f"unknown contender(s) {unknown}; known: {list(C.CONTENDERS)}")
    names = [n for n in names if args.ordered or not C.CONTENDERS[n].ordered_only]
    names = _with_baseline(names, args.baseline)

    mach = machine()
    compile_bytecode()
    imp_ms, imp_pl = import_time("irframe"), import_time("polars")
    print(
        f"{mach['cpu']}, {mach['cores']} cores; python {mach['python']}; "
        f"import irframe {imp_ms} ms (polars {imp_pl} ms)"
    )
    RESULTS.mkdir(exist_ok=True)
    for rows in sizes:
        load = os.getloadavg()
        out = bench_size(rows, names, args)
        if args.baseline:
            out["baseline_src"], out["load"] = args.baseline, {"before": load, "after": os.getloadavg()}
            print(versus_table(out))
        if args.no_save:
            continue
        stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        out.update(
            {
                "timestamp": stamp,
                "machine": mach,
                "import_ms": imp_ms,
                "import_polars_ms": imp_pl,
            }
        )
        where = RESULTS / "versus" if args.baseline else RESULTS
        where.mkdir(exist_ok=True)
        f = where / f"{stamp}-{_fmt_rows(out['rows'])}{'-ordered' if args.ordered else ''}.json"
        f.write_text(json.dumps(out, indent=1, default=str))
        print(f"  -> {f.relative_to(HERE.parent)}")
        if not args.baseline:
            write_reports()
    if not args.no_save and not args.baseline:
        print("\n" + (RESULTS / "latest.md").read_text())
    return 0


def versus_table(out: dict[str, Any]) -> str:
    """The markdown table of every irframe contender against its ``@base`` twin."""
    lines = [
        f"\n{out['rows']:,} rows, head = this tree, base = {out['baseline_src']}",
        "| contender | head median | base median | head / base (median of rounds) | the same in CPU time |",
        "|---|---|---|---|---|",
    ]
    res = out["contenders"]
    for n, r in res.items():
        if "x_head_over_base" in r and r["x_head_over_base"] is not None:
            b = res[n + BASE]
            cpu = r.get("x_head_over_base_cpu")
            lines.append(
                f"| {n} | {r['median_s']:.3f} s | {b['median_s']:.3f} s | {r['x_head_over_base']:.2f}x | "
                + ("-" if cpu is None else f"{cpu:.2f}x")
                + " |"
            )
    files = sorted({str(r.get("irframe")) for r in res.values() if r.get("irframe")})
    lines.append("\nirframe imported from: " + ", ".join(files))
    before, after = (", ".join(f"{x:.1f}" for x in out["load"][k]) for k in ("before", "after"))
    lines.append(f"\nLoad average (1, 5, 15 min) before: {before}; after: {after}.")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
