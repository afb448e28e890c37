"""Issue 34 item 2: every ``.ir`` method is its function (signature and docstring) with the
frame bound first, at run time (``inspect``, ``help``, IPython) and for mypy, through
``irframe.ir(df)``: a misspelled keyword is a type error."""

from __future__ import annotations

import importlib.util
import inspect
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import irframe
from irframe import expr

RUN = pl.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "rank": [1, 2], "relevance": [0, 1]})
FRAME_METHODS = {
    "evaluate": irframe.evaluate, "ndcg": irframe.ndcg, "precision": irframe.precision,
    "recall": irframe.recall, "mrr": irframe.mrr, "ap": irframe.ap, "rprec": irframe.rprec,
    "bpref": irframe.bpref, "success": irframe.success, "judged": irframe.judged,
    "compare": irframe.compare, "compare_report": irframe.compare_report, "moved": irframe.moved,
}  # fmt: skip
EXPR_METHODS = ("measures", "ndcg", "precision", "recall", "mrr", "ap", "rprec", "bpref", "success", "judged")


def _without_first(fn: Callable[..., Any]) -> list[inspect.Parameter]:
    return list(inspect.signature(fn).parameters.values())[1:]


def _frames() -> dict[str, Any]:
    frames: dict[str, Any] = {"polars": RUN, "lazy": RUN.lazy()}
    if importlib.util.find_spec("pandas") is not None:
        frames["pandas"] = RUN.to_pandas()
    return frames


@pytest.mark.parametrize("kind", ["polars", "lazy", "pandas"])
@pytest.mark.parametrize("name", list(FRAME_METHODS))
def test_each_method_has_its_functions_signature_but_the_frame(kind: str, name: str) -> None:
    frames = _frames()
    if kind not in frames:
        pytest.skip("pandas is not installed (pip install pandas)")
    fn = FRAME_METHODS[name]
    for method in (getattr(frames[kind].ir, name), getattr(irframe.ir(frames[kind]), name)):
        sig = inspect.signature(method)
        assert list(sig.parameters.values()) == _without_first(fn), name
        assert sig.return_annotation == inspect.signature(fn).return_annotation
    # unbound, as help() and the docs read it: ``self`` first, then the same parameters
    unbound = list(inspect.signature(getattr(irframe.IrNamespace, name)).parameters.values())
    assert [p.name for p in unbound] == ["self", *(p.name for p in _without_first(fn))]


@pytest.mark.parametrize("name", list(FRAME_METHODS))
def test_each_method_has_its_functions_docstring(name: str) -> None:
    fn = FRAME_METHODS[name]
    doc = inspect.getdoc(getattr(RUN.ir, name)) or ""
    body = (inspect.getdoc(fn) or "").partition("\n")[2]
    assert doc.startswith((inspect.getdoc(fn) or "").partition("\n")[0])
    assert body.strip(), name
    assert body.strip() in doc, name
    assert f"frame.ir.{name}(" in doc  # says how the frame is passed
    assert "Examples" in doc
    if name in {"evaluate", "compare", "moved"}:  # (compare_report points to compare)
        assert "Parameters" in doc


def test_the_method_computes_what_its_function_computes() -> None:
    """Bound first, positionally and by keyword: the values of a hand computation (RR of
    a relevant document at rank 2 is 1/2; nDCG@2, exp gain: (1/log2(3)) / 1 = 0.6309...)."""
    assert RUN.ir.mrr().item(0, "RR") == 0.5
    assert RUN.ir.evaluate(["RR"], None, per_query=True).rows() == [("q1", 0.5)]
    assert irframe.ir(RUN).ndcg(2).item(0, "nDCG@2") == pytest.approx(1 / 1.584962500721156)
    with pytest.raises(irframe.exceptions.InvalidParameterError, match="per_qeury"):
        RUN.ir.evaluate(["RR"], per_qeury=True)


@pytest.mark.parametrize("name", EXPR_METHODS)
def test_expression_methods_show_the_column_keywords_but_grade(name: str) -> None:
    fn = getattr(expr, name)
    params = inspect.signature(getattr(pl.col("relevance").ir, name)).parameters
    assert "grade" not in params
    assert not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    own = [p for p in inspect.signature(fn).parameters.values() if p.kind is not p.VAR_KEYWORD]
    assert [p for p in own if p.name != "grade"] == list(params.values())[
        : len(own) - ("grade" in {p.name for p in own})
    ]
    assert {"rank", "score", "doc"} <= set(params) | {p.name for p in own}


SAMPLE = """\
import polars as pl

import irframe

run = pl.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "rank": [1], "relevance": [1]})
ns = irframe.ir(run)
ok1: pl.DataFrame = ns.evaluate(["RR"], per_query=True, by="system", depth=10, progress=False)
ok2: pl.LazyFrame = irframe.ir(run.lazy()).ndcg(10, gain="linear", query_col="qid")
ok3: pl.DataFrame = ns.compare(None, ["RR"], n_permutations=100, baseline="a")
ok4: pl.DataFrame = ns.moved(None, "RR", docs_top=2)
ok5: pl.DataFrame = ns.mrr(per_query=False, memory_limit="1GB")
bad = ns.evaluate(["RR"], per_qeury=True)
bad = ns.ndcg(10, gian="linear")
bad = ns.compare(None, ["RR"], n_permutation=100)
bad = ns.evaluate(["RR"], missing="sometimes")
bad = ns.moved(None, "RR", doc_top=2)
wrong: int = ns.evaluate(["RR"])
"""
EXPECTED = {  # line: what mypy must say there
    12: 'Unexpected keyword argument "per_qeury"',
    13: 'Unexpected keyword argument "gian"',
    14: 'Unexpected keyword argument "n_permutation"',
    15: 'Argument "missing" has incompatible type',
    16: 'Unexpected keyword argument "doc_top"',
    17: 'expression has type "DataFrame", variable has type "int"',
}


@pytest.mark.deep  # a mypy run (slow): .ci/run runs -m deep
def test_mypy_checks_every_keyword_through_ir(tmp_path: Path) -> None:
    """One mypy --strict run on a sample: the correct calls pass, each misspelled keyword,
    wrong value and wrong result type is an error on its own line, and nothing else."""
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy is not installed (pip install mypy): the typed namespace is not checked")
    (tmp_path / "sample.py").write_text(SAMPLE)
    src = Path(irframe.__file__).resolve().parents[1]
    cmd = [sys.executable, "-m", "mypy", "--strict", "--ignore-missing-imports", "--follow-imports=silent",
           "--no-incremental", "--cache-dir", os.devnull, "sample.py"]  # fmt: skip
    env = {**os.environ, "MYPYPATH": str(src)}
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=tmp_path, check=False)
    errors = {}
    for line in proc.stdout.splitlines():
        if ": error:" in line:
            errors[int(line.split(":")[1])] = line
    assert sorted(errors) == sorted(EXPECTED), proc.stdout
    for number, text in EXPECTED.items():
        assert text in errors[number], errors[number]


PLUGIN_SAMPLE = """\
import polars as pl

import irframe

run = pl.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "rank": [1], "relevance": [1]})
ok1: pl.DataFrame = run.ir.evaluate(["RR"], per_query=True, by="system", depth=10)
ok2: pl.LazyFrame = run.lazy().ir.ndcg(10, gain="linear", query_col="qid")
ok3: pl.DataFrame = run.ir.compare(None, ["RR"], n_permutations=100, baseline="a")
ok4: pl.Expr = pl.col("relevance").ir.mrr(score="score")
bad = run.ir.evaluate(["RR"], per_qeury=True)
bad_lazy = run.lazy().ir.ndcg(10, gian="linear")
wrong: int = run.ir.evaluate(["RR"])
wrong_lazy: pl.DataFrame = run.lazy().ir.mrr()
nothing = run.ir.nope
"""
PLUGIN_EXPECTED = {  # line: what mypy must say there (the README's headline form, df.ir)
    10: 'Unexpected keyword argument "per_qeury"',
    11: 'Unexpected keyword argument "gian"',
    12: 'expression has type "DataFrame", variable has type "int"',
    13: 'expression has type "LazyFrame", variable has type "DataFrame"',
    14: '"IrNamespace[DataFrame]" has no attribute "nope"',
}


@pytest.mark.deep  # a mypy run (slow): .ci/run runs -m deep
def test_mypy_types_df_ir_with_irframes_plugin(tmp_path: Path) -> None:
    """Issue 45: ``df.ir`` (not only ``irframe.ir(df)``) is typed for mypy --strict with
    ``plugins = ["irframe.mypy"]``: right calls pass; each misspelled keyword, wrong result
    type and unknown method is an error on its own line; without the plugin, mypy says
    ``"DataFrame" has no attribute "ir"`` (what users met)."""
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy is not installed (pip install mypy): the mypy plugin is not checked")
    (tmp_path / "sample.py").write_text(PLUGIN_SAMPLE)
    (tmp_path / "pyproject.toml").write_text('[tool.mypy]\nstrict = true\nplugins = ["irframe.mypy"]\n')
    src = Path(irframe.__file__).resolve().parents[1]
    cmd = [sys.executable, "-m", "mypy", "--no-incremental", "--cache-dir", os.devnull, "sample.py"]
    env = {**os.environ, "MYPYPATH": str(src), "PYTHONPATH": str(src)}
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=tmp_path, check=False)
    errors = {int(line.split(":")[1]): line for line in proc.stdout.splitlines() if ": error:" in line}
    assert sorted(errors) == sorted(PLUGIN_EXPECTED), proc.stdout + proc.stderr
    for number, text in PLUGIN_EXPECTED.items():
        assert text in errors[number], errors[number]
    (tmp_path / "pyproject.toml").write_text("[tool.mypy]\nstrict = true\n")
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=tmp_path, check=False)
    assert '"DataFrame" has no attribute "ir"' in proc.stdout, proc.stdout
