"""Large in-memory runs are evaluated in query buckets (``engine._buckets``).

Bucketing is forced on small inputs by shrinking ``BUCKET_ROWS``. The results must be the
one-pass results and the plain-Python oracle's; errors must count over the whole input;
every bucket must see each system, so that missing queries are filled in everywhere.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import polars as pl
import pyarrow as pa
import pytest
from hypothesis import given, settings
from polars.testing import assert_frame_equal

import irframe
from _support.datagen import run_and_qrels
from _support.helpers import assert_close_dicts, examples, per_query_dict
from _support.oracle import oracle_evaluate
from irframe._engine import buckets as _buckets
from irframe._input import frames as _frames
from irframe.exceptions import DuplicateRowsError, InvalidDataError

LABELS = ["AP", "nDCG@3", "P@2", "RR", "R@5", "Rprec", "num_rel_ret"]
QUERIES = [f"q{i}" for i in range(12)]


class Buckets:
    """Bucketing forced to ``n`` buckets; ``passes`` counts the buckets collected."""

    def __init__(self, mp: pytest.MonkeyPatch) -> None:
        self.mp = mp
        self.passes = 0
        real = _buckets.collect_unchecked

        def counted(plan: Any) -> Any:
            self.passes += 1
            return real(plan)

        mp.setattr(_buckets, "collect_unchecked", counted)

    def force(self, n: int) -> None:
        self.mp.setattr(_buckets, "BUCKET_ROWS", 1)
        self.mp.setattr(_buckets, "MAX_BUCKETS", n)

    def off(self) -> None:
        self.mp.setattr(_buckets, "BUCKET_ROWS", 10**12)


@pytest.fixture
def buckets() -> Iterator[Buckets]:
    with pytest.MonkeyPatch.context() as mp:
        yield Buckets(mp)


def _both(buckets: Buckets, n: int, run: Any, qrels: Any, measures: list[str], **kw: Any) -> tuple[Any, Any]:
    """The per-query table and the means, in ``n`` buckets, then in one pass."""
    buckets.force(n)
    bucketed = (
        irframe.evaluate(run, measures, qrels, per_query=True, **kw),
        irframe.evaluate(run, measures, qrels, **kw),
    )
    assert buckets.passes > 2, "the run was not cut into buckets"
    buckets.off()
    one = (
        irframe.evaluate(run, measures, qrels, per_query=True, **kw),
        irframe.evaluate(run, measures, qrels, **kw),
    )
    for got, expected in zip(bucketed, one, strict=True):
        if isinstance(got, pd.DataFrame):
            pd.testing.assert_frame_equal(got, expected)
        elif isinstance(got, pa.Table):  # (means: the sums' order differs, to the last bit)
            assert_frame_equal(pl.DataFrame(got), pl.DataFrame(expected))
        else:
            assert_frame_equal(got, expected)
    return bucketed


@settings(max_examples=examples(60), deadline=None)
@given(data=run_and_qrels(max_queries=8))
def test_buckets_equal_one_pass_and_the_oracle(
    data: tuple[dict[str, list[Any]], dict[str, list[Any]]],
) -> None:
    run, qrels = data
    with pytest.MonkeyPatch.context() as mp:
        b = Buckets(mp)
        b.force(3)
        got = irframe.evaluate(pl.DataFrame(run), LABELS, pl.DataFrame(qrels), per_query=True)
        b.off()
        one = irframe.evaluate(pl.DataFrame(run), LABELS, pl.DataFrame(qrels), per_query=True)
    assert_frame_equal(got, one)
    assert_close_dicts(per_query_dict(got, LABELS), oracle_evaluate(run, qrels, LABELS), tol=1e-12)


def _twelve_queries() -> tuple[pl.DataFrame, pl.DataFrame]:
    """12 queries, 3 documents each: d0 at rank 1 judged 1, d1 unjudged, d2 judged 2."""
    run = pl.DataFrame(
        {
            "query_id": [q for q in QUERIES for _ in range(3)],
            "doc_id": ["d0", "d1", "d2"] * 12,
            "rank": [1, 2, 3] * 12,
        }
    )
    qrels = pl.DataFrame(
        {
            "query_id": [q for q in QUERIES for _ in range(2)],
            "doc_id": ["d0", "d2"] * 12,
            "relevance": [1, 2] * 12,
        }
    )
    return run, qrels


def test_buckets_hand_computed_and_pandas(buckets: Buckets) -> None:
    run, qrels = _twelve_queries()
    per_query, means = _both(buckets, 4, run.to_pandas(), qrels.to_pandas(), ["P@2", "RR", "AP"])
    assert isinstance(per_query, pd.DataFrame)
    assert list(per_query["query_id"]) == sorted(QUERIES, key=lambda q: int(q[1:]))  # natural order
    # P@2 = 1/2 (d0 of d0, d1); RR = 1; AP = (1/1 + 2/3) / 2 = 5/6
    assert per_query["P@2"].tolist() == [0.5] * 12
    assert per_query["AP"].tolist() == pytest.approx([5 / 6] * 12, abs=1e-15)
    assert means["n_queries"].item() == 12


def test_systems_absent_from_a_bucket_get_their_missing_queries(buckets: Buckets) -> None:
    """System ``b`` answers q0 only: every other judged query is missing for it, in
    whichever bucket that query lands (``missing="zero"``)."""
    run, qrels = _twelve_queries()
    runs = pl.concat([run.with_columns(system=pl.lit("a")), run.head(3).with_columns(system=pl.lit("b"))])
    per_query, means = _both(buckets, 5, runs, qrels, ["P@2", "RR"], by="system")
    assert per_query.height == 24
    b = per_query.filter(pl.col("system") == "b").sort("query_id")
    assert b.filter(pl.col("query_id") == "q0")["RR"].item() == 1.0
    assert b.filter(pl.col("query_id") != "q0")["RR"].to_list() == [0.0] * 11
    assert means.sort("system")["n_missing"].to_list() == [0, 11]
    assert means.filter(pl.col("system") == "b")["RR"].item() == pytest.approx(1 / 12)


def test_integer_run_ids_against_string_qrels_ids(buckets: Buckets) -> None:
    """Ids of different dtypes are compared as strings: they must hash into the same
    bucket as strings too, or every query would be missing."""
    run, qrels = _twelve_queries()
    run = run.with_columns(pl.col("query_id").str.slice(1).cast(pl.Int64))
    qrels = qrels.with_columns(pl.col("query_id").str.slice(1))
    per_query, _ = _both(buckets, 4, run, qrels, ["RR"], missing="error")
    assert per_query["RR"].to_list() == [1.0] * 12


def test_more_buckets_than_queries(buckets: Buckets) -> None:
    run, qrels = _twelve_queries()
    per_query, _ = _both(buckets, 64, run.head(6), qrels, ["RR"], missing="drop")
    assert per_query["query_id"].to_list() == ["q0", "q1"]


def test_errors_count_rows_over_all_buckets(buckets: Buckets) -> None:
    """Null doc ids and duplicates in several queries (so in several buckets): the
    message counts them all, as one pass does."""
    run, qrels = _twelve_queries()
    buckets.force(4)
    nulls = run.with_columns(
        pl.when(pl.col("doc_id") == "d1").then(None).otherwise(pl.col("doc_id")).alias("doc_id")
    )
    with pytest.raises(InvalidDataError, match=r"^12 run rows have a null 'doc_id'"):
        irframe.evaluate(nulls, ["RR"], qrels)
    dups = pl.concat([run, run.filter(pl.col("doc_id") == "d0")])
    with pytest.raises(
        DuplicateRowsError, match=r"The run has 12 duplicate \(query_id, doc_id\) rows in 12 queries"
    ):
        irframe.evaluate(dups, ["RR"], qrels)
    assert buckets.passes > 2


def test_bucket_count() -> None:
    assert _buckets.bucket_count(0) == 1
    assert _buckets.bucket_count(_buckets.BUCKET_ROWS) == 1
    assert _buckets.bucket_count(_buckets.BUCKET_ROWS + 1) == 2
    assert _buckets.bucket_count(10**15) == _buckets.MAX_BUCKETS


def test_the_documented_bucket_size_is_the_engines() -> None:
    """README, the big-data guide, ``evaluate``'s docstring and the changelog quote it."""
    said = f"{_buckets.BUCKET_ROWS / 1e6:g} million rows"
    root = Path(__file__).resolve().parents[2]
    for path in ("README.md", "docs/guides/big-data.md", "CHANGELOG.md"):
        assert said in " ".join((root / path).read_text(encoding="utf-8").split()), path
    assert said in " ".join(str(irframe.evaluate.__doc__).split())


# --- pandas input, converted to polars a bucket at a time (``_frames.ArrowRows``) ---------


class Conversions:
    """Records the largest pandas frame converted to polars at once, the bucket parts
    converted from Arrow and the heights of the frames they came from."""

    def __init__(self, mp: pytest.MonkeyPatch) -> None:
        self.largest = 0
        self.parts = 0
        self.sources: set[int] = set()
        real_from_pandas, real_part = pl.from_pandas, _frames.ArrowRows.part

        def from_pandas(data: Any, *args: Any, **kwargs: Any) -> Any:
            self.largest = max(self.largest, len(data))
            return real_from_pandas(data, *args, **kwargs)

        def part(rows: Any, columns: Any, mask: Any) -> Any:
            self.parts += 1
            self.sources.add(rows.height)
            return real_part(rows, columns, mask)

        mp.setattr(pl, "from_pandas", from_pandas)
        mp.setattr(_frames.ArrowRows, "part", part)


def _wide_pandas() -> tuple[pd.DataFrame, pd.DataFrame]:
    """The twelve queries as pandas, 6 documents each (72 rows: more than the 64-row
    schema probe), with a score that agrees with the rank, an unused text column and an
    unused integer column."""
    run, qrels = _twelve_queries()
    run = pl.concat([run, run.with_columns(doc_id=pl.col("doc_id") + "x", rank=pl.col("rank") + 3)])
    run = run.with_columns(score=10.0 - pl.col("rank"), text=pl.lit("passage"), clicks=pl.int_range(pl.len()))
    return run.to_pandas(), qrels.to_pandas()


def _bucketed_conversions(
    buckets: Buckets, run: Any, qrels: Any, measures: list[str], **kw: Any
) -> Conversions:  # fmt: skip
    """Evaluate in 4 buckets, recording the conversions (then compare with one pass)."""
    with pytest.MonkeyPatch.context() as mp:
        conv = Conversions(mp)
        buckets.force(4)
        irframe.evaluate(run, measures, qrels, per_query=True, **kw)
    _both(buckets, 4, run, qrels, measures, **kw)
    return conv


def test_pandas_run_converted_a_bucket_at_a_time(buckets: Buckets) -> None:
    run, qrels = _wide_pandas()
    conv = _bucketed_conversions(buckets, run, qrels, ["P@2", "RR", "AP"])
    assert conv.largest == 64  # the schema probe; the 72-row run was never converted whole
    assert conv.sources == {len(run), len(qrels)}
    assert conv.parts >= 6  # run and qrels, 4 buckets each (an empty bucket is skipped)
    per_query, _ = _both(buckets, 4, run, qrels, ["P@2", "RR", "AP", "P@6"])
    # per query: d0 (grade 1), d1, d2 (2), then d0x, d1x, d2x unjudged: P@2 = 1/2,
    # RR = 1, AP = (1/1 + 2/3) / 2 = 5/6, P@6 = 2/6
    assert isinstance(per_query, pd.DataFrame)
    assert per_query["P@2"].tolist() == [0.5] * 12
    assert per_query["RR"].tolist() == [1.0] * 12
    assert per_query["AP"].tolist() == pytest.approx([5 / 6] * 12, abs=1e-15)
    assert per_query["P@6"].tolist() == pytest.approx([1 / 3] * 12, abs=1e-15)


def test_pandas_object_column_is_converted_whole(buckets: Buckets) -> None:
    """A column of Python objects has no Arrow form that shares its memory: the frame is
    converted whole, as before, and still evaluated in buckets."""
    run, qrels = _wide_pandas()
    run["meta"] = [{"a": i} for i in range(len(run))]
    conv = _bucketed_conversions(buckets, run, qrels, ["RR"])
    assert conv.largest == len(run)
    assert conv.sources == {len(qrels)}  # only the qrels (all Arrow-ready) come in parts


def test_pandas_buckets_with_systems_and_mixed_id_dtypes(buckets: Buckets) -> None:
    """Systems (partition values read a batch at a time) and integer run ids against
    string qrels ids (hashed as strings), from pandas."""
    run, qrels = _twelve_queries()
    runs = pl.concat([run.with_columns(system=pl.lit("a")), run.head(3).with_columns(system=pl.lit("b"))])
    runs = runs.with_columns(pl.col("query_id").str.slice(1).cast(pl.Int64))
    qrels = qrels.with_columns(pl.col("query_id").str.slice(1))
    conv = _bucketed_conversions(buckets, runs.to_pandas(), qrels.to_pandas(), ["RR"], by="system")
    assert conv.parts >= 6
    per_query, means = _both(buckets, 4, runs.to_pandas(), qrels.to_pandas(), ["RR"], by="system")
    assert len(per_query) == 24
    assert means.sort_values("system")["n_missing"].tolist() == [0, 11]
    assert means.sort_values("system")["RR"].tolist() == pytest.approx([1.0, 1 / 12])


def test_pandas_buckets_with_query_attributes_and_an_index(buckets: Buckets) -> None:
    """A ``by`` column joined from a queries table, and ids kept in the index: the run is
    converted whole (the attributes are joined onto it), the results are one pass's."""
    run, qrels = _wide_pandas()
    queries = pd.DataFrame({"query_id": QUERIES, "segment": ["head", "tail"] * 6})
    per_query, means = _both(
        buckets, 4, run.set_index("query_id"), qrels, ["RR", "P@2"], by="segment", queries=queries
    )
    assert len(per_query) == 12
    assert means["n_queries"].tolist() == [6, 6]


def test_pandas_buckets_report_errors_as_one_pass(buckets: Buckets) -> None:
    """A NaN score, and a rank that disagrees with the score, in a bucketed pandas run:
    the same message as one pass, counted over the whole run, queries in natural order."""
    run, qrels = _wide_pandas()
    run = run.drop(columns="rank")
    nan = run.assign(score=run["score"].where(run["doc_id"] != "d1"))  # 12 NaN, one per query
    expected = (
        r"^12 run rows have a null or NaN score in column 'score', e\.g\. in queries 'q0', 'q1', "
        r"'q2', 'q3', 'q4', \.\.\. \(7 more\)",
        r"^The rank column 'rank' and the score column 'score' disagree in 12 of 12 queries",
    )
    for bad, pattern in zip((nan, run.assign(rank=[3, 2, 1] * 24)), expected, strict=True):
        messages = []
        for force in (True, False):
            buckets.force(4) if force else buckets.off()
            with pytest.raises(InvalidDataError, match=pattern) as err:
                irframe.evaluate(bad, ["RR"], qrels)
            messages.append(str(err.value))
        assert messages[0] == messages[1]


def test_arrow_rows_equal_polars_conversion() -> None:
    """``ArrowRows`` gives the frame ``pl.from_pandas`` gives: nulls from NaN and None,
    nullable integers, time zones, Arrow-backed columns."""
    frame = pd.DataFrame(
        {
            "s": pd.array(["a", None, "c", "d"], dtype="str"),
            "f": [1.0, float("nan"), 3.0, -0.0],
            "i": pd.array([1, None, 3, 4], dtype="Int64"),
            "t": pd.to_datetime(["2020-01-01", None, "2020-01-02", "2021-03-04"]).tz_localize("UTC"),
            "b": [True, False, True, False],
            "a": pd.array([1.5, None, 2.0, 0.0], dtype="float64[pyarrow]"),
        }
    )
    found = _frames.in_memory_rows(frame)
    assert found is not None
    assert isinstance(found[0], _frames.ArrowRows)
    rows, whole = found[0], pl.from_pandas(frame)
    assert_frame_equal(rows.lazy().collect(), whole)
    mask = pl.Series([True, False, False, True])
    assert_frame_equal(rows.part(["s", "i"], mask), whole.select("s", "i").filter(mask))
    assert pl.concat(list(rows.slices("s", 3))).to_list() == ["a", None, "c", "d"]
    assert_frame_equal(rows.distinct(["b"]).sort("b"), pl.DataFrame({"b": [False, True]}))
    for dtype in ("category", "object"):
        assert _frames.in_memory_rows(frame.assign(s=frame["s"].astype(dtype))) is None


def test_arrow_table_run_converted_a_bucket_at_a_time(buckets: Buckets) -> None:
    """A pyarrow Table run (and qrels) takes the same path as pandas; a dictionary column
    keeps the whole conversion."""
    run, qrels = _twelve_queries()
    conv = _bucketed_conversions(buckets, run.to_arrow(), qrels.to_arrow(), ["RR", "AP"])
    assert conv.sources == {run.height, qrels.height}
    per_query, _ = _both(buckets, 4, run.to_arrow(), qrels.to_arrow(), ["RR", "AP"])
    assert per_query.column("AP").to_pylist() == pytest.approx([5 / 6] * 12, abs=1e-15)
    categorical = run.with_columns(pl.col("doc_id").cast(pl.Categorical)).to_arrow()
    assert _frames.in_memory_rows(categorical) is None


def test_a_large_partition_is_evaluated_in_buckets(buckets: Buckets) -> None:
    """``evaluate_partition`` (Dask, Spark, parquet buckets) buckets a large partition: the
    same Arrow table as one pass, with the given systems' missing queries, and an empty
    partition still gives an empty table."""
    from irframe.partition import evaluate_partition

    run, qrels = _twelve_queries()
    runs = pl.concat([run.with_columns(system=pl.lit("a")), run.head(3).with_columns(system=pl.lit("b"))])
    systems = pl.DataFrame({"system": ["a", "b", "c"]})  # c: in another partition only
    kw = {"by": "system", "partition_values": systems, "missing": "zero"}
    buckets.force(4)
    got = evaluate_partition(runs.to_arrow(), ["RR"], qrels.to_arrow(), **kw)
    assert buckets.passes > 2
    buckets.off()
    one = evaluate_partition(runs.to_arrow(), ["RR"], qrels.to_arrow(), **kw)
    order = [("system", "ascending"), ("query_id", "ascending")]
    assert got.sort_by(order).equals(one.sort_by(order))
    assert got.num_rows == 36  # 12 judged queries for each of a, b, c
    rr = pl.from_arrow(got).group_by("system").agg(pl.col("RR").sum()).sort("system")
    assert rr["RR"].to_list() == [12.0, 1.0, 0.0]  # b answered q0 only, c nothing here
    buckets.force(4)
    empty = evaluate_partition(runs.head(0).to_arrow(), ["RR"], qrels.head(0).to_arrow(), by="system")
    assert empty.num_rows == 0


@pytest.mark.parametrize("n_buckets", [None, 4])
def test_record_batches_are_read_like_tables(buckets: Buckets, n_buckets: int | None) -> None:
    """A Spark worker hands ``evaluate_partition`` record batches: run, qrels and
    partition values read through their Arrow stream give the table's result."""
    from irframe.partition import evaluate_partition

    run, qrels = _twelve_queries()
    runs = run.with_columns(system=pl.lit("a"))
    systems = pl.DataFrame({"system": ["a", "c"]})
    kw = {"by": "system", "missing": "zero"}
    if n_buckets is None:
        buckets.off()
    else:
        buckets.force(n_buckets)
    tables = evaluate_partition(
        runs.to_arrow(), ["RR"], qrels.to_arrow(), partition_values=systems.to_arrow(), **kw
    )

    def batch(df: pl.DataFrame) -> Any:  # a pyarrow.RecordBatch
        return df.to_arrow().to_batches()[0]

    batches = evaluate_partition(batch(runs), ["RR"], batch(qrels), partition_values=batch(systems), **kw)
    order = [("system", "ascending"), ("query_id", "ascending")]
    assert batches.sort_by(order).equals(tables.sort_by(order))
    assert pl.from_arrow(batches).group_by("system").agg(pl.col("RR").sum()).sort("system").rows() == [
        ("a", 12.0),
        ("c", 0.0),
    ]


def test_inputs_below_a_bucket_are_converted_whole_once(buckets: Buckets) -> None:
    """Below a bucket, a pandas or Arrow input is converted whole, once: never through
    the deferred frame of ``ArrowRows``, which every collect of a one-pass plan would
    convert again."""
    from irframe.partition import evaluate_partition

    def refuse(rows: Any) -> Any:
        raise AssertionError("a deferred conversion below a bucket")

    run, qrels = _twelve_queries()
    queries = pd.DataFrame({"query_id": QUERIES, "segment": ["head", "tail"] * 6})
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_frames.ArrowRows, "lazy", refuse)
        buckets.off()
        table = evaluate_partition(run.to_arrow(), ["RR"], qrels.to_arrow())
        means = irframe.evaluate(run.to_pandas(), ["RR"], qrels.to_pandas(), by="segment", queries=queries)
    assert table.column("RR").to_pylist() == [1.0] * 12
    assert means["RR"].tolist() == [1.0, 1.0]
