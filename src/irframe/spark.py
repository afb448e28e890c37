"""Spark: ``irframe.spark.evaluate`` on a ``pyspark.sql.DataFrame``.

Install with ``pip install "irframe[spark]"`` (Java 17).

The implementation is :mod:`irframe._backends.spark`: ``repartition`` by query, then
``mapInArrow`` with :func:`irframe.partition.evaluate_partition`; the means come from
Spark's own group-by.
"""

from __future__ import annotations

from irframe._backends.spark import evaluate, is_spark_frame

__all__ = ["evaluate", "is_spark_frame"]
