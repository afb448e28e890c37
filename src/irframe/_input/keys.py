"""The internal column names: one name for each internal meaning, written once.

They start with ``__ir_`` so they never clash with a caller's column and never reach a
message (a verb that views several runs as one stacked frame maps :data:`SYSTEM` back to
the caller's ``system_col`` before raising: see :func:`irframe._input.runs.user_terms`).
"""

from __future__ import annotations

__all__ = ["DOC_KEY", "GRADE", "MEASURE", "POSITION", "QUERY_KEY", "SYSTEM", "VALUE"]

SYSTEM = "__ir_system"  # the run's name (String) in a stack of several runs
QUERY_KEY = "__ir_q"  # the query id as text: runs, qrels, sheets and tables of other id dtypes join on it
DOC_KEY = "__ir_d"  # the doc id as text
POSITION = "__ir_pos"  # 1-based position in the ranking order
GRADE = "__ir_grade"  # the judged grade (Float64), null when unjudged
MEASURE = "__ir_measure"  # a measure's label in a long (one row per measure) table
VALUE = "__ir_value"  # a measure's value in a long table
