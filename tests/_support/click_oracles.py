"""Plain-Python oracles of the position-bias and slate estimators, ported from their sources.

- :func:`ultr_pivot`, :func:`ultr_adjacent`: ultr-bias-toolkit 0.0.5 (philipphager/ultr-bias-toolkit,
  ``ultr_bias_toolkit/bias/intervention_harvesting/{util,pivot,adjacent_chain}.py`` at commit
  ba62bcbb3c04): ``build_intervention_sets`` groups the log by (query, document, position) into
  the CTR ``c``, self-merges on (query, document) and sums ``c_0``, ``c_1`` by (position_0,
  position_1); the pivot takes the rows with position_0 == 1, ``c_1 / c_0`` (NaN -> 0),
  divided by the first row's; the adjacent chain takes (1, 1) and the rows with position_1 ==
  position_0 + 1, sorted, ``c_1 / c_0`` (NaN -> 0), cumulative product.  The package pins
  pandas 2.3 and pulls torch, so its few lines are ported here with dicts.  Cross-checked once
  against the package itself (``pip install --no-deps ultr-bias-toolkit==0.0.5`` beside pandas
  2.3.3 in a separate virtualenv, torch stubbed out, AllPairs unused): ``PivotEstimator()`` and
  ``AdjacentChainEstimator()`` equal ``irframe.clicks.position_bias`` to 2e-16 on
  ``simulated_log(1)`` and ``simulated_log(2)`` (1,500 impressions each).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable

Row = tuple[object, object, int, float]  # query, document, position, click (0/1)


def _intervention_sets(rows: Iterable[Row]) -> dict[tuple[int, int], tuple[float, float]]:
    clicks: dict[tuple[object, object, int], float] = defaultdict(float)
    shown: dict[tuple[object, object, int], int] = defaultdict(int)
    for q, d, k, c in rows:
        clicks[q, d, k] += c
        shown[q, d, k] += 1
    by_pair: dict[tuple[object, object], list[tuple[int, float]]] = defaultdict(list)
    for (q, d, k), n in shown.items():
        by_pair[q, d].append((k, clicks[q, d, k] / n))
    sets: dict[tuple[int, int], list[float]] = defaultdict(lambda: [0.0, 0.0])
    for cells in by_pair.values():
        for k0, c0 in cells:
            for k1, c1 in cells:
                sets[k0, k1][0] += c0
                sets[k0, k1][1] += c1
    return {key: (v[0], v[1]) for key, v in sorted(sets.items())}


def _ratio(c0: float, c1: float) -> float:
    if c0 == 0:
        return 0.0 if c1 == 0 else math.inf  # pandas: 0/0 -> NaN -> fillna(0); x/0 -> inf
    return c1 / c0


def ultr_pivot(rows: Iterable[Row], pivot_rank: int = 1) -> dict[int, float]:
    """ultr-bias-toolkit's ``PivotEstimator(pivot_rank)``: {position: examination}."""
    sets = [(k1, _ratio(*v)) for (k0, k1), v in _intervention_sets(rows).items() if k0 == pivot_rank]
    first = sets[0][1]
    return {k: (e / first if first else 0.0) for k, e in sets}


def ultr_adjacent(rows: Iterable[Row]) -> dict[int, float]:
    """ultr-bias-toolkit's ``AdjacentChainEstimator``: {position: examination}."""
    sets = _intervention_sets(rows)
    chain = [((1, 1), sets[1, 1]), *sorted((key, v) for key, v in sets.items() if key[1] == key[0] + 1)]
    out, product = {}, 1.0
    for (_, k1), v in chain:
        product *= _ratio(*v)
        out[k1] = product
    return out


def obp_slate_value(  # noqa: PLR0917 (obp's own argument list)
    slate_id: list[object],
    reward: list[float],
    position: list[int],
    behavior: list[float],
    evaluation: list[float],
    estimator: str,
) -> float:
    """obp 0.4.1's slate estimators (st-tech/zr-obp, ``obp/ope/estimators_slate.py``), as
    ``estimate_policy_value`` computes them, with plain lists.

    ``BaseSlateInverseProbabilityWeighting._estimate_round_rewards``: ``iw = evaluation_policy_pscore
    / behavior_policy_pscore``, ``reward * iw``; ``SlateStandardIPS``, ``SlateIndependentIPS`` and
    ``SlateRewardInteractionIPS`` differ only in which propensities they are given (the slate's,
    the item-position's, the cascade's).  ``SelfNormalizedSlateStandardIPS``: ``reward * iw /
    iw.mean()``; ``BaseSlateSelfNormalizedInverseProbabilityWeighting`` (SNIIPS, SNRIPS): for each
    position, ``reward * iw / iw[position == p].mean()``.  ``estimate_policy_value``: the sum of the
    estimated rewards over ``np.unique(slate_id).shape[0]``.
    """
    iw = [e / b for e, b in zip(evaluation, behavior, strict=True)]
    if estimator == "snsips":
        mean = sum(iw) / len(iw)
        norm = [mean] * len(iw)
    elif estimator in ("sniips", "snrips"):
        by_position: dict[int, list[float]] = defaultdict(list)
        for p, w in zip(position, iw, strict=True):
            by_position[p].append(w)
        norm = [sum(by_position[p]) / len(by_position[p]) for p in position]
    else:
        norm = [1.0] * len(iw)
    total = sum(r * w / n for r, w, n in zip(reward, iw, norm, strict=True))
    return total / len(set(slate_id))
