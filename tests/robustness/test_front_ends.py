"""Every front end as strict, and as forgiving, as ``evaluate`` (issue 35, class 4).

The same data under irframe's column names, PyTerrier's (``qid``, ``docno``, ``label``:
found by evaluate without ``columns=``) and with ``columns="pyterrier"``, as polars and
pandas: snapshot, check, moved and compare give the same numbers on all of them; and what
evaluate refuses (a bad option, a duplicated document, an unknown option name) each of them
refuses with the same kind of error.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import polars as pl
import pytest

import irframe
from irframe.datasets import golden
from irframe.exceptions import IrFrameError

G = golden()
RUNS = {s: G.runs.filter(pl.col("system") == s).drop("system") for s in ("bm25", "hybrid")}
PT_RUN = {"query_id": "qid", "doc_id": "docno"}
PT_QRELS = {"query_id": "qid", "doc_id": "docno", "relevance": "label"}


def _forms() -> dict[str, tuple[dict[str, Any], Any, dict[str, Any]]]:
    """name -> (runs, qrels, keyword arguments)."""
    pt_runs = {s: r.rename(PT_RUN) for s, r in RUNS.items()}
    pt_qrels = G.qrels.rename(PT_QRELS)
    out: dict[str, tuple[dict[str, Any], Any, dict[str, Any]]] = {
        "irframe names": (RUNS, G.qrels, {}),
        "pyterrier names, found": (pt_runs, pt_qrels, {}),
        "pyterrier names, columns='pyterrier'": (pt_runs, pt_qrels, {"columns": "pyterrier"}),
    }
    try:
        import pandas  # noqa: F401
    except ImportError:
        return out
    pd_runs = {s: r.to_pandas() for s, r in pt_runs.items()}
    out["pyterrier names, pandas"] = (pd_runs, pt_qrels.to_pandas(), {})
    return out


FORMS = _forms()


def _polars(frame: Any) -> pl.DataFrame:
    return frame if isinstance(frame, pl.DataFrame) else pl.from_pandas(frame)


FRONT_ENDS: dict[str, Callable[[dict[str, Any], Any, dict[str, Any]], list[Any]]] = {
    "evaluate": lambda runs, q, kw: (
        _polars(irframe.evaluate(runs["bm25"], ["RR", "nDCG@10"], q, per_query=True, **kw))
        .sort(pl.first())["RR"]
        .to_list()
    ),
    "snapshot": lambda runs, q, kw: (
        irframe.snapshot(runs["bm25"], q, ["RR"], **kw).values.sort("query_id")["RR"].to_list()
    ),
    "check (run baseline)": lambda runs, q, kw: _polars(
        irframe.check(runs["hybrid"], q, baseline=runs["bm25"], measures="RR", **kw).comparisons
    )["delta"].to_list(),
    "check (snapshot)": lambda runs, q, kw: _polars(
        irframe.check(
            runs["hybrid"], q, baseline=irframe.snapshot(runs["bm25"], q, ["RR"], **kw), **kw
        ).comparisons
    )["delta"].to_list(),
    "compare": lambda runs, q, kw: _polars(irframe.compare(runs, q, "RR", **kw))["delta"].to_list(),
    "moved": lambda runs, q, kw: sorted(
        _polars(irframe.moved(runs, q, "RR", docs_top=0, **kw))["delta"].to_list()
    ),
}


@pytest.mark.parametrize("front", list(FRONT_ENDS))
def test_every_front_end_reads_every_column_convention_evaluate_reads(front: str) -> None:
    got = {name: FRONT_ENDS[front](*form) for name, form in FORMS.items()}
    want = got.pop("irframe names")
    for name, values in got.items():
        assert values == pytest.approx(want, rel=1e-12, abs=1e-15), (front, name)


BAD_OPTIONS: dict[str, dict[str, Any]] = {
    "an unknown option": {"qery_col": "qid"},
    "an unknown rule": {"duplicates": "keep"},
    "an unknown preset": {"columns": "pyterier"},
}


@pytest.mark.parametrize("bad", list(BAD_OPTIONS))
@pytest.mark.parametrize("front", list(FRONT_ENDS))
def test_what_evaluate_refuses_every_front_end_refuses(front: str, bad: str) -> None:
    runs, qrels, _ = FORMS["irframe names"]
    with pytest.raises(IrFrameError) as want:
        FRONT_ENDS["evaluate"](runs, qrels, BAD_OPTIONS[bad])
    with pytest.raises(IrFrameError) as got:
        FRONT_ENDS[front](runs, qrels, BAD_OPTIONS[bad])
    assert type(got.value) is type(want.value), (str(want.value), str(got.value))
    assert "__" not in str(got.value)


@pytest.mark.parametrize("front", list(FRONT_ENDS))
def test_a_document_twice_in_a_ranking_is_refused_by_every_front_end(front: str) -> None:
    doubled = {s: pl.concat([r, r.head(1)]) for s, r in RUNS.items()}
    with pytest.raises(IrFrameError) as want:
        FRONT_ENDS["evaluate"](doubled, G.qrels, {})
    with pytest.raises(IrFrameError) as got:
        FRONT_ENDS[front](doubled, G.qrels, {})
    assert type(got.value) is type(want.value)
    assert "q01" in str(got.value) or "duplicate" in str(got.value).lower()
