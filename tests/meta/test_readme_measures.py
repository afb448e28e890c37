"""The README's measure list is the registry's, not a hand-kept copy."""

from __future__ import annotations

import re
from pathlib import Path

from irframe.measures import families
from irframe.measures._doc import markdown_table

README = Path(__file__).resolve().parents[2] / "README.md"


def test_readme_measure_table_is_generated_from_the_registry() -> None:
    text = README.read_text(encoding="utf-8")
    block = re.search(r"<!-- measures:start -->\n(.*?)\n<!-- measures:end -->", text, re.S)
    assert block is not None, "README.md lost its <!-- measures:start/end --> markers"
    assert block[1] == markdown_table(), (
        "README.md's measure table is stale. Regenerate it: python -c "
        "'from irframe.measures._doc import markdown_table; print(markdown_table())'"
    )
    for fam in families():
        assert f"`{fam.name}" in block[1]
