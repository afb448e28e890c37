"""``irframe eval`` (the CLI) against trec_eval (C) on the same TREC files, plus the reader alone.

    python benchmarks/trecfiles.py --trec-eval /work/trec_eval_bin/trec_eval                # all shapes
    python benchmarks/trecfiles.py --trec-eval PATH --shapes 1e5 --repeats 2 --no-save     # quick look
    python benchmarks/trecfiles.py --report-only     # re-render results/trecfiles/latest.md + README

For every shape (see ``SHAPES``) the TREC files are written once (untimed, cached in
``benchmarks/.cache/trec/``); then each round runs, as separate processes, in an order rotated
per round:

* ``irframe eval QRELS RUN -m ... -q -f trec`` (``python -m irframe``, whichever irframe that
  interpreter imports: set ``PYTHONPATH=src`` for a work tree) and
  ``trec_eval -c -q -m ... QRELS RUN``, each with the five benchmark measures and with the 47
  classic trec measures (``contenders.CLASSIC_47``), output written to a file;
* the reader alone: ``read_trec_qrels`` + ``read_trec_run`` in a fresh process (time measured
  inside the process, after the imports).

Wall time and peak RSS of each child come from ``os.wait4`` in a small launcher process
(``contenders.run_child``).  Round 1 also checks the output: every (measure, query) value that
trec_eval prints must be printed by irframe too, equal to within the rounding of the two
outputs; a mismatch marks the row and voids its targets.  Ratios are per round, then the median.
The irframe's bytecode is compiled first (``compileall``, as ``pip install`` does), so that no
child process compiles a stale module.  ``import irframe`` is timed with ``python -X
importtime`` (median of 5 fresh interpreters); it imports no frame library, so ``import irframe,
polars`` (what any use of it costs) is timed and reported beside it.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import contenders as C
import run as R
import synth

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results" / "trecfiles"
TARGET_TIME = 1.0  # irframe eval <= 1.0x trec_eval's wall time
TARGET_RSS = 2.0  # irframe eval's peak RSS <= 2x trec_eval's
TARGET_IMPORT_MS = 300.0
MEASURE_SETS = {"5": C.TREC, "47": C.CLASSIC_47}


def _synth(rows: int, dpq: int) -> Callable[[int], tuple[Path, Path]]:
    return lambda seed: synth.trec_files(rows, dpq, seed)


def _msmarco(seed: int) -> tuple[Path, Path]:
    run_path = synth.CACHE / "trec" / f"msmarco-dev-s{seed}.run"
    qrels_path = run_path.with_suffix(".qrels")
    if not (run_path.exists() and qrels_path.exists()):
        run, qrels = synth.msmarco_dev(seed)
        synth.write_trec(run, qrels, run_path, qrels_path)
    return qrels_path, run_path


# name -> (description, files(seed) -> (qrels_path, run_path))
SHAPES: dict[str, tuple[str, Callable[[int], tuple[Path, Path]]]] = {
    "1e5": ("1,000 queries x 100 docs (a quick check; not in the default shapes)", _synth(100_000, 100)),
    "7e5": ("7,000 queries x 100 docs", _synth(700_000, 100)),
    "msmarco-dev": ("MS MARCO dev shape: 6,980 queries x ~100 docs, ~1 relevant each, integer ids", _msmarco),
    "1e6": ("10,000 queries x 100 docs", _synth(1_000_000, 100)),
    "7e6": ("7,000 queries x 1,000 docs", _synth(7_000_000, 1000)),
    "1e7": ("100,000 queries x 100 docs", _synth(10_000_000, 100)),
}
DEFAULT_SHAPES = ["7e5", "msmarco-dev", "1e6", "7e6", "1e7"]

_READER = """
import sys, time
t0 = time.perf_counter()
from irframe.io import read_trec_qrels, read_trec_run
t1 = time.perf_counter()
q = read_trec_qrels(sys.argv[1])
r = read_trec_run(sys.argv[2])
t2 = time.perf_counter()
print(t2 - t1, t1 - t0, r.height, q.height)
"""


def _cells(binary: str, qrels: Path, run: Path, sets: list[str]) -> dict[str, list[str]]:
    """The commands of one shape, by row name."""
    py = sys.executable
    cells = {}
    for s in sets:
        names = MEASURE_SETS[s]
        ms = [a for n in names for a in ("-m", n)]
        cells[f"irframe eval ({s} measures)"] = [py, "-m", "irframe", "eval", str(qrels), str(run), *ms]
        cells[f"irframe eval ({s} measures)"] += ["-q", "-f", "trec"]
        cells[f"trec_eval ({s} measures)"] = [
            binary,
            "-c",
            "-q",
            *C.trec_eval_args(names),
            str(qrels),
            str(run),
        ]
    cells["reader (read_trec_qrels + read_trec_run)"] = [py, "-c", _READER, str(qrels), str(run)]
    return cells


def _check(irframe_out: str, trec_out: str) -> dict[str, Any]:
    """Every value trec_eval prints must be printed by irframe, equal within both roundings."""
    mine, d1 = C.parse_trec_output(irframe_out)
    theirs, d2 = C.parse_trec_output(trec_out)
    for d in (mine, theirs):
        for k in [k for k in d if k[0] == "num_q"]:
            del d[k]  # irframe prints num_q always, trec_eval only when asked
    tol = 0.5 * 10.0**-d1 + 0.5 * 10.0**-d2 + 1e-9
    missing = [k for k in theirs if k not in mine]
    extra = [k for k in mine if k not in theirs]
    bad = [k for k in theirs if k in mine and abs(mine[k] - theirs[k]) > tol]
    return {
        "values": len(theirs),
        "queries": len({q for _, q in theirs if q != "all"}),
        "tolerance": tol,
        "missing_in_irframe": len(missing),
        "extra_in_irframe": len(extra),
        "mismatched": len(bad),
        "examples": [f"{m} {q}: irframe {mine[m, q]} trec_eval {theirs[m, q]}" for m, q in bad[:5]]
        + [f"{m} {q}: missing in irframe" for m, q in missing[:3]],
        "ok": not missing and not bad and len(theirs) > 0,
    }


def fixed_cost(args: argparse.Namespace, tmp: Path, rounds: int = 5) -> dict[str, float]:
    """irframe eval and trec_eval on a one-line run and qrels (5 measures): what a call costs
    before any data (interpreter, imports, polars' thread pools and allocator), as the median
    time and the largest peak RSS of ``rounds`` interleaved runs."""
    qrels, run = tmp / "one.qrels", tmp / "one.run"
    qrels.write_text("q1 0 d1 1\n")
    run.write_text("q1 Q0 d1 1 1.0 tiny\n")
    cells = {k: v for k, v in _cells(args.trec_eval, qrels, run, ["5"]).items() if "5 measures" in k}
    seen: dict[str, list[tuple[float, int]]] = {n: [] for n in cells}
    for rnd in range(rounds):
        for n in list(cells)[rnd % 2 :] + list(cells)[: rnd % 2]:
            seen[n].append(C.run_child(cells[n], tmp / "one.out"))
    out = {}
    for n, key in (("irframe eval (5 measures)", "irframe"), ("trec_eval (5 measures)", "trec_eval")):
        out[f"{key}_s"] = statistics.median(t for t, _ in seen[n])
        out[f"{key}_peak_bytes"] = float(max(p for _, p in seen[n]))
    print(
        f"fixed cost (one-line files): irframe eval {out['irframe_s']:.3f} s, "
        f"{out['irframe_peak_bytes'] / 2**20:.0f} MB; trec_eval {out['trec_eval_s']:.3f} s, "
        f"{out['trec_eval_peak_bytes'] / 2**20:.0f} MB",
        flush=True,
    )
    return out


def bench_shape(shape: str, args: argparse.Namespace, tmp: Path) -> dict[str, Any]:
    desc, files = SHAPES[shape]
    qrels, run = files(args.seed)
    lines = sum(1 for _ in run.open("rb"))
    qrels_lines = sum(1 for _ in qrels.open("rb"))
    print(f"\n== {shape}: {desc}; run {lines:,} lines, qrels {qrels_lines:,} lines", flush=True)
    cells = _cells(args.trec_eval, qrels, run, args.measures.split(","))
    res: dict[str, dict[str, Any]] = {n: {"cmd": c[:3], "times": [], "peaks": []} for n, c in cells.items()}
    outs: dict[str, Path] = {n: tmp / f"{i}.out" for i, n in enumerate(cells)}
    names = list(cells)
    for rnd in range(args.repeats):
        k = rnd % len(names)
        for n in names[k:] + names[:k]:
            try:
                dt, peak = C.run_child(cells[n], outs[n])
            except RuntimeError as exc:
                res[n]["error"] = str(exc)[:2000]
                print(f"  round {rnd + 1} {n}: {exc}", flush=True)
                continue
            if n.startswith("reader"):
                read_s, import_s, *_ = outs[n].read_text().split()
                res[n].setdefault("read_s", []).append(float(read_s))
                res[n].setdefault("import_s", []).append(float(import_s))
            res[n]["times"].append(dt)
            res[n]["peaks"].append(peak)
            print(f"  round {rnd + 1} {n:<42} {dt:8.3f}s  peak {peak / 2**20:7.0f} MB", flush=True)
        if rnd == 0:
            for s in args.measures.split(","):
                a, b = f"irframe eval ({s} measures)", f"trec_eval ({s} measures)"
                if outs[a].exists() and outs[b].exists() and not (res[a].get("error") or res[b].get("error")):
                    chk = _check(outs[a].read_text(), outs[b].read_text())
                    res[a]["agreement"] = chk
                    print(
                        f"  check {s} measures: {'OK' if chk['ok'] else 'DIFF'}: {chk['values']:,} values "
                        f"({chk['queries']:,} queries), mismatched {chk['mismatched']}, missing in irframe "
                        f"{chk['missing_in_irframe']} (to {chk['tolerance']:.1g}) {chk['examples'][:2]}",
                        flush=True,
                    )
    _summarize(res, args.measures.split(","))
    return {"shape": shape, "description": desc, "lines": lines, "qrels_lines": qrels_lines, "rows": res}


def _per_round(a: list[float], b: list[float]) -> float | None:
    m = min(len(a), len(b))
    return statistics.median(a[i] / b[i] for i in range(m)) if m else None


def _summarize(res: dict[str, dict[str, Any]], sets: list[str]) -> None:
    for r in res.values():
        if r["times"]:
            r["median_s"] = statistics.median(r["times"])
            r["peak_max_bytes"] = max(r["peaks"])
        if r.get("read_s"):
            r["read_median_s"] = statistics.median(r["read_s"])
    for s in sets:
        mine, theirs = res[f"irframe eval ({s} measures)"], res[f"trec_eval ({s} measures)"]
        mine["x_trec_eval"] = _per_round(mine["times"], theirs["times"])
        mine["rss_x_trec_eval"] = _per_round(mine["peaks"], theirs["peaks"])
    if "5" in sets and "47" in sets:
        for tool in ("irframe eval", "trec_eval"):
            big, small = res[f"{tool} (47 measures)"], res[f"{tool} (5 measures)"]
            big["x_5_measures"] = _per_round(big["times"], small["times"])


# ------------------------------------------------------------------------------------------------
# reporting
# ------------------------------------------------------------------------------------------------
def _latest() -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for f in sorted(RESULTS.glob("*.json")):
        try:
            d = json.loads(f.read_text())
        except (OSError, json.JSONDecodeError):
            continue
        d["_file"] = f.name
        out[d["shape"]] = d  # sorted by timestamp: later wins
    return out


def _x(v: float | None) -> str:
    return "" if v is None else f"{v:.2f}x"


def _mb(v: float | None) -> str:
    return "" if v is None else f"{v / 2**20:.0f}"


def table(d: dict[str, Any]) -> str:
    lines = [
        f"**{d['shape']}** ({d['description']}; run {d['lines']:,} lines, qrels {d['qrels_lines']:,} "
        f"lines; median of {d['repeats']} interleaved rounds; `{d['_file']}`)",
        "",
        "| command | median s | time / trec_eval | peak RSS MB | RSS / trec_eval | time / 5 measures "
        "| agrees with trec_eval |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for n, r in d["rows"].items():
        if not r.get("times"):
            lines.append(f"| {n} | {r.get('error', 'no result')[:200]} | | | | | |")
            continue
        a = r.get("agreement")
        if a is None:
            agree = ""
        elif a["ok"]:
            agree = f"yes ({a['values']:,} values, {a['queries']:,} q, to {a['tolerance']:.1g})"
        else:
            agree = f"NO: {a['mismatched']:,} mismatched, {a['missing_in_irframe']:,} missing"
        med = f"{r['median_s']:.3f}"
        if r.get("read_median_s") is not None:
            med += f" (reading {r['read_median_s']:.3f} s after the imports)"
        lines.append(
            f"| {n} | {med} | {_x(r.get('x_trec_eval'))} | {_mb(r.get('peak_max_bytes'))} | "
            f"{_x(r.get('rss_x_trec_eval'))} | {_x(r.get('x_5_measures'))} | {agree} |"
        )
    return "\n".join(lines)


def _fixed_rows(last: dict[str, Any]) -> list[str]:
    """The rows of what any call costs: the imports, and a one-line evaluation."""
    out = []
    if last.get("import_ms") is not None:
        v = last["import_ms"]
        out.append(
            f"| `import irframe` < {TARGET_IMPORT_MS / 1000:g} s (-X importtime, cumulative) | - | "
            f"{v / 1000:.3f} s | {'met' if v < TARGET_IMPORT_MS else 'NOT met'} |"
        )
    if last.get("import_polars_ms") is not None:
        out.append(
            "| `import irframe, polars` (no target: polars' own import, paid by any use) | - | "
            f"{last['import_polars_ms'] / 1000:.3f} s | - |"
        )
    fixed = last.get("fixed_cost")
    if fixed:
        out.append(
            "| (info) irframe eval on a one-line run and qrels: the fixed cost (interpreter, polars, "
            f"thread pools) | - | {fixed['irframe_s']:.3f} s, {_mb(fixed['irframe_peak_bytes'])} MB "
            f"(trec_eval: {fixed['trec_eval_s']:.3f} s, {_mb(fixed['trec_eval_peak_bytes'])} MB) | - |"
        )
    return out


def _shape_rows(shape: str, d: dict[str, Any]) -> list[str]:
    """The target rows of one shape."""
    out = []
    for n, r in d["rows"].items():
        if not n.startswith("irframe eval"):
            continue
        ok = (r.get("agreement") or {}).get("ok", False)
        what = n.removeprefix("irframe eval ").strip("()")
        for key, lim, label in (
            ("x_trec_eval", TARGET_TIME, "time"),
            ("rss_x_trec_eval", TARGET_RSS, "peak RSS"),
        ):
            v = r.get(key)
            if v is None:
                continue
            met = "NOT met" if v > lim else "met"
            if shape not in DEFAULT_SHAPES:
                met = "- (quick check; the target is for the default shapes)"
            elif not ok:
                met = "void: output differs from trec_eval"
            out.append(
                f"| irframe eval -q / trec_eval -q, {label} <= {lim:g} ({what}) | {shape} | {_x(v)} | {met} |"
            )
        floor = _fixed_share(d, n)
        if floor:
            out.append(f"| (info) {what}: the fixed cost / trec_eval, at best | {shape} | {floor} | - |")
        if r.get("x_5_measures") is not None:
            out.append(
                f"| (info) irframe eval: 47 / 5 measures time | {shape} | {_x(r['x_5_measures'])} | - |"
            )
    return out


def targets(latest: dict[str, dict[str, Any]]) -> list[str]:
    out = ["| target | shape | value | met |", "|---|---|---:|---|"]
    out += _fixed_rows(max(latest.values(), key=lambda d: d["timestamp"]))
    for shape, d in latest.items():
        out += _shape_rows(shape, d)
    return out


def _fixed_share(d: dict[str, Any], name: str) -> str | None:
    """The one-line fixed cost (measured in the same run) over trec_eval's median time and
    peak RSS at this shape: the ratios irframe would have if its data cost nothing."""
    fixed, theirs = d.get("fixed_cost"), d["rows"].get(name.replace("irframe eval", "trec_eval"))
    if not fixed or not theirs or not theirs.get("times"):
        return None
    t = fixed["irframe_s"] / theirs["median_s"]
    rss = fixed["irframe_peak_bytes"] / theirs["peak_max_bytes"]
    return f"time {t:.2f}x, peak RSS {rss:.2f}x"


def render() -> str:
    latest = _latest()
    if not latest:
        return (
            "# TREC files: latest results\n\nNo results yet: run `benchmarks/trecfiles.py --trec-eval PATH`."
        )
    last = max(latest.values(), key=lambda d: d["timestamp"])
    m = last["machine"]
    head = [
        "# TREC files: latest results",
        "",
        f"Machine: {m['cpu']}, {m['cores']} cores; Python {m['python']}, polars {m['versions']['polars']}; "
        f"irframe commit `{m['git_commit']}` (imported from `{last.get('irframe_path')}`); "
        f"trec_eval `{last.get('trec_eval')}`.",
        "",
        "Every command runs in its own process on the same files; `irframe eval ... -q -f trec` and "
        "`trec_eval -c -q` (per query and summary lines) write to a file. Wall time and peak RSS of the "
        "child from `os.wait4` (a floor of ~11 MB: the launcher). Ratios are per round, then the median. "
        "5 measures: " + ", ".join(C.TREC) + "; 47 measures: `contenders.CLASSIC_47` (trec_eval's "
        "`all_trec` measures that irframe computes, at trec_eval's default cutoffs).",
        "",
        "## Targets",
        "",
        *targets(latest),
        "",
        "## Results",
        "",
    ]
    order = {s: i for i, s in enumerate(SHAPES)}
    body = [table(d) + "\n" for _, d in sorted(latest.items(), key=lambda kv: order.get(kv[0], 99))]
    return "\n".join([*head, *body])


def write_reports() -> None:
    RESULTS.mkdir(parents=True, exist_ok=True)
    md = render()
    (RESULTS / "latest.md").write_text(md)
    readme = HERE / "README.md"
    start, end = "<!-- trecfiles:start -->", "<!-- trecfiles:end -->"
    text = readme.read_text() if readme.exists() else ""
    if start in text and end in text:
        pre, rest = text.split(start, 1)
        _, post = rest.split(end, 1)
        body = md.split("\n", 1)[1].replace("\n## ", "\n### ")
        readme.write_text(f"{pre}{start}\n{body}\n{end}{post}")


def _irframe_path() -> str:
    p = subprocess.run(
        [sys.executable, "-c", "import irframe; print(irframe.__file__)"],
        capture_output=True,
        text=True,
        check=False,
    )
    return p.stdout.strip() or p.stderr.strip()[-300:]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--trec-eval", metavar="PATH", help="trec_eval binary (../shared/tools/trec_eval/build.sh)"
    )
    ap.add_argument(
        "--shapes", default=",".join(DEFAULT_SHAPES), help=f"comma-separated subset of {', '.join(SHAPES)}"
    )
    ap.add_argument("--measures", default="5,47", help="measure sets: 5, 47 or 5,47")
    ap.add_argument("--repeats", type=int, default=3, help="interleaved rounds (>= 3 advised)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-save", action="store_true", help="print only; write no result files")
    ap.add_argument("--report-only", action="store_true")
    args = ap.parse_args(argv)
    if args.report_only:
        write_reports()
        print((RESULTS / "latest.md").read_text())
        return 0
    if not args.trec_eval or not os.access(args.trec_eval, os.X_OK):
        ap.error("--trec-eval PATH: an executable trec_eval binary is needed")
    args.trec_eval = str(Path(args.trec_eval).resolve())
    unknown = [s for s in args.shapes.split(",") if s not in SHAPES]
    bad_sets = [s for s in args.measures.split(",") if s not in MEASURE_SETS]
    if unknown or bad_sets:
        ap.error(f"unknown shape(s) {unknown} or measure set(s) {bad_sets}; shapes: {list(SHAPES)}")
    mach = R.machine()
    R.compile_bytecode()  # (as an installed irframe: no module compiled at each start)
    imp_ms = R.import_time("irframe")
    imp_pl_ms = R.import_time("irframe", "polars")  # (import irframe alone loads no polars)
    where = _irframe_path()
    print(
        f"{mach['cpu']}, {mach['cores']} cores; import irframe {imp_ms} ms, "
        f"import irframe, polars {imp_pl_ms} ms; irframe from {where}"
    )
    with tempfile.TemporaryDirectory(prefix="irframe-trecfiles-") as tmp:
        fixed = fixed_cost(args, Path(tmp))
        for shape in args.shapes.split(","):
            out = bench_shape(shape, args, Path(tmp))
            stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
            out.update(
                {
                    "timestamp": stamp,
                    "repeats": args.repeats,
                    "machine": mach,
                    "import_ms": imp_ms,
                    "import_polars_ms": imp_pl_ms,
                    "fixed_cost": fixed,
                    "irframe_path": where,
                    "trec_eval": args.trec_eval,
                    "measure_sets": {s: MEASURE_SETS[s] for s in args.measures.split(",")},
                }
            )
            if args.no_save:
                out["_file"] = "(not saved)"
                print("\n" + table(out))
                continue
            RESULTS.mkdir(parents=True, exist_ok=True)
            f = RESULTS / f"{stamp}-{shape}.json"
            f.write_text(json.dumps(out, indent=1, default=str))
            print(f"  -> {f.relative_to(HERE.parent)}")
            write_reports()
    if not args.no_save:
        print("\n" + (RESULTS / "latest.md").read_text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
