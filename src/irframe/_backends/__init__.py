"""Backends: the registry of native input types and the code that evaluates each.

In process, Dask, Spark, parquet out of core, and the partition function they share.
"""
