"""The Dask tests' local cluster (one per test module)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    """Two worker processes, every service bound to 127.0.0.1."""
    distributed = pytest.importorskip("distributed")
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            # the scheduler's HTTP endpoint always listens (default :8787, taken when
            # another cluster runs); a free port on 127.0.0.1 instead
            dashboard_address="127.0.0.1:0",
        ) as cluster,
        distributed.Client(cluster) as c,
    ):
        yield c
