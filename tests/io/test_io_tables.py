"""Generic table readers: parquet, CSV, TSV, JSON lines, with a column mapping."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from irframe.exceptions import ColumnNotFoundError, InvalidParameterError
from irframe.io import read_table, scan_table

LOG = pl.DataFrame({"qid": [301, 301, 302], "docno": ["d1", "d2", "d3"], "label": [2, 0, 1]})
EXPECTED = pl.DataFrame(
    {"query_id": ["301", "301", "302"], "doc_id": ["d1", "d2", "d3"], "relevance": [2, 0, 1]}
)
MAPPING = {"qid": "query_id", "docno": "doc_id", "label": "relevance"}


def _save(df: pl.DataFrame, path: Path) -> Path:
    name = path.name
    if name.endswith((".parquet", ".pq")):
        df.write_parquet(path)
    elif name.endswith(".csv"):
        df.write_csv(path)
    elif name.endswith((".tsv", ".tab")):
        df.write_csv(path, separator="\t")
    elif name.endswith((".jsonl", ".ndjson")):
        df.write_ndjson(path)
    elif name.endswith(".json"):
        df.write_json(path)
    return path


@pytest.mark.parametrize(
    "name", ["log.parquet", "log.pq", "log.csv", "log.tsv", "log.tab", "log.jsonl", "log.ndjson", "log.json"]
)
def test_formats_and_mapping(tmp_path: Path, name: str) -> None:
    path = _save(LOG, tmp_path / name)
    assert_frame_equal(read_table(path, columns=MAPPING), EXPECTED)
    assert_frame_equal(scan_table(path, columns=MAPPING).collect(), EXPECTED)


def test_format_override(tmp_path: Path) -> None:
    path = tmp_path / "log.data"
    LOG.write_csv(path, separator="\t")
    with pytest.raises(InvalidParameterError, match="format="):
        read_table(path)
    assert_frame_equal(read_table(path, columns=MAPPING, format="tsv"), EXPECTED)
    with pytest.raises(InvalidParameterError, match="'format' parameter"):
        read_table(path, format="xlsx")  # type: ignore[arg-type]


def test_ids_are_strings_without_mapping(tmp_path: Path) -> None:
    path = tmp_path / "run.csv"
    path.write_text("query_id,doc_id,score\n1,007,0.5\n")
    df = read_table(path)
    assert df.row(0) == ("1", "007", 0.5)  # leading zeros kept: read as text, not cast back


def test_missing_column_names_file_and_column(tmp_path: Path) -> None:
    path = _save(LOG, tmp_path / "log.parquet")
    with pytest.raises(ColumnNotFoundError) as info:
        read_table(path, columns={"query": "query_id"})
    msg = str(info.value)
    assert "log.parquet" in msg
    assert "'query'" in msg
    assert "qid" in msg  # lists / suggests the available column


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"nope\.csv"):
        read_table(tmp_path / "nope.csv")


def test_compressed_csv(tmp_path: Path) -> None:
    import gzip

    path = tmp_path / "log.csv.gz"
    path.write_bytes(gzip.compress(LOG.write_csv().encode()))
    assert_frame_equal(read_table(path, columns=MAPPING), EXPECTED)
