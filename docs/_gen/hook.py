"""MkDocs hook: generate the reference pages, the guides' pictures and check report at build time.

Loaded by ``hooks:`` in mkdocs.yml. The pages are built from the installed irframe (its measure
registry, ``__all__`` and argument parser), so the reference cannot drift from the code; the
guides' figures are drawn by ``irframe.plotting`` and the check report printed by ``irframe check``
while the site is built (docs/_gen/figures.py, check_example.py); doctest blocks are shown as
console sessions (doctest_blocks.py).
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import api
import check_example
import doctest_blocks
import figures
import measures_page
import performance
from mkdocs.structure.files import File, Files

import cli

_DRAWN: dict[str, bytes] = {}  # the figures drawn for this build (on_files), by name


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


@contextmanager
def _no_convention_warnings() -> Iterator[None]:
    """The pages say each measure's convention in their own text (the measure reference's
    peers column, the guides): the build's own evaluations print no ConventionWarning
    (48 warning blocks in ``mkdocs build``'s output before)."""
    from irframe.exceptions import ConventionWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConventionWarning)
        yield


def on_files(files: Files, config: Any) -> Files:
    with _no_convention_warnings():
        return _with_generated(files, config)


def _with_generated(files: Files, config: Any) -> Files:
    for path, content in generated_pages().items():
        existing = files.get_file_from_path(path)
        if existing is not None:
            files.remove(existing)
        files.append(File.generated(config, path, content=content))
    files.append(File.generated(config, "guides/scaling.png", content=performance.plot_bytes()))
    _DRAWN.clear()
    _DRAWN.update(figures.render_all())
    for name, content in _DRAWN.items():
        files.append(File.generated(config, figures.path(name), content=content))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    depth = page.file.src_uri.count("/")
    markdown = figures.replace_markers(markdown, depth, _DRAWN)
    with _no_convention_warnings():
        markdown = check_example.replace_marker(markdown)
    return doctest_blocks.convert(markdown)
