"""`irframe eval -f trec` with trec_eval's names and groups (values worked out by hand)."""

from __future__ import annotations

from pathlib import Path

import pytest

from irframe.cli import main

# q1 ranks a(1) x(not judged) c(-1); q2 is judged but absent from the run
QRELS = "q1 0 a 1\nq1 0 b 0\nq1 0 c -1\nq2 0 a 1\n"
RUN = "q1 Q0 a 1 3 t\nq1 Q0 x 2 2 t\nq1 Q0 c 3 1 t\n"


def _eval(tmp_path: Path, capsys: pytest.CaptureFixture[str], *args: str) -> dict[tuple[str, str], str]:
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_text(RUN)
    assert main(["eval", str(tmp_path / "qrels"), str(tmp_path / "run"), *args]) == 0
    rows = [line.split("\t") for line in capsys.readouterr().out.splitlines()]
    return {(r[0].strip(), r[1]): r[2] for r in rows}


def test_all_trec_rows(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    got = _eval(tmp_path, capsys, "-m", "all_trec", "-q", "-f", "trec")
    assert got[("relstring", "q1")] == "'1-.'"
    assert got[("relstring", "q2")] == "''"
    assert ("relstring", "all") not in got
    assert got[("num_q", "all")] == "2"
    assert ("num_q", "q1") not in got
    assert ("gm_map", "q1") not in got
    assert got[("gm_map", "all")] == "0.0032"  # exp((log 1 + log 1e-5) / 2)
    assert got[("num_ret", "all")] == "3"  # summed, printed as an integer
    assert got[("num_ret", "q2")] == "0"
    assert got[("P_5", "all")] == "0.1000"  # (1/5 + 0) / 2
    assert got[("unj_5", "q1")] == "0.4000"  # x and c (negative grade) over k = 5
    assert got[("iprec_at_recall_0.10", "q1")] == "1.0000"


def test_trec_names_kept_under_rel(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    got = _eval(tmp_path, capsys, "-m", "P_5", "-m", "official", "-q", "-f", "trec", "--rel", "2")
    assert got[("P_5", "q1")] == "0.0000"  # nothing has grade 2
    assert got[("num_rel", "q1")] == "0"
    assert ("set_P", "all") not in got  # not in official


def test_explicit_relstring_needs_trec_format(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_text(RUN)
    code = main(
        ["eval", str(tmp_path / "qrels"), str(tmp_path / "run"), "-m", "relstring", "-m", "map", "-f", "tsv"]
    )
    assert code != 0
    assert "relstring" in capsys.readouterr().err
