"""What the hook does to the pages: doctest blocks as sessions, the figures, the check example."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import check_example
import doctest_blocks
import figures

PAGE = """Intro.

```python
>>> print("a\\n\\nb")  # doctest: +NORMALIZE_WHITESPACE
a
<BLANKLINE>
b

```

```python
import polars as pl  # plain Python, left as it is
```

- in a list:

    ```python
    >>> 1 + 1
    2

    ```
"""


def test_doctest_blocks_become_console_sessions() -> None:
    out = doctest_blocks.convert(PAGE)
    assert '```pycon\n>>> print("a\\n\\nb")\na\n\nb\n```' in out  # no <BLANKLINE>, no directive
    assert "```python\nimport polars as pl" in out
    assert "    ```pycon\n    >>> 1 + 1\n    2\n    ```" in out  # indentation kept
    assert "<BLANKLINE>" not in out
    assert "# doctest:" not in out


def test_figure_markers(monkeypatch: pytest.MonkeyPatch) -> None:
    page = "Text.\n\n<!-- irframe:figure compare-forest -->\n\nMore."
    drawn = figures.replace_markers(page, 1, {"compare-forest": b"<svg/>"})
    assert "![Forest plot" in drawn
    assert "(../img/compare-forest.svg)" in drawn
    assert "<!--" not in drawn
    monkeypatch.setattr(figures, "available", lambda: "this build of the docs had no matplotlib")
    missing = figures.replace_markers(page, 1, {})
    assert '!!! note "Figure not drawn"' in missing
    assert "no matplotlib" in missing
    with pytest.raises(KeyError, match="unknown figure 'nope'"):
        figures.replace_markers("<!-- irframe:figure nope -->", 0, {})


def test_every_figure_draws_as_svg() -> None:
    pytest.importorskip("matplotlib", reason="the figures need pip install matplotlib")
    svg = figures.svg("compare-at-k")
    assert svg.lstrip().startswith(b"<?xml")
    assert b"<svg" in svg
    assert figures.svg("compare-at-k") == svg  # reproducible: no date, fixed ids
    assert set(figures.render_all()) == set(figures.FIGURES)


def test_check_example_is_what_irframe_check_printed() -> None:
    text = check_example.markdown()
    assert text.startswith('```toml title="pyproject.toml"\n[tool.irframe.check]\n')
    assert "irframe check dense.run -f markdown    # every change: exit code 1" in text
    # dense loses R@100 against the bm25 snapshot on the golden set: the report says so
    assert '!!! failure irframe-report "irframe check: FAIL: 1 regression: R@100' in text
    assert "REGRESSION" in text
    assert "baseline 'golden/baseline.snapshot.json'" in text  # relative: no build directory
    assert tempfile.gettempdir() not in text
    assert '<details markdown="1">' in text  # the moved queries' table renders inside
    page = check_example.replace_marker("a\n<!-- irframe:check-example -->\nb")
    assert page.startswith("a\n```toml")
    assert page.endswith("\nb")


_MEASURES_PAGE = "import measures_page\n{wrap}measures_page.page()"


def _generate(wrap: str) -> subprocess.CompletedProcess[str]:
    """The measure reference generated in a fresh interpreter with ConventionWarning as an error."""
    code = _MEASURES_PAGE.format(wrap=wrap)
    cmd = [sys.executable, "-W", "error::irframe.exceptions.ConventionWarning", "-c", code]
    here = Path(__file__).resolve().parent
    return subprocess.run(cmd, capture_output=True, text=True, cwd=here, check=False)


def test_the_build_prints_no_convention_warning() -> None:
    """Issue 45: ``mkdocs build`` printed 48 ConventionWarning blocks (the measure reference
    evaluates every family's example); the hook generates the pages without them (the pages
    say each convention in their own text)."""
    assert "ConventionWarning" in _generate("").stderr  # what the build met
    quiet = _generate("import hook\nwith hook._no_convention_warnings():\n    ")
    assert quiet.returncode == 0, quiet.stderr
