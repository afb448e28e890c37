"""Every click model's parameters against PyClick's (GPL, ``IRFRAME_SHARED_DIR/tools/pyclick``, a
test oracle only) on generated sessions, to 1e-9; and each of PyClick's slips, named in
``click_judgments``' Notes, shown here: PyClick with that one line corrected agrees again."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import polars as pl
import pytest

import irframe.clicks as ic
from _support.click_sessions import generated_log, pyclick, sessions

pytestmark = pytest.mark.oracle
TOL = 1e-9


def _model(name: str) -> Any:
    pyclick()
    from pyclick.click_models import CM, DBN, DCM, PBM, SDBN, UBM

    classes = {"cm": CM, "dcm": DCM, "sdbn": SDBN, "pbm": PBM, "ubm": UBM, "dbn": DBN}
    return classes[name]()


def _trained(name: str, log: pl.DataFrame) -> Any:
    model = _model(name)
    model.train(sessions(log))
    return model


def _pair_params(model: Any, fit: ic.ClickModel) -> list[tuple[float, float]]:
    """(PyClick's, ours) for every per-pair parameter of every pair."""
    names = model.param_names
    out = []
    for row in fit.judgments.iter_rows(named=True):
        q, d = row["query_id"], row["doc_id"]
        out.append((model.params[names.attr].get(q, d).value(), row["attractiveness"]))
        if "satisfaction" in row:
            out.append((model.params[names.sat].get(q, d).value(), row["satisfaction"]))
    return out


def _ranked(model: Any, param: str, ours: pl.DataFrame, column: str) -> list[tuple[float, float]]:
    """(PyClick's, ours) for a per-rank parameter at every position of ``ours``."""
    container = model.params[model.param_names[param]]
    return [(container.get(p - 1).value(), v) for p, v in ours.select("position", column).rows()]


def _close(pairs: list[tuple[float, float]]) -> None:
    worst = max(abs(a - b) for a, b in pairs)
    assert worst <= TOL, worst


@pytest.mark.parametrize("name", ["cm", "dcm", "sdbn", "pbm", "dbn"])
def test_pair_parameters_equal_pyclick(name: str) -> None:
    log = generated_log(3, 16 if name == "dbn" else 120, (3, 4, 5, 6))
    fit = ic.click_model(log, name, tol=1.0)  # type: ignore[arg-type]
    if name == "dbn":
        with _pyclick_dbn_tail_fixed():
            model = _trained(name, log)
        assert abs(model.params[model.param_names.cont].get().value() - fit.continuation) <= TOL
    else:
        model = _trained(name, log)
    _close(_pair_params(model, fit))
    assert fit.judgments["n_impressions"].sum() == log.height


def test_position_parameters_equal_pyclick() -> None:
    log = generated_log(4, 120, (3, 4, 5, 6))
    dcm, pbm = _trained("dcm", log), _trained("pbm", log)
    ours_dcm = ic.click_model(log, "dcm").positions
    ours_pbm = ic.click_model(log, "pbm", tol=1.0).positions
    pairs = [
        (dcm.params[dcm.param_names.cont].get(p - 1).value(), c)
        for p, c in ours_dcm.select("position", "continuation").rows()
    ]
    pairs += [
        (pbm.params[pbm.param_names.exam].get(p - 1).value(), e)
        for p, e in ours_pbm.select("position", "examination").rows()
    ]
    _close(pairs)


def test_ubm_equals_pyclick_on_sessions_of_one_length() -> None:
    log = generated_log(5, 100, (5,))
    model = _trained("ubm", log)
    fit = ic.click_model(log, "ubm", tol=1.0)
    _close(_pair_params(model, fit))
    exam = model.params[model.param_names.exam]
    # PyClick's "no click above" is rank M - 1 = 4 (0-based); ours is previous_click = 0
    pairs = [
        (exam.get(p - 1, prev - 1 if prev else 4).value(), e)
        for p, prev, n, e in fit.positions.select("position", "previous_click", "n", "examination").rows()
        if n
    ]
    assert len(pairs) == 15  # every (position, previous click above it or none) of 5 positions
    _close(pairs)


def test_ubm_no_click_above_is_one_key_whatever_the_length() -> None:
    """PyClick files "no click above" under M - 1, so sessions of 3 and 5 results get separate
    parameters for the same situation; ours is one key. PyClick with a fixed key agrees."""
    log = generated_log(6, 100, (3, 5))
    fit = ic.click_model(log, "ubm", tol=1.0)
    plain = _trained("ubm", log)
    assert max(abs(a - b) for a, b in _pair_params(plain, fit)) > 1e-6  # the slip changes numbers
    pyclick()
    from pyclick.click_models.ParamContainer import RankPrevClickParamContainer

    original = RankPrevClickParamContainer._get_prev_clicked_rank

    def one_key(session: Any, rank: int) -> int:
        prev = original(session, rank)
        return 9 if prev == len(session.web_results) - 1 else prev

    with _patched(RankPrevClickParamContainer, "_get_prev_clicked_rank", staticmethod(one_key)):
        fixed = _trained("ubm", log)
    _close(_pair_params(fixed, fit))
    exam = fixed.params[fixed.param_names.exam]
    rows = fit.positions.filter(pl.col("n") > 0).select("position", "previous_click", "examination").rows()
    _close([(exam.get(p - 1, prev - 1 if prev else 9).value(), e) for p, prev, e in rows])


def test_more_than_ten_positions() -> None:
    """PyClick's per-rank containers hold 10 ranks (an IndexError below); ours hold every
    position, and PyClick with 12 ranks agrees."""
    log = generated_log(7, 50, (12,), n_docs=12)
    with pytest.raises(IndexError):
        _trained("dcm", log)
    pyclick()
    from pyclick.click_models.ParamContainer import RankParamContainer

    with _patched(RankParamContainer, "MAX_RANK_DEFAULT", 12):
        dcm, pbm = _trained("dcm", log), _trained("pbm", log)
    ours = ic.click_model(log, "dcm").positions
    assert ours["position"].to_list() == list(range(1, 13))
    _close(
        [
            (dcm.params[dcm.param_names.cont].get(p - 1).value(), c)
            for p, c in ours.select("position", "continuation").rows()
        ]
    )
    _close(_pair_params(pbm, ic.click_model(log, "pbm", tol=1.0)))


def test_cm_relevance_where_pyclick_raises() -> None:
    log = generated_log(8, 100, (4,))
    model = _trained("cm", log)
    with pytest.raises(AttributeError):  # PyClick reads CM's "ctr" parameter, which CM has not
        model.predict_relevance("q0", "d0")
    out = ic.click_judgments(log, "cm")
    _close(
        [
            (model.params[model.param_names.attr].get(q, d).value(), r)
            for q, d, r in out.select("query_id", "doc_id", "relevance").rows()
        ]
    )


def test_dbn_tail_slip_changes_the_numbers() -> None:
    log = generated_log(9, 12, (4, 5))
    fit = ic.click_model(log, "dbn", tol=1.0)
    plain = _trained("dbn", log)
    assert max(abs(a - b) for a, b in _pair_params(plain, fit)) > 1e-6


@contextmanager
def _patched(owner: Any, name: str, value: Any) -> Iterator[None]:
    original = owner.__dict__[name]
    setattr(owner, name, value)
    try:
        yield
    finally:
        setattr(owner, name, original)


@contextmanager
def _pyclick_dbn_tail_fixed() -> Iterator[None]:
    """PyClick's ``DBN._get_tail_clicks`` with its one slip corrected: the results from
    ``start_rank`` read their own ranks' parameters (PyClick reads ranks 0, 1, ...)."""
    pyclick()
    from pyclick.click_models.DBN import DBN

    def tail(cls: Any, session: Any, start_rank: int, params: Any) -> tuple[list[float], list[float]]:
        exam, clicks, exams = 1.0, [], [1.0]
        for rank, result in enumerate(session.web_results[start_rank:], start=start_rank):
            names = cls.param_names
            attr, sat = params[rank][names.attr].value(), params[rank][names.sat].value()
            cont = params[rank][names.cont].value()
            if result.click:
                prob, exam = attr * exam, cont * (1 - sat)
            else:
                prob = 1 - attr * exam
                exam *= cont * (1 - attr) / prob
            clicks.append(prob)
            exams.append(exam)
        return clicks, exams

    with _patched(DBN, "_get_tail_clicks", classmethod(tail)):
        yield
