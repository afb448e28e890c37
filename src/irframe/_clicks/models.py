"""Click models as judgments: :func:`click_model` and :func:`click_judgments`."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypedDict

import polars as pl

from irframe._clicks.fits import PAIR_ID, EMTables, fit_dbn_model, fit_em_model
from irframe._clicks.mle import coec, continuation, ctr_sums, dcm_sums, mle_pairs, position_ctr
from irframe._clicks.outofcore import open_log
from irframe._clicks.prepare import ClickLog, check_positive_int, check_prior, warn
from irframe._input.columns import natural_sorted
from irframe._input.logs import CLICKED, DOC, IMPRESSION, POSITION, QUERY
from irframe.exceptions import InvalidParameterError
from irframe.functions import options_of

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = ["MODELS", "ClickModel", "ClickModelOptions", "ModelName", "click_judgments", "click_model"]

ModelName = Literal["coec", "cm", "dcm", "sdbn", "pbm", "ubm", "dbn"]
MODELS: tuple[str, ...] = ("coec", "cm", "dcm", "sdbn", "pbm", "ubm", "dbn")
_EM = ("pbm", "ubm", "dbn")
_PARAMS = ("best_position", "expected_clicks", "coec", "attractiveness", "satisfaction")
CoecExpected = Literal["rows", "best_position"]
_COEC_EXPECTED = ("rows", "best_position")


@dataclass(frozen=True)
class ClickModel:
    """A click model fitted on a log.

    Attributes
    ----------
    model : str
        The model's name (``"sdbn"``...).
    judgments : frame
        One row per (query, document): ``query_id``, ``doc_id`` (the log's names),
        ``relevance`` (float), ``n_impressions``, ``n_clicks`` and the model's own per-pair
        parameters (``attractiveness``, ``satisfaction``; COEC: ``expected_clicks``, ``coec``),
        in natural query order; the caller's frame type.
    positions : frame or None
        The model's per-position parameters: DCM's ``continuation``; PBM's ``examination``;
        UBM's ``examination`` by ``position`` and ``previous_click`` (0: no click above);
        ``n`` the observations each rests on (a key no observation reaches: a null value).
    continuation : float or None
        DBN's continuation (persistence) probability gamma.
    summary : dict
        ``n_rows``, ``n_impressions``, ``n_impressions_without_clicks``,
        ``n_rows_beyond_max_position``, ``n_pairs``, ``n_pairs_below_min_impressions`` (left
        out of ``judgments``), and for the EM models ``iterations`` and ``last_change`` (the
        largest change of a parameter in the last iteration); out of core ``n_buckets``.
    """

    model: str
    judgments: Any
    positions: Any | None
    continuation: float | None
    summary: dict[str, float | int]


def _check_model(model: object) -> str:
    if model not in MODELS:
        raise InvalidParameterError.not_one_of("model", "click_model", MODELS, model)
    return str(model)


def _check_coec_expected(coec_expected: object, model: str) -> bool:
    """Whether COEC's expected clicks come from the pair's best position (OpenSearch's)."""
    if coec_expected not in _COEC_EXPECTED:
        raise InvalidParameterError.not_one_of("coec_expected", "click_model", _COEC_EXPECTED, coec_expected)
    if coec_expected != "rows" and model != "coec":
        raise InvalidParameterError.for_value(
            "coec_expected", "click_model", f"'rows' for model={model!r} (it is an option of model='coec')",
            coec_expected,
        )  # fmt: skip
    return coec_expected == "best_position"


def _fit(
    log: ClickLog, model: str, prior: tuple[float, float], iterations: int, *, best_position: bool = False
) -> EMTables:
    """The model's tables; every aggregation runs on each part of the log (:meth:`ClickLog.map`)."""
    if model == "coec":
        ctr = position_ctr(log.map(ctr_sums))
        return EMTables(
            log.map(lambda rows: coec(rows, ctr, best_position=best_position)), None, None, 0, 0.0
        )
    if model in ("cm", "dcm", "sdbn"):
        pairs = log.map(lambda rows: mle_pairs(rows, model, prior))
        positions = continuation(log.map(dcm_sums), prior) if model == "dcm" else None
        return EMTables(pairs, positions, None, 0, 0.0)
    if model == "dbn":
        return fit_dbn_model(log, prior, iterations)
    return fit_em_model(log, model, prior, iterations)


def _relevance(pairs: pl.DataFrame, model: str) -> pl.Expr:
    if model == "coec":
        return pl.col("coec")
    if model in ("sdbn", "dbn"):
        return pl.col("attractiveness") * pl.col("satisfaction")
    return pl.col("attractiveness")


def _click_model(
    log: Any,
    model: ModelName = "sdbn",
    *,
    prior: tuple[float, float] = (1.0, 1.0),
    iterations: int = 50,
    tol: float = 1e-6,
    min_impressions: int = 1,
    max_position: int | None = None,
    coec_expected: CoecExpected = "rows",
    impression_col: str = IMPRESSION,
    query_col: str = QUERY,
    doc_col: str = DOC,
    position_col: str = POSITION,
    clicked_col: str = CLICKED,
    memory_limit: int | str | None = None,
    buckets: int | None = None,
    tmp_dir: str | os.PathLike[str] | None = None,
) -> ClickModel:
    """:func:`click_model`: the one list of its and :func:`click_judgments`' keyword options
    (both show it: :func:`irframe.functions.options_of`)."""
    where = "click_model"
    name = _check_model(model)
    alpha_beta = check_prior(prior, where)
    best_position = _check_coec_expected(coec_expected, name)
    check_positive_int(iterations, "iterations", where)
    check_positive_int(min_impressions, "min_impressions", where)
    columns = {
        "impression_col": impression_col, "query_col": query_col, "doc_col": doc_col,
        "position_col": position_col, "clicked_col": clicked_col,
    }  # fmt: skip
    with open_log(
        log, where=where, columns=columns, max_position=max_position, memory_limit=memory_limit,
        buckets=buckets, tmp_dir=tmp_dir,
    ) as clog:  # fmt: skip
        tables = _fit(clog, name, alpha_beta, iterations, best_position=best_position)
    pairs = tables.pairs.with_columns(_relevance(tables.pairs, name).cast(pl.Float64).alias("relevance"))
    kept = pairs.filter(pl.col("n_impressions") >= min_impressions)
    left_out = pairs.height - kept.height
    if left_out:
        warn(
            f"{where}: {left_out} of {pairs.height} (query, document) pairs have fewer than "
            f"min_impressions={min_impressions} impressions and were left out of the judgments."
        )
    if name in _EM and tables.last_change > tol:
        warn(
            f"{where}: {name.upper()}'s EM did not converge within iterations={iterations}: the last "
            f"iteration changed a parameter by {tables.last_change:.3g} (> tol={tol:g}). "
            "Hint: raise iterations."
        )
    return _result(clog, name, kept, tables=tables, left_out=left_out, n_pairs=pairs.height)


class ClickModelOptions(TypedDict, total=False):
    """The keyword options of :func:`click_model` and :func:`click_judgments`, for the type
    checkers (``tests/meta/test_signatures.py`` keeps them equal to ``_click_model``'s)."""

    prior: tuple[float, float]
    iterations: int
    tol: float
    min_impressions: int
    max_position: int | None
    coec_expected: CoecExpected
    impression_col: str
    query_col: str
    doc_col: str
    position_col: str
    clicked_col: str
    memory_limit: int | str | None
    buckets: int | None
    tmp_dir: str | os.PathLike[str] | None


@options_of(_click_model)
def click_model(log: Any, model: ModelName = "sdbn", **options: Unpack[ClickModelOptions]) -> ClickModel:
    """Fit a click model on an impression log: per-pair judgments and the model's parameters.

    Parameters and the models are those of :func:`click_judgments`, which returns this
    result's ``judgments``.

    Examples
    --------
    >>> import polars as pl
    >>> log = pl.DataFrame({"impression_id": [1, 1, 2, 2], "query_id": "q",
    ...                     "doc_id": ["a", "b", "b", "a"], "position": [1, 2, 1, 2],
    ...                     "clicked": [0, 1, 1, 0]})
    >>> fit = click_model(log, "dcm")
    >>> fit.positions.select("position", "continuation").rows()
    [(1, 0.3333333333333333), (2, 0.3333333333333333)]
    """
    return _click_model(log, model, **options)


def _result(
    clog: ClickLog, name: str, kept: pl.DataFrame, *, tables: EMTables, left_out: int, n_pairs: int
) -> ClickModel:
    params = [c for c in _PARAMS if c in kept.columns]
    out = natural_sorted(kept, [QUERY, DOC], [QUERY, DOC, "relevance", "n_impressions", "n_clicks", *params])
    out = out.with_columns(pl.col("n_impressions", "n_clicks").cast(pl.Int64)).rename(
        {QUERY: clog.cols.query, DOC: clog.cols.doc}
    )
    positions = None if tables.positions is None else tables.positions.sort(tables.positions.columns[:2])
    summary: dict[str, float | int] = {
        **clog.summary, "n_pairs": n_pairs, "n_pairs_below_min_impressions": left_out,
    }  # fmt: skip
    if name in _EM:
        summary |= {"iterations": tables.iterations, "last_change": tables.last_change}
    return ClickModel(
        name,
        clog.back(out),
        None if positions is None else clog.back(positions.drop(PAIR_ID, strict=False)),
        tables.continuation,
        summary,
    )


@options_of(_click_model)
def click_judgments(log: Any, model: ModelName = "sdbn", **options: Unpack[ClickModelOptions]) -> Any:
    """Turn an impression log into judgments (qrels) with a click model.

    Parameters
    ----------
    log : pandas.DataFrame, polars.DataFrame or polars.LazyFrame (or parquet paths out of core)
        One row per (impression, shown document): an impression id, the query, the document,
        its 1-based position and whether it was clicked (0/1, a bool or a count: a row is
        clicked when the value is > 0).  Checked as :mod:`irframe._input.logs` says.
    model : {"coec", "cm", "dcm", "sdbn", "pbm", "ubm", "dbn"}, default "sdbn"
        The click model (see Notes).
    prior : (float, float), default (1, 1)
        A Beta(alpha, beta) prior on every probability: a parameter is (alpha + what was
        counted) / (alpha + beta + observations), PyClick's Beta(1, 1) by default; ``(0, 0)``
        for plain maximum likelihood.  COEC has no prior.
    iterations : int, default 50
        EM iterations of PBM, UBM and DBN (PyClick's 50), all of them run.
    tol : float, default 1e-6
        If the last iteration changed a parameter by more than ``tol``, a
        :class:`~irframe.exceptions.ClickLogWarning` says so, with the change.
    min_impressions : int, default 1
        Pairs shown fewer times are fitted but left out of the result, with a warning
        giving their count.
    max_position : int, optional
        Rows below this position are left out before anything else (as if never shown),
        with a warning giving their count.
    coec_expected : {"rows", "best_position"}, default "rows"
        ``model="coec"``: how a pair's expected clicks are counted (see Notes);
        ``"best_position"`` is OpenSearch Search Relevance Workbench's COEC.
    impression_col, query_col, doc_col, position_col, clicked_col : str
        The log's column names.
    memory_limit : int or str, optional
        Out of core (``"2GB"``, ``"512MiB"``, bytes): the log (then also parquet files, a
        glob or a directory) is written once into hash buckets of its query id, as many as
        ``memory_limit`` needs (:func:`irframe.outofcore.choose_buckets`), and each model's
        per-query counts are taken bucket by bucket and added up (the EM models fit their
        summed sufficient statistics, DBN its distinct sessions, in memory).  The same
        numbers as in memory; ``summary["n_buckets"]`` says how many buckets were used.
        An impression belongs to one query, so a bucket holds whole impressions.
    buckets : int, optional
        Force the number of buckets (out of core; ``1``: one pass over the scanned log).
        A ``dask.dataframe.DataFrame`` log is shuffled into this many buckets (default: its
        partitions), each checked and aggregated in a task of its own, the small per-bucket
        tables reduced on the client: the same numbers, as pandas frames.  A
        ``pyspark.sql.DataFrame`` log likewise: ``repartition(buckets, query id)`` (default:
        the session's default parallelism), one job per aggregation whose tasks send their
        small tables to the driver (:mod:`irframe._clicks.onspark`); pandas frames back.
    tmp_dir : path, optional
        Where the bucket files go (default: the system temporary directory); removed at
        the end (see :func:`irframe.evaluate_parquet`).

    Returns
    -------
    frame
        A qrels frame (the caller's type): ``query_id``, ``doc_id``, ``relevance`` (a float
        in [0, 1]; COEC's is a ratio around 1), ``n_impressions``, ``n_clicks`` and the
        model's per-pair parameters; :func:`irframe.evaluate`, ``compare``, ``check``,
        ``pool`` and ``agreement`` take it as it is.  :func:`click_model` also returns the
        per-position parameters and the counts.

    Notes
    -----
    Ranks are positions (1 = top); an impression without clicks counts all its rows as
    examined (its first and last click are taken to be past its last row), as PyClick and
    the models' papers do.  Counting rules (n: observations; a parameter is
    (alpha + numerator) / (alpha + beta + n)):

    - ``coec``: clicks over expected clicks, n_clicks / the sum over the pair's rows of
      CTR(position), the CTR of each position over the whole log.  With
      ``coec_expected="best_position"``, OpenSearch Search Relevance Workbench's variant
      (opensearch-project/search-relevance,
      ``src/main/java/org/opensearch/searchrelevance/judgments/clickmodel/coec/CoecClickModel.java``,
      ``calculateCoecJudgments``, with ``model/ClickthroughRate.java``'s ``logRank``): the
      expected clicks are CTR(the best, i.e. smallest, position the pair was shown at) x the
      pair's rows (``n_impressions``), as if every showing had been at that position; a pair
      whose expected clicks are 0 (its best position was never clicked in the whole log) gets
      COEC 0, as there, even if it was clicked lower down.  The result also has
      ``best_position``.  OpenSearch rounds the rating to 3 decimals; here it is not rounded.
    - ``cm`` (cascade, Craswell et al. 2008): attractiveness over the rows at or above the
      impression's first click; relevance = attractiveness.
    - ``dcm`` (Guo et al. 2009): attractiveness over the rows at or above the last click;
      ``continuation`` per position over its clicked rows (numerator: not the last click).
    - ``sdbn`` (Chapelle and Zhang 2009): attractiveness as DCM's; satisfaction over the
      pair's clicked rows (numerator: the last click); relevance = a x s.
    - ``pbm``, ``ubm``: EM on attractiveness x examination (by position; UBM: by position and
      the previous click's position), PyClick's updates; relevance = attractiveness.
    - ``dbn``: EM of attractiveness, satisfaction and one continuation gamma, PyClick's
      updates; relevance = a x s.

    With ``prior=(1, 1)`` and ``iterations=50`` every parameter equals PyClick's (commit
    98e7e46) to 1e-9, except where PyClick slips (each tested):

    - CM: PyClick's ``predict_relevance`` reads a parameter CM does not have (``ctr``) and
      raises; here relevance is CM's attractiveness.
    - DBN: PyClick's ``_get_tail_clicks`` reads the parameters of ranks 0, 1, ... for the
      results below the rank being updated, so the continuation's update uses other
      documents' parameters; here each rank reads its own.
    - UBM: PyClick files "no click above" under the rank index ``M - 1`` (M: the session's
      length), so sessions of different lengths get different parameters for the same
      situation; here it is one key of its own (``previous_click = 0``).  On sessions of
      one length the two agree.
    - PyClick's per-rank parameters (DCM, PBM, UBM) stop at 10 ranks (an IndexError
      below); here every position has its own.

    Examples
    --------
    >>> import polars as pl
    >>> log = pl.DataFrame({"impression_id": [1, 1, 2, 2], "query_id": "q",
    ...                     "doc_id": ["a", "b", "b", "a"], "position": [1, 2, 1, 2],
    ...                     "clicked": [0, 1, 1, 0]})
    >>> click_judgments(log, "sdbn").select("doc_id", "relevance", "attractiveness", "satisfaction")
    shape: (2, 4)
    ┌────────┬───────────┬────────────────┬──────────────┐
    │ doc_id ┆ relevance ┆ attractiveness ┆ satisfaction │
    │ ---    ┆ ---       ┆ ---            ┆ ---          │
    │ str    ┆ f64       ┆ f64            ┆ f64          │
    ╞════════╪═══════════╪════════════════╪══════════════╡
    │ a      ┆ 0.166667  ┆ 0.333333       ┆ 0.5          │
    │ b      ┆ 0.5625    ┆ 0.75           ┆ 0.75         │
    └────────┴───────────┴────────────────┴──────────────┘
    """
    return _click_model(log, model, **options).judgments
