"""``irframe measures`` and ``-f json``: generated from the registry, user measures included."""

from __future__ import annotations

import json
import re

import pytest

import irframe
from irframe.cli import main
from irframe.measures import FAMILIES, unregister


def test_text_lists_every_family_with_params_and_trec_names(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["measures"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    for name, fam in FAMILIES.items():
        after = r"\(" if fam.params else r"[\s\[@]"  # the whole name: 'G' is not 'GMAP(...)'
        line = next(ln for ln in lines if re.match(re.escape(name) + after, ln.strip()))
        for p in fam.params:  # a required parameter has no default to show: its name alone
            assert (f"{p.name}," if p.required else f"{p.name}=") in line, (name, p.name)
        for t in fam.trec:
            assert t.pattern.replace("{k}", "k") in line, (name, t.pattern)
        assert fam.description in line
    assert "P(rel=1,judged_only=False)@k" in out
    assert "ERR(g_max=4,judged_only=False)[@k]" in out
    # columns are padded to the widest family's signature
    assert re.search(r"NumRelRet\(rel=1,judged_only=False\)\[@k\] +mean \(trec all: sum\)", out)


def test_json_is_the_registry(capsys: pytest.CaptureFixture[str]) -> None:
    irframe.define_measure(
        "Hits", lambda q: (q.grades >= q.params["rel"]).sum(), params={"rel": 1}, aggregate="sum"
    )
    try:
        assert main(["measures", "-f", "json"]) == 0
        data = json.loads(capsys.readouterr().out)
    finally:
        unregister("Hits")
    by_name = {f["name"]: f for f in data}
    assert set(by_name) == {*FAMILIES, "Hits"}
    assert by_name["nDCG"]["trec_names"] == ["ndcg", "ndcg_cut_{k}"]
    assert by_name["nDCG"]["params"][0] == {
        "name": "gain",
        "default": "exp",
        "type": "'exp' | 'linear' | {grade: gain}",
        "aliases": ["gains"],
        "doc": FAMILIES["nDCG"].params[0].doc,
        "required": False,
    }
    assert by_name["SDCG"]["params"][1]["required"] is True  # max_rel
    assert by_name["DCG"]["trec_names"] == ["dcg"]
    assert by_name["DCG"]["trec_groups"] == []
    assert by_name["P"]["trec_groups"] == ["all_trec", "official"]
    assert by_name["NumRet"]["trec_total"] == "sum"
    hits = by_name["Hits"]
    assert hits["user_defined"] is True
    assert hits["aggregate"] == "sum"
    assert [p["name"] for p in hits["params"]] == ["rel", "judged_only"]
    assert not by_name["P"]["user_defined"]
