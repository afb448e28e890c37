"""Every skip says what enables the test it skips (issue 45): one rule, applied by conftest's hooks.

A skip for a missing Python package names the ``pip install`` extra that brings it (read from
pyproject.toml's optional dependencies); a skip for missing shared data or tools names
``IRFRAME_SHARED_DIR``; a skip that already names its variable, extra or package command is
left as it is.  CONTRIBUTING.md says how to run the full suite with all of them.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from _support.helpers import SHARED_DIR

__all__ = ["enabling"]

ROOT = Path(__file__).resolve().parents[2]
# distribution names whose import name is not the name with "-" as "_"
_IMPORT_NAMES = {
    "scikit-learn": "sklearn", "pytrec-eval-terrier": "pytrec_eval", "ppi-python": "ppi_py",
    "cwl-eval": "cwl", "pyyaml": "yaml", "mkdocs-material": "material",
}  # fmt: skip
_SAID = ("IRFRAME_", "pip install", "apt-get", "[oracles]", "[test]", ".[")
_MODULE = re.compile(r"could not import '([\w.]+)'")


@cache
def _extras() -> dict[str, str]:
    """Import name -> the first extra of pyproject.toml that lists its distribution."""
    try:
        import tomllib
    except ImportError:  # pragma: no cover - Python 3.10: no reader, no extra named
        return {}
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    out: dict[str, str] = {}
    for extra, requirements in extras.items():
        if extra == "dev":
            continue
        for requirement in requirements:
            dist = re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0].lower()
            out.setdefault(_IMPORT_NAMES.get(dist, dist.replace("-", "_")), extra)
    return out


def enabling(reason: str) -> str:
    """``reason`` with what enables the skipped test, when it does not say it already.

    Examples
    --------
    >>> enabling("could not import 'ranx': No module named 'ranx'")
    "could not import 'ranx': No module named 'ranx' (enable: pip install -e '.[oracles]')"
    >>> enabling("IRFRAME_TREC_EVAL is not set") == "IRFRAME_TREC_EVAL is not set"
    True
    """
    if any(s in reason for s in _SAID):
        return reason
    found = _MODULE.search(reason)
    if found is not None:
        extra = _extras().get(found[1].split(".")[0])
        if extra is not None:
            return f"{reason} (enable: pip install -e '.[{extra}]')"
        return reason
    if str(SHARED_DIR) in reason or "../shared" in reason or "shared/" in reason:
        return (
            f"{reason} (enable: IRFRAME_SHARED_DIR=/path/to/shared, the folder CI has beside the repository)"
        )
    return reason
