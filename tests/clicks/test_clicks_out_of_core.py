"""click_model out of core (``memory_limit=`` / ``buckets=``): bucket by bucket equals in memory.

The oracle is the in-memory fit of the same log (itself checked against PyClick and hand
computations in test_click_models.py and test_pyclick.py): every parameter to 1e-12, the
pairs in the same order, the same counts, and as many buckets as asked for (the
summary's ``n_buckets``, and the spill directory's bucket files).
"""

from __future__ import annotations

import collections
import warnings
from pathlib import Path

import pandas as pd
import polars as pl
import pytest

import irframe
import irframe.clicks as ic
from _support.click_sessions import generated_log, slate_log
from irframe._backends import parquet
from irframe.exceptions import ClickLogWarning, DuplicateRowsError, InvalidDataError, InvalidParameterError

EM_OPTS = {"iterations": 5}  # (the EM models' numbers are compared, not their convergence)


def _fit(log: object, model: str, **kw: object) -> ic.ClickModel:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ClickLogWarning)  # (EM convergence: the same either way)
        return ic.click_model(log, model, **(EM_OPTS if model in ("pbm", "ubm", "dbn") else {}), **kw)  # type: ignore[arg-type]


def _assert_same(got: ic.ClickModel, want: ic.ClickModel) -> None:
    def frame(f: object) -> pl.DataFrame:
        return (
            f.collect()
            if isinstance(f, pl.LazyFrame)
            else pl.from_pandas(f)
            if isinstance(f, pd.DataFrame)
            else f
        )  # type: ignore[return-value]

    for g_in, w_in in ((got.judgments, want.judgments), (got.positions, want.positions)):
        if w_in is None:
            assert g_in is None
            continue
        g, w = frame(g_in), frame(w_in)
        assert g.columns == w.columns
        assert g.height == w.height
        floats = [c for c in w.columns if w[c].dtype.is_float()]
        assert g.drop(floats).equals(w.drop(floats))  # ids, counts, keys: exactly, in order
        for c in floats:
            assert (g[c].is_null() == w[c].is_null()).all()
            assert ((g[c] - w[c]).abs().max() or 0.0) <= 1e-12, c
    assert got.continuation == pytest.approx(want.continuation, abs=1e-12)
    got_summary = {k: v for k, v in got.summary.items() if k != "n_buckets"}
    # (the counts exactly; EM's last change to 1e-12: PBM/UBM add their buckets' statistics in
    # bucket order, the same sums in another order)
    assert got_summary.pop("last_change", 0.0) == pytest.approx(
        want.summary.get("last_change", 0.0), abs=1e-12
    )
    assert got_summary == {k: v for k, v in want.summary.items() if k != "last_change"}


@pytest.fixture(scope="module")
def bundled() -> pl.DataFrame:
    return irframe.datasets.click_log().log  # type: ignore[no-any-return]


@pytest.mark.parametrize("model", ic.MODELS)
def test_bundled_log_in_buckets_equals_in_memory(bundled: pl.DataFrame, model: str, tmp_path: Path) -> None:
    got = _fit(bundled.lazy(), model, buckets=5, tmp_dir=tmp_path)
    assert got.summary["n_buckets"] == 5
    _assert_same(got, _fit(bundled, model))
    assert list(tmp_path.iterdir()) == []  # the spill directory is gone


def test_memory_limit_chooses_several_buckets(
    bundled: pl.DataFrame, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A memory limit under the log's size forces buckets (the floor per bucket lowered, so a
    50,000-row log needs several); the bucket files on disk are those buckets."""
    monkeypatch.setattr(parquet, "_MIN_BUCKET_BYTES", 2**16)
    limit = parquet._BASE_BYTES + 3 * 200_000  # ~200 kB per bucket
    seen: list[int] = []
    real = parquet._Buckets.inputs

    def counting(self: parquet._Buckets, b: int) -> object:
        seen.append(len(list((self.tmp / "run").glob("*/*.parquet"))))
        return real(self, b)

    monkeypatch.setattr(parquet._Buckets, "inputs", counting)
    got = _fit(bundled.lazy(), "sdbn", memory_limit=limit)
    n = got.summary["n_buckets"]
    assert 4 <= n <= 64
    assert max(seen) >= n - 1  # the bucket files written (a bucket may hold no query)
    _assert_same(got, _fit(bundled, "sdbn"))


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> tuple[pl.DataFrame, Path]:
    """A generated log (sessions of 3 to 9 results, 40 queries) written as 4 parquet files."""
    log = generated_log(3, 2000, (3, 5, 9), n_queries=40, n_docs=12)
    path = tmp_path_factory.mktemp("log")
    for i in range(4):
        log.filter(pl.col("impression_id") % 4 == i).write_parquet(path / f"part-{i}.parquet")
    return log, path


@pytest.mark.parametrize(
    "model",
    [m if m in ("coec", "dcm", "ubm", "dbn") else pytest.param(m, marks=pytest.mark.deep) for m in ic.MODELS],
)
def test_parquet_files_equal_in_memory(files: tuple[pl.DataFrame, Path], model: str) -> None:
    log, path = files
    got = _fit(str(path / "*.parquet"), model, buckets=7)
    assert isinstance(got.judgments, pl.DataFrame)
    assert got.summary["n_buckets"] == 7
    _assert_same(got, _fit(log, model))


def test_directory_pandas_and_max_position(files: tuple[pl.DataFrame, Path]) -> None:
    log, path = files
    _assert_same(_fit(path, "ubm", buckets=3), _fit(log, "ubm"))
    got = _fit(log.to_pandas(), "dcm", buckets=3)
    assert isinstance(got.judgments, pd.DataFrame)
    _assert_same(got, _fit(log.to_pandas(), "dcm"))
    with pytest.warns(ClickLogWarning, match="beyond max_position=4"):
        cut = ic.click_model(path, "sdbn", buckets=3, max_position=4)
    with pytest.warns(ClickLogWarning, match="beyond max_position=4"):
        _assert_same(cut, ic.click_model(log, "sdbn", max_position=4))
    assert cut.summary["n_rows_beyond_max_position"] == log.filter(pl.col("position") > 4).height


def test_bad_rows_are_named_as_in_memory(files: tuple[pl.DataFrame, Path], tmp_path: Path) -> None:
    """A duplicated position inside a bucket, and an impression whose rows show two queries
    that land in different buckets (no bucket sees it whole): the in-memory error."""
    log = files[0]
    dup = pl.concat([log, log.head(1)])
    with pytest.raises(DuplicateRowsError) as want:
        ic.click_model(dup, "cm")
    with pytest.raises(DuplicateRowsError) as got:
        ic.click_model(dup.lazy(), "cm", buckets=4)
    assert str(got.value) == str(want.value)
    bucket = pl.col("query_id").cast(pl.String).hash(seed=0) % 8
    q = log.select("query_id", bucket.alias("b")).unique("b").sort("b").head(2)["query_id"].to_list()
    two = pl.DataFrame(
        {"impression_id": [1, 1], "query_id": q, "doc_id": ["a", "b"], "position": [1, 2], "clicked": [1, 0]}
    )
    with pytest.raises(InvalidDataError, match="impression 1 has rows of 2 queries") as want_split:
        ic.click_model(two, "cm")
    with pytest.raises(InvalidDataError) as got_split:
        ic.click_model(two.lazy(), "cm", buckets=8)
    assert str(got_split.value) == str(want_split.value)


def _bias(log: object, method: str, **kw: object) -> pl.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ClickLogWarning)  # (ctr on a non-randomized log: said either way)
        out = ic.position_bias(log, method, n_bootstrap=30, **kw)  # type: ignore[arg-type]
    return out.collect() if isinstance(out, pl.LazyFrame) else out  # type: ignore[no-any-return]


def _assert_same_bias(got: pl.DataFrame, want: pl.DataFrame, tol: float = 1e-12) -> None:
    assert got.select("position", "n").equals(want.select("position", "n"))
    for c in ("theta", "ci_low", "ci_high"):  # the bootstrap's resamples too: the same query index
        assert (got[c].is_null() == want[c].is_null()).all()
        assert ((got[c] - want[c]).abs().max() or 0.0) <= tol, c


@pytest.mark.parametrize(
    "method",
    [m if m in ("ctr", "pivot", "adjacent") else pytest.param(m, marks=pytest.mark.deep) for m in ic.METHODS],
)
def test_position_bias_in_buckets_equals_in_memory(
    bundled: pl.DataFrame, files: tuple[pl.DataFrame, Path], method: str
) -> None:
    # (allpairs and pivot sum float CTRs: in a fixed order, so to the last bit as in memory)
    _assert_same_bias(_bias(bundled.lazy(), method, buckets=6), _bias(bundled, method))
    log, path = files
    _assert_same_bias(_bias(path / "*.parquet", method, buckets=5), _bias(log, method))


@pytest.mark.parametrize("method", ["allpairs", "pivot"])
def test_position_bias_is_bit_reproducible(files: tuple[pl.DataFrame, Path], method: str) -> None:
    """Float sums in a fixed order: two calls give the same bytes (allpairs' EM used to amplify
    polars' thread-order sums to ~1e-8), and so does the log in a shuffled row order."""
    log = files[0]
    first = _bias(log, method).write_ipc(None).getvalue()
    assert _bias(log, method).write_ipc(None).getvalue() == first
    shuffled = log.sample(fraction=1.0, shuffle=True, seed=5)
    assert _bias(shuffled, method).write_ipc(None).getvalue() == first


def test_position_bias_fit_reports_its_buckets(bundled: pl.DataFrame, tmp_path: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ClickLogWarning)
        got = ic.position_bias_fit(bundled.lazy(), "em", n_bootstrap=0, buckets=5, tmp_dir=tmp_path)
        want = ic.position_bias_fit(bundled, "em", n_bootstrap=0)
    assert got.summary.pop("n_buckets") == 5
    assert "n_buckets" not in want.summary
    assert got.summary == want.summary
    assert want.summary["n_rows"] == bundled.height
    assert want.summary["n_queries"] == bundled["query_id"].n_unique()
    assert want.summary["n_impressions"] == bundled["impression_id"].n_unique()
    assert want.summary["last_change"] <= 1e-6  # (converged: no warning)
    _assert_same_bias(got.theta.collect(), want.theta)
    assert ic.position_bias(bundled, "em", n_bootstrap=0).equals(want.theta)


def test_position_bias_warns_as_in_memory(bundled: pl.DataFrame) -> None:
    one_ranker = bundled.filter(pl.col("system") == "a")  # (each pair at one position: not randomized)
    with pytest.warns(ClickLogWarning, match="does not look randomized"):
        ic.position_bias(one_ranker.lazy(), "ctr", n_bootstrap=0, buckets=3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ic.position_bias(bundled.lazy(), "ctr", n_bootstrap=0, buckets=3)  # (both rankers: no warning)


def test_bad_out_of_core_parameters_name_the_function(bundled: pl.DataFrame) -> None:
    with pytest.raises(InvalidParameterError, match=r"'memory_limit' parameter of click_model.*'4GB'"):
        ic.click_model(bundled, "cm", memory_limit="lots")
    with pytest.raises(InvalidParameterError, match="'buckets' parameter of position_bias"):
        ic.position_bias(bundled, "pivot", buckets=0)
    too_many = parquet.MAX_BUCKETS + 1
    with pytest.raises(InvalidParameterError, match=r"'buckets' parameter of counterfactual.*at most 65536"):
        ic.counterfactual(bundled, estimator="sips", buckets=too_many)
    with pytest.raises(InvalidParameterError, match=r"'buckets' parameter of click_model.*Got 65537"):
        ic.click_model(bundled, "cm", buckets=too_many)
    fit = ic.click_model(bundled, "cm", memory_limit="1GB")  # (a small log under a large limit: one pass)
    assert fit.summary["n_buckets"] == 1
    _assert_same(fit, ic.click_model(bundled, "cm"))


def _frame(f: object) -> pl.DataFrame:
    if isinstance(f, pl.LazyFrame):
        return f.collect()
    return pl.from_pandas(f) if isinstance(f, pd.DataFrame) else f  # type: ignore[return-value]


def assert_same_table(got: object, want: object, tol: float = 1e-12) -> None:
    """The same columns, keys and counts exactly, floats to ``tol`` (nulls where the other has them)."""
    g, w = _frame(got), _frame(want)
    assert g.columns == w.columns
    floats = [c for c in w.columns if w[c].dtype.is_float()]
    assert g.drop(floats).equals(w.drop(floats))
    for c in floats:
        assert (g[c].is_null() == w[c].is_null()).all(), c
        assert ((g[c] - w[c]).abs().max() or 0.0) <= tol, c


@pytest.fixture(scope="module")
def clicks_data() -> irframe.datasets.ClickData:
    return irframe.datasets.click_log()


@pytest.mark.parametrize("per_query", [False, True])
def test_counterfactual_in_buckets_equals_in_memory(
    clicks_data: irframe.datasets.ClickData, per_query: bool, tmp_path: Path
) -> None:
    """IPS of three rankings (compared, bootstrapped, clipped) bucket by bucket: the in-memory
    numbers (themselves checked by hand and on simulations in test_counterfactual.py)."""
    log, runs, theta = clicks_data.log, clicks_data.runs, clicks_data.theta
    kw = {"propensities": theta, "clip": 5.0, "per_query": per_query, "n_bootstrap": 50}
    want = ic.counterfactual(log, runs, ["DCG@5", "Clicks@3"], **kw)  # type: ignore[arg-type]
    got = ic.counterfactual(log.lazy(), runs, ["DCG@5", "Clicks@3"], buckets=5, tmp_dir=tmp_path, **kw)  # type: ignore[arg-type]
    assert_same_table(got, want)
    assert list(tmp_path.iterdir()) == []
    n_systems = runs["system"].n_unique()
    assert _frame(want).height == n_systems * (60 if per_query else 2)


def test_counterfactual_parquet_files_and_errors(files: tuple[pl.DataFrame, Path]) -> None:
    log, path = files
    run = (
        log.select("query_id", "doc_id")
        .unique()
        .with_columns(pl.col("doc_id").rank("ordinal").over("query_id").alias("rank"))
    )
    theta = dict.fromkeys(range(1, 10), 0.5) | {1: 1.0}
    want = ic.counterfactual(log, run, ["DCG@10"], propensities=theta, n_bootstrap=20)
    assert_same_table(
        ic.counterfactual(path, run, ["DCG@10"], propensities=theta, n_bootstrap=20, buckets=6), want
    )
    short = {k: v for k, v in theta.items() if k != 9}  # (clicks at position 9: not covered)
    with pytest.raises(InvalidDataError, match=r"position\(s\) \[9\]") as got_error:
        ic.counterfactual(path, run, ["DCG@10"], propensities=short, buckets=6)
    with pytest.raises(InvalidDataError) as want_error:
        ic.counterfactual(log, run, ["DCG@10"], propensities=short)
    assert str(got_error.value) == str(want_error.value)


@pytest.mark.parametrize(
    "estimator",
    [
        "sips",
        "sniips",
        *(pytest.param(e, marks=pytest.mark.deep) for e in ("iips", "rips", "snsips", "snrips")),
    ],
)
def test_slate_estimators_in_buckets_equal_in_memory(estimator: str) -> None:
    log = slate_log(3, n=300, n_queries=11)
    want = ic.counterfactual(log, estimator=estimator, n_bootstrap=50)  # type: ignore[arg-type]
    got = ic.counterfactual(log.lazy(), estimator=estimator, n_bootstrap=50, buckets=4)  # type: ignore[arg-type]
    assert_same_table(got, want)
    bad = log.with_columns(
        pl.when(pl.col("impression_id") == 7).then(2.0).otherwise(pl.col("pscore")).alias("pscore")
    )
    with pytest.raises(InvalidDataError, match=r"'pscore' has 2\.0 at impression 7"):
        ic.counterfactual(bad.lazy(), estimator="sips", buckets=4)


def test_opensearch_coec_in_buckets_equals_in_memory(bundled: pl.DataFrame) -> None:
    got = _fit(bundled.lazy(), "coec", buckets=4, coec_expected="best_position")
    _assert_same(got, _fit(bundled, "coec", coec_expected="best_position"))


@pytest.mark.parametrize(("call", "reads"), [("sdbn", 3), ("pbm", 3), ("coec", 4), ("pivot", 4), ("ips", 3)])
def test_how_often_each_bucket_is_read(
    clicks_data: irframe.datasets.ClickData, monkeypatch: pytest.MonkeyPatch, call: str, reads: int
) -> None:
    """A bucket's files are read for the row-count probe (their metadata; counted here because
    the counter sits under the scan), the check, then once per aggregation (sdbn, pbm, IPS: one
    aggregation, IPS's in one scan; coec: the whole log's CTR, then the pairs; pivot: the
    queries and the deepest position in one pass, then the intervention sets)."""
    seen: collections.Counter[str] = collections.Counter()
    real = parquet._scan_files

    def counting(files: list[Path], schema: pl.Schema) -> pl.LazyFrame:
        key = files[0].parent.name if files else "none"

        def note(df: pl.DataFrame) -> pl.DataFrame:
            seen[key] += 1
            return df

        return real(files, schema).map_batches(note, streamable=False)

    monkeypatch.setattr(parquet, "_scan_files", counting)
    log = clicks_data.log.lazy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ClickLogWarning)
        if call == "pivot":
            ic.position_bias(log, "pivot", n_bootstrap=0, buckets=4)
        elif call == "ips":
            ic.counterfactual(log, clicks_data.runs, propensities=clicks_data.theta, n_bootstrap=0, buckets=4)
        else:
            ic.click_model(log, call, buckets=4)  # type: ignore[arg-type]
    assert len(seen) == 4
    assert set(seen.values()) == {reads}
