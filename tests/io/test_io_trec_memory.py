"""The TREC readers' memory stays within a small budget on hostile files (issue 15, item 6).

Each file is read in a child process whose address space is capped (``RLIMIT_AS``) at
what it had after importing irframe and reading a tiny file, plus a fixed budget: a
reader that inflates the whole file, or makes a row per blank line, dies of it.
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="needs RLIMIT_AS and /proc/self/status (Linux)"
)

MiB = 2**20
_CHILD = r"""
import io, json, re, resource, sys
from irframe.io import read_trec_qrels, read_trec_run
from irframe.exceptions import IrFrameError

def vm(key):
    status = open("/proc/self/status").read()
    return int(re.search(key + r":\s+(\d+) kB", status).group(1)) * 1024

# warm up both reading paths (thread pools, lazy imports) before measuring
read_trec_run(io.StringIO("q Q0 d 1 1 t\n" * 100))
read_trec_run(io.StringIO("q  Q0 d 1 1 t\n" * 100))
read_trec_qrels(io.StringIO("q 0 d 1\n"))
base = vm("VmSize")
budget = int(sys.argv[3]) * 2**20
resource.setrlimit(resource.RLIMIT_AS, (base + budget, base + budget))
reader = read_trec_qrels if sys.argv[2] == "qrels" else read_trec_run
results = []
for path in sys.argv[4:]:
    try:
        out = {"rows": reader(path).height}
    except IrFrameError as exc:
        out = {"error": str(exc)[:300]}
    out["extra_vm_mb"] = (vm("VmPeak") - base) / 2**20
    results.append(out)
print(json.dumps(results))
"""


def _read_all_capped(paths: list[Path], budget_mb: int, kind: str = "run") -> list[dict[str, object]]:
    """Read each file in turn in one child process capped at ``budget_mb`` beyond its start."""
    proc = subprocess.run(
        [sys.executable, "-c", _CHILD, "", kind, str(budget_mb), *map(str, paths)],
        check=False, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert proc.returncode == 0, f"reader died under a {budget_mb} MB cap:\n{proc.stderr[-2000:]}"
    return json.loads(proc.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def _read_capped(path: Path, budget_mb: int, kind: str = "run") -> dict[str, object]:
    return _read_all_capped([path], budget_mb, kind)[0]


def _write_repeated(path: Path, unit: bytes, size: int, *, compress: bool = False) -> Path:
    block = unit * (MiB // len(unit))
    with gzip.open(path, "wb", compresslevel=1) if compress else path.open("wb") as fh:
        for _ in range(size // MiB):
            fh.write(block)
    return path


# --- small, in the default run ----------------------------------------------------------------
def test_newlines_gzip_bomb_and_long_line(tmp_path: Path) -> None:
    # 8 MiB of newlines (8M lines), a gzip bomb of zeros, one 16 MiB line: under a
    # 128 MB cap (reading everything at once took 10x the file size)
    newlines = _write_repeated(tmp_path / "newlines.run", b"\n", 8 * MiB)
    zeros = _write_repeated(tmp_path / "zeros.run.gz", b"\0", 32 * MiB, compress=True)
    assert zeros.stat().st_size < MiB
    line = _write_repeated(tmp_path / "long.run", b"a", 16 * MiB)
    got = _read_all_capped([newlines, zeros, line], budget_mb=128)
    assert got[0]["rows"] == 0
    assert str(got[1]["error"]).startswith(f"{zeros}:1: ")
    assert "long.run:1: line longer than 1048576 bytes" in str(got[2]["error"])


@pytest.mark.slow
@pytest.mark.parametrize(
    ("unit", "kind"),
    [
        pytest.param(b"\r\n", "qrels", id="crlf-blank-lines"),
        pytest.param(b" \n", "run", id="blank-lines-with-spaces"),
        pytest.param(b"\r", "run", id="cr-only"),
    ],
)
def test_blank_files_take_no_rows(tmp_path: Path, unit: bytes, kind: str) -> None:
    path = _write_repeated(tmp_path / "blank.txt", unit, 32 * MiB)
    assert _read_capped(path, budget_mb=160, kind=kind)["rows"] == 0


# --- the sizes of the issue (slow) ------------------------------------------------------------
@pytest.mark.slow
def test_issue_sizes(tmp_path: Path) -> None:
    # 0.5 MB of gzip inflating to 512 MB; 128 MB of newlines; one 256 MB line
    bomb = _write_repeated(tmp_path / "bomb.run.gz", b"\0", 512 * MiB, compress=True)
    assert str(_read_capped(bomb, budget_mb=256)["error"]).startswith(f"{bomb}:1: ")
    nl_bomb = _write_repeated(tmp_path / "nl.run.gz", b"\n", 512 * MiB, compress=True)
    assert _read_capped(nl_bomb, budget_mb=256)["rows"] == 0
    (tmp_path / "nl.run.gz").unlink()
    newlines = _write_repeated(tmp_path / "newlines.run", b"\n", 128 * MiB)
    assert _read_capped(newlines, budget_mb=256)["rows"] == 0
    newlines.unlink()
    line = _write_repeated(tmp_path / "line.run", b"x", 256 * MiB)
    assert "line longer" in str(_read_capped(line, budget_mb=256)["error"])


@pytest.mark.slow
def test_valid_file_reads_within_a_few_times_its_size(tmp_path: Path) -> None:
    # 2e6 valid lines (~60 MB): the result itself is about that size
    line = b"q%06d Q0 doc_%08d 1 0.5 tag\n"
    path = tmp_path / "valid.run"
    with path.open("wb") as fh:
        for start in range(0, 2_000_000, 100_000):
            fh.write(b"".join(line % (i // 100, i) for i in range(start, start + 100_000)))
    size_mb = path.stat().st_size / MiB
    got = _read_capped(path, budget_mb=int(4 * size_mb) + 128)
    assert got["rows"] == 2_000_000
