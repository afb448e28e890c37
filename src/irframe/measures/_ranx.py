"""ranx's metric names and the irframe measure of the same meaning (no irframe imports:
the registry's unknown-measure error reads it)."""

from __future__ import annotations

__all__ = ["RANX", "ranx_meaning"]

# ranx metric name -> the irframe measure (without cutoff) that computes the same thing
RANX: dict[str, str] = {
    "ndcg": "nDCG(gain=linear)",
    "ndcg_burges": "nDCG",
    "dcg": "DCG(gain=linear)",
    "dcg_burges": "DCG",
    "hits": "NumRelRet",
    "hit_rate": "Success",
    "mrr": "RR",
    "map": "AP",
    "f1": "F1",
    "recall": "R",
    "precision": "P",
    "r_precision": "Rprec",
    "r-precision": "Rprec",
    "bpref": "Bpref",
}


def ranx_meaning(text: str) -> str | None:
    """The irframe spelling of a ranx metric name such as ``ndcg@10``, or None.

    Examples
    --------
    >>> ranx_meaning("ndcg@10"), ranx_meaning("hits@10"), ranx_meaning("nDCG@10")
    ('nDCG(gain=linear)@10', 'NumRelRet@10', None)
    """
    name, at, k = text.strip().partition("@")
    target = RANX.get(name)
    if target is None or (at and not k.isdigit()):
        return None
    return target + (f"@{k}" if at else "")
