"""Text that breaks reports (issue 35, class 6): user text is text in every format.

Query texts, query ids, system names and measure-free segment values carrying HTML,
Markdown, LaTeX and control characters go through every renderer (the check report as
text and Markdown, the comparison report as text, Markdown, HTML and LaTeX); each output
is checked for the structure it must keep: no control character on a terminal, one fold
and table cells that stay cells in Markdown, only irframe's own tags in HTML, only
irframe's own commands in LaTeX.  The escaping functions themselves are checked on any text.
"""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import irframe
from _support.helpers import examples
from _support.online_logs import ab_log
from irframe import online
from irframe._compare import compare_report
from irframe._escape import html as html_text
from irframe._escape import latex, markdown, terminal
from irframe.datasets import golden

HOSTILE = [
    "</details><script>alert(1)</script>",
    "cell | split | me",
    "line one\nline two",
    "carriage\rreturn",
    "\x1b[2J\x1b[31mred alert",
    "right-to-left \u202e override",
    "$\\input{/etc/passwd}$ & 100% _x_ #1 {y} ~ ^",
    "![pixel](http://example.invalid/p.png) **bold** `code` [link](x)",
    "<img src=x onerror=alert(1)>",
    "tab\there\x00nul\x7fdel",
]
G = golden()
IDS = sorted(G.qrels["query_id"].unique().to_list())
RENAME = {q: f"{q} {text}" for q, text in zip(IDS, HOSTILE, strict=False)}  # hostile query ids too


def _renamed(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.with_columns(pl.col("query_id").replace(RENAME))


RUNS = _renamed(G.runs)
QRELS = _renamed(G.qrels)
QUERIES = _renamed(G.queries).with_columns(
    pl.Series("text", [HOSTILE[i % len(HOSTILE)] for i in range(G.queries.height)]),
    pl.Series("segment", [HOSTILE[i % 3] for i in range(G.queries.height)]),
)
SYSTEMS = {"bm25": "<b>bm25</b> | $x$ \\ \x1b[0m", "dense": "dense\r\n<script>", "hybrid": "hybrid & 50% {"}


def _run(system: str) -> pl.DataFrame:
    return RUNS.filter(pl.col("system") == system).drop("system")


CHECK = irframe.check(_run("dense"), QRELS, baseline=_run("bm25"), queries=QUERIES, by="segment",
                      n_permutations=500, n_bootstrap=500)  # fmt: skip
COMPARE = compare_report({SYSTEMS[s]: _run(s) for s in SYSTEMS}, QRELS, ["RR", "nDCG@10"], by="segment",
                         queries=QUERIES, n_permutations=500, n_bootstrap=500)  # fmt: skip
EVERY_PAIR = compare_report({SYSTEMS[s]: _run(s) for s in SYSTEMS}, QRELS, ["RR"], pairs="all",
                            n_permutations=500, n_bootstrap=500)  # fmt: skip
# an A/B test whose treatment arm and segments are hostile names (the online reports)
ONLINE = online.compare_report(
    ab_log(60).with_columns(pl.col("arm").replace({"B": SYSTEMS["bm25"]}),
                            pl.col("device").replace({"mobile": HOSTILE[0], "desktop": HOSTILE[1]})),
    "CTR", control="A", by="device",
)  # fmt: skip


def test_the_hostile_text_is_in_the_reports() -> None:
    assert CHECK._moved.height > 0  # (else nothing is tested)
    assert CHECK._moved["text"].is_in(HOSTILE).any()
    assert not CHECK.passed


# --- terminal -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "out",
    [
        CHECK.report(),
        CHECK.report(ascii=True),
        COMPARE.to_text(),
        COMPARE.to_text(ascii=True),
        EVERY_PAIR.to_text(),
        ONLINE.to_text(),
    ],
    ids=["check", "check-ascii", "compare", "compare-ascii", "every-pair", "online"],
)
def test_a_terminal_report_sends_no_control_character(out: str) -> None:
    bad = {c for c in out if c != "\n" and not c.isprintable()}
    assert not bad, bad
    assert "\\x1b" in out  # shown, escaped


# --- markdown -----------------------------------------------------------------------------
def _cells(line: str) -> int:
    """The number of cell separators of a Markdown table line (pipes not escaped)."""
    return len(re.findall(r"(?<!\\)(?:\\\\)*\|", line))


def _tables_keep_their_cells(md: str) -> None:
    counts: list[int] = []
    for line in [*md.splitlines(), ""]:
        if line.startswith("|"):
            counts.append(_cells(line))
        elif counts:
            assert len(set(counts)) == 1, counts  # every row has the header's cells
            counts = []


@pytest.mark.parametrize(
    "md", [CHECK.to_markdown(), COMPARE.to_markdown(details=True), EVERY_PAIR.to_markdown(),
           ONLINE.to_markdown()],
    ids=["check", "compare", "every-pair", "online"],
)  # fmt: skip
def test_markdown_keeps_its_folds_tables_and_lines(md: str) -> None:
    assert "\r" not in md
    assert md.count("<details>") == md.count("</details>") <= 1
    for raw in ("<script", "<img", "</details><", "<b>", "]("):
        assert raw not in md.replace("\\<", "").replace("\\]", ""), raw
    assert not re.search(r"(?<!\\)<(?!/?(details|summary)>)", md)  # no other tag starts
    _tables_keep_their_cells(md)
    assert {c for c in md if c != "\n" and not c.isprintable()} == set()


# --- html ---------------------------------------------------------------------------------
class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: set[str] = set()
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)  # (attributes: irframe's own, the markers' and the wide tables' classes)
        assert attrs in ([], [("class", "irframe-comparison")], [("class", "wide")], [("class", "mark-up")],
                         [("class", "mark-down")]), (tag, attrs)  # fmt: skip

    def handle_data(self, data: str) -> None:
        self.text.append(data)


@pytest.mark.parametrize("report", [COMPARE, EVERY_PAIR], ids=["compare", "every-pair"])
def test_html_holds_only_irframes_own_tags(report: object) -> None:
    page = report.to_html()  # type: ignore[attr-defined]
    parser = _Tags()
    parser.feed(page)
    assert parser.tags <= {"div", "table", "caption", "thead", "tbody", "tr", "th", "td", "p", "span"}
    shown = "".join(parser.text)
    assert "<b>bm25</b> | $x$ \\ \\x1b[0m" in shown  # the name, as text


# --- latex --------------------------------------------------------------------------------
_OURS = {r"\begin", r"\end", r"\centering", r"\toprule", r"\midrule", r"\bottomrule", r"\caption",
         r"\label", r"\textbackslash", r"\textasciitilde", r"\textasciicircum", r"\textless", r"\textgreater",
         r"\textbar", r"\blacktriangle", r"\blacktriangledown", r"\vartriangle",
         r"\triangledown"}  # fmt: skip


@pytest.mark.parametrize("report", [COMPARE, EVERY_PAIR], ids=["compare", "every-pair"])
def test_latex_runs_only_irframes_own_commands(report: object) -> None:
    tex = report.to_latex()  # type: ignore[attr-defined]
    commands = set(re.findall(r"\\[A-Za-z]+", tex))
    assert commands <= _OURS, commands - _OURS
    maths = re.sub(r"\$\^\{\\(black|var)?triangle(down)?\}\$", "", tex).replace(r"\$", "")
    assert "$" not in maths  # only the markers are math
    assert "\r" not in tex
    assert "\x1b" not in tex


def test_a_latex_caption_given_keeps_its_math_and_escapes_the_rest() -> None:
    tex = COMPARE.to_latex(caption="RR at $k=10$ & 50% of runs")
    assert r"\caption{RR at $k=10$ \& 50\% of runs}" in tex


# --- the escaping functions on any text --------------------------------------------------
TEXT = st.text(st.characters(codec="utf-8") | st.sampled_from(list("|<>&\\$%_{}~^#`*[]!\r\n\t\x1b\u202e")))


@settings(max_examples=examples(300), deadline=None)
@given(text=TEXT)
def test_each_format_escapes_any_text(text: str) -> None:
    shown = terminal(text)
    assert shown.isprintable() or shown == ""
    line = shown if "\n" not in text and "\r" not in text else None
    md = markdown(text)
    assert "\n" not in md
    assert "\r" not in md
    assert not re.search(r"(?<!\\)(?:\\\\)*[|<>`*_\[\]]", md)  # every special character escaped
    h = html_text(text)
    assert not set(h) & set("<>\"'")
    assert "\n" not in h
    assert html.unescape(h) == terminal(text.replace("\r\n", " ").replace("\r", " ").replace("\n", " "))
    tex = latex(text)
    assert not re.search(r"(?<!\\)[$&%#_{}]", tex.replace(r"\textbackslash{}", "").replace("{}", ""))
    if line is not None:
        assert markdown(text).replace("\\", "") == line.replace("\\", "")
