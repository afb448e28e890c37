"""A parameter a family does not declare raises; it never vanishes (issue 33, bug 1).

0.1.0's ``Measure(family, k, rel=..., gain=...)`` accepted both keywords for any family and
dropped them where the family had no such parameter: ``Measure("ERR", 10, rel=2)`` was
``ERR@10``, and an ir_measures ``RBP(rel=2)`` became irframe's graded RBP.
"""

from __future__ import annotations

import pytest

from irframe.exceptions import InvalidParameterError, UnknownMeasureError
from irframe.measures import Measure, parse_measure
from irframe.measures.trec_m import resolve_measures


@pytest.mark.parametrize(
    ("family", "k", "key", "owners"),
    [
        ("ERR", 10, "rel", ["P", "AP", "RBP"]),  # the error names where a threshold lives
        ("Judged", 10, "rel", ["P"]),
        ("AP", 10, "gain", ["nDCG", "DCG"]),
        ("RR", None, "gain", ["nDCG"]),
        ("NumRet", None, "rel", ["NumRelRet"]),
    ],
)
def test_an_undeclared_parameter_raises_from_python(
    family: str, k: int | None, key: str, owners: list[str]
) -> None:
    value = 2 if key == "rel" else "linear"
    with pytest.raises(UnknownMeasureError, match=f"Unknown parameter '{key}' for measure {family}") as err:
        Measure(family, k, **{key: value})
    text = str(err.value)
    assert "Its parameters:" in text
    assert f"{family} has no such setting" in text
    for name in owners:
        assert name in text.split("is a parameter of", 1)[1]


def test_the_same_from_a_string() -> None:
    with pytest.raises(UnknownMeasureError, match="Unknown parameter 'rel' for measure ERR"):
        parse_measure("ERR(rel=2)@10")


def test_a_declared_parameter_still_works() -> None:
    assert str(Measure("ERR", 10, g_max=3)) == "ERR(g_max=3)@10"
    assert Measure("P", 5, rel=2).params["rel"] == 2


def test_a_required_parameter_must_be_set() -> None:
    with pytest.raises(InvalidParameterError, match=r"SDCG needs max_rel= .*SDCG\(max_rel=\d+\)@10"):
        parse_measure("SDCG@10")


def test_cli_rel_is_a_threshold_only_where_the_family_reads_one() -> None:
    # trec_eval's -l leaves rbp unchanged (checked against trec_eval: rbp is the same under -l 2);
    # --rel must not turn RBP into the binary RBP(rel=2), nor --gain RBP's grades into nDCG's gains
    assert resolve_measures(["RBP", "P@5"], rel=2, gain="linear") == ["RBP", Measure("P", 5, rel=2)]
    assert resolve_measures(["nDCG@10", "RBP(p=0.9)"], gain="linear") == [
        Measure("nDCG", 10, gain="linear"),
        "RBP(p=0.9)",
    ]
