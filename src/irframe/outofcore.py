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

from irframe._backends.parquet import bucket_expr, choose_buckets, evaluate_parquet, parse_bytes

__all__ = ["bucket_expr", "choose_buckets", "evaluate_parquet", "parse_bytes"]
