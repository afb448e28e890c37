"""The command line's start at golden-set size: ``irframe eval`` as a process against the floor.

    python benchmarks/cli.py                 # 9 interleaved rounds, results/cli/
    python benchmarks/cli.py --rounds 7 --no-save
    python benchmarks/cli.py --floor QRELS RUN     # the floor process itself (what is timed)

Each round runs, as separate processes in an order rotated per round (wall time and peak RSS
of each child from ``os.wait4`` in a small launcher, ``contenders.run_child``):

* ``import-polars``: ``python -c "import polars"``;
* ``floor``: this file with ``--floor``: imports polars, reads the two TREC files
  (``pl.read_csv``), runs the lean plan (:mod:`lean`: five measures, exact) and prints the means;
* ``irframe-eval``: ``python -m irframe eval QRELS RUN`` (its default measures, a table of means);
* ``irframe-eval-5``: the same with the floor's five measures (``-m``);
* ``floor-check``: the floor for two runs (hybrid and bm25) and the statistics ``check``
  reports for its three default measures: ``irframe.stats``' randomization test (10,000
  sign vectors) and bootstrap CI (10,000 resamples) of the per-query deltas;
* ``irframe-check``: ``python -m irframe check QRELS hybrid.run -b bm25.run`` (text report).

The inputs are the bundled golden set's ``qrels.txt`` and ``runs/bm25.run`` (148 judgments,
800 run lines).  Ratios are taken within each round, then the median over rounds.  Target
(issue 44): ``irframe eval`` <= 1.3x the floor, in wall time and in peak RSS; ``irframe
check`` likewise against ``floor-check``.  The CPU time
(user + system) of each child is reported too: on a loaded machine the wall time is mostly
waiting for a core.  irframe's and ``lean.py``'s bytecode is compiled first (``compileall``,
as ``pip install`` does): with ``PYTHONDONTWRITEBYTECODE`` set, every start would otherwise
compile irframe's modules from source (~0.3 s of CPU), which an installed irframe never does.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results" / "cli"
TARGET = 1.3
FIVE = ["nDCG(gain=linear)@10", "P@10", "R@100", "RR", "AP"]


def _read(qrels_path: str, run_path: str) -> tuple[Any, Any]:
    import polars as pl

    import lean

    run = pl.read_csv(
        run_path, separator=" ", has_header=False, new_columns=[lean.Q, "q0", lean.D, "rank", lean.S, "tag"],
        schema_overrides={"column_1": pl.String, "column_3": pl.String},
    ).select(lean.Q, lean.D, lean.S)  # fmt: skip
    qrels = pl.read_csv(
        qrels_path, separator=" ", has_header=False, new_columns=[lean.Q, "iter", lean.D, lean.REL],
        schema_overrides={"column_1": pl.String, "column_3": pl.String},
    ).select(lean.Q, lean.D, lean.REL)  # fmt: skip
    return run, qrels


def floor(qrels_path: str, run_path: str) -> None:
    """The floor process's work: read both files with polars, the lean plan, print the means."""
    import polars as pl

    import lean

    run, qrels = _read(qrels_path, run_path)
    print(lean.lean(run, qrels).select(pl.col(lean.MEASURES).mean()))


def floor_check(qrels_path: str, candidate: str, baseline: str) -> None:
    """The floor of ``check``: the lean plan for both runs, then per measure of check's three
    the paired randomization test and the bootstrap CI of the per-query deltas."""
    import lean
    from irframe.stats import bootstrap_ci, paired_test

    (cand, qrels), (base, _) = _read(qrels_path, candidate), _read(qrels_path, baseline)
    a, b = lean.lean(cand, qrels), lean.lean(base, qrels)
    for m in ("nDCG(gain=linear)@10", "RR", "R@100"):
        x, y = a.get_column(m).to_numpy(), b.get_column(m).to_numpy()
        test = paired_test(x, y, test="randomization", n_permutations=10_000, seed=0)
        print(m, float(x.mean() - y.mean()), test.p_value, bootstrap_ci(x, y, n_bootstrap=10_000, seed=0))


def _commands(qrels: Path, run: Path, candidate: Path) -> dict[str, list[str]]:
    py, here = sys.executable, str(Path(__file__).resolve())
    five = [a for m in FIVE for a in ("-m", m)]
    return {
        "import-polars": [py, "-c", "import polars"],
        "floor": [py, here, "--floor", str(qrels), str(run)],
        "irframe-eval": [py, "-m", "irframe", "eval", str(qrels), str(run)],
        "irframe-eval-5": [py, "-m", "irframe", "eval", *five, str(qrels), str(run)],
        "floor-check": [py, here, "--floor-check", str(qrels), str(candidate), str(run)],
        "irframe-check": [py, "-m", "irframe", "check", str(qrels), str(candidate), "-b", str(run)],
    }


# Runs one command: its wall time, peak RSS and CPU time (user + system), from ``os.wait4`` in
# a fresh small interpreter (see ``contenders.run_child`` for why a launcher).  argv: out, command...
_LAUNCHER = """
import os, subprocess, sys, time
with open(sys.argv[1], "wb") as out:
    t0 = time.perf_counter()
    proc = subprocess.Popen(sys.argv[2:], stdout=out, stderr=subprocess.PIPE)
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    dt = time.perf_counter() - t0
sys.stderr.buffer.write(err[-3000:])
print(dt, usage.ru_maxrss * 1024, usage.ru_utime + usage.ru_stime, os.waitstatus_to_exitcode(status))
"""


def _child(cmd: list[str], out: Path) -> tuple[float, int, float]:
    launcher = [sys.executable, "-S", "-c", _LAUNCHER, str(out), *cmd]
    p = subprocess.run(launcher, capture_output=True, text=True, check=False)
    dt, peak, cpu, rc = p.stdout.split()
    if int(rc) != 0:
        msg = f"{' '.join(cmd)} exited with {rc}: {p.stderr[-3000:]}"
        raise RuntimeError(msg)
    return float(dt), int(peak), float(cpu)


def bench(rounds: int) -> dict[str, Any]:
    import irframe
    from irframe.datasets import golden_paths

    for where in (Path(irframe.__file__).parent, HERE / "lean.py"):  # (as pip install does)
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(where)], check=True)
    paths = golden_paths()
    cmds = _commands(paths.qrels, paths.runs["bm25"], paths.runs["hybrid"])
    names = list(cmds)
    times: dict[str, dict[str, list[Any]]] = {k: {n: [] for n in names} for k in ("wall", "rss", "cpu")}
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out.txt"
        for name in names:  # warm the file cache once
            _child(cmds[name], out)
        for r in range(rounds):
            for name in names[r % len(names) :] + names[: r % len(names)]:
                for key, value in zip(("wall", "rss", "cpu"), _child(cmds[name], out), strict=True):
                    times[key][name].append(value)
    return {**times, "load": {"before": load_before, "after": os.getloadavg()}}


def _ratio(a: list[float], b: list[float]) -> float:
    return statistics.median(x / y for x, y in zip(a, b, strict=True))


def report(result: dict[str, Any]) -> str:
    wall, rss, cpu = result["wall"], result["rss"], result["cpu"]
    lines = ["| process | wall (median) | CPU (median) | peak RSS (median) |", "|---|---|---|---|"]
    for name in wall:
        w, c, peak = (statistics.median(x[name]) for x in (wall, cpu, rss))
        lines.append(f"| {name} | {w:.3f} s | {c:.3f} s | {peak / 2**20:.0f} MB |")
    lines += [
        "",
        "| target | wall ratio | RSS ratio | (CPU ratio) | at most | met |",
        "|---|---|---|---|---|---|",
    ]
    for name, base in (
        ("irframe-eval", "floor"),
        ("irframe-eval-5", "floor"),
        ("irframe-check", "floor-check"),
    ):
        w, m, c = (_ratio(x[name], x[base]) for x in (wall, rss, cpu))
        met = "yes" if w <= TARGET and m <= TARGET else "NO"
        lines.append(f"| {name} / {base} | {w:.2f}x | {m:.2f}x | {c:.2f}x | {TARGET}x | {met} |")
    before, after = (", ".join(f"{x:.1f}" for x in result["load"][k]) for k in ("before", "after"))
    lines += [
        "",
        f"Load average (1, 5, 15 min) before: {before}; after: {after}; {len(wall['floor'])} rounds.",
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--floor", nargs=2, metavar=("QRELS", "RUN"), help="run the floor process's work")
    parser.add_argument("--floor-check", nargs=3, metavar=("QRELS", "CANDIDATE", "BASELINE"))
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--no-save", action="store_true")
    args = parser.parse_args(argv)
    if args.floor:
        floor(*args.floor)
        return 0
    if args.floor_check:
        floor_check(*args.floor_check)
        return 0
    result = bench(args.rounds)
    result["when"] = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    result["machine"] = {"python": sys.version.split()[0], "platform": platform.platform()}
    text = report(result)
    print(text)
    if not args.no_save:
        RESULTS.mkdir(parents=True, exist_ok=True)
        (RESULTS / f"{result['when']}-cli.json").write_text(json.dumps(result, indent=1))
        (RESULTS / "latest.md").write_text(f"# The command line's start ({result['when']})\n\n{text}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
