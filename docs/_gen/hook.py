"""MkDocs hook: generate the measure, API and CLI reference pages at build time.

Loaded by ``hooks:`` in mkdocs.yml. The pages are built from the installed irframe (its measure
registry, ``__all__`` and argument parser), so the reference cannot drift from the code.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import api  # noqa: E402
import cli  # noqa: E402
import measures_page  # noqa: E402
from mkdocs.structure.files import File, Files  # noqa: E402


def generated_pages() -> dict[str, str]:
    """Every generated page: ``{path under docs/: markdown}``."""
    pages = {"reference/measures.md": measures_page.page(), "reference/cli.md": cli.page()}
    pages.update(api.pages())
    return pages


def on_files(files: Files, config: Any) -> Files:
    for path, content in generated_pages().items():
        existing = files.get_file_from_path(path)
        if existing is not None:
            files.remove(existing)
        files.append(File.generated(config, path, content=content))
    return files
