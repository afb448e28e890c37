"""``irframe eval`` (and ``demo``) run the engine once for the per-query rows and the means.

The per-query table and the means come from one collected table
(:func:`irframe.functions.evaluate_both`); they must equal two ``irframe.evaluate`` calls,
which the rest of the suite checks against trec_eval and the plain-Python oracle.
"""

from __future__ import annotations

import io
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import pandas as pd
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import irframe
from irframe._engine import compose as engine  # (every evaluation is composed there)
from irframe.cli import main
from irframe.functions import evaluate_both

QRELS = "q1 0 a 2\nq1 0 b 0\nq1 0 c 1\nq1 0 z 3\nq2 0 a 1\nq2 0 d 2\nq3 0 e 1\n"
RUN_A = (
    "q1 Q0 a 1 3.0 alpha\nq1 Q0 b 2 2.0 alpha\nq1 Q0 c 3 1.0 alpha\nq2 Q0 d 1 5.0 alpha\nq9 Q0 a 1 1 alpha\n"
)
RUN_B = "q1 Q0 c 1 0.9 beta\nq1 Q0 z 2 0.8 beta\nq2 Q0 x 1 0.7 beta\nq2 Q0 a 2 0.7 beta\nq3 Q0 e 1 0.1 beta\n"
MEASURES = ["nDCG@10", "P@2", "RR", "AP", "num_rel_ret"]


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    out = {}
    for name, text in {"qrels": QRELS, "a": RUN_A, "b": RUN_B}.items():
        (tmp_path / name).write_text(text)
        out[name] = str(tmp_path / name)
    return out


@pytest.fixture
def passes(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """The engine's passes while the test runs: in-memory input goes through
    ``engine.collect_in_memory`` (one call, however many query buckets it cuts the input
    into), a lazy run's plan through ``engine.build``."""
    counts = {"in_memory": 0, "lazy": 0}
    real_build, real_collect = engine.build, engine.collect_in_memory

    def build(*args: Any, **kwargs: Any) -> Any:
        counts["lazy"] += 1
        return real_build(*args, **kwargs)

    def collect_in_memory(*args: Any, **kwargs: Any) -> Any:
        counts["in_memory"] += 1
        return real_collect(*args, **kwargs)

    monkeypatch.setattr(engine, "build", build)
    monkeypatch.setattr(engine, "collect_in_memory", collect_in_memory)
    return counts


def _cli(*args: str) -> str:
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(list(args)) == 0
    return out.getvalue()


@pytest.mark.parametrize("fmt", ["trec", "tsv", "json", "table"])
@pytest.mark.parametrize("per_query", [True, False])
def test_eval_runs_the_engine_once(
    files: dict[str, str], passes: dict[str, int], fmt: str, per_query: bool
) -> None:
    ms = [a for m in MEASURES for a in ("-m", m)]
    text = _cli(
        "eval", files["qrels"], files["a"], files["b"], *ms, "-f", fmt, *(["-q"] if per_query else [])
    )
    assert text
    assert passes == {"in_memory": 1, "lazy": 0}


def test_eval_trec_output_is_the_two_evaluations(files: dict[str, str], passes: dict[str, int]) -> None:
    """The -q -f trec text holds the per-query values and the means of irframe.evaluate."""
    text = _cli(
        "eval",
        files["qrels"],
        files["a"],
        "-m",
        "AP",
        "-m",
        "P@2",
        "-m",
        "num_q",
        "-q",
        "-f",
        "trec",
        "--missing",
        "drop",
    )
    assert passes["in_memory"] == 1
    qrels, run = irframe.io.read_trec_qrels(files["qrels"]), irframe.io.read_trec_run(files["a"])
    per_query = irframe.evaluate(run, ["AP", "P@2"], qrels, per_query=True, missing="drop")
    means = irframe.evaluate(run, ["AP", "P@2"], qrels, missing="drop")
    rows = [line.split() for line in text.splitlines()]
    values = {(m, q): v for m, q, v in rows}
    # hand check of AP for q1: relevant a (rank 1), c (rank 3) of 3 relevant -> (1 + 2/3) / 3
    assert values["AP", "q1"] == f"{(1 + 2 / 3) / 3:.4f}"
    for q, ap, p2 in per_query.filter(pl.col("AP").is_not_null()).iter_rows():
        assert (values["AP", q], values["P@2", q]) == (f"{ap:.4f}", f"{p2:.4f}")
    assert values["AP", "all"] == f"{means['AP'].item():.4f}"
    assert values["num_q", "all"] == str(means["n_queries"].item())


def test_demo_runs_the_engine_once(passes: dict[str, int]) -> None:
    """Once for its table of means; its golden-set check then evaluates each of its two
    in-memory runs once (irframe.check passes the frames as given: no lazy pass)."""
    assert "Voltmart" in _cli("demo", "-m", "P@5")
    assert passes == {"in_memory": 1 + 2, "lazy": 0}


def _frames(kind: str, files: dict[str, str]) -> tuple[Any, Any]:
    runs = irframe.io.read_trec_runs([files["a"], files["b"]])
    qrels = irframe.io.read_trec_qrels(files["qrels"])
    if kind == "pandas":
        return runs.to_pandas(), qrels.to_pandas()
    if kind == "lazy":
        return runs.lazy(), qrels
    return runs, qrels


OPTIONS: list[dict[str, Any]] = [
    {"duplicates": "first"},  # the two runs stacked without their system column
    {"by": "system"},
    {"by": "system", "missing": "drop"},
    {"by": ["system", "topic"]},
    {"by": "system", "missing": "zero", "order": "score", "duplicates": "first"},
]


@pytest.mark.parametrize("kind", ["polars", "pandas", "lazy"])
@pytest.mark.parametrize("options", OPTIONS)
@pytest.mark.filterwarnings(
    "ignore::irframe.exceptions.DuplicatesWarning"
)  # (counted in test_duplicate_causes)
def test_pair_equals_two_evaluate_calls(
    files: dict[str, str], passes: dict[str, int], kind: str, options: dict[str, Any]
) -> None:
    run, qrels = _frames(kind, files)
    extra: dict[str, Any] = {}
    if "topic" in options.get("by", []):
        extra["queries"] = pl.DataFrame({"query_id": ["q1", "q2", "q3", "q9"], "topic": ["x", "y", "x", "y"]})
    per_query, means = evaluate_both(run, MEASURES, qrels, **options, **extra)
    if kind == "polars":
        assert passes["in_memory"] == 1
    expected_pq = irframe.evaluate(run, MEASURES, qrels, per_query=True, **options, **extra)
    expected_means = irframe.evaluate(run, MEASURES, qrels, **options, **extra)
    if kind == "pandas":
        pd.testing.assert_frame_equal(per_query, expected_pq)
        pd.testing.assert_frame_equal(means, expected_means)
        return
    assert type(per_query) is type(expected_pq)
    assert_frame_equal(pl.DataFrame(per_query.lazy().collect()), expected_pq.lazy().collect())
    assert_frame_equal(pl.DataFrame(means.lazy().collect()), expected_means.lazy().collect())


def test_pair_raises_as_evaluate_does(files: dict[str, str]) -> None:
    run, qrels = _frames("polars", files)
    with pytest.raises(irframe.exceptions.InvalidParameterError, match="missing"):
        evaluate_both(run, ["AP"], qrels, missing="ignore")
    with pytest.raises(irframe.exceptions.InvalidParameterError, match="evaluate"):
        evaluate_both(run, ["AP"], qrels, bogus=1)
    with pytest.raises(irframe.exceptions.DuplicateRowsError, match=r"\('q1', 'c'\)"):
        evaluate_both(run, ["AP"], qrels)  # both runs rank c for q1: by="system" is needed


def test_pair_other_backends_evaluate_twice(files: dict[str, str], tmp_path: Path) -> None:
    """A parquet path (the out-of-core backend) gives what two evaluate calls give."""
    run, qrels = _frames("polars", files)
    path = tmp_path / "run.parquet"
    run.write_parquet(path)
    per_query, means = evaluate_both(str(path), ["AP", "RR"], qrels, by="system")
    assert_frame_equal(
        per_query, irframe.evaluate(str(path), ["AP", "RR"], qrels, by="system", per_query=True)
    )
    assert_frame_equal(means, irframe.evaluate(str(path), ["AP", "RR"], qrels, by="system"))


def _cli_json(*argv: str) -> list[dict[str, Any]]:
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(list(argv)) == 0
    import json

    return list(json.loads(out.getvalue()))


@pytest.mark.parametrize("per_query", [True, False])
def test_one_system_equals_its_rows_among_two(files: dict[str, str], per_query: bool) -> None:
    # one run file is evaluated without its constant system column (put back in front):
    # its rows must equal that system's rows when two files are evaluated together
    q = ["-q"] if per_query else []
    ms = [a for m in MEASURES for a in ("-m", m)]
    alone = _cli_json("eval", files["qrels"], files["a"], *ms, *q, "-f", "json")
    both = _cli_json("eval", files["qrels"], files["a"], files["b"], *ms, *q, "-f", "json")
    assert alone
    assert all(next(iter(row)) == "system" for row in alone)
    assert alone == [row for row in both if row["system"] == alone[0]["system"]]
