"""online.metrics and online.compare: the delta method by hand, tea-tasting's RatioOfMeans,
each metric's definition on a hand-made log, the experiment's rules."""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np
import polars as pl
import pytest

from _support.helpers import CONSTRUCTORS, to_polars
from _support.online_logs import ab_log
from irframe import online
from irframe.exceptions import (
    ColumnNotFoundError,
    InvalidDataError,
    InvalidParameterError,
    SampleRatioMismatchWarning,
    UnknownMeasureError,
)

ONE_ROW = {"query_id": "q", "doc_id": "d", "position": 1}


def _log(clicks: list[int], users: list[str], arms: list[str] | None = None) -> pl.DataFrame:
    n = len(clicks)
    data = {"impression_id": list(range(1, n + 1)), **{k: [v] * n for k, v in ONE_ROW.items()}}
    data |= {"clicked": clicks, "user_id": users}
    if arms is not None:
        data["arm"] = arms
    return pl.DataFrame(data)


def test_delta_method_by_hand() -> None:
    # three users: u1 has 2 impressions (1 click), u2 3 impressions (3 clicks), u3 1 impression (0)
    log = _log([1, 0, 1, 1, 1, 0], ["u1", "u1", "u2", "u2", "u2", "u3"])
    # per-unit sums: x = clicked impressions (1, 3, 0), y = impressions (2, 3, 1); n = 3
    # mean x = 4/3, mean y = 2, r = (4/3) / 2 = 2/3
    # var x = ((1-4/3)^2 + (3-4/3)^2 + (0-4/3)^2) / 2 = (1/9 + 25/9 + 16/9) / 2 = 7/3
    # var y = ((2-2)^2 + (3-2)^2 + (1-2)^2) / 2 = 1
    # cov   = ((1-4/3)(0) + (3-4/3)(1) + (0-4/3)(-1)) / 2 = (5/3 + 4/3) / 2 = 3/2
    # s2 = (var x - 2 r cov + r^2 var y) / mean_y^2 = (7/3 - 2 + 4/9) / 4 = (7/9) / 4 = 7/36
    # se = sqrt(s2 / n) = sqrt(7/108)
    out = online.metrics(log, "CTR")
    row = out.row(0, named=True)
    assert row["value"] == pytest.approx(2 / 3, abs=1e-15)
    assert row["se"] == pytest.approx(math.sqrt(7 / 108), rel=1e-12)
    t2 = 4.302652729749464  # t_{0.975, 2}
    assert row["ci_low"] == pytest.approx(2 / 3 - t2 * math.sqrt(7 / 108), rel=1e-9)
    assert (row["n_units"], row["n_impressions"], row["numerator"], row["denominator"]) == (3, 6, 4.0, 6.0)


def test_wrong_unit_understates_the_variance() -> None:
    # the same log with every impression its own unit: the naive (binomial) standard error
    log = _log([1, 0, 1, 1, 1, 0], ["u1", "u1", "u2", "u2", "u2", "u3"]).with_columns(
        imp=pl.col("impression_id")
    )
    naive = online.metrics(log, "CTR", unit="imp")["se"][0]
    p = 4 / 6
    assert naive == pytest.approx(math.sqrt(p * (1 - p) * 6 / 5 / 6), rel=1e-12)  # ddof=1 over 6 impressions
    assert online.metrics(log, "CTR")["se"][0] > naive


def _unit_table(log: pl.DataFrame, metric: str) -> pl.DataFrame:
    """Per-unit numerator and denominator written from the rows in plain Python."""
    imps: dict[int, list[dict[str, object]]] = defaultdict(list)
    for r in log.iter_rows(named=True):
        imps[r["impression_id"]].append(r)
    units: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
    arm_of: dict[str, str] = {}
    for rows in imps.values():
        clicked = [r for r in rows if r["clicked"] > 0]
        if metric == "CTR@3":
            num, den = float(any(r["position"] <= 3 for r in clicked)), 1.0
        elif metric == "RRFirstClick":
            num, den = (1 / min(r["position"] for r in clicked) if clicked else 0.0), 1.0
        else:  # TimeToFirstClick
            num = min(r["click_time"] for r in clicked) - rows[0]["timestamp"] if clicked else 0.0
            den = float(bool(clicked))
        u = rows[0]["user_id"]
        units[u][0] += num
        units[u][1] += den
        arm_of[u] = rows[0]["arm"]
    return pl.DataFrame({"variant": [arm_of[u] for u in units], "num": [v[0] for v in units.values()],
                         "den": [v[1] for v in units.values()]})  # fmt: skip


@pytest.mark.oracle
@pytest.mark.deep  # importing tea-tasting (ibis) is slow: the oracle step runs it, not the test command
@pytest.mark.parametrize("metric", ["CTR@3", "RRFirstClick", "TimeToFirstClick"])
def test_compare_equals_tea_tasting_ratio_of_means(metric: str) -> None:
    tt = pytest.importorskip("tea_tasting", reason="tea-tasting (the oracles extra) checks the A/B numbers")
    log = ab_log(240, seed=3, lift=0.15)
    ours = online.compare(log, metric, control="A", correction="none").row(0, named=True)
    theirs = tt.Experiment(m=tt.RatioOfMeans("num", "den")).analyze(_unit_table(log, metric), control="A")[
        "m"
    ]
    pairs = {
        "control_value": theirs.control, "treatment_value": theirs.treatment, "diff": theirs.effect_size,
        "diff_ci_low": theirs.effect_size_ci_lower, "diff_ci_high": theirs.effect_size_ci_upper,
        "lift": theirs.rel_effect_size, "lift_ci_low": theirs.rel_effect_size_ci_lower,
        "lift_ci_high": theirs.rel_effect_size_ci_upper, "p_value": theirs.pvalue,
        "statistic": theirs.statistic,
    }  # fmt: skip
    for k, v in pairs.items():
        assert ours[k] == pytest.approx(v, rel=1e-9, abs=1e-12), k
    assert ours["p_adjusted"] == ours["p_value"]


def test_metric_definitions_on_a_hand_made_log() -> None:
    # one user, one session; impressions (t = 0, 100, 1000): clicks at positions {2, 3}, {}, {1}
    log = pl.DataFrame({
        "impression_id": [1, 1, 1, 2, 2, 2, 3, 3, 3],
        "query_id": ["a", "a", "a", "b", "b", "b", "b", "b", "b"],
        "doc_id": ["x", "y", "z"] * 3,
        "position": [1, 2, 3] * 3,
        "clicked": [0, 1, 1, 0, 0, 0, 1, 0, 0],
        "user_id": ["u"] * 9,
        "session_id": ["s"] * 9,
        "timestamp": [0.0] * 3 + [100.0] * 3 + [1000.0] * 3,
        "click_time": [None, 4.0, 9.0, None, None, None, 1003.0, None, None],
        "dwell": [None, 10.0, 45.0, None, None, None, 31.0, None, None],
    })  # fmt: skip
    names = ["CTR@1", "CTR@2", "Abandonment", "ClicksPerQuery", "RRFirstClick", "TimeToFirstClick",
             "SATClick@30", "SATClick@40", "Reformulation", "Reformulation@1000", "SuccessfulSession",
             "PositionCTR"]  # fmt: skip
    out = online.metrics(log, names)
    got = {(m, p): v for m, p, v in out.select("metric", "position", "value").iter_rows()}
    expected = {
        ("CTR@1", None): 1 / 3, ("CTR@2", None): 2 / 3, ("Abandonment", None): 1 / 3,
        ("ClicksPerQuery", None): 3 / 3, ("RRFirstClick", None): (1 / 2 + 0 + 1) / 3,
        ("TimeToFirstClick", None): (4.0 + 3.0) / 2, ("SATClick@30", None): 2 / 3,
        ("SATClick@40", None): 1 / 3,
        # a -> b after 100 s: a reformulation; b -> b: same query; b is last. Window 300: 1 of 3
        ("Reformulation@300", None): 1 / 3, ("Reformulation@1000", None): 1 / 3,
        ("SuccessfulSession@30", None): 1.0,
        ("PositionCTR", 1): 1 / 3, ("PositionCTR", 2): 1 / 3, ("PositionCTR", 3): 1 / 3,
    }  # fmt: skip
    assert got == pytest.approx(expected, rel=1e-12)


def test_reformulation_window_cuts() -> None:
    log = pl.DataFrame({
        "impression_id": [1, 2, 3], "query_id": ["a", "b", "c"], "doc_id": ["x"] * 3, "position": [1] * 3,
        "clicked": [0] * 3, "user_id": ["u"] * 3, "session_id": ["s"] * 3, "timestamp": [0.0, 400.0, 500.0],
    })  # fmt: skip
    # 1 -> 2 after 400 s (cut by the 300 s window), 2 -> 3 after 100 s (a reformulation), 3 is last
    assert online.metrics(log, "Reformulation")["value"][0] == pytest.approx(1 / 3)
    assert online.metrics(log, "Reformulation@400")["value"][0] == pytest.approx(2 / 3)


@pytest.mark.parametrize("kind", ["polars", "polars-lazy", "pandas", "pandas-pyarrow"])
def test_frame_types(kind: str) -> None:
    log = ab_log(40, seed=1)
    ref = online.compare(log, ["CTR@3", "PositionCTR"], control="A")
    got = online.compare(
        CONSTRUCTORS[kind](log.to_dict(as_series=False)), ["CTR@3", "PositionCTR"], control="A"
    )
    assert type(got).__module__.split(".")[0] == ("pandas" if kind.startswith("pandas") else "polars")
    assert to_polars(got).equals(ref)


def test_by_segments_share_units_and_match_their_subsets() -> None:
    log = ab_log(60, seed=2)
    out = online.metrics(log, "CTR@3", by=["device", "arm"])
    sub = online.metrics(log.filter(pl.col("device") == "mobile", pl.col("arm") == "B"), "CTR@3")
    row = out.filter(pl.col("device") == "mobile", pl.col("arm") == "B")
    assert row.select("value", "se", "n_units").rows() == sub.select("value", "se", "n_units").rows()


def test_bootstrap_agrees_with_delta() -> None:
    log = ab_log(200, seed=4)
    delta = online.metrics(log, "ClicksPerQuery")["se"][0]
    boot = online.metrics(log, "ClicksPerQuery", variance="bootstrap", n_bootstrap=2000, seed=1)["se"][0]
    # the bootstrap's se has a Monte Carlo error of about se / sqrt(2 B) = 1.6%; 10% is ~6 of those
    assert boot == pytest.approx(delta, rel=0.10)


def test_rules() -> None:
    log = _log([1, 0, 1, 1], ["u1", "u2", "u3", "u4"], ["A", "A", "B", "B"])
    with pytest.raises(InvalidDataError, match=r"one value \(\['A'\]\)"):
        online.compare(log.filter(pl.col("arm") == "A"), "CTR", control="A")
    broken = log.with_columns(user_id=pl.Series(["u1", "u2", "u1", "u4"]))
    with pytest.raises(
        InvalidDataError, match=r"1 unit\(s\) appear in more than one arm.*'u1' in \['A', 'B'\]"
    ):
        online.compare(broken, "CTR", control="A")
    with pytest.raises(InvalidParameterError, match=r"control='C'.*\['A', 'B'\]"):
        online.compare(log, "CTR", control="C")
    with pytest.raises(ColumnNotFoundError, match="'variant'"):
        online.compare(log, "CTR", arm="variant", control="A")
    with pytest.raises(UnknownMeasureError, match="Did you mean 'CTR'"):
        online.metrics(log, "CRT")
    with pytest.raises(ColumnNotFoundError, match="dwell"):
        online.metrics(log, "SATClick@30")


def test_timestamps_out_of_order_are_refused() -> None:
    base = {"query_id": ["a", "b"], "doc_id": ["x", "x"], "position": [1, 1], "clicked": [1, 0],
            "user_id": ["u", "u"], "session_id": ["s", "s"]}  # fmt: skip
    tied = pl.DataFrame({"impression_id": [1, 2], **base, "timestamp": [5.0, 5.0]})
    with pytest.raises(InvalidDataError, match=r"session 's' has 2 impressions at timestamp 5\.0"):
        online.metrics(tied, "Reformulation")
    early = pl.DataFrame(
        {"impression_id": [1, 2], **base, "timestamp": [5.0, 9.0], "click_time": [4.0, None]}
    )
    with pytest.raises(InvalidDataError, match="impression 1 has a click_time before its timestamp"):
        online.metrics(early, "TimeToFirstClick")


def test_sample_ratio_mismatch_warns_and_is_in_the_output() -> None:
    arms = ["A"] * 700 + ["B"] * 300
    log = _log([1, 0] * 500, [f"u{i}" for i in range(1000)], arms)
    with pytest.warns(SampleRatioMismatchWarning, match="A: 700, B: 300"):
        out = online.compare(log, "CTR", control="A")
    # chi-square with 1 df: (200^2/500 + 200^2/500) = 160
    assert out["srm_p_value"][0] == pytest.approx(math.erfc(math.sqrt(160 / 2)), rel=1e-9)
    fine = online.compare(log, "CTR", control="A", expected_split={"A": 0.7, "B": 0.3})
    assert fine["srm_p_value"][0] == pytest.approx(1.0)


def test_srm_against_scipy() -> None:
    stats = pytest.importorskip("scipy.stats")
    from irframe.online._stats import srm_p_value

    for obs, w in (([510, 490], [1, 1]), ([300, 330, 390], [1, 1, 1.2]), ([5, 50, 9, 11], [1, 2, 3, 4])):
        exp = np.asarray(w) / sum(w) * sum(obs)
        assert srm_p_value(obs, w) == pytest.approx(stats.chisquare(obs, exp).pvalue, rel=1e-10)


def test_corrections_are_irframe_stats() -> None:
    from irframe.stats import adjust_p_values

    log = ab_log(120, seed=5, lift=0.2, arms=("A", "B", "C"))
    out = online.compare(log, ["CTR@3", "RRFirstClick"], control="A", correction="bh")
    assert out["p_adjusted"].to_list() == adjust_p_values(out["p_value"].to_numpy(), "bh").tolist()
    assert out["arm"].to_list() == ["B", "C", "B", "C"]


def test_an_impression_with_two_units_or_arms_is_refused() -> None:
    log = pl.DataFrame({
        "impression_id": [1, 1, 2, 2], "query_id": ["q"] * 4, "doc_id": ["a", "b"] * 2,
        "position": [1, 2] * 2, "clicked": [1, 0, 0, 1], "uid": ["u1", "u2", "u3", "u3"],
        "arm": ["A", "A", "B", "B"],
    })  # fmt: skip
    with pytest.raises(InvalidDataError, match="impression 1 has different values of 'uid'"):
        online.compare(log, "CTR", control="A", unit="uid")
    mixed = log.with_columns(uid=pl.Series(["u1", "u1", "u3", "u3"]), arm=pl.Series(["A", "A", "B", None]))
    with pytest.raises(InvalidDataError, match="impression 2 has different values of 'arm'"):
        online.compare(mixed, "CTR", control="A", unit="uid")


def test_the_session_rules_are_counted_in_the_report() -> None:
    log = pl.DataFrame({
        "impression_id": [1, 2, 3, 4], "query_id": ["a", "b", "c", "d"], "doc_id": ["x"] * 4,
        "position": [1] * 4, "clicked": [0] * 4, "user_id": ["u1", "u1", "u2", "u2"],
        "session_id": ["s1", "s1", "s2", "s2"], "timestamp": [0.0, 400.0, 0.0, 10.0],
        "arm": ["A", "A", "B", "B"],
    })  # fmt: skip
    report = online.compare_report(log, "Reformulation", control="A")
    # s1: 1 -> 2 after 400 s (cut by the window), 2 last; s2: 3 -> 4 (a reformulation), 4 last
    assert "of 4 impressions, 2 end their session (no next query) and 1 have their next query after" in (
        report.to_text()
    )


def test_a_position_one_arm_never_showed_stays_in_the_table() -> None:
    log = pl.DataFrame({
        "impression_id": [1, 2, 3, 3, 4, 4], "query_id": ["q"] * 6, "doc_id": ["a", "a", "a", "b", "a", "b"],
        "position": [1, 1, 1, 2, 1, 2], "clicked": [1, 0, 1, 1, 0, 1],
        "user_id": ["u1", "u2", "u3", "u3", "u4", "u4"], "arm": ["A", "A", "B", "B", "B", "B"],
    })  # fmt: skip
    m = online.metrics(log, "PositionCTR", by="arm")
    assert m.select("arm", "position", "n_units", "denominator").rows() == [
        ("A", 1, 2, 2.0),
        ("A", 2, 2, 0.0),
        ("B", 1, 2, 2.0),
        ("B", 2, 2, 2.0),
    ]
    assert math.isnan(m["value"][1])
    out = online.compare(log, "PositionCTR", control="A")
    assert out["position"].to_list() == [1, 2]
    assert out["treatment_value"].to_list() == [0.5, 1.0]
    assert math.isnan(out["control_value"][1])
    assert math.isnan(out["p_value"][1])


def test_a_segment_without_the_control_keeps_its_rows() -> None:
    log = _log([1, 0, 1, 1, 0, 1], ["u1", "u2", "u3", "u4", "u5", "u6"], ["A", "A", "B", "B", "B", "B"])
    log = log.with_columns(device=pl.Series(["d", "d", "d", "d", "m", "m"]))
    with pytest.warns(SampleRatioMismatchWarning):  # segment m: no unit in A
        out = online.compare(log, "CTR", control="A", by="device", srm_alpha=0.5)
    assert out.select("device", "arm", "n_control", "n_treatment").rows() == [
        ("d", "B", 2, 2),
        ("m", "B", 0, 2),
    ]
    assert math.isnan(out["p_value"][1])


def test_the_lift_plot_names_each_segment() -> None:
    """With ``by``, two segments' lifts of one metric and arm are two labelled lines, in the
    table's order (the page's plot named neither segment until 2026-12-07)."""
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    from irframe._report.online import _lift_plot

    tab = online.compare(ab_log(300, seed=1), "CTR", control="A", by="device")
    _, _, draw = _lift_plot(to_polars(tab), ["device"])
    ax = Figure().add_subplot()
    draw(ax)
    labels = [t.get_text() for t in ax.get_yticklabels()]
    want = [f"CTR ({arm}) [device={dev}]" for dev, arm in to_polars(tab).select("device", "arm").rows()]
    assert labels == want  # (the first row at the top)
    assert {lab.split("device=")[1].rstrip("]") for lab in labels} == {"desktop", "mobile"}


def test_successful_session_alone_reads_the_sessions_time_order() -> None:
    """SuccessfulSession on its own (no Reformulation to bring the timestamps) gives the value it has
    beside Reformulation; a log without timestamps is refused naming the column."""
    log = ab_log(60, seed=3)
    alone = online.metrics(log, "SuccessfulSession")
    both = online.metrics(log, ["Reformulation", "SuccessfulSession"]).filter(
        pl.col("metric") == "SuccessfulSession@30"
    )
    assert alone.select("value", "se", "n_units").rows() == both.select("value", "se", "n_units").rows()
    # by hand: a session succeeds when one of its clicks has dwell >= 30; a unit's sessions over its sessions
    sessions = log.group_by("user_id", "session_id").agg(
        ((pl.col("clicked") > 0) & (pl.col("dwell") >= 30)).any().alias("ok")
    )
    assert alone["value"][0] == pytest.approx(sessions["ok"].mean(), rel=1e-12)
    with pytest.raises(ValueError, match="timestamp"):
        online.metrics(log.drop("timestamp", "click_time"), "SuccessfulSession")
