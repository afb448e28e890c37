"""Online experiments on impression logs: metrics per randomization unit, A/B tests, interleaving.

* :func:`metrics`: click metrics (CTR@k, abandonment, time to first click, reformulation,
  successful sessions...) as ratios of per-unit sums, with the delta-method variance over
  the randomization unit (or a cluster bootstrap);
* :func:`compare`: an A/B test, each arm against the control (tea-tasting's
  ``RatioOfMeans`` numbers), with a sample-ratio-mismatch check and corrections;
* :func:`interleave`: team-draft, balanced or probabilistic interleaving of runs;
* :func:`interleaving`: the credit of each system in an interleaved log, wins, ties,
  the sign test and the bootstrap interval; team-draft multileaving for three or more runs;
* :func:`power_curve`: how many impressions an interleaving or an A/B test needs (simulation).

For systems evaluated offline on the same queries use :func:`irframe.compare`; for arms
that saw different users, :func:`irframe.online.compare`.
"""

from __future__ import annotations

from irframe.online._experiment import ABReport, compare, compare_report, metrics
from irframe.online._interleave import interleave
from irframe.online._interleaving import InterleavingResult, interleaving
from irframe.online._simulate import power_curve

__all__ = [
    "ABReport",
    "InterleavingResult",
    "compare",
    "compare_report",
    "interleave",
    "interleaving",
    "metrics",
    "power_curve",
]
