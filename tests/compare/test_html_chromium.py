"""Issue 34 item 7: the HTML pages in a real browser (headless Chromium, Debian's ``chromium``):
the page renders (the verdict is in the DOM), nothing is cut or runs off the page at two window
widths (a script measures every element and writes the result into the DOM), and the plots show
(inline SVG elements of non-zero size).  Skips with a message where Chromium is absent."""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import irframe
from irframe.datasets import golden

CHROMIUM = os.environ.get("IRFRAME_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = [
    pytest.mark.deep,  # a browser per page (slow): .ci/run runs -m deep
    pytest.mark.skipif(
        CHROMIUM is None,
        reason="needs headless Chromium (apt-get install chromium, or IRFRAME_CHROMIUM=path)",
    ),
]
pytest.importorskip("matplotlib", reason="the pages' plots need pip install matplotlib")

G = golden()

# Runs at the end of the page: every element (the SVGs' insides aside) must lie within the
# window and hold its content (no scrollWidth beyond its box); the SVGs' sizes.
_PROBE = """<script>
(() => {
  const W = document.documentElement.clientWidth, bad = [];
  const name = (el) => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") +
    (typeof el.className === "string" && el.className ? "." + el.className : "") +
    " " + (el.textContent || "").trim().slice(0, 40);
  for (const el of document.querySelectorAll("body *")) {
    if (el.closest("svg") !== el && el.closest("svg")) continue;
    const r = el.getBoundingClientRect();
    if (r.width > 0 && (r.right > W + 1 || r.left < -1)) bad.push("off the page: " + name(el));
    if (el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1) bad.push("cut: " + name(el));
  }
  const svgs = [...document.querySelectorAll("svg")].map((s) => {
    const r = s.getBoundingClientRect(); return [r.width, r.height];
  });
  const out = document.createElement("pre");
  out.id = "irframe-probe";
  out.textContent = JSON.stringify({width: W, page: document.documentElement.scrollWidth, bad, svgs});
  document.body.appendChild(out);
})();
</script>"""


def _render(page: str, width: int) -> tuple[str, dict[str, Any]]:
    """The DOM Chromium made of ``page`` at ``width`` pixels, and the probe's findings."""
    assert CHROMIUM is not None
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "page.html"
        path.write_text(page.replace("</body>", _PROBE + "\n</body>"), encoding="utf-8")
        args = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                f"--user-data-dir={tmp}/profile", f"--window-size={width},2000", "--dump-dom",
                path.as_uri()]  # fmt: skip
        done = subprocess.run(args, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    dom = done.stdout
    probe = dom.split('<pre id="irframe-probe">')[1].split("</pre>")[0]
    return dom, json.loads(
        probe.replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
    )


@functools.cache
def _check_page() -> str:
    run = lambda name: G.runs.filter(pl.col("system") == name).drop("system")  # noqa: E731
    result = irframe.check(run("dense"), G.qrels, baseline=run("bm25"), queries=G.queries, by="segment",
                           n_permutations=300, n_bootstrap=300)  # fmt: skip
    assert not result.passed
    return result.html_page()


@functools.cache
def _compare_page() -> str:
    qrels = G.qrels.join(G.queries.select("query_id", "segment"), on="query_id")
    report = irframe.compare_report(G.runs, qrels, ["nDCG@10", "RR", "R@100"], baseline="bm25", by="segment",
                                    queries=G.queries, n_permutations=300, n_bootstrap=300)  # fmt: skip
    return report.html_page()


@pytest.mark.parametrize("width", [1400, 1024])
@pytest.mark.parametrize(
    ("make", "verdict", "n_plots"),
    [(_check_page, "FAIL: 1 regression: R@100", 2), (_compare_page, "comparisons significant after Holm", 3)],
)
def test_the_page_renders_whole_with_its_plots(make: Any, verdict: str, n_plots: int, width: int) -> None:
    dom, probe = _render(make(), width)
    assert verdict in dom
    assert "Queries that moved most" in dom
    assert probe["bad"] == []
    assert probe["page"] <= probe["width"]  # no horizontal scrolling
    assert len(probe["svgs"]) == n_plots
    assert all(w > 100 and h > 100 for w, h in probe["svgs"])
    assert all(w <= probe["width"] for w, _ in probe["svgs"])


def test_the_probe_sees_a_cut_and_an_overflow() -> None:
    """The check above can fail: a box too narrow for its text, a block wider than the window."""
    body = (
        '<p class="verdict">FAIL</p><div style="width: 60px; overflow: hidden; white-space: nowrap">'
        'a text much longer than sixty pixels</div><div style="width: 3000px">wide</div>'
    )
    _, probe = _render(f"<!DOCTYPE html><html><body>{body}</body></html>", 1024)
    assert any(b.startswith("cut: div") for b in probe["bad"])
    assert any(b.startswith("off the page: div") for b in probe["bad"])
    assert probe["page"] > probe["width"]
    assert probe["svgs"] == []


def test_hostile_text_stays_text_in_the_browser() -> None:
    hostile = "<script>document.title = 'pwned'</script></table></details><b>bold</b> R&D"
    queries = G.queries.with_columns(pl.lit(hostile).alias("text"))
    run = lambda name: G.runs.filter(pl.col("system") == name).drop("system")  # noqa: E731
    result = irframe.check(run("dense"), G.qrels, baseline=run("bm25"), queries=queries, n_permutations=200)
    dom, probe = _render(result.html_page(), 1400)
    assert "<title>irframe check: candidate vs baseline</title>" in dom  # the script never ran
    assert dom.count("<script") == 1  # the probe's only
    assert "<b>bold</b>" not in dom
    assert "&lt;b&gt;bold&lt;/b&gt; R&amp;D" in dom
    assert probe["bad"] == []
