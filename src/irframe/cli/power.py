"""``irframe power QRELS RUN [RUN2] -m nDCG@10 [--effect 0.05]``: what change a golden set can see."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from irframe.cli._common import (
    CORRECTIONS,
    CliError,
    SubParsers,
    _add_map,
    _add_measure_option,
    _add_missing_and_duplicates,
    _add_precision,
    _common,
    _default_format,
    _emit,
    _number,
    _write,
    add_config_options,
    render_table,
    say_verdict,
)
from irframe.cli._inputs import read_inputs

if TYPE_CHECKING:
    import polars as pl

__all__ = ["add_parser", "cmd_power"]

_SHOWN = ("measure", "n_queries", "n_left_out", "sd_delta", "mde", "effect", "n_needed", "power_at_effect")


def add_parser(sub: SubParsers) -> None:
    """Register ``irframe power``."""
    p = sub.add_parser(
        "power",
        parents=[_common()],
        help="the smallest change a golden set detects, and the queries a change needs",
        description=(
            "Evaluate one run (a baseline: the variance of its per-query values) or two runs "
            "(their per-query deltas) and report, per measure, the minimum detectable effect of "
            "this set at --alpha and --power for a two-sided paired test (the paired t-test's "
            "power, the standard approximation of compare's randomization test), and with "
            "--effect the number of queries that change needs."
        ),
        epilog=(
            "One run: the deltas' variance is taken as 2 x var(values) x (1 - --correlation); "
            "the default correlation 0 is conservative (versions of one system correlate, often "
            "0.5-0.9). Give two runs for their own deltas."
        ),
    )
    p.add_argument("qrels", metavar="QRELS", help="judgments: TREC qrels, parquet, CSV/TSV or -")
    p.add_argument("runs", metavar="RUN", nargs="+", help="one run (baseline) or two (baseline, candidate)")
    _add_measure_option(p, "measure (repeatable; default: nDCG@10)")
    p.add_argument("--effect", type=float, metavar="DELTA", help="a change to size the set for, e.g. 0.05")
    p.add_argument(
        "--alpha", type=float,
        help="level of the two-sided test, of the whole family with --family (default: the gate's "
        "alpha from [tool.irframe.check], else 0.05)",
    )  # fmt: skip
    p.add_argument(
        "--family", type=int, metavar="N",
        help="the comparisons the gate corrects over: the test runs at alpha / N (default: from "
        "[tool.irframe.check], its measures x (overall + the segments of its by), else 1)",
    )  # fmt: skip
    p.add_argument(
        "--correction", choices=CORRECTIONS,
        help="the gate's correction (default: from [tool.irframe.check], else holm)",
    )  # fmt: skip
    p.add_argument("--power", type=float, default=0.8, help="the power wanted (default: 0.8)")
    p.add_argument(
        "--correlation", type=float, help="one run: assumed correlation of two systems (default 0)"
    )
    p.add_argument("--n-queries", type=int, metavar="N", help="compute the detectable effect for N queries")
    _add_missing_and_duplicates(p)
    p.add_argument("--rel", type=_number, metavar="N", help="relevance threshold (trec_eval -l)")
    p.add_argument("--gain", choices=("exp", "linear"), help="nDCG gain (default exp: 2^rel-1)")
    p.add_argument("-f", "--format", choices=("table", "tsv", "csv", "json"), help="output format")
    _add_precision(p)
    _add_map(p)
    add_config_options(p)
    p.set_defaults(func=cmd_power)


def _per_query(args: argparse.Namespace) -> tuple[Any, list[str], list[str], Any]:
    """One system's per-query frame, or a mapping of two; the measure labels; the systems."""
    import polars as pl

    from irframe import evaluate

    inputs = read_inputs(args, ("nDCG@10",))
    runs = inputs.runs
    systems = runs["system"].unique(maintain_order=True).to_list()
    if len(systems) > 2:
        msg = (
            f"power compares at most two runs (baseline, candidate); got {len(systems)}: {', '.join(systems)}"
        )
        raise CliError(msg)
    labels = [a.label for a in inputs.asked]
    per_q = inputs.relabel(evaluate(runs, inputs.measures, inputs.qrels, by="system", per_query=True,
                                    **inputs.options(args)))  # fmt: skip
    frames = {s: per_q.filter(pl.col("system") == s).drop("system") for s in systems}
    return (frames if len(frames) == 2 else frames[systems[0]]), labels, systems, inputs.qrels


def _first_line(alpha: float, correction: str, family: int, source: str) -> str:
    """Which level the test ran at, and where it comes from.

    Examples
    --------
    >>> _first_line(0.05, "holm", 12, "pyproject.toml [tool.irframe.check]: alpha, by, measures")
    "alpha 0.00417 = 0.05 / 12: Holm's first step (the gate's, from pyproject.toml \
[tool.irframe.check]: alpha, by, measures)"
    >>> _first_line(0.05, "holm", 1, "")
    'alpha 0.05 (one comparison; --family N for a gate over N)'
    """
    from irframe._golden.power import gate_level

    how = gate_level(alpha, correction, family)[1]
    if source:
        return f"{how} (the gate's, from {source})"
    if family == 1:
        return f"{how} (one comparison; --family N for a gate over N)"
    return how


def _lines(table: pl.DataFrame, systems: str) -> list[str]:
    out = []
    for r in table.iter_rows(named=True):
        out.append(r["summary"])
        if r["effect"] is not None and r["n_needed"] is not None:
            out.append(
                f"a change of {r['effect']:g} {r['measure']} needs {r['n_needed']} queries to be detected "
                f"{100 * r['power']:g}% of the time; this set ({r['n_queries']}) detects it "
                f"{100 * r['power_at_effect']:.0f}% of the time"
            )
        if r["note"]:
            out.append(f"note: {r['note']}")
    design = table["design"][0]
    if design == "one system":
        rho = table["correlation"][0]
        out.append(
            f"one run ({systems}): deltas assumed to vary as 2 x var(values) x (1 - {rho:g}); "
            "give two runs for their own deltas"
        )
    else:
        out.append(f"paired deltas of {systems} on the queries both have")
    if table["n_left_out"].sum():
        out.append("n_left_out: queries without a value (unjudged, or in one run only), not counted")
    return out


@dataclass(frozen=True)
class _Gate:
    """The level settings of the gate ``irframe check`` would run (flags, else the config)."""

    alpha: float
    correction: str
    family: int | None  # None: the measures x (overall + the segments of ``by``)
    source: str  # where they come from (words for the first line), "" for the defaults
    by: list[str]
    queries: str | None


def _gate(args: argparse.Namespace) -> _Gate:
    """The gate's settings; ``args.measures`` from the config when ``-m`` is not given."""
    from irframe.cli._config import load_config

    config, path = load_config(args.config, enabled=not args.no_config)
    if not args.measures and config.get("measures"):
        measures = config["measures"]
        args.measures = [measures] if isinstance(measures, str) else list(measures)
    by = config.get("by") or []
    used = [k for k in ("alpha", "correction", "by", "measures") if k in config]
    return _Gate(
        alpha=args.alpha if args.alpha is not None else float(config.get("alpha", 0.05)),
        correction=args.correction or str(config.get("correction", "holm")),
        family=args.family,
        source=f"{path.name} [tool.irframe.check]: {', '.join(used)}" if path is not None and used else "",
        by=[by] if isinstance(by, str) else list(by),
        queries=config.get("queries"),
    )


def _segments(gate: _Gate, qrels: Any) -> int:
    """The segments of the config's ``by`` among the judged queries (the gate's groups)."""
    import polars as pl

    from irframe.io.sniff import load_queries

    if not gate.by or gate.queries is None or qrels is None:
        return 0
    queries = load_queries(gate.queries, {})
    found = [b for b in gate.by if b in queries.columns]
    judged = qrels.select(pl.col("query_id").cast(pl.String)).unique()
    keyed = queries.with_columns(pl.col("query_id").cast(pl.String)).join(judged, on="query_id", how="semi")
    return keyed.select(found).unique().height if found else 0


def cmd_power(args: argparse.Namespace) -> int:
    """Run ``irframe power``."""
    from irframe import power

    if len(args.runs) > 2:
        msg = f"power takes one run (baseline) or two (baseline, candidate); got {len(args.runs)}"
        raise CliError(msg)
    gate = _gate(args)
    per_query, labels, systems, qrels = _per_query(args)
    family = gate.family if gate.family is not None else len(labels) * (1 + _segments(gate, qrels))
    table = power(
        per_query, labels, alpha=gate.alpha, power=args.power, effect=args.effect,
        n_queries=args.n_queries, correlation=args.correlation, family=family, correction=gate.correction,
    )  # fmt: skip
    fmt = args.format or _default_format(sys.stdout)
    if fmt != "table":
        _emit(table, fmt, sys.stdout, precision=args.precision)
        say_verdict(_lines(table, " - ".join(reversed(systems))), args)
        return 0
    decimals = 4 if args.precision is None else args.precision
    _write(_first_line(gate.alpha, gate.correction, family, gate.source), sys.stdout)
    _write(render_table(table.select(_SHOWN), decimals=decimals), sys.stdout)
    _write("\n".join(_lines(table, " - ".join(reversed(systems)))), sys.stdout)
    return 0
