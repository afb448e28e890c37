"""Building, growing and trusting a golden set.

One module per job: :mod:`.sample` (queries drawn from a log), :mod:`.pool` (what to
judge next), :mod:`.judgments` (the judgments merged back), :mod:`.agreement` (judges
compared), :mod:`.power` (what change the set can see, how many queries a change needs).

Private: the public names are :func:`irframe.sample_queries`, :func:`irframe.pool`,
:class:`irframe.Pool`, :func:`irframe.add_judgments`, :class:`irframe.JudgmentMerge`,
:func:`irframe.agreement` and :func:`irframe.power` (and the result classes).
"""
