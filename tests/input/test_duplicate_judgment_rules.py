"""A document judged twice for one query: refused by every verb in one wording (the rule is
``irframe._engine.checks.refuse_duplicate_judgments``), naming the query and the pair."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import irframe
from _support.cli_runner import run_cli
from irframe.exceptions import DuplicateRowsError

RUN = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "a"], "rank": [1, 2, 1]})
TWICE = pl.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["b", "b", "a"], "relevance": [1, 2, 1]})
WORDING = r"The qrels judge the same document twice in queries 'q1', e\.g\. \(query, document\) \('q1', 'b'\)"
SHEET = pl.DataFrame({"query_id": ["q2"], "doc_id": ["c"], "grade": [1]})

VERBS: dict[str, Callable[[], Any]] = {
    "evaluate": lambda: irframe.evaluate(RUN, ["RR"], TWICE),
    "compare": lambda: irframe.compare({"a": RUN, "b": RUN}, TWICE, ["RR"]),
    "check": lambda: irframe.check(RUN, TWICE, RUN, ["RR"]),
    "pool": lambda: irframe.pool({"a": RUN}, TWICE),
    "add_judgments": lambda: irframe.add_judgments(TWICE, SHEET),
}


@pytest.mark.parametrize("verb", VERBS)
def test_one_wording_in_every_verb(verb: str) -> None:
    with pytest.raises(DuplicateRowsError, match=WORDING):
        VERBS[verb]()


def test_the_command_line_says_it_in_the_same_words(tmp_path: Path) -> None:
    qrels, run = tmp_path / "qrels.txt", tmp_path / "a.run"
    qrels.write_text("q1 0 b 1\nq1 0 b 2\nq2 0 a 1\n")
    run.write_text("q1 Q0 a 1 2.0 a\nq1 Q0 b 2 1.0 a\nq2 Q0 a 1 1.0 a\n")
    for args in (["eval", qrels, run], ["check", qrels, run, "-b", run, "--no-config"]):
        res = run_cli(*args)
        assert res.returncode == 2
        assert "The qrels judge the same document twice in queries 'q1'" in res.stderr, res.stderr
