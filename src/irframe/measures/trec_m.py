"""trec_eval's ``-m`` spellings, as the command line reads them: groups, dotted values, ``--rel``/``--gain``.

``-m all_trec`` and ``-m official`` stand for the names of that trec_eval group,
``-m P.5,10`` for ``P_5`` and ``P_10``, a bare ``-m P`` (a family that needs a cutoff)
for trec_eval's default cutoffs.  :func:`resolve` parses each measure once into an
:class:`Asked` value that carries everything the command line's outputs need: the
output label, the measure, and the name and rules of trec_eval's layout.

Examples
--------
>>> [(a.label, a.printed) for a in resolve(["P.5,10", "nDCG@10"])]
[('P_5', 'P_5'), ('P_10', 'P_10'), ('nDCG@10', 'nDCG@10')]
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from irframe.exceptions import IrFrameError
from irframe.measures._base import Measure, registry
from irframe.measures._params import GAIN, REL
from irframe.measures._parse import parse_measure, to_trec_name, trec_bases, trec_dotted, trec_groups

__all__ = [
    "TEXT_MEASURES",
    "TREC_ORDER",
    "Asked",
    "expand_groups",
    "in_trec_order",
    "resolve",
    "resolve_measures",
    "text_measures",
    "trec_position",
]


# trec_eval's text measures: not numbers, so not registry families; `-f trec` prints them
# (relstring per query, runid in the 'all' rows), with the groups that include them
TEXT_MEASURES: dict[str, tuple[str, ...]] = {
    "runid": ("official", "all_trec", "set"),
    "relstring": ("all_trec",),
}

# trec_eval 10.0's table of measures (te_trec_measures in measures.c): its output follows
# this order whatever the order of -m; the names with a value (P_5, iprec_at_recall_0.10)
# sort under their base by value, as trec_eval prints them
TREC_ORDER: tuple[str, ...] = (
    "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
    "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref", "Rprec_mult",
    "utility", "11pt_avg", "binG", "G", "dcg", "ideal_dcg", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut",
    "map_cut", "relative_P", "success", "set_P", "set_relative_P", "set_recall", "set_map", "set_F",
    "num_nonrel_judged_ret", "num_nonjudged_ret", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg", "yaap",
    "rbp", "rbp_resid", "unj",
)  # fmt: skip
_VALUE = re.compile(r"[0-9]+(?:\.[0-9]+)?")


def trec_position(name: str) -> tuple[int, float] | None:
    """Where trec_eval prints ``name`` (its place in :data:`TREC_ORDER`, then its value),
    or None for a name trec_eval does not print.

    Examples
    --------
    >>> trec_position("runid"), trec_position("P_10"), trec_position("num_rel_ret"), trec_position("nDCG@10")
    ((0, 0.0), (11, 10.0), (4, 0.0), None)
    """
    for base in sorted(TREC_ORDER, key=len, reverse=True):
        if name == base:
            return TREC_ORDER.index(base), 0.0
        if name.startswith(base + "_") and _VALUE.fullmatch(name[len(base) + 1 :]):
            return TREC_ORDER.index(base), float(name[len(base) + 1 :])
    return None


def in_trec_order(asked: Sequence[Asked]) -> list[Asked]:
    """``asked`` in the order trec_eval prints them (:func:`trec_position` of the printed
    name); the measures trec_eval has no name for follow, in the order asked.

    Examples
    --------
    >>> [a.printed for a in in_trec_order(resolve(["nDCG@10", "P.10,5", "map", "num_q"]))]
    ['num_q', 'map', 'P_5', 'P_10', 'nDCG@10']
    """
    last = (len(TREC_ORDER), 0.0)
    keyed = [(trec_position(a.printed) or last, i, a) for i, a in enumerate(asked)]
    return [a for *_, a in sorted(keyed, key=lambda t: (t[0], t[1]))]


@dataclass(frozen=True)
class Asked:
    """One measure as the command line was asked for it, parsed once.

    Attributes
    ----------
    spec : str
        The measure as written (after trec_eval's groups are expanded), e.g. ``"P_5"``.
    measure : Measure
        The measure computed (``--rel``/``--gain`` applied).
    label : str
        The output column: ``spec`` when ``--rel``/``--gain`` left it unchanged, else the
        canonical form of ``measure`` (``P(rel=2)@5``).
    printed : str
        The name ``-f trec`` prints: trec_eval's own for a measure written as a trec_eval
        name (kept under ``--rel``, as ``-l`` keeps it), else ``label``.
    """

    spec: str
    measure: Measure
    label: str
    printed: str

    @property
    def counted(self) -> bool:
        """A count (NumRet, NumRel ...): summed in trec_eval's ``all`` rows (``Family.total``)."""
        return self.measure.definition.total == "sum"

    @property
    def all_only(self) -> bool:
        """Printed in ``all`` only (num_q, gm_map): its per-query value is not what ``all`` averages."""
        return self.measure.definition.aggregate != "mean"

    @property
    def engine_input(self) -> str | Measure:
        """What the engine is given: the label when it is the spelling of ``measure``."""
        return self.label if self.label == self.spec else self.measure


def text_measures(specs: Sequence[str]) -> list[str]:
    """The text measures asked for, by name or through a group (``-m all_trec``).

    Examples
    --------
    >>> text_measures(["map", "all_trec"]), text_measures(["map"])
    (['runid', 'relstring'], [])
    """
    wanted = {s.strip() for s in specs}
    return [name for name, groups in TEXT_MEASURES.items() if name in wanted or wanted & set(groups)]


def _trec_spelling(spec: str) -> list[str] | None:
    """trec_eval's -m spellings: ``P.5,10`` (given values), ``ndcg.1=0.5,2=3`` (gains) and a
    bare ``P`` or ``ndcg_cut`` (trec_eval's default values), where irframe reads no measure
    of that name."""
    pairs = _gain_pairs(spec)
    if pairs is not None:
        return [pairs[0]]
    dotted = trec_dotted(spec)
    if dotted is not None or spec not in trec_bases():
        return dotted
    try:
        parse_measure(spec)
    except IrFrameError:
        return list(trec_bases()[spec])
    return None


def expand_groups(specs: Sequence[str]) -> list[str]:
    """Replace trec_eval group names (``-m all_trec``, ``-m official``) by their measures,
    and trec_eval's ``-m P.5,10`` / ``-m ndcg_cut`` by the names trec_eval prints.

    Text measures (``relstring``) are left out: ``-f trec`` prints them (:func:`text_measures`).

    Examples
    --------
    >>> names = expand_groups(["P@5", "set"])
    >>> names[0], "set_F" in names, "P_5" in names
    ('P@5', True, False)
    >>> expand_groups(["P.5,10", "ndcg_cut.10"]), len(expand_groups(["P"]))
    (['P_5', 'P_10', 'ndcg_cut_10'], 9)
    """
    groups = trec_groups()
    out: list[str] = []
    for spec in (s.strip() for s in specs):
        if spec not in TEXT_MEASURES:
            out.extend(groups.get(spec) or _trec_spelling(spec) or [spec])
    return list(dict.fromkeys(out))


# trec_eval's -m name.params where the params are one string trec_eval prints after the name:
# set_F.0.5 (a value; set_F_0.5) and ndcg.1=0.5,2=3 (gains per level; ndcg_1=0.5,2=3)
_PARAM_STRING = re.compile(r"^(?P<base>[A-Za-z][A-Za-z0-9_]*)\.(?P<params>.+)$")
_GAIN_PAIRS = re.compile(r"^-?[0-9]+=-?[0-9]+(?:\.[0-9]+)?(?:,-?[0-9]+=-?[0-9]+(?:\.[0-9]+)?)*$")


def _gain_pairs(spec: str) -> tuple[str, str] | None:
    """trec_eval's ``ndcg.1=0.5,2=3`` (level=gain pairs, the levels not listed at their linear
    gain): the irframe measure and the name trec_eval prints (``ndcg_1=0.5,2=3``); None when
    ``spec`` is not so written.

    Examples
    --------
    >>> _gain_pairs("ndcg.1=0.5,2=3"), _gain_pairs("ndcg_cut.10")
    (('nDCG(gains={1:0.5,2:3})', 'ndcg_1=0.5,2=3'), None)
    """
    m = _PARAM_STRING.match(spec.strip())
    if m is None or not _GAIN_PAIRS.match(m["params"]):
        return None
    for fam in registry().values():  # the family whose trec_eval name this is (gain=linear)
        for t in fam.trec:
            if t.pattern == m["base"] and t.slot is None and t.fixed.get("gain") == "linear":
                gains = "{" + m["params"].replace("=", ":") + "}"
                return str(parse_measure(f"{fam.name}(gains={gains})")), f"{m['base']}_{m['params']}"
    return None


def _printed_names(spec: str) -> dict[str, str]:
    """What trec_eval prints for the measures ``spec`` expands to, where irframe's own name
    differs: ``set_F.0.5`` -> ``set_F_0.5`` (trec_eval appends the parameter string as
    written), ``ndcg.1=0.5,2=3`` -> ``ndcg_1=0.5,2=3``.

    Examples
    --------
    >>> _printed_names("set_F.0.5"), _printed_names("set_F.1.0,0.5"), _printed_names("P.5")
    ({'SetF(beta=0.5)': 'set_F_0.5'}, {'SetF(beta=0.5)': 'set_F_0.5'}, {})
    """
    pairs = _gain_pairs(spec)
    if pairs is not None:
        return {pairs[0]: pairs[1]}
    m = _PARAM_STRING.match(spec.strip())
    found = trec_dotted(spec) if m is not None else None
    if m is None or found is None:
        return {}
    values = m["params"].split(",")
    return {
        name: f"{m['base']}_{v}"
        for name, v in zip(found, values, strict=False)
        if name not in (m["base"], *(f"{m['base']}_{v}" for v in values))  # (P_5: already its name)
    }


def _explicit_params(spec: str) -> set[str]:
    """Parameter names written in a measure string: ``P(rel=2)@5`` -> ``{"rel"}``."""
    m = re.search(r"\((.*)\)", spec)
    if not m:
        return set()
    return {part.split("=", 1)[0].strip() for part in m.group(1).split(",") if "=" in part}


def _asked(spec: str, rel: float | None, gain: str | None, trec_printed: str | None = None) -> Asked:
    """``trec_printed``: the name trec_eval prints for ``spec`` when it is not irframe's
    (:func:`_printed_names`)."""
    m = parse_measure(spec)  # the one parse of this measure
    trec = trec_printed or to_trec_name(m)
    written_as_trec = trec == spec or trec_printed is not None
    params = registry()[m.family].params
    explicit = _explicit_params(spec)
    new = m
    # --rel is trec_eval's -l: a relevance threshold (RBP's rel makes a binary RBP, -l leaves rbp be)
    if rel is not None and params.get("rel") is REL and "rel" not in explicit:
        new = new(rel=rel)
    gains = params.get("gain") is GAIN  # nDCG's gain, not RBP's scaled/linear
    if gain is not None and gains and not explicit & {"gain", "gains"} and not written_as_trec:
        new = new(gain=gain)
    label = spec if new == m else str(new)
    printed = (trec_printed or to_trec_name(new) or label) if written_as_trec else label
    return Asked(spec, new, label, printed)


def resolve(specs: Sequence[str], rel: float | None = None, gain: str | None = None) -> list[Asked]:
    """Expand trec_eval groups, parse each measure once, apply ``--rel`` and ``--gain``.

    ``all_trec``, ``official`` and ``set`` stand for trec_eval's names of that group.
    A measure left unchanged keeps the user's spelling as its label; a changed one is
    labelled by its canonical form, e.g. ``P(rel=2)@5``.  trec_eval names keep their
    meaning: ``--rel`` applies to them (like trec_eval's ``-l``), ``--gain`` does not
    (``ndcg_cut_10`` is linear by definition).  Two spellings that end with one label
    (``P@5 --rel 2`` and ``P(rel=2)@5``) are one measure.

    Examples
    --------
    >>> [(a.label, a.printed) for a in resolve(["P_5", "nDCG@10"], rel=2, gain="linear")]
    [('P(rel=2)@5', 'P_5'), ('nDCG(gain=linear)@10', 'nDCG(gain=linear)@10')]
    >>> [(a.label, a.counted, a.all_only) for a in resolve(["num_ret", "gm_map"])]
    [('num_ret', True, False), ('gm_map', False, True)]
    """
    by_label: dict[str, Asked] = {}
    for given in specs:
        printed = _printed_names(given)
        for spec in expand_groups([given]):
            a = _asked(spec, rel, gain, printed.get(spec))
            by_label.setdefault(a.label, a)
    return list(by_label.values())


def resolve_measures(
    specs: Sequence[str], rel: float | None = None, gain: str | None = None
) -> list[str | Measure]:
    """:func:`resolve`'s measures as ``evaluate`` takes them: the spelling of a measure left
    unchanged, the changed :class:`Measure` otherwise.

    Examples
    --------
    >>> resolve_measures(["P@5", "P(rel=3)@5", "nDCG@10", "ndcg_cut_10"], rel=2, gain="linear")
    [P(rel=2)@5, 'P(rel=3)@5', nDCG(gain=linear)@10, 'ndcg_cut_10']
    """
    return [a.engine_input for a in resolve(specs, rel, gain)]
