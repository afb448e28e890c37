"""Dask: ``irframe.evaluate`` on a ``dask.dataframe.DataFrame`` (``pip install "irframe[dask]"``).

The implementation is :mod:`irframe._backends.dask`; importing this module registers
``.ir`` on dask DataFrames (``import irframe`` does it too when ``dask.dataframe`` was
imported first).

Examples
--------
>>> import pandas as pd, dask.dataframe as dd, irframe, irframe.dask
>>> run = dd.from_pandas(pd.DataFrame({
...     "query_id": ["q1", "q1", "q2", "q2"], "doc_id": ["a", "b", "c", "d"],
...     "score": [2.0, 1.0, 2.0, 1.0], "relevance": [0, 1, 1, 0]}), npartitions=2)
>>> irframe.dask.evaluate(run, ["RR"]).compute()
     RR  n_queries  n_missing  n_unjudged
0  0.75          2          0           0
"""

from __future__ import annotations

from irframe._backends.dask import evaluate, is_dask_frame, register

__all__ = ["evaluate", "is_dask_frame", "register"]
