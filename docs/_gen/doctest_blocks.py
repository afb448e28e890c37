"""Doctest code blocks shown as a console session: input highlighted as Python, output as output.

The guides' code blocks are doctests (``>>>`` prompts, expected output below), fenced as
```` ```python ```` so that they read well raw. On the site they become ``pycon`` blocks (Pygments'
Python console lexer: the output is not coloured as code), ``<BLANKLINE>`` becomes the blank line
it stands for, and ``# doctest: +FLAG`` directives are dropped.
"""

from __future__ import annotations

import re

FENCE = re.compile(
    r"^(?P<indent>[ ]*)```python[ \t]*\n(?P<body>.*?)\n(?P=indent)```[ \t]*$", re.MULTILINE | re.DOTALL
)
DIRECTIVE = re.compile(r"\s*#\s*doctest:\s*[+-]\w+(?:\s*,\s*[+-]\w+)*\s*$")


def _session(indent: str, body: str) -> str:
    lines = []
    for line in body.split("\n"):
        content = line[len(indent) :] if line.startswith(indent) else line.lstrip(" ")
        if content.strip() == "<BLANKLINE>":
            content = ""
        elif content.startswith((">>> ", "... ")):
            content = DIRECTIVE.sub("", content)
        lines.append(f"{indent}{content}" if content else "")
    while lines and not lines[-1].strip():  # the blank line that ends the last expected output
        lines.pop()
    return "\n".join([f"{indent}```pycon", *lines, f"{indent}```"])


def convert(markdown: str) -> str:
    """Every ```` ```python ```` block that starts with ``>>>`` as a ``pycon`` block."""

    def one(match: re.Match[str]) -> str:
        indent, body = match.group("indent"), match.group("body")
        if not body.lstrip().startswith(">>>"):
            return match.group(0)
        return _session(indent, body)

    return FENCE.sub(one, markdown)
