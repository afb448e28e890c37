"""The diversity families on subtopic qrels: hand computations, pyndeval (ndeval.c), the engine's rules.

pyndeval is the oracle (a binding of ndeval.c, the TREC Web track's tool and ir_measures'
provider).  Its conventions that differ from irframe's, stated once and applied in
:func:`ndeval_values`:

- ties: pyndeval ranks by score with ties broken by doc id *ascending*
  (``sorted(key=(-score, doc))``); ndeval ``-traditional`` and trec_eval break them by
  doc id descending, as irframe does.  The oracle is given irframe's rule's order (from
  a plain-Python sort here) as untied scores, so it sees the ranking irframe evaluates;
  :func:`test_pyndeval_breaks_ties_the_other_way` shows the difference.
- a query without a relevant subtopic: nNRBP is NaN in ndeval (0/0), 0 in irframe.
- ERR-IA@1: ndeval leaves it unnormalised (its normalisation loop starts at rank 2);
  irframe divides it by A like every cutoff.
- pyndeval gives no row for a qrels query the run lacks (irframe: 0, counted) or a run
  query without judgments (irframe: null, left out).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import irframe
from _support.helpers import NamedConstructor, assert_close_dicts, native_type, per_query_dict, to_polars
from irframe.exceptions import (
    ColumnNotFoundError,
    DuplicateRowsError,
    InvalidDataError,
    InvalidParameterError,
    UnknownMeasureError,
)
from irframe.measures import FAMILIES, Measure, parse_measure

Data = dict[str, list[Any]]
DIVERSITY = [name for name, fam in FAMILIES.items() if fam.kind == "diversity"]
ND_NAMES = {
    "alpha_nDCG": "alpha-nDCG", "ERR_IA": "ERR-IA", "nERR_IA": "nERR-IA", "NRBP": "NRBP", "nNRBP": "nNRBP",
    "AP_IA": "MAP-IA", "P_IA": "P-IA", "StRecall": "strec",
}  # fmt: skip
DOC_IDS = ["a", "b", "B", "c", "d", "9", "10", "100", "d1", "d10", "d2", "x", "Zz", "é"]


def _pyndeval() -> Any:
    return pytest.importorskip("pyndeval", reason="the diversity oracle needs pip install pyndeval (oracle)")


# --- the worked example, by hand ----------------------------------------------------------
# q1 has subtopics s1, s2, s3.  Relevant: a {s1, s2}, b {s1}, c {s3}, d {s2, s3}; e is judged
# non-relevant for s1; x is unjudged.  The run ranks b, a, e, c, x.
HAND_RUN: Data = {"query_id": ["q1"] * 5, "doc_id": ["b", "a", "e", "c", "x"], "rank": [1, 2, 3, 4, 5]}
HAND_QRELS: Data = {
    "query_id": ["q1"] * 7,
    "subtopic": ["s1", "s2", "s1", "s3", "s2", "s3", "s1"],
    "doc_id": ["a", "a", "b", "c", "d", "d", "e"],
    "relevance": [1, 1, 1, 1, 1, 1, 0],
}


def test_alpha_ndcg_by_hand() -> None:
    # alpha = 0.5: a subtopic's n-th relevant document gains 0.5^(n-1) for it.
    # run gains: b 1 (s1 new); a 0.5 (s1 again) + 1 (s2 new) = 1.5; e 0; c 1 (s3 new)
    dcg = 1 / math.log2(2) + 1.5 / math.log2(3) + 0 / math.log2(4) + 1 / math.log2(5)
    # ideal (greedy, a tie to the larger doc id): a and d both gain 2 -> d; then a 1.5
    # (s1 new, s2 again); then b and c both gain 0.5 -> c; then b 0.5
    idcg = 2 / math.log2(2) + 1.5 / math.log2(3) + 0.5 / math.log2(4) + 0.5 / math.log2(5)
    assert dcg / idcg == pytest.approx(0.696734, abs=1e-6)
    out = irframe.evaluate(pl.DataFrame(HAND_RUN), ["alpha_nDCG@4", "alpha_nDCG@1"], pl.DataFrame(HAND_QRELS))
    assert out["alpha_nDCG@4"].item() == pytest.approx(dcg / idcg, abs=1e-12)
    assert out["alpha_nDCG@1"].item() == pytest.approx(1 / 2, abs=1e-12)  # b's 1 against d's 2


def test_the_other_families_by_hand() -> None:
    a = 3  # subtopics with a relevant document
    expected = {
        "P_IA@4": (1 + 2 + 0 + 1) / (4 * a),  # (document, subtopic) relevant pairs in the top 4
        "StRecall@2": 2 / a,  # s1 and s2 covered by b, a
        "StRecall@5": 3 / a,
        # ERR-IA: gains over rank, over A x (1 + 0.5/2) (every document relevant to all)
        "ERR_IA@2": (1 / 1 + 1.5 / 2) / (a * (1 + 0.5 / 2)),
        "ERR_IA@1": 1 / a,
        "nERR_IA@2": (1 / 1 + 1.5 / 2) / (2 / 1 + 1.5 / 2),  # over the ideal's d, a
        # AP per subtopic: s1 (b@1, a@2; R 2) 1; s2 (a@2; R 2) 1/2/2; s3 (c@4; R 2) 1/4/2
        "AP_IA": (1 + 0.25 + 0.125) / a,
        # NRBP: (1 - (1-alpha) beta) / A x sum of gains x beta^(i-1), alpha = beta = 0.5
        "NRBP": (1 - 0.25) / a * (1 + 1.5 * 0.5 + 0 + 1 * 0.125),
        "nNRBP": (1 + 1.5 * 0.5 + 1 * 0.125) / (2 + 1.5 * 0.5 + 0.5 * 0.25 + 0.5 * 0.125),
    }
    out = irframe.evaluate(pl.DataFrame(HAND_RUN), list(expected), pl.DataFrame(HAND_QRELS))
    for label, value in expected.items():
        assert out[label].item() == pytest.approx(value, abs=1e-12), label


# --- the oracle ------------------------------------------------------------------------------
def ranking(run: Data) -> dict[str, list[str]]:
    """Each query's documents in trec_eval's order, by a plain-Python sort: score
    descending, ties by doc id descending (byte order)."""
    per_q: dict[str, list[tuple[float, str]]] = {}
    for q, d, s in zip(run["query_id"], run["doc_id"], run["score"], strict=True):
        per_q.setdefault(q, []).append((s, d))
    out = {}
    for q, pairs in per_q.items():
        pairs.sort(key=lambda p: p[1].encode(), reverse=True)
        pairs.sort(key=lambda p: -p[0])
        out[q] = [d for _, d in pairs]
    return out


def ndeval_values(
    run: Data, qrels: Data, measures: Sequence[Measure], *, judged_only: bool = False
) -> dict[str, dict[str, float | None]]:
    """pyndeval's per-query values in irframe's conventions (module docstring)."""
    pyndeval = _pyndeval()
    rows = list(zip(qrels["query_id"], qrels["subtopic"], qrels["doc_id"], qrels["relevance"], strict=True))
    order = ranking(run)
    if judged_only:
        judged = {(q, d) for q, _, d, r in rows if r >= 0}
        order = {q: [d for d in docs if (q, d) in judged] for q, docs in order.items()}
    qrels_queries = {r[0] for r in rows}
    out: dict[str, dict[str, float | None]] = {q: {} for q in qrels_queries | set(order)}
    for m in measures:
        p = m.params
        name = ND_NAMES[m.family] + (f"@{m.cutoff}" if m.cutoff is not None else "")
        ev = pyndeval.RelevanceEvaluator(
            rows, [name], relevance_level=p["rel"], alpha=p.get("alpha", 0.5), beta=p.get("beta", 0.5)
        )
        triples = [(q, d, -float(i)) for q in sorted(order) for i, d in enumerate(order[q])]
        found = ev.evaluate(triples)
        for q, values in out.items():
            if q not in qrels_queries:
                values[str(m)] = None  # unjudged
            elif q not in found:
                values[str(m)] = 0.0  # missing from the run (missing="zero")
            else:
                v = found[q][name]
                if math.isnan(v):
                    v = 0.0  # nNRBP of a query without a relevant subtopic
                if m.family == "ERR_IA" and m.cutoff == 1:
                    a = len({s for qq, s, _, r in rows if qq == q and r >= p["rel"]})
                    v = v / a if a else 0.0
                values[str(m)] = v
    return out


def all_measures(cutoffs: Sequence[int] = (1, 5, 20), **params: object) -> list[Measure]:
    out = []
    for name in DIVERSITY:
        fam = FAMILIES[name]
        own = {k: v for k, v in params.items() if k in fam.params}
        for k in cutoffs if fam.cutoff == "required" else (None,):
            out.append(Measure(name, k, **own))
    return out


def edge_case_data(seed: int) -> tuple[Data, Data]:
    """Tied scores, doc ids whose string order differs from their numbers', a subtopic with
    no relevant document, a query with none (q3), graded judgments, a qrels-only query (q4),
    a run-only query (q5), unjudged retrieved documents, relevant ones never retrieved."""
    rng = random.Random(seed)
    run: Data = {"query_id": [], "doc_id": [], "score": []}
    qrels: Data = {"query_id": [], "subtopic": [], "doc_id": [], "relevance": []}
    for qi in range(6):
        q = f"q{qi}"
        if qi != 4:
            got = rng.sample(DOC_IDS, rng.randint(1, 12))
            run["query_id"] += [q] * len(got)
            run["doc_id"] += got
            run["score"] += [float(rng.randint(0, 3)) for _ in got]  # many ties
        if qi == 5:
            continue
        for s in range(rng.randint(1, 4)):
            judged = rng.sample(DOC_IDS, rng.randint(1, 7))
            grades = (
                [0] * len(judged) if qi == 3 or s == 3 else [rng.choice([-1, 0, 1, 1, 2, 3]) for _ in judged]
            )
            qrels["query_id"] += [q] * len(judged)
            qrels["subtopic"] += [str(s)] * len(judged)
            qrels["doc_id"] += judged
            qrels["relevance"] += grades
    return run, qrels


def evaluated(
    run: Data, qrels: Data, measures: Sequence[Measure], **kw: Any
) -> dict[str, dict[str, float | None]]:
    labels = [str(m) for m in measures]
    out = irframe.evaluate(pl.DataFrame(run), measures, pl.DataFrame(qrels), per_query=True, **kw)
    return per_query_dict(out, labels)


PARAMS = [
    {},
    {"alpha": 0.3, "beta": 0.8},
    {"alpha": 1, "beta": 0.2, "rel": 2},
    {"alpha": 0, "beta": 0.95},
    {"rel": 3},
]


@pytest.mark.oracle
@pytest.mark.parametrize(
    "params", PARAMS, ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items()) or "defaults"
)
def test_every_family_equals_pyndeval_on_edge_cases(params: dict[str, object]) -> None:
    measures = all_measures(**params)
    for seed in range(6):
        run, qrels = edge_case_data(seed)
        assert_close_dicts(
            evaluated(run, qrels, measures), ndeval_values(run, qrels, measures), tol=1e-12,
            context=f" (seed {seed}, {params})",
        )  # fmt: skip


@pytest.mark.oracle
def test_judged_only_equals_pyndeval_on_the_judged_ranking() -> None:
    measures = [m(judged_only=True) for m in all_measures() if "judged_only" in m.definition.params]
    for seed in range(4):
        run, qrels = edge_case_data(seed)
        expected = ndeval_values(run, qrels, measures, judged_only=True)
        assert_close_dicts(evaluated(run, qrels, measures), expected, tol=1e-12, context=f" (seed {seed})")


@pytest.mark.oracle
def test_the_ideal_ranking_breaks_ties_as_ndeval() -> None:
    # u {1,2}, v {3,4}, w {1,3} all gain 2 at rank 1.  ndeval takes the larger doc id, w,
    # and its ideal gains are 2, 1.5, 1.5; taking u first would give 2, 2, 1 (a larger IDCG).
    qrels: Data = {
        "query_id": ["q"] * 6, "subtopic": ["1", "2", "3", "4", "1", "3"],
        "doc_id": ["u", "u", "v", "v", "w", "w"], "relevance": [1] * 6,
    }  # fmt: skip
    run: Data = {"query_id": ["q"] * 3, "doc_id": ["u", "v", "w"], "score": [3.0, 2.0, 1.0]}
    measures = [Measure("alpha_nDCG", 3), Measure("nERR_IA", 3), Measure("nNRBP")]
    got = evaluated(run, qrels, measures)
    assert_close_dicts(got, ndeval_values(run, qrels, measures), tol=1e-12)
    dcg = 2 + 2 / math.log2(3) + 1 / math.log2(4)  # the run: u 2, v 2, w 0.5 + 0.5
    assert got["q"]["alpha_nDCG@3"] == pytest.approx(dcg / (2 + 1.5 / math.log2(3) + 1.5 / math.log2(4)))


@pytest.mark.oracle
def test_pyndeval_breaks_ties_the_other_way() -> None:
    # b and c tied: irframe (trec_eval, ndeval -traditional) ranks c first, pyndeval b
    pyndeval = _pyndeval()
    qrels: Data = {
        "query_id": ["q"] * 3,
        "subtopic": ["1", "2", "2"],
        "doc_id": ["b", "b", "c"],
        "relevance": [1] * 3,
    }
    run: Data = {"query_id": ["q", "q"], "doc_id": ["b", "c"], "score": [1.0, 1.0]}
    rows = list(zip(*qrels.values(), strict=True))
    assert pyndeval.ndeval(rows, list(zip(*run.values(), strict=True)), ["P-IA@1"])["q"]["P-IA@1"] == 1.0
    assert evaluated(run, qrels, [Measure("P_IA", 1)])["q"]["P_IA@1"] == 0.5


@pytest.mark.oracle
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    alpha=st.sampled_from([0.0, 0.25, 0.5, 0.9, 1.0]),
    beta=st.sampled_from([0.0, 0.5, 0.8]),
    rel=st.sampled_from([1, 2]),
    k=st.integers(1, 20),
)
def test_pyndeval_on_generated_cases(seed: int, alpha: float, beta: float, rel: int, k: int) -> None:
    run, qrels = edge_case_data(seed)
    measures = all_measures((k,), alpha=alpha, beta=beta, rel=rel)
    assert_close_dicts(evaluated(run, qrels, measures), ndeval_values(run, qrels, measures), tol=1e-12)


# --- irframe's own rules --------------------------------------------------------------------
def test_cutoffs_beyond_ndevals_twenty() -> None:
    # ndeval stops at 20; irframe takes any k: a run of 30 documents, one subtopic each
    docs = [f"d{i:02d}" for i in range(30)]
    run: Data = {"query_id": ["q"] * 30, "doc_id": docs, "rank": list(range(1, 31))}
    qrels: Data = {
        "query_id": ["q"] * 30,
        "subtopic": [str(i) for i in range(30)],
        "doc_id": docs,
        "relevance": [1] * 30,
    }
    out = irframe.evaluate(
        pl.DataFrame(run), ["alpha_nDCG@30", "StRecall@25", "P_IA@30"], pl.DataFrame(qrels)
    )
    assert out.select("alpha_nDCG@30", "StRecall@25", "P_IA@30").row(0) == pytest.approx(
        (1.0, 25 / 30, 1 / 30)
    )


def test_values_in_range_and_row_order_free(constructor: NamedConstructor) -> None:
    measures = all_measures((1, 3, 25))
    labels = [str(m) for m in measures]
    for seed in range(3):
        run, qrels = edge_case_data(seed)
        out = irframe.evaluate(constructor(run), labels, constructor(qrels), per_query=True)
        assert isinstance(out, constructor.native_type)
        got = per_query_dict(out, labels)
        for q, vals in got.items():
            for label, v in vals.items():
                assert (v is None) == (q == "q5"), (q, label, v)  # only the run-only query is null
                assert v is None or 0 <= v <= 1 + 1e-12, (q, label, v)
        idx = list(range(len(run["query_id"])))
        random.Random(seed).shuffle(idx)
        again = irframe.evaluate(
            constructor({c: [v[i] for i in idx] for c, v in run.items()}), labels, constructor(qrels),
            per_query=True,
        )  # fmt: skip
        assert_close_dicts(per_query_dict(again, labels), got, tol=1e-12, context=" (shuffled)")


def test_means_and_counts_follow_the_main_engine() -> None:
    run, qrels = edge_case_data(1)
    means = to_polars(irframe.evaluate(pl.DataFrame(run), ["alpha_nDCG@5", "NRBP"], pl.DataFrame(qrels)))
    # the same queries as a main-engine measure on ad hoc qrels from the same judgments
    adhoc = pl.DataFrame(qrels).group_by("query_id", "doc_id").agg(pl.col("relevance").max())
    plain = irframe.evaluate(pl.DataFrame(run), ["nDCG@5"], adhoc)
    for c in ("n_queries", "n_missing", "n_unjudged"):
        assert means[c].item() == plain[c].item(), c
    per_q = irframe.evaluate(pl.DataFrame(run), ["alpha_nDCG@5"], pl.DataFrame(qrels), per_query=True)
    counted = per_q.filter(pl.col("alpha_nDCG@5").is_not_null())
    assert means["n_queries"].item() == counted.height == 5  # q0-q4 (q4 missing, scored 0)
    assert means["alpha_nDCG@5"].item() == pytest.approx(counted["alpha_nDCG@5"].mean(), abs=1e-12)
    dropped = irframe.evaluate(pl.DataFrame(run), ["alpha_nDCG@5"], pl.DataFrame(qrels), missing="drop")
    assert dropped["n_queries"].item() == 4
    assert dropped["n_missing"].item() == 1
    with pytest.raises(irframe.exceptions.MissingQueriesError):
        irframe.evaluate(pl.DataFrame(run), ["alpha_nDCG@5"], pl.DataFrame(qrels), missing="error")


def test_systems_by_column_each_against_every_judged_query() -> None:
    run, qrels = edge_case_data(2)
    a = pl.DataFrame(run).with_columns(pl.lit("A").alias("system"))
    b = pl.DataFrame(run).with_columns(pl.lit("B").alias("system"), -pl.col("score"))
    both = irframe.evaluate(
        pl.concat([a, b]), ["alpha_nDCG@5", "AP_IA"], pl.DataFrame(qrels), by="system", per_query=True
    )
    for system, frame in (("A", a), ("B", b)):
        alone = irframe.evaluate(
            frame.drop("system"), ["alpha_nDCG@5", "AP_IA"], pl.DataFrame(qrels), per_query=True
        )
        mine = both.filter(pl.col("system") == system).drop("system")
        assert_close_dicts(
            per_query_dict(mine, ["alpha_nDCG@5", "AP_IA"]),
            per_query_dict(alone, ["alpha_nDCG@5", "AP_IA"]),
            tol=1e-12,
        )
    means = irframe.evaluate(pl.concat([a, b]), ["alpha_nDCG@5"], pl.DataFrame(qrels), by="system")
    assert means["n_queries"].to_list() == [5, 5]


def test_with_other_measures_when_each_document_has_one_judgment() -> None:
    # one subtopic per document: no second reading, so both kinds go in one call
    qrels: Data = {
        "query_id": ["q"] * 3,
        "subtopic": ["1", "2", "2"],
        "doc_id": ["a", "b", "c"],
        "relevance": [1, 2, 0],
    }
    run: Data = {"query_id": ["q"] * 3, "doc_id": ["c", "b", "a"], "rank": [1, 2, 3]}
    both = irframe.evaluate(
        pl.DataFrame(run), ["nDCG@3", "alpha_nDCG@3", "RR"], pl.DataFrame(qrels), per_query=True
    )
    assert both.columns == ["query_id", "nDCG@3", "alpha_nDCG@3", "RR"]
    plain = irframe.evaluate(
        pl.DataFrame(run), ["nDCG@3", "RR"], pl.DataFrame(qrels).drop("subtopic"), per_query=True
    )
    assert both.select("nDCG@3", "RR").row(0) == plain.select("nDCG@3", "RR").row(0)
    div = irframe.evaluate(pl.DataFrame(run), ["alpha_nDCG@3"], pl.DataFrame(qrels), per_query=True)
    assert both["alpha_nDCG@3"].item() == div["alpha_nDCG@3"].item()


def test_other_measures_refuse_several_subtopics_per_document() -> None:
    with pytest.raises(DuplicateRowsError, match=r"several subtopics.*call of their own.*max\(\)"):
        irframe.evaluate(pl.DataFrame(HAND_RUN), ["nDCG@3", "alpha_nDCG@3"], pl.DataFrame(HAND_QRELS))
    with pytest.raises(DuplicateRowsError, match=r"trec_eval refuses.*diversity measures"):
        irframe.evaluate(pl.DataFrame(HAND_RUN), ["nDCG@3"], pl.DataFrame(HAND_QRELS))


def test_a_diversity_measure_needs_the_subtopic_column() -> None:
    plain = pl.DataFrame(HAND_QRELS).drop("subtopic")
    with pytest.raises(ColumnNotFoundError, match=r"subtopics=True.*qrels_subtopic_col"):
        irframe.evaluate(pl.DataFrame(HAND_RUN), ["alpha_nDCG@3"], plain)
    with pytest.raises(InvalidParameterError, match="need subtopic qrels"):
        irframe.evaluate(pl.DataFrame(HAND_RUN).with_columns(relevance=1), ["alpha_nDCG@3"])
    renamed = pl.DataFrame(HAND_QRELS).rename({"subtopic": "iteration"})
    want = irframe.evaluate(pl.DataFrame(HAND_RUN), ["alpha_nDCG@4"], pl.DataFrame(HAND_QRELS))
    for kw in ({"qrels_subtopic_col": "iteration"}, {"columns": {"qrels_subtopic": "iteration"}}):
        got = irframe.evaluate(pl.DataFrame(HAND_RUN), ["alpha_nDCG@4"], renamed, **kw)
        assert got["alpha_nDCG@4"].item() == want["alpha_nDCG@4"].item()
    # ir_measures' convention names the column "iteration" (and ranks by score)
    scored = pl.DataFrame(HAND_RUN).with_columns(score=-pl.col("rank").cast(pl.Float64)).drop("rank")
    got = irframe.evaluate(scored, ["alpha_nDCG@4"], renamed, columns="ir_measures")
    assert got["alpha_nDCG@4"].item() == want["alpha_nDCG@4"].item()


def test_bad_subtopic_qrels_raise() -> None:
    run = pl.DataFrame(HAND_RUN)
    twice = pl.concat([pl.DataFrame(HAND_QRELS), pl.DataFrame(HAND_QRELS).head(1)])
    with pytest.raises(DuplicateRowsError, match=r"\('q1', 's1', 'a'\)"):
        irframe.evaluate(run, ["AP_IA"], twice)
    for col, value in (("subtopic", None), ("relevance", None), ("relevance", float("nan"))):
        bad = pl.DataFrame(HAND_QRELS).with_columns(
            pl.when(pl.int_range(pl.len()) == 2).then(value).otherwise(pl.col(col)).alias(col)
        )
        with pytest.raises(InvalidDataError, match="null"):
            irframe.evaluate(run, ["AP_IA"], bad)


@pytest.mark.parametrize(
    ("text", "error", "match"),
    [
        ("alpha_nDCG", InvalidParameterError, "needs a cutoff"),
        ("NRBP@10", InvalidParameterError, "takes no cutoff"),
        ("alpha_nDCG(alpha=1.5)@10", InvalidParameterError, r"alpha.*\[0, 1\]"),
        ("NRBP(beta=-0.1)", InvalidParameterError, "beta"),
        ("StRecall(judged_only=True)@5", UnknownMeasureError, "judged_only"),
    ],
)
def test_parameters_are_checked(text: str, error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        parse_measure(text)


def test_spellings_and_registry() -> None:
    assert parse_measure("MAP_IA") == parse_measure("AP_IA")
    assert str(parse_measure("alpha_nDCG(alpha=0.5)@20")) == "alpha_nDCG@20"
    assert str(parse_measure("ERR_IA(alpha=0.3)@20")) == "ERR_IA(alpha=0.3)@20"
    for name in DIVERSITY:
        fam = FAMILIES[name]
        assert fam.formula, name
        assert fam.peers, name
        assert fam.ir_measures, name


def test_ir_measures_objects_keep_their_meaning() -> None:
    ir_measures = pytest.importorskip("ir_measures", reason="needs pip install ir-measures (oracle)")
    pairs = [
        (ir_measures.alpha_nDCG(alpha=0.3) @ 10, "alpha_nDCG(alpha=0.3)@10"),
        (ir_measures.ERR_IA(judged_only=True) @ 5, "ERR_IA(judged_only=True)@5"),
        (ir_measures.nNRBP(beta=0.8), "nNRBP(beta=0.8)"),
        (ir_measures.AP_IA, "AP_IA"),
        (ir_measures.P_IA @ 10, "P_IA@10"),
        (ir_measures.StRecall(rel=2) @ 20, "StRecall(rel=2)@20"),
    ]
    for obj, text in pairs:
        assert parse_measure(obj) == parse_measure(text), obj


def test_the_main_plan_never_compiles_a_diversity_measure() -> None:
    """They are computed beside it (irframe._engine.compose); building the plan alone refuses."""
    from irframe import _engine as engine
    from irframe._input.options import Options

    with pytest.raises(InvalidParameterError, match=r"diversity measure.*computed beside the main plan"):
        engine.build(
            pl.DataFrame(HAND_RUN).lazy(),
            ["alpha_nDCG@5"],
            pl.DataFrame(HAND_QRELS),
            Options(),
        )


def test_read_trec_qrels_keeps_the_subtopic(tmp_path: Any) -> None:
    path = tmp_path / "qrels.diversity"
    path.write_text("".join(f"{q} {s} {d} {r}\n" for q, s, d, r in zip(*HAND_QRELS.values(), strict=True)))
    qrels = irframe.read_trec_qrels(path, subtopics=True)
    assert qrels.columns == ["query_id", "subtopic", "doc_id", "relevance"]
    assert qrels.rows() == list(zip(*HAND_QRELS.values(), strict=True))
    assert irframe.read_trec_qrels(path).columns == ["query_id", "doc_id", "relevance"]
    got = irframe.evaluate(pl.DataFrame(HAND_RUN), ["alpha_nDCG@4"], qrels)
    assert got["alpha_nDCG@4"].item() == pytest.approx(0.696734, abs=1e-6)
    pandas_qrels = irframe.read_trec_qrels(path, subtopics=True, backend="pandas")
    assert isinstance(pandas_qrels, native_type("pandas"))
    assert list(pandas_qrels.columns) == ["query_id", "subtopic", "doc_id", "relevance"]


def test_cli_reads_subtopic_qrels_for_diversity_measures(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from irframe.cli import main

    qrels = tmp_path / "qrels.diversity"
    qrels.write_text("".join(f"{q} {s} {d} {r}\n" for q, s, d, r in zip(*HAND_QRELS.values(), strict=True)))
    run = tmp_path / "a.run"
    run.write_text("".join(f"q1 Q0 {d} {i} {10 - i} tag\n" for i, d in enumerate(HAND_RUN["doc_id"], 1)))
    assert main(["eval", str(qrels), str(run), "-m", "alpha_nDCG@4", "-f", "tsv"]) == 0
    header, row = capsys.readouterr().out.splitlines()[:2]
    assert header.split("\t")[:2] == ["system", "alpha_nDCG@4"]
    assert float(row.split("\t")[1]) == pytest.approx(0.696734, abs=1e-4)
