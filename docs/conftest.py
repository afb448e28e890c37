"""pytest setup for the guides' code blocks (run as doctests: ``pytest docs --doctest-glob='*.md'``)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _in_tmp_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each page runs in its own empty directory, so files a guide writes go nowhere else."""
    monkeypatch.chdir(tmp_path)
