"""The caller's input: frames in and out, column roles, options, query attributes, checks.

The ranking order is written once here, in :mod:`.columns`.
"""
