"""Griffe extension: show Sphinx roles in docstrings (:func:`x`, :class:`x` ...) as code, `x`.

The numpydoc docstrings use Sphinx roles for cross-references; mkdocstrings does not read them and
would print the role text. Loaded by mkdocs.yml's mkdocstrings ``extensions`` option.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:py:)?(?:func|class|mod|meth|attr|data|exc|obj):`~?([^`]+)`")


class SphinxRolesAsCode(griffe.Extension):
    """Rewrite each docstring once, when griffe creates the object."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = ROLE.sub(r"`\1`", obj.docstring.value)
