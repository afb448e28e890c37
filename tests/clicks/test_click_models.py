"""click_model / click_judgments on a hand-computed log, frame types, and every rule that leaves
something out (with its count) or warns (with the fix, followed).

The log (query q), clicked documents starred::

    impression 1:  a   b*  c      first click 2, last click 2
    impression 2:  b*  a*  c      first click 1, last click 2
    impression 3:  c   a   b      no click: every row counts as examined

CTR by position: 1/3, 2/3, 0.
"""

from __future__ import annotations

import warnings

import polars as pl
import pytest

import irframe.clicks as ic
from _support.helpers import CONSTRUCTORS, to_polars
from irframe.exceptions import ClickLogWarning, InvalidParameterError

LOG = {
    "impression_id": [1, 1, 1, 2, 2, 2, 3, 3, 3],
    "query_id": ["q"] * 9,
    "doc_id": ["a", "b", "c", "b", "a", "c", "c", "a", "b"],
    "position": [1, 2, 3, 1, 2, 3, 1, 2, 3],
    "clicked": [0, 1, 0, 1, 1, 0, 0, 0, 0],
}


def _rel(model: str, **kw: object) -> dict[str, float]:
    out = to_polars(ic.click_judgments(pl.DataFrame(LOG), model, **kw))  # type: ignore[arg-type]
    return dict(zip(out["doc_id"], out["relevance"], strict=True))


def test_coec_by_hand() -> None:
    # a: 1 click / (1/3 + 2/3 + 2/3); b: 2 / (2/3 + 1/3 + 0); c: 0 / (0 + 0 + 1/3)
    assert _rel("coec") == pytest.approx({"a": 1 / (5 / 3), "b": 2.0, "c": 0.0}, abs=1e-12)


def test_opensearch_best_position_coec_by_hand() -> None:
    """OpenSearch Search Relevance Workbench's COEC: CTR(the pair's best position) x its rows."""
    log = pl.DataFrame(
        {
            "impression_id": [4, 4, 5, 5, 6, 6, 7, 7],
            "query_id": "r",
            "doc_id": ["x", "w", "x", "w", "y", "x", "y", "w"],
            "position": [1, 2, 1, 2, 1, 2, 1, 2],
            "clicked": [0, 1, 1, 0, 0, 0, 0, 1],
        }
    )
    # CTR: position 1 1/4 (x in impression 5), position 2 2/4 (w in 4 and 7)
    # x: shown at 1, 1, 2 (best 1), 1 click: 1 / (1/4 x 3) = 4/3 (rows: 1 / (1/4 + 1/4 + 1/2) = 1)
    # w: shown at 2, 2, 2 (best 2), 2 clicks: 2 / (1/2 x 3) = 4/3;  y: best 1, no click: 0
    fit = ic.click_model(log, "coec", coec_expected="best_position")
    got = fit.judgments.select("doc_id", "best_position", "expected_clicks", "coec", "relevance").rows()
    assert got == [
        ("w", 2, pytest.approx(3 / 2), pytest.approx(4 / 3), pytest.approx(4 / 3)),
        ("x", 1, pytest.approx(3 / 4), pytest.approx(4 / 3), pytest.approx(4 / 3)),
        ("y", 1, pytest.approx(2 / 4), 0.0, 0.0),
    ]
    rows = dict(ic.click_judgments(log, "coec").select("doc_id", "relevance").rows())
    assert rows == pytest.approx({"w": 4 / 3, "x": 1.0, "y": 0.0})
    # best position never clicked in the whole log (CTR 0): expected 0, COEC 0 as OpenSearch's,
    # though b was clicked at position 2 (rows: 1 / (1/2 + 0) = 2)
    zero = pl.DataFrame(
        {"impression_id": [1, 1, 2, 2], "query_id": "q", "doc_id": ["a", "b", "b", "a"],
         "position": [1, 2, 1, 2], "clicked": [0, 1, 0, 0]}
    )  # fmt: skip
    best = ic.click_judgments(zero, "coec", coec_expected="best_position")
    assert best.select("doc_id", "expected_clicks", "coec").rows() == [("a", 0.0, 0.0), ("b", 0.0, 0.0)]
    assert ic.click_judgments(zero, "coec")["coec"].to_list() == [0.0, 2.0]
    with pytest.raises(InvalidParameterError, match="'coec_expected' parameter of click_model"):
        ic.click_judgments(zero, "sdbn", coec_expected="best_position")
    with pytest.raises(InvalidParameterError, match="did you mean 'best_position'"):
        ic.click_judgments(zero, "coec", coec_expected="best_postion")  # type: ignore[arg-type]


def test_cascade_by_hand() -> None:
    # rows at or above the first click: a 0/2, b 2/3, c 0/1; Beta(1, 1): (1 + k) / (2 + n)
    assert _rel("cm") == pytest.approx({"a": 1 / 4, "b": 3 / 5, "c": 1 / 3}, abs=1e-12)
    assert _rel("cm", prior=(0, 0)) == pytest.approx({"a": 0.0, "b": 2 / 3, "c": 0.0}, abs=1e-12)


def test_dcm_and_sdbn_by_hand() -> None:
    # attractiveness over rows at or above the last click: a 1/3, b 2/3, c 0/1
    attr = {"a": 2 / 5, "b": 3 / 5, "c": 1 / 3}
    assert _rel("dcm") == pytest.approx(attr, abs=1e-12)
    # satisfaction over clicked rows, counting the last click: a 1/1, b 1/2, c none
    sat = {"a": 2 / 3, "b": 2 / 4, "c": 1 / 2}
    assert _rel("sdbn") == pytest.approx({d: attr[d] * sat[d] for d in attr}, abs=1e-12)
    fit = ic.click_model(pl.DataFrame(LOG), "dcm")
    # continuation over clicked rows at the position, counting "not the last click":
    # position 1: 1/1; position 2: 0/2; position 3: no clicked row (the prior's mean)
    got = fit.positions.select("position", "n_clicks", "continuation").rows()
    assert got == [(1, 1, pytest.approx(2 / 3)), (2, 2, pytest.approx(1 / 4)), (3, 0, pytest.approx(1 / 2))]


@pytest.mark.parametrize("kind", ["polars", "polars-lazy", "pandas"])
def test_frames_in_frames_out(kind: str) -> None:
    frame = CONSTRUCTORS[kind](LOG)
    out = ic.click_judgments(frame, "sdbn")
    assert type(out).__module__.split(".")[0] == type(frame).__module__.split(".")[0]
    assert isinstance(out, pl.LazyFrame) == (kind == "polars-lazy")
    got = to_polars(out)
    assert got.columns == [
        "query_id",
        "doc_id",
        "relevance",
        "n_impressions",
        "n_clicks",
        "attractiveness",
        "satisfaction",
    ]
    assert got["n_impressions"].to_list() == [3, 3, 3]
    assert got["n_clicks"].to_list() == [1, 2, 0]


def test_column_names_are_parameters() -> None:
    renamed = pl.DataFrame(LOG).rename({"query_id": "qid", "doc_id": "sku", "clicked": "click"})
    out = ic.click_judgments(renamed, "cm", query_col="qid", doc_col="sku", clicked_col="click")
    assert out.columns[:3] == ["qid", "sku", "relevance"]
    assert dict(zip(out["sku"], out["relevance"], strict=True)) == _rel("cm")


def test_judgments_evaluate_unchanged() -> None:
    import irframe

    qrels = ic.click_judgments(pl.DataFrame(LOG), "sdbn")
    run = pl.DataFrame({"query_id": ["q"] * 3, "doc_id": ["b", "a", "c"], "score": [3.0, 2.0, 1.0]})
    got = irframe.evaluate(run, ["DCG(gain=linear)@3"], qrels)["DCG(gain=linear)@3"][0]
    assert got == pytest.approx(0.3 + (4 / 15) / 1.584962500721156 + (1 / 6) / 2.0)


def test_min_impressions_counted_and_warned() -> None:
    with pytest.warns(ClickLogWarning, match="3 of 3 .* fewer than min_impressions=4"):
        fit = ic.click_model(pl.DataFrame(LOG), "cm", min_impressions=4)
    assert fit.judgments.height == 0
    assert fit.summary["n_pairs_below_min_impressions"] == 3
    assert fit.summary["n_impressions_without_clicks"] == 1


def test_max_position_counted_and_its_hint() -> None:
    with pytest.warns(ClickLogWarning, match="3 of 9 log rows are beyond max_position=2.*max_position=None"):
        fit = ic.click_model(pl.DataFrame(LOG), "cm", max_position=2)
    assert fit.summary["n_rows_beyond_max_position"] == 3
    assert fit.judgments["n_impressions"].to_list() == [3, 2, 1]  # c was shown at 1 once
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _rel("cm", max_position=None) == _rel("cm")


def test_unknown_model_hint_followed() -> None:
    with pytest.raises(InvalidParameterError, match="did you mean 'sdbn'"):
        ic.click_judgments(pl.DataFrame(LOG), "sdnb")  # type: ignore[arg-type]
    assert _rel("sdbn")["a"] == pytest.approx(4 / 15)


def test_em_not_converged_warns_and_the_hint_helps() -> None:
    with pytest.warns(ClickLogWarning, match=r"did not converge within iterations=2.*raise iterations"):
        ic.click_model(pl.DataFrame(LOG), "pbm", iterations=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fit = ic.click_model(pl.DataFrame(LOG), "pbm", iterations=2000)
    assert fit.summary["last_change"] <= 1e-6
    assert fit.summary["iterations"] == 2000


@pytest.mark.parametrize(("name", "value"), [("prior", (1,)), ("iterations", 0), ("min_impressions", -1)])
def test_bad_parameters(name: str, value: object) -> None:
    with pytest.raises(InvalidParameterError, match=f"'{name}' parameter of click_model"):
        ic.click_model(pl.DataFrame(LOG), "pbm", **{name: value})  # type: ignore[arg-type]
