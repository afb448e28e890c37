r"""The report model shared by :func:`irframe.compare_report` and the CLI.

:class:`ComparisonReport` holds the tidy comparison table and the settings it was computed
with, and the data its HTML page shows; its renderings (aligned text, ``str(report)``,
Markdown, LaTeX, HTML) are :mod:`irframe._report.compare`'s, called by its methods.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, overload

import polars as pl

from irframe._compare.pairing import _BASE, _DELTA, _MEAS, _QKEY, _SYS, _VAL
from irframe._input.columns import natural_order
from irframe._input.frames import Origin, from_lazy, to_lazy
from irframe._report import compare as R
from irframe._report.notes import conventions as measure_conventions
from irframe._report.page import write_text

__all__ = ["ComparisonReport", "Moved", "Sources", "resample_count"]


@dataclass(frozen=True)
class Sources:
    """What the HTML page reads the moved queries' documents from (kept, not computed, by
    :func:`compare_report`): the stacked runs (lazy, system column ``__ir_system``), the
    qrels, the resolved options and the queries table (texts), as given."""

    runs: pl.LazyFrame
    qrels: Any
    opts: Any
    queries: Any = None


@dataclass(frozen=True)
class Moved:
    """The queries that moved most, as the HTML page lists them (:meth:`ComparisonReport._moved`).

    ``systems``: per listed system (baseline mode), a frame of its queries with the largest
    ``|delta|`` on the first measure (columns in this order: the query id, the ``by``
    values, the baseline's value, the system's, the delta) and each query's top documents
    of both sides (``{query: (baseline's, system's)}``; None when no documents are asked);
    ``texts``: the queries' texts by id (empty without a ``text`` column).
    """

    texts: dict[str, str]
    systems: list[tuple[str, pl.DataFrame, dict[str, tuple[Any, Any]] | None]]


@dataclass
class ComparisonReport:
    r"""Result of :func:`compare_report`: the tidy table plus text, Markdown and LaTeX views.

    ``str(report)`` is a terminal table: one row per system (baseline first), one column
    per measure with the mean, a marker and the relative change, then the details of
    every comparison.  Markers: ``▲``/``▼`` significantly better/worse than the baseline
    after the correction (``p_adjusted < alpha``); ``△``/``▽`` ``p < alpha`` before the
    correction only.

    With ``pairs="all"`` (no baseline) the first table holds every system's mean and the
    details compare every pair (``system`` against ``vs``), markers included.

    Attributes
    ----------
    baseline : str or None
        Name of the baseline system; None when every pair was compared.
    pairs : {"baseline", "all"}
        Every system against the baseline, or every pair of systems.
    systems : list of str
        Every system, baseline included, in input order.
    measures : list of str
        Measure labels, in the order asked.
    by : list of str
        Grouping columns (empty for none).
    alpha, test, correction, family_size, ci, ci_method, n_permutations, n_bootstrap
        The settings the table was computed with.
    weights : str or None
        The column the queries were weighted by (None: every query counts the same).

    Examples
    --------
    >>> from irframe._compare import compare_report
    >>> from irframe.datasets import golden
    >>> g = golden()
    >>> report = compare_report(g.runs, g.qrels, ["nDCG@10", "R@100"], baseline="bm25")
    >>> report.baseline, report.systems, report.family_size
    ('bm25', ['bm25', 'dense', 'hybrid'], 4)
    >>> print(report.to_markdown().splitlines()[4])
    | hybrid | 0.7874▲ (+18.7%) | 0.8417 (-0.2%) |
    >>> print(report.to_latex().splitlines()[8])
    hybrid & 0.7874$^{\blacktriangle}$ (+18.7\%) & 0.8417 (-0.2\%) \\
    """

    baseline: str | None
    systems: list[str]
    measures: list[str]
    by: list[str]
    alpha: float
    test: str
    correction: str
    family_size: int
    ci: float
    ci_method: str
    n_permutations: int
    n_bootstrap: int
    system_col: str
    pairs: str
    _table: pl.DataFrame = field(repr=False)
    _means: pl.DataFrame = field(repr=False)
    _origin: Origin = field(repr=False)
    weights: str | None = None
    _holes: pl.DataFrame | None = field(default=None, repr=False)
    # per query: system, baseline, measure, by, query (text), both values and the delta (the
    # page's moved queries and plots), in compare's long names (irframe._compare.LONG)
    _pairs: pl.DataFrame | None = field(default=None, repr=False, compare=False)
    _sources: Sources | None = field(default=None, repr=False, compare=False)

    @property
    def holes(self) -> Any:
        """Per system and judged query (``holes=True``): the top ``holes_depth``'s size
        (``n_top``), its judged and unjudged documents (``n_judged``, ``n_unjudged``,
        ``judged``: evaluate's ``Judged@k``), the unjudged doc ids (``unjudged``, in ranking
        order) and their positions (``unjudged_at``); None without ``holes=True``."""
        return None if self._holes is None else from_lazy(self._holes, self._origin)

    @property
    def table(self) -> Any:
        """The tidy comparison table in the caller's frame type (see :func:`compare`)."""
        return from_lazy(self.to_polars(), self._origin)

    def to_polars(self) -> pl.DataFrame:
        """The tidy comparison table as a polars DataFrame, whatever the runs' frame type.

        The same rows and columns as :attr:`table` (the system column named ``system_col``).

        Examples
        --------
        >>> from irframe._compare import compare_report
        >>> from irframe.datasets import golden
        >>> g = golden(backend="pandas")
        >>> report = compare_report(g.runs, g.qrels, ["RR"], baseline="bm25")
        >>> type(report.table).__name__, type(report.to_polars()).__name__
        ('DataFrame', 'DataFrame')
        >>> report.to_polars().get_column("system").to_list()
        ['dense', 'hybrid']
        """
        table = self._table
        if self.system_col != "system" and self.system_col not in table.columns:
            table = table.rename({"system": self.system_col})
        return table

    def __repr__(self) -> str:
        pairs = ", pairs='all'" if self.baseline is None else ""
        return (
            f"ComparisonReport(baseline={self.baseline!r}{pairs}, systems={self.systems}, "
            f"measures={self.measures}, test={self.test!r}, correction={self.correction!r}, "
            f"family_size={self.family_size})"
        )

    # --- the renderings (irframe._report.compare) ------------------------------------------
    def method_text(self) -> str:
        """One paragraph saying what was tested, how, and over which family."""
        return R.method_text(self)

    def legend(self, style: str = "unicode") -> str:
        """What the markers mean."""
        return R.legend(self, style)

    def footnote(self) -> str:
        """Which test the markers follow, and why a CI and a p-value can disagree (every
        format prints it: :func:`irframe._report.notes.markers_footnote`)."""
        return R.footnote(self)

    def conventions(self) -> list[str]:
        """The measures' conventions a peer reads differently (nDCG's gain), one sentence each."""
        return measure_conventions(self.measures)

    def to_text(self, *, ascii: bool = False, details: bool = True) -> str:
        """Aligned plain-text tables for the terminal (``ascii=True``: no Unicode markers)."""
        return R.to_text(self, ascii=ascii, details=details)

    def __str__(self) -> str:
        return self.to_text()

    def to_markdown(self, *, details: bool | None = None) -> str:
        """A Markdown (GitHub) table, with the legend and method as a paragraph below.

        ``details`` adds the table of every comparison; by default only with ``pairs="all"``
        (where the first table shows the means without markers).
        """
        return R.to_markdown(self, details=details)

    def _repr_markdown_(self) -> str:
        return self.to_markdown()

    @overload
    def to_html(self, path: None = None, *, n_moved: int = ..., docs_top: int = ...) -> str: ...
    @overload
    def to_html(self, path: str | os.PathLike[str], *, n_moved: int = ..., docs_top: int = ...) -> None: ...
    def to_html(
        self, path: str | os.PathLike[str] | None = None, *, n_moved: int = 10, docs_top: int = 3
    ) -> str | None:
        """HTML: without ``path``, a fragment for notebooks (the summary table, the comparisons
        with CI, p and W/T/L, legend, method, footnote); with ``path``, the whole report as one
        self-contained page written there atomically (see :meth:`html_page`).

        Every name and value is HTML-escaped (:func:`irframe._escape.html`).

        Examples
        --------
        >>> from irframe._compare import compare_report
        >>> from irframe.datasets import golden
        >>> g = golden()
        >>> page = compare_report(g.runs, g.qrels, ["RR"], baseline="bm25").to_html()
        >>> page.count("<table"), "<th>W/T/L</th>" in page
        (2, True)
        """
        if path is not None:
            write_text(path, self.html_page(n_moved=n_moved, docs_top=docs_top))
            return None
        return R.fragment(self)

    def _repr_html_(self) -> str:
        return self.to_html()

    def html_page(self, *, n_moved: int = 10, docs_top: int = 3) -> str:
        """The report as one self-contained HTML page (no network: inline CSS, plots as
        inline SVG when matplotlib is installed): the headline, the means with markers, the
        comparisons with CIs, per segment with ``by``, the ``n_moved`` queries that moved
        most per system on the first measure with the top ``docs_top`` documents of both
        sides (grades shown, unjudged marked), the notes and the plots.

        Examples
        --------
        >>> from irframe._compare import compare_report
        >>> from irframe.datasets import golden
        >>> g = golden()
        >>> page = compare_report(g.runs, g.qrels, ["RR"], baseline="bm25").html_page(n_moved=2)
        >>> page.startswith("<!DOCTYPE html>"), "Queries that moved most" in page, "https://" in page
        (True, True, False)
        """
        return R.html_page(self, self._moved(n_moved, docs_top), docs_top=docs_top)

    def to_latex(self, *, caption: str | None = None, label: str | None = None) -> str:
        r"""A LaTeX ``table`` (booktabs; markers need ``amssymb``).

        The caption defaults to the legend and the method text.  With ``pairs="all"`` the
        table lists every comparison (the details) instead of one row per system.  Names
        and values are text (:func:`irframe._escape.latex`); a ``caption`` given is LaTeX
        as written, ``$...$`` math included, its other special characters escaped.
        """
        return R.to_latex(self, caption=caption, label=label)

    # --- the data the HTML page shows ------------------------------------------------------
    def _holes_summary(self) -> pl.DataFrame | None:
        """Per system (``holes=True``): the queries looked at, those with a hole, the
        unjudged documents in their top k and the mean Judged@k; None without holes."""
        holes = self._holes
        if holes is None:
            return None
        system = self.system_col if self.system_col in holes.columns else "system"
        return holes.group_by(system, maintain_order=True).agg(
            pl.len().alias("queries"),
            (pl.col("n_unjudged") > 0).sum().alias("with a hole"),
            pl.col("n_unjudged").sum().alias("unjudged documents"),
            pl.col("judged").mean().alias("mean Judged@k"),
        )

    def _first_deltas(self) -> list[tuple[str, list[str], Any]]:
        """Per system but the baseline (baseline mode): the query ids and the per-query
        deltas on the first measure, by query id."""
        pairs = self._pairs
        if pairs is None or self.baseline is None or not self.measures:
            return []
        first = pairs.filter(pl.col(_MEAS) == self.measures[0])
        out = []
        for system in [s for s in self.systems if s != self.baseline]:
            part = first.filter(pl.col(_SYS) == system).sort(_QKEY)
            out.append((system, part.get_column(_QKEY).to_list(), part.get_column(_DELTA).to_numpy()))
        return out

    def _moved(self, n: int, k: int) -> Moved:
        """Per listed system (baseline mode), the ``n`` queries that moved most on the first
        measure (largest ``|delta|`` first, then the query id's natural order; zero deltas left out), with the
        top ``k`` documents of both sides (see :class:`Moved`)."""
        from irframe._compare.movers import top_documents

        pairs, src = self._pairs, self._sources
        if pairs is None or src is None or self.baseline is None or n <= 0 or not self.measures:
            return Moved({}, [])
        rank = {s: i for i, s in enumerate(self.systems)}
        ties = natural_order(pairs.schema, [_QKEY])  # (ties: queries in natural order, as moved())
        moved = (
            pairs.filter((pl.col(_MEAS) == self.measures[0]) & (pl.col(_DELTA) != 0))
            .with_columns(pl.col(_SYS).replace_strict(rank, return_dtype=pl.Int64).alias("__ir_si"))
            .sort(["__ir_si", pl.col(_DELTA).abs(), *ties], descending=[False, True, *[False] * len(ties)])
            .group_by(_SYS, maintain_order=True)
            .head(n)
        )
        systems: list[tuple[str, pl.DataFrame, dict[str, tuple[Any, Any]] | None]] = []
        for system in moved.get_column(_SYS).unique(maintain_order=True).to_list():
            part = moved.filter(pl.col(_SYS) == system)
            docs = None
            if k > 0:
                runs = {"b": src.runs.filter(pl.col(_SYS) == self.baseline),
                        "s": src.runs.filter(pl.col(_SYS) == system)}  # fmt: skip
                docs = top_documents(runs, src.qrels, part.get_column(_QKEY).to_list(), k=k, opts=src.opts)
            found = None if docs is None else {r[0]: (r[1], r[2]) for r in docs.rows()}
            systems.append((system, part.select(_QKEY, *self.by, _BASE, _VAL, _DELTA), found))
        return Moved(self._texts() if systems else {}, systems)

    def _texts(self) -> dict[str, str]:
        """The queries' texts (a ``text`` column of the queries table), by query id."""
        src = self._sources
        if src is None or src.queries is None:
            return {}
        lf, _ = to_lazy(src.queries, role="queries")
        qcol = src.opts.query_col
        if qcol not in lf.collect_schema() or "text" not in lf.collect_schema():
            return {}
        rows = lf.select(pl.col(qcol).cast(pl.String), pl.col("text").cast(pl.String)).collect().rows()
        return dict(reversed(rows))  # (the first text of a query wins)


def resample_count(result: Any, deltas: Any, settings: Any) -> int | None:
    """How many sign vectors (or bootstrap resamples) a p-value counts over: ``2**m`` for
    an exact randomization test over ``m`` non-zero deltas, the drawn count for a
    Monte-Carlo one; None for the t and Wilcoxon tests (and a degenerate comparison).

    Examples
    --------
    >>> from types import SimpleNamespace as NS
    >>> resample_count(NS(test="randomization", method="exact"), [0.5, 0, -0.25], None)
    4
    """
    if result.method == "monte-carlo":
        return int(settings.n_bootstrap if result.test == "bootstrap" else settings.n_permutations)
    if result.test == "randomization" and result.method == "exact":
        return int(2 ** sum(1 for d in deltas if d != 0))
    return None
