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

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from irframe._backends.dask import is_dask_frame, register
from irframe.functions import EvaluateOptions, MeasureLike, evaluate_as, with_evaluate_options

if TYPE_CHECKING:
    import dask.dataframe as dd
    from typing_extensions import Unpack

__all__ = ["evaluate", "is_dask_frame", "register"]


@with_evaluate_options
def evaluate(
    run: dd.DataFrame,
    measures: MeasureLike | Iterable[MeasureLike],
    qrels: Any = None,
    *,
    npartitions: int | None = None,
    **options: Unpack[EvaluateOptions],
) -> dd.DataFrame:
    """Evaluate a dask DataFrame run; a lazy dask DataFrame comes back.

    ``irframe.evaluate(ddf, ...)`` and ``ddf.ir.evaluate(...)`` call this.

    Parameters
    ----------
    run : dask.dataframe.DataFrame
        Long format, as for :func:`irframe.evaluate`; a query's rows may be spread over
        any partitions.
    measures
        As for :func:`irframe.evaluate`.
    qrels : dask, pandas or polars DataFrame, optional
        A dask frame is shuffled onto the run's partitions; a local frame is split by
        bucket on the client and sent to the partitions (each gets its own judgments).
    npartitions : int, optional
        Partitions after the shuffle (default: the run's). More partitions than queries
        is fine: the extra ones are empty.
    queries : dask, pandas or polars DataFrame, optional
        Query attributes keyed by query id, as for :func:`irframe.evaluate`: a ``by``
        column the run lacks is taken from it (else from the qrels), checked for one value
        per query when ``evaluate`` is called (a dask frame is computed: it is small), and
        joined onto the run's partitions (and the qrels) before the shuffle.
    **options
        Every other keyword option of :func:`irframe.evaluate` (``by``, ``per_query``,
        ``missing``, the column names, ``duplicates``, ``columns``, ``order``, ``depth``,
        ``weights``), with its default. ``ties`` and the diversity measures give the in-process
        values (each partition composes them). ``weights``: the weights table is built on the
        client, from a queries table or the qrels computed for it, and sent to every partition,
        whose weighted partial sums add up to the in-process means.

    Returns
    -------
    dask.dataframe.DataFrame
        ``per_query=True``: the key columns and one float64 column per measure, one row
        per (by-group, query) in one partition, in the natural order of the query ids
        (``q2`` before ``q10``) as on every backend.
        ``per_query=False``: one partition with the means and query counts of
        :func:`irframe.evaluate`.  Values equal :func:`irframe.evaluate`'s exactly per
        query.  Input errors surface on ``compute()``, except those of query attributes
        (``queries``, or a ``by`` column only the qrels carry), checked when ``evaluate``
        is called.
    """
    return evaluate_as(  # type: ignore[no-any-return]
        "irframe.dask.evaluate", run, measures, qrels, options, backend="dask", npartitions=npartitions
    )
