"""A gate that never lies (issue 35, class 1): a regression never passes, whatever the report
format or the sink it is written to; only a check that compared something can pass.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import irframe
from _support.helpers import examples
from irframe.cli import main
from irframe.datasets import golden, golden_paths
from irframe.exceptions import EmptyInputError, InvalidDataError

G = golden()
P = golden_paths()
BM25 = G.runs.filter(pl.col("system") == "bm25").drop("system")
DENSE = G.runs.filter(pl.col("system") == "dense").drop("system")
QUERY_IDS = sorted(BM25["query_id"].unique().to_list())
FAST = {"n_permutations": 200, "n_bootstrap": 200}


def _sunk(query_ids: list[str]) -> pl.DataFrame:
    """bm25 with each listed query's ranking reversed (its relevant documents sink)."""
    flip = pl.col("query_id").is_in(query_ids)
    return BM25.with_columns(pl.when(flip).then(-pl.col("score")).otherwise("score").alias("score"))


def test_every_view_of_a_failed_check_says_it_failed() -> None:
    result = irframe.check(DENSE, G.qrels, baseline=BM25)
    assert not result.passed
    assert result.exit_code == 1
    assert result.report().startswith("FAIL")
    assert result.report(ascii=True).startswith("FAIL")
    assert str(result).startswith("FAIL")
    assert result.to_markdown().startswith("### ❌ irframe check: FAIL")
    data = result.to_dict()
    assert data["passed"] is False
    assert data["verdict"].startswith("FAIL")
    assert json.loads(json.dumps(data))["passed"] is False


@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
def test_the_command_line_exits_1_on_a_regression_in_every_format(
    fmt: str, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = {s: str(P.runs[s]) for s in ("bm25", "dense")}
    assert (
        main(["check", str(P.qrels), runs["dense"], "--baseline", runs["bm25"], "-f", fmt, "--no-config"])
        == 1
    )
    assert "FAIL" in capsys.readouterr().out


def test_a_regression_written_to_a_reader_that_went_away_does_not_exit_0() -> None:
    args = ["check", str(P.qrels), str(P.runs["dense"]), "--baseline", str(P.runs["bm25"]), "-f", "markdown"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.Popen([sys.executable, "-m", "irframe", *args, "--no-config"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)  # fmt: skip
    assert proc.stdout is not None
    proc.stdout.close()  # `check ... | true`: the reader is gone before the report is written
    assert proc.wait(timeout=120) == 3  # the report was not written: not 0 (pass), not 1 (regression)


def test_a_check_over_no_query_fails_as_a_data_error() -> None:
    snap = irframe.snapshot(BM25, G.qrels, ["RR"])
    regraded = G.qrels.with_columns(pl.col("relevance") + 1)
    with pytest.raises(
        EmptyInputError, match="compared no query on RR: the 40 queries whose judgments changed"
    ):
        irframe.check(BM25, regraded, baseline=snap, allow_changed_qrels=True)
    dropped = irframe.snapshot(BM25, G.qrels, ["RR"], missing="drop")
    others = BM25.with_columns((pl.lit("elsewhere-") + pl.col("query_id")).alias("query_id"))
    with pytest.raises(EmptyInputError, match="compared no query on RR: no query has a value on both sides"):
        irframe.check(others, G.qrels, baseline=dropped, n_moved=0)


def test_a_snapshot_without_values_is_refused_when_taken_and_when_read(tmp_path: Path) -> None:
    elsewhere = G.qrels.with_columns((pl.lit("other-") + pl.col("query_id")).alias("query_id"))
    with pytest.raises(InvalidDataError, match="no query has a value for RR"):
        irframe.snapshot(BM25, elsewhere, ["RR"], missing="drop")
    text = irframe.snapshot(BM25, G.qrels, ["RR"]).to_json()
    data = json.loads(text)
    for entry in data["queries"].values():
        entry["RR"] = None
    (tmp_path / "null.json").write_text(json.dumps(data))
    with pytest.raises(InvalidDataError, match="no value for RR"):
        irframe.check(BM25, G.qrels, baseline=tmp_path / "null.json")


@settings(max_examples=examples(12), deadline=None)
@given(
    sunk=st.sets(st.sampled_from(QUERY_IDS), max_size=12),
    fail_on=st.sampled_from(["any-drop", "significant"]),
)
def test_a_check_passes_exactly_when_no_row_is_a_drop_the_rule_fails(sunk: set[str], fail_on: str) -> None:
    result = irframe.check(_sunk(sorted(sunk)), G.qrels, baseline=BM25, measures=["RR", "nDCG@10"],
                           fail_on=fail_on, n_moved=0, **FAST)  # type: ignore[arg-type]  # fmt: skip
    rows = result.comparisons.iter_rows(named=True)
    failing = [r for r in rows if r["delta"] is not None and r["delta"] < 0 and
               (fail_on == "any-drop" or r["p_adjusted"] < 0.05)]  # fmt: skip
    assert result.passed == (not failing)
    assert result.exit_code == (1 if failing else 0)
    assert result.to_dict()["passed"] == result.passed
    assert result.report().startswith("PASS" if result.passed else "FAIL")
    if not sunk:  # the baseline against itself
        assert result.passed
