"""``ties=``, the diversity measures and ``weights=`` on the out-of-core and Dask backends:
the in-process values, per query and in the means, to 1e-12 (the cases:
``tests/_support/composed_cases.py``).  Every partition composes its evaluation as the in-process
backend does (:mod:`irframe._engine.compose`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pytest

import irframe
from _support.composed_cases import DIVERSITY, TIES, WEIGHTED, Asked, assert_same, reference
from _support.partition_cases import Case
from irframe.exceptions import DuplicateRowsError, InvalidParameterError

dd = pytest.importorskip("dask.dataframe")

# the default run: a few of each kind; every case under -m deep
FEW = [TIES[0], DIVERSITY[2], WEIGHTED[-1]]  # expected ties; diversity by system; weighted, mixed
REST = [a for a in [*TIES, *DIVERSITY, *WEIGHTED] if a not in FEW]
ALL = [*FEW, *(pytest.param(a, marks=pytest.mark.deep) for a in REST)]


def _parquet(asked: Asked, tmp_path: Path, per_query: bool, buckets: int = 3) -> pl.DataFrame:
    c = asked.case
    run = c.run.sample(fraction=1.0, shuffle=True, seed=0)
    half = run.height // 2
    run.head(half).write_parquet(tmp_path / "a.parquet")
    run.tail(run.height - half).write_parquet(tmp_path / "b.parquet")
    got = irframe.evaluate_parquet(
        tmp_path / "*.parquet", asked.measures, c.qrels, per_query=per_query, buckets=buckets, **c.kwargs
    )
    assert isinstance(got, pl.DataFrame)
    return got


def _dask(asked: Asked, per_query: bool, *, dask_qrels: bool = False) -> pl.DataFrame:
    c = asked.case
    run = dd.from_pandas(
        c.run.sample(fraction=1.0, shuffle=True, seed=1).to_pandas(), npartitions=3, sort=False
    )
    qrels: Any = c.qrels
    if dask_qrels and qrels is not None:
        qrels = dd.from_pandas(qrels.to_pandas(), npartitions=2, sort=False)
    got = irframe.evaluate(run, asked.measures, qrels, per_query=per_query, **c.kwargs)
    return pl.from_pandas(got.compute())


@pytest.mark.parametrize("asked", ALL, ids=repr)
@pytest.mark.parametrize("per_query", [True, False])
def test_out_of_core_equals_in_process(asked: Asked, per_query: bool, tmp_path: Path) -> None:
    assert_same(_parquet(asked, tmp_path, per_query), asked, per_query)


@pytest.mark.parametrize("asked", ALL, ids=repr)
@pytest.mark.parametrize("per_query", [True, False])
def test_dask_equals_in_process(client: Any, asked: Asked, per_query: bool) -> None:
    assert_same(_dask(asked, per_query), asked, per_query)


@pytest.mark.parametrize("asked", [DIVERSITY[0], TIES[1]], ids=repr)
def test_dask_qrels_and_many_buckets(client: Any, asked: Asked, tmp_path: Path) -> None:
    """Qrels as a dask frame (shuffled on the cluster), and more buckets than queries."""
    assert_same(_dask(asked, True, dask_qrels=True), asked, True)
    assert_same(_parquet(asked, tmp_path, True, buckets=64), asked, True)


def test_the_refusals_are_the_in_process_ones(client: Any, tmp_path: Path) -> None:
    """What cannot be composed is refused as in process, naming the parameter and the way out."""
    div = DIVERSITY[0].case
    both = Asked(div, ["alpha_nDCG@5", "AP"])  # several subtopics per document, and AP
    # a diversity measure has no tie-aware form
    tied = Asked(Case("tied", div.run, div.qrels, {"ties": "expected"}), ["alpha_nDCG@5"])
    for asked, error, match in (
        (both, DuplicateRowsError, r"several subtopics.*call of their own"),
        (tied, InvalidParameterError, r"ties='expected': \['alpha_nDCG@5'\] have no tie-aware form"),
    ):
        with pytest.raises(error, match=match):
            reference(asked, True)
        with pytest.raises(error, match=match):
            _parquet(asked, tmp_path, True)
        with pytest.raises(error, match=match):
            _dask(asked, True)


@pytest.mark.deep
@pytest.mark.parametrize("asked", [DIVERSITY[0], TIES[0]], ids=repr)
def test_out_of_core_qrels_from_parquet(asked: Asked, tmp_path: Path) -> None:
    """The qrels (the subtopic column too) as a parquet file, bucketed like the run."""
    assert asked.case.qrels is not None
    asked.case.qrels.write_parquet(tmp_path / "qrels.parquet")
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    asked.case.run.write_parquet(run_dir / "run.parquet")
    c = asked.case
    got = irframe.evaluate_parquet(
        run_dir / "run.parquet", asked.measures, tmp_path / "qrels.parquet", per_query=True, buckets=4,
        **c.kwargs,
    )  # fmt: skip
    assert isinstance(got, pl.DataFrame)
    assert_same(got, asked, True)
