"""Issue 12 item 10: exit codes 1/2, 4 decimals by default, natural per-query order on every backend."""

from __future__ import annotations

import io
from pathlib import Path

import polars as pl
import pytest

import irframe
from _support.helpers import to_polars
from irframe.cli import main
from irframe.datasets import golden

G = golden()
QRELS = str(G.paths.qrels)
BM25 = str(G.paths.runs["bm25"])


def test_data_errors_and_usage_errors_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # issue 34's one contract: data errors exit 2 like usage errors (issue 12 had made them 1)
    assert main(["eval", QRELS, BM25, "-m", "nDGC@10"]) == 2  # measure error
    assert main(["eval", QRELS, str(tmp_path / "none.run")]) == 2  # data error: no such file
    (tmp_path / "bad.run").write_text("q01 Q0 a\n")
    assert main(["eval", QRELS, str(tmp_path / "bad.run")]) == 2  # malformed line
    assert main(["eval", "-", "-"]) == 2  # usage: two inputs from stdin
    # issue 34: main returns argparse's usage code (it raised SystemExit)
    assert main(["eval", QRELS, BM25, "--missing", "maybe"]) == 2  # argparse: unknown choice
    capsys.readouterr()


def test_tsv_and_csv_print_four_decimals_by_default(capsys: pytest.CaptureFixture[str]) -> None:
    for fmt, sep in (("tsv", "\t"), ("csv", ",")):
        assert main(["eval", QRELS, BM25, "-m", "AP", "-m", "nDCG@10", "-f", fmt]) == 0
        out = capsys.readouterr().out
        header, row = out.splitlines()[:2]
        values = dict(zip(header.split(sep), row.split(sep), strict=True))
        for m in ("AP", "nDCG@10"):
            whole, _, decimals = values[m].partition(".")
            assert whole == "0", values[m]
            assert 1 <= len(decimals) <= 4, values[m]
    assert main(["eval", QRELS, BM25, "-m", "AP", "-f", "json"]) == 0
    got = pl.read_json(io.StringIO(capsys.readouterr().out))
    want = irframe.evaluate(irframe.read_trec_run(BM25), ["AP"], G.qrels)
    assert got["AP"][0] == pytest.approx(want["AP"][0], abs=1e-15)  # json keeps every digit
    assert got["AP"][0] != round(got["AP"][0], 4)


RUN = {
    "query_id": ["q10", "q10", "q2", "q9", "q1", "q1"],
    "doc_id": ["a", "b", "a", "a", "a", "b"],
    "score": [2.0, 1.0, 1.0, 1.0, 2.0, 1.0],
}
QRELS_FRAME = pl.DataFrame(
    {"query_id": ["q1", "q2", "q9", "q10", "q11"], "doc_id": ["a"] * 5, "relevance": [1] * 5}
)
NATURAL = ["q1", "q2", "q9", "q10", "q11"]  # q11 missing from the run: scored 0


def test_per_query_rows_in_natural_order(constructor) -> None:  # type: ignore[no-untyped-def]
    got = to_polars(irframe.evaluate(constructor(RUN), ["RR"], QRELS_FRAME, per_query=True))
    assert got["query_id"].to_list() == NATURAL


def test_numeric_string_ids_sort_numerically() -> None:
    run = pl.DataFrame({"query_id": ["10", "9", "100"], "doc_id": ["a"] * 3, "rank": [1] * 3,
                        "relevance": [1] * 3})  # fmt: skip
    got = irframe.evaluate(run, ["RR"], per_query=True)
    assert got["query_id"].to_list() == ["9", "10", "100"]


def test_dask_and_parquet_give_the_same_order(tmp_path: Path) -> None:
    dd = pytest.importorskip("dask.dataframe")
    import pandas as pd

    ddf = dd.from_pandas(pd.DataFrame(RUN), npartitions=3)
    got = irframe.evaluate(ddf, ["RR"], QRELS_FRAME, per_query=True).compute()
    assert got["query_id"].to_list() == NATURAL
    pl.DataFrame(RUN).write_parquet(tmp_path / "run.parquet")
    got2 = irframe.evaluate(str(tmp_path / "run.parquet"), ["RR"], QRELS_FRAME, per_query=True)
    assert to_polars(got2)["query_id"].to_list() == NATURAL
