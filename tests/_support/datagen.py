"""Hypothesis strategies for random runs, qrels and measures (shared by the test areas).

The data deliberately contains what trips evaluators up: tied scores, doc ids whose
string order differs from their numeric order (``"9"`` > ``"10"``), upper and lower
case, negative grades, unjudged retrieved docs, relevant docs never retrieved,
queries only in the qrels and queries only in the run.
"""

from __future__ import annotations

from typing import Any

from hypothesis import assume
from hypothesis import strategies as st

from irframe.exceptions import InvalidParameterError
from irframe.measures import FAMILIES, Measure, Param, parse_measure
from irframe.measures._params import GAIN

DOC_IDS = ["a", "b", "B", "c", "d", "9", "10", "100", "d1", "d10", "d2", "x", "Zz", "é"]
QUERY_IDS = ["q1", "q2", "q3", "10", "9", "Q4"]
SCORES = [0.0, 0.25, 0.5, 1.0, 1.5, 2.0, -1.0]

TREC_LINEAR_FAMILIES = (
    "P",
    "R",
    "RR",
    "AP",
    "nDCG",
    "Rprec",
    "Bpref",
    "Success",
    "NumRet",
    "NumRel",
    "NumRelRet",
)
# every registered family: a family the plain-Python oracle does not know fails the property tests
# (but the diversity ones, which read subtopic qrels: tests/measures/test_diversity.py)
ALL_FAMILIES = tuple(name for name, fam in FAMILIES.items() if fam.kind != "diversity")


@st.composite
def run_and_qrels(
    draw: st.DrawFn,
    *,
    grades: tuple[float, ...] = (-1, 0, 0, 1, 1, 2, 3),
    use_rank: bool = False,
    allow_run_only: bool = True,
    allow_qrels_only: bool = True,
    max_queries: int = 4,
) -> tuple[dict[str, list[Any]], dict[str, list[Any]]]:
    """A (run, qrels) pair of dict-of-lists with str ids."""
    queries = draw(st.lists(st.sampled_from(QUERY_IDS), min_size=1, max_size=max_queries, unique=True))
    roles = ["both"]
    if allow_run_only:
        roles.append("run_only")
    if allow_qrels_only:
        roles.append("qrels_only")
    run: dict[str, list[Any]] = {"query_id": [], "doc_id": [], "rank" if use_rank else "score": []}
    qrels: dict[str, list[Any]] = {"query_id": [], "doc_id": [], "relevance": []}
    for i, q in enumerate(queries):
        # the first query is always in both, so the evaluation is never empty
        role = "both" if i == 0 else draw(st.sampled_from([*roles, "both", "both"]))
        if role != "qrels_only":
            docs = draw(st.lists(st.sampled_from(DOC_IDS), min_size=1, max_size=12, unique=True))
            if use_rank:
                ranks = draw(st.permutations(list(range(1, len(docs) + 1))))
                values: list[Any] = list(ranks)
            else:
                values = [draw(st.sampled_from(SCORES)) for _ in docs]
            run["query_id"] += [q] * len(docs)
            run["doc_id"] += docs
            run["rank" if use_rank else "score"] += values
        if role != "run_only":
            jdocs = draw(st.lists(st.sampled_from(DOC_IDS), min_size=1, max_size=10, unique=True))
            if role == "both" and draw(st.booleans()):
                # every retrieved doc judged (dense relevance, all-relevant rankings)
                jdocs = list(dict.fromkeys([*docs, *jdocs]))
            qrels["query_id"] += [q] * len(jdocs)
            qrels["doc_id"] += jdocs
            qrels["relevance"] += [draw(st.sampled_from(grades)) for _ in jdocs]
    return run, qrels


@st.composite
def golden_run(
    draw: st.DrawFn, *, grades: tuple[float | None, ...] = (None, -1, 0, 0, 1, 1, 2, 3)
) -> dict[str, list[Any]]:
    """A run whose rows carry their own grade (``relevance``, ``None`` = unjudged).

    Every query has at least one judged row (a query with no judgment at all is a
    separate, explicitly tested case).
    """
    queries = draw(st.lists(st.sampled_from(QUERY_IDS), min_size=1, max_size=4, unique=True))
    run: dict[str, list[Any]] = {"query_id": [], "doc_id": [], "score": [], "relevance": []}
    for q in queries:
        docs = draw(st.lists(st.sampled_from(DOC_IDS), min_size=1, max_size=12, unique=True))
        gs = [draw(st.sampled_from(grades)) for _ in docs]
        if all(g is None for g in gs):
            gs[0] = draw(st.sampled_from([g for g in grades if g is not None]))
        run["query_id"] += [q] * len(docs)
        run["doc_id"] += docs
        run["score"] += [draw(st.sampled_from(SCORES)) for _ in docs]
        run["relevance"] += gs
    return run


def _custom_gains() -> st.SearchStrategy[str]:
    return st.dictionaries(
        st.sampled_from([0, 1, 2, 3]), st.sampled_from([0, 0.5, 1, 3, 10]), min_size=1, max_size=4
    ).map(lambda d: "{" + ",".join(f"{g}:{v}" for g, v in sorted(d.items())) + "}")


_PARAM_VALUES: dict[str, Any] = {  # param name -> strategy of its written value (else its default)
    "max_rel": st.sampled_from([1, 2, 3]),  # C/W/L: required
    "T": st.sampled_from([0.5, 1, 2]),
}


def _param_text(draw: st.DrawFn, spec: Param, rels: tuple[float, ...], gains: tuple[str, ...]) -> str | None:
    """A drawn ``name=value`` for one declared parameter, or None to keep its default."""
    name = spec.name
    if name == "rel":
        rel = draw(st.sampled_from((*rels, None) if spec.default is None else rels))  # RBP: None is graded
        return None if rel == spec.default else f"rel={rel}"
    if spec is GAIN:
        g = draw(st.sampled_from(gains))
        return {"exp": None, "linear": "gain=linear"}.get(g, "gains=" + draw(_custom_gains()))
    if name in _PARAM_VALUES:
        return f"{name}={draw(_PARAM_VALUES[name])}"
    if spec.choices:
        value = draw(st.sampled_from(spec.choices))
        return None if value == spec.default else f"{name}={value}"
    if spec.type_name == "bool" and name != "judged_only":
        return f"{name}={not spec.default}" if draw(st.booleans()) else None
    return None


@st.composite
def measure_strings(
    draw: st.DrawFn,
    *,
    families: tuple[str, ...] = ALL_FAMILIES,
    rels: tuple[float, ...] = (1, 1, 2, 3, 0.5, 1.5),
    gains: tuple[str, ...] = ("exp", "linear", "custom"),
) -> str:
    """One measure in ir_measures notation, with random cutoff/threshold/gain.

    Read from the registry: the family's declared parameters and its cutoff rule.
    """
    fam = FAMILIES[draw(st.sampled_from(families))]
    params = [t for p in fam.params if (t := _param_text(draw, p, rels, gains)) is not None]
    text = fam.name + (f"({','.join(params)})" if params else "")
    k = draw(st.integers(1, 15))
    if fam.cutoff == "required" or (fam.cutoff == "optional" and draw(st.booleans())):
        text += f"@{k}"
    try:
        parse_measure(text)
    except InvalidParameterError:  # a combination the family refuses (RBP(gain=linear,residual=True))
        assume(False)
    return text


def measure_lists(**kwargs: Any) -> st.SearchStrategy[list[str]]:
    """A few distinct measures."""
    return st.lists(measure_strings(**kwargs), min_size=1, max_size=5, unique=True)


def trec_name(m: Measure) -> str:
    """The pytrec_eval measure name (``P.5``) for a linear-gain trec measure."""
    base = {
        "P": "P",
        "R": "recall",
        "RR": "recip_rank",
        "AP": "map",
        "nDCG": "ndcg",
        "Rprec": "Rprec",
        "Bpref": "bpref",
        "Success": "success",
        "NumRet": "num_ret",
        "NumRel": "num_rel",
        "NumRelRet": "num_rel_ret",
    }[m.family]
    if m.cutoff is None:
        return base
    if m.family == "AP":
        return f"map_cut.{m.cutoff}"
    if m.family == "nDCG":
        return f"ndcg_cut.{m.cutoff}"
    return f"{base}.{m.cutoff}"
