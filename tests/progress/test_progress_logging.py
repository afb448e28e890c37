"""Issue 34 item 6: progress on by default where someone watches (a terminal), off elsewhere
or when asked, never refused; ``logging.getLogger("irframe")`` records what was done: the
sizes, the executor, the buckets, the rows and queries a documented rule left out."""

from __future__ import annotations

import io
import logging
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import irframe
from irframe import progress as progress_mod
from irframe._engine import buckets as engine_buckets
from irframe.exceptions import InvalidParameterError

# q1: 3 documents (d2 relevant at rank 2), q2: 2 documents (none judged relevant),
# q3: in the run, not judged; q4: judged, missing from the run
RUN = pl.DataFrame({
    "query_id": ["q1", "q1", "q1", "q2", "q2", "q3"],
    "doc_id": ["d1", "d2", "d3", "d4", "d5", "d6"],
    "rank": [1, 2, 3, 1, 2, 1],
})  # fmt: skip
QRELS = pl.DataFrame({
    "query_id": ["q1", "q1", "q2", "q4"], "doc_id": ["d2", "d9", "d4", "d7"], "relevance": [1, 1, 0, 1],
})  # fmt: skip


def _messages(caplog: pytest.LogCaptureFixture, logger: str) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == logger and r.levelno == logging.INFO]


def test_nothing_is_logged_by_default(caplog: pytest.LogCaptureFixture) -> None:
    """The library sets no level: the ``irframe`` loggers inherit WARNING, nothing at INFO."""
    caplog.set_level(logging.WARNING)
    irframe.evaluate(RUN, ["RR"], QRELS, depth=2)
    assert not [r for r in caplog.records if r.name.startswith("irframe")]
    assert any(isinstance(h, logging.NullHandler) for h in logging.getLogger("irframe").handlers)


def test_info_records_the_size_executor_and_queries_left_out(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="irframe")
    irframe.evaluate(RUN, ["RR", "P@2"], QRELS)
    plan, queries = _messages(caplog, "irframe.engine")
    assert plan.startswith("evaluating 6 run rows, 2 measures (RR, P@2): executor '")
    assert plan.endswith("in one pass")
    # 3 run queries, 3 judged (q1, q2, q4); q3 has no judgment, q4 is not in the run
    assert queries.startswith("3 queries in the run, 3 judged (qrels)")
    assert "1 run queries without judgments" in queries
    assert "1 judged queries missing from the run (missing='zero': scored 0)" in queries


def test_info_counts_the_rows_depth_and_duplicates_leave_out(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="irframe")
    irframe.evaluate(RUN, ["RR"], QRELS, depth=1)  # q1 keeps 1 of 3 rows, q2 1 of 2, q3 1 of 1
    assert "depth=1: 3 of 6 run rows below the depth left out" in _messages(caplog, "irframe.engine")
    caplog.clear()
    repeated = pl.concat(
        [RUN, RUN.filter(pl.col("doc_id") == "d2").with_columns(rank=pl.lit(5, dtype=pl.Int64))]
    )
    with pytest.warns(irframe.exceptions.DuplicatesWarning, match="dropped 1 of 7 run rows"):
        irframe.evaluate(repeated, ["RR"], QRELS, duplicates="first")
    found = [m for m in _messages(caplog, "irframe.engine") if m.startswith("duplicates=")]
    assert found == [
        "duplicates='first': 1 repeated (query_id, doc_id) rows left out, the best-ranked of each kept"
    ]


def test_info_records_the_buckets_out_of_core(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    RUN.write_parquet(tmp_path / "run.parquet")
    caplog.set_level(logging.INFO, logger="irframe")
    irframe.evaluate_parquet(tmp_path / "run.parquet", ["RR"], QRELS, memory_limit="1GB")
    text = "\n".join(_messages(caplog, "irframe.backends"))
    assert "the run is 1 parquet file(s)" in text
    assert "6 run rows" in text
    assert "1 bucket(s) under memory_limit=1000000000 B" in text
    assert "evaluating on out-of-core (parquet): 1 measures (RR)" in text


def test_info_records_compare_and_check(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="irframe")
    other = RUN.with_columns(rank=pl.col("rank").reverse().over("query_id"))
    irframe.compare({"a": RUN, "b": other}, QRELS, ["RR"], n_permutations=50)
    (line,) = _messages(caplog, "irframe.compare")
    assert line.startswith("compared 2 systems (a, b) on 1 measure(s): 1 comparisons, randomization test")
    irframe.check(other, QRELS, baseline=RUN, measures=["RR"], n_permutations=50)
    (line,) = _messages(caplog, "irframe.check")
    assert line.startswith("check: candidate")
    assert "1 comparisons, 0 queries left out" in line


def test_auto_is_off_without_a_terminal() -> None:
    assert progress_mod.auto(io.StringIO()) is False
    assert progress_mod.wanted(None, large=True) is False  # (pytest captures stderr: no TTY)
    assert progress_mod.wanted(True, large=False) is True
    assert progress_mod.wanted(False) is False


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_auto_is_on_on_a_terminal_for_large_work_only(monkeypatch: pytest.MonkeyPatch) -> None:
    assert progress_mod.auto(_Tty()) is True
    monkeypatch.setattr(progress_mod, "auto", lambda stream=None: True)
    assert progress_mod.wanted(None, large=True) is True
    assert progress_mod.wanted(None, large=False) is False
    assert progress_mod.wanted(False, large=True) is False  # asked off


def _no_tqdm(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "tqdm" else real(name, *a)
    )


def test_default_progress_shows_on_a_terminal_above_the_size(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _no_tqdm(monkeypatch)
    monkeypatch.setattr(progress_mod, "auto", lambda stream=None: True)
    monkeypatch.setattr(progress_mod, "AUTO_DELAY", 0.0)
    irframe.evaluate(RUN, ["RR"], QRELS)  # 6 rows: below AUTO_ROWS, nothing
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(engine_buckets, "AUTO_ROWS", 5)
    irframe.evaluate(RUN, ["RR"], QRELS)
    assert capsys.readouterr().err.strip().startswith("evaluating: 1/1 6 rows, 4 queries")
    irframe.evaluate(RUN, ["RR"], QRELS, progress=False)  # asked off
    assert capsys.readouterr().err == ""
    # the evaluations inside snapshot, check and compare are their steps, never bars of their own
    snap = irframe.snapshot(RUN, QRELS, ["RR"], progress=False)
    irframe.check(RUN, QRELS, baseline=snap, measures=["RR"], n_permutations=50, progress=False)
    irframe.compare({"a": RUN, "b": RUN}, QRELS, ["RR"], n_permutations=50, progress=False)
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("kind", ["polars", "lazy", "pandas"])
def test_progress_true_is_refused_for_no_in_memory_frame(
    kind: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _no_tqdm(monkeypatch)
    run: Any = {"polars": RUN, "lazy": RUN.lazy()}.get(kind)
    if kind == "pandas":
        run = pytest.importorskip("pandas", reason="needs pip install pandas").DataFrame(
            RUN.to_dict(as_series=False)
        )
    got = irframe.evaluate(run, ["RR"], QRELS, per_query=True, progress=True)
    got = pl.from_pandas(got) if kind == "pandas" else got.lazy().collect()
    assert got.sort("query_id")["RR"].to_list() == [
        0.5,
        0.0,
        None,
        0.0,
    ]  # q1: 1/2; q2: 0; q3: no judgment; q4: 0
    err = capsys.readouterr().err
    if kind != "lazy":  # (a LazyFrame is computed when collected: no step to report)
        assert "evaluating: 1/1 6 rows" in err
    for fn in (irframe.ndcg, irframe.mrr):
        fn(run, qrels=QRELS, progress=True)
    with pytest.raises(InvalidParameterError, match="progress"):
        irframe.evaluate(run, ["RR"], QRELS, progress="yes")  # type: ignore[arg-type]


def test_buckets_in_memory_report_their_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    """A step per bucket with its rows (they add up to the run's) and one for the checks."""
    monkeypatch.setattr(engine_buckets, "BUCKET_ROWS", 2)
    calls: list[tuple[int, int, str]] = []
    got = irframe.evaluate(RUN, ["RR"], QRELS, per_query=True, progress=lambda *a: calls.append(a))
    assert got.sort("query_id")["RR"].to_list() == [0.5, 0.0, None, 0.0]
    n = 3  # ceil(6 / 2)
    assert [c[:2] for c in calls] == [(i, n + 1) for i in range(1, n + 2)]
    rows = [int(c[2].split(": ")[1].split(" rows")[0]) for c in calls[:n]]
    assert sum(rows) == RUN.height
    assert calls[-1][2] == "checked 4 queries"  # q1, q2, q3 and q4 (missing: scored 0)


@pytest.mark.parametrize("quiet", [True, False])
def test_the_cli_passes_no_bar_when_quiet_or_not_on_a_terminal(
    quiet: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Even where the library's default would draw a bar, ``irframe eval/check/snapshot``
    draw none with ``--quiet``, nor when stderr is not a terminal (pytest captures it)."""
    from irframe.cli import main

    _no_tqdm(monkeypatch)
    monkeypatch.setattr(progress_mod, "auto", lambda stream=None: True)
    monkeypatch.setattr(progress_mod, "AUTO_DELAY", 0.0)
    monkeypatch.setattr(engine_buckets, "AUTO_ROWS", 0)
    RUN.with_columns(score=-pl.col("rank").cast(pl.Float64)).write_csv(tmp_path / "run.csv")
    QRELS.write_csv(tmp_path / "qrels.csv")
    files = [str(tmp_path / "qrels.csv"), str(tmp_path / "run.csv")]
    flags = ["--quiet"] if quiet else []
    assert main(["eval", *files, "-m", "RR", *flags]) == 0
    assert main(["snapshot", *files, "-m", "RR", "-o", str(tmp_path / "snap.json"), *flags]) == 0
    assert main(["check", *files, "-b", str(tmp_path / "snap.json"), "-m", "RR", *flags]) == 0
    err = capsys.readouterr().err
    assert "evaluating:" not in err
    assert "checking:" not in err
    assert "snapshot:" not in err
