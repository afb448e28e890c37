"""asv benchmarks of irframe: the engine's stages, the TREC reader and compare (1e5 / 1e6 rows).

The data comes from ``benchmarks/synth.py`` (seeded; cached as parquet and TREC files under
``benchmarks/.cache/``), the same as the side-by-side harness ``benchmarks/run.py``.

asv's runner rebuilds ``sys.path`` and drops ``PYTHONPATH``.  With ``--python=same`` (no
environment built, irframe imported from the running interpreter) set ``IRFRAME_ASV_SRC`` to a
``src`` folder to benchmark that copy of irframe, e.g. a work tree's:
``IRFRAME_ASV_SRC=$PWD/../../src asv run --python=same --quick``.  Leave it unset for
``asv run`` / ``asv continuous`` with built environments (they install each commit).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

# benchmarks/ (synth.py, contenders.py) is two levels up: benchmarks/asv/suite/__init__.py
BENCH_DIR = Path(__file__).resolve().parents[2]
for _p in (str(BENCH_DIR), os.environ.get("IRFRAME_ASV_SRC")):
    if _p and _p not in sys.path:
        sys.path.insert(0, _p)
