"""Backends: the registry of native input types and the code that evaluates each.

In process (:mod:`~irframe._backends.local`); the partitioned ones -- Dask, Spark, parquet
out of core -- are their primitives on one skeleton (:mod:`~irframe._backends.skeleton`)
around the partition function they share (:mod:`~irframe._backends.partition`).
"""
