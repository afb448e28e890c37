"""Empty input (issue 15 item 8): a filter that selects nothing is normal, not an error.

Expected values are written out: with qrels, every judged query is missing from an
empty run (0 under ``missing="zero"``, left out under ``"drop"``); without qrels the
per-query frame has no row and the means are null with ``n_queries`` 0.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pytest

import irframe
from _support.helpers import NamedConstructor, to_polars
from irframe.exceptions import EmptyInputError, MissingQueriesError

RUN = {"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"], "score": [2.0, 1.0, 1.0]}
QRELS = {"query_id": ["q1", "q2", "q3"], "doc_id": ["a", "c", "x"], "relevance": [1, 2, 1]}
MEASURES = ["AP", "nDCG@10", "P@5", "RR", "R", "Bpref", "Rprec"]


def _eval(run: Any, qrels: Any, **kw: Any) -> pl.DataFrame:
    out = irframe.evaluate(run, MEASURES, qrels, **kw)
    df: pl.DataFrame = to_polars(out.collect() if hasattr(out, "collect") else out)
    return df


def test_empty_run_with_qrels_scores_every_judged_query_zero(constructor: NamedConstructor) -> None:
    got = _eval(constructor(RUN).head(0), constructor(QRELS))
    assert got.row(0, named=True) == {
        **dict.fromkeys(MEASURES, 0.0), "n_queries": 3, "n_missing": 3, "n_unjudged": 0
    }  # fmt: skip


def test_empty_run_with_qrels_per_query(constructor: NamedConstructor) -> None:
    got = _eval(constructor(RUN).head(0), constructor(QRELS), per_query=True)
    assert got.get_column("query_id").to_list() == ["q1", "q2", "q3"]
    assert got.select(MEASURES).to_dicts() == [dict.fromkeys(MEASURES, 0.0)] * 3


def test_empty_run_with_qrels_drop_has_null_means(constructor: NamedConstructor) -> None:
    got = _eval(constructor(RUN).head(0), constructor(QRELS), missing="drop")
    assert got.row(0, named=True) == {
        **dict.fromkeys(MEASURES), "n_queries": 0, "n_missing": 3, "n_unjudged": 0
    }  # fmt: skip


def test_empty_run_with_missing_error_names_the_queries(constructor: NamedConstructor) -> None:
    with pytest.raises(MissingQueriesError, match="3 judged queries are missing") as info:
        _eval(constructor(RUN).head(0), constructor(QRELS), missing="error")
    assert all(q in str(info.value) for q in ("'q1'", "'q2'", "'q3'"))


def test_empty_run_without_qrels(constructor: NamedConstructor) -> None:
    run = constructor({**RUN, "relevance": [1, 0, 2]}).head(0)
    summary = _eval(run, None)
    assert summary.row(0, named=True) == {
        **dict.fromkeys(MEASURES), "n_queries": 0, "n_missing": 0, "n_unjudged": 0
    }  # fmt: skip
    per_query = _eval(run, None, per_query=True)
    assert per_query.height == 0
    assert per_query.columns == ["query_id", *MEASURES]


def test_empty_run_and_empty_qrels(constructor: NamedConstructor) -> None:
    got = _eval(constructor(RUN).head(0), constructor(QRELS).head(0))
    assert got.row(0, named=True) == {
        **dict.fromkeys(MEASURES), "n_queries": 0, "n_missing": 0, "n_unjudged": 0
    }  # fmt: skip


def test_empty_run_with_a_system_column_gives_no_group() -> None:
    run = pl.DataFrame({**RUN, "system": ["s1", "s1", "s2"]}).head(0)
    got = irframe.evaluate(run, MEASURES, pl.DataFrame(QRELS), by="system")
    assert got.height == 0
    assert got.columns == ["system", *MEASURES, "n_queries", "n_missing", "n_unjudged"]


def test_filter_selecting_nothing_in_a_segment_loop() -> None:
    run = pl.DataFrame({**RUN, "segment": ["x", "x", "y"]})
    seen = {}
    for seg in ("x", "y", "z"):  # "z" selects nothing
        res = irframe.evaluate(run.filter(pl.col("segment") == seg), ["P@1"], pl.DataFrame(QRELS))
        seen[seg] = res.select("P@1", "n_missing").row(0)
    # x: q1 P@1 = 1, q2 and q3 missing; y: q2 P@1 = 1 (c is relevant); z: all missing
    assert seen == {"x": (1 / 3, 2), "y": (1 / 3, 2), "z": (0.0, 3)}


def test_empty_qrels_with_a_non_empty_run_is_still_refused(constructor: NamedConstructor) -> None:
    with pytest.raises(EmptyInputError, match="qrels have no rows") as info:
        _eval(constructor(RUN), constructor(QRELS).head(0))
    assert "2 queries" in str(info.value)


def test_empty_run_in_parquet_and_dask(tmp_path: Path) -> None:
    path = tmp_path / "run.parquet"
    pl.DataFrame(RUN).head(0).write_parquet(path)
    expected = {**dict.fromkeys(MEASURES, 0.0), "n_queries": 3, "n_missing": 3, "n_unjudged": 0}
    got = irframe.evaluate_parquet(path, MEASURES, pl.DataFrame(QRELS), buckets=2)
    assert isinstance(got, pl.DataFrame)
    assert got.row(0, named=True) == expected
    dd = pytest.importorskip("dask.dataframe")
    ddf = dd.from_pandas(pl.DataFrame(RUN).head(0).to_pandas(), npartitions=1)
    got_dask = irframe.evaluate(ddf, MEASURES, pl.DataFrame(QRELS).to_pandas()).compute()
    assert got_dask.iloc[0].to_dict() == expected
