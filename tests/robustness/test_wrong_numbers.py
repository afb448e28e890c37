"""Wrong numbers of round four (issue 43, class "wrong"): a user measure's text default for
a bool parameter, ir_measures' summed counts read as means.  (The fingerprint collision and
the temporary files of killed writers: test_fingerprints.py, test_killed_writers.py.)
"""

from __future__ import annotations

from collections.abc import Iterator

import polars as pl
import pytest

import irframe
from irframe.exceptions import InvalidParameterError, UnknownMeasureError

# q1 ranks a (unjudged), b (grade 1), c (grade 2); q2 ranks a (grade 1), b (unjudged)
RUN = pl.DataFrame({"query_id": ["q1"] * 3 + ["q2"] * 2, "doc_id": ["a", "b", "c", "a", "b"],
                    "score": [3.0, 2.0, 1.0, 2.0, 1.0]})  # fmt: skip
QRELS = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["b", "c", "a"], "relevance": [1, 2, 1]})


@pytest.fixture
def top() -> Iterator[None]:
    yield
    irframe.measures.unregister("Top")


@pytest.mark.parametrize(("default", "want"), [("no", 0.5), ("false", 0.5), ("yes", 1.0), (False, 0.5)])
def test_a_text_default_of_judged_only_is_read_as_the_bool_it_says(
    top: None, default: object, want: float
) -> None:
    # Top: is the first document relevant? judged_only off: q1's a is unjudged (0), q2's a is (1): 0.5;
    # on: q1's first judged document is b (1): 1.0.  ('no' acted as True: 1.0.)
    kernel = lambda q: (q.grades >= 1).cast(pl.Float64).head(1).sum()  # noqa: E731
    irframe.define_measure("Top", kernel, params={"judged_only": default}, cutoff="none")
    assert irframe.evaluate(RUN, ["Top"], QRELS)["Top"].item() == want


def test_a_judged_only_default_that_is_no_bool_is_refused(top: None) -> None:
    with pytest.raises(InvalidParameterError, match=r"'judged_only'.*True or False.*'maybe'"):
        irframe.define_measure("Top", lambda q: q.grades.sum(), params={"judged_only": "maybe"})


def test_ir_measures_summed_counts_are_refused_and_the_hint_gives_their_sum() -> None:
    irm = pytest.importorskip("ir_measures")
    for measure in (irm.NumRet, irm.NumRel, irm.NumRet(rel=1)):
        with pytest.raises(UnknownMeasureError, match=r"summed over the queries.*per_query=True"):
            irframe.evaluate(RUN, [measure], QRELS)  # was the mean: 2.5 where ir_measures says 5
    per_query = irframe.evaluate(RUN, ["NumRet", "NumRel"], QRELS, per_query=True)
    assert (per_query["NumRet"].sum(), per_query["NumRel"].sum()) == (
        5.0,
        3.0,
    )  # 3 + 2 retrieved, 2 + 1 relevant
    assert (
        irframe.evaluate(RUN, [irm.nDCG @ 3], QRELS).columns[0] == "nDCG(gain=linear)@3"
    )  # others still read
