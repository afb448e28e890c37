"""irframe against an older tree of itself on the small-input cases (``small.py``), in
interleaved rounds of fresh processes.

    python benchmarks/versus.py --base ../old/src --rounds 5
    python benchmarks/versus.py --base ../old/src --head src --rounds 7 --rows 1e3,1e4

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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", required=True, help="the older tree's src")
    ap.add_argument("--head", default=str(HERE.parent / "src"), help="the newer tree's src (default: here)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--rows", default="1e3,1e4")
    ap.add_argument("--calls", type=int, default=15)
    ap.add_argument("--no-golden", action="store_true")
    ap.add_argument("--clock", choices=("wall", "cpu"), default="cpu", help="see small.py --clock")
    ap.add_argument("--no-save", action="store_true")
    args = ap.parse_args(argv)
    load = os.getloadavg()
    rounds: list[dict[str, dict[str, Any]]] = []
    for r in range(args.rounds):
        order = ("head", "base") if r % 2 == 0 else ("base", "head")
        got = {
            w: _one(getattr(args, w), args.rows, args.calls, not args.no_golden, args.clock) for w in order
        }
        rounds.append({w: _cases(got[w]) for w in got})
        print(f"round {r + 1}/{args.rounds} done (load {os.getloadavg()[0]:.1f})", flush=True)
    lines = [
        f"head {args.head} / base {args.base}: {args.rounds} rounds (median of per-round ratios; "
        f"{args.clock} time)",
        "",
        "| case | head / base | normalized by pytrec_eval |",
        "|---|---|---|",
    ]
    summary: dict[str, dict[str, float | None]] = {}
    for case in rounds[0]["head"]:
        raw = [x["head"][case][0] / x["base"][case][0] for x in rounds]
        normed = [
            (x["head"][case][0] / x["head"][case][1]) / (x["base"][case][0] / x["base"][case][1])
            for x in rounds
            if x["head"][case][1] and x["base"][case][1]
        ]
        summary[case] = {
            "raw": statistics.median(raw),
            "normalized": statistics.median(normed) if normed else None,
        }
        n = f"{summary[case]['normalized']:.2f}x" if normed else "-"
        lines.append(f"| {case} | {summary[case]['raw']:.2f}x | {n} |")
    after = os.getloadavg()
    lines.append(
        f"\nLoad average (1, 5, 15 min) before: {', '.join(f'{x:.1f}' for x in load)}; "
        f"after: {', '.join(f'{x:.1f}' for x in after)}."
    )
    text = "\n".join(lines) + "\n"
    print(text)
    if not args.no_save:
        RESULTS.mkdir(parents=True, exist_ok=True)
        stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        raw = {"when": stamp, "head": args.head, "base": args.base, "clock": args.clock, "rounds": rounds,
               "summary": summary, "load": {"before": load, "after": after}}  # fmt: skip
        (RESULTS / f"{stamp}-small.json").write_text(json.dumps(raw, indent=1))
        (RESULTS / f"{stamp}-small.md").write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
