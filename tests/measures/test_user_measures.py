"""User-defined measures (``irframe.define_measure``) through the API, compare, moved,
out-of-core and the CLI's ``--plugin``; expected values are counted by hand."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pytest

import irframe
from _support.helpers import NamedConstructor, per_query_dict
from irframe.cli import main
from irframe.exceptions import InvalidParameterError, UnknownMeasureError
from irframe.measures import FAMILIES, unregister

# q1: a(1) b(unjudged) c(2) d(0) e(-1), and f(3) judged, not retrieved; q2: x(0) y(1);
# q3: judged (z 2), not in the run
RUN = {
    "query_id": ["q1"] * 5 + ["q2"] * 2,
    "doc_id": ["a", "b", "c", "d", "e", "x", "y"],
    "score": [5.0, 4.0, 3.0, 2.0, 1.0, 2.0, 1.0],
}
QRELS = {
    "query_id": ["q1"] * 5 + ["q2"] * 2 + ["q3"],
    "doc_id": ["a", "c", "d", "e", "f", "x", "y", "z"],
    "relevance": [1, 2, 0, -1, 3, 0, 1, 2],
}

# Hits@k: relevant (grade >= rel) in the top k; Missed: judged relevant not retrieved
EXPECTED = {
    "Hits@10": {"q1": 2.0, "q2": 1.0, "q3": 0.0},
    "Hits@2": {"q1": 1.0, "q2": 1.0, "q3": 0.0},
    "Hits(rel=2)@5": {"q1": 1.0, "q2": 0.0, "q3": 0.0},
    "Hits(judged_only=True)@2": {"q1": 2.0, "q2": 1.0, "q3": 0.0},  # a c (b dropped)
    "Missed": {"q1": 1.0, "q2": 0.0, "q3": 1.0},  # f; -; z
    "Missed@1": {"q1": 2.0, "q2": 1.0, "q3": 1.0},  # c f; y; z
}


def _hits(q: irframe.measures.QueryView) -> pl.Expr:
    return (q.grades >= q.params["rel"]).sum()


def _missed(q: irframe.measures.QueryView) -> pl.Expr:
    # mixes the judgments with the ranking: judged relevant minus relevant retrieved
    return (q.judged >= 1).sum() - (q.grades >= 1).sum()


@pytest.fixture
def user_measures() -> Iterator[None]:
    irframe.define_measure("Hits", _hits, params={"rel": 1}, description="relevant in the top k")
    irframe.define_measure("Missed", _missed, aggregate="sum")
    yield
    unregister("Hits")
    unregister("Missed")


@pytest.mark.usefixtures("user_measures")
@pytest.mark.parametrize("presorted", [False, True])
def test_evaluate(constructor: NamedConstructor, presorted: bool) -> None:
    labels = list(EXPECTED)
    run = pl.DataFrame(RUN)
    if presorted:
        run = run.sort("query_id", "score", descending=[False, True])
    native = constructor(run.to_dict(as_series=False))
    out = irframe.evaluate(native, labels, constructor(QRELS), per_query=True)
    got = per_query_dict(out, labels)
    for label, per_q in EXPECTED.items():
        for q, value in per_q.items():
            assert got[q][label] == value, (label, q)
    means = irframe.evaluate(pl.DataFrame(RUN), labels, pl.DataFrame(QRELS)).row(0, named=True)
    assert means["Hits@10"] == pytest.approx(1.0)  # mean of 2, 1, 0
    assert means["Missed"] == 2.0  # aggregate="sum": 1 + 0 + 1


@pytest.mark.usefixtures("user_measures")
def test_ir_namespace_compare_moved_and_outofcore(tmp_path: Path) -> None:
    run, qrels = pl.DataFrame(RUN), pl.DataFrame(QRELS)
    via_ns = run.ir.evaluate(["Hits@10"], qrels, per_query=True)
    assert per_query_dict(via_ns, ["Hits@10"])["q1"]["Hits@10"] == 2.0
    score = pl.when(pl.col("doc_id") == "c").then(0.5).otherwise(pl.col("score"))
    other = run.with_columns(score.alias("score"))
    report = irframe.compare({"base": run, "new": other}, qrels, ["Hits@2"])
    assert "Hits@2" in str(report)
    moved = irframe.moved({"base": run, "new": other}, qrels, "Hits@2")
    assert moved is not None
    run.write_parquet(tmp_path / "run.parquet")
    ooc = irframe.evaluate_parquet(tmp_path / "run.parquet", list(EXPECTED), qrels, per_query=True, buckets=2)
    got = per_query_dict(ooc, list(EXPECTED))
    assert {q: got[q]["Missed@1"] for q in got} == EXPECTED["Missed@1"]


@pytest.mark.usefixtures("user_measures")
def test_errors_name_the_measure() -> None:
    run, qrels = pl.DataFrame(RUN), pl.DataFrame(QRELS)
    irframe.define_measure("NotScalar", lambda q: q.grades >= 1)
    try:
        with pytest.raises(InvalidParameterError, match=r"NotScalar.*not one number"):
            irframe.evaluate(run, ["NotScalar@3"], qrels)
    finally:
        unregister("NotScalar")
    with pytest.raises(InvalidParameterError, match="already registered"):
        irframe.define_measure("nDCG", _hits)
    with pytest.raises(UnknownMeasureError, match=r"(?s)Unknown parameter 'rell'.*did you mean 'rel'"):
        irframe.parse_measure("Hits(rell=2)@5")
    with pytest.raises(InvalidParameterError, match="aggregate"):
        irframe.define_measure("Other", _hits, aggregate="median")  # type: ignore[arg-type]
    assert "Other" not in FAMILIES


def test_unregister_and_redefine() -> None:
    irframe.define_measure("Tmp", lambda q: q.grades.len())
    irframe.define_measure("Tmp", lambda q: q.grades.len() * 2)  # replaces it
    run, qrels = pl.DataFrame(RUN), pl.DataFrame(QRELS)
    got = per_query_dict(irframe.evaluate(run, ["Tmp"], qrels, per_query=True), ["Tmp"])
    assert got["q1"]["Tmp"] == 10.0
    unregister("Tmp")
    with pytest.raises(UnknownMeasureError):
        irframe.parse_measure("Tmp")


PLUGIN = """
import irframe

irframe.define_measure("PlugHits", lambda q: (q.grades >= q.params["rel"]).sum(), params={"rel": 1})
"""


def test_cli_plugin(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    plugin = tmp_path / "my_measures.py"
    plugin.write_text(PLUGIN)
    run = tmp_path / "a.run"
    rows = zip(RUN["query_id"], RUN["doc_id"], RUN["score"], strict=True)
    run.write_text("".join(f"{q} Q0 {d} 0 {s} a\n" for q, d, s in rows))
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in zip(*QRELS.values(), strict=True)))
    try:
        code = main(["eval", str(qrels), str(run), "-m", "PlugHits@10", "-m", "PlugHits(rel=2)@5",
                     "-q", "-f", "csv", "--plugin", str(plugin)])  # fmt: skip
        out = capsys.readouterr().out
        assert code == 0, out
        rows = pl.read_csv(out.encode()).filter(pl.col("query_id").cast(pl.String) == "q1")
        assert rows["PlugHits@10"].to_list() == [2.0]
        assert rows["PlugHits(rel=2)@5"].to_list() == [1.0]
        assert main(["measures", "--plugin", str(plugin)]) == 0
        assert "PlugHits" in capsys.readouterr().out
    finally:
        unregister("PlugHits")
    assert main(["eval", str(qrels), str(run), "-m", "P@5", "--plugin", str(tmp_path / "nope.py")]) == 2
    assert "--plugin" in capsys.readouterr().err
    assert main(["eval", str(qrels), str(run), "-m", "P@5", "--plugin", "no_such_module_xyz"]) == 2
    assert "cannot import" in capsys.readouterr().err


def test_a_family_registered_again_is_compiled_again() -> None:
    """The engine memoises compiled measures per state of the registry: a family removed
    and registered again under the same name, with another definition, must not reuse
    the old definition's columns.  Hand counts on RUN/QRELS: grades >= 1 in the top 10
    are q1 a c, q2 y; grades == 0 are q1 d, q2 x."""
    run, qrels = pl.DataFrame(RUN), pl.DataFrame(QRELS)
    labels = ["Count@10"]
    irframe.define_measure("Count", lambda q: (q.grades >= 1).sum())
    try:
        first = per_query_dict(irframe.evaluate(run, labels, qrels, per_query=True), labels)
    finally:
        unregister("Count")
    irframe.define_measure("Count", lambda q: (q.grades == 0).sum())
    try:
        second = per_query_dict(irframe.evaluate(run, labels, qrels, per_query=True), labels)
    finally:
        unregister("Count")
    assert {q: v["Count@10"] for q, v in first.items()} == {"q1": 2.0, "q2": 1.0, "q3": 0.0}
    assert {q: v["Count@10"] for q, v in second.items()} == {"q1": 1.0, "q2": 1.0, "q3": 0.0}
