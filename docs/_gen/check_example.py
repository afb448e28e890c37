"""The golden-set guide's CI example, run at build time: ``[tool.irframe.check]``, ``irframe snapshot``
and ``irframe check -f markdown`` on the bundled golden set, and the report they print.

The guide asks for it with ``<!-- irframe:check-example -->`` on a line of its own. The config, the
commands and the report on the page are the ones this module ran, in a temporary directory laid out
as a project would be (``golden/`` with the qrels, queries and snapshot; the runs beside).
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import tempfile
from pathlib import Path

MARKER = re.compile(r"^<!-- irframe:check-example -->$", re.MULTILINE)

CONFIG = """\
[tool.irframe.check]
qrels = "golden/qrels.txt"
queries = "golden/queries.tsv"
baseline = "golden/baseline.snapshot.json"
measures = ["nDCG@10", "RR", "R@100"]
by = ["segment"]
max_drop = 0.01
"""
SNAPSHOT = ["snapshot", "bm25.run", "-o", "golden/baseline.snapshot.json"]
CHECK = ["check", "dense.run", "-f", "markdown"]


def _lay_out(root: Path) -> None:
    import irframe
    from irframe.datasets import golden

    g = golden()
    (root / "golden").mkdir()
    irframe.write_trec_qrels(g.qrels, root / "golden" / "qrels.txt")
    g.queries.write_csv(root / "golden" / "queries.tsv", separator="\t")
    for system in ("bm25", "dense"):
        run = g.runs.filter(system=system).drop("system")
        irframe.write_trec_run(run, root / f"{system}.run", tag=system)
    (root / "pyproject.toml").write_text(CONFIG, encoding="utf-8")


def _irframe(argv: list[str]) -> tuple[int, str, str]:
    from irframe.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def run() -> tuple[int, str]:
    """``(exit code, markdown report)`` of ``irframe check`` against a bm25 snapshot."""
    here = Path.cwd()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp).resolve()
        _lay_out(root)
        os.chdir(root)  # the config is found from the working directory, as in a project
        try:
            code, _, err = _irframe(SNAPSHOT)
            if code != 0:
                msg = f"irframe snapshot failed ({code}) while building the docs: {err}"
                raise RuntimeError(msg)
            code, report, err = _irframe(CHECK)
        finally:
            os.chdir(here)
    if code not in (0, 1) or not report.strip():
        msg = f"irframe check failed ({code}) while building the docs: {err}"
        raise RuntimeError(msg)
    return code, report.replace(f"{root}{os.sep}", "")  # paths as the project sees them


def _report_block(report: str) -> list[str]:
    """The report as it would appear in a pull request: its heading as the box's title."""
    lines = report.strip().splitlines()
    heading = bool(lines) and lines[0].startswith("#")
    title = lines[0].lstrip("#").strip() if heading else "irframe check"
    title = re.sub(r"^[^\w]+", "", title).replace('"', "&quot;")  # the admonition has its own icon
    body = [line.replace("<details>", '<details markdown="1">') for line in lines[int(heading) :]]
    kind = "failure" if "FAIL" in title else "success"
    return [f'!!! {kind} irframe-report "{title}"', ""] + [f"    {line}" if line else "" for line in body]


def markdown() -> str:
    """The config, the two commands, the exit code and the rendered report."""
    code, report = run()
    return "\n".join(
        [
            '```toml title="pyproject.toml"',
            CONFIG.rstrip(),
            "```",
            "",
            "```bash",
            f"irframe {' '.join(SNAPSHOT)}   # once: the accepted system",
            f"irframe {' '.join(CHECK)}    # every change: exit code {code}",
            "```",
            "",
            "What `irframe check` printed when this page was built (a CI step can append it to the "
            "pull request or the job summary as it is):",
            "",
            *_report_block(report),
            "",
        ]
    )


def replace_marker(page: str) -> str:
    """The page with the marker replaced (run only for pages that have it)."""
    if not MARKER.search(page):
        return page
    return MARKER.sub(lambda _: markdown(), page)
