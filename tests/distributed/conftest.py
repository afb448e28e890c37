"""The Dask tests' schedulers.

``client``: the differential matrix (every case x partition count) runs on Dask's
synchronous scheduler: the same graph, the same partitions and the same irframe code on
every partition, without the cost of shipping each task to a worker process (the matrix
took ~2 min of a 6 min suite on a two-process cluster). ``cluster``: a real two-process
``LocalCluster`` for what only a process boundary shows (the tasks and the errors
pickled, a user measure on a worker, the ``.ir`` accessor's graph); one per module.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture
def client() -> Iterator[None]:
    """Dask's synchronous scheduler for the test (tasks run in this process, in order)."""
    dask = pytest.importorskip("dask")
    with dask.config.set(scheduler="synchronous"):
        yield None


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
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
        ) as local,
        distributed.Client(local) as c,
    ):
        yield c
