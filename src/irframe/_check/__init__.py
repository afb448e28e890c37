"""The golden-set gate: per-query snapshots, the check built on compare's table, and its reports."""
