"""``[tool.irframe.check]`` in the user's ``pyproject.toml``: defaults for ``check`` and ``snapshot``.

The file is looked up from the current directory upwards (the first ``pyproject.toml``
found is used).  Paths in the table are relative to that file's directory (they are
handed on, and named in reports, relative to the working directory: a CI runner's
absolute paths never reach a pull-request comment).  Flags given on the command line
override the table.  ``irframe check --help`` prints :func:`config_help`.

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

import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from irframe.exceptions import CliError

__all__ = ["KEYS", "config_help", "find_pyproject", "load_config"]

# key -> (expected type(s), is a path, what it sets, an example value as TOML)
KEYS: dict[str, tuple[tuple[type, ...], bool, str, str]] = {
    "qrels": ((str,), True, "the judgments (QRELS)", '"golden/qrels.txt"'),
    "queries": ((str,), True, "--queries", '"golden/queries.tsv"'),
    "baseline": ((str,), True, "--baseline: a run or a snapshot", '"golden/baseline.snapshot.json"'),
    "measures": ((list, str), False, "-m (one or a list)", '["nDCG@10", "R@100"]'),
    "max_drop": ((int, float), False, "--max-drop", "0.01"),
    "alpha": ((int, float), False, "--alpha", "0.05"),
    "by": ((list, str), False, "--by (one or a list)", '["segment"]'),
    "fail_on": ((str,), False, "--fail-on", '"significant"'),
    "test": ((str,), False, "--test", '"randomization"'),
    "correction": ((str,), False, "--correction", '"holm"'),
    "missing": ((str,), False, "--missing", '"zero"'),
}


def config_help() -> str:
    """The ``[tool.irframe.check]`` table as ``irframe check --help`` shows it (one line per key).

    Examples
    --------
    >>> print(config_help().splitlines()[3])
      qrels = "golden/qrels.txt"                  # the judgments (QRELS)
    """
    lines = [
        "Defaults come from pyproject.toml (the first found from the working directory up, or",
        "--config FILE; --no-config ignores it); flags override them; paths are relative to the file:",
        "[tool.irframe.check]",
    ]
    body = [f"{key} = {example}" for key, (_, _, _, example) in KEYS.items()]
    width = max(map(len, body)) + 2
    lines += [f"  {b:<{width}}# {KEYS[key][2]}" for b, key in zip(body, KEYS, strict=True)]
    return "\n".join(lines)


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
    except UnicodeDecodeError as exc:
        msg = (
            f"{path}: not UTF-8 text (byte {exc.start}: {exc.object[exc.start : exc.start + 1]!r}); "
            "TOML files are UTF-8. Hint: re-save it as UTF-8, or pass --no-config."
        )
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
        types, is_path, _, _ = KEYS[key]
        if isinstance(value, bool) or not isinstance(value, types):
            names = " or ".join("a list" if t is list else t.__name__ for t in types)
            msg = f"{path}: [tool.irframe.check] {key} must be {names}, got {value!r}"
            raise CliError(msg)
        if key in ("measures", "by") and isinstance(value, str):
            value = [value]
        if isinstance(value, list) and not all(isinstance(v, str) for v in value):
            msg = f"{path}: [tool.irframe.check] {key} must be a list of strings, got {value!r}"
            raise CliError(msg)
        if key == "measures" and not value:  # (the gate would run on the default measures)
            msg = (
                f"{path}: [tool.irframe.check] measures = [] names no measure. Hint: list the gated "
                'measures, e.g. measures = ["nDCG@10"], or remove the key for the default ones.'
            )
            raise CliError(msg)
        if is_path and value != "-":
            value = _relative(path.parent / value)
        out[key] = value
    return out


def _relative(path: Path) -> str:
    """``path`` relative to the working directory (as a report names it), else absolute."""
    absolute = path.resolve()
    try:
        return os.path.relpath(absolute)
    except ValueError:  # (another drive, on Windows)
        return str(absolute)


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
    table: Any = _read_toml(path)
    for depth, name in enumerate(("tool", "irframe", "check"), start=1):
        table = table.get(name, {})
        if not isinstance(table, dict):  # e.g. [tool] irframe = 5
            where = ".".join(("tool", "irframe", "check")[:depth])
            msg = f"{path}: {where} must be a table, got {table!r}; irframe reads [tool.irframe.check]"
            raise CliError(msg)
    return _validate(table, path), path
