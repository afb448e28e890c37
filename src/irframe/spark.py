"""Spark: ``irframe.spark.evaluate`` on a ``pyspark.sql.DataFrame``.

Install with ``pip install "irframe[spark]"`` (Java 17).

The implementation is :mod:`irframe._backends.spark`: ``repartition`` by query, then
``mapInArrow`` with :func:`irframe.partition.evaluate_partition`; the partitions' sums
(or per-query rows) are finished in one task, by the rules every backend shares.
"""

from __future__ import annotations

from irframe._backends.spark import evaluate, is_spark_frame

__all__ = ["evaluate", "is_spark_frame"]
