"""ranx's metric names and the irframe measure of the same meaning (no irframe imports:
the registry's unknown-measure error reads it).

ranx writes ``name``, ``name@k`` and ``name-lN`` (relevance level N, irframe's ``rel``); a
name without ``@k`` means the whole ranking, so ``precision`` is irframe's SetP, not P (which
needs a cutoff).  ``rbp.95`` is RBP with p = 0.95 on the raw grades.
"""

from __future__ import annotations

import re

__all__ = ["RANX", "RANX_WHOLE", "ranx_meaning"]

# ranx metric name -> the irframe family (with fixed parameters) that computes the same thing at
# a cutoff k; RANX_WHOLE overrides it for the name written without @k (the whole ranking)
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
RANX_WHOLE: dict[str, str] = {
    "precision": "SetP",  # hits / retrieved
    "f1": "SetF",  # 2 P R / (P + R) of the whole list (SetF's beta = 1)
}
_NO_CUTOFF = {"r_precision", "r-precision", "bpref"}  # ranx ignores their @k
_NO_REL = {"ndcg", "ndcg_burges", "dcg", "dcg_burges"}  # -lN drops grades: no irframe parameter
_SPEC = re.compile(r"^(?P<name>[a-z0-9_-]+?)(?:@(?P<k>[0-9]+))?(?:-l(?P<rel>[0-9]+))?$")
_RBP = re.compile(r"^rbp[.@](?P<p>[0-9]+)(?:-l(?P<rel>[0-9]+))?$")


def _with_rel(target: str, rel: str | None) -> str:
    """``target`` with ``rel=N`` added among its parameters (nothing for rel 1, the default)."""
    if rel is None or int(rel) == 1:
        return target
    name, paren, inner = target.partition("(")
    return f"{name}(rel={int(rel)}" + ("," + inner if paren else ")")


def ranx_meaning(text: str) -> str | None:
    """The irframe spelling of a ranx metric name such as ``ndcg@10``, or None.

    Examples
    --------
    >>> ranx_meaning("ndcg@10"), ranx_meaning("hits@10"), ranx_meaning("nDCG@10")
    ('nDCG(gain=linear)@10', 'NumRelRet@10', None)
    >>> ranx_meaning("precision"), ranx_meaning("precision@5-l2"), ranx_meaning("rbp.95")
    ('SetP', 'P(rel=2)@5', 'RBP(p=0.95,rel=1,gain=linear)')
    """
    text = text.strip()
    rbp = _RBP.match(text)
    if rbp is not None:  # ranx: the raw grade of every document judged >= rel_lvl (1)
        p = float("0." + rbp["p"])
        head = "RBP(" if p == 0.8 else f"RBP(p={p!r},"  # RBP's default p
        return head + f"rel={int(rbp['rel'] or 1)},gain=linear)"
    m = _SPEC.match(text)
    if m is None or m["name"] not in RANX or (m["rel"] is not None and m["name"] in _NO_REL):
        return None
    name, k = m["name"], m["k"]
    if k is None or name in _NO_CUTOFF:
        return _with_rel(RANX_WHOLE.get(name, RANX[name]), m["rel"])
    return _with_rel(RANX[name], m["rel"]) + f"@{k}"
