"""DCG, IDCG and judged-only rankings against the trec_eval 10.0 binary.

The binary is read from ``IRFRAME_TREC_EVAL`` (``trec_eval_fp`` prints 15 decimals);
the tests skip with a message when it is unset or missing.  Data: trec_eval's own test
files and a generated case with ties, negative grades, unjudged documents, a query
missing from the run, short runs and a query with nothing relevant.
"""

from __future__ import annotations

import os
import random
import subprocess
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import irframe
from _support.helpers import TREC_EVAL_TEST_DIR


def _binary() -> str:
    path = os.environ.get("IRFRAME_TREC_EVAL")
    if not path or not Path(path).is_file():
        pytest.skip("set IRFRAME_TREC_EVAL to a trec_eval 10.0 binary (trec_eval_fp) to run this test")
    return path


def _edge_case(tmp: Path) -> tuple[Path, Path]:
    rng = random.Random(7)
    qrels, run = [], []
    for q in range(1, 9):
        docs = [f"d{i}" for i in range(30)]
        for d in rng.sample(docs, 15):
            qrels.append(f"{q} 0 {d} {rng.choice([-1, 0, 0, 1, 2, 3] if q != 5 else [0, -1])}")
        if q == 8:
            continue  # judged, not in the run
        for d in rng.sample(docs, rng.randint(1, 25)):
            run.append(f"{q} Q0 {d} 0 {rng.randint(0, 6)} tag")  # integer scores: many ties
    qp, rp = tmp / "qrels", tmp / "run"
    qp.write_text("\n".join(qrels) + "\n")
    rp.write_text("\n".join(run) + "\n")
    return qp, rp


def _datasets(tmp: Path) -> list[tuple[Path, Path]]:
    out = [_edge_case(tmp)]
    if TREC_EVAL_TEST_DIR.is_dir():
        out.append((TREC_EVAL_TEST_DIR / "qrels.test", TREC_EVAL_TEST_DIR / "results.test"))
    return out


def _trec_eval(
    binary: str, qrels: Path, run: Path, names: list[str], *, judged_only: bool
) -> dict[tuple[str, str], float]:
    args = [binary, "-q", "-c", *(["-J"] if judged_only else [])]
    cuts: dict[str, list[str]] = {}
    for n in names:  # P_5, P_10 -> -m P.5,10
        base, _, k = n.rpartition("_")
        if k.isdigit() and base not in ("num_rel", "num"):
            cuts.setdefault(base, []).append(k)
        else:
            args += ["-m", n]
    args += [f"-m{base}.{','.join(ks)}" for base, ks in cuts.items()]
    out = subprocess.run([*args, str(qrels), str(run)], capture_output=True, text=True, check=True).stdout
    values = {}
    for line in out.splitlines():
        name, qid, value = line.split()
        if qid != "all" and name in names:
            values[name, qid] = float(value)
    return values


def _irframe(qrels: Path, run: Path, measures: dict[str, str]) -> dict[tuple[str, str], Any]:
    per_q = irframe.evaluate(
        irframe.read_trec_run(run), list(measures.values()), irframe.read_trec_qrels(qrels), per_query=True
    )
    out = {}
    for row in per_q.with_columns(pl.col("query_id").cast(pl.String)).iter_rows(named=True):
        for name, label in measures.items():
            out[name, row["query_id"]] = row[label]
    return out


def _compare(expected: dict[tuple[str, str], float], got: dict[tuple[str, str], Any]) -> list[str]:
    return [
        f"{key}: trec_eval {v!r}, irframe {got.get(key)!r}"
        for key, v in expected.items()
        if got.get(key) is None or abs(got[key] - v) > 1e-9
    ]


def test_dcg_and_ideal_dcg_match_trec_eval(tmp_path: Path) -> None:
    binary = _binary()
    measures = {"dcg": "DCG(gain=linear)", "ideal_dcg": "IDCG(gain=linear)"}
    for qrels, run in _datasets(tmp_path):
        expected = _trec_eval(binary, qrels, run, list(measures), judged_only=False)
        assert expected
        got = _irframe(qrels, run, measures)
        # trec_eval's spelling parses to the same measure
        got_trec = _irframe(qrels, run, {n: n for n in measures})
        assert got_trec == got
        assert not _compare(expected, got), _compare(expected, got)[:10]


JUDGED_ONLY = {
    "P_5": "P(judged_only=True)@5",
    "P_10": "P(judged_only=True)@10",
    "recall_10": "R(judged_only=True)@10",
    "map": "AP(judged_only=True)",
    "map_cut_10": "AP(judged_only=True)@10",
    "ndcg": "nDCG(gain=linear,judged_only=True)",
    "ndcg_cut_10": "nDCG(gain=linear,judged_only=True)@10",
    "dcg": "DCG(gain=linear,judged_only=True)",
    "recip_rank": "RR(judged_only=True)",
    "Rprec": "Rprec(judged_only=True)",
    "bpref": "Bpref(judged_only=True)",
    "success_1": "Success(judged_only=True)@1",
    "num_ret": "NumRet(judged_only=True)",
    "num_rel_ret": "NumRelRet(judged_only=True)",
}


def test_judged_only_matches_trec_eval_dash_j(tmp_path: Path) -> None:
    binary = _binary()
    for qrels, run in _datasets(tmp_path):
        expected = _trec_eval(binary, qrels, run, list(JUDGED_ONLY), judged_only=True)
        assert expected
        got = _irframe(qrels, run, JUDGED_ONLY)
        assert not _compare(expected, got), _compare(expected, got)[:10]
        # -J changes something on these data (the test can tell the two apart)
        plain = _trec_eval(binary, qrels, run, list(JUDGED_ONLY), judged_only=False)
        assert any(abs(plain[k] - v) > 1e-9 for k, v in expected.items())
