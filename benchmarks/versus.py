"""irframe against an older tree of itself on the small-input cases (``small.py``), in
interleaved rounds of fresh processes.

    python benchmarks/versus.py --base ../old/src --rounds 5
    python benchmarks/versus.py --base ../old/src --head before=../main/src --head after=src

Each round runs ``small.py --rounds 1 --clock cpu`` (default; ``--clock wall``) once per
tree (``PYTHONPATH=<tree>``; the order alternates per round), and every case's time in
the head tree's run is divided by its time in the base tree's run of the same round; the
median over rounds is reported, beside the same ratio normalized by pytrec_eval's time in
each process (which neither tree changes: it cancels a change of load between the two
processes).  ``run.py --baseline SRC`` does the same for the large sizes, inside one run.
Results: ``results/versus/``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results" / "versus"
NORMALIZER = "pytrec_eval"


def _one(tree: str, rows: str, calls: int, golden: bool, clock: str) -> dict[str, Any]:
    """One ``small.py --rounds 1`` in a fresh process importing irframe from ``tree``."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "small.json"
        cmd = [sys.executable, str(HERE / "small.py"), "--rounds", "1", "--calls", str(calls),
               "--rows", rows, "--no-save", "--json", str(out), "--clock", clock]  # fmt: skip
        if not golden:
            cmd.append("--no-golden")
        env = {**os.environ, "PYTHONPATH": str(Path(tree).resolve())}
        subprocess.run(cmd, env=env, check=True, capture_output=True)
        return json.loads(out.read_text())  # type: ignore[no-any-return]


def _cases(result: dict[str, Any]) -> dict[str, tuple[float, float | None]]:
    """Every case's time, and the time of the normalizer measured beside it (None: none)."""
    out: dict[str, tuple[float, float | None]] = {}
    for size in result["sizes"]:
        times = size["times"]
        norm = times.get(NORMALIZER, [None])[0]
        for name, t in times.items():
            if name.startswith("irframe"):
                out[f"{name} @ {size['rows']:,}"] = (t[0], norm)
    for name, t in result.get("golden", {}).items():
        if not name.startswith(("ranx", "stats-floor")):
            out[name] = (t[0], None)
    return out


def _table(rounds: list[dict[str, Any]], heads: list[str]) -> tuple[list[str], dict[str, Any]]:
    """One row per case: each head's median over rounds of head / base (raw and normalized)."""
    lines = ["| case | " + " | ".join(f"{h} / base | (normalized)" for h in heads) + " |",
             "|---|" + "---|---|" * len(heads)]  # fmt: skip
    summary: dict[str, Any] = {}
    for case in rounds[0]["base"]:
        cells, summary[case] = [], {}
        for h in heads:
            raw = [x[h][case][0] / x["base"][case][0] for x in rounds]
            normed = [
                (x[h][case][0] / x[h][case][1]) / (x["base"][case][0] / x["base"][case][1])
                for x in rounds
                if x[h][case][1] and x["base"][case][1]
            ]
            got = {"raw": statistics.median(raw), "normalized": statistics.median(normed) if normed else None}
            summary[case][h] = got
            cells += [f"{got['raw']:.2f}x", "-" if got["normalized"] is None else f"{got['normalized']:.2f}x"]
        lines.append(f"| {case} | " + " | ".join(cells) + " |")
    return lines, summary


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", required=True, help="the older tree's src")
    ap.add_argument(
        "--head", action="append", metavar="[NAME=]SRC",
        help="a newer tree's src (repeatable: each against the same base runs; default: this tree's)",
    )  # fmt: skip
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--rows", default="1e3,1e4")
    ap.add_argument("--calls", type=int, default=15)
    ap.add_argument("--no-golden", action="store_true")
    ap.add_argument("--clock", choices=("wall", "cpu"), default="cpu", help="see small.py --clock")
    ap.add_argument("--no-save", action="store_true")
    args = ap.parse_args(argv)
    trees = {"base": args.base}
    for i, spec in enumerate(args.head or [str(HERE.parent / "src")]):
        name, _, src = spec.rpartition("=")
        trees[name or f"head{i + 1}"] = src
    heads = [t for t in trees if t != "base"]
    load = os.getloadavg()
    rounds: list[dict[str, Any]] = []
    for r in range(args.rounds):
        names = list(trees)
        order = names[r % len(names) :] + names[: r % len(names)]  # rotated per round
        got = {w: _one(trees[w], args.rows, args.calls, not args.no_golden, args.clock) for w in order}
        rounds.append({w: _cases(got[w]) for w in got})
        print(f"round {r + 1}/{args.rounds} done (load {os.getloadavg()[0]:.1f})", flush=True)
    table, summary = _table(rounds, heads)
    after = os.getloadavg()
    lines = [
        f"{', '.join(f'{h} = {trees[h]}' for h in heads)}; base = {args.base}: {args.rounds} rounds, "
        f"median of per-round ratios, {args.clock} time",
        "",
        *table,
        f"\nLoad average (1, 5, 15 min) before: {', '.join(f'{x:.1f}' for x in load)}; "
        f"after: {', '.join(f'{x:.1f}' for x in after)}.",
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    if not args.no_save:
        RESULTS.mkdir(parents=True, exist_ok=True)
        stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        raw = {"when": stamp, "trees": trees, "clock": args.clock, "rounds": rounds, "summary": summary,
               "load": {"before": load, "after": after}}  # fmt: skip
        (RESULTS / f"{stamp}-small.json").write_text(json.dumps(raw, indent=1))
        (RESULTS / f"{stamp}-small.md").write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
