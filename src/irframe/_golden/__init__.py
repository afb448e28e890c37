"""Building and growing a golden set: pool what to judge next, merge the judgments back.

Private: the public names are :func:`irframe.pool`, :class:`irframe.Pool`,
:func:`irframe.add_judgments` and :class:`irframe.JudgmentMerge`.
"""
