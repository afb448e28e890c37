"""Measured times live beside the benchmarks (``benchmarks/results/decisions.md``), not in the
code's comments: a comment says the decision and names the entry (issue 39 item 6)."""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

import irframe

ROOT = Path(irframe.__file__).resolve().parents[2]
NOTES = ROOT / "benchmarks" / "results" / "decisions.md"
TIMING = re.compile(
    r"\b\d+(\.\d+)? ?(ms|µs|seconds|s|sec|minutes)\b|\b\d+(\.\d+)?x (faster|slower|as long)\b|\btook \d"
)
ENTRY = re.compile(r"decisions\.md, ([a-z-]+)")


def _comments() -> list[tuple[Path, int, str]]:
    out = []
    for path in sorted((ROOT / "src" / "irframe").rglob("*.py")):
        for tok in tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline):
            if tok.type == tokenize.COMMENT:
                out.append((path, tok.start[0], tok.string))
    return out


def test_no_comment_quotes_a_measured_time() -> None:
    found = [f"{p.relative_to(ROOT)}:{line}: {text}" for p, line, text in _comments() if TIMING.search(text)]
    assert not found, "move the numbers to benchmarks/results/decisions.md:\n" + "\n".join(found)


def test_every_entry_a_comment_names_exists() -> None:
    headings = set(re.findall(r"^## ([a-z-]+)$", NOTES.read_text(encoding="utf-8"), flags=re.M))
    named = {m for _, _, text in _comments() for m in ENTRY.findall(text)}
    assert named, "no comment names an entry"
    assert named <= headings, sorted(named - headings)
