"""What :func:`irframe.check` found, as data: the result, the rule it applied, the judgment
changes.  The gate (:mod:`irframe._check.gate`) computes it; the renderers (text, Markdown,
HTML: :mod:`irframe._report.check`) read it and are called by its methods lazily.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from irframe._compare import Settings, check_choice
from irframe._exit import Exit
from irframe._input.columns import natural_key
from irframe._input.frames import Origin, from_lazy
from irframe._report import check as R
from irframe._report.notes import correction_name
from irframe._report.page import write_text
from irframe.exceptions import InvalidParameterError

__all__ = ["FAIL_ON", "CheckResult", "JudgmentChanges", "_Gate"]

FAIL_ON = ("significant", "any-drop")


@dataclass(frozen=True)
class JudgmentChanges:
    """Queries whose judgments differ from a snapshot's."""

    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    regraded: list[str] = field(default_factory=list)

    @classmethod
    def between(cls, old: Mapping[str, str], new: Mapping[str, str]) -> JudgmentChanges:
        """Compare two ``{query: fingerprint}`` mappings."""
        return cls(
            added=sorted((q for q in new if q not in old), key=natural_key),
            removed=sorted((q for q in old if q not in new), key=natural_key),
            regraded=sorted((q for q in new if q in old and new[q] != old[q]), key=natural_key),
        )

    @property
    def queries(self) -> list[str]:
        """Every changed query, in natural order."""
        return sorted([*self.added, *self.removed, *self.regraded], key=natural_key)

    def __bool__(self) -> bool:
        return bool(self.added or self.removed or self.regraded)

    def describe(self, limit: int = 10) -> str:
        """``"2 added (q41, q42), 1 regraded (q07)"``."""
        parts = []
        for what, qs in (("added", self.added), ("removed", self.removed), ("regraded", self.regraded)):
            if qs:
                shown = ", ".join(qs[:limit]) + (f", ... ({len(qs) - limit} more)" if len(qs) > limit else "")
                parts.append(f"{len(qs)} {what} ({shown})")
        return ", ".join(parts)


# --- the rule -----------------------------------------------------------------------------
@dataclass(frozen=True)
class _Gate:
    """The decision rule and the statistics settings, validated once."""

    max_drop: float
    alpha: float
    fail_on: str
    test: str
    correction: str
    n_permutations: int
    n_bootstrap: int
    seed: int

    @classmethod
    def build(cls, **values: Any) -> _Gate:
        from irframe.stats import CORRECTIONS, TESTS

        max_drop, alpha = values["max_drop"], values["alpha"]
        if isinstance(max_drop, bool) or not isinstance(max_drop, int | float) or not max_drop >= 0:
            raise InvalidParameterError.for_value("max_drop", "check", "a number >= 0", max_drop)
        if isinstance(alpha, bool) or not isinstance(alpha, int | float) or not 0 < alpha < 1:
            raise InvalidParameterError.for_value("alpha", "check", "a float in (0, 1)", alpha)
        if values["fail_on"] not in FAIL_ON:
            raise InvalidParameterError.for_value(
                "fail_on", "check", "'significant' or 'any-drop'", values["fail_on"]
            )
        values["test"] = check_choice("test", values["test"], TESTS, "check")
        values["correction"] = check_choice("correction", values["correction"], CORRECTIONS, "check")
        return cls(**{**values, "max_drop": float(max_drop), "alpha": float(alpha)})

    def settings(self, by: Sequence[str], missing: str) -> Settings:
        """compare's settings for these statistics (95% percentile bootstrap CIs).

        ``n_permutations``, ``n_bootstrap`` and ``seed`` are checked where they are used
        (:mod:`irframe.stats`), as they always were for check.
        """
        return Settings(test=self.test, correction=self.correction, by=list(by), alpha=self.alpha,
                        n_permutations=self.n_permutations, n_bootstrap=self.n_bootstrap, ci=0.95,
                        ci_method="percentile", seed=self.seed, missing=missing)  # fmt: skip

    def describe(self) -> str:
        """The rule in words."""
        drop = f"a drop larger than {self.max_drop:g}"
        if self.fail_on == "any-drop":
            return f"fails on {drop} (any drop)"
        return (
            f"fails on {drop} with p_adj < {self.alpha:g} ({self.test} test, "
            f"{correction_name(self.correction)} correction over the table)"
        )


# --- the result ---------------------------------------------------------------------------
@dataclass(frozen=True)
class CheckResult:
    """What :func:`check` found: the verdict, the comparisons, the queries that moved.

    Attributes
    ----------
    passed : bool
        No row of the comparison table is a regression.
    candidate, baseline : str
        Names of the candidate run and of the baseline (run name or snapshot file).
    baseline_kind : {"run", "snapshot"}
    measures : list of str
        Canonical measure strings compared.
    by : list of str
        Segment columns (empty for none).
    gate : rule
        ``max_drop``, ``alpha``, ``fail_on``, ``test``, ``correction``...
    moved_measure : str
        The measure whose per-query changes :attr:`moved` lists.
    changes : JudgmentChanges
        Queries whose judgments differ from the snapshot's (empty for a run baseline).
    left_out : list of str
        Queries left out of the comparison because their judgments changed.
    notes : list of str
        Other things worth knowing (e.g. a snapshot from another irframe version).
    holes_mode : {"report", "fail", "ignore"}
        What the check did with the judgment holes (see :func:`check`).
    holes_depth : int
        The top documents looked at for holes.
    pool_command : str or None
        The ``irframe pool`` command that lists the holes to judge (with ``holes_mode``
        other than "ignore"): the input files when check was given paths, else
        placeholders (``irframe check`` writes its own paths).
    weights : str or None
        The column the queries were weighted by.
    power : list of dict
        Per gated measure, the drop the gate detects 80% of the time: ``measure``,
        ``n_queries``, ``n_effective`` (weighted), ``alpha`` (the corrected level),
        ``power``, ``mde`` and ``sentence`` (see :mod:`irframe._check.extras`).
    """

    passed: bool
    candidate: str
    baseline: str
    baseline_kind: str
    measures: list[str]
    by: list[str]
    gate: _Gate
    moved_measure: str
    changes: JudgmentChanges
    left_out: list[str]
    notes: list[str]
    _table: pl.DataFrame = field(repr=False)
    _moved: pl.DataFrame = field(repr=False)
    _origin: Origin = field(repr=False)
    holes_mode: str = "ignore"
    holes_depth: int = 10
    pool_command: str | None = None
    weights: str | None = None
    power: list[dict[str, Any]] = field(default_factory=list)
    _holes: pl.DataFrame | None = field(default=None, repr=False)
    # every paired query's delta (query_id, measure, delta): the HTML page's plot
    _deltas: pl.DataFrame | None = field(default=None, repr=False, compare=False)

    def __repr__(self) -> str:
        n = self._table.filter(pl.col("regression")).height
        return (
            f"CheckResult(passed={self.passed}, candidate={self.candidate!r}, baseline={self.baseline!r}, "
            f"measures={self.measures}, regressions={n})"
        )

    def _ordered_rows(self) -> list[dict[str, Any]]:
        """The comparison table's rows as the reports list them: the regressions first, then
        the others, each in the table's order (overall, then the segments)."""
        rows = list(self._table.iter_rows(named=True))
        return [r for r in rows if r["regression"]] + [r for r in rows if not r["regression"]]

    @property
    def exit_code(self) -> Exit:
        """``Exit.OK`` (0) when the check passed, ``Exit.FAILED`` (1) when it found a
        regression: the code ``irframe check`` exits with (an ``int``, an ``IntEnum`` member)."""
        return Exit.OK if self.passed else Exit.FAILED

    @property
    def comparisons(self) -> Any:
        """Every comparison (group x measure), in the candidate's frame type.

        Columns: ``group`` (``"all"`` or ``"segment=..."``), ``measure``, ``n_queries``,
        ``baseline_mean``, ``mean``, ``delta``, ``ci_low``, ``ci_high`` (95% paired
        bootstrap CI of the mean delta), ``p_value``, ``p_adjusted``, ``significant``,
        ``wins``, ``ties``, ``losses``, ``regression``, ``status`` (``"regression"``,
        ``"worse"``, ``"better"``, ``"possible hole"`` or ``""``) and ``note``; weighted,
        also ``sum_weights``; with holes, ``n_holes``, ``n_holes_baseline``,
        ``n_to_judge``, ``delta_low``, ``delta_high`` and ``possible_hole``.
        """
        return from_lazy(self._table, self._origin)

    @property
    def holes(self) -> Any:
        """Per system (``baseline``, ``candidate``) and judged query, the top
        ``holes_depth``'s unjudged documents (as :attr:`irframe.ComparisonReport.holes`);
        None when ``holes_mode`` is "ignore"."""
        return None if self._holes is None else from_lazy(self._holes, self._origin)

    @property
    def regressions(self) -> Any:
        """The rows of :attr:`comparisons` that fail the check."""
        return from_lazy(self._table.filter(pl.col("regression")), self._origin)

    @property
    def moved(self) -> Any:
        """The queries that moved most on :attr:`moved_measure`, with text and top documents."""
        return from_lazy(self._moved, self._origin)

    def report(self, *, ascii: bool = False) -> str:
        """Plain text: the verdict, the deltas with CIs and markers, the queries that moved."""
        return R.render_text(self, ascii=ascii)

    def __str__(self) -> str:
        return self.report()

    def to_markdown(self) -> str:
        """The report as Markdown, for a pull-request comment."""
        return R.render_markdown(self)

    def _repr_markdown_(self) -> str:
        return self.to_markdown()

    def to_dict(self) -> dict[str, Any]:
        """The report as plain data (full-precision numbers), as ``-f json`` prints it."""
        return R.as_dict(self)

    def html_page(self) -> str:
        """The report as one self-contained HTML page (no network: inline CSS, the plots as
        inline SVG when matplotlib is installed), as ``irframe check -f html`` writes it: the
        verdict, the deltas with CIs and markers overall and per segment (regressions
        first), the notes, the power, the plots and the queries that moved with both sides'
        top documents (grades shown, unjudged marked).

        Examples
        --------
        >>> import irframe
        >>> from irframe.datasets import golden
        >>> g = golden()
        >>> run = lambda name: g.runs.filter(system=name).drop("system")
        >>> page = irframe.check(run("dense"), g.qrels, baseline=run("bm25")).html_page()
        >>> page.startswith("<!DOCTYPE html>"), "FAIL: 1 regression" in page, "http://" in page
        (True, True, False)
        """
        return R.html_page(self)

    def to_html(self, path: str | os.PathLike[str] | None = None) -> str | None:
        """Write :meth:`html_page` to ``path`` atomically (None returned); without ``path``,
        return it."""
        if path is None:
            return self.html_page()
        write_text(path, self.html_page())
        return None
