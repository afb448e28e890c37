"""The site renders its formulas offline: KaTeX from the site itself, checked in headless Chromium.

A small site is built with mkdocs.yml's theme, Markdown extensions, scripts and styles, holding the
generated measure reference (45 families, a display formula each); Chromium loads it from disk with
networking off and dumps the DOM, which must hold KaTeX's output for every formula and no error.
Skipped with a message where Debian's ``chromium`` is not installed (``apt-get install chromium``).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

yaml = pytest.importorskip("yaml", reason="reading mkdocs.yml needs PyYAML (installed with mkdocs)")
pytest.importorskip("mkdocs", reason="building the site needs pip install '.[docs]'")

sys.path.insert(0, str(Path(__file__).resolve().parent))

import measures_page  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
EXTERNAL = re.compile(r"""<(?:script|link|img)\b[^>]*\b(?:src|href)=["']?(?:https?:)?//""", re.IGNORECASE)


class _AnyTagLoader(yaml.SafeLoader):
    """mkdocs.yml may hold !!python/name tags: read them as plain values."""


_AnyTagLoader.add_multi_constructor("", lambda loader, suffix, node: None)


def _config() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.load(
        (ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_AnyTagLoader
    )
    return loaded


def test_the_site_loads_nothing_from_elsewhere() -> None:
    config = _config()
    assert config["theme"].get("font") is False  # else the theme fetches its fonts from a CDN
    for asset in [*config.get("extra_javascript", []), *config.get("extra_css", [])]:
        assert "//" not in str(asset), asset
        assert (DOCS / str(asset)).is_file(), asset
    css = (DOCS / "javascripts/vendor/katex/katex.min.css").read_text(encoding="utf-8")
    fonts = re.findall(r"url\(([^)]+)\)", css)
    assert fonts
    assert all((DOCS / "javascripts/vendor/katex" / f).is_file() for f in fonts)  # every font is here


# a doctest session and a shell session, as the guides show them (docs/_gen/doctest_blocks.py)
SESSIONS = """# Sessions

```pycon
>>> import polars as pl
>>> x = [1,
...      2]
>>> x
[1, 2]
>>> print("a\\n\\nb")
a
<BLANKLINE>
b
```

```console
$ irframe eval qrels.txt run.txt -m P_5
system  P_5
$ echo done
done
```

```python
y = 1  # no prompt: copied as it is
```
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A site with the project's look and the measure reference, built without the hook."""
    root = tmp_path_factory.mktemp("site")
    docs = root / "docs"
    (docs / "reference").mkdir(parents=True)
    for folder in ("javascripts", "stylesheets"):
        shutil.copytree(DOCS / folder, docs / folder)
    (docs / "reference" / "measures.md").write_text(measures_page.page(), encoding="utf-8")
    (docs / "index.md").write_text(
        "# Formulas\n\nInline $1/\\log_2(i + 1)$ and\n\n$$\nP@k = \\frac{1}{k}\n$$\n"
    )
    (docs / "session.md").write_text(SESSIONS, encoding="utf-8")
    config = _config()
    small = {
        key: config[key]
        for key in ("site_name", "theme", "markdown_extensions", "extra_javascript", "extra_css")
    }
    small["markdown_extensions"] = [e for e in small["markdown_extensions"] if "snippets" not in str(e)]
    (root / "mkdocs.yml").write_text(yaml.safe_dump(small), encoding="utf-8")
    subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "-q", "--site-dir", str(root / "site")],
        cwd=root,
        check=True,
        env={"NO_MKDOCS_2_WARNING": "1", "PATH": "/usr/bin:/bin", "PYTHONPATH": ":".join(sys.path)},
    )
    return root / "site"


def _dom(page: Path, tmp_path: Path) -> str:
    if CHROMIUM is None:
        pytest.skip("rendering the formulas needs Debian's chromium (apt-get install chromium)")
    result = subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--proxy-server=127.0.0.1:9",  # no network: anything fetched from elsewhere fails
            f"--user-data-dir={tmp_path / 'profile'}",
            "--virtual-time-budget=10000",
            "--dump-dom",
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return result.stdout


def test_formulas_render_offline_in_chromium(site: Path, tmp_path: Path) -> None:
    html = (site / "reference" / "measures" / "index.html").read_text(encoding="utf-8")
    assert not EXTERNAL.search(html), EXTERNAL.search(html)
    n_display = html.count('<div class="arithmatex">')
    assert n_display >= 40  # one formula per family (infAP has none)
    dom = _dom(site / "reference" / "measures" / "index.html", tmp_path)
    assert dom.count('class="katex-display"') == n_display  # every display formula, typeset
    assert 'class="katex-mathml"' in dom  # KaTeX's output (MathML for screen readers, HTML shown)
    assert "katex-error" not in dom  # no formula KaTeX could not read
    assert "#cc0000" not in dom  # nor an unknown command (KaTeX shows it in its error colour)
    assert "\\frac{" not in re.sub(r"<annotation[^>]*>.*?</annotation>", "", dom, flags=re.DOTALL)


def test_inline_and_display_math_on_a_page(site: Path, tmp_path: Path) -> None:
    dom = _dom(site / "index.html", tmp_path)
    assert dom.count('class="katex-display"') == 1
    assert dom.count('class="katex"') == 2  # the inline formula and the display one


def test_the_copy_button_copies_the_code_without_prompts_and_output(site: Path, tmp_path: Path) -> None:
    """Issue 45: the copy button copied ``>>>`` prompts and the printed output; mkdocs-material
    copies a block's ``data-copy`` (docs/javascripts/copy.js sets it, checked here in Chromium)."""
    import html as html_lib

    dom = _dom(site / "session" / "index.html", tmp_path)
    copied = [html_lib.unescape(c) for c in re.findall(r'data-copy="([^"]*)"', dom)]
    assert copied == [
        'import polars as pl\nx = [1,\n     2]\nx\nprint("a\\n\\nb")',
        "irframe eval qrels.txt run.txt -m P_5\necho done",
    ]  # the plain Python block has no prompt: no data-copy, its own text is copied
    bundle = next((site / "assets" / "javascripts").glob("bundle.*.min.js")).read_text(encoding="utf-8")
    assert 'closest("[data-copy]")' in bundle  # where mkdocs-material's copy button reads it
