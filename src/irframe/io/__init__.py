"""Reading and writing runs and judgments: TREC text files and generic tables.

Examples
--------
>>> import io
>>> from irframe.io import read_trec_qrels
>>> read_trec_qrels(io.StringIO("q1 0 d1 1\\n")).shape
(1, 3)
"""

from __future__ import annotations

from irframe.io._source import TrecFormatError
from irframe.io.sheets import read_judging_sheet, write_judging_sheet, write_qrels_stub
from irframe.io.tables import read_table, scan_table
from irframe.io.trec import (
    read_trec_qrels,
    read_trec_run,
    read_trec_runs,
    write_trec_qrels,
    write_trec_run,
)

__all__ = [
    "TrecFormatError",
    "read_judging_sheet",
    "read_table",
    "read_trec_qrels",
    "read_trec_run",
    "read_trec_runs",
    "scan_table",
    "write_judging_sheet",
    "write_qrels_stub",
    "write_trec_qrels",
    "write_trec_run",
]
