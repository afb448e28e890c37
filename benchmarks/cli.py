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
* ``irframe-eval-5``: the same with the floor's five measures (``-m``).

The inputs are the bundled golden set's ``qrels.txt`` and ``runs/bm25.run`` (148 judgments,
800 run lines).  Ratios are taken within each round, then the median over rounds.  Target
(issue 44): ``irframe eval`` <= 1.3x the floor, in wall time and in peak RSS.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results" / "cli"
TARGET = 1.3
FIVE = ["nDCG(gain=linear)@10", "P@10", "R@100", "RR", "AP"]


def floor(qrels_path: str, run_path: str) -> None:
    """The floor process's work: read both files with polars, the lean plan, print the means."""
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
    print(lean.lean(run, qrels).select(pl.col(lean.MEASURES).mean()))


def _commands(qrels: Path, run: Path) -> dict[str, list[str]]:
    py = sys.executable
    return {
        "import-polars": [py, "-c", "import polars"],
        "floor": [py, str(Path(__file__).resolve()), "--floor", str(qrels), str(run)],
        "irframe-eval": [py, "-m", "irframe", "eval", str(qrels), str(run)],
        "irframe-eval-5": [
            py,
            "-m",
            "irframe",
            "eval",
            *(a for m in FIVE for a in ("-m", m)),
            str(qrels),
            str(run),
        ],
    }


def bench(rounds: int) -> dict[str, Any]:
    import contenders as C
    from irframe.datasets import golden_paths

    paths = golden_paths()
    qrels, run = paths.qrels, paths.runs["bm25"]
    cmds = _commands(qrels, run)
    names = list(cmds)
    wall: dict[str, list[float]] = {n: [] for n in names}
    rss: dict[str, list[int]] = {n: [] for n in names}
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out.txt"
        for name in names:  # warm the file cache and the bytecode once
            C.run_child(cmds[name], out)
        for r in range(rounds):
            for name in names[r % len(names) :] + names[: r % len(names)]:
                seconds, peak = C.run_child(cmds[name], out)
                wall[name].append(seconds)
                rss[name].append(peak)
    return {"wall": wall, "rss": rss, "load": os.getloadavg()}


def _ratio(a: list[float], b: list[float]) -> float:
    return statistics.median(x / y for x, y in zip(a, b, strict=True))


def report(result: dict[str, Any]) -> str:
    wall, rss = result["wall"], result["rss"]
    lines = ["| process | wall (median) | peak RSS (median) |", "|---|---|---|"]
    for name in wall:
        peak = statistics.median(rss[name]) / 2**20
        lines.append(f"| {name} | {statistics.median(wall[name]):.3f} s | {peak:.0f} MB |")
    lines += ["", "| target | wall ratio | RSS ratio | at most | met |", "|---|---|---|---|---|"]
    for name in ("irframe-eval", "irframe-eval-5"):
        w, m = _ratio(wall[name], wall["floor"]), _ratio(rss[name], rss["floor"])
        met = "yes" if w <= TARGET and m <= TARGET else "NO"
        lines.append(f"| {name} / floor | {w:.2f}x | {m:.2f}x | {TARGET}x | {met} |")
    load = ", ".join(f"{x:.1f}" for x in result["load"])
    lines += ["", f"Load average at the end (1, 5, 15 min): {load}; {len(wall['floor'])} rounds."]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--floor", nargs=2, metavar=("QRELS", "RUN"), help="run the floor process's work")
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--no-save", action="store_true")
    args = parser.parse_args(argv)
    if args.floor:
        floor(*args.floor)
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
