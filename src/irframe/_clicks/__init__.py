"""The implementation of :mod:`irframe.clicks` (read the public module first)."""
