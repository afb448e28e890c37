"""The impression log's column roles and checks (``irframe._input.logs``), each error followed."""

from __future__ import annotations

import polars as pl
import pytest

from irframe._input.logs import LogColumns, canonical_log, check_log, is_click, log_columns
from irframe.exceptions import ColumnNotFoundError, DuplicateRowsError, EmptyInputError, InvalidDataError

ROWS = {
    "impression_id": [1, 1, 2, 2],
    "query_id": ["q", "q", "q", "q"],
    "doc_id": ["a", "b", "b", "a"],
    "position": [1, 2, 1, 2],
    "clicked": [0, 2, 1, 0],
}


def _checked(rows: dict[str, list[object]]) -> pl.DataFrame:
    lf = pl.LazyFrame(rows)
    cols = log_columns(lf.collect_schema())
    return check_log(canonical_log(lf, cols), cols)


def test_counts_and_the_click_rule() -> None:
    out = _checked(ROWS)
    assert out.row(0, named=True) == {"n_rows": 4, "n_impressions": 2, "n_clicked_impressions": 2}
    clicks = canonical_log(pl.LazyFrame(ROWS), LogColumns()).select(is_click()).collect()
    assert clicks.to_series().to_list() == [0, 1, 1, 0]  # a count of 2 is one clicked row


def test_did_you_mean_and_the_fix() -> None:
    renamed = pl.DataFrame(ROWS).rename({"position": "rank", "impression_id": "serp"})
    with pytest.raises(ColumnNotFoundError, match="position_col='rank'"):
        log_columns(renamed.schema, impression_col="serp")
    cols = log_columns(renamed.schema, impression_col="serp", position_col="rank")
    out = check_log(canonical_log(renamed.lazy(), cols), cols)
    assert out["n_rows"][0] == 4
    with pytest.raises(ColumnNotFoundError, match="system_col"):
        log_columns(pl.DataFrame(ROWS).schema, extra={"system": "system"})


@pytest.mark.parametrize(
    ("change", "error", "match"),
    [
        ({"position": [0, 1, 1, 2]}, InvalidDataError, "positions start at 1.*\\+ 1"),
        ({"position": [1, 1, 1, 2]}, DuplicateRowsError, "position 1 twice in impression 1"),
        ({"query_id": ["q", "r", "q", "q"]}, InvalidDataError, "impression 1 has rows of 2 queries"),
        ({"clicked": [0, -1, 1, 0]}, InvalidDataError, "negative value in impression 1"),
        ({"doc_id": ["a", None, "b", "a"]}, InvalidDataError, "'doc_id' has nulls"),
        ({"impression_id": [1, None, 2, 2]}, InvalidDataError, "impression column 'impression_id' has nulls"),
    ],
)
def test_bad_rows_are_named(change: dict[str, list[object]], error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        _checked(ROWS | change)


def test_the_fix_of_zero_based_positions_gives_the_same_counts() -> None:
    zero = pl.DataFrame(ROWS | {"position": [0, 1, 0, 1]})
    fixed = zero.with_columns(pl.col("position") + 1)
    assert _checked(fixed.to_dict(as_series=False)).equals(_checked(ROWS))


def test_dtypes_and_empty() -> None:
    with pytest.raises(InvalidDataError, match="integer positions"):
        log_columns(pl.DataFrame(ROWS | {"position": [1.0, 2.0, 1.0, 2.0]}).schema)
    with pytest.raises(InvalidDataError, match="0/1, a bool or a click count"):
        log_columns(pl.DataFrame(ROWS | {"clicked": ["y", "n", "y", "n"]}).schema)
    with pytest.raises(EmptyInputError):
        _checked({k: [] for k in ROWS} | {"position": pl.Series([], dtype=pl.Int64)})  # type: ignore[dict-item]
