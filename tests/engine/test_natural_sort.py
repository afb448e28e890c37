"""The Python sort of small per-query tables gives polars' natural order exactly."""

from __future__ import annotations

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from _support.helpers import examples
from irframe._input.columns import natural_order, natural_sorted

_TEXT = st.one_of(
    st.none(),
    st.text(alphabet="q0123456789-_ aZé€\U0001f600", max_size=6),
    st.from_regex(r"[a-z]{0,2}0{0,2}[0-9]{0,25}[a-z]?", fullmatch=True),
)


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.tuples(_TEXT, _TEXT), max_size=40, unique=True))
def test_python_sort_equals_polars_natural_order(pairs: list[tuple[str | None, str | None]]) -> None:
    df = pl.DataFrame({"system": [a for a, _ in pairs], "query_id": [b for _, b in pairs]},
                      schema={"system": pl.String, "query_id": pl.String})  # fmt: skip
    want = df.sort(natural_order(df.schema, ["system", "query_id"]), nulls_last=True)
    assert natural_sorted(df, ["system", "query_id"]).rows() == want.rows()


def test_hand_written_order() -> None:
    # text before the digits, then the number (any length, leading zeros ignored), then the text
    ids = ["q10", "q2", "q02", "q1b", "q", "27", "301", "9" * 30, "1" + "0" * 29, None]
    got = natural_sorted(pl.DataFrame({"q": ids}), ["q"])["q"].to_list()
    assert got == ["27", "301", "1" + "0" * 29, "9" * 30, "q", "q1b", "q02", "q2", "q10", None]
