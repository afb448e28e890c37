"""Every error irframe raises, built in one place.

All exceptions derive from :class:`IrFrameError`, itself a :class:`ValueError`, so
``except ValueError`` keeps working for callers who do not know irframe.  Messages
name the culprit (column, query, parameter) and end with a hint on how to fix it.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence

__all__ = [
    "CliError",
    "ClickLogWarning",
    "ColumnNotFoundError",
    "ConventionWarning",
    "DuplicateRowsError",
    "EmptyInputError",
    "FilePermissionError",
    "InvalidDataError",
    "InvalidParameterError",
    "IrFrameError",
    "JudgmentsChangedError",
    "MissingFileError",
    "MissingQueriesError",
    "OutputFileError",
    "TableFileError",
    "TrecFormatError",
    "UnknownMeasureError",
    "closest",
]

# Other names people give to the standard columns; used for "did you mean" hints.
_SYNONYMS: dict[str, tuple[str, ...]] = {
    "query_id": ("qid", "query", "topic", "topic_id", "q_id", "queryid", "query_no", "qno"),
    "doc_id": ("docid", "docno", "doc", "document", "document_id", "did", "pid", "passage_id"),
    "rank": ("position", "pos", "rnk", "ranking"),
    "score": ("sim", "similarity", "prediction", "pred", "relevance_score", "model_score"),
    "relevance": ("rel", "label", "grade", "judgment", "judgement", "qrel", "gain", "target"),
    "impression_id": ("impression", "search_id", "serp_id", "request_id", "page_view_id"),
    "position": ("rank", "pos", "slot", "rnk"),
    "clicked": ("click", "clicks", "is_click", "is_clicked", "n_clicks"),
}


def closest(word: str, candidates: Iterable[str], n: int = 3) -> list[str]:
    """Return up to ``n`` candidates close to ``word`` (case-insensitive, via difflib)."""
    cands = list(dict.fromkeys(candidates))
    lowered: dict[str, str] = {}
    for c in cands:  # first spelling wins: callers list canonical names first
        lowered.setdefault(c.lower(), c)
    hits = difflib.get_close_matches(word.lower(), list(lowered), n=n, cutoff=0.6)
    return [lowered[h] for h in hits]


def _quote_list(items: Sequence[object], limit: int = 5) -> str:
    shown = ", ".join(repr(x) for x in items[:limit])
    if len(items) > limit:
        shown += f", ... ({len(items) - limit} more)"
    return shown


class IrFrameError(ValueError):
    """Root of every error raised by irframe."""


class ColumnNotFoundError(IrFrameError):
    """A required column is not in the frame."""

    @classmethod
    def from_missing(
        cls,
        *,
        role: str,
        missing: str,
        available: Sequence[str],
        frame: str = "run",
        parameter: str | None = None,
    ) -> ColumnNotFoundError:
        """Build the error for column ``missing`` (playing ``role``) absent from ``frame``."""
        synonyms = _SYNONYMS.get(role, ())
        avail_lower = {a.lower(): a for a in available}
        near = [avail_lower[s] for s in synonyms if s in avail_lower]
        near += [c for c in closest(missing, available) if c not in near]
        param = parameter or f"{role.split('_', maxsplit=1)[0]}_col"
        msg = (
            f"The {frame} frame has no {role} column {missing!r}. "
            f"Available columns: [{_quote_list(list(available), limit=12)}]."
        )
        if near:
            msg += f"\nHint: did you mean {param}={near[0]!r}?"
            if len(near) > 1:
                msg += f" (other close names: {_quote_list(near[1:])})"
        else:
            msg += f"\nHint: name the column with {param}=..."
        return cls(msg)


class InvalidParameterError(IrFrameError):
    """A parameter value is out of its declared domain."""

    @classmethod
    def for_value(cls, name: str, where: str, expected: str, got: object) -> InvalidParameterError:
        """Message shaped like scikit-learn's parameter validation."""
        msg = f"The {name!r} parameter of {where} must be {expected}. Got {got!r} instead."
        return cls(msg)


class UnknownMeasureError(IrFrameError):
    """A measure name or parameter is not known."""


class InvalidDataError(IrFrameError):
    """Values in the input cannot be evaluated (nulls, NaN, wrong dtypes)."""


class DuplicateRowsError(InvalidDataError):
    """The same (query, document) pair occurs more than once."""

    #: the run's key columns and document column the duplicates were counted on (set by the
    #: engine's run check, so that a caller who saw one bucket can count over all of them)
    duplicate_keys: tuple[tuple[str, ...], str] | None = None


class EmptyInputError(InvalidDataError):
    """The run or the qrels have no rows."""


class MissingQueriesError(IrFrameError):
    """Judged queries are absent from the run and ``missing='error'`` was asked."""


class JudgmentsChangedError(InvalidDataError):
    """The judgments differ from those a snapshot was taken with (queries named)."""


class TrecFormatError(InvalidDataError):
    """A line of a TREC run or qrels file cannot be read.

    The message names the file, the 1-based line number and shows the line.
    """


class TableFileError(InvalidDataError):
    """A table file cannot be read: corrupt, truncated, not of its format, or unlike its siblings."""


class MissingFileError(IrFrameError, FileNotFoundError):
    """A path, directory or glob that names no file (also a :class:`FileNotFoundError`)."""


class FilePermissionError(IrFrameError, PermissionError):
    """A file exists but this process may not read it (also a :class:`PermissionError`)."""


class OutputFileError(IrFrameError, OSError):
    """A file could not be written (a full disk, no permission...): the path is named, any old
    file there is unchanged, and ``errno`` is the system's (also an :class:`OSError`)."""

    def __init__(self, errno: int, message: str, filename: str) -> None:
        OSError.__init__(self, errno, message, filename)
        self.message = message

    def __str__(self) -> str:
        return self.message


class CliError(Exception):
    """A usage problem on the command line, reported as ``irframe: error: ...`` (exit code 2)."""


class ConventionWarning(UserWarning):
    """A measure whose default reading differs from trec_eval's or ir_measures' for the same name.

    Emitted once per process per measure (``nDCG@10`` uses the gain ``2^rel - 1``, which
    trec_eval's ``ndcg_cut_10`` and ir_measures' ``nDCG@10`` do not), when the number is
    computed; the reports print the same sentence as a note.  Silence it with
    ``warnings.filterwarnings("ignore", category=irframe.exceptions.ConventionWarning)``.
    See :mod:`irframe.measures._conventions`.
    """


class ClickLogWarning(UserWarning):
    """An estimate from a click log rests on an assumption the log may not meet, or a documented
    rule left something out: a position no pair reaches, ``"ctr"`` on a log that does not look
    randomized, pairs under ``min_impressions``, positions beyond ``max_position``, an EM that
    did not converge.  The message gives the counts and the fix (see :mod:`irframe.clicks`)."""
