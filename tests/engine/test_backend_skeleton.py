"""One backend skeleton: a new backend is its primitives (``tests/_support/toy_backend.py``).

The toy backend (a run as a list of polars partitions that split queries, shuffled by
query) is registered through ``register_backend``; ``irframe.evaluate`` dispatches to
it.  Its per-query values and means must be the in-process ones on every partition case
(the in-process engine is checked against trec_eval elsewhere), the hand-computed means
of the small query-attribute case, and the global checks (qrels without a judged query,
a segment column passed as a system) must raise as in process.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import polars as pl
import pytest

import irframe
from _support.partition_cases import (
    CASES,
    MEASURES,
    Case,
    assert_same_means,
    assert_same_per_query,
    reference,
)
from _support.query_attribute_cases import (
    BY,
    QUERIES,
    SMALL_QRELS,
    SMALL_QUERIES,
    SMALL_RUN,
    G,
    assert_hand_means,
    assert_same_as_in_process,
)
from _support.toy_backend import BACKEND, Partitions, Toy
from irframe._backends import registry
from irframe.exceptions import (
    EmptyInputError,
    InvalidParameterError,
    MissingQueriesError,
    UnknownMeasureError,
)


@pytest.fixture(autouse=True)
def toy() -> Iterator[None]:
    """The toy backend registered for the test, removed after it."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(registry, "_BACKENDS", list(registry._BACKENDS))
        registry.register_backend(BACKEND)
        yield


def _parts(frame: pl.DataFrame, n: int = 3) -> Partitions:
    """Partitions that split queries (rows shuffled first)."""
    return Partitions.split(frame.sample(fraction=1.0, shuffle=True, seed=2), n)


# the default of 4 partitions on every case; 1, and 64 (more partitions than queries, most
# of them empty) on two
PER_QUERY = [(c, None) for c in CASES] + [(CASES[0], 1), (CASES[0], 64), (CASES[2], 64)]


@pytest.mark.parametrize(("case", "n"), PER_QUERY, ids=repr)
def test_per_query_equals_in_process(case: Case, n: int | None) -> None:
    options = {} if n is None else {"n": n}
    got = irframe.evaluate(_parts(case.run), MEASURES, case.qrels, per_query=True, **options, **case.kwargs)
    assert isinstance(got, pl.DataFrame)
    assert_same_per_query(got, case)
    assert got.equals(reference(case, per_query=True))  # the natural order, as in process


@pytest.mark.parametrize(("case", "n"), [(c, None) for c in CASES] + [(CASES[2], 64)], ids=repr)
def test_means_equal_in_process(case: Case, n: int | None) -> None:
    options = {} if n is None else {"n": n}
    qrels = None if case.qrels is None else _parts(case.qrels, 2)  # the qrels partitioned too
    assert_same_means(irframe.evaluate(_parts(case.run), MEASURES, qrels, **options, **case.kwargs), case)


def test_query_attributes_by_hand_and_in_process() -> None:
    got = irframe.evaluate(_parts(SMALL_RUN), ["RR"], SMALL_QRELS, by="segment", queries=SMALL_QUERIES)
    assert_hand_means(got)  # q4 judged, not in the run: missing in "tail"
    queries = _parts(QUERIES, 2)  # a queries table of the backend's own kind
    for per_query in (True, False):
        got = irframe.evaluate(
            _parts(G.runs), ["nDCG@10", "RR"], G.qrels, by=BY, queries=queries, per_query=per_query
        )
        want = irframe.evaluate(
            G.runs, ["nDCG@10", "RR"], G.qrels, by=BY, queries=QUERIES, per_query=per_query
        )
        assert_same_as_in_process(got, want, per_query=per_query)


@pytest.mark.parametrize("per_query", [True, False])
def test_segment_passed_as_a_system_is_refused_like_in_process(per_query: bool) -> None:
    """A by column that splits the queries (each query one value) and that the qrels lack
    cannot receive missing queries: no partition can tell alone, the summary rows do."""
    case = next(c for c in CASES if c.name == "segment-in-qrels")
    qrels = case.qrels.drop("segment")  # type: ignore[union-attr]
    with pytest.raises(InvalidParameterError, match="look like query attributes") as want:
        irframe.evaluate(case.run, MEASURES, qrels, by="segment", per_query=per_query)
    for n in (1, 16):
        with pytest.raises(InvalidParameterError) as got:
            irframe.evaluate(_parts(case.run), MEASURES, qrels, by="segment", per_query=per_query, n=n)
        assert str(got.value) == str(want.value)
    # a system column (systems answer overlapping queries) passes, as in process
    systems = next(c for c in CASES if c.name == "by-system-lacking-queries")
    assert_same_means(
        irframe.evaluate(_parts(systems.run), MEASURES, systems.qrels, by="system", n=4), systems
    )


@pytest.mark.parametrize("per_query", [True, False])
def test_qrels_without_rows_are_refused_like_in_process(per_query: bool) -> None:
    case = CASES[0]
    empty = case.qrels.head(0)  # type: ignore[union-attr]
    with pytest.raises(EmptyInputError) as want:
        irframe.evaluate(case.run, MEASURES, empty, per_query=per_query)
    with pytest.raises(EmptyInputError) as got:
        irframe.evaluate(_parts(case.run), MEASURES, empty, per_query=per_query)
    assert str(got.value) == str(want.value)
    # an empty run is normal: every judged query is missing from it (scored 0)
    got_means = irframe.evaluate(_parts(case.run.head(0), 1), MEASURES, case.qrels)
    n_judged = case.qrels.get_column("query_id").n_unique()  # type: ignore[union-attr]
    assert got_means.select("n_queries", "n_missing", "n_unjudged").row(0) == (n_judged, n_judged, 0)
    assert got_means.select(MEASURES).row(0) == (0.0,) * len(MEASURES)


def test_errors_and_backend_options(monkeypatch: pytest.MonkeyPatch) -> None:
    case = CASES[0]
    calls: list[Any] = []
    real = Toy.map

    def counted(self: Toy, *args: Any) -> Any:
        calls.append(1)
        return real(self, *args)

    monkeypatch.setattr(Toy, "map", counted)
    with pytest.raises(UnknownMeasureError):  # on the schemas: no partition evaluated
        irframe.evaluate(_parts(case.run), ["nDCG@10", "Frobnicate"], case.qrels)
    with pytest.raises(InvalidParameterError, match="'missing' parameter of evaluate"):
        irframe.evaluate(_parts(case.run), MEASURES, case.qrels, missing="sometimes")
    assert calls == []
    with pytest.raises(MissingQueriesError, match="missing from the run"):  # data checks: in a partition
        irframe.evaluate(_parts(case.run), MEASURES, case.qrels, missing="error")
    with pytest.raises(
        InvalidParameterError, match=r"its backend options: n, queries\). Hint: did you mean 'n'"
    ):
        irframe.evaluate(_parts(case.run), MEASURES, case.qrels, nn=3)
