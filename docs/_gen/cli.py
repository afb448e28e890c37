"""CLI reference, generated from irframe's argument parser (whatever module builds it)."""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
from collections.abc import Callable

BUILDERS = ("_build_parser", "build_parser")  # the names the parser builder has had


def find_builder() -> Callable[[], argparse.ArgumentParser]:
    """``irframe.cli``'s parser builder, looked up by name (cli may be a module or a package)."""
    cli = importlib.import_module("irframe.cli")
    modules = [cli]
    if hasattr(cli, "__path__"):  # a package: its submodules too (irframe.cli._parser ...)
        modules += [
            importlib.import_module(m.name) for m in pkgutil.iter_modules(cli.__path__, "irframe.cli.")
        ]
    for module in modules:
        for name in BUILDERS:
            builder = getattr(module, name, None)
            if callable(builder):
                return builder  # type: ignore[no-any-return]
    msg = f"irframe.cli has none of {BUILDERS}. Hint: update docs/_gen/cli.py to the parser builder's name."
    raise RuntimeError(msg)


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _help(parser: argparse.ArgumentParser) -> str:
    # argparse wraps to the terminal width (and may colour on a terminal): fix both for the page
    fixed = {"COLUMNS": "100", "NO_COLOR": "1"}
    old = {key: os.environ.get(key) for key in fixed}
    os.environ.update(fixed)
    try:
        return parser.format_help().rstrip()
    finally:
        for key, value in old.items():
            if value is None:
                del os.environ[key]
            else:
                os.environ[key] = value


def page() -> str:
    """The CLI reference page in markdown."""
    parser = find_builder()()
    lines = [
        "# Command line",
        "",
        "Generated at build time from the `irframe` command's own argument parser, so it lists",
        "exactly the options of the installed version. `irframe COMMAND --help` prints the same text.",
        "",
        "```text",
        _help(parser),
        "```",
        "",
    ]
    for name, sub in _subcommands(parser).items():
        lines += [f"## `irframe {name}`", "", "```text", _help(sub), "```", ""]
    return "\n".join(lines)
