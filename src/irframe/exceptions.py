"""Every error irframe raises, built in one place.

All exceptions derive from :class:`IrFrameError`, itself a :class:`ValueError`, so
``except ValueError`` keeps working for callers who do not know irframe.  Messages
name the culprit (column, query, parameter) and end with a hint on how to fix it.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence

__all__ = [
    "CliError",
    "ClickLogWarning",
    "ColumnNotFoundError",
    "ConventionWarning",
    "DuplicateRowsError",
    "DuplicatesWarning",
    "EmptyInputError",
    "FilePermissionError",
    "InvalidDataError",
    "InvalidParameterError",
    "IrFrameError",
    "JudgmentsChangedError",
    "MissingFileError",
    "MissingQueriesError",
    "OutputFileError",
    "SampleRatioMismatchWarning",
    "TableFileError",
    "TrecFormatError",
    "UnknownMeasureError",
    "closest",
    "order_hint",
    "rank_like",
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


# A column named like a position (1 = the top) is a rank: read as a score, it reverses the ranking.
_RANK_LIKE = re.compile(r"(?:^|[_\W])(rank|ranking|rnk|position|pos|place)(?:$|[_\W\d])", re.IGNORECASE)


def rank_like(name: str) -> bool:
    """Whether the column ``name`` reads as a position (1 = top): never hinted as a score.

    Examples
    --------
    >>> [c for c in ["position", "Pos", "click_position", "rank_in_page", "sim", "purpose"] if rank_like(c)]
    ['position', 'Pos', 'click_position', 'rank_in_page']
    """
    return _RANK_LIKE.search(name) is not None


def order_hint(available: Sequence[str]) -> str:
    """The hint for a run with neither a rank nor a score column: a position-like column is
    offered as the rank (ascending), a score-like one as the score (descending), never the
    other way round.

    Examples
    --------
    >>> order_hint(["query_id", "doc_id", "position"])
    "Hint: did you mean rank_col='position'? (a rank: 1 is the top)"
    >>> order_hint(["query_id", "doc_id", "sim"])
    "Hint: did you mean score_col='sim'? (a score: higher is better)"
    """
    ranks = sorted((a for a in available if rank_like(a)), key=lambda a: a.lower() not in _SYNONYMS["rank"])
    if ranks:
        return f"Hint: did you mean rank_col={ranks[0]!r}? (a rank: 1 is the top)"
    scores = [a for a in available if a.lower() in _SYNONYMS["score"]]
    scores += [c for c in closest("score", available) if c not in scores]
    if scores:
        return f"Hint: did you mean score_col={scores[0]!r}? (a score: higher is better)"
    return "Hint: name the column with rank_col=... (1 is the top) or score_col=... (higher is better)."


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
        what, hint = _missing_role(role, missing, available, parameter)
        msg = (
            f"The {frame} frame has {what}. "
            f"Available columns: [{_quote_list(list(available), limit=12)}].\n{hint}"
        )
        return cls(msg)

    @classmethod
    def from_missing_roles(
        cls,
        roles: Sequence[tuple[str, str, str]],
        available: Sequence[str],
        *,
        frame: str = "run",
        order: tuple[str, str] | None = None,
    ) -> ColumnNotFoundError:
        """Every missing role of ``frame`` in one message: ``roles`` are (role, column,
        parameter) triples; ``order``: the (rank, score) columns when neither is there.

        Examples
        --------
        >>> err = ColumnNotFoundError.from_missing_roles(
        ...     [("query_id", "query_id", "query_col"), ("doc_id", "doc_id", "doc_col")],
        ...     ["qid", "docno", "position"], order=("rank", "score"))
        >>> print(err)  # doctest: +NORMALIZE_WHITESPACE
        The run frame lacks 3 columns: no query_id column 'query_id'; no doc_id column 'doc_id';
        neither a rank column 'rank' nor a score column 'score' (one orders the documents).
        Available columns: ['qid', 'docno', 'position'].
        Hint: did you mean query_col='qid'?
        Hint: did you mean doc_col='docno'?
        Hint: did you mean rank_col='position'? (a rank: 1 is the top)
        """
        parts = [_missing_role(role, col, available, param) for role, col, param in roles]
        if order is not None:
            what = f"neither a rank column {order[0]!r} nor a score column {order[1]!r}"
            what += " (one orders the documents)"
            parts.append((what, order_hint(available)))
        shown = f"Available columns: [{_quote_list(list(available), limit=12)}]."
        if len(parts) == 1:
            return cls(f"The {frame} frame has {parts[0][0]}. {shown}\n{parts[0][1]}")
        whats = "; ".join(w for w, _ in parts)
        hints = "\n".join(h for _, h in parts)
        return cls(f"The {frame} frame lacks {len(parts)} columns: {whats}. {shown}\n{hints}")


def _missing_role(
    role: str, missing: str, available: Sequence[str], parameter: str | None
) -> tuple[str, str]:
    """("no {role} column 'x'", the hint) for a column ``missing`` that should play ``role``."""
    synonyms = _SYNONYMS.get(role, ())
    avail_lower = {a.lower(): a for a in available}
    near = [avail_lower[s] for s in synonyms if s in avail_lower]
    near += [c for c in closest(missing, available) if c not in near]
    if role == "score":  # a position read as a score reverses the ranking
        near = [c for c in near if not rank_like(c)]
    param = parameter or f"{role.split('_', maxsplit=1)[0]}_col"
    if not near:
        return f"no {role} column {missing!r}", f"Hint: name the column with {param}=..."
    hint = f"Hint: did you mean {param}={near[0]!r}?"
    if len(near) > 1:
        hint += f" (other close names: {_quote_list(near[1:])})"
    return f"no {role} column {missing!r}", hint


class InvalidParameterError(IrFrameError):
    """A parameter value is out of its declared domain."""

    @classmethod
    def for_value(cls, name: str, where: str, expected: str, got: object) -> InvalidParameterError:
        """Message shaped like scikit-learn's parameter validation."""
        msg = f"The {name!r} parameter of {where} must be {expected}. Got {got!r} instead."
        return cls(msg)

    @classmethod
    def not_one_of(cls, name: str, where: str, choices: Sequence[str], got: object) -> InvalidParameterError:
        """``got`` is none of ``choices``: say which are, and the nearest spelling.

        Examples
        --------
        >>> print(InvalidParameterError.not_one_of("method", "position_bias", ["pivot", "em"], "pivt"))
        The 'method' parameter of position_bias must be one of ['pivot', 'em']. Got 'pivt' instead. Hint: did you mean 'pivot'?
        """  # noqa: E501
        near = closest(str(got), choices)
        hint = f" Hint: did you mean {near[0]!r}?" if near else ""
        return cls(
            f"The {name!r} parameter of {where} must be one of {list(choices)}. Got {got!r} instead.{hint}"
        )


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


class DuplicatesWarning(UserWarning):
    """``duplicates="first"`` dropped repeated (query, document) rows: the message says how many
    (of how many rows, in how many queries) and, when they look like a search log's impressions
    rather than documents listed twice, the likely cause and the fix.

    It is how every verb that evaluates a pandas or polars run (``evaluate``, ``compare``,
    ``check``...) reports the rows the rule left out; the command line prints it as a note.
    A LazyFrame run is not read before it is collected: its repeats are counted in the
    ``irframe`` log at INFO.  Silence it, once the repeats are expected (chunks rolled up to
    documents), with ``warnings.filterwarnings("ignore", category=DuplicatesWarning)``.
    """


class SampleRatioMismatchWarning(UserWarning):
    """An A/B test's units per arm differ from the designed split (chi-square p below
    ``srm_alpha``, 0.001 by default): the arms may not be comparable
    (:func:`irframe.online.compare`)."""
