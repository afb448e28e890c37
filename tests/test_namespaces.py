"""`.ir` is registered on pandas and dask frames whether they are imported before or after
irframe, and importing irframe imports neither."""

from __future__ import annotations

import subprocess
import sys

import pytest


def _run(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return out.stdout.strip()


def test_import_irframe_imports_no_frame_library() -> None:
    code = "import sys, irframe; print(sorted(m for m in ('pandas', 'dask') if m in sys.modules))"
    assert _run(code) == "[]"


@pytest.mark.parametrize("order", ["irframe first", "pandas first"])
def test_pandas_accessor_either_import_order(order: str) -> None:
    imports = "import irframe, pandas as pd" if order == "irframe first" else "import pandas as pd, irframe"
    code = (
        f"{imports}; df = pd.DataFrame({{'query_id': ['q'] * 2, 'doc_id': ['a', 'b'], "
        "'rank': [1, 2], 'relevance': [0, 1]}); print(df.ir.mrr()['RR'].tolist())"
    )
    assert _run(code) == "[0.5]"  # first relevant at rank 2


@pytest.mark.parametrize("order", ["irframe first", "dask first"])
def test_dask_accessor_either_import_order(order: str) -> None:
    pytest.importorskip("dask.dataframe")
    imports = (
        "import irframe, dask.dataframe as dd, pandas as pd"
        if order == "irframe first"
        else "import dask.dataframe as dd, pandas as pd, irframe"
    )
    code = (
        f"{imports}; pdf = pd.DataFrame({{'query_id': ['q'] * 2, 'doc_id': ['a', 'b'], "
        "'rank': [1, 2], 'relevance': [0, 1]}); ddf = dd.from_pandas(pdf, npartitions=1); "
        "print(ddf.ir.evaluate(['RR']).compute()['RR'].tolist())"
    )
    assert _run(code) == "[0.5]"
