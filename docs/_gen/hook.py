"""MkDocs hook: generate the measure, API and CLI reference pages at build time.

Loaded by ``hooks:`` in mkdocs.yml. The pages are built from the installed irframe (its measure
registry, ``__all__`` and argument parser), so the reference cannot drift from the code.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import api
import measures_page
import performance
from mkdocs.structure.files import File, Files

import cli


def generated_pages() -> dict[str, str]:
    """Every generated page: ``{path under docs/: markdown}``."""
    pages = {
        "reference/measures.md": measures_page.page(),
        "reference/cli.md": cli.page(),
        "guides/performance.md": performance.page(),
    }
    pages.update(api.pages())
    return pages


def _api_nav(nav: list[Any]) -> bool:
    """Replace the nav's ``API`` entry (wherever it is) with the generated page list."""
    for item in nav:
        if isinstance(item, dict):
            for key, value in item.items():
                if key == "API":
                    item[key] = api.nav()
                    return True
                if isinstance(value, list) and _api_nav(value):
                    return True
    return False


def on_config(config: Any) -> Any:
    if config.nav is not None and not _api_nav(config.nav):
        msg = "mkdocs.yml's nav has no 'API' entry for the generated API pages"
        raise RuntimeError(msg)
    return config


def on_files(files: Files, config: Any) -> Files:
    for path, content in generated_pages().items():
        existing = files.get_file_from_path(path)
        if existing is not None:
            files.remove(existing)
        files.append(File.generated(config, path, content=content))
    files.append(File.generated(config, "guides/scaling.png", content=performance.plot_bytes()))
    return files
