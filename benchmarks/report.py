"""The report of ``run.py``'s results: ``results/latest.md``, ``results/scaling.png``, the README table.

    python benchmarks/report.py        # re-render from the result files (= run.py --report-only)

``run.py`` is the harness (workers, interleaved rounds, agreement, the JSON files); this
module reads those files and renders them, with the targets of the benchmark issues.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
TOL = 1e-9  # per-query agreement of every contender with irframe
TARGET_PEER = 5.0  # irframe >= 5x faster than pytrec_eval at 1e6, 1e7
TARGET_FLOOR = 1.3  # irframe-polars <= 1.3x polars-floor
TARGET_NUMPY = 3.0  # ordered input: irframe-polars <= 3x numpy-pass
TARGET_47 = 1.5  # the 47 classic trec measures <= 1.5x the time of the five


def _fmt_rows(n: int) -> str:
    e = len(str(n)) - 1
    return f"1e{e}" if n == 10**e else f"{n:,}"


def _latest_files() -> dict[tuple[int, bool], dict[str, Any]]:
    out: dict[tuple[int, bool], dict[str, Any]] = {}
    for f in sorted(RESULTS.glob("*.json")):
        try:
            d = json.loads(f.read_text())
        except (OSError, json.JSONDecodeError):
            continue
        if "rows" not in d or "ordered" not in d:  # another script's result (compare_all.json)
            continue
        d["_file"] = f.name
        out[(d["rows"], d["ordered"])] = d  # sorted by timestamp: later wins
    return out


def _x(v: float | None) -> str:
    return "" if v is None else f"{v:.2f}x"


def table(d: dict[str, Any]) -> str:
    lines = [
        f"**{_fmt_rows(d['rows'])} rows** ({'ordered' if d['ordered'] else 'unsorted'} input, "
        f"{d['queries']:,} queries x {d['docs_per_query']} docs, {d['qrels_rows']:,} qrels rows; "
        f"median of {d['repeats']} interleaved rounds; `{d['_file']}`)",
        "",
        "| contender | median s | time / irframe-pandas | time / irframe-polars | extra MB "
        "| agrees with irframe | phases (median s) |",
        "|---|---:|---:|---:|---:|---|---|",
    ]
    for n, r in d["contenders"].items():
        if "skipped" in r:
            lines.append(f"| {n} | skipped: {r['skipped']} | | | | | |")
            continue
        if not r.get("times"):
            lines.append(f"| {n} | {r.get('error') or 'no result'} | | | | | |")
            continue
        ex = r.get("extra_max_bytes")
        a = r.get("agreement")
        if n == d.get("reference"):
            agree = "reference"
        elif a is None:
            agree = "n/a (computes no measure)"
        elif a["ok"]:
            within = f", to {a['tolerance']:.1g}" if a.get("tolerance", TOL) > TOL else ""
            agree = f"yes ({a['common_queries']:,} q{within})"
        elif a.get("ok_on_tie_free"):
            agree = (
                f"tie order differs: {a['mismatched_queries']:,} q (all have a tied score "
                f"mixing gains); exact on the other {a['tie_free_queries']:,} q"
            )
        else:
            agree = f"NO: {a['mismatched_queries']:,} of {a['common_queries']:,} q"
        ph = ", ".join(f"{k} {v:.3f}" for k, v in (r.get("phases_median") or {}).items())
        err = f" ({r['error']} in a later round)" if r.get("error") else ""
        lines.append(
            f"| {n} | {r['median_s']:.3f}{err} | {_x(r.get('x_irframe_pandas'))} "
            f"| {_x(r.get('x_irframe_polars'))} | "
            f"{'' if ex is None else f'{ex / 2**20:.0f}'} | {agree} | {ph} |"
        )
    c = d["contenders"]
    inp = c.get("irframe-pandas", {}).get("input_bytes") or next(
        (r.get("input_bytes") for r in c.values() if r.get("input_bytes")), None
    )
    conv = c.get("irframe-polars", {}).get("prepare_s")
    notes = []
    if inp:
        notes.append(f"input size (pandas run + qrels, deep): {inp / 2**20:.0f} MB")
    pinp = c.get("irframe-polars", {}).get("input_bytes")
    if pinp:
        notes.append(f"as polars frames (estimated_size): {pinp / 2**20:.0f} MB")
    if conv is not None:
        notes.append(f"pl.from_pandas(run) + pl.from_pandas(qrels), untimed in irframe-polars: {conv:.3f} s")
    if notes:
        lines += ["", "; ".join(notes) + "."]
    return "\n".join(lines)


def _c(d: dict[str, Any], n: str) -> dict[str, Any]:
    """Contender ``n``'s record in the size result ``d`` ({} when absent)."""
    return d["contenders"].get(n, {})


def _unsorted_targets(rows: int, d: dict[str, Any], tag: str) -> list[str]:
    """Target rows that only apply to unsorted input: peer speed-up, floors, 47 measures."""
    out = []
    if rows >= 10**6:
        v = _c(d, "pytrec_eval").get("x_irframe_pandas")
        out.append(
            f"| pytrec_eval time / irframe-pandas time >= {TARGET_PEER:g} "
            f"(end to end from pandas) | {tag} | {_x(v) or 'n/a'} | "
            f"{'n/a' if v is None else ('met' if v >= TARGET_PEER else 'NOT met')} |"
        )
    v = _c(d, "pytrec_eval").get("x_irframe_pandas_graded")
    if rows >= 10**6 and v:
        out.append(
            f"| (info) pytrec_eval time / irframe-pandas-graded time (one frame with grades on its "
            f"rows, no join) | {tag} | {_x(v)} | - |"
        )
    f = _c(d, "polars-floor").get("x_irframe_polars")
    if f:
        v = 1 / f
        out.append(
            f"| irframe-polars / polars-floor <= {TARGET_FLOOR:g} | {tag} | {_x(v)} | "
            f"{'met' if v <= TARGET_FLOOR else 'NOT met'} |"
        )
    g = _c(d, "polars-floor-grouped").get("x_irframe_polars")
    if g:
        out.append(f"| (info) irframe-polars / polars-floor-grouped | {tag} | {_x(1 / g)} | - |")
    v = _c(d, "irframe-polars-47").get("x_irframe_polars")
    if v:
        out.append(
            f"| 47 classic trec measures / 5 measures (irframe-polars) <= {TARGET_47:g} | {tag} | "
            f"{_x(v)} | {'met' if v <= TARGET_47 else 'NOT met'} |"
        )
    return out


def _trec_eval_or_numpy_target(d: dict[str, Any], tag: str) -> list[str]:
    """The trec_eval info row when it ran; otherwise the numpy-pass target when that ran."""
    te = _c(d, "trec_eval")
    if te.get("x_irframe_pandas"):
        return [
            f"| (info) trec_eval on TREC files / irframe-pandas on frames (5 measures; see "
            f"trecfiles.py for the CLI) | {tag} | {_x(te['x_irframe_pandas'])} | - |"
        ]
    f = _c(d, "numpy-pass").get("x_irframe_polars")
    if f:
        v = 1 / f
        return [
            f"| ordered input: irframe-polars / numpy-pass <= {TARGET_NUMPY:g} | "
            f"{tag} | {_x(v)} | {'met' if v <= TARGET_NUMPY else 'NOT met'} |"
        ]
    return []


def _memory_targets(d: dict[str, Any], tag: str, ordered: bool) -> list[str]:
    """Peak memory beyond the inputs: the grouped floor (info) and the irframe targets."""
    out = []
    fl = _c(d, "polars-floor-grouped")
    if fl.get("extra_max_bytes") is not None and fl.get("input_bytes"):
        out.append(
            f"| (info) polars-floor-grouped: peak memory beyond inputs "
            f"({'ordered' if ordered else 'unsorted'}) | {tag} | "
            f"{fl['extra_max_bytes'] / 2**20:.0f} MB = "
            f"{fl['extra_max_bytes'] / fl['input_bytes']:.2f} x input | - |"
        )
    for n in ("irframe-pandas", "irframe-polars"):
        r = _c(d, n)
        if r.get("extra_max_bytes") is not None and r.get("input_bytes"):
            v = r["extra_max_bytes"] / r["input_bytes"]
            out.append(
                f"| {n}: peak memory beyond inputs < input size "
                f"({'ordered' if ordered else 'unsorted'}) | {tag} | "
                f"{r['extra_max_bytes'] / 2**20:.0f} MB = {v:.2f} x input | "
                f"{'met' if v < 1 else 'NOT met'} |"
            )
    return out


def targets(latest: dict[tuple[int, bool], dict[str, Any]]) -> list[str]:
    """The Markdown rows of the targets table, per (rows, ordered) result."""
    out = ["| target | size | value | met |", "|---|---|---:|---|"]
    for (rows, ordered), d in sorted(latest.items()):
        tag = _fmt_rows(rows)
        if not ordered:
            out += _unsorted_targets(rows, d, tag)
        out += _trec_eval_or_numpy_target(d, tag)
        out += _memory_targets(d, tag, ordered)
    return out


def render() -> str:
    latest = _latest_files()
    if not latest:
        return "No results yet: run `python benchmarks/run.py --rows 1e6`."
    any_d = next(iter(latest.values()))
    m = any_d["machine"]
    v = m["versions"]
    head = [
        "# irframe benchmark: latest results",
        "",
        f"Machine: {m['cpu']}, {m['cores']} cores, "
        f"{(m['ram_bytes'] or 0) / 2**30:.0f} GB RAM; Python {m['python']}, polars {v['polars']}, "
        f"pandas {v['pandas']}, numpy {v['numpy']}, pytrec-eval-terrier {v['pytrec-eval-terrier']}, "
        f"ir-measures {v['ir-measures']}, ranx {v['ranx']}; irframe commit `{m['git_commit']}`.",
        "",
        "Measures: nDCG(gain=linear)@10, P@10, R@100, RR, AP (trec_eval ndcg_cut_10, P_10, "
        'recall_100, recip_rank, map). Missing queries: irframe `missing="drop"`; the peers '
        "report run-and-qrels queries except ranx (`make_comparable=True`, queries missing from "
        "the run get 0) and ir_measures (same); agreement is checked on the common query set.",
        "`time / irframe-x` is the median over rounds of the per-round ratio: > 1 means irframe "
        'is faster. "extra MB" = peak RSS during the call minus RSS before it (inputs loaded).',
        "",
    ]
    imp = [d.get("import_ms") for d in latest.values() if d.get("import_ms") is not None]
    if imp:
        last = max(latest.values(), key=lambda d: d["timestamp"])
        head.append(
            f'`python -X importtime -c "import irframe"`: {last.get("import_ms"):.0f} ms '
            f"cumulative (polars alone: {last.get('import_polars_ms') or float('nan'):.0f} ms)."
        )
        head.append("")
    head += ["## Targets", "", *targets(latest), ""]
    body = [table(d) + "\n" for _, d in sorted(latest.items())]
    notes = ["## Contenders", ""]
    seen = {}
    for d in latest.values():
        for n, r in d["contenders"].items():
            seen[n] = r.get("note", "")
    notes += [f"* **{n}**: {t}" for n, t in seen.items()]
    return "\n".join([*head, "## Results", "", *body, *notes, ""])


def plot() -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    latest = _latest_files()
    series: dict[str, list[tuple[int, float]]] = {}
    for (rows, ordered), d in latest.items():
        for n, r in d["contenders"].items():
            if r.get("median_s"):
                series.setdefault(n + (" (ordered)" if ordered else ""), []).append((rows, r["median_s"]))
    if not series:
        return
    fig, ax = plt.subplots(figsize=(8, 5.5))
    cmap = plt.get_cmap("tab20")
    for i, (n, pts) in enumerate(sorted(series.items())):
        pts.sort()
        ax.plot(
            [p[0] for p in pts],
            [p[1] for p in pts],
            marker="o",
            color=cmap(i % 20),
            linestyle="--" if "ordered" in n else "-",
            label=n,
            linewidth=2.5 if n.startswith("irframe") else 1.2,
        )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("rows in the run")
    ax.set_ylabel("median seconds (end to end)")
    ax.set_title("irframe vs peers: five measures per query")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(RESULTS / "scaling.png", dpi=110)
    plt.close(fig)


def write_reports() -> None:
    RESULTS.mkdir(exist_ok=True)
    md = render()
    (RESULTS / "latest.md").write_text(md)
    plot()
    readme = HERE / "README.md"
    if readme.exists():
        text = readme.read_text()
        start, end = "<!-- latest:start -->", "<!-- latest:end -->"
        if start in text and end in text:
            pre, rest = text.split(start, 1)
            _, post = rest.split(end, 1)
            body = md.split("\n", 1)[1]  # drop the H1
            body = body.replace("\n## ", "\n### ")
            readme.write_text(f"{pre}{start}\n{body}\n{end}{post}")


if __name__ == "__main__":
    write_reports()
    print((RESULTS / "latest.md").read_text())
    sys.exit(0)
