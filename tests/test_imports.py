"""What ``import irframe`` and ``irframe eval`` import (issue 13: ``import irframe`` under 0.3 s).

Each check runs in a fresh interpreter, since this one has imported everything already.
Only which modules get imported is asserted, never a time.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

GOLDEN = Path(__file__).resolve().parents[1] / "src" / "irframe" / "datasets" / "golden"
HEAVY = ("polars", "numpy", "pyarrow", "pandas", "dask")


def _run(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_import_irframe_imports_no_heavy_library() -> None:
    code = f"import sys, irframe; print(sorted(m for m in {HEAVY!r} if m in sys.modules))"
    assert _run(code) == "[]"


def test_import_irframe_loads_no_engine_module() -> None:
    code = (
        "import sys, irframe; print(sorted(m for m in sys.modules if m.startswith('irframe.') "
        "and m not in ('irframe._namespaces',)))"
    )
    assert _run(code) == "[]"


# a query whose first relevant document is at rank 2: RR = 1/2
_FRAME = "{'query_id': ['q1', 'q1'], 'doc_id': ['a', 'b'], 'rank': [1, 2], 'relevance': [0, 1]}"
_RUN = (
    f"df = pl.DataFrame({_FRAME}); "
    "print(df.ir.mrr()['RR'].to_list(), df.lazy().ir.mrr().collect()['RR'].to_list())"
)
_ORDERS = [
    "import irframe; import polars as pl",
    "import polars as pl; import irframe",
    "import irframe, polars as pl",
]


@pytest.mark.parametrize("imports", _ORDERS)
def test_polars_namespace_either_import_order(imports: str) -> None:
    assert _run(f"{imports}; {_RUN}") == "[0.5] [0.5]"


def test_polars_namespace_when_polars_comes_in_through_a_submodule() -> None:
    assert _run(f"import irframe; from polars import DataFrame; import polars as pl; {_RUN}") == "[0.5] [0.5]"


def _hooks() -> str:
    return "sorted(getattr(f, 'name', '') for f in sys.meta_path if type(f).__name__ == '_PostImportHook')"


def test_the_polars_hook_leaves_the_finders_once_polars_is_imported() -> None:
    code = f"import sys, irframe; print({_hooks()}); import polars; print({_hooks()})"
    before, after = _run(code).splitlines()
    assert before == "['dask.dataframe', 'pandas', 'polars']"
    assert after == "['dask.dataframe', 'pandas']"  # polars looks pandas up without importing it


def test_pandas_namespace_after_polars_looked_pandas_up() -> None:
    # importing polars probes for pandas (importlib.util.find_spec); the pandas hook must survive that
    code = f"import irframe, polars, pandas as pd; print(pd.DataFrame({_FRAME}).ir.mrr()['RR'].tolist())"
    assert _run(code) == "[0.5]"


def test_every_public_name_resolves_to_its_home_module_object() -> None:
    code = """
import importlib, irframe
homes = {name: module for module, names in irframe._HOMES.items() for name in names}
out = {}
for name in irframe.__all__:
    value = getattr(irframe, name)
    if name in homes:
        out[name] = value is getattr(importlib.import_module(homes[name]), name)
    else:
        out[name] = value is not None
print(sorted(n for n, ok in out.items() if not ok), sorted(set(irframe.__all__) - set(dir(irframe))))
"""
    assert _run(code) == "[] []"


def test_every_home_table_entry_is_public() -> None:
    # the lazy table and __all__ name the same things (plus the eager namespace and version)
    # (the public submodules are attributes too, but not in __all__: a star import would load them all)
    eager = "{'IrNamespace', 'ir', '__version__'}"
    code = (
        f"import irframe; print(sorted(set(irframe.__all__) ^ {{*irframe._LAZY, *{eager}}} "
        "- (set(irframe.SUBMODULES) - set(irframe.__all__))))"
    )
    assert _run(code) == "[]"


def test_submodules_lists_every_public_module() -> None:
    """Every module or package of irframe without a leading underscore is in ``SUBMODULES``
    (but the mypy plugin, which imports mypy: mypy loads it by name)."""
    import irframe

    root = Path(irframe.__file__).parent
    on_disk = {p.stem for p in root.glob("*.py")} | {p.parent.name for p in root.glob("*/__init__.py")}
    assert sorted(n for n in on_disk if not n.startswith("_")) == sorted([*irframe.SUBMODULES, "mypy"])


def test_every_public_submodule_is_an_attribute_after_import_irframe() -> None:
    """Issue 45: ``irframe.stats`` raised AttributeError unless something had imported it;
    each is looked up in a fresh interpreter right after ``import irframe``, and
    ``import irframe`` loads none of them."""
    code = """
import sys, irframe
loaded = sorted(n for n in irframe.SUBMODULES if f"irframe.{n}" in sys.modules)
names = [getattr(irframe, n).__name__ for n in irframe.SUBMODULES]
print(loaded, names == [f"irframe.{n}" for n in irframe.SUBMODULES], "stats" in dir(irframe))
"""
    assert _run(code) == "[] True True"


def test_the_convention_warnings_silencing_advice_runs_after_import_irframe() -> None:
    """The advice the ConventionWarning prints, run as written at the top of a script
    (right after ``import irframe``: nothing has imported irframe.exceptions yet),
    silences the warning; without it, the same script is warned."""
    from irframe.measures._conventions import _SILENCE

    advice = _SILENCE.split("to silence it: ", 1)[1].removesuffix(".)")
    code = """
import warnings, irframe
{advice}
import polars as pl
run = pl.DataFrame({{"query_id": ["q"], "doc_id": ["a"], "score": [1.0], "relevance": [1]}})
with warnings.catch_warnings(record=True) as caught:
    run.ir.ndcg(k=10)  # nDCG's gain: a ConventionWarning
print([w.category.__name__ for w in caught])
"""
    assert _run(code.format(advice="pass")) == "['ConventionWarning']"
    assert _run(code.format(advice=advice)) == "[]"


def test_from_import_and_star_import() -> None:
    code = (
        "from irframe import evaluate, IrFrameError, datasets; from irframe import *; "
        "print(evaluate.__module__, IrFrameError.__module__, datasets.__name__, check.__module__, "
        "moved.__module__)"
    )
    expected = (
        "irframe.functions irframe.exceptions irframe.datasets irframe._check.gate irframe._compare.movers"
    )
    assert _run(code) == expected


def test_unknown_attribute_is_an_attribute_error() -> None:
    code = "import irframe\ntry:\n    irframe.evaluat\nexcept AttributeError as e:\n    print(e)"
    assert _run(code) == "module 'irframe' has no attribute 'evaluat'"


@pytest.mark.parametrize(
    "first",
    ["import irframe._check.gate", "import irframe._compare", "from irframe._check.gate import check"],
)
def test_check_and_compare_stay_functions_when_their_module_is_imported_first(first: str) -> None:
    code = f"{first}; import irframe; print(type(irframe.check).__name__, type(irframe.compare).__name__)"
    assert _run(code) == "function function"


def _cli_modules(*argv: str) -> tuple[str, list[str]]:
    """Run ``python -m irframe ARGV`` in a fresh interpreter: its stdout and the modules it imported."""
    code = f"""
import io, json, runpy, sys, contextlib
sys.argv = ['irframe', *{list(argv)!r}]
out = io.StringIO()
with contextlib.redirect_stdout(out):
    try:
        runpy.run_module('irframe', run_name='__main__', alter_sys=True)
    except SystemExit as exc:
        assert not exc.code, exc.code
print(json.dumps([out.getvalue(), sorted(sys.modules)]))
"""
    stdout, modules = json.loads(_run(code))
    return stdout, modules


def test_cli_eval_imports_only_what_eval_needs() -> None:
    stdout, modules = _cli_modules(
        "eval",
        str(GOLDEN / "qrels.txt"),
        str(GOLDEN / "runs" / "bm25.run"),
        "-m",
        "P_10",
        "-m",
        "runid",
        "-q",
        "-f",
        "trec",
    )
    assert ["runid", "all", "bm25"] in [line.split() for line in stdout.splitlines()]  # it did evaluate
    unneeded = {
        "irframe.compare", "irframe.check", "irframe.plotting", "irframe.stats", "irframe._check.snapshot",
        "irframe.cli.compare", "irframe.cli.check", "irframe.cli.snapshot", "irframe.cli.demo",
        "irframe.cli.measures", "pandas", "dask", "matplotlib", "scipy",
    }  # fmt: skip
    assert sorted(unneeded & set(modules)) == []
    assert "polars" in modules  # the check sees what eval does import


def test_cli_help_and_version_import_no_frame_library() -> None:
    stdout, modules = _cli_modules("--version")
    assert stdout.startswith("irframe ")
    assert sorted(set(HEAVY) & set(modules)) == []
    code = "import sys; from irframe.cli import _build_parser; _build_parser().format_help(); print({})"
    assert _run(code.format(f"sorted(set({HEAVY!r}) & set(sys.modules))")) == "[]"


def test_cli_help_lists_every_subcommand() -> None:
    from irframe.cli import _COMMANDS, _build_parser

    help_text = _build_parser().format_help()
    assert all(f"    {name} " in help_text or f"    {name}\n" in help_text for name in _COMMANDS)
    # eval, compare, snapshot, check, sample, pool, judgments, agreement, power, fuse, demo, measures, online,
    # answers, clicks
    assert len(_COMMANDS) == 15


_ALLOC = (
    "import os, sys; from irframe.cli import main; "
    "main(['eval', {qrels!r}, {run!r}, '-m', 'RR']); print(os.environ.get('_RJEM_MALLOC_CONF'))"
)


def test_cli_returns_freed_memory_unless_the_user_chose() -> None:
    # the command sets polars' allocator to return freed pages before polars loads ...
    files = {"qrels": str(GOLDEN / "qrels.txt"), "run": str(GOLDEN / "runs" / "bm25.run")}
    # (this process imported polars, which exported its own setting: a fresh shell has none)
    fresh = "import os; os.environ.pop('_RJEM_MALLOC_CONF', None); "
    out = _run(fresh + _ALLOC.format(**files)).splitlines()
    # (polars puts its own defaults first; the last setting of an option wins)
    assert out[-1].endswith(",muzzy_decay_ms:0")
    # ... and leaves a setting of the user's as it is
    code = "import os; os.environ['_RJEM_MALLOC_CONF'] = 'narenas:2'; " + _ALLOC.format(**files)
    mine = _run(code).splitlines()[-1]
    assert mine.endswith(",narenas:2")
    assert "muzzy_decay_ms:0" not in mine
