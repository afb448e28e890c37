"""API reference pages, generated from ``irframe.__all__`` and each public module's ``__all__``.

Every public module (no leading underscore, ``cli`` has its own page) gets one page rendered by
mkdocstrings; the build fails when a name in ``irframe.__all__`` is documented on no page, so the
reference cannot go stale.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from types import ModuleType

import irframe

SKIP = {"cli", "__main__"}  # the CLI has its own page, generated from the parser

# A short title per module; modules not listed get their docstring's first line.
TITLES = {
    "functions": "Evaluation functions",
    "compare": "Comparing systems",
    "measures": "Measures",
    "expr": "Measures as polars expressions",
    "io": "Files: TREC runs, qrels and tables",
    "outofcore": "Bigger than memory: parquet",
    "partition": "Partitions (for Dask, Spark and your own scheduler)",
    "dask": "Dask",
    "spark": "Spark",
    "stats": "Statistics",
    "plotting": "Plotting",
    "datasets": "Bundled data sets",
    "exceptions": "Exceptions",
    "check": "Golden-set check and snapshots",
    "golden": "Golden sets: sample, pool, judge, merge, agreement, power",
    "fusion": "Fusing runs",
    "online": "Online experiments: A/B tests and interleaving",
    "clicks": "Search logs: position bias, click models, counterfactual evaluation",
    "progress": "Progress reporting",
    "namespace": "The .ir namespace",
    "testing": "Testing helpers",
    "kernels": "Kernels (polars expressions)",
    "engine": "Engine (internals)",
}
ORDER = list(TITLES)


def public_modules() -> list[str]:
    """Names of irframe's public submodules, in reading order."""
    names = [m.name for m in pkgutil.iter_modules(irframe.__path__) if not m.name.startswith("_")]
    names = [n for n in names if n not in SKIP]
    return sorted(names, key=lambda n: (ORDER.index(n) if n in ORDER else len(ORDER), n))


def _md(text: str) -> str:
    """A docstring line in Markdown: ``x`` and :func:`x` become `x`."""
    text = re.sub(r":(?:func|class|mod|meth|attr|data):`~?([^`]+)`", r"`\1`", text)
    return text.replace("``", "`")


def _first_line(module: ModuleType) -> str:
    doc = inspect.getdoc(module) or module.__name__
    return _md(doc.strip().splitlines()[0].rstrip("."))


def _shadowed(module: str) -> list[str]:
    """Names in ``irframe.<module>.__all__`` that are also submodule names (``compare.moved``).

    Griffe documents the submodule under such a name, not the function the package re-exports,
    so these get their own section, anchored at ``irframe.<module>.<name>.<name>``.
    """
    mod = importlib.import_module(f"irframe.{module}")
    if not hasattr(mod, "__path__"):
        return []
    subs = {m.name for m in pkgutil.iter_modules(mod.__path__)}
    return [
        n for n in getattr(mod, "__all__", ()) if n in subs and not isinstance(getattr(mod, n), ModuleType)
    ]


def _anchor(module: str, name: str) -> str:
    if name in _shadowed(module):
        return f"{module}.md#irframe.{module}.{name}.{name}"
    return f"{module}.md#irframe.{module}.{name}"


# Top-level names defined in a private package get a page of their own, by package.
TOPICS = {"_compare": "compare", "_check": "check", "_golden": "golden"}


def topic_names(topic: str) -> list[str]:
    """The ``irframe.__all__`` names defined in the private package of this topic page."""
    package = next(p for p, t in TOPICS.items() if t == topic)
    return [
        n
        for n in irframe.__all__
        if getattr(getattr(irframe, n), "__module__", "").startswith(f"irframe.{package}.")
        or getattr(getattr(irframe, n), "__module__", "") == f"irframe.{package}"
    ]


def _pages_in_order() -> list[str]:
    """Public modules and topic pages, in reading order."""
    names = [*public_modules(), *TOPICS.values()]
    return sorted(names, key=lambda n: (ORDER.index(n) if n in ORDER else len(ORDER), n))


def nav() -> list[str]:
    """The API section of the site's navigation, in reading order."""
    names = _pages_in_order()
    pages = [f"reference/api/{n}.md" for n in names]
    pages.insert(1 if names and names[0] == "functions" else 0, "reference/api/namespace.md")
    return ["reference/api/index.md", *pages]


def _home(name: str) -> str | None:
    """The first public module whose ``__all__`` holds ``name`` (or that is ``irframe.<name>``)."""
    if isinstance(getattr(irframe, name), ModuleType):
        return name if name in public_modules() else None
    for topic in TOPICS.values():
        if name in topic_names(topic):
            return topic
    for module in public_modules():
        if name in getattr(importlib.import_module(f"irframe.{module}"), "__all__", ()):
            return module
    return None


_NAMESPACE = ("IrNamespace", "ir")  # defined in irframe._namespaces, documented on the namespace page


def top_level_table() -> tuple[str, list[str]]:
    """Markdown table of ``irframe.__all__`` and the names it could not place."""
    rows = ["| name | what it is | page |", "|---|---|---|"]
    lost: list[str] = []
    for name in sorted(irframe.__all__, key=str.lower):
        if name == "__version__":
            continue
        home = "namespace" if name in _NAMESPACE else _home(name)
        if home is None:
            lost.append(name)
            continue
        obj = getattr(irframe, name)
        doc = (inspect.getdoc(obj) or "").strip().splitlines()
        summary = _md(doc[0]) if doc else ""
        if name in _NAMESPACE:
            anchor = f"namespace.md#irframe._namespaces.{name}"
        elif home in TOPICS.values():
            anchor = f"{home}.md#irframe.{name}"
        else:
            anchor = f"{home}.md" if isinstance(obj, ModuleType) else _anchor(home, name)
        rows.append(f"| `irframe.{name}` | {summary} | [{TITLES.get(home, home)}]({anchor}) |")
    return "\n".join(rows) + "\n", lost


def pages() -> dict[str, str]:
    """``{path under docs/: markdown}`` for the API reference."""
    out: dict[str, str] = {}
    table, lost = top_level_table()
    if lost:
        msg = f"irframe.__all__ names with no API page: {lost}. Hint: add them to a public module's __all__."
        raise RuntimeError(msg)
    index = [
        "# API reference",
        "",
        "Generated at build time from `irframe.__all__` and each public module's `__all__`.",
        "`import irframe` registers the `.ir` namespace on pandas, polars and Dask frames: every",
        "`df.ir.<name>(...)` method forwards to the function of the same name below "
        "([the namespace](namespace.md)).",
        "",
        "## `irframe`",
        "",
        table,
        "## Modules",
        "",
    ]
    for name in public_modules():
        module = importlib.import_module(f"irframe.{name}")
        index.append(f"- [`irframe.{name}`]({name}.md): {_first_line(module)}")
        out[f"reference/api/{name}.md"] = (
            f"# {TITLES.get(name, name)}\n\n"
            f"::: irframe.{name}\n"
            "    options:\n"
            "      show_root_heading: false\n"
            "      show_root_toc_entry: false\n"
        ) + "".join(f"\n::: irframe.{name}.{sub}.{sub}\n" for sub in _shadowed(name))
    for topic in TOPICS.values():
        out[f"reference/api/{topic}.md"] = f"# {TITLES[topic]}\n" + "".join(
            f"\n::: irframe.{name}\n    options:\n      show_root_heading: true\n"
            for name in topic_names(topic)
        )
    index.append("- [`.ir` namespace](namespace.md): the methods on pandas, polars and Dask frames")
    out["reference/api/index.md"] = "\n".join(index) + "\n"
    out["reference/api/namespace.md"] = (
        "# The `.ir` namespace\n\n"
        "`import irframe` registers `.ir` on `polars.DataFrame`, `polars.LazyFrame`, `pandas.DataFrame` "
        "and Dask DataFrames. Each method forwards to the function of the same name in "
        "[`irframe`](index.md) with the frame as its first argument.\n\n"
        "::: irframe._namespaces.IrNamespace\n"
        "    options:\n"
        "      show_root_heading: true\n"
        "\n::: irframe._namespaces.ir\n"
        "    options:\n"
        "      show_root_heading: true\n"
    )
    return out
