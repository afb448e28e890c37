"""A deliberately slow, plain-Python reference implementation of irframe's measures.

Written from the definitions (trec_eval semantics, see the contract in the tests), not
from the engine: dicts, lists and loops only, one query at a time.  The engine is
checked against it on random data in ``tests/engine/test_properties.py``, and the
oracle itself is checked against ``pytrec_eval`` in
``tests/engine/test_trec_eval_crosscheck.py``.

Inputs are plain dict-of-lists "frames" (the same dicts the tests hand to the
``constructor`` fixture):

* run: ``query_id``, ``doc_id`` and ``rank`` (ascending) or ``score`` (descending,
  ties by ``doc_id`` descending bytewise); optionally ``relevance`` (golden-set case,
  ``None`` = unjudged) when no qrels are given;
* qrels: ``query_id``, ``doc_id``, ``relevance``.

Ids are compared as strings, so int ids in the run join str ids in the qrels.

Examples
--------
>>> run = {"query_id": ["q1"] * 4, "doc_id": ["a", "b", "c", "d"], "score": [1.0, 1.0, 0.5, 0.4]}
>>> qrels = {"query_id": ["q1"] * 4, "doc_id": ["a", "b", "c", "d"], "relevance": [0, 1, 2, -1]}
>>> res = oracle_evaluate(run, qrels, ["map", "bpref", "P_1", "ndcg", "ndcg_cut_2"])
>>> {k: round(v, 4) for k, v in res["q1"].items()}
{'map': 0.8333, 'bpref': 0.5, 'P_1': 1.0, 'ndcg': 0.7602, 'ndcg_cut_2': 0.3801}
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from _support.oracle_more import EXTRA_FAMILIES
from irframe.measures import Measure, parse_measures

__all__ = ["gain_of", "oracle_evaluate", "oracle_mean", "oracle_query", "rank_docs"]

Frame = Mapping[str, Sequence[Any]]


def _rows(frame: Frame) -> list[dict[str, Any]]:
    cols = list(frame)
    n = len(frame[cols[0]]) if cols else 0
    return [{c: frame[c][i] for c in cols} for i in range(n)]


def _is_null(x: Any) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def rank_docs(rows: list[dict[str, Any]]) -> list[str]:
    """Order one query's run rows: by ``rank`` ascending if present, else ``score``
    descending with ties broken by doc id descending in byte order (trec_eval)."""
    # Byte order of UTF-8 equals code-point order, which is Python's str order.
    by_doc_desc = sorted(rows, key=lambda r: str(r["doc_id"]), reverse=True)
    if "rank" in rows[0]:
        ordered = sorted(by_doc_desc, key=lambda r: r["rank"])  # stable
    else:
        ordered = sorted(by_doc_desc, key=lambda r: -r["score"])  # stable
    return [str(r["doc_id"]) for r in ordered]


def gain_of(grade: float | None, m: Measure) -> float:
    """nDCG gain of a grade: exp 2^g - 1, linear g, or explicit gains (unlisted -> linear).

    Unjudged documents and negative grades gain 0.
    """
    if grade is None:
        return 0.0
    custom = m.gains_dict()
    if custom is not None and float(grade) in custom:
        return custom[float(grade)]
    if grade <= 0:
        return 0.0
    if m.gain == "exp":
        return 2.0**grade - 1.0
    return float(grade)  # linear, and unlisted grades under custom gains


def oracle_query(ranking: list[str], judged: dict[str, float], m: Measure) -> float:
    """One measure for one query.

    ``ranking`` is the ordered list of retrieved doc ids, ``judged`` maps every judged
    doc of the query (retrieved or not) to its grade.
    """
    t = m.rel
    k = m.cutoff
    if m.params.get("judged_only"):
        # trec_eval -J: drop documents without a judgment or with a negative grade
        ranking = [d for d in ranking if d in judged and judged[d] >= 0]
    top = ranking if k is None else ranking[:k]
    if m.family in EXTRA_FAMILIES:  # issue 33's families (tests/_support/oracle_more.py)
        return EXTRA_FAMILIES[m.family](top, judged, m)
    is_rel = [d in judged and judged[d] >= t for d in top]
    n_rel = sum(1 for g in judged.values() if g >= t)  # R: all judged relevant
    fam = m.family

    if fam == "P":
        assert k is not None
        return sum(is_rel) / k
    if fam == "R":
        return sum(is_rel) / n_rel if n_rel else 0.0
    if fam == "RR":
        for i, r in enumerate(is_rel, start=1):
            if r:
                return 1.0 / i
        return 0.0
    if fam == "AP":
        if not n_rel:
            return 0.0
        total, hits = 0.0, 0
        for i, r in enumerate(is_rel, start=1):
            if r:
                hits += 1
                total += hits / i
        return total / n_rel
    if fam == "nDCG":
        dcg = 0.0
        for i, d in enumerate(top, start=1):
            dcg += gain_of(judged.get(d), m) / math.log2(i + 1)
        ideal = sorted((gain_of(g, m) for g in judged.values()), reverse=True)
        ideal = [g for g in ideal if g > 0]
        if k is not None:
            ideal = ideal[:k]
        idcg = 0.0
        for i, g in enumerate(ideal, start=1):
            idcg += g / math.log2(i + 1)
        return dcg / idcg if idcg > 0 else 0.0
    if fam == "Rprec":
        if not n_rel:
            return 0.0
        hits = sum(1 for d in ranking[:n_rel] if d in judged and judged[d] >= t)
        return hits / n_rel
    if fam == "Bpref":
        if not n_rel:
            return 0.0
        n_nonrel = sum(1 for g in judged.values() if 0 <= g < t)
        denom = min(n_nonrel, n_rel)
        total, nonrel_so_far = 0.0, 0
        for d in ranking:
            if d not in judged or judged[d] < 0:
                continue  # unjudged or negative grade: skipped
            if judged[d] >= t:
                total += 1.0 if nonrel_so_far == 0 else 1.0 - min(nonrel_so_far, n_rel) / denom
            else:
                nonrel_so_far += 1
        return total / n_rel
    if fam == "Success":
        return 1.0 if any(is_rel) else 0.0
    if fam == "Judged":
        # ir_measures: over the documents actually in the top k, min(k, retrieved)
        return sum(1 for d in top if d in judged) / len(top) if top else 0.0
    if fam == "NumRet":
        return float(len(top))
    if fam == "NumRel":
        return float(n_rel)
    if fam == "NumRelRet":
        return float(sum(is_rel))
    if fam in _TREC_FAMILIES:
        return _TREC_FAMILIES[fam](top, judged, m)
    return _beyond_trec(top, judged, m, is_rel, n_rel)


def _dcg(gains: list[float]) -> float:
    total = 0.0
    for i, g in enumerate(gains, start=1):
        total += g / math.log2(i + 1)
    return total


def _beyond_trec(
    top: list[str], judged: dict[str, float], m: Measure, is_rel: list[bool], n_rel: int
) -> float:
    """The families trec_eval's all_trec does not have: DCG, IDCG, ERR, F."""
    fam, k = m.family, m.cutoff
    if fam == "DCG":
        return _dcg([gain_of(judged.get(d), m) for d in top])
    if fam == "IDCG":
        ideal = sorted((g for g in (gain_of(x, m) for x in judged.values()) if g > 0), reverse=True)
        return _dcg(ideal if k is None else ideal[:k])
    if fam == "ERR":
        g_max = m.params["g_max"]
        total, reach = 0.0, 1.0  # reach: probability that the user gets to rank i
        for i, d in enumerate(top, start=1):
            g = judged.get(d)
            g = 0.0 if g is None or g <= 0 else min(float(g), g_max)
            stop = (2.0**g - 1.0) / 2.0**g_max
            total += reach * stop / i
            reach *= 1.0 - stop
        return total
    if fam == "F":
        assert k is not None
        p = sum(is_rel) / k
        r = sum(is_rel) / n_rel if n_rel else 0.0
        b2 = float(m.params["beta"]) ** 2
        return (1 + b2) * p * r / (b2 * p + r) if p + r > 0 else 0.0
    raise NotImplementedError(fam)


# --- trec_eval's other families (TREC_MEASURES.md), one function each -------------------
def _labels(top: list[str], judged: dict[str, float]) -> list[float]:
    """trec_eval's label per rank: the grade, -1 when not judged (negative grades stay < 0)."""
    return [judged.get(d, -1.0) for d in top]


def _counts(top: list[str], judged: dict[str, float], t: float) -> tuple[int, int, int]:
    """(retrieved, relevant retrieved, R) for threshold ``t``."""
    hits = sum(1 for g in _labels(top, judged) if g >= t)
    return len(top), hits, sum(1 for g in judged.values() if g >= t)


def _set_p(top: list[str], judged: dict[str, float], m: Measure) -> float:
    n, hits, r = _counts(top, judged, m.rel)
    if m.relative:
        return hits / min(n, r) if n and r else 0.0
    return hits / n if n else 0.0


def _set_r(top: list[str], judged: dict[str, float], m: Measure) -> float:
    _, hits, r = _counts(top, judged, m.rel)
    return hits / r if r else 0.0


def _set_ap(top: list[str], judged: dict[str, float], m: Measure) -> float:
    n, hits, r = _counts(top, judged, m.rel)
    return hits * hits / (n * r) if n and r else 0.0


def _set_f(top: list[str], judged: dict[str, float], m: Measure) -> float:
    n, hits, r = _counts(top, judged, m.rel)
    if not hits:
        return 0.0
    p, rc, x = hits / n, hits / r, float(m.beta)
    return (x + 1) * p * rc / (x * p + rc)  # trec_eval: beta is not squared


def _utility(top: list[str], judged: dict[str, float], m: Measure) -> float:
    n, hits, r = _counts(top, judged, m.rel)
    rest = m.n_docs + hits - n - r
    return m.a * hits + m.b * (n - hits) + m.c * (r - hits) + (m.d * rest if m.d else 0.0)


def _nonrel_judged(top: list[str], judged: dict[str, float], m: Measure) -> float:
    return float(sum(1 for g in _labels(top, judged) if 0 <= g < m.rel))


def _gm(top: list[str], judged: dict[str, float], m: Measure) -> float:
    base = "AP" if m.family == "GMAP" else "Bpref"
    return oracle_query(top, judged, Measure(base, m.cutoff, rel=m.rel))


def _iprec_at(isrel: list[bool], r: int, x: float) -> float:
    c = math.floor(x * r + 0.5)  # C's lround for x * r >= 0
    if r == 0 or not isrel or c > sum(isrel):
        return 0.0
    start, seen = 0, 0
    for i, rel in enumerate(isrel):
        if c and rel:
            seen += 1
            if seen == c:
                start = i
                break
    return max(sum(isrel[: i + 1]) / (i + 1) for i in range(start, len(isrel)))


def _iprec(top: list[str], judged: dict[str, float], m: Measure) -> float:
    _, _, r = _counts(top, judged, m.rel)
    return _iprec_at([g >= m.rel for g in _labels(top, judged)], r, float(m.recall))


def _iprec_avg(top: list[str], judged: dict[str, float], m: Measure) -> float:
    _, _, r = _counts(top, judged, m.rel)
    isrel = [g >= m.rel for g in _labels(top, judged)]
    return sum(_iprec_at(isrel, r, x / 10) for x in range(10, -1, -1)) / 11


def _rprec_mult(top: list[str], judged: dict[str, float], m: Measure) -> float:
    _, _, r = _counts(top, judged, m.rel)
    c = int(float(m.mult) * r + 0.9)
    if not top or c == 0:
        return 0.0
    return sum(1 for g in _labels(top[:c], judged) if g >= m.rel) / c


def _relp(top: list[str], judged: dict[str, float], m: Measure) -> float:
    _, hits, r = _counts(top, judged, m.rel)
    return hits / min(m.cutoff, r) if r else 0.0


def _bing(top: list[str], judged: dict[str, float], m: Measure) -> float:
    _, _, r = _counts(top, judged, m.rel)
    total, nonrel = 0.0, 0
    for g in _labels(top, judged):
        if g >= m.rel:
            total += 1 / math.log2(2 + nonrel)
        else:
            nonrel += 1
    return total / r if r else 0.0


def _unjudged_at(top: list[str], judged: dict[str, float], m: Measure) -> float:
    return sum(1 for g in _labels(top, judged) if g < 0) / m.cutoff


def _rbp_resid(top: list[str], judged: dict[str, float], m: Measure) -> float:
    p = float(m.p)
    unj = [i for i, g in enumerate(_labels(top, judged)) if g < 0]
    return p ** len(top) + (1 - p) * sum(p**i for i in unj) if unj else 0.0


def _infap(top: list[str], judged: dict[str, float], m: Measure) -> float:
    _, _, r = _counts(top, judged, m.rel)
    total, rel, nonrel, pooled, eps = 0.0, 0, 0, 0, 1e-5
    for j, d in enumerate(top):
        if d not in judged:
            continue
        if judged[d] < 0:
            pooled += 1
        elif judged[d] < m.rel:
            nonrel += 1
        else:
            rel += 1
            if j == 0:
                total += 1.0
            else:
                seen = (rel - 1 + nonrel + pooled) / j
                total += 1 / (j + 1) + (j / (j + 1)) * seen * ((rel - 1 + eps) / (rel - 1 + nonrel + 2 * eps))
    return total / r if r else 0.0


def _graded(top: list[str], judged: dict[str, float]) -> tuple[list[float], list[float], Any, Any]:
    """Linear gains of the ranking, the ideal grades, DCG(k) and IDCG(k) (trec_eval's)."""
    gains = [max(g, 0.0) for g in _labels(top, judged)]
    ideal = sorted((g for g in judged.values() if g > 0), reverse=True)

    def dcg(k: int) -> float:
        return sum(g / math.log2(i + 2) for i, g in enumerate(gains[:k]))

    def idcg(k: int) -> float:
        return sum(g / math.log2(i + 2) for i, g in enumerate(ideal[:k]))

    return gains, ideal, dcg, idcg


def _g(top: list[str], judged: dict[str, float], m: Measure) -> float:
    gains, ideal, _, _ = _graded(top, judged)
    total = cum_gain = cum_ideal = 0.0
    for i, g in enumerate(gains):
        cum_gain += g
        cum_ideal += max(ideal[i] if i < len(ideal) else 0.0, 1.0)
        if g:
            total += g / math.log2(2 + cum_ideal - cum_gain)
    return total / sum(ideal) if ideal else 0.0


def _ndcg_rel(top: list[str], judged: dict[str, float], m: Measure) -> float:
    gains, ideal, dcg, idcg = _graded(top, judged)
    if not ideal:
        return 0.0
    found = [i + 1 for i, g in enumerate(gains) if g > 0]
    total = sum(dcg(i) / idcg(min(i, len(ideal))) for i in found)
    total += (len(ideal) - len(found)) * dcg(len(gains)) / idcg(len(ideal))
    return total / len(ideal) if total > 0 else 0.0


def _rndcg(top: list[str], judged: dict[str, float], m: Measure) -> float:
    gains, ideal, dcg, idcg = _graded(top, judged)
    _, _, r = _counts(top, judged, m.rel)
    n, size = len(gains), len(ideal)
    if not r or not size:
        return 0.0
    padded = [*ideal, 0.0]
    terms = [dcg(min(b, n)) / idcg(b) for b in range(1, size + 1) if padded[b] != padded[b - 1]]
    if n > size + 1:
        terms.append(dcg(n) / idcg(size))
    return sum(terms) / len(terms)


_TREC_FAMILIES: dict[str, Any] = {
    "G": _g,
    "nDCGRel": _ndcg_rel,
    "Rndcg": _rndcg,
    "SetP": _set_p,
    "SetR": _set_r,
    "SetAP": _set_ap,
    "SetF": _set_f,
    "Utility": _utility,
    "NumNonRelJudgedRet": _nonrel_judged,
    "GMAP": _gm,
    "GMBpref": _gm,
    "NumQ": lambda top, judged, m: 1.0,
    "IPrec": _iprec,
    "IPrecAvg": _iprec_avg,
    "RprecMult": _rprec_mult,
    "RelP": _relp,
    "binG": _bing,
    "Unjudged": _unjudged_at,
    "RBPResid": _rbp_resid,
    "infAP": _infap,
}


def oracle_evaluate(
    run: Frame,
    qrels: Frame | None,
    measures: Iterable[str | Measure],
    *,
    missing: str = "zero",
) -> dict[str, dict[str, float | None]]:
    """Per-query values ``{query_id: {label: value}}`` (query ids as str).

    Run-only queries (no judgments) map every label to ``None``.  With
    ``missing="zero"`` a qrels query absent from the run is scored against an empty
    ranking (0 for every measure except ``NumRel``, which is a property of the qrels;
    this is what trec_eval ``-c`` does); ``"drop"`` leaves it out; ``"error"`` raises.
    """
    labelled = parse_measures(list(measures))
    run_by_q: dict[str, list[dict[str, Any]]] = {}
    for r in _rows(run):
        run_by_q.setdefault(str(r["query_id"]), []).append(r)

    judged_by_q: dict[str, dict[str, float]] = {}
    if qrels is not None:
        for r in _rows(qrels):
            judged_by_q.setdefault(str(r["query_id"]), {})[str(r["doc_id"])] = r["relevance"]
    else:
        for q, rows in run_by_q.items():
            for r in rows:
                if not _is_null(r.get("relevance")):
                    judged_by_q.setdefault(q, {})[str(r["doc_id"])] = r["relevance"]

    absent = sorted(set(judged_by_q) - set(run_by_q))
    if absent and missing == "error":
        msg = f"queries missing from the run: {absent}"
        raise ValueError(msg)

    out: dict[str, dict[str, float | None]] = {}
    for q in sorted(set(run_by_q) | set(judged_by_q)):
        if q not in judged_by_q:
            out[q] = {label: None for label, _ in labelled}
            continue
        if q not in run_by_q and missing == "drop":
            continue
        ranking = rank_docs(run_by_q[q]) if q in run_by_q else []
        out[q] = {label: oracle_query(ranking, judged_by_q[q], m) for label, m in labelled}
    return out


def oracle_mean(per_query: dict[str, dict[str, float | None]]) -> dict[str, float]:
    """Each measure over judged queries by its family's ``aggregate`` (mean, sum, geometric
    mean), plus ``n_queries``."""
    judged = [v for v in per_query.values() if all(x is not None for x in v.values())]
    labels = list(next(iter(per_query.values()))) if per_query else []
    out: dict[str, float] = {}
    for label in labels:
        vals = [float(v[label]) for v in judged]  # type: ignore[arg-type]
        how = parse_measures([label])[0][1].definition.aggregate
        if how == "sum":  # NumQ
            out[label] = sum(vals) if vals else math.nan
        elif how == "gmean":  # GMAP, GMBpref: trec_eval's floor of 1e-5 per query
            out[label] = math.exp(sum(math.log(max(x, 1e-5)) for x in vals) / len(vals)) if vals else math.nan
        else:
            out[label] = sum(vals) / len(vals) if vals else math.nan
    out["n_queries"] = len(judged)
    return out
