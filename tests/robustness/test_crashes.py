"""Crashes of round four (issue 43, class "crashes"): inputs that reached polars or pyarrow
before irframe named them now get an IrFrameError at the input boundary, naming the column,
row or file and the fix; each fix, followed, gives the number (hand-computed here).
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import irframe
from irframe.cli import main
from irframe.exceptions import InvalidDataError

# q1 ranks a (score 2) then b (score 1); a is relevant: P@2 = 1/2 (hand)
RUN = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [2.0, 1.0]})
QRELS = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "relevance": [1, 0]})


def _p2(run: object, qrels: object = QRELS) -> float:
    return float(irframe.evaluate(run, ["P@2"], qrels)["P@2"][0])


@pytest.mark.parametrize(
    ("column", "values"),
    [
        ("query_id", pd.period_range("2020-01", periods=1, freq="M").repeat(2)),
        ("doc_id", pd.interval_range(0, 2)),
    ],
    ids=["period query ids", "interval doc ids"],
)
def test_pandas_extension_ids_are_named_and_the_hint_works(column: str, values: object) -> None:
    run = RUN.assign(**{column: values})
    qrels = QRELS.assign(**{column: run[column].astype(str)})
    with pytest.raises(InvalidDataError, match=rf"id column '{column}'.*astype\(str\)"):
        _p2(run, qrels)  # was a polars ComputeError: cannot cast extension types to String
    run[column] = run[column].astype(str)  # the hint
    assert _p2(run, qrels) == 0.5


def test_uuid_object_ids_are_named_and_the_hint_works() -> None:
    import uuid

    ids = [uuid.UUID(int=1), uuid.UUID(int=2)]
    run = RUN.assign(doc_id=pd.Series(ids, dtype=object))
    qrels = QRELS.assign(doc_id=[str(i) for i in ids])
    with pytest.raises(InvalidDataError, match=r"id column 'doc_id' holds bytes.*astype\(str\)"):
        _p2(run, qrels)  # was a polars ComputeError: invalid utf8
    run["doc_id"] = run["doc_id"].astype(str)  # the hint
    assert _p2(run, qrels) == 0.5


def test_an_unused_complex_column_is_named_and_the_hint_works() -> None:
    run = RUN.assign(z=np.array([1 + 2j, 3j]))
    with pytest.raises(InvalidDataError, match=r"'z' \(dtype complex128\).*drop"):
        _p2(run)  # was pyarrow's ArrowNotImplementedError: Unsupported numpy type 15
    assert _p2(run.drop(columns=["z"])) == 0.5


def test_two_arrow_columns_of_one_name_are_named_and_the_hint_works() -> None:
    arrays = [pa.array(["q1", "q1"]), pa.array(["a", "b"]), pa.array([2.0, 1.0]), pa.array([7, 8])]
    table = pa.table(arrays, names=["query_id", "doc_id", "score", "score"])
    with pytest.raises(InvalidDataError, match="several columns named 'score'"):
        _p2(table)  # was polars' DuplicateError
    assert _p2(table.rename_columns(["query_id", "doc_id", "score", "votes"])) == 0.5


def test_a_sheet_grade_written_nan_is_refused_naming_the_row() -> None:
    sheet = pl.DataFrame({"query_id": ["q1"], "doc_id": ["c"], "grade": ["nan"]})
    with pytest.raises(InvalidDataError, match=r"not finite numbers.*\('q1', 'c', 'nan'\)"):
        irframe.add_judgments(pl.from_pandas(QRELS), sheet)  # was a raw polars cast error
    filled = irframe.add_judgments(pl.from_pandas(QRELS), sheet.with_columns(grade=pl.lit("2")))
    assert filled.qrels.filter(pl.col("doc_id") == "c")["relevance"].to_list() == [2]


def test_the_command_line_with_standard_error_closed_keeps_its_exit_codes(tmp_path: Path) -> None:
    qrels, run = tmp_path / "q.txt", tmp_path / "r.txt"
    qrels.write_text("q1 0 a 1\nq1 0 b 0\n")
    run.write_text("q1 Q0 a 1 2.0 r\nq1 Q0 b 2 1.0 r\n")
    saved_err, saved_out = sys.stderr, sys.stdout
    out = io.StringIO()

    def closed(*args: str) -> int:
        sys.stderr = None  # type: ignore[assignment]  # 2>&- : Python's stderr is None
        try:
            return main(list(args))
        finally:
            if sys.stderr is not None:
                sys.stderr.close()  # (the devnull main opened for it)

    try:
        sys.stdout = out
        missing = closed("eval", str(qrels), str(tmp_path / "none.txt"), "-m", "P@2")
        ok = closed("eval", str(qrels), str(run), "-m", "P@2", "-f", "trec")
    finally:
        sys.stderr, sys.stdout = saved_err, saved_out
    assert missing == 2  # a data error, as with stderr open (was "unexpected AttributeError")
    assert ok == 0
    assert "0.5000" in out.getvalue()
