"""``power`` answers the gate's question: given the same ``[tool.irframe.check]`` it tests at the
level one comparison must pass in the gate's family (alpha / family: Holm's first step), says
so in its first line, and its minimum detectable effect is the one ``irframe check`` states.

The number is checked against scipy's noncentral t: at the reported effect, a two-sided paired
t test at level 0.05 / 8 on the 40 golden queries has power 0.8.
"""

from __future__ import annotations

import math
from pathlib import Path

import polars as pl
import pytest

import irframe
from _support.cli_runner import run_cli

CONFIG = """[tool.irframe.check]
qrels = "qrels.txt"
queries = "queries.tsv"
measures = ["nDCG@10", "RR"]
alpha = 0.05
by = "segment"
"""
FAMILY = 2 * (1 + 3)  # measures x (overall + the 3 segments of the golden queries)


@pytest.fixture
def golden_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    g = irframe.datasets.golden()
    for name in ("bm25", "dense"):
        irframe.io.write_trec_run(
            g.runs.filter(system=name).drop("system"), tmp_path / f"{name}.run", tag=name
        )
    irframe.io.write_trec_qrels(g.qrels, tmp_path / "qrels.txt")
    g.queries.write_csv(tmp_path / "queries.tsv", separator="\t")
    (tmp_path / "pyproject.toml").write_text(CONFIG)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _power_at(effect: float, sd: float, n: int, level: float) -> float:
    ss = pytest.importorskip("scipy.stats", reason="needs pip install scipy (the noncentral t)")
    crit = ss.t.ppf(1 - level / 2, n - 1)
    nc = effect / sd * math.sqrt(n)
    return float(ss.nct.sf(crit, n - 1, nc) + ss.nct.cdf(-crit, n - 1, nc))


def _table(stdout: str) -> dict[str, list[str]]:
    lines = stdout.splitlines()
    header = lines[1].split()
    return {line.split()[0]: line.split() for line in lines[2:4]} | {"header": header}


def test_power_takes_the_gates_alpha_and_family_and_agrees_with_check(golden_dir: Path) -> None:
    res = run_cli("power", "qrels.txt", "bm25.run", "dense.run", "-f", "table")
    assert res.returncode == 0, res.stderr
    first = res.stdout.splitlines()[0]
    assert first == (
        f"alpha {0.05 / FAMILY:.3g} = 0.05 / {FAMILY}: Holm's first step (the gate's, from pyproject.toml "
        "[tool.irframe.check]: alpha, by, measures)"
    )
    rows = _table(res.stdout)
    col = rows["header"].index
    n, sd = int(rows["nDCG@10"][col("n_queries")]), float(rows["nDCG@10"][col("sd_delta")])
    mde = float(rows["nDCG@10"][col("mde")])
    assert n == 40
    assert _power_at(mde, sd, n, 0.05 / FAMILY) == pytest.approx(0.8, abs=2e-3)  # (4 decimals printed)
    gate = run_cli("check", "dense.run", "--baseline", "bm25.run", "--test", "t", "--bootstrap", "200",
                   "-f", "text")  # fmt: skip
    assert f"drops of {mde:.3g} nDCG@10 or more are detected 80% of the time" in gate.stdout, gate.stdout


def test_flags_override_the_config_and_no_config_is_one_comparison(golden_dir: Path) -> None:
    res = run_cli("power", "qrels.txt", "bm25.run", "dense.run", "-f", "table", "--alpha", "0.1")
    assert res.stdout.splitlines()[0].startswith(f"alpha {0.1 / FAMILY:.3g} = 0.1 / {FAMILY}: Holm's")
    res = run_cli("power", "qrels.txt", "bm25.run", "dense.run", "-f", "table", "--no-config")
    assert res.stdout.splitlines()[0] == "alpha 0.05 (one comparison; --family N for a gate over N)"
    res = run_cli("power", "qrels.txt", "bm25.run", "dense.run", "-f", "tsv", "--family", "12", "-m", "RR",
                  "--precision", "12")  # fmt: skip
    table = pl.read_csv(res.stdout.encode(), separator="\t")
    assert table.item(0, "alpha") == pytest.approx(0.05 / 12)
    assert table.item(0, "family") == 12


def test_the_python_function_takes_the_family() -> None:
    g = irframe.datasets.golden()
    pq = irframe.evaluate(g.runs, ["nDCG@10"], g.qrels, by="system", per_query=True)
    pair = {s: pq.filter(pl.col("system") == s).drop("system") for s in ("bm25", "dense")}
    gated = irframe.power(pair, "nDCG@10", family=FAMILY, effect=0.03)
    row = gated.row(0, named=True)
    assert row["alpha"] == pytest.approx(0.05 / FAMILY)
    assert row["summary"].endswith(f"(alpha {0.05 / FAMILY:.3g} = 0.05 / {FAMILY}: Holm's first step)")
    assert _power_at(row["mde"], row["sd_delta"], 40, 0.05 / FAMILY) == pytest.approx(0.8, abs=1e-6)
    n = row["n_needed"]  # the smallest n whose power for 0.03 reaches 0.8
    assert _power_at(0.03, row["sd_delta"], n, 0.05 / FAMILY) >= 0.8
    assert _power_at(0.03, row["sd_delta"], n - 1, 0.05 / FAMILY) < 0.8
    plain = irframe.power(pair, "nDCG@10", alpha=0.05 / FAMILY, correction="none", effect=0.03)
    assert plain.item(0, "mde") == pytest.approx(row["mde"])
    assert irframe.power(pair, "nDCG@10", family=FAMILY, correction="none").item(0, "alpha") == 0.05
