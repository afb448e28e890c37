"""Issue 12 items 5 (queries=, --queries) and 8 (progress=)."""

from __future__ import annotations

import io
import re
from pathlib import Path

import polars as pl
import pytest

import irframe
from irframe.cli import main
from irframe.datasets import golden
from irframe.exceptions import InvalidDataError, InvalidParameterError
from irframe.progress import reporter

G = golden()
GOLDEN_DIR = Path(G.paths.qrels).parent


def _reference() -> dict[tuple[str, str | None], float]:
    """Means per (system, segment) computed outside the by= code: per query, then grouped here
    (segment None: over every query, compare's overall row)."""
    pq = irframe.evaluate(G.runs, ["nDCG@10"], G.qrels, by="system", per_query=True)
    rows = pq.join(G.queries.select("query_id", "segment"), on="query_id").iter_rows(named=True)
    sums: dict[tuple[str, str | None], list[float]] = {}
    for r in rows:
        sums.setdefault((r["system"], r["segment"]), []).append(r["nDCG@10"])
        sums.setdefault((r["system"], None), []).append(r["nDCG@10"])
    return {k: sum(v) / len(v) for k, v in sums.items()}


def test_evaluate_queries_by_attribute(constructor) -> None:  # type: ignore[no-untyped-def]
    run = constructor(G.runs.to_dict(as_series=False))
    got = irframe.evaluate(run, ["nDCG@10"], G.qrels, by=["system", "segment"], queries=G.queries)
    from _support.helpers import to_polars

    ref = _reference()
    table = to_polars(got)
    assert table.height == 9
    for r in table.iter_rows(named=True):
        assert r["nDCG@10"] == pytest.approx(ref[(r["system"], r["segment"])], abs=1e-12)


def test_by_column_only_in_the_qrels_is_accepted() -> None:
    qrels = G.qrels.join(G.queries.select("query_id", "segment"), on="query_id")
    got = irframe.evaluate(G.runs, ["nDCG@10"], qrels, by=["system", "segment"])
    ref = _reference()
    for r in got.iter_rows(named=True):
        assert r["nDCG@10"] == pytest.approx(ref[(r["system"], r["segment"])], abs=1e-12)


def test_queries_errors_name_columns_not_internals() -> None:
    bad = pl.concat([G.queries, G.queries.head(1).with_columns(pl.lit("other").alias("segment"))])
    with pytest.raises(InvalidDataError) as info:
        irframe.evaluate(G.runs, ["RR"], G.qrels, by=["system", "segment"], queries=bad)
    assert "'q01'" in str(info.value)
    with pytest.raises(irframe.IrFrameError) as info2:
        irframe.evaluate(G.runs, ["RR"], G.qrels, by=["system", "segmnt"], queries=G.queries)
    assert "did you mean 'segment'" in str(info2.value)
    for exc in (info, info2):
        assert "__ir" not in str(exc.value)


def test_compare_takes_queries() -> None:
    runs = {name: G.runs.filter(pl.col("system") == name).drop("system") for name in ("bm25", "hybrid")}
    t = irframe.compare(runs, G.qrels, ["nDCG@10"], by="segment", queries=G.queries, n_permutations=200)
    ref = _reference()
    overall = irframe.evaluate(G.runs, ["nDCG@10"], G.qrels, by="system")
    ref.update({(s, None): v for s, v in overall.select("system", "nDCG@10").iter_rows()})  # overall
    for r in t.iter_rows(named=True):
        assert r["mean"] == pytest.approx(ref[("hybrid", r["segment"])], abs=1e-12)
        assert r["baseline_mean"] == pytest.approx(ref[("bm25", r["segment"])], abs=1e-12)


def test_cli_queries_reproduce_the_demo_segment_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo"]) == 0
    demo = capsys.readouterr().out
    block = demo.split("nDCG@10 by query segment")[1].split("\n\n")[0].splitlines()[1:]
    header = block[0].split()[1:]
    shown = {
        (ln.split()[0], seg): v.rstrip("*")
        for ln in block[1:]
        for seg, v in zip(header, ln.split()[1:], strict=True)
    }
    runs = sorted(str(p) for p in (GOLDEN_DIR / "runs").glob("*.run"))
    args = ["eval", str(GOLDEN_DIR / "qrels.txt"), *runs, "--queries", str(GOLDEN_DIR / "queries.tsv")]
    assert main([*args, "--by", "segment", "-m", "nDCG@10", "-f", "tsv"]) == 0
    got = pl.read_csv(io.StringIO(capsys.readouterr().out), separator="\t")
    assert got.height == len(shown) == 9
    for r in got.iter_rows(named=True):
        assert f"{r['nDCG@10']:.4f}" == shown[(r["system"], r["segment"])]


def test_progress_callable_gets_done_total_info(tmp_path: Path) -> None:
    calls: list[tuple[int, int, str]] = []
    runs = {
        name: G.runs.filter(pl.col("system") == name).drop("system") for name in ("bm25", "dense", "hybrid")
    }
    irframe.compare(runs, G.qrels, ["RR", "AP"], n_permutations=100, progress=lambda *a: calls.append(a))
    # one step for the systems evaluated (the comparisons are counted then), one per comparison
    assert [c[:2] for c in calls] == [(1, 1), (2, 5), (3, 5), (4, 5), (5, 5)]
    assert [c[2] for c in calls] == ["evaluated 3 systems", "dense RR", "dense AP", "hybrid RR", "hybrid AP"]
    G.runs.write_parquet(tmp_path / "runs.parquet")
    calls.clear()
    irframe.evaluate_parquet(str(tmp_path / "runs.parquet"), ["RR"], G.qrels, by="system", buckets=3,
                             progress=lambda *a: calls.append(a))  # fmt: skip
    # the total grows as the steps learn what follows; done counts up to it, one per step
    assert [c[0] for c in calls] == list(range(1, len(calls) + 1))
    assert calls[-1][1] == len(calls)
    assert all(c[1] <= calls[-1][1] for c in calls)
    rows = [c[2] for c in calls if c[2].startswith("bucket ")]
    assert [r.split(":")[0] for r in rows] == ["bucket 1/3", "bucket 2/3", "bucket 3/3"]
    assert sum(int(r.split(": ")[1].split(" rows")[0].replace(",", "")) for r in rows) == G.runs.height
    with pytest.raises(InvalidParameterError, match="progress"):
        irframe.compare(runs, G.qrels, ["RR"], progress="yes")  # type: ignore[arg-type]


def test_progress_true_writes_one_updating_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "tqdm" else real(name, *a)
    )
    with reporter(True, 2, "work") as step:
        step("a")
        step("b")
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert re.findall(r"work: (\d)/2", err) == ["1", "2"]
