"""Bigger than memory: a parquet log evaluated one hash bucket of whole queries at a time.

The implementation is :mod:`irframe._backends.parquet`; ``irframe.evaluate("logs/*.parquet",
...)`` reaches it too.

Examples
--------
>>> from irframe.outofcore import parse_bytes
>>> parse_bytes("2GB")
2000000000
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

from irframe._backends.parquet import bucket_expr, choose_buckets, parse_bytes
from irframe.functions import EvaluateOptions, MeasureLike, evaluate_as, with_evaluate_options

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = ["bucket_expr", "choose_buckets", "evaluate_parquet", "parse_bytes"]


@with_evaluate_options
def evaluate_parquet(
    source: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | pl.LazyFrame,
    measures: MeasureLike | Iterable[MeasureLike],
    qrels: Any = None,
    *,
    memory_limit: int | str = "4GB",
    buckets: int | None = None,
    output: str | os.PathLike[str] | None = None,
    tmp_dir: str | os.PathLike[str] | None = None,
    **options: Unpack[EvaluateOptions],
) -> pl.DataFrame | pl.LazyFrame:
    """Evaluate a run larger than memory, hash bucket by hash bucket.

    Parameters
    ----------
    source : path, glob, list of paths, or polars.LazyFrame
        Parquet file(s) (``"logs/*.parquet"``, a directory...) or any lazy frame (e.g.
        ``pl.scan_csv(...)``), scanned in a streaming pass.
    measures
        As for :func:`irframe.evaluate`.
    qrels
        As for :func:`irframe.evaluate`; it may also be a parquet path or glob. It is
        bucketed like the run, so it need not fit in memory either.
    memory_limit : int or str, default "4GB"
        Target peak memory of the process (``"2GB"``, ``"512MiB"``, bytes). It decides the
        number of buckets (:func:`choose_buckets`); settings below ~0.5 GB are not honoured.
    buckets : int, optional
        Force the number of hash buckets (``1``: evaluate in memory at once; at most
        65536, as each bucket holding a query costs a pass).
    output : path, optional
        Write the result (per-query rows or means) to this parquet file and return a
        ``polars.LazyFrame`` scanning it. The file is written beside the target and
        renamed over it: on any error (a full disk) an existing file there is left whole
        and an :class:`~irframe.exceptions.OutputFileError` names the path. A path that is
        one of the inputs (a run or qrels file, a match of their glob, a file inside their
        directory) is refused before anything is read.
    tmp_dir : path, optional
        Where the bucket files go (default: the system temporary directory), in a
        directory of their own (``irframe-spill-<pid>-<random>``). They take about the
        size of the compressed input and are removed at the end; the directory of a run
        killed outright (SIGKILL) is removed by the next run in the same ``tmp_dir``.
    progress : bool or callable, optional
        Report the steps: the size estimate, the bucketing passes, then each bucket
        evaluated (with its rows).  ``True`` shows a bar (tqdm when installed, else one
        line on stderr), ``False`` nothing; a callable gets ``(done, total, info)``.
        Default (None): a bar on a terminal (see :mod:`irframe.progress`).
    queries : pandas or polars DataFrame, optional
        Query attributes keyed by query id, as for :func:`irframe.evaluate` (held in
        memory): a ``by`` column the run lacks is taken from it (else from the qrels) and
        joined onto the run and the qrels as they are scanned.
    **options
        Every other keyword option of :func:`irframe.evaluate` (``by``, ``per_query``,
        ``missing``, the column names, ``duplicates``, ``columns``, ``order``, ``depth``,
        ``weights``), with its default. ``ties`` and the diversity measures give the in-process
        values (each partition composes them). ``weights``: the weights table is read from
        ``queries`` (or the qrels) and joined onto every bucket's per-query rows, whose weighted
        partial sums add up to the in-process means.

    Returns
    -------
    polars.DataFrame, or polars.LazyFrame when ``output`` is given
        Exactly what :func:`irframe.evaluate` returns for the same data as a polars frame.

    Examples
    --------
    >>> import tempfile, pathlib, polars as pl, irframe
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> pl.DataFrame({"query_id": ["q1", "q1", "q2", "q3"], "doc_id": ["a", "b", "c", "d"],
    ...               "score": [2.0, 1.0, 1.0, 1.0]}).write_parquet(d / "run.parquet")
    >>> qrels = pl.DataFrame({"query_id": ["q1", "q2", "q4"], "doc_id": ["b", "c", "z"],
    ...                       "relevance": [1, 1, 1]})
    >>> irframe.evaluate_parquet(d / "*.parquet", ["RR"], qrels, buckets=4)
    shape: (1, 4)
    ┌─────┬───────────┬───────────┬────────────┐
    │ RR  ┆ n_queries ┆ n_missing ┆ n_unjudged │
    │ --- ┆ ---       ┆ ---       ┆ ---        │
    │ f64 ┆ i64       ┆ i64       ┆ i64        │
    ╞═════╪═══════════╪═══════════╪════════════╡
    │ 0.5 ┆ 3         ┆ 1         ┆ 1          │
    └─────┴───────────┴───────────┴────────────┘
    """
    return evaluate_as(  # type: ignore[no-any-return]
        "evaluate_parquet", source, measures, qrels, options, backend="parquet",
        memory_limit=memory_limit, buckets=buckets, output=output, tmp_dir=tmp_dir,
    )  # fmt: skip
