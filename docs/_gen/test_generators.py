"""The generators read the registry's documented shape (and the older one), and fail loudly on gaps."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import api
import measures_page

import cli


@dataclass(frozen=True)
class Param:
    name: str
    default: object
    doc: str
    type_name: str


@dataclass(frozen=True)
class TrecName:
    pattern: str
    fixed: dict[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class Family:
    name: str
    description: str
    params: tuple[Param, ...]
    cutoff: str
    aliases: tuple[str, ...]
    trec: tuple[TrecName, ...]
    aggregate: str
    formula: str
    ir_measures: str | None
    peers: str
    kind: str


NDCG = Family(
    name="nDCG",
    description="normalised discounted cumulative gain",
    params=(Param("gain", "exp", "exp: 2^g - 1; linear: g", "str"),),
    cutoff="optional",
    aliases=("NDCG",),
    trec=(TrecName("ndcg", {"gain": "linear"}), TrecName("ndcg_cut_{k}", {"gain": "linear"})),
    aggregate="mean",
    formula=r"\mathrm{nDCG@k} = \frac{DCG@k}{IDCG@k}",
    ir_measures="nDCG(dcg='exp-log2')@k",
    peers="ranx's ndcg uses the linear gain",
    kind="graded",
)
P = Family(
    "P",
    "precision",
    (Param("rel", 1, "minimum relevant grade", "int"),),
    "required",
    (),
    (),
    "mean",
    "",
    None,
    "",
    "binary",
)


def test_new_registry_shape(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(measures_page.registry, "families", lambda: [NDCG, P], raising=False)
    page = measures_page.page()
    assert "$$\n\\mathrm{nDCG@k}" in page  # the formula as a display-math block
    assert "<code>ndcg&#95;cut&#95;<var>k</var></code> (gain=linear)" in page  # a placeholder, not {k}
    assert "`nDCG(dcg='exp-log2')@k`" in page
    assert "**How peers differ**: ranx's ndcg uses the linear gain" in page
    assert "| `gain` | str | `exp` | exp: 2^g - 1; linear: g |" in page
    assert "## Graded relevance measures" in page
    assert "## Binary relevance measures" in page
    # the worked example is computed: P@2 on the example run is 0.5 for q1 (d2 grade 0, d1 grade 2)
    # and 0 for q2 (d7 grade 0, d8 unjudged), mean 0.25
    assert "| q1 | 0.5 |\n| q2 | 0 |\n| mean | 0.25 |" in page


def test_table_cells_escape_markdown_but_not_code() -> None:
    # a*relret + b*nonrelret read as emphasis; {k} as an attribute list
    assert measures_page._cell("a*b + c*d, P_{k}") == "a&#42;b + c&#42;d, P&#95;&#123;k&#125;"
    assert measures_page._cell("see `a*b_{k}`") == "see `a*b_{k}`"
    assert (
        measures_page.trec_pattern("Rprec_mult_{mult}") == "<code>Rprec&#95;mult&#95;<var>mult</var></code>"
    )


def test_old_registry_shape() -> None:
    page = measures_page.page()
    for fam in measures_page.families():
        assert f"### {fam.name}\n" in page


def test_api_pages_cover_all_public_names() -> None:
    import irframe

    table, lost = api.top_level_table()
    assert lost == []
    for name in irframe.__all__:
        if name != "__version__":
            assert f"`irframe.{name}`" in table


def test_cli_page_lists_every_subcommand() -> None:
    import argparse

    parser = cli.find_builder()()
    page = cli.page()
    subs = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert set(subs.choices) >= {"eval", "compare", "measures", "demo"}
    for name in subs.choices:
        assert f"## `irframe {name}`" in page
