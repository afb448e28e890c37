"""``depth=`` (trec_eval's ``-M``) on every executor and every path that reads the run.

The oracle: the run cut in plain Python (each query's rows sorted by score descending,
ties by doc id descending as strings, the first ``depth`` kept), then the plain-Python
evaluator of ``tests/_support/oracle.py`` on the cut run.  trec_eval itself is compared in
``test_trec_eval_all.py`` (``test_depth_matches_trec_eval_dash_m``).
"""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import irframe
from _support.datagen import measure_lists, run_and_qrels
from _support.helpers import assert_close_dicts, examples, only_executor, per_query_dict
from _support.oracle import oracle_evaluate
from irframe._engine import buckets, strategy
from irframe.exceptions import InvalidDataError, InvalidParameterError

TOL = 1e-9
SETTINGS = settings(max_examples=examples(20), deadline=None)
EXECUTORS = [s.name for s in strategy.STRATEGIES]


def cut(run: dict[str, list[Any]], depth: int) -> dict[str, list[Any]]:
    """Each query's first ``depth`` rows in trec_eval's order, in plain Python."""
    rows = list(zip(run["query_id"], run["doc_id"], run["score"], strict=True))
    rows.sort(key=lambda r: str(r[1]), reverse=True)  # doc id descending ...
    rows.sort(key=lambda r: r[2], reverse=True)  # ... within score descending (a stable sort)
    seen: dict[str, int] = {}
    kept = []
    for r in rows:
        seen[r[0]] = seen.get(r[0], 0) + 1
        if seen[r[0]] <= depth:
            kept.append(r)
    return {"query_id": [r[0] for r in kept], "doc_id": [r[1] for r in kept], "score": [r[2] for r in kept]}


@pytest.mark.parametrize("name", EXECUTORS)
@SETTINGS
@given(data=run_and_qrels(), labels=measure_lists(), depth=st.integers(1, 6), lazy=st.booleans())
def test_each_executor_cuts_like_the_oracle(
    name: str, data: tuple[dict[str, list[Any]], dict[str, list[Any]]], labels: list[str], depth: int,
    lazy: bool,
) -> None:  # fmt: skip
    run, qrels = data
    if name == "presorted":
        run = cut(run, 10**6)  # (in ranking order: the presorted executor takes it)
    frame: Any = pl.DataFrame(run, strict=False)
    with only_executor(name) as ran:
        got = irframe.evaluate(frame.lazy() if lazy else frame, labels, qrels=pl.DataFrame(qrels),
                               per_query=True, depth=depth)  # fmt: skip
    got = got.collect() if lazy else got
    assert ran
    expected = oracle_evaluate(cut(run, depth), qrels, labels)
    assert_close_dicts(per_query_dict(got, labels), expected, tol=TOL)


def test_buckets_cut_each_query(monkeypatch: pytest.MonkeyPatch) -> None:
    """A run evaluated in query buckets is cut per query, as in one pass."""
    run = {"query_id": [f"q{i % 7}" for i in range(300)], "doc_id": [f"d{i}" for i in range(300)],
           "score": [float(i % 13) for i in range(300)]}  # fmt: skip
    judged = range(0, 300, 3)
    qrels = {"query_id": [f"q{i % 7}" for i in judged], "doc_id": [f"d{i}" for i in judged],
             "relevance": [i % 3 for i in judged]}  # fmt: skip
    labels = ["AP", "P@5", "nDCG@10", "NumRet"]
    monkeypatch.setattr(buckets, "BUCKET_ROWS", 60)
    got = irframe.evaluate(pl.DataFrame(run), labels, pl.DataFrame(qrels), per_query=True, depth=8)
    assert_close_dicts(per_query_dict(got, labels), oracle_evaluate(cut(run, 8), qrels, labels), tol=TOL)
    assert set(got["NumRet"].to_list()) == {8.0}


def test_rank_order_and_pandas() -> None:
    pd = pytest.importorskip("pandas")
    run = pd.DataFrame({"query_id": ["q1"] * 4, "doc_id": list("abcd"), "rank": [4, 1, 3, 2]})
    qrels = pd.DataFrame({"query_id": ["q1"] * 2, "doc_id": ["a", "c"], "relevance": [1, 1]})
    got = irframe.evaluate(run, ["NumRelRet", "RR"], qrels, per_query=True, depth=3)
    assert isinstance(got, pd.DataFrame)
    assert got.iloc[0].tolist() == ["q1", 1.0, 1 / 3]  # b, d, c: a (rank 4) is cut


def test_duplicates_first_takes_one_place() -> None:
    run = pl.DataFrame(
        {"query_id": ["q1"] * 4, "doc_id": ["a", "a", "b", "c"], "score": [4.0, 3.0, 2.0, 1.0]}
    )
    qrels = pl.DataFrame({"query_id": ["q1"], "doc_id": ["b"], "relevance": [1]})
    with pytest.warns(
        irframe.exceptions.DuplicatesWarning, match="dropped 1 of 4 run rows"
    ):  # a's second row
        got = irframe.evaluate(run, ["NumRet", "RR"], qrels, per_query=True, depth=2, duplicates="first")
    assert got.row(0) == ("q1", 2.0, 0.5)  # a, b
    with pytest.raises(irframe.IrFrameError, match="duplicate"):
        irframe.evaluate(run, ["RR"], qrels, depth=2)  # a twice within the depth


def test_unrankable_rows_below_the_depth_still_raise() -> None:
    run = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "b", "c"], "score": [2.0, 1.0, None]})
    with pytest.raises(InvalidDataError, match="null"):
        irframe.evaluate(
            run, ["RR"], pl.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "relevance": [1]}), depth=1
        )


def test_diversity_measures_are_cut_too() -> None:
    run = pl.DataFrame({"query_id": ["q1"] * 3, "doc_id": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
    qrels = pl.DataFrame({"query_id": ["q1"] * 3, "subtopic": ["1", "2", "3"], "doc_id": ["a", "b", "c"],
                          "relevance": [1, 1, 1]})  # fmt: skip
    full = irframe.evaluate(run, ["StRecall@3"], qrels).item(0, "StRecall@3")
    assert (full, irframe.evaluate(run, ["StRecall@3"], qrels, depth=2).item(0, "StRecall@3")) == (1.0, 2 / 3)


@pytest.mark.parametrize("bad", [0, -1, 2.5, True, "5"])
def test_depth_is_a_positive_int(bad: Any) -> None:
    run = pl.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "score": [1.0], "relevance": [1]})
    with pytest.raises(InvalidParameterError, match=r"'depth' parameter of evaluate must be an int"):
        irframe.evaluate(run, ["RR"], depth=bad)


def test_shortcuts_compare_and_check_carry_it() -> None:
    run = pl.DataFrame({"system": ["s"] * 3 + ["t"] * 3, "query_id": ["q1"] * 6, "doc_id": list("abcabc"),
                        "score": [3.0, 2.0, 1.0, 1.0, 2.0, 3.0]})  # fmt: skip
    qrels = pl.DataFrame({"query_id": ["q1"], "doc_id": ["c"], "relevance": [1]})
    s = run.filter(pl.col("system") == "s").drop("system")
    assert irframe.mrr(s, qrels=qrels, depth=2).item(0, "RR") == 0.0
    assert irframe.mrr(s, qrels=qrels).item(0, "RR") == 1 / 3
    table = irframe.compare(run, qrels, ["RR"], test="t", depth=2)
    assert (table.item(0, "baseline_mean"), table.item(0, "mean")) == (0.0, 1.0)
    t = run.filter(pl.col("system") == "t").drop("system")
    gate = irframe.check(t, qrels, s, ["RR"], test="t", depth=2).comparisons
    assert (gate.item(0, "baseline_mean"), gate.item(0, "mean")) == (0.0, 1.0)


def test_cli_dash_m(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    from irframe.cli import main

    (tmp_path / "qrels").write_text("q1 0 a 1\nq1 0 b 1\n")
    (tmp_path / "run").write_text("q1 Q0 a 1 0.5 t\nq1 Q0 c 2 0.9 t\nq1 Q0 b 3 0.1 t\n")
    assert main(["eval", str(tmp_path / "qrels"), str(tmp_path / "run"), "-M", "2", "-m", "NumRet",
                 "-m", "AP", "-f", "csv"]) == 0  # fmt: skip
    header, row = capsys.readouterr().out.splitlines()[:2]
    values = dict(zip(header.split(","), row.split(","), strict=True))
    assert (float(values["NumRet"]), float(values["AP"])) == (2.0, pytest.approx(0.25))  # c, a: 1/2 / 2


def test_parquet_and_dask_through_evaluate(tmp_path: Any) -> None:
    """Out of core and on Dask, ``irframe.evaluate(..., depth=)`` hands the one options value
    to the backend, which cuts each query (a query's rows stay in one bucket/partition)."""
    run = {"query_id": [f"q{i % 5}" for i in range(60)], "doc_id": [f"d{i}" for i in range(60)],
           "score": [float(i % 7) for i in range(60)]}  # fmt: skip
    qrels = {"query_id": [f"q{i % 5}" for i in range(0, 60, 2)], "doc_id": [f"d{i}" for i in range(0, 60, 2)],
             "relevance": [1] * 30}  # fmt: skip
    labels = ["AP", "NumRet", "P@3"]
    expected = oracle_evaluate(cut(run, 4), qrels, labels)
    path = tmp_path / "run.parquet"
    pl.DataFrame(run).write_parquet(path)
    got = irframe.evaluate(str(path), labels, pl.DataFrame(qrels), per_query=True, depth=4, buckets=2)
    assert_close_dicts(per_query_dict(got, labels), expected, tol=TOL)
    dd = pytest.importorskip("dask.dataframe", reason="needs pip install dask[dataframe]")
    pd = pytest.importorskip("pandas")
    frame = dd.from_pandas(pd.DataFrame(run), npartitions=3)
    got = irframe.evaluate(frame, labels, pd.DataFrame(qrels), per_query=True, depth=4).compute()
    assert_close_dicts(per_query_dict(got, labels), expected, tol=TOL)
