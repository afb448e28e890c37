"""Table files that cannot be read: each error is an IrFrameError naming the file (and line)."""

from __future__ import annotations

import gzip
from pathlib import Path

import polars as pl
import pytest

from irframe.exceptions import IrFrameError
from irframe.io import read_table, scan_table
from irframe.io._files import TableFileError
from irframe.io._source import MissingFileError

LOG = pl.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["a", "b", "c"], "relevance": [1, 0, 2]})


def _parquet(path: Path, df: pl.DataFrame = LOG) -> Path:
    df.write_parquet(path)
    return path


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda good: good[: len(good) // 2], id="truncated"),
        pytest.param(lambda good: b"query_id,doc_id\n1,a\n", id="csv-named-parquet"),
        pytest.param(lambda good: b"", id="empty"),
        pytest.param(lambda good: b"PAR1" + b"\x00" * 64 + good[-8:], id="garbage-with-magic"),
    ],
)
@pytest.mark.parametrize("reader", [read_table, scan_table])
def test_bad_parquet_names_the_file(tmp_path: Path, make: object, reader: object) -> None:
    good = _parquet(tmp_path / "good.x").read_bytes()
    path = tmp_path / "bad.parquet"
    path.write_bytes(make(good))  # type: ignore[operator]
    with pytest.raises(TableFileError) as info:
        reader(path)  # type: ignore[operator]
    assert "bad.parquet" in str(info.value)
    assert "parquet" in str(info.value)


def test_schema_mismatch_between_files(tmp_path: Path) -> None:
    _parquet(tmp_path / "part-0.parquet")
    _parquet(tmp_path / "part-1.parquet", LOG.with_columns(pl.col("relevance").cast(pl.Float64)))
    for reader in (read_table, scan_table):
        with pytest.raises(TableFileError) as info:
            reader(tmp_path / "*.parquet")
        msg = str(info.value)
        assert "part-1.parquet" in msg
        assert "'relevance' as Float64 (not Int64)" in msg


def test_glob_of_several_files(tmp_path: Path) -> None:
    _parquet(tmp_path / "part-0.parquet", LOG.head(2))
    _parquet(tmp_path / "part-1.parquet", LOG.tail(1))
    assert read_table(tmp_path / "*.parquet").sort("doc_id").rows() == LOG.rows()
    assert read_table(str(tmp_path / "part-*.parquet")).height == 3


def test_glob_matching_nothing(tmp_path: Path) -> None:
    for reader in (read_table, scan_table):
        with pytest.raises(MissingFileError, match=r"No file matches .*nothing-\*\.parquet") as info:
            reader(tmp_path / "nothing-*.parquet")
        assert isinstance(info.value, IrFrameError)
        assert isinstance(info.value, FileNotFoundError)


@pytest.mark.parametrize("compress", [False, True])
def test_malformed_json_line_names_file_and_line(tmp_path: Path, compress: bool) -> None:
    text = '{"query_id": "1", "doc_id": "a"}\n\n{"query_id": "1", "doc_id": "b"\n{"query_id": "2"}\n'
    path = tmp_path / ("log.jsonl.gz" if compress else "log.jsonl")
    path.write_bytes(gzip.compress(text.encode()) if compress else text.encode())
    with pytest.raises(TableFileError) as info:
        read_table(path)
    msg = str(info.value)
    assert msg.startswith(f"{path}:3: malformed JSON line"), msg
    assert '\'{"query_id": "1", "doc_id": "b"\'' in msg


def test_json_line_that_is_not_an_object(tmp_path: Path) -> None:
    path = tmp_path / "log.ndjson"
    path.write_text('{"query_id": "1"}\n[1, 2]\n')
    with pytest.raises(TableFileError, match=r"log\.ndjson:2: malformed JSON line: a JSON list"):
        read_table(path)


def test_ragged_csv_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "log.csv"
    path.write_text("query_id,doc_id,relevance\n1,a,1\n1,b,1,extra,more\n")
    with pytest.raises(TableFileError, match=r"log\.csv"):
        read_table(path)
