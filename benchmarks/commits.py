"""irframe against itself: ``evaluate`` at two (or more) commits, same data, same machine.

    python benchmarks/commits.py --rows 1e7 --revs f16b56d^ HEAD --repeats 3
    python benchmarks/commits.py --rows 1e6 --revs main HEAD --input pandas --ordered

Answers "is this change faster than that one, and does it give the same numbers?".  Each
revision is checked out once into a temporary git worktree; every timing is a fresh
process (``PYTHONPATH=<worktree>/src``) that loads the cached benchmark frames
(:mod:`synth`), makes one untimed warm-up call on a 20-query subset, then times one
``irframe.evaluate(..., per_query=True, missing="drop")`` of the five benchmark measures.
Rounds are interleaved (the revisions' order rotates per round); the ratio to the first
revision is taken within each round, and the median over rounds is reported.  Peak RSS
beyond the loaded inputs is read as in ``run.py``.

Agreement: round 1 of every revision writes its per-query table; each is compared with the
first revision's, query for query (to ``TOL``), before any time is printed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
TOL = 1e-12

_CHILD = r"""
import gc, json, sys, time
sys.path.insert(0, {bench!r})
import polars as pl
import contenders as C, synth
import run as R
rows, ordered, inp, out = {rows}, {ordered}, {inp!r}, {out!r}
run, qrels = synth.make(rows, ordered=ordered)
if inp == "polars":
    run, qrels = pl.from_pandas(run), pl.from_pandas(qrels)
import irframe
small = run[: 20 * 100]
irframe.evaluate(small, C.MEASURES, qrels, per_query=True, missing="drop")
gc.collect()
R._reset_peak()
before = R._status()["VmRSS"]
t0 = time.perf_counter()
res = irframe.evaluate(run, C.MEASURES, qrels, per_query=True, missing="drop")
secs = time.perf_counter() - t0
extra = (R._status()["VmHWM"] - before) / 2**20
if out:
    (res if isinstance(res, pl.DataFrame) else pl.from_pandas(res)).write_parquet(out)
print(json.dumps({{"s": secs, "extra_mb": extra}}))
"""


def _worktree(rev: str, into: Path) -> Path:
    path = into / rev.replace("/", "_").replace("^", "_parent")
    subprocess.run(["git", "-C", str(REPO), "worktree", "add", "-q", "--detach", str(path), rev], check=True)
    return path


def _time_one(tree: Path, args: argparse.Namespace, out: str) -> dict[str, float]:
    code = _CHILD.format(bench=str(HERE), rows=args.rows, ordered=args.ordered, inp=args.input, out=out)
    env = {**os.environ, "PYTHONPATH": str(tree / "src")}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False)
    if done.returncode:
        msg = f"{tree.name}: the timing process failed:\n{done.stderr[-3000:]}"
        raise SystemExit(msg)
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _agree(first: str, other: str, rev: str) -> str:
    import polars as pl

    a, b = pl.read_parquet(first), pl.read_parquet(other)
    keys = [c for c in a.columns if a.schema[c] == pl.String]
    if a.height != b.height:
        return f"{rev}: {b.height} queries, the first revision {a.height}: DIFFERENT"
    j = a.join(b, on=keys, how="inner", suffix="_b")
    worst = max(float(j.select((pl.col(c) - pl.col(f"{c}_b")).abs().max()).item() or 0.0)
                for c in a.columns if c not in keys)  # fmt: skip
    verdict = "same" if j.height == a.height and worst <= TOL else "DIFFERENT"
    return f"{rev}: {j.height} queries, largest difference {worst:.1e}: {verdict}"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--rows", type=lambda s: int(float(s)), default=10**6)
    p.add_argument("--revs", nargs="+", default=["main", "HEAD"], help="the first is the reference")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--input", choices=["polars", "pandas"], default="polars")
    p.add_argument("--ordered", action="store_true")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="irframe-revs-") as tmp:
        trees = [_worktree(r, Path(tmp)) for r in args.revs]
        try:
            times: dict[str, list[float]] = {r: [] for r in args.revs}
            extra: dict[str, list[float]] = {r: [] for r in args.revs}
            outs = {r: str(Path(tmp) / f"{i}.parquet") for i, r in enumerate(args.revs)}
            for rnd in range(args.repeats):
                order = list(range(len(args.revs)))
                order = order[rnd % len(order) :] + order[: rnd % len(order)]
                for i in order:
                    rev = args.revs[i]
                    got = _time_one(trees[i], args, outs[rev] if rnd == 0 else "")
                    times[rev].append(got["s"])
                    extra[rev].append(got["extra_mb"])
                if rnd == 0:
                    for rev in args.revs[1:]:
                        print("agreement:", _agree(outs[args.revs[0]], outs[rev], rev))
            _report(args, times, extra)
            _save(args, times, extra)
        finally:
            for t in trees:
                subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(t)], check=False)
    return 0


def _save(args: argparse.Namespace, times: dict[str, list[float]], extra: dict[str, list[float]]) -> None:
    """Write results/commits/<UTC time>-commits-<rows>[-ordered]-<input>.json: every round."""
    from datetime import datetime, timezone

    def sha(rev: str) -> str:
        cmd = ["git", "-C", str(REPO), "rev-parse", rev]
        out = subprocess.run(cmd, capture_output=True, text=True, check=True)
        return out.stdout.strip()

    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    name = f"{stamp}-commits-{args.rows:.0e}{'-ordered' if args.ordered else ''}-{args.input}.json"
    revisions = {r: {"commit": sha(r), "seconds": times[r], "extra_mb": extra[r]} for r in times}
    data = {"rows": args.rows, "input": args.input, "ordered": args.ordered, "revisions": revisions}
    out = HERE / "results" / "commits"
    out.mkdir(parents=True, exist_ok=True)
    (out / name.replace("+", "")).write_text(json.dumps(data, indent=1) + "\n")


def _report(args: argparse.Namespace, times: dict[str, list[float]], extra: dict[str, list[float]]) -> None:
    ref = args.revs[0]
    shape = f"{args.rows:.0e} rows, {args.input} input, {'ordered' if args.ordered else 'unsorted'}"
    print(f"\n{shape}; {args.repeats} interleaved rounds; ratio = {ref} time / revision time (> 1: faster)")
    print("| revision | median s | all s | ratio (median of rounds) | peak MB beyond inputs |")
    print("|---|---:|---|---:|---:|")
    for rev, ts in times.items():
        ratio = statistics.median(a / b for a, b in zip(times[ref], ts, strict=True))
        all_s = ", ".join(f"{t:.2f}" for t in ts)
        print(f"| {rev} | {statistics.median(ts):.3f} | {all_s} | {ratio:.2f}x | {max(extra[rev]):.0f} |")


if __name__ == "__main__":
    raise SystemExit(main())
