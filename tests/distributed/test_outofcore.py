"""``irframe.evaluate_parquet``: bucket by bucket equals ``irframe.evaluate`` exactly."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

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
from irframe.exceptions import (
    DuplicateRowsError,
    EmptyInputError,
    InvalidParameterError,
    MissingQueriesError,
)
from irframe.outofcore import parse_bytes


def _write(case: Case, tmp_path: Path, files: int = 3) -> Path:
    """The run as ``files`` parquet files (rows of one query spread over several)."""
    run = case.run.sample(fraction=1.0, shuffle=True, seed=0)
    size = -(-run.height // files)
    for i in range(files):
        run.slice(i * size, size).write_parquet(tmp_path / f"part-{i}.parquet")
    return tmp_path


@pytest.mark.parametrize("case", CASES, ids=repr)
@pytest.mark.parametrize("buckets", [1, 3, 64])  # 64: more buckets than queries
def test_per_query_equals_single_machine(case: Case, buckets: int, tmp_path: Path) -> None:
    path = _write(case, tmp_path)
    got = irframe.evaluate_parquet(
        path / "*.parquet", MEASURES, case.qrels, per_query=True, buckets=buckets, **case.kwargs
    )
    assert isinstance(got, pl.DataFrame)
    assert_same_per_query(got, case)
    # sorted by the keys, like irframe.evaluate
    assert got.equals(reference(case, per_query=True))


def test_empty_buckets_are_not_evaluated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bucket without run rows or judgments adds nothing and is skipped: with 4096 buckets
    only those holding a query (of the run or the qrels) are evaluated, one pass each, and the
    first bucket (whose table gives the output's schema)."""
    import irframe._backends.parquet as oc

    calls = []
    real = oc.evaluate_partition

    def counted(run: object, *args: object, **kwargs: object) -> object:
        calls.append(1)
        return real(run, *args, **kwargs)

    monkeypatch.setattr(oc, "evaluate_partition", counted)
    case = CASES[0]
    assert case.qrels is not None
    path = _write(case, tmp_path)
    got = irframe.evaluate_parquet(
        path / "*.parquet", MEASURES, case.qrels, per_query=True, buckets=4096, **case.kwargs
    )
    assert isinstance(got, pl.DataFrame)
    assert got.equals(reference(case, per_query=True))
    queries = pl.concat([case.run.get_column("query_id"), case.qrels.get_column("query_id")]).n_unique()
    assert queries < 100
    assert 1 <= len(calls) <= queries + 1  # (+1: the first bucket gives the schema, even empty)


@pytest.mark.parametrize("case", CASES, ids=repr)
@pytest.mark.parametrize("buckets", [1, 5, 64])
def test_means_equal_single_machine(case: Case, buckets: int, tmp_path: Path) -> None:
    path = _write(case, tmp_path)
    got = irframe.evaluate_parquet(path / "*.parquet", MEASURES, case.qrels, buckets=buckets, **case.kwargs)
    assert isinstance(got, pl.DataFrame)
    assert_same_means(got, case)


@pytest.mark.parametrize("case", CASES[:3], ids=repr)
def test_sources_lazyframe_list_and_qrels_path(case: Case, tmp_path: Path) -> None:
    (tmp_path / "run").mkdir()
    path = _write(case, tmp_path / "run")
    qrels = None
    if case.qrels is not None:
        case.qrels.write_parquet(tmp_path / "qrels.parquet")
        qrels = tmp_path / "qrels.parquet"
    files = sorted(path.glob("*.parquet"))
    for source in (pl.scan_parquet(files), files, [str(f) for f in files]):
        got = irframe.evaluate_parquet(source, MEASURES, qrels, per_query=True, buckets=4, **case.kwargs)
        assert_same_per_query(got, case)  # type: ignore[arg-type]


@pytest.mark.parametrize("per_query", [True, False])
def test_output_file(per_query: bool, tmp_path: Path) -> None:
    case = CASES[2]
    (tmp_path / "log").mkdir()
    path = _write(case, tmp_path / "log")
    out = tmp_path / "result.parquet"  # beside the log: inside it, the next run would read it
    got = irframe.evaluate_parquet(
        path / "*.parquet", MEASURES, case.qrels, per_query=per_query, buckets=4,
        output=out, **case.kwargs,
    )  # fmt: skip
    assert isinstance(got, pl.LazyFrame)
    assert out.exists()
    if per_query:
        assert_same_per_query(got.collect(), case)
        assert pl.read_parquet(out).equals(reference(case, per_query=True))
    else:
        assert_same_means(got.collect(), case)


def test_automatic_bucket_count_keeps_results(tmp_path: Path) -> None:
    # a tiny memory setting forces many buckets (the floor of 16 MiB per bucket)
    case = CASES[0]
    path = _write(case, tmp_path)
    got = irframe.evaluate_parquet(path, MEASURES, case.qrels, per_query=True, memory_limit="1MB")
    assert_same_per_query(got, case)  # type: ignore[arg-type]


def test_errors_match_single_machine(tmp_path: Path) -> None:
    case = CASES[0]
    path = _write(case, tmp_path)
    with pytest.raises(MissingQueriesError, match="missing from the run"):
        irframe.evaluate_parquet(path, MEASURES, case.qrels, missing="error", buckets=3)
    # an empty run is normal (issue 15 item 8): every judged query is missing from it
    empty = irframe.evaluate_parquet(pl.scan_parquet(path).head(0), MEASURES, case.qrels, buckets=3)
    assert case.qrels is not None
    n_judged = case.qrels.get_column("query_id").n_unique()
    assert empty.select("n_queries", "n_missing", "n_unjudged").row(0) == (n_judged, n_judged, 0)
    assert empty.select(MEASURES).row(0) == (0.0,) * len(MEASURES)
    with pytest.raises(EmptyInputError, match="No query of the run is in the qrels"):
        irframe.evaluate_parquet(path, MEASURES, case.qrels.head(0), buckets=3)  # type: ignore[union-attr]
    with pytest.raises(irframe.IrFrameError, match="doc_col"):
        irframe.evaluate_parquet(path, MEASURES, case.qrels, doc_col="docno")
    with pytest.raises(InvalidParameterError, match="'memory_limit' parameter"):
        irframe.evaluate_parquet(path, MEASURES, case.qrels, memory_limit="lots")
    with pytest.raises(InvalidParameterError, match="'buckets' parameter"):
        irframe.evaluate_parquet(path, MEASURES, case.qrels, buckets=0)


@pytest.mark.parametrize("by", [None, "system"])
def test_duplicates_in_several_buckets_are_counted_over_the_whole_log(tmp_path: Path, by: str | None) -> None:
    # issue 34 item 3: out of core the first bucket holding duplicates raised with its own
    # count (15 of the 23 a log held); the error now counts every bucket's, as in memory
    from collections import Counter

    rows = [(f"q{q}", f"d{d}", float(5 - d), d % 2, f"s{q % 2}") for q in range(40) for d in range(5)]
    run = pl.DataFrame(rows, schema=["query_id", "doc_id", "score", "relevance", "system"], orient="row")
    if by is None:
        run = run.drop("system")
    doubled = run.filter(pl.col("doc_id") == "d0").head(23)  # 23 queries, each with one extra row
    log = tmp_path / "log"
    log.mkdir()
    full = pl.concat([run, doubled]).sample(fraction=1.0, shuffle=True, seed=3)
    for i, part in enumerate(full.iter_slices(80)):
        part.write_parquet(log / f"part-{i}.parquet")
    keys = ["query_id", "doc_id"] if by is None else ["system", "query_id", "doc_id"]
    counts = Counter(full.select(keys).iter_rows())  # by hand: 23 extra rows, in 23 queries
    assert sum(n - 1 for n in counts.values()) == 23
    assert len({k[:-1] for k, n in counts.items() if n > 1}) == 23
    with pytest.raises(DuplicateRowsError) as in_memory:
        irframe.evaluate(full, ["RR"], by=by)
    assert "23 duplicate" in str(in_memory.value)
    with pytest.raises(DuplicateRowsError) as out_of_core:
        irframe.evaluate_parquet(log, ["RR"], by=by, buckets=6)
    assert str(out_of_core.value) == str(in_memory.value)


def test_segment_column_not_in_qrels_is_refused_like_evaluate(tmp_path: Path) -> None:
    # "segment" splits the queries but the qrels do not carry it: evaluate refuses
    # missing="zero"; the check needs all buckets, so it is done globally
    case = next(c for c in CASES if c.name == "segment-in-qrels")
    qrels = case.qrels.drop("segment")  # type: ignore[union-attr]
    with pytest.raises(InvalidParameterError, match="look like query attributes") as want:
        irframe.evaluate(case.run, MEASURES, qrels, by="segment")
    path = _write(case, tmp_path)
    for buckets in (1, 4, 64):
        with pytest.raises(InvalidParameterError) as got:
            irframe.evaluate_parquet(path, MEASURES, qrels, by="segment", buckets=buckets)
        assert str(got.value) == str(want.value)


def test_parse_bytes() -> None:
    assert parse_bytes("2GB") == 2 * 10**9
    assert parse_bytes("1.5 GiB") == 3 * 2**29
    assert parse_bytes("512m") == 512 * 2**20
    assert parse_bytes(10) == 10
    for bad in ("", "-1GB", "1XB", 0, -5, True, 1.5):
        with pytest.raises(InvalidParameterError):
            parse_bytes(bad)  # type: ignore[arg-type]


# Peak RSS from VmHWM (this process image only: ru_maxrss would include the pytest parent's
# high-water mark, inherited through fork and kept across exec).
_CHILD = """
import json, re, sys, irframe
means = irframe.evaluate_parquet(sys.argv[1], {measures!r}, qrels=sys.argv[2],
                                 memory_limit=sys.argv[3], buckets=int(sys.argv[4]) or None)
hwm_kb = int(re.search(r"VmHWM:\\s+(\\d+) kB", open("/proc/self/status").read()).group(1))
print(json.dumps({{"peak_mb": hwm_kb / 1024, "means": means.to_dicts()[0]}}))
"""


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads VmHWM (Linux)")
def test_peak_memory_follows_the_setting(tmp_path: Path) -> None:
    """A 1e7-row log (~1.4 GB peak in one pass): "600MB" bounds the peak; same means."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    import outofcore as bench

    data = bench.generate(10_000_000, tmp_path)
    peaks, means = {}, []
    for limit, buckets in (("600MB", 0), ("16GB", 1)):  # buckets=1: all in memory at once
        proc = subprocess.run(
            [sys.executable, "-c", _CHILD.format(measures=MEASURES),
             str(data / "run" / "*.parquet"), str(data / "qrels" / "*.parquet"), limit,
             str(buckets)],
            check=True, capture_output=True, text=True,
        )  # fmt: skip
        record = json.loads(proc.stdout.splitlines()[-1])
        peaks[limit] = record["peak_mb"] * 2**20
        means.append(record["means"])
    assert peaks["600MB"] < parse_bytes("600MB"), peaks
    assert peaks["600MB"] < peaks["16GB"] / 2, peaks
    assert means[0] == pytest.approx(means[1], rel=1e-12)


# --- files that cannot be read, and signals -----------------------------------------------------
def test_unreadable_parquet_inputs_name_the_file(tmp_path: Path) -> None:
    from irframe.io._files import TableFileError
    from irframe.io._source import MissingFileError

    case = CASES[0]
    path = _write(case, tmp_path)
    # a glob matching nothing
    with pytest.raises(MissingFileError, match=r"No file matches .*nope-\*\.parquet"):
        irframe.evaluate_parquet(tmp_path / "nope-*.parquet", MEASURES, case.qrels)
    # a truncated file among good ones
    good = (path / "part-1.parquet").read_bytes()
    (path / "part-1.parquet").write_bytes(good[: len(good) // 2])
    with pytest.raises(TableFileError, match=r"part-1\.parquet.*corrupt, truncated or not a parquet"):
        irframe.evaluate_parquet(path / "*.parquet", MEASURES, case.qrels, buckets=3)
    (path / "part-1.parquet").write_bytes(good)
    # a file that is not parquet at all, as the qrels
    (tmp_path / "qrels.parquet").write_text("query_id doc_id relevance\n")
    with pytest.raises(TableFileError, match=r"qrels file .*qrels\.parquet"):
        irframe.evaluate_parquet(path / "part-*.parquet", MEASURES, tmp_path / "qrels.parquet")
    # files whose schemas differ
    other = pl.read_parquet(path / "part-2.parquet").with_columns(pl.col("score").cast(pl.Float32))
    other.write_parquet(path / "part-2.parquet")
    with pytest.raises(TableFileError, match=r"part-2\.parquet' has column 'score' as Float32"):
        irframe.evaluate_parquet(path / "part-*.parquet", MEASURES, case.qrels)


_SIGNAL_CHILD = """
import signal, sys, time, polars as pl, irframe, irframe._backends.parquet as oc
signal.signal(signal.SIGINT, signal.default_int_handler)  # even if the parent ignores SIGINT
run = pl.DataFrame({"query_id": [f"q{i % 50}" for i in range(5000)],
                    "doc_id": [f"d{i}" for i in range(5000)], "score": [float(i) for i in range(5000)]})
run.write_parquet(sys.argv[1] + "/run.parquet")
real = oc.evaluate_partition
def slow(*args, **kwargs):
    print("spilled", flush=True)   # the buckets are on disk now
    time.sleep(60)
    return real(*args, **kwargs)
oc.evaluate_partition = slow
irframe.evaluate_parquet(sys.argv[1] + "/run.parquet", ["P@5"], run.with_columns(relevance=1),
                         buckets=8, tmp_dir=sys.argv[2])
"""


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("sig", ["SIGTERM", "SIGINT"])
def test_signal_removes_spill_files(tmp_path: Path, sig: str) -> None:
    import signal

    spill = tmp_path / "spill"
    spill.mkdir()
    with subprocess.Popen(
        [sys.executable, "-c", _SIGNAL_CHILD, str(tmp_path), str(spill)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    ) as proc:  # fmt: skip
        assert proc.stdout is not None
        try:
            ready = proc.stdout.readline().strip()
            spilled = any(spill.rglob("*.parquet"))  # the bucket files exist
            proc.send_signal(getattr(signal, sig))
            _, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
    assert ready == "spilled", err
    assert spilled
    if sig == "SIGTERM":
        assert proc.returncode == -signal.SIGTERM, err  # still dies of the signal
    else:
        assert proc.returncode != 0
    assert list(spill.iterdir()) == []
