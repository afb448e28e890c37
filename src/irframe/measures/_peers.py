"""Other tools' measures: ir_measures objects (accepted) and ranx spellings (explained).

An ir_measures measure object keeps ir_measures' meaning: its nDCG uses the linear gain
(trec_eval's), so ``ir_measures.nDCG@10`` is irframe's ``nDCG(gain=linear)@10``, and the
output column carries that canonical string.  ranx's lower-case names are not accepted
silently (``ndcg@10`` means the linear gain in ranx, ``hits@10`` the number of relevant
documents retrieved): the unknown-measure error names the irframe measure with the same
meaning.
"""

from __future__ import annotations

from typing import Any

from irframe.exceptions import UnknownMeasureError
from irframe.measures._base import Measure, aliases, registry
from irframe.measures._ranx import RANX, ranx_meaning

__all__ = ["RANX", "dcg_as_gain", "from_ir_measures", "is_ir_measures", "ranx_meaning"]


def is_ir_measures(obj: object) -> bool:
    """True for an ir_measures measure object (ir_measures is never imported here)."""
    return type(obj).__module__.split(".")[0] == "ir_measures" and hasattr(obj, "NAME")


def dcg_as_gain(name: str, params: dict[str, Any], where: str) -> None:
    """ir_measures' ``dcg=`` (nDCG, SDCG), in ``params``, as irframe's parameters, in place:
    nDCG's ``dcg='log2'`` (trec_eval's) is ``gain=linear``, ``dcg='exp-log2'`` (gdeval's)
    ``gain=exp``; explicit ``gains`` are kept; SDCG has the log2 discount only.  Quotes
    around the value (``nDCG(dcg="exp-log2")`` as text) are read as ir_measures reads them.

    Examples
    --------
    >>> params = {"dcg": '"exp-log2"'}
    >>> dcg_as_gain("nDCG", params, "nDCG(dcg=...)"); params
    {'gain': 'exp'}
    """
    if "dcg" not in params:
        return
    dcg = str(params.pop("dcg")).strip().strip("'\"")
    if name in ("nDCG", "NDCG") and dcg in ("log2", "exp-log2"):
        if "gains" not in params:
            params["gain"] = "exp" if dcg == "exp-log2" else "linear"
        return
    if name == "SDCG" and dcg == "log2":
        return
    shown = "'log2' or 'exp-log2'" if name != "SDCG" else "'log2' (irframe's SDCG has the log2 discount only)"
    msg = f"{where}: dcg={dcg!r} has no irframe equivalent. Hint: use {shown}."
    raise UnknownMeasureError(msg)


def from_ir_measures(obj: Any) -> Measure:
    """The irframe measure with the meaning of an ir_measures measure object.

    ir_measures' nDCG is trec_eval's (linear gain) unless ``dcg='exp-log2'``; explicit
    ``gains`` are kept.  ``NumRet(rel=...)`` counts relevant retrieved documents
    (NumRelRet).  ``RBP(rel=r)`` is the binary RBP (its cwl-eval provider), ``RBP`` without
    ``rel`` the graded one on raw grades (its trectools provider): ``RBP(gain=linear)``.
    The counts ir_measures sums over queries (``NumRet``, ``NumRel``) are refused: irframe's
    count columns are means.
    Other parameters keep their names and are checked by irframe: one irframe does not
    declare raises, it is never dropped.

    Examples
    --------
    >>> class RBP:  # stands in for ir_measures' measure object
    ...     __module__ = "ir_measures.measures.rbp"
    ...     NAME = "RBP"
    ...     def __init__(self, **params): self.params = params
    >>> from_ir_measures(RBP(rel=2)), from_ir_measures(RBP())
    (RBP(rel=2), RBP(gain=linear))
    """
    params = dict(getattr(obj, "params", {}) or {})
    name = str(obj.NAME)
    cutoff = params.pop("cutoff", None)
    if name == "nDCG" and "dcg" not in params and "gains" not in params:
        params["dcg"] = "log2"  # ir_measures' default: trec_eval's linear gain
    dcg_as_gain(name, params, f"ir_measures {obj}")
    if name == "NumRet" and "rel" in params:
        name = "NumRelRet"
    if name == "RBP" and "rel" not in params:
        params["gain"] = "linear"  # ir_measures' graded RBP (trectools): the raw grades as gains
    family = aliases().get(name, name)
    if family not in registry():
        msg = (
            f"The ir_measures measure {obj} has no irframe family. Hint: see 'irframe measures' "
            "for the families irframe computes."
        )
        raise UnknownMeasureError(msg)
    _refuse_summed(obj, family)
    return Measure(family, cutoff, **params)


def _refuse_summed(obj: object, family: str) -> None:
    """ir_measures sums its counts over queries (NumRet, NumRel, NumRet(rel=...)); irframe's
    count families average them (trec_eval's ``all`` row sums): the same object would give
    another number under the same name, so it is refused, with both ways to the number."""
    fam = registry()[family]
    if fam.total != "sum" or fam.aggregate == "sum":
        return
    msg = (
        f"ir_measures' {obj} is summed over the queries; irframe's {family} column is the mean "
        f"per query, so the object would give another number. Hint: pass the string {family!r} "
        f"(the mean), and for ir_measures' sum take evaluate(..., per_query=True)[{family!r}].sum(), "
        "or irframe eval -f trec (its 'all' row sums the counts, as trec_eval's)."
    )
    raise UnknownMeasureError(msg)  # (SDCG's max_rel is required: not set afterwards)
