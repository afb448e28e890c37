"""The code's shape, checked like its numbers: no function over 80 lines, no import cycle.

Lines are counted from ``def`` to the function's last line, without its docstring
(numpydoc examples are documentation, not code). Imports include those inside functions:
a lazy import is still a dependency, and a cycle through one is still a cycle. Imports
under ``if TYPE_CHECKING:`` are annotations only and are not counted.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src" / "irframe"
MAX_LINES = 80


def _modules() -> dict[str, Path]:
    out = {}
    for path in SRC.rglob("*.py"):
        rel = path.relative_to(SRC.parent).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _function_lengths(path: Path) -> list[tuple[str, int]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            first = node.body[0]
            doc = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
            if doc and isinstance(first.value.value, str):  # type: ignore[attr-defined]
                length -= (first.end_lineno or first.lineno) - first.lineno + 1
            out.append((f"{path.name}:{node.lineno} {node.name}", length))
    return out


def test_no_function_over_80_lines() -> None:
    long = [
        (where, n)
        for path in sorted(SRC.rglob("*.py"))
        for where, n in _function_lengths(path)
        if n > MAX_LINES
    ]
    assert not long, f"functions over {MAX_LINES} lines (docstrings excluded): {long}"


def _imports(name: str, path: Path, known: set[str]) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    typing_only = {
        id(n)
        for block in ast.walk(tree)
        if isinstance(block, ast.If) and ast.unparse(block.test).endswith("TYPE_CHECKING")
        for n in ast.walk(block)
    }
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{parent}.{base}" if base else parent
            targets = [base] + [f"{base}.{a.name}" for a in node.names]
        for target in targets:
            t = target
            while t and t not in known:
                t = t.rpartition(".")[0]
            if t and t != name:
                out.add(t)
    return out


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def _package_edges(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """Drop a package's edges to its own submodules (``__init__`` re-exporting them)."""
    return {m: {t for t in ts if not t.startswith(m + ".")} for m, ts in graph.items()}


def test_no_import_cycles() -> None:
    mods = _modules()
    graph = _package_edges({name: _imports(name, path, set(mods)) for name, path in mods.items()})
    cycle = _cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def _top(name: str) -> str:
    """A module's top-level part of the library: ``irframe._check.gate`` -> ``irframe._check``."""
    return ".".join(name.split(".")[:2])


def test_no_import_cycles_between_parts() -> None:
    """Between the library's parts (``_check``, ``_compare``, ``_report``, ``plotting``...), lazy
    imports included: reports (``_report``) import no verb, and no verb imports ``plotting``."""
    mods = _modules()
    graph: dict[str, set[str]] = {}
    for name, path in mods.items():
        for target in _imports(name, path, set(mods)):
            a, b = _top(name), _top(target)
            if a != b and "irframe" not in (a, b):  # (the package root re-exports everything)
                graph.setdefault(a, set()).add(b)
    cycle = _cycle(graph)
    assert cycle is None, "import cycle between parts: " + " -> ".join(cycle or [])


@pytest.mark.parametrize("source", ["def f():\n    import a.b\n", "from . import x\n"])
def test_the_import_reader_sees_imports(source: str, tmp_path: Path) -> None:
    """The cycle test can fail: its reader finds absolute and relative imports."""
    path = tmp_path / "m.py"
    path.write_text(source)
    found = _imports("pkg.m", path, {"a", "a.b", "pkg", "pkg.x", "pkg.m"})
    assert found in ({"a.b"}, {"pkg", "pkg.x"})
    assert _cycle({"a": {"b"}, "b": {"a"}}) == ["a", "b", "a"]
