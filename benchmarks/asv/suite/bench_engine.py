"""``irframe.evaluate`` end to end and stage by stage, the TREC reader and ``compare``.

Engine internals (``engine.build``, ``engine.collect`` ...) are private and may move: the
stages are looked up for the layout of the commit being measured (see ``_stages``), and a
benchmark whose stage no longer exists raises ``NotImplementedError`` in ``setup``, which
asv reports as skipped for that commit instead of failing the run.
"""

from __future__ import annotations

import warnings
from typing import Any, ClassVar

from . import BENCH_DIR  # noqa: F401  (puts benchmarks/ on sys.path)

ROWS = [100_000, 1_000_000]
ROW_NAMES = ["1e5", "1e6"]


def _data(rows: int) -> tuple[Any, Any]:
    import synth

    return synth.make(rows)  # pandas run + qrels, cached as parquet after the first call


def _measures(kind: str) -> list[str]:
    import contenders

    return contenders.MEASURES if kind == "5" else contenders.CLASSIC_47


class Evaluate:
    """``irframe.evaluate`` per query, from polars and pandas frames, 5 and 47 measures;
    ``polars-graded``: the grades on the run's rows (joined from the qrels), no qrels."""

    params = (ROWS, ["polars", "pandas", "polars-graded"], ["5", "47"])
    param_names: ClassVar = ["rows", "input", "measures"]
    timeout = 600

    def setup(self, rows: int, kind: str, measures: str) -> None:
        import polars as pl

        warnings.simplefilter("ignore")
        import irframe

        run, qrels = _data(rows)
        if kind != "pandas":
            run, qrels = pl.from_pandas(run), pl.from_pandas(qrels)
        if kind == "polars-graded":
            run, qrels = run.join(qrels, on=["query_id", "doc_id"], how="left", maintain_order="left"), None
        self.run, self.qrels, self.measures = run, qrels, _measures(measures)
        self.evaluate = irframe.evaluate
        self.evaluate(run.head(1000), self.measures, qrels)  # warm-up: lazy imports, thread pools

    def time_evaluate_per_query(self, rows: int, kind: str, measures: str) -> None:
        self.evaluate(self.run, self.measures, self.qrels, per_query=True)

    def time_evaluate_means(self, rows: int, kind: str, measures: str) -> None:
        self.evaluate(self.run, self.measures, self.qrels)

    def peakmem_evaluate_per_query(self, rows: int, kind: str, measures: str) -> None:
        self.evaluate(self.run, self.measures, self.qrels, per_query=True)


class Small:
    """Small inputs (issue 44): ``irframe.evaluate`` per query at 1e3 and 1e4 rows, 5 and 47
    measures, and the floor beside it (``lean``: the five measures in one lazy polars query,
    exact; with pandas in, its conversions included).  Target: polars in <= 1.5x the lean plan."""

    params = ([1_000, 10_000], ["polars", "pandas"], ["5", "47", "lean"])
    param_names: ClassVar = ["rows", "input", "measures"]

    def setup(self, rows: int, kind: str, measures: str) -> None:
        import polars as pl

        warnings.simplefilter("ignore")
        import irframe
        import lean

        run, qrels = _data(rows)
        if kind == "polars":
            run, qrels = pl.from_pandas(run), pl.from_pandas(qrels)
        if measures == "lean":
            plan = lean.lean if kind == "polars" else lean.lean_pandas
            self.call = lambda: plan(run, qrels)
        else:
            chosen = _measures(measures)
            self.call = lambda: irframe.evaluate(run, chosen, qrels, per_query=True, missing="drop")
        self.call()  # warm-up: lazy imports, the compiled measures

    def time_small(self, rows: int, kind: str, measures: str) -> None:
        self.call()


def _stages() -> tuple[Any, Any]:
    """The engine module and ``build(run, measures, qrels)`` at this commit.

    Three layouts: private packages (``irframe._engine.build(run_lf, measures, qrels,
    opts, detect_order=True, n_rows=...)``, options in ``irframe._input.options``); before
    that ``irframe.engine.build`` with ``irframe._options``; before the architecture change
    ``irframe.functions.build`` over ``irframe._engine``.
    """
    try:
        from irframe import _engine as engine
        from irframe._input.options import Options

        def build(run: Any, measures: Any, qrels: Any) -> Any:
            return engine.build(
                run.lazy(), measures, qrels, Options.build(), detect_order=True, n_rows=len(run)
            )

    except ImportError:
        try:
            from irframe._options import Options

            from irframe import engine

            def build(run: Any, measures: Any, qrels: Any) -> Any:
                return engine.build(run.lazy(), measures, qrels, Options.build(), detect_order=True)

        except ImportError:
            try:
                from irframe import _engine as engine
                from irframe.functions import build as old_build
            except ImportError as exc:
                msg = f"engine stage not found: {exc}"
                raise NotImplementedError(msg) from exc

            def build(run: Any, measures: Any, qrels: Any) -> Any:
                return old_build(run.lazy(), measures, qrels, per_query=True)

    if not all(hasattr(engine, f) for f in ("collect", "per_query_table", "summarize")):
        msg = "engine stages moved"
        raise NotImplementedError(msg)
    return engine, build


class Stages:
    """The engine's stages on polars frames: parse the measures, build the plan, collect it
    (join + per-query kernels + input checks), finish the per-query table and the means."""

    params = (ROWS,)
    param_names: ClassVar = ["rows"]
    timeout = 600

    def setup(self, rows: int) -> None:
        import polars as pl

        warnings.simplefilter("ignore")
        run, qrels = _data(rows)
        self.run, self.qrels = pl.from_pandas(run), pl.from_pandas(qrels)
        self.measures = _measures("5")
        self.engine, self.build = _stages()
        self.plan = self.build(self.run, self.measures, self.qrels)
        self.plan2, self.table = self.engine.collect(self.plan)

    def time_build_plan(self, rows: int) -> None:
        # (in-memory input: the keyed path's join and ordering run here, eagerly)
        self.build(self.run, self.measures, self.qrels)

    def time_collect(self, rows: int) -> None:
        self.engine.collect(self.plan)

    def time_per_query_table(self, rows: int) -> None:
        self.engine.per_query_table(self.plan2, self.table.lazy()).collect()

    def time_summarize(self, rows: int) -> None:
        self.engine.summarize(self.plan2, self.table.lazy()).collect()


class Reader:
    """``read_trec_run`` and ``read_trec_qrels`` on the benchmark data written as TREC files."""

    params = (ROWS,)
    param_names: ClassVar = ["rows"]
    timeout = 600

    def setup(self, rows: int) -> None:
        import synth
        from irframe.io import read_trec_qrels, read_trec_run

        self.qrels_path, self.run_path = synth.trec_files(rows)  # written once, cached
        self.read_run, self.read_qrels = read_trec_run, read_trec_qrels

    def time_read_trec_run(self, rows: int) -> None:
        self.read_run(self.run_path)

    def time_read_trec_qrels(self, rows: int) -> None:
        self.read_qrels(self.qrels_path)

    def peakmem_read_trec_run(self, rows: int) -> None:
        self.read_run(self.run_path)


class Cli:
    """``irframe eval QRELS RUN -m ... -q -f trec`` in process (the reader, the evaluation and
    trec_eval's per-query layout written to a UTF-8 file), 5 and 47 measures.  The
    interpreter's start and polars' import are not in it: ``benchmarks/trecfiles.py`` times
    fresh processes against trec_eval."""

    params = (ROWS, ["5", "47"])
    param_names: ClassVar = ["rows", "measures"]
    timeout = 600

    def setup(self, rows: int, measures: str) -> None:
        import os
        import tempfile

        import contenders
        import synth

        try:
            from irframe.cli import main
        except ImportError as exc:  # (a commit without the command line)
            raise NotImplementedError(str(exc)) from exc
        warnings.simplefilter("ignore")
        qrels, run = synth.trec_files(rows)
        names = contenders.CLASSIC_47 if measures == "47" else contenders.TREC  # trec_eval's names
        self.argv = ["eval", str(qrels), str(run), *[a for n in names for a in ("-m", n)], "-q", "-f", "trec"]
        fd, self.out_path = tempfile.mkstemp(suffix=".txt")
        os.close(fd)
        self.main = main
        self.eval_to_file()  # warm-up: lazy imports, thread pools

    def teardown(self, rows: int, measures: str) -> None:
        import os

        os.unlink(self.out_path)

    def eval_to_file(self) -> None:
        import contextlib

        with open(self.out_path, "w", encoding="utf-8") as out, contextlib.redirect_stdout(out):
            code = self.main(self.argv)
        if code != 0:
            msg = f"irframe eval exited with {code}"
            raise RuntimeError(msg)

    def time_eval_trec_per_query(self, rows: int, measures: str) -> None:
        self.eval_to_file()

    def peakmem_eval_trec_per_query(self, rows: int, measures: str) -> None:
        self.eval_to_file()


class Compare:
    """``irframe.compare`` of two systems (the benchmark run and a noisier copy), 3 measures,
    randomization test with 1,000 permutations and 1,000 bootstrap samples."""

    params = (ROWS,)
    param_names: ClassVar = ["rows"]
    timeout = 600

    def setup(self, rows: int) -> None:
        import numpy as np
        import polars as pl

        warnings.simplefilter("ignore")
        run, qrels = _data(rows)
        noisy = run.assign(score=run["score"] + np.random.default_rng(1).normal(0, 0.5, len(run)).round(2))
        self.runs = {"base": pl.from_pandas(run), "noisy": pl.from_pandas(noisy)}
        self.qrels = pl.from_pandas(qrels)
        from irframe import compare

        self.compare = compare

    def time_compare(self, rows: int) -> None:
        self.compare(self.runs, self.qrels, n_permutations=1000, n_bootstrap=1000)


class Measures:
    """Parse the 47 classic trec measure names (the measure registry's lookup cost)."""

    def setup(self) -> None:
        from irframe.measures import parse_measures

        self.parse, self.names = parse_measures, _measures("47")

    def time_parse_47_measures(self) -> None:
        self.parse(self.names)


def timeraw_import_irframe() -> str:
    """``import irframe`` in a fresh interpreter (target: under 0.3 s)."""
    return "import irframe"
