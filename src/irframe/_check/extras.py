"""What the gate adds to compare's table: judgment holes, query weights, and its power.

* **Holes** (``check(..., holes="report" | "fail")``): compare's hole columns
  (:mod:`irframe._golden.holes`) for the pair {candidate, baseline}; a drop that would
  fail whose range reaches "no drop beyond ``max_drop``" (``delta_high >= -max_drop``) is
  *possibly a judgment hole*: with ``"report"`` it passes, with a note saying how many
  documents to judge first and the ``irframe pool`` command; with ``"fail"`` it fails,
  with the same note.  ``"ignore"`` (default) looks at no hole and changes nothing.
* **Weights** (``weights=``): the weights table of :mod:`irframe._compare.weighted`,
  joined onto the pairs; every statistic of the table is then weighted.
* **Power**: for each gated measure, the drop the gate detects 80% of the time, from the
  overall per-query deltas (:func:`irframe._golden.power.detectable_effect`: the paired
  t-test's power, the approximation of the randomization test), at the level a single
  comparison needs to pass the correction: ``alpha / family`` for Holm, Bonferroni and
  Benjamini-Hochberg (their first step, the strictest: a lone regression among no other
  change faces it), ``alpha`` without correction.  With weights, the deltas' variance is
  the weighted mean's (linearization) and the queries are Kish's effective number.
  Under ``fail_on="any-drop"`` there is no test, so no power line.
"""

from __future__ import annotations

import math
import shlex
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

from irframe._check.table import BASE, CAND
from irframe._compare import LONG, group_pairs
from irframe._compare.weighted import W

if TYPE_CHECKING:
    from irframe._check.result import _Gate

__all__ = ["POWER", "pool_command", "power_lines"]

POWER = 0.8  # the power the report states


def pool_command(qrels: str, runs: Sequence[str], depth: int) -> str:
    """The ``irframe pool`` command that lists the holes to judge, shell-quoted.

    Examples
    --------
    >>> pool_command("qrels.txt", ["runs/bm25.run", "my run.tsv"], 10)
    "irframe pool qrels.txt runs/bm25.run 'my run.tsv' --depth 10 -o to_judge.tsv"
    """
    return shlex.join(["irframe", "pool", qrels, *runs, "--depth", str(depth), "-o", "to_judge.tsv"])


def _weighted_deltas(d: Any, w: Any) -> tuple[Any, int, float]:
    """Pseudo-deltas whose standard deviation over ``sqrt(n)`` is the weighted mean's
    (linearization) standard error, ``n`` Kish's effective number (rounded), and that number."""
    import numpy as np

    keep = w > 0
    d, w = d[keep], w[keep]
    n_eff = float(w.sum()) ** 2 / float((w**2).sum())
    m = max(2, round(n_eff))
    e = d - float((w * d).sum() / w.sum())
    return np.sqrt(m * d.size) / float(w.sum()) * w * e, m, n_eff


def _level(gate: _Gate, family: int) -> tuple[float, str]:
    """The level one comparison must pass, and how it was derived (words): the rule of
    :func:`irframe._golden.power.gate_level`."""
    from irframe._golden.power import gate_level

    level, how = gate_level(gate.alpha, gate.correction, max(1, family))
    return level, f"paired t, {how}"


def power_lines(pairs: pl.DataFrame, labels: Sequence[str], gate: _Gate, family: int) -> list[dict[str, Any]]:
    """One line per gated measure (its overall pairs): the drop detected 80% of the time."""
    import numpy as np

    from irframe._golden.power import detectable_effect

    if gate.fail_on == "any-drop":
        return []
    level, how = _level(gate, family)
    overall = {r[LONG.measure]: r for r in group_pairs(pairs, [BASE, CAND], labels, []).iter_rows(named=True)}
    out = []
    for measure in labels:
        cell = overall.get(measure)
        d = np.asarray([] if cell is None else cell[LONG.delta], dtype=np.float64)
        n, n_eff, values, size = d.size, None, d, d.size
        if cell is not None and cell.get(W) is not None and n >= 2:
            values, size, n_eff = _weighted_deltas(d, np.asarray(cell[W], dtype=np.float64))
        mde = math.nan
        if n >= 2 and size >= 2:
            mde = detectable_effect(values, alpha=level, power=POWER, n_queries=size)
        out.append({"measure": measure, "n_queries": n, "n_effective": n_eff, "alpha": level,
                    "power": POWER, "mde": None if math.isnan(mde) else mde,
                    "sentence": _sentence(measure, n, n_eff, mde, how)})  # fmt: skip
    return out


def _sentence(measure: str, n: int, n_eff: float | None, mde: float, how: str) -> str:
    queries = f"{n} queries" + ("" if n_eff is None else f" (weighted: {n_eff:.1f} effective)")
    if n < 2:
        return f"with {queries}, the gate cannot test {measure}: no power"
    if math.isnan(mde):
        return f"with {queries}, the deltas of {measure} have no variance: no power analysis"
    return (
        f"with {queries}, drops of {mde:.3g} {measure} or more are detected {100 * POWER:g}% of the "
        f"time ({how})"
    )
