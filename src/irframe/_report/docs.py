"""How the reports show a listed document: its id and its grade, ``?`` when unjudged.

:func:`irframe.moved` and :attr:`irframe.CheckResult.moved` give the top documents as
lists of ``{doc_id, grade}`` structs (a null grade: unjudged); the text and Markdown
reports show such a list as ``x (?), a (2)``, the HTML page as a list with the grades
marked.

Examples
--------
>>> docs_text([{"doc_id": "x", "grade": None}, {"doc_id": "a", "grade": 2}])
'x (?), a (2)'
>>> docs_text(None), docs_text([])
('-', '')
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["UNJUDGED", "docs_text", "grade_text"]

UNJUDGED = "?"


def grade_text(grade: Any) -> str:
    """A grade as the reports print it (``?``: unjudged).

    Examples
    --------
    >>> grade_text(2), grade_text(1.5), grade_text(None)
    ('2', '1.5', '?')
    """
    return UNJUDGED if grade is None else str(grade)


def docs_text(docs: Iterable[Mapping[str, Any]] | None) -> str:
    """A list of documents as text: each doc id with its grade in parentheses."""
    if docs is None:
        return "-"
    return ", ".join(f"{d['doc_id']} ({grade_text(d['grade'])})" for d in docs)
