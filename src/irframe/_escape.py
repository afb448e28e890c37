r"""User text made safe for the format it goes into: one function per format, used by every renderer.

Query texts, ids, document titles, system names, segment values and measure labels come
from the user's data; a report shows them as text, never as markup:

* :func:`terminal`: characters that are not printable (control characters such as
  ``\r`` or ``ESC``, bidirectional overrides) are shown as their Python escapes
  (``\r``, ``\x1b``, ``\u202e``), not sent to the terminal;
* :func:`markdown`: the same, line breaks as spaces, and Markdown's punctuation escaped with
  a backslash, so that a ``|`` stays in its table cell and ``</details>`` or ``<img>``
  in a query's text is text, not HTML;
* :func:`html`: line breaks as spaces, ``& < > " '`` as entities;
* :func:`latex`: line breaks as spaces, LaTeX's special characters as their commands.

Examples
--------
>>> terminal("evil\x1b[2Jquery\r")
'evil\\x1b[2Jquery\\r'
>>> markdown("a | b </details> *c*")
'a \\| b \\</details\\> \\*c\\*'
>>> html("<b>R&D</b>")
'&lt;b&gt;R&amp;D&lt;/b&gt;'
>>> latex("50% of $x_1$ & more")
'50\\% of \\$x\\_1\\$ \\& more'
"""

from __future__ import annotations

import html as _html
from collections.abc import Callable

__all__ = ["ESCAPES", "html", "latex", "markdown", "terminal"]

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_MARKDOWN = frozenset("\\`*_[]<>|~&!#")
_LATEX = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
    "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
    "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}",
}  # fmt: skip


def _shown(ch: str) -> str:
    """A character that is not printable, as its Python escape."""
    if ch in _NAMED:
        return _NAMED[ch]
    code = ord(ch)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def terminal(text: str) -> str:
    r"""``text`` with every character that is not printable shown as its escape.

    Examples
    --------
    >>> terminal("q1\ttext\nmore"), terminal("right-to-left \u202eoverride")
    ('q1\\ttext\\nmore', 'right-to-left \\u202eoverride')
    """
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else _shown(ch) for ch in text)


def _one_line(text: str) -> str:
    """Line breaks as spaces, the other unprintable characters as escapes."""
    if not text.isprintable():
        text = text.replace("\r\n", " ").replace("\r", " ").replace("\n", " ")
    return terminal(text)


def markdown(text: str) -> str:
    r"""``text`` as Markdown text (a table cell, a paragraph): one line, punctuation escaped.

    Examples
    --------
    >>> markdown("![pixel](http://x/p.png)\r\nq2")
    '\\!\\[pixel\\](http://x/p.png) q2'
    """
    line = _one_line(text)
    return "".join("\\" + ch if ch in _MARKDOWN else ch for ch in line)


def html(text: str) -> str:
    """``text`` as HTML text (an element's content or an attribute value), one line.

    Examples
    --------
    >>> html('"x" <script>')
    '&quot;x&quot; &lt;script&gt;'
    """
    return _html.escape(_one_line(text), quote=True)


def latex(text: str) -> str:
    r"""``text`` as LaTeX text (a table cell, a caption), one line.

    Examples
    --------
    >>> latex(r"C:\runs\{a}")
    'C:\\textbackslash{}runs\\textbackslash{}\\{a\\}'
    """
    return "".join(_LATEX.get(ch, ch) for ch in _one_line(text))


#: The escaping function of each report style.
ESCAPES: dict[str, Callable[[str], str]] = {
    "unicode": terminal, "ascii": terminal, "text": terminal, "markdown": markdown, "html": html,
    "latex": latex,
}  # fmt: skip
