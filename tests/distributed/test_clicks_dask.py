"""irframe.clicks on a dask frame: the same numbers as the in-memory log.

The oracle is the in-memory fit of the same rows (itself checked against PyClick, the
ultr-bias-toolkit port and hand computations in tests/clicks): the log is shuffled and
split into partitions that cut queries and impressions apart, so the shuffle by query has
work to do.
"""

from __future__ import annotations

import warnings
from typing import Any

import pandas as pd
import polars as pl
import pytest

import irframe
import irframe.clicks as ic
from _support.click_sessions import slate_log
from irframe.exceptions import ClickLogWarning, InvalidDataError, InvalidParameterError

dd = pytest.importorskip("dask.dataframe")

DEFAULT_MODELS = ("coec", "dcm", "ubm", "dbn")
DEFAULT_METHODS = ("ctr", "pivot", "em")


def _deep_unless(values: tuple[str, ...], everything: tuple[str, ...]) -> list[Any]:
    return [v if v in values else pytest.param(v, marks=pytest.mark.deep) for v in everything]


@pytest.fixture(scope="module")
def log() -> pl.DataFrame:
    return irframe.datasets.click_log().log  # type: ignore[no-any-return]


def _ddf(frame: pl.DataFrame, npartitions: int = 3) -> Any:
    return dd.from_pandas(
        frame.sample(fraction=1.0, shuffle=True, seed=1).to_pandas(), npartitions=npartitions, sort=False
    )


def _close(got: pl.DataFrame, want: pl.DataFrame) -> None:
    floats = [c for c in want.columns if want[c].dtype.is_float()]
    assert got.columns == want.columns
    assert got.drop(floats).equals(want.drop(floats))
    for c in floats:
        assert (got[c].is_null() == want[c].is_null()).all()
        assert ((got[c] - want[c]).abs().max() or 0.0) <= 1e-12, c


@pytest.mark.parametrize("model", _deep_unless(DEFAULT_MODELS, ic.MODELS))
def test_click_model_on_dask_equals_in_memory(client: None, log: pl.DataFrame, model: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ClickLogWarning)  # (EM convergence: the same either way)
        got = ic.click_model(_ddf(log), model, iterations=5, buckets=4)
        want = ic.click_model(log, model, iterations=5)
    assert isinstance(got.judgments, pd.DataFrame)
    assert got.summary.pop("n_buckets") == 4
    # (EM's last change to 1e-12: PBM/UBM add the buckets' statistics in bucket order)
    assert got.summary.pop("last_change", 0.0) == pytest.approx(
        want.summary.pop("last_change", 0.0), abs=1e-12
    )
    assert got.summary == want.summary
    _close(pl.from_pandas(got.judgments), want.judgments)
    if want.positions is not None:
        _close(pl.from_pandas(got.positions), want.positions)
    assert got.continuation == pytest.approx(want.continuation, abs=1e-12)


@pytest.mark.parametrize("method", _deep_unless(DEFAULT_METHODS, ic.METHODS))
def test_position_bias_on_dask_equals_in_memory(client: None, log: pl.DataFrame, method: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ClickLogWarning)
        got = pl.from_pandas(ic.position_bias(_ddf(log), method, n_bootstrap=30))
        want = ic.position_bias(log, method, n_bootstrap=30)
    assert got.select("position", "n").equals(want.select("position", "n"))
    for c in ("theta", "ci_low", "ci_high"):
        assert ((got[c] - want[c]).abs().max() or 0.0) <= 1e-12, c


def test_dask_errors_as_in_memory(client: None, log: pl.DataFrame) -> None:
    two = pl.DataFrame(
        {"impression_id": [1, 1, 2], "query_id": ["q1", "q7", "q1"], "doc_id": ["a", "b", "a"],
         "position": [1, 2, 1], "clicked": [1, 0, 0]}
    )  # fmt: skip
    with pytest.raises(InvalidDataError) as want:
        ic.click_model(two, "cm")
    with pytest.raises(InvalidDataError) as got:
        ic.click_model(_ddf(two, 2), "cm", buckets=16)
    assert str(got.value) == str(want.value)
    with pytest.raises(InvalidParameterError, match="'memory_limit' parameter of click_model"):
        ic.click_model(_ddf(log), "cm", memory_limit="1GB")


@pytest.mark.parametrize("per_query", [False, True])
def test_counterfactual_on_dask_equals_in_memory(client: None, per_query: bool) -> None:
    data = irframe.datasets.click_log()
    kw: dict[str, Any] = {"propensities": data.theta, "clip": 5.0, "per_query": per_query, "n_bootstrap": 50}
    got = ic.counterfactual(_ddf(data.log), data.runs, ["DCG@5", "Clicks@3"], buckets=4, **kw)
    want = ic.counterfactual(data.log, data.runs, ["DCG@5", "Clicks@3"], **kw)
    assert isinstance(got, pd.DataFrame)
    _close(pl.from_pandas(got), want)


@pytest.mark.parametrize("estimator", _deep_unless(("sips", "sniips"), ic.ESTIMATORS[1:]))
def test_slate_estimators_on_dask_equal_in_memory(client: None, estimator: str) -> None:
    log = slate_log(3, n=300, n_queries=11)
    got = ic.counterfactual(_ddf(log), estimator=estimator, n_bootstrap=50, buckets=3)
    _close(pl.from_pandas(got), ic.counterfactual(log, estimator=estimator, n_bootstrap=50))
