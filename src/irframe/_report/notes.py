"""The notes every report format prints, written once: which test the markers follow and
why a CI and a p-value can disagree, and the measures' conventions.

The comparison report (:class:`irframe.ComparisonReport`: text, Markdown, HTML) and the
check report (:class:`irframe.CheckResult`: text, Markdown, HTML, JSON) print these
sentences as they are; each format only escapes them.

Examples
--------
>>> print(markers_footnote(test="randomization", correction="holm", alpha=0.05))
... # doctest: +NORMALIZE_WHITESPACE
The markers follow the randomization test's p-value after Holm correction (p_adj < 0.05); the 95%
CI is a paired bootstrap (percentile) of the mean delta, another method and uncorrected, so the two
can disagree near the line: a CI that excludes 0 next to p = 0.057 gets no marker. Read the marker
for the decision, the CI for the size.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["conventions", "correction_name", "group_text", "markers_footnote"]

_TESTS = {"randomization": "randomization", "t": "paired t", "wilcoxon": "Wilcoxon signed-rank",
          "bootstrap": "paired bootstrap"}  # fmt: skip
_CORRECTIONS = {"holm": "Holm", "bonferroni": "Bonferroni", "bh": "Benjamini-Hochberg"}


def correction_name(correction: str) -> str:
    """A multiple-testing correction as every report names it (``"no"`` for none).

    Examples
    --------
    >>> correction_name("bh"), correction_name("none")
    ('Benjamini-Hochberg', 'no')
    """
    return _CORRECTIONS.get(correction, "no")


def markers_footnote(
    *,
    test: str,
    correction: str,
    alpha: float,
    ci: float = 0.95,
    ci_method: str = "percentile",
    any_drop: bool = False,
) -> str:
    """Which p-value the markers follow, and why the CI beside it can say otherwise.

    ``any_drop``: the check's ``fail_on="any-drop"``, where a regression is any drop
    beyond ``max_drop`` whatever the test says (the other markers still follow it).

    Examples
    --------
    >>> text = markers_footnote(test="t", correction="none", alpha=0.1, any_drop=True)
    >>> text.split("; ")[0]
    "The markers follow the paired t test's uncorrected p-value (p < 0.1)"
    >>> text.split(". ")[-1]
    "A regression (fail_on='any-drop') is any drop beyond max_drop, whatever the p-value and the CI."
    """
    if correction in _CORRECTIONS:
        which = f"p-value after {_CORRECTIONS[correction]} correction (p_adj < {alpha:g})"
    else:
        which = f"uncorrected p-value (p < {alpha:g})"
    text = (
        f"The markers follow the {_TESTS.get(test, test)} test's {which}; the {ci:.0%} CI is a paired "
        f"bootstrap ({ci_method}) of the mean delta, another method and uncorrected, so the two can "
        "disagree near the line: a CI that excludes 0 next to p = 0.057 gets no marker. Read the "
        "marker for the decision, the CI for the size."
    )
    if any_drop:
        text += (
            " A regression (fail_on='any-drop') is any drop beyond max_drop, whatever the p-value and the CI."
        )
    return text


def conventions(measures: Iterable[str]) -> list[str]:
    """The measures' conventions that peers read differently (one sentence each; see
    :mod:`irframe.measures._conventions`), in order.

    Examples
    --------
    >>> [note.split(" uses ")[0] for note in conventions(["nDCG@10", "RR", "nDCG(gain=linear)@5"])]
    ['nDCG@10']
    """
    from irframe.exceptions import UnknownMeasureError
    from irframe.measures import parse_measure
    from irframe.measures._conventions import convention_notes

    def is_measure(label: str) -> bool:
        try:
            parse_measure(label)
        except UnknownMeasureError:  # a column of per-query values (irframe._compare.values)
            return False
        return True

    return convention_notes([m for m in measures if is_measure(m)])


def group_text(value: object) -> str:
    """A segment's value as every report shows it; the overall rows' (``by`` null: a segment
    value is never null) as ``all``, the word the gate's reports use.

    Examples
    --------
    >>> group_text(None), group_text("head"), group_text(3)
    ('all', 'head', '3')
    """
    return "all" if value is None else str(value)
