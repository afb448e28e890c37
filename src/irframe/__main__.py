"""``python -m irframe``: the same as the ``irframe`` command."""

from __future__ import annotations

from irframe.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
