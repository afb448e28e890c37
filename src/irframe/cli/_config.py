"""``[tool.irframe.check]`` in the user's ``pyproject.toml``: defaults for ``check`` and ``snapshot``.

The file is looked up from the current directory upwards (the first ``pyproject.toml``
found is used).  Paths in the table are relative to that file's directory.  Flags
given on the command line override the table.

Example::

    [tool.irframe.check]
    qrels = "golden/qrels.txt"
    queries = "golden/queries.tsv"
    baseline = "golden/baseline.snapshot.json"
    measures = ["nDCG@10", "R@100"]
    max_drop = 0.01
    alpha = 0.05
    by = ["segment"]
    fail_on = "significant"
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from irframe.cli._common import CliError

__all__ = ["KEYS", "find_pyproject", "load_config"]

# key -> (expected type(s), is a path)
KEYS: dict[str, tuple[tuple[type, ...], bool]] = {
    "qrels": ((str,), True),
    "queries": ((str,), True),
    "baseline": ((str,), True),
    "measures": ((list, str), False),
    "max_drop": ((int, float), False),
    "alpha": ((int, float), False),
    "by": ((list, str), False),
    "fail_on": ((str,), False),
    "test": ((str,), False),
    "correction": ((str,), False),
    "missing": ((str,), False),
}


def find_pyproject(start: Path | None = None) -> Path | None:
    """The first ``pyproject.toml`` in ``start`` (default: the cwd) or its parents."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


def _read_toml(path: Path) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        try:
            import tomli as tomllib
        except ImportError:
            msg = f"reading {path} needs Python 3.11 or the 'tomli' package; or pass --no-config"
            raise CliError(msg) from None
    try:
        with path.open("rb") as fh:
            return dict(tomllib.load(fh))
    except tomllib.TOMLDecodeError as exc:
        msg = f"{path}: invalid TOML ({exc})"
        raise CliError(msg) from None


def _validate(table: Mapping[str, Any], path: Path) -> dict[str, Any]:
    from irframe.exceptions import closest

    out: dict[str, Any] = {}
    for key, raw in table.items():
        value = raw
        if key not in KEYS:
            near = closest(key, KEYS)
            hint = f"; did you mean {near[0]!r}?" if near else f"; known keys: {', '.join(KEYS)}"
            msg = f"{path}: unknown key {key!r} in [tool.irframe.check]{hint}"
            raise CliError(msg)
        types, is_path = KEYS[key]
        if isinstance(value, bool) or not isinstance(value, types):
            names = " or ".join("a list" if t is list else t.__name__ for t in types)
            msg = f"{path}: [tool.irframe.check] {key} must be {names}, got {value!r}"
            raise CliError(msg)
        if key in ("measures", "by") and isinstance(value, str):
            value = [value]
        if is_path:
            value = str((path.parent / value).resolve()) if value != "-" else value
        out[key] = value
    return out


def load_config(explicit: str | None = None, *, enabled: bool = True) -> tuple[dict[str, Any], Path | None]:
    """The validated ``[tool.irframe.check]`` table and the file it came from."""
    if not enabled:
        return {}, None
    path = Path(explicit) if explicit else find_pyproject()
    if path is None:
        return {}, None
    if not path.is_file():
        msg = f"the config file {str(path)!r} does not exist"
        raise CliError(msg)
    data = _read_toml(path)
    table = data.get("tool", {}).get("irframe", {}).get("check", {})
    if not isinstance(table, dict):
        msg = f"{path}: [tool.irframe.check] must be a table"
        raise CliError(msg)
    return _validate(table, path), path
