"""Plain-Python definitions of the families issue 33 added, for ``tests/_support/oracle.py``.

RBP's binary and raw-grade forms and its residual, the C/W/L families (cwl-eval's user model:
continuation C_i, weights W_i = prod_{j<i} C_j / sum, over ``max_depth`` padded ranks), Compat
(ir_measures' RBO with the ideal ranking), FallOut, AUROC (pairs in order), ir_measures' Accuracy
and APRet.  Written from the definitions (the papers, cwl-eval's and ir_measures' code as read),
one query at a time with loops; ``ranking`` is already cut at the measure's cutoff (``top`` in the oracle).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from irframe.measures import Measure

__all__ = ["EXTRA_FAMILIES"]

Judged = dict[str, float]
Cont = Callable[[Measure, list[float]], list[float]]  # C_1 .. C_L from the gains x_1 .. x_L


def _rbp(ranking: list[str], judged: Judged, m: Measure) -> float:
    p, rel, how = float(m.p), m.params["rel"], m.params["gain"]
    if m.params["residual"]:
        if not ranking:
            return 0.0
        unjudged = [i for i, d in enumerate(ranking) if d not in judged]
        return min(1.0, p ** len(ranking) + (1 - p) * sum(p**i for i in unjudged))
    top_grade = max((g for g in judged.values() if g >= 0), default=0)
    total = 0.0
    for i, d in enumerate(ranking):
        g = judged.get(d)
        if rel is not None:
            gain = 0.0 if g is None or g < rel else (g if how == "linear" else 1.0)
        elif g is None or g < 0:
            gain = 0.0
        elif how == "linear":
            gain = g
        else:
            gain = g / top_grade if top_grade > 1 else g
        total += gain * p**i
    return (1 - p) * total


# --- C/W/L -------------------------------------------------------------------------------
def _scaled(grade: float | None, m: Measure, unjudged: float) -> float:
    """ir_measures' gain: negative grades as 0, clipped to [min_rel, max_rel], into [0, 1]."""
    if grade is None:
        return unjudged
    low, high = float(m.min_rel), float(m.max_rel)
    g = min(max(grade, 0.0, low), high)
    return (g - low) / (high - low)


def _sdcg_c(m: Measure, x: list[float]) -> list[float]:
    k = m.cutoff
    return [math.log2(i + 1) / math.log2(i + 2) if i < k else 0.0 for i in range(1, len(x) + 1)]


def _nerr8_c(m: Measure, x: list[float]) -> list[float]:
    return [1 - x[i - 1] if i < m.cutoff else 0.0 for i in range(1, len(x) + 1)]


def _nerr9_c(m: Measure, x: list[float]) -> list[float]:
    return [i / (i + 1) * (1 - x[i - 1]) if i < m.cutoff else 0.0 for i in range(1, len(x) + 1)]


def _nerr10_c(m: Measure, x: list[float]) -> list[float]:
    return [float(m.p) * (1 - xi) for xi in x]


def _insq_c(m: Measure, x: list[float]) -> list[float]:
    t = float(m.T)
    return [((i + 2 * t - 1) / (i + 2 * t)) ** 2 for i in range(1, len(x) + 1)]


def _nerr11_c(m: Measure, x: list[float]) -> list[float]:
    return [c * (1 - xi) for c, xi in zip(_insq_c(m, x), x, strict=True)]


def _inst_c(m: Measure, x: list[float]) -> list[float]:
    t, found, out = float(m.T), 0.0, []
    for i, xi in enumerate(x, start=1):
        found += xi
        left = t - found
        out.append(((i + t + left - 1) / (i + t + left)) ** 2)
    return out


def _bpm_c(m: Measure, x: list[float]) -> list[float]:
    found, out = 0.0, []
    for i, xi in enumerate(x, start=1):
        found += xi
        out.append(1.0 if found < float(m.T) and i < m.cutoff else 0.0)
    return out


def _expected_gain(ranking: list[str], judged: Judged, m: Measure, cont: Cont, fill: float) -> float:
    depth = int(m.max_depth)
    n = depth if m.cutoff is None else min(m.cutoff, depth)
    x = [_scaled(judged.get(d), m, fill) for d in ranking[:n]]
    x += [fill] * (n - len(x))
    c = cont(m, x)
    reach = [1.0]
    for ci in c[:-1]:
        reach.append(reach[-1] * ci)
    return sum(r * xi for r, xi in zip(reach, x, strict=True)) / sum(reach)


def _cwl(cont: Cont) -> Callable[[list[str], Judged, Measure], float]:
    def measure(ranking: list[str], judged: Judged, m: Measure) -> float:
        if not ranking:
            return 0.0
        low = _expected_gain(ranking, judged, m, cont, 0.0)
        return _expected_gain(ranking, judged, m, cont, 1.0) - low if m.residual else low

    return measure


# --- Compat, FallOut, AUROC, Accuracy, APRet ----------------------------------------------
def _rbo(ranking: list[str], ideal: list[str], p: float, depth: int) -> float:
    seen_r: set[str] = set()
    seen_i: set[str] = set()
    score = norm = 0.0
    for i in range(depth):
        if i < len(ranking):
            seen_r.add(ranking[i])
        if i < len(ideal):
            seen_i.add(ideal[i])
        score += p**i * len(seen_r & seen_i) / (i + 1)
        norm += p**i
    return score / norm


def _compat(ranking: list[str], judged: Judged, m: Measure) -> float:
    if not ranking:
        return 0.0
    where = {d: i for i, d in enumerate(ranking)}
    ideal = [d for d in judged if judged[d] > 0]
    ideal.sort(key=lambda d: where.get(d, len(ranking)))  # the run's order, unretrieved last
    ideal.sort(key=lambda d: judged[d], reverse=True)  # stable: best grade first
    p, depth = float(m.p), max(len(ranking), len(ideal))
    score = _rbo(ranking, ideal, p, depth)
    if m.normalize:
        best = _rbo(ideal, ideal, p, depth)
        return score / best if best > 0 else score
    return score


def _fallout(ranking: list[str], judged: Judged, m: Measure) -> float:
    nonrel = {d for d, g in judged.items() if 0 <= g < m.rel}
    return sum(1 for d in ranking if d in nonrel) / len(nonrel) if nonrel else 0.0


def _auroc(ranking: list[str], judged: Judged, m: Measure) -> float:
    rel = [d in judged and judged[d] >= m.rel for d in ranking]
    pos, neg = sum(rel), len(rel) - sum(rel)
    if not pos or not neg:
        return 0.0
    ordered = sum(1 for i, a in enumerate(rel) for b in rel[i + 1 :] if a and not b)
    return ordered / (pos * neg)


def _accuracy(ranking: list[str], judged: Judged, m: Measure) -> float:
    """ir_measures' loop: per relevant document, the non-relevant ones ranked above it."""
    above, nonrel = [], 0
    for d in ranking:
        if d in judged and judged[d] >= m.rel:
            above.append(nonrel)
        else:
            nonrel += 1
    if not above:
        return 0.0
    return 1.0 - sum(above) / (nonrel * len(above)) if nonrel else 1.0


def _apret(ranking: list[str], judged: Judged, m: Measure) -> float:
    total, hits = 0.0, 0
    for i, d in enumerate(ranking, start=1):
        if d in judged and judged[d] >= m.rel:
            hits += 1
            total += hits / i
    return total / hits if hits else 0.0


EXTRA_FAMILIES: dict[str, Callable[[list[str], Judged, Measure], float]] = {
    "RBP": _rbp,
    "SDCG": _cwl(_sdcg_c),
    "NERR8": _cwl(_nerr8_c),
    "NERR9": _cwl(_nerr9_c),
    "NERR10": _cwl(_nerr10_c),
    "NERR11": _cwl(_nerr11_c),
    "INST": _cwl(_inst_c),
    "INSQ": _cwl(_insq_c),
    "BPM": _cwl(_bpm_c),
    "Compat": _compat,
    "FallOut": _fallout,
    "AUROC": _auroc,
    "Accuracy": _accuracy,
    "APRet": _apret,
}
